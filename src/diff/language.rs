//! The strings a `pattern` can match, when they are finitely many: an anchored pattern (`^…$`,
//! or an alternation of anchored branches) without unbounded repetition, such as
//! `^(CAN)([1-9]|[1-9][0-9])$`. Used by [`super::finite`] to list a string type's instance space.
//!
//! The list is a superset of the matches under ECMA-262 rules: `\d` and `\w` are read as ECMA-262
//! reads them (ASCII), and a pattern using an escape whose ECMA-262 meaning differs from the
//! parser's (`\s`, `\b`, …) is not listed. The caller keeps only the strings its interpreter
//! accepts.

use regex_syntax::hir::{Capture, Class, Hir, HirKind, Look, Repetition};

/// The strings `source` matches in full, when it is anchored at both ends and they are at most
/// `cap`; `None` otherwise.
pub fn language(source: &str, cap: usize) -> Option<Vec<String>> {
    let translated = translate(source)?;
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&translated)
        .ok()?;
    anchored(&hir, cap)
}

/// ECMA-262's `\d` and `\w` spelled as ASCII classes; `None` for escapes whose meaning differs.
fn translate(source: &str) -> Option<String> {
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'd' => out.push_str("[0-9]"),
            'w' => out.push_str("[0-9A-Za-z_]"),
            'D' | 'W' | 's' | 'S' | 'b' | 'B' | 'c' | 'k' | 'p' | 'P' | 'u' | 'x' | '0'..='9' => {
                return None
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Some(out)
}

/// A whole pattern: anchored at the start and the end (or an alternation of such branches).
fn anchored(hir: &Hir, cap: usize) -> Option<Vec<String>> {
    match hir.kind() {
        HirKind::Capture(c) => anchored(&c.sub, cap),
        HirKind::Alternation(alts) => {
            let mut out = Vec::new();
            for a in alts {
                out.extend(anchored(a, cap)?);
                if out.len() > cap {
                    return None;
                }
            }
            Some(out)
        }
        HirKind::Concat(items) => {
            let (first, rest) = items.split_first()?;
            let (last, middle) = rest.split_last()?;
            if !matches!(first.kind(), HirKind::Look(Look::Start))
                || !matches!(last.kind(), HirKind::Look(Look::End))
            {
                return None;
            }
            concat(middle, cap)
        }
        _ => None,
    }
}

fn concat(items: &[Hir], cap: usize) -> Option<Vec<String>> {
    let mut out = vec![String::new()];
    for h in items {
        let part = strings(h, cap)?;
        if out.len().saturating_mul(part.len()) > cap {
            return None;
        }
        out = out
            .iter()
            .flat_map(|a| part.iter().map(move |b| format!("{a}{b}")))
            .collect();
    }
    Some(out)
}

/// The strings an unanchored sub-expression matches (no look-around inside).
fn strings(hir: &Hir, cap: usize) -> Option<Vec<String>> {
    match hir.kind() {
        HirKind::Empty => Some(vec![String::new()]),
        HirKind::Literal(l) => Some(vec![String::from_utf8(l.0.to_vec()).ok()?]),
        HirKind::Class(Class::Unicode(c)) => {
            let mut out = Vec::new();
            for r in c.ranges() {
                let n = (r.end() as usize).saturating_sub(r.start() as usize) + 1;
                if out.len() + n > cap {
                    return None;
                }
                out.extend((r.start()..=r.end()).map(String::from));
            }
            Some(out)
        }
        HirKind::Class(Class::Bytes(_)) | HirKind::Look(_) => None,
        HirKind::Capture(c) => strings(&c.sub, cap),
        HirKind::Concat(items) => concat(items, cap),
        HirKind::Alternation(alts) => {
            let mut out = Vec::new();
            for a in alts {
                out.extend(strings(a, cap)?);
                if out.len() > cap {
                    return None;
                }
            }
            Some(out)
        }
        HirKind::Repetition(r) => {
            let max = r.max?;
            let sub = strings(&r.sub, cap)?;
            let mut out = Vec::new();
            let mut level = vec![String::new()];
            for k in 0..=max {
                if k >= r.min {
                    out.extend(level.iter().cloned());
                    if out.len() > cap {
                        return None;
                    }
                }
                if k == max {
                    break;
                }
                if level.len().saturating_mul(sub.len()) > cap {
                    return None;
                }
                level = level
                    .iter()
                    .flat_map(|a| sub.iter().map(move |b| format!("{a}{b}")))
                    .collect();
            }
            Some(out)
        }
    }
}

/// A generator of strings a pattern finds a match in: the pattern with its anchors and other
/// look-arounds removed (`rand_regex` generates none), and whether a match may be preceded or
/// followed by other text (an unanchored start or end).
pub struct Generable {
    pub regex: rand_regex::Regex,
    pub open_start: bool,
    pub open_end: bool,
}

/// Prepares `source` for generation (`\d`, `\w`, `\s` as ASCII, as ECMA-262 reads the first two).
pub fn generable(source: &str) -> Option<Generable> {
    let mut text = String::with_capacity(source.len());
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            text.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => text.push_str("[0-9]"),
            Some('w') => text.push_str("[0-9A-Za-z_]"),
            Some('s') => text.push_str("[ ]"),
            Some(other) => {
                text.push('\\');
                text.push(other);
            }
            None => text.push_str("\\\\"),
        }
    }
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(&text)
        .ok()?;
    let props = hir.properties();
    let open_start = !props.look_set_prefix().contains(Look::Start);
    let open_end = !props.look_set_suffix().contains(Look::End);
    let regex = rand_regex::Regex::with_hir(without_looks(hir), 4).ok()?;
    Some(Generable {
        regex,
        open_start,
        open_end,
    })
}

/// `hir` with every look-around replaced by the empty expression.
fn without_looks(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Look(_) => Hir::empty(),
        HirKind::Capture(c) => Hir::capture(Capture {
            sub: Box::new(without_looks(*c.sub)),
            ..c
        }),
        HirKind::Repetition(r) => Hir::repetition(Repetition {
            sub: Box::new(without_looks(*r.sub)),
            ..r
        }),
        HirKind::Concat(items) => Hir::concat(items.into_iter().map(without_looks).collect()),
        HirKind::Alternation(alts) => {
            Hir::alternation(alts.into_iter().map(without_looks).collect())
        }
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(l) => Hir::literal(l.0),
        HirKind::Class(c) => Hir::class(c),
    }
}

#[cfg(test)]
mod tests {
    use super::language;

    #[test]
    fn finite_patterns_are_listed() {
        let l = language(
            "^((CAN)([1-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5]))$",
            1000,
        );
        assert_eq!(l.map(|l| l.len()), Some(9 + 90 + 100 + 50 + 6));
        assert_eq!(language("^(a|b)?c$", 10).map(|l| l.len()), Some(3));
        assert_eq!(language("^\\d{2}$", 1000).map(|l| l.len()), Some(100));
    }

    #[test]
    fn unanchored_unbounded_or_large_patterns_are_not() {
        assert_eq!(language("^a+$", 1000), None);
        assert_eq!(language("^a|b$", 1000), None);
        assert_eq!(language("abc", 1000), None);
        assert_eq!(language("^\\s$", 1000), None);
        assert_eq!(language("^.$", 1000), None);
        assert_eq!(language("^[0-9]{6}$", 1000), None);
    }
}
