//! The language-neutral type model every backend reads.

use std::collections::HashSet;

use serde_json::Value;

use super::checks::{NodeId, Program};
use crate::error::{Diagnostic, Location};

/// Index of a type in [`Ir::types`].
pub type TypeId = usize;

/// A type expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// Any JSON value.
    Any,
    Bool,
    /// An integer the schema bounds to the 64-bit signed range (`minimum` and `maximum`).
    Integer,
    /// Any other integer: JSON Schema admits integers of any size (`2^64`, `1e300`), so a
    /// language with fixed-size integers needs a wider type for it.
    WideInteger,
    Number,
    String,
    Null,
    /// A string that can only be this value.
    Literal(String),
    Nullable(Box<Ty>),
    Array(Box<Ty>),
    /// An object used as a map from names to values.
    Map(Box<Ty>),
    Named(TypeId),
    /// The value of a schema that does not pin the JSON type (no `type`, `enum` or `const`)
    /// but whose keywords apply to one type (`properties`, `items`, `pattern`): an instance of
    /// `kind` has the inner type, and every other JSON value is valid as it is.
    Open(Box<Ty>, JsonKind),
}

/// The JSON type that the keywords of an [`Ty::Open`] schema apply to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JsonKind {
    Object,
    Array,
    String,
}

impl JsonKind {
    /// The JSON Schema name of the type.
    pub fn name(self) -> &'static str {
        match self {
            JsonKind::Object => "object",
            JsonKind::Array => "array",
            JsonKind::String => "string",
        }
    }

    /// Whether a JSON value is of this type.
    pub fn holds(self, v: &Value) -> bool {
        match self {
            JsonKind::Object => v.is_object(),
            JsonKind::Array => v.is_array(),
            JsonKind::String => v.is_string(),
        }
    }
}

impl Ty {
    pub fn nullable(self) -> Ty {
        match self {
            // Any other JSON value, `null` among them, is an open type's other value.
            Ty::Nullable(_) | Ty::Null | Ty::Any | Ty::Open(..) => self,
            other => Ty::Nullable(Box::new(other)),
        }
    }

    /// Visits this type and every type inside it.
    pub fn visit(&self, f: &mut dyn FnMut(&Ty)) {
        f(self);
        match self {
            Ty::Nullable(t) | Ty::Array(t) | Ty::Map(t) | Ty::Open(t, _) => t.visit(f),
            _ => {}
        }
    }
}

/// A named type, emitted once per language.
#[derive(Debug, Clone)]
pub struct TypeDef {
    /// The name before any language's case and collision rules (`ThesisContext style_guide`).
    pub raw_name: String,
    pub module: usize,
    pub doc: Option<String>,
    pub origin: Location,
    /// The validator of this type's schema.
    pub node: NodeId,
    pub kind: TypeKind,
    /// Extension annotations (`x-…`) on the schema.
    pub annotations: Vec<(String, Value)>,
    /// Set for a type built for one variant of this union (from an `if`/`then` table) rather
    /// than found at a schema location of its own; a language that writes such variants inline
    /// need not emit it.
    pub variant_of: Option<TypeId>,
    /// Set when the type's schema does not pin the JSON type (see [`Ty::Open`]): the type
    /// describes the instances of this kind, and the schema's typed value is
    /// `Ty::Open(Named(this), kind)`.
    pub open: Option<JsonKind>,
}

#[derive(Debug, Clone)]
pub enum TypeKind {
    Struct(Struct),
    /// A closed set of strings.
    Enum(Vec<String>),
    Union(Union),
    /// Another name for a type expression.
    Alias(Ty),
}

#[derive(Debug, Clone)]
pub struct Struct {
    pub fields: Vec<Field>,
    /// `additionalProperties: false`.
    pub deny_unknown: bool,
    /// The type of the properties the struct does not declare, kept in a map (`Any` unless
    /// `additionalProperties` gives a schema); `None` when `deny_unknown`.
    pub extra: Option<Ty>,
}

