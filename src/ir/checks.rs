//! The language-neutral validation program: one node per distinct subschema, each a list of checks.
//! Every backend renders the same nodes with the same runtime rules, so verdicts agree.

use serde_json::Value;

use crate::error::Location;

pub use super::unevaluated::{Annotations, Edge, Entry};

/// Index of a node in [`Program::nodes`].
pub type NodeId = usize;
/// Index of a pattern in [`Program::patterns`].
pub type PatternId = usize;

/// The JSON types of the `type` keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JsonType {
    Null,
    Boolean,
    Object,
    Array,
    Number,
    String,
    Integer,
}

impl JsonType {
    pub fn parse(s: &str) -> Option<JsonType> {
        Some(match s {
            "null" => JsonType::Null,
            "boolean" => JsonType::Boolean,
            "object" => JsonType::Object,
            "array" => JsonType::Array,
            "number" => JsonType::Number,
            "string" => JsonType::String,
            "integer" => JsonType::Integer,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Integer => "integer",
        }
    }

    /// The types as a `type` violation names them (`docs/validation.md`, "Messages"):
    /// `string or null`, `(none)` for `"type": []`.
    pub fn list_text(types: &[JsonType]) -> String {
        if types.is_empty() {
            return "(none)".to_string();
        }
        types
            .iter()
            .map(|t| t.as_str())
            .collect::<Vec<_>>()
            .join(" or ")
    }
}

/// The string formats ctxgen asserts; other formats are annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    DateTime,
    Date,
    Time,
    Duration,
    Email,
    Hostname,
    /// `hostname` as drafts 4 and 6 read it: RFC 1034/1123 without the IDNA rules.
    HostnameRfc1123,
    IdnHostname,
    IdnEmail,
    Ipv4,
    Ipv6,
    Uri,
    UriReference,
    Iri,
    IriReference,
    UriTemplate,
    Uuid,
    JsonPointer,
    RelativeJsonPointer,
    Regex,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "date-time" => Format::DateTime,
            "date" => Format::Date,
            "time" => Format::Time,
            "duration" => Format::Duration,
            "email" => Format::Email,
            "hostname" => Format::Hostname,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "uri" => Format::Uri,
            "uri-reference" => Format::UriReference,
            "uuid" => Format::Uuid,
            "json-pointer" => Format::JsonPointer,
            "regex" => Format::Regex,
            "idn-hostname" => Format::IdnHostname,
            "idn-email" => Format::IdnEmail,
            "iri" => Format::Iri,
            "iri-reference" => Format::IriReference,
            "uri-template" => Format::UriTemplate,
            "relative-json-pointer" => Format::RelativeJsonPointer,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::DateTime => "date-time",
            Format::Date => "date",
            Format::Time => "time",
            Format::Duration => "duration",
            Format::Email => "email",
            Format::Hostname => "hostname",
            Format::Ipv4 => "ipv4",
            Format::Ipv6 => "ipv6",
            Format::Uri => "uri",
            Format::UriReference => "uri-reference",
            Format::Uuid => "uuid",
            Format::JsonPointer => "json-pointer",
            Format::Regex => "regex",
            Format::HostnameRfc1123 => "hostname",
            Format::IdnHostname => "idn-hostname",
            Format::IdnEmail => "idn-email",
            Format::Iri => "iri",
            Format::IriReference => "iri-reference",
            Format::UriTemplate => "uri-template",
            Format::RelativeJsonPointer => "relative-json-pointer",
        }
    }
}

