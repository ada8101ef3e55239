//! Dynamic scope, for 2020-12 `$dynamicRef` and 2019-09 `$recursiveRef`, kept static: a node is
//! compiled for a (schema location, dynamic scope) pair. The scope records, per dynamic anchor
//! name, the outermost schema resource on the path that led here (through `$ref`s and into
//! embedded resources) that declares a `$dynamicAnchor` of that name (or `"$recursiveAnchor":
//! true`, the name ``). Entering a location enters its innermost resource; an outer entry is
//! never replaced, so scopes only grow and their number is bounded by the anchors.
//!
//! A `$dynamicRef` whose fragment is a plain name resolves first like `$ref`; when that initial
//! target is itself a `$dynamicAnchor` of the same name, it resolves to the anchor of that name
//! in the outermost resource of the scope instead (2020-12 core §8.2.3.2). A `$recursiveRef`
//! whose initial target is a resource root with `"$recursiveAnchor": true` resolves to the
//! outermost resource in scope with one (2019-09 core §8.2.4.2.2). Otherwise both are `$ref`.

use std::collections::HashMap;

use crate::error::Result;
use crate::schema::dynamic::RECURSIVE;
use crate::schema::{pointer, Loc, SchemaSet};

/// Index of a scope in [`Scopes`]; [`ROOT`] is the empty scope validation starts in.
pub type ScopeId = usize;

pub const ROOT: ScopeId = 0;

/// Every dynamic scope met while compiling, interned.
pub struct Scopes {
    /// Per scope: (anchor name, resource URI), sorted by name.
    list: Vec<Vec<(String, String)>>,
    index: HashMap<Vec<(String, String)>, ScopeId>,
    /// Innermost resource of each location met, memoised.
    resources: HashMap<Loc, String>,
    /// (scope, resource) → the scope after entering the resource.
    entered: HashMap<(ScopeId, String), ScopeId>,
}

impl Default for Scopes {
    fn default() -> Self {
        Scopes {
            list: vec![Vec::new()],
            index: HashMap::from([(Vec::new(), ROOT)]),
            resources: HashMap::new(),
            entered: HashMap::new(),
        }
    }
}

impl Scopes {
    fn resource(&mut self, set: &SchemaSet, loc: &Loc) -> String {
        if let Some(r) = self.resources.get(loc) {
            return r.clone();
        }
        let r = set.resource_of(loc);
        self.resources.insert(loc.clone(), r.clone());
        r
    }

    /// The scope after evaluation reaches `loc` from `scope`.
    pub fn enter(&mut self, set: &SchemaSet, scope: ScopeId, loc: &Loc) -> ScopeId {
        if !set.has_dynamic_anchors() {
            return scope;
        }
        let resource = self.resource(set, loc);
        let anchors = set.dynamic_anchors_in(&resource);
        if anchors.is_empty() {
            return scope;
        }
        let key = (scope, resource);
        if let Some(s) = self.entered.get(&key) {
            return *s;
        }
        let mut next = self.list[scope].clone();
        for (name, _) in anchors {
            if let Err(at) = next.binary_search_by(|(n, _)| n.cmp(name)) {
                next.insert(at, (name.clone(), key.1.clone()));
            }
        }
        let id = match self.index.get(&next) {
            Some(id) => *id,
            None => {
                let id = self.list.len();
                self.list.push(next.clone());
                self.index.insert(next, id);
                id
            }
        };
        self.entered.insert(key, id);
        id
    }

    /// Where `keyword` (`$dynamicRef` or `$recursiveRef`) with value `reference`, at `loc` in
    /// `scope`, leads.
    pub fn target(
        &mut self,
        set: &mut SchemaSet,
        scope: ScopeId,
        loc: &Loc,
        keyword: &str,
        reference: &str,
    ) -> Result<Loc> {
        let initial = set.resolve(loc, reference)?;
        let name = if keyword == "$recursiveRef" {
            RECURSIVE.to_string()
        } else {
            match reference.split_once('#') {
                Some((_, f)) if !f.is_empty() && !f.starts_with('/') => pointer::percent_decode(f),
                _ => return Ok(initial),
            }
        };
        let resource = self.resource(set, &initial);
        if set.dynamic_anchor(&resource, &name) != Some(&initial) {
            return Ok(initial);
        }
        let outermost = self.list[scope]
            .binary_search_by(|(n, _)| n.cmp(&name))
            .ok()
            .map(|i| self.list[scope][i].1.clone());
        Ok(outermost
            .and_then(|r| set.dynamic_anchor(&r, &name).cloned())
            .unwrap_or(initial))
    }
}
