//! Compiles schema locations into validation nodes. Every reachable location gets a node id
//! before its checks are built, so forward and circular `$ref`s need no special case. A node
//! is compiled for a location in a dynamic scope ([`scope`]), which `$dynamicRef` and
//! `$recursiveRef` resolve against.

mod scope;

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::checks::{Check, Format, JsonType, Node, NodeId, Pattern, PatternId, Program};
use super::BuildOptions;
use crate::error::{Diagnostic, Error, Location, Result, Severity};
use crate::schema::{pointer, Dialect, Loc, SchemaSet};
use scope::{ScopeId, Scopes, ROOT};

#[derive(Default)]
struct State {
    memo: HashMap<(Loc, ScopeId), NodeId>,
    program: Program,
    patterns: HashMap<String, PatternId>,
    pending: Vec<(NodeId, Loc, ScopeId)>,
    diagnostics: Vec<Diagnostic>,
    scopes: Scopes,
    /// Per document: whether `format` asserts (`format_assertion`).
    format_asserts: HashMap<usize, bool>,
}

impl State {
    /// The node for `loc` reached from a node compiled in `scope`.
    fn node_for(&mut self, set: &SchemaSet, loc: Loc, scope: ScopeId) -> NodeId {
        let scope = self.scopes.enter(set, scope, &loc);
        if let Some(id) = self.memo.get(&(loc.clone(), scope)) {
            return *id;
        }
        let id = self.program.nodes.len();
        self.program.nodes.push(Node {
            origin: set.location(&loc),
            checks: Vec::new(),
        });
        self.memo.insert((loc.clone(), scope), id);
        self.pending.push((id, loc, scope));
        id
    }

    fn warn(&mut self, location: Location, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic {
            severity: Severity::Warning,
            location,
            message: message.into(),
        });
    }
}

/// Builds validation nodes for schema locations on demand.
pub struct Compiler<'s> {
    set: &'s mut SchemaSet,
    state: State,
    options: BuildOptions,
}

impl<'s> Compiler<'s> {
    pub fn new(set: &'s mut SchemaSet, options: BuildOptions) -> Self {
        Compiler {
            set,
            state: State::default(),
            options,
        }
    }

    pub fn set(&self) -> &SchemaSet {
        self.set
    }

    pub fn set_mut(&mut self) -> &mut SchemaSet {
        self.set
    }

    /// The node for a location, compiled by the next [`Compiler::run`].
    pub fn node(&mut self, loc: Loc) -> NodeId {
        self.state.node_for(self.set, loc, ROOT)
    }

    /// Compiles every pending node, and those they reach.
    pub fn run(&mut self) -> Result<()> {
        while let Some((id, loc, scope)) = self.state.pending.pop() {
            let checks = self.compile(&loc, scope)?;
            self.state.program.nodes[id].checks = checks;
        }
        Ok(())
    }

    pub fn finish(self) -> (Program, Vec<Diagnostic>) {
        (self.state.program, self.state.diagnostics)
    }

    fn compile(&mut self, loc: &Loc, scope: ScopeId) -> Result<Vec<Check>> {
        let here = self.set.location(loc);
        let dialect = self.set.docs[loc.doc].dialect;
        let mut references = Vec::new();
        match self.set.value(loc) {
            Some(Value::Bool(true)) => return Ok(Vec::new()),
            Some(Value::Bool(false)) => return Ok(vec![Check::False]),
            Some(Value::Object(obj)) => {
                for k in ["$ref", "$dynamicRef", "$recursiveRef"] {
                    // 2020-12 replaced `$recursiveRef` by `$dynamicRef`.
                    if k == "$recursiveRef" && dialect != Dialect::Draft2019 {
                        continue;
                    }
                    match obj.get(k) {
                        Some(Value::String(s)) => references.push((k, s.clone())),
                        Some(_) => {
                            return Err(Error::schema(here, format!("`{k}` must be a string")))
                        }
                        None => {}
                    }
                }
            }
            Some(_) => {
                return Err(Error::schema(
                    here,
                    "a schema must be an object or a boolean",
                ))
            }
            None => return Err(Error::schema(here, "no schema at this location")),
        };
        let mut checks = Vec::new();
        for (k, r) in &references {
            let target = match *k {
                "$ref" => self.set.resolve(loc, r)?,
                _ => self.state.scopes.target(self.set, scope, loc, k, r)?,
            };
            let id = self.state.node_for(self.set, target, scope);
            checks.push(Check::Ref(id));
        }
        if !references.is_empty() && dialect.ref_overrides_siblings() {
            return Ok(checks);
        }
        let assert_formats = match self.state.format_asserts.get(&loc.doc) {
            Some(a) => *a,
            None => {
                let a = super::format_assertion::asserts(
                    self.set,
                    loc.doc,
                    self.options.assert_formats,
                );
                self.state.format_asserts.insert(loc.doc, a);
                a
            }
        };
        let obj = match self.set.value(loc) {
            Some(Value::Object(o)) => o,
            _ => unreachable!("checked above"),
        };
        let mut b = Builder {
            set: &*self.set,
            state: &mut self.state,
            loc,
            here: &here,
            obj,
            dialect,
            assert_formats,
            checks,
            scope,
        };
        b.build()?;
        Ok(b.checks)
    }
}

