//! Whether a default value can be held by a type, decided without recursion: chains of aliases
//! and unions of any length (and cycles among them) are walked with an explicit stack.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::model::{Ty, TypeDef, TypeId, TypeKind};

/// Whether a default value can be held by a type.
///
/// A type met again for the same value without descending into it (a cycle of aliases and
/// unions) holds the value when the cycle is made of aliases only: such an alias stands for any
/// JSON value (see `break_alias_cycles`). A cycle through a union adds nothing to the union's
/// other variants.
pub fn fits(ty: &Ty, v: &Value, types: &[TypeDef]) -> bool {
    let mut eval = Eval {
        types,
        stack: Vec::new(),
        on_path: HashSet::new(),
    };
    eval.run(ty, v)
}

/// A conjunction or disjunction of goals being evaluated.
struct Frame<'a> {
    all: bool,
    goals: Vec<(&'a Ty, &'a Value)>,
    next: usize,
    /// The named type and value this frame expands, and whether it is an alias.
    key: Option<((TypeId, usize), bool)>,
}

enum Step<'a> {
    Done(bool),
    Push(Frame<'a>),
}

struct Eval<'a> {
    types: &'a [TypeDef],
    stack: Vec<Frame<'a>>,
    on_path: HashSet<(TypeId, usize)>,
}

impl<'a> Eval<'a> {
    fn run(&mut self, ty: &'a Ty, v: &'a Value) -> bool {
        let mut pending = match self.expand(ty, v) {
            Step::Done(b) => return b,
            Step::Push(f) => {
                self.push(f);
                None
            }
        };
        loop {
            let top = self.stack.last_mut().expect("a frame");
            let mut finished = None;
            if let Some(r) = pending.take() {
                if r != top.all {
                    finished = Some(r);
                } else {
                    top.next += 1;
                }
            }
            if finished.is_none() && top.next == top.goals.len() {
                finished = Some(top.all);
            }
            match finished {
                Some(b) => {
                    let f = self.stack.pop().expect("a frame");
                    if let Some((key, _)) = f.key {
                        self.on_path.remove(&key);
                    }
                    if self.stack.is_empty() {
                        return b;
                    }
                    pending = Some(b);
                }
                None => {
                    let (t, x) = top.goals[top.next];
                    match self.expand(t, x) {
                        Step::Done(b) => pending = Some(b),
                        Step::Push(f) => self.push(f),
                    }
                }
            }
        }
    }

    fn push(&mut self, f: Frame<'a>) {
        if let Some((key, _)) = f.key {
            self.on_path.insert(key);
        }
        self.stack.push(f);
    }

    /// Whether every frame from the top down to the one expanding `key` is an alias.
    fn alias_cycle(&self, key: (TypeId, usize)) -> bool {
        for f in self.stack.iter().rev() {
            match f.key {
                Some((k, alias)) if k == key => return alias,
                Some((_, true)) => {}
                _ => return false,
            }
        }
        false
    }

