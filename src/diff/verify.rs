//! Re-checks the "compatible" verdicts of a report with many fresh instances (another seed than
//! the diff used): a rejected instance is a contradiction, i.e. a bug in the comparison. Used by
//! the corpus runner (`ctxgen-evolution`) and `tests/diff_corpus.rs`; see docs/evolution.md.

use std::collections::HashMap;

use serde::Serialize;

use super::confirm::{search_exhaustive, search_pinned, Counterexample, Party};
use super::interp::{Interp, Unknown};
use super::{fingerprint, keys, version_value, Loaded, Options, Outcome, Report, Status};

/// One "compatible" verdict, re-checked.
#[derive(Debug, Clone, Serialize)]
pub struct Checked {
    pub key: String,
    pub root: bool,
    /// `reader` or `writer`.
    pub role: &'static str,
    /// Valid instances of the producing side (all distinct) run through the consuming side.
    pub instances: usize,
    /// Whether the type's program is the same in both versions (its verdict needs no search).
    pub identical: bool,
    /// Whether `instances` is the producing side's whole instance space (finite and listed, see
    /// [`super::finite`]): the verdict is then proved, whatever the count.
    pub exhaustive: bool,
}

/// The largest finite instance space listed and checked whole instead of sampled.
pub const EXHAUSTIVE_CAP: usize = 100_000;

/// A "compatible" verdict some instance refutes.
#[derive(Debug, Clone, Serialize)]
pub struct Contradiction {
    pub key: String,
    pub role: &'static str,
    pub counterexample: Counterexample,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Verification {
    pub checked: Vec<Checked>,
    pub contradictions: Vec<Contradiction>,
}

impl Verification {
    /// Instances run over every re-checked verdict.
    pub fn instances(&self) -> usize {
        self.checked.iter().map(|c| c.instances).sum()
    }
}

/// Re-checks, with `n` valid instances of the producing side each (or all of them, when they are
/// finitely many and at most [`EXHAUSTIVE_CAP`]), every role the report calls
/// compatible of every type present in both versions: the changed types, the types the diff found
/// restructured only, and the message (root) types even when unchanged. Definitions whose program
/// is identical are not searched (their root's instances cover them).
pub fn verify(
    old: &Loaded,
    new: &Loaded,
    report: &Report,
    opts: &Options,
    n: usize,
) -> Verification {
    let (ko, kn) = keys(&old.ir, &new.ir);
    let old_strict = Interp::new(&old.ir.program, Unknown::Schema);
    let old_consumer = Interp::new(&old.ir.program, opts.unknown);
    let new_interp = Interp::new(&new.ir.program, Unknown::Schema);
    let new_by_key: HashMap<&str, usize> = kn
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let reported: HashMap<&str, &super::TypeReport> = report
        .types
        .iter()
        .filter(|t| t.status == Status::Changed)
        .map(|t| (t.key.as_str(), t))
        .collect();
    let mut out = Verification::default();
    for (t, key) in ko.iter().enumerate() {
        let Some(&u) = new_by_key.get(key.as_str()) else {
            continue;
        };
        let root = super::is_message(&old.ir, t);
        let (on, nn) = (old.ir.types[t].node, new.ir.types[u].node);
        let identical = fingerprint(&old.ir.program, on) == fingerprint(&new.ir.program, nn);
        if identical && !root {
            continue;
        }
        let (reader_ok, writer_ok) = match reported.get(key.as_str()) {
            Some(r) => (
                r.reader.outcome == Outcome::Compatible,
                r.writer.outcome == Outcome::Compatible,
            ),
            None => (true, true),
        };
        let (pin_new, pin_old) = if root {
            (
                version_value(&new.ir.program, nn),
                version_value(&old.ir.program, on),
            )
        } else {
            (None, None)
        };
        let seed =
            (opts.seed ^ 0x5eed_0fc0_ffee_0000) ^ (t as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let party = |interp, node, label| Party {
            interp,
            node,
            label,
        };
        let mut run = |role: &'static str, from: Party<'_>, to: Party<'_>, pin, seed| {
            let s = search_exhaustive(&from, &to, pin, EXHAUSTIVE_CAP)
                .unwrap_or_else(|| search_pinned(&from, &to, &[], n, seed, pin));
            out.checked.push(Checked {
                key: key.clone(),
                root,
                role,
                instances: s.checked,
                identical,
                exhaustive: s.exhaustive,
            });
            if let Some(counterexample) = s.counterexample {
                out.contradictions.push(Contradiction {
                    key: key.clone(),
                    role,
                    counterexample,
                });
            }
        };
        if reader_ok {
            let (from, to) = (party(&old_strict, on, "old"), party(&new_interp, nn, "new"));
            run("reader", from, to, pin_new.as_ref(), seed);
        }
        if writer_ok {
            let (from, to) = (
                party(&new_interp, nn, "new"),
                party(&old_consumer, on, "old"),
            );
            run("writer", from, to, pin_old.as_ref(), seed.wrapping_add(1));
        }
    }
    out
}