/// One keyword's check. Applicators refer to other nodes by id.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// The `false` schema: nothing is valid.
    False,
    Type(Vec<JsonType>),
    Const(Value),
    Enum(Vec<Value>),
    MinLength(u64),
    MaxLength(u64),
    Pattern(PatternId),
    Format(Format),
    /// `x-max-words`: at most this many whitespace-separated words.
    MaxWords(u64),
    Minimum(f64),
    Maximum(f64),
    ExclusiveMinimum(f64),
    ExclusiveMaximum(f64),
    MultipleOf(f64),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    /// `prefixItems` (or draft-07 array `items`): positional subschemas.
    PrefixItems(Vec<NodeId>),
    /// `items` (or `additionalItems`): every item from index `from` on.
    Items {
        from: usize,
        node: NodeId,
    },
    /// `items: false` (or `additionalItems: false`) after `from` items: one violation per extra
    /// item, at the item, with this keyword.
    NoItems {
        from: usize,
        keyword: &'static str,
    },
    Contains {
        node: NodeId,
        min: u64,
        max: Option<u64>,
    },
    Properties(Vec<(String, NodeId)>),
    PatternProperties(Vec<(PatternId, NodeId)>),
    /// `additionalProperties` as a schema, applied to names not matched by the other two.
    AdditionalProperties {
        known: Vec<String>,
        patterns: Vec<PatternId>,
        node: NodeId,
    },
    /// `additionalProperties: false`.
    NoAdditionalProperties {
        known: Vec<String>,
        patterns: Vec<PatternId>,
    },
    Required(Vec<String>),
    MinProperties(u64),
    MaxProperties(u64),
    PropertyNames(NodeId),
    DependentRequired(Vec<(String, Vec<String>)>),
    DependentSchemas(Vec<(String, NodeId)>),
    /// `$ref` and each `allOf` member: the violations of the target, as they are.
    Ref(NodeId),
    AnyOf(Vec<NodeId>),
    OneOf(Vec<NodeId>),
    Not(NodeId),
    IfThenElse {
        cond: NodeId,
        then: Option<NodeId>,
        otherwise: Option<NodeId>,
    },
    /// `unevaluatedProperties`: `node` (`None` for `false`) applies to every property `ann`
    /// does not mark evaluated; for `false`, one violation per such property, at the property.
    UnevaluatedProperties {
        ann: Annotations,
        node: Option<NodeId>,
    },
    /// `unevaluatedItems`, likewise for items; `contains` matches count as evaluated (2020-12).
    UnevaluatedItems {
        ann: Annotations,
        node: Option<NodeId>,
        contains: bool,
    },
}

impl Check {
    /// The nodes this check applies.
    pub fn children(&self) -> Vec<NodeId> {
        match self {
            Check::PrefixItems(ns) | Check::AnyOf(ns) | Check::OneOf(ns) => ns.clone(),
            Check::Items { node, .. }
            | Check::Contains { node, .. }
            | Check::AdditionalProperties { node, .. }
            | Check::PropertyNames(node)
            | Check::Ref(node)
            | Check::Not(node) => vec![*node],
            Check::Properties(ps) => ps.iter().map(|p| p.1).collect(),
            Check::PatternProperties(ps) => ps.iter().map(|p| p.1).collect(),
            Check::DependentSchemas(ps) => ps.iter().map(|p| p.1).collect(),
            Check::IfThenElse {
                cond,
                then,
                otherwise,
            } => {
                let mut v = vec![*cond];
                v.extend(then.iter().copied());
                v.extend(otherwise.iter().copied());
                v
            }
            Check::UnevaluatedProperties { ann, node }
            | Check::UnevaluatedItems { ann, node, .. } => {
                let mut v = ann.nodes.clone();
                v.extend(node.iter().copied());
                v
            }
            _ => Vec::new(),
        }
    }

    pub(crate) fn children_mut(&mut self) -> Vec<&mut NodeId> {
        match self {
            Check::PrefixItems(ns) | Check::AnyOf(ns) | Check::OneOf(ns) => ns.iter_mut().collect(),
            Check::Items { node, .. }
            | Check::Contains { node, .. }
            | Check::AdditionalProperties { node, .. }
            | Check::PropertyNames(node)
            | Check::Ref(node)
            | Check::Not(node) => vec![node],
            Check::Properties(ps) => ps.iter_mut().map(|p| &mut p.1).collect(),
            Check::PatternProperties(ps) => ps.iter_mut().map(|p| &mut p.1).collect(),
            Check::DependentSchemas(ps) => ps.iter_mut().map(|p| &mut p.1).collect(),
            Check::IfThenElse {
                cond,
                then,
                otherwise,
            } => {
                let mut v = vec![cond];
                v.extend(then.iter_mut());
                v.extend(otherwise.iter_mut());
                v
            }
            Check::UnevaluatedProperties { ann, node }
            | Check::UnevaluatedItems { ann, node, .. } => {
                let mut v: Vec<&mut NodeId> = ann.nodes.iter_mut().collect();
                v.extend(node.iter_mut());
                v
            }
            _ => Vec::new(),
        }
    }

    /// Renumbers the nodes this check refers to.
    pub fn remap(&mut self, map: &[NodeId]) {
        for n in self.children_mut() {
            *n = map[*n];
        }
    }
}

/// One compiled subschema.
#[derive(Debug, Clone)]
pub struct Node {
    pub origin: Location,
    pub checks: Vec<Check>,
}

impl Node {
    /// True when the node accepts every instance.
    pub fn is_trivial(&self) -> bool {
        self.checks.is_empty()
    }
}

/// A regular expression in the ECMA-262 dialect the schemas use.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pattern {
    pub source: String,
}

/// All nodes and patterns of one run.
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub nodes: Vec<Node>,
    pub patterns: Vec<Pattern>,
}