    fn expand(&self, mut ty: &'a Ty, v: &'a Value) -> Step<'a> {
        while let (Ty::Nullable(t), false) = (ty, v.is_null()) {
            ty = t;
        }
        let all = |goals: Vec<(&'a Ty, &'a Value)>| {
            Step::Push(Frame {
                all: true,
                goals,
                next: 0,
                key: None,
            })
        };
        match (ty, v) {
            (Ty::Any, _) => Step::Done(true),
            (Ty::Nullable(_), Value::Null) | (Ty::Null, Value::Null) => Step::Done(true),
            (Ty::Bool, Value::Bool(_)) => Step::Done(true),
            (Ty::Integer, Value::Number(n)) => Step::Done(n.is_i64()),
            (Ty::WideInteger, Value::Number(n)) => {
                Step::Done(n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0))
            }
            (Ty::Number, Value::Number(_)) => Step::Done(true),
            (Ty::String, Value::String(_)) => Step::Done(true),
            (Ty::Literal(l), Value::String(s)) => Step::Done(l == s),
            (Ty::Array(t), Value::Array(items)) => all(items.iter().map(|i| (&**t, i)).collect()),
            (Ty::Map(t), Value::Object(m)) => all(m.values().map(|i| (&**t, i)).collect()),
            (Ty::Open(t, kind), v) if kind.holds(v) => all(vec![(&**t, v)]),
            (Ty::Open(..), _) => Step::Done(true),
            (Ty::Named(id), v) => {
                let key = (*id, v as *const Value as usize);
                if self.on_path.contains(&key) {
                    return Step::Done(self.alias_cycle(key));
                }
                let (all, goals, alias) = match &self.types[*id].kind {
                    TypeKind::Enum(values) => {
                        return Step::Done(
                            v.as_str().is_some_and(|s| values.iter().any(|x| x == s)),
                        )
                    }
                    TypeKind::Alias(t) => (true, vec![(t, v)], true),
                    TypeKind::Union(u) => (
                        false,
                        u.variants.iter().map(|x| (&x.ty, v)).collect(),
                        false,
                    ),
                    TypeKind::Struct(s) => {
                        let Value::Object(m) = v else {
                            return Step::Done(false);
                        };
                        let by_wire: HashMap<&str, &Ty> =
                            s.fields.iter().map(|f| (f.wire.as_str(), &f.ty)).collect();
                        if s.fields
                            .iter()
                            .any(|f| f.required && !m.contains_key(&f.wire))
                        {
                            return Step::Done(false);
                        }
                        let mut goals = Vec::new();
                        for (k, x) in m {
                            match (by_wire.get(k.as_str()), &s.extra) {
                                (Some(t), _) => goals.push((*t, x)),
                                (None, Some(t)) => goals.push((t, x)),
                                (None, None) if s.deny_unknown => return Step::Done(false),
                                (None, None) => {}
                            }
                        }
                        (true, goals, false)
                    }
                };
                Step::Push(Frame {
                    all,
                    goals,
                    next: 0,
                    key: Some((key, alias)),
                })
            }
            _ => Step::Done(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Location;
    use crate::ir::model::{Field, Struct, Union, Variant};
    use serde_json::json;

    fn def(kind: TypeKind) -> TypeDef {
        TypeDef {
            raw_name: "t".into(),
            module: 0,
            doc: None,
            origin: Location::new("t.json", ""),
            node: 0,
            kind,
            annotations: Vec::new(),
            variant_of: None,
            open: None,
        }
    }

    #[test]
    fn alias_cycles_hold_anything_and_union_cycles_add_nothing() {
        let types = vec![
            def(TypeKind::Alias(Ty::Named(1))),
            def(TypeKind::Alias(Ty::Named(0).nullable())),
            def(TypeKind::Union(Union {
                tags: Vec::new(),
                variants: vec![
                    Variant {
                        raw_name: "a".into(),
                        ty: Ty::Named(2),
                        tag_values: Vec::new(),
                        node: None,
                    },
                    Variant {
                        raw_name: "b".into(),
                        ty: Ty::String,
                        tag_values: Vec::new(),
                        node: None,
                    },
                ],
                within: None,
            })),
        ];
        assert!(fits(&Ty::Named(0), &json!(false), &types));
        assert!(fits(&Ty::Named(2), &json!("x"), &types));
        assert!(!fits(&Ty::Named(2), &json!(1), &types));
    }

    #[test]
    fn long_chains_need_no_stack() {
        let n = 100_000;
        let mut types: Vec<TypeDef> = (0..n)
            .map(|i| {
                def(TypeKind::Struct(Struct {
                    fields: vec![Field {
                        wire: "p".into(),
                        doc: None,
                        ty: Ty::Named(i + 1),
                        required: false,
                        default: None,
                        annotations: Vec::new(),
                    }],
                    deny_unknown: true,
                    extra: None,
                }))
            })
            .collect();
        types.push(def(TypeKind::Alias(Ty::Integer)));
        let aliases: Vec<TypeDef> = (0..n)
            .map(|i| def(TypeKind::Alias(Ty::Named(i + 1))))
            .chain([def(TypeKind::Alias(Ty::Integer))])
            .collect();
        assert!(fits(&Ty::Named(0), &json!({"p": {"p": {}}}), &types));
        assert!(!fits(&Ty::Named(0), &json!({"q": 1}), &types));
        assert!(fits(&Ty::Named(0), &json!(3), &aliases));
        assert!(!fits(&Ty::Named(0), &json!("3"), &aliases));
    }
}