struct Builder<'a> {
    set: &'a SchemaSet,
    state: &'a mut State,
    loc: &'a Loc,
    here: &'a Location,
    obj: &'a Map<String, Value>,
    dialect: Dialect,
    /// `format` asserts here (`format_assertion`).
    assert_formats: bool,
    checks: Vec<Check>,
    scope: ScopeId,
}

impl Builder<'_> {
    fn at(&self, keyword: &str) -> Location {
        Location::new(
            self.here.file.clone(),
            pointer::push(&self.here.pointer, keyword),
        )
    }

    fn err(&self, keyword: &str, message: impl Into<String>) -> Error {
        Error::schema(self.at(keyword), message)
    }

    fn child(&mut self, path: &[&str]) -> NodeId {
        let mut p = self.loc.pointer.clone();
        for t in path {
            p = pointer::push(&p, t);
        }
        self.state.node_for(
            self.set,
            Loc {
                doc: self.loc.doc,
                pointer: p,
            },
            self.scope,
        )
    }

    fn count(&self, keyword: &str) -> Result<Option<u64>> {
        match self.obj.get(keyword) {
            None => Ok(None),
            Some(v) => match v.as_u64().or_else(|| {
                v.as_f64()
                    .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                    .map(|f| f as u64)
            }) {
                Some(n) => Ok(Some(n)),
                None => Err(self.err(
                    keyword,
                    format!("`{keyword}` must be a non-negative integer"),
                )),
            },
        }
    }

    fn number(&self, keyword: &str) -> Result<Option<f64>> {
        match self.obj.get(keyword) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .map(Some)
                .ok_or_else(|| self.err(keyword, format!("`{keyword}` must be a number"))),
        }
    }

    fn pattern(&mut self, keyword_loc: Location, source: &str) -> Option<PatternId> {
        if let Some(id) = self.state.patterns.get(source) {
            return Some(*id);
        }
        if let Err(e) = regress::Regex::with_flags(source, "u") {
            self.state.warn(keyword_loc, format!("pattern `{source}` is not a valid ECMA-262 regular expression ({e}); it is not enforced"));
            return None;
        }
        let id = self.state.program.patterns.len();
        self.state.program.patterns.push(Pattern {
            source: source.to_string(),
        });
        self.state.patterns.insert(source.to_string(), id);
        Some(id)
    }

    fn strings(&self, keyword: &str, v: &Value) -> Result<Vec<String>> {
        v.as_array()
            .and_then(|a| {
                a.iter()
                    .map(|s| s.as_str().map(String::from))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| self.err(keyword, format!("`{keyword}` must be an array of strings")))
    }

    fn build(&mut self) -> Result<()> {
        self.type_checks()?;
        self.string_checks()?;
        self.number_checks()?;
        self.array_checks()?;
        self.object_checks()?;
        self.applicators()?;
        self.unevaluated()
    }

    /// Whether the draft has `unevaluated*`: `true` subschemas of `items`,
    /// `additionalItems`, `additionalProperties` and an `if` alone are compiled then, for
    /// what they evaluate (`ir::unevaluated::annotate` drops them afterwards).
    fn annotates(&self) -> bool {
        matches!(self.dialect, Dialect::Draft2019 | Dialect::Draft2020)
    }

    /// `unevaluatedProperties` and `unevaluatedItems` (2019-09 and later; earlier drafts do not
    /// know them). Their tables are filled once the program is complete
    /// (`ir::unevaluated::annotate`).
    fn unevaluated(&mut self) -> Result<()> {
        if !self.annotates() {
            return Ok(());
        }
        for keyword in ["unevaluatedProperties", "unevaluatedItems"] {
            let node = match self.obj.get(keyword) {
                None => continue,
                Some(Value::Bool(false)) => None,
                Some(v) if v.is_object() || v.is_boolean() => Some(self.child(&[keyword])),
                Some(_) => return Err(self.err(keyword, format!("`{keyword}` must be a schema"))),
            };
            let ann = Default::default();
            self.checks.push(if keyword == "unevaluatedItems" {
                Check::UnevaluatedItems {
                    ann,
                    node,
                    contains: self.dialect == Dialect::Draft2020,
                }
            } else {
                Check::UnevaluatedProperties { ann, node }
            });
        }
        Ok(())
    }

    fn type_checks(&mut self) -> Result<()> {
        if let Some(t) = self.obj.get("type") {
            let names: Vec<&Value> = match t {
                Value::Array(a) => a.iter().collect(),
                other => vec![other],
            };
            let mut types = Vec::new();
            for n in names {
                match n.as_str().and_then(JsonType::parse) {
                    Some(t) => types.push(t),
                    None if n.as_str() == Some("any") => return Ok(()),
                    None => return Err(self.err("type", format!("unknown type {n}"))),
                }
            }
            self.checks.push(Check::Type(types));
        }
        if let Some(c) = self.obj.get("const") {
            self.checks.push(Check::Const(c.clone()));
        }
        if let Some(e) = self.obj.get("enum") {
            let values = e
                .as_array()
                .ok_or_else(|| self.err("enum", "`enum` must be an array"))?;
            self.checks.push(Check::Enum(values.clone()));
        }
        Ok(())
    }

    fn string_checks(&mut self) -> Result<()> {
        if let Some(n) = self.count("minLength")? {
            self.checks.push(Check::MinLength(n));
        }
        if let Some(n) = self.count("maxLength")? {
            self.checks.push(Check::MaxLength(n));
        }
        if let Some(p) = self.obj.get("pattern") {
            let p = p
                .as_str()
                .ok_or_else(|| self.err("pattern", "`pattern` must be a string"))?;
            if let Some(id) = self.pattern(self.at("pattern"), p) {
                self.checks.push(Check::Pattern(id));
            }
        }
        if let Some(f) = self
            .obj
            .get("format")
            .and_then(Value::as_str)
            .and_then(Format::parse)
            .filter(|_| self.assert_formats)
        {
            // Drafts 4 and 6 read `hostname` as RFC 1034/1123, without the IDNA rules.
            let f = match (f, self.dialect) {
                (Format::Hostname, Dialect::Draft4 | Dialect::Draft6) => Format::HostnameRfc1123,
                _ => f,
            };
            self.checks.push(Check::Format(f));
        }
        if let Some(n) = self.count("x-max-words")? {
            self.checks.push(Check::MaxWords(n));
        }
        Ok(())
    }

    fn number_checks(&mut self) -> Result<()> {
        let obj = self.obj;
        let exclusive = |k: &str| obj.get(k).and_then(Value::as_bool).unwrap_or(false);
        if let Some(n) = self.number("minimum")? {
            self.checks.push(if exclusive("exclusiveMinimum") {
                Check::ExclusiveMinimum(n)
            } else {
                Check::Minimum(n)
            });
        }
        if let Some(n) = self.number("maximum")? {
            self.checks.push(if exclusive("exclusiveMaximum") {
                Check::ExclusiveMaximum(n)
            } else {
                Check::Maximum(n)
            });
        }
        for (k, make) in [
            (
                "exclusiveMinimum",
                Check::ExclusiveMinimum as fn(f64) -> Check,
            ),
            ("exclusiveMaximum", Check::ExclusiveMaximum),
        ] {
            match self.obj.get(k) {
                Some(Value::Bool(_)) | None => {}
                Some(v) => match v.as_f64() {
                    Some(n) => self.checks.push(make(n)),
                    None => return Err(self.err(k, format!("`{k}` must be a number"))),
                },
            }
        }
        if let Some(m) = self.number("multipleOf")? {
            if m <= 0.0 {
                return Err(self.err("multipleOf", "`multipleOf` must be greater than 0"));
            }
            self.checks.push(Check::MultipleOf(m));
        }
        Ok(())
    }

    fn array_checks(&mut self) -> Result<()> {
        if let Some(n) = self.count("minItems")? {
            self.checks.push(Check::MinItems(n));
        }
        if let Some(n) = self.count("maxItems")? {
            self.checks.push(Check::MaxItems(n));
        }
        if self.obj.get("uniqueItems").and_then(Value::as_bool) == Some(true) {
            self.checks.push(Check::UniqueItems);
        }
        let mut prefix = 0;
        if let Some(Value::Array(items)) = self.obj.get("prefixItems") {
            let nodes = (0..items.len())
                .map(|i| self.child(&["prefixItems", &i.to_string()]))
                .collect::<Vec<_>>();
            prefix = nodes.len();
            self.checks.push(Check::PrefixItems(nodes));
        }
        match self.obj.get("items") {
            Some(Value::Array(items)) => {
                let nodes = (0..items.len())
                    .map(|i| self.child(&["items", &i.to_string()]))
                    .collect::<Vec<_>>();
                let from = nodes.len();
                self.checks.push(Check::PrefixItems(nodes));
                match self.obj.get("additionalItems") {
                    Some(Value::Bool(false)) => self.checks.push(Check::NoItems {
                        from,
                        keyword: "additionalItems",
                    }),
                    Some(v) if v.is_object() || (v == &Value::Bool(true) && self.annotates()) => {
                        let node = self.child(&["additionalItems"]);
                        self.checks.push(Check::Items { from, node });
                    }
                    _ => {}
                }
            }
            Some(Value::Bool(false)) => self.checks.push(Check::NoItems {
                from: prefix,
                keyword: "items",
            }),
            Some(Value::Bool(true)) if !self.annotates() => {}
            Some(v) if v.is_object() || v.is_boolean() => {
                let node = self.child(&["items"]);
                self.checks.push(Check::Items { from: prefix, node });
            }
            Some(_) => {
                return Err(self.err("items", "`items` must be a schema or an array of schemas"))
            }
            None => {}
        }
        if self.obj.contains_key("contains") {
            let node = self.child(&["contains"]);
            let legacy = matches!(
                self.dialect,
                Dialect::Draft4 | Dialect::Draft6 | Dialect::Draft7
            );
            let min = if legacy {
                None
            } else {
                self.count("minContains")?
            };
            let max = if legacy {
                None
            } else {
                self.count("maxContains")?
            };
            self.checks.push(Check::Contains {
                node,
                min: min.unwrap_or(1),
                max,
            });
        }
        Ok(())
    }

    fn object_checks(&mut self) -> Result<()> {
        let mut known = Vec::new();
        if let Some(props) = self.obj.get("properties") {
            let props = props
                .as_object()
                .ok_or_else(|| self.err("properties", "`properties` must be an object"))?;
            let mut list = Vec::new();
            for name in props.keys() {
                known.push(name.clone());
                list.push((name.clone(), self.child(&["properties", name])));
            }
            self.checks.push(Check::Properties(list));
        }
        let mut patterns = Vec::new();
        if let Some(pp) = self.obj.get("patternProperties") {
            let pp = pp.as_object().ok_or_else(|| {
                self.err("patternProperties", "`patternProperties` must be an object")
            })?;
            let mut list = Vec::new();
            for p in pp.keys() {
                let at = Location::new(
                    self.here.file.clone(),
                    pointer::push(&pointer::push(&self.here.pointer, "patternProperties"), p),
                );
                match self.pattern(at, p) {
                    Some(id) => {
                        patterns.push(id);
                        list.push((id, self.child(&["patternProperties", p])));
                    }
                    // An unusable pattern still marks names as not additional: accept them all.
                    None => return Err(self.err("patternProperties", format!("pattern `{p}` cannot be compiled, so `additionalProperties` cannot be decided"))),
                }
            }
            self.checks.push(Check::PatternProperties(list));
        }
        match self.obj.get("additionalProperties") {
            Some(Value::Bool(false)) => self
                .checks
                .push(Check::NoAdditionalProperties { known, patterns }),
            Some(Value::Bool(true)) if !self.annotates() => {}
            None => {}
            Some(v) if v.is_object() || v.is_boolean() => {
                let node = self.child(&["additionalProperties"]);
                self.checks.push(Check::AdditionalProperties {
                    known,
                    patterns,
                    node,
                });
            }
            Some(_) => {
                return Err(self.err(
                    "additionalProperties",
                    "`additionalProperties` must be a schema",
                ))
            }
        }
        if let Some(r) = self.obj.get("required") {
            if r.is_array() {
                let names = self.strings("required", r)?;
                if !names.is_empty() {
                    self.checks.push(Check::Required(names));
                }
            } else {
                self.state.warn(
                    self.at("required"),
                    "`required` that is not an array (draft-03) is ignored",
                );
            }
        }
        if let Some(n) = self.count("minProperties")? {
            self.checks.push(Check::MinProperties(n));
        }
        if let Some(n) = self.count("maxProperties")? {
            self.checks.push(Check::MaxProperties(n));
        }
        if self.obj.contains_key("propertyNames") {
            let node = self.child(&["propertyNames"]);
            self.checks.push(Check::PropertyNames(node));
        }
        let mut required = Vec::new();
        let mut schemas = Vec::new();
        for keyword in ["dependentRequired", "dependentSchemas", "dependencies"] {
            let Some(deps) = self.obj.get(keyword) else {
                continue;
            };
            let deps = deps
                .as_object()
                .ok_or_else(|| self.err(keyword, format!("`{keyword}` must be an object")))?;
            for (name, dep) in deps {
                if dep.is_array() && keyword != "dependentSchemas" {
                    required.push((name.clone(), self.strings(keyword, dep)?));
                } else if (dep.is_object() || dep.is_boolean()) && keyword != "dependentRequired" {
                    schemas.push((name.clone(), self.child(&[keyword, name])));
                } else {
                    return Err(
                        self.err(keyword, format!("`{keyword}/{name}` has the wrong shape"))
                    );
                }
            }
        }
        if !required.is_empty() {
            self.checks.push(Check::DependentRequired(required));
        }
        if !schemas.is_empty() {
            self.checks.push(Check::DependentSchemas(schemas));
        }
        Ok(())
    }

    fn list(&mut self, keyword: &str) -> Result<Option<Vec<NodeId>>> {
        match self.obj.get(keyword) {
            None => Ok(None),
            Some(Value::Array(a)) if !a.is_empty() => Ok(Some(
                (0..a.len())
                    .map(|i| self.child(&[keyword, &i.to_string()]))
                    .collect(),
            )),
            Some(_) => Err(self.err(
                keyword,
                format!("`{keyword}` must be a non-empty array of schemas"),
            )),
        }
    }

    fn applicators(&mut self) -> Result<()> {
        if let Some(all) = self.list("allOf")? {
            self.checks.extend(all.into_iter().map(Check::Ref));
        }
        if let Some(any) = self.list("anyOf")? {
            self.checks.push(Check::AnyOf(any));
        }
        if let Some(one) = self.list("oneOf")? {
            self.checks.push(Check::OneOf(one));
        }
        if self.obj.contains_key("not") {
            let node = self.child(&["not"]);
            self.checks.push(Check::Not(node));
        }
        // An `if` alone checks nothing, but what it evaluates counts for `unevaluated*`.
        if self.obj.contains_key("if")
            && (self.obj.contains_key("then") || self.obj.contains_key("else") || self.annotates())
        {
            let cond = self.child(&["if"]);
            let then = self.obj.contains_key("then").then(|| self.child(&["then"]));
            let otherwise = self.obj.contains_key("else").then(|| self.child(&["else"]));
            self.checks.push(Check::IfThenElse {
                cond,
                then,
                otherwise,
            });
        }
        Ok(())
    }
}
