//! The anchors dynamic scope works with: 2020-12 `$dynamicAnchor`s and 2019-09
//! `"$recursiveAnchor": true`, indexed per schema resource (`docs/validation.md`, Dynamic
//! references). A `$recursiveAnchor` is recorded as the anchor named `` (an empty name, which no
//! `$dynamicAnchor` can have) at its resource's root.

use std::collections::HashMap;

use super::{Loc, SchemaSet};

/// The name a 2019-09 `"$recursiveAnchor": true` is recorded under.
pub const RECURSIVE: &str = "";

#[derive(Debug, Default)]
pub(crate) struct DynamicAnchors {
    /// Resource URI (without fragment) → (anchor name, location), sorted by name.
    by_resource: HashMap<String, Vec<(String, Loc)>>,
}

impl DynamicAnchors {
    pub(crate) fn add(&mut self, resource: String, name: String, loc: Loc) {
        let list = self.by_resource.entry(resource).or_default();
        if let Err(at) = list.binary_search_by(|(n, _)| n.as_str().cmp(&name)) {
            list.insert(at, (name, loc));
        }
    }
}

impl SchemaSet {
    /// Whether any loaded document declares a dynamic anchor (when none does, dynamic scope
    /// changes nothing and `$dynamicRef` is `$ref`).
    pub fn has_dynamic_anchors(&self) -> bool {
        !self.dynamic.by_resource.is_empty()
    }

    /// The URI of the innermost schema resource holding a location.
    pub fn resource_of(&self, loc: &Loc) -> String {
        self.base_at(loc).without_fragment()
    }

    /// The dynamic anchors a schema resource declares, sorted by name.
    pub fn dynamic_anchors_in(&self, resource: &str) -> &[(String, Loc)] {
        self.dynamic
            .by_resource
            .get(resource)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// The location of the dynamic anchor `name` of a schema resource.
    pub fn dynamic_anchor(&self, resource: &str, name: &str) -> Option<&Loc> {
        let list = self.dynamic_anchors_in(resource);
        list.binary_search_by(|(n, _)| n.as_str().cmp(name))
            .ok()
            .map(|i| &list[i].1)
    }

    /// Whether a `$dynamicRef` `reference` whose initial target is `initial` leads there in
    /// every dynamic scope: its fragment is not a plain name, `initial` is not a dynamic anchor
    /// of that name, or no other resource declares a dynamic anchor of that name.
    pub fn dynamic_ref_is_static(&self, reference: &str, initial: &Loc) -> bool {
        let name = match reference.split_once('#') {
            Some((_, f)) if !f.is_empty() && !f.starts_with('/') => {
                super::pointer::percent_decode(f)
            }
            _ => return true,
        };
        if self.dynamic_anchor(&self.resource_of(initial), &name) != Some(initial) {
            return true;
        }
        let declaring = self
            .dynamic
            .by_resource
            .values()
            .filter(|list| list.iter().any(|(n, _)| *n == name))
            .count();
        declaring <= 1
    }

    pub(crate) fn add_dynamic_anchor(&mut self, resource: String, name: String, loc: Loc) {
        self.dynamic.add(resource, name, loc);
    }
}