#[derive(Debug, Clone)]
pub struct Field {
    /// The property name on the wire.
    pub wire: String,
    pub doc: Option<String>,
    pub ty: Ty,
    pub required: bool,
    /// A default that fits `ty`, applied when the property is absent.
    pub default: Option<Value>,
    /// Extension annotations (`x-…`) on the property's schema.
    pub annotations: Vec<(String, Value)>,
}

/// A union of variants. When `tags` is not empty, every variant is a struct whose tag
/// properties are literals, and the tuple of tag values tells the variants apart.
#[derive(Debug, Clone)]
pub struct Union {
    pub tags: Vec<String>,
    pub variants: Vec<Variant>,
    /// Set when this union is one variant of an enclosing tagged union: the enclosing union's
    /// tag property and the value it has in every variant here (seed 004's `Escalate`, split
    /// again by `subtype`). Such a union is a payload: it never stands alone on the wire.
    pub within: Option<(String, String)>,
}

#[derive(Debug, Clone)]
pub struct Variant {
    /// The name before language rules (`Reply answer`).
    pub raw_name: String,
    pub ty: Ty,
    /// The values of `tags`, in order, when the union is tagged.
    pub tag_values: Vec<String>,
    /// The validator of the `oneOf`/`anyOf` branch this variant stands for: typed parsing takes
    /// the first variant whose branch accepts the value, as the validator decides (not the
    /// first one whose type happens to fit). `None` where the JSON type or the tags decide.
    pub node: Option<NodeId>,
}

/// One schema file: one module in every language.
#[derive(Debug, Clone)]
pub struct Module {
    /// The file path relative to the schema root (`paper-context.json`).
    pub rel: String,
    /// The module name before language rules (`paper-context`).
    pub raw_name: String,
    pub title: Option<String>,
    pub doc: Option<String>,
    pub types: Vec<TypeId>,
}

/// Everything the backends read.
#[derive(Debug, Clone)]
pub struct Ir {
    pub modules: Vec<Module>,
    pub types: Vec<TypeDef>,
    pub program: Program,
    pub diagnostics: Vec<Diagnostic>,
    /// [`names::type_names`](super::names::type_names), computed once (every backend asks).
    pub(crate) type_names: std::sync::OnceLock<Vec<String>>,
}

impl Ir {
    /// The property names an object type declares, in order; for a union, those of every
    /// variant (a tagged union's table lists the same properties in each). Unions of unions
    /// are walked without recursion, each type once.
    pub fn declared_properties(&self, id: TypeId) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut names: HashSet<&str> = HashSet::new();
        let mut seen: HashSet<TypeId> = HashSet::new();
        let mut stack = vec![id];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            match &self.types[id].kind {
                TypeKind::Struct(s) => {
                    for f in &s.fields {
                        if names.insert(&f.wire) {
                            out.push(f.wire.clone());
                        }
                    }
                }
                TypeKind::Union(u) => {
                    for v in u.variants.iter().rev() {
                        if let Ty::Named(n) = v.ty {
                            stack.push(n);
                        }
                    }
                }
                _ => {}
            }
        }
        out
    }

    /// The types a type refers to directly.
    pub fn references(&self, id: TypeId) -> Vec<TypeId> {
        let mut out = Vec::new();
        let mut add = |t: &Ty| {
            t.visit(&mut |t| {
                if let Ty::Named(n) = t {
                    out.push(*n);
                }
            })
        };
        match &self.types[id].kind {
            TypeKind::Struct(s) => {
                s.fields.iter().for_each(|f| add(&f.ty));
                if let Some(e) = &s.extra {
                    add(e);
                }
            }
            TypeKind::Union(u) => u.variants.iter().for_each(|v| add(&v.ty)),
            TypeKind::Alias(t) => add(t),
            TypeKind::Enum(_) => {}
        }
        out
    }
}
