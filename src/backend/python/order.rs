//! The order ruff puts imported names and `__all__` in: by kind (isort's "order by type"), then
//! naturally. Each name's sort key is computed once, not once per comparison: a module of
//! 50,000 models sorts 50,000 names.

use std::cmp::Ordering;

/// isort's "order by type": CONSTANTS, then Classes, then functions.
fn name_kind(n: &str) -> u8 {
    let t = n.trim_start_matches('_');
    if t.len() > 1
        && t.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    {
        0
    } else if t.starts_with(|c: char| c.is_ascii_uppercase()) {
        1
    } else {
        2
    }
}

/// A piece of a name in natural order: a run of ASCII digits (borrowed from the name), or any
/// other character.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Digits(&'a str),
    Char(char),
}

fn pieces(s: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::with_capacity(s.len());
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_digit() {
            let n = rest.bytes().take_while(u8::is_ascii_digit).count();
            out.push(Piece::Digits(&rest[..n]));
            rest = &rest[n..];
        } else {
            out.push(Piece::Char(c));
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn first(p: &Piece) -> char {
    match p {
        Piece::Digits(s) => s.chars().next().unwrap_or('0'),
        Piece::Char(c) => *c,
    }
}

/// Natural order, as ruff sorts names: runs of digits compare by value (`Dss2X` < `Dss200`)
/// unless one starts with a zero, where digits compare one by one (`015` < `09`).
fn natural(a: &[Piece], b: &[Piece]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let order = match (x, y) {
            (Piece::Char(x), Piece::Char(y)) => x.cmp(y),
            (Piece::Digits(x), Piece::Digits(y)) if x.starts_with('0') || y.starts_with('0') => {
                x.cmp(y)
            }
            (Piece::Digits(x), Piece::Digits(y)) => x.len().cmp(&y.len()).then_with(|| x.cmp(y)),
            _ => first(x).cmp(&first(y)),
        };
        if order != Ordering::Equal {
            return order;
        }
    }
    a.len().cmp(&b.len())
}

/// Puts `names` in the order of `perm` (the old position of each new one).
fn apply(names: &mut [String], perm: &[usize]) {
    let mut old: Vec<String> = names.iter_mut().map(std::mem::take).collect();
    for (slot, &i) in names.iter_mut().zip(perm) {
        *slot = std::mem::take(&mut old[i]);
    }
}

/// Sorts the names of a `from … import` like ruff's isort rules (by kind, then naturally and
/// case-insensitively, then naturally). Stable; the same comparisons as comparing the names.
pub(super) fn sort_imports(names: &mut [String]) {
    let lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
    let keys: Vec<_> = names
        .iter()
        .zip(&lower)
        .map(|(n, l)| (name_kind(n), pieces(l), pieces(n)))
        .collect();
    let mut perm: Vec<usize> = (0..names.len()).collect();
    perm.sort_by(|&a, &b| {
        let (a, b) = (&keys[a], &keys[b]);
        a.0.cmp(&b.0)
            .then_with(|| natural(&a.1, &b.1))
            .then_with(|| natural(&a.2, &b.2))
    });
    drop(keys);
    apply(names, &perm);
}

/// Sorts `__all__` like ruff's RUF022 (by kind, then naturally and case-sensitively).
pub(super) fn sort_all(names: &mut [String]) {
    let keys: Vec<_> = names.iter().map(|n| (name_kind(n), pieces(n))).collect();
    let mut perm: Vec<usize> = (0..names.len()).collect();
    perm.sort_by(|&a, &b| {
        let (a, b) = (&keys[a], &keys[b]);
        a.0.cmp(&b.0).then_with(|| natural(&a.1, &b.1))
    });
    drop(keys);
    apply(names, &perm);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The comparison the keys replace, applied to the names themselves.
    fn reference(a: &str, b: &str) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let (mut i, mut j) = (0, 0);
        loop {
            match (a.get(i), b.get(j)) {
                (None, None) => return Ordering::Equal,
                (None, Some(_)) => return Ordering::Less,
                (Some(_), None) => return Ordering::Greater,
                (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                    let run = |s: &[char], k: usize| {
                        s[k..].iter().take_while(|c| c.is_ascii_digit()).count()
                    };
                    let (m, n) = (run(&a, i), run(&b, j));
                    let (x, y): (String, String) =
                        (a[i..i + m].iter().collect(), b[j..j + n].iter().collect());
                    // With a leading zero, digits compare one by one (`015` < `09`); else by value.
                    let order = if x.starts_with('0') || y.starts_with('0') {
                        x.cmp(&y)
                    } else {
                        x.len().cmp(&y.len()).then_with(|| x.cmp(&y))
                    };
                    if order != Ordering::Equal {
                        return order;
                    }
                    i += m;
                    j += n;
                }
                (Some(x), Some(y)) => {
                    if x != y {
                        return x.cmp(y);
                    }
                    i += 1;
                    j += 1;
                }
            }
        }
    }

    fn names() -> Vec<String> {
        let parts = [
            "", "0", "00", "01", "1", "2", "9", "10", "015", "09", "200", "a", "A", "_", "X",
            "dss", "Dss",
        ];
        let mut v = Vec::new();
        for a in parts {
            for b in parts {
                for c in ["", "2", "x", "X", "0"] {
                    v.push(format!("{a}{b}{c}"));
                }
            }
        }
        v.reverse();
        v
    }

    #[test]
    fn same_order_as_comparing_names() {
        let mut all = names();
        let mut expected = all.clone();
        sort_all(&mut all);
        expected.sort_by(|a, b| {
            name_kind(a)
                .cmp(&name_kind(b))
                .then_with(|| reference(a, b))
        });
        assert_eq!(all, expected);

        let mut imports = names();
        let mut expected = imports.clone();
        sort_imports(&mut imports);
        expected.sort_by(|a, b| {
            name_kind(a)
                .cmp(&name_kind(b))
                .then_with(|| reference(&a.to_lowercase(), &b.to_lowercase()))
                .then_with(|| reference(a, b))
        });
        assert_eq!(imports, expected);
    }

    #[test]
    fn digits_by_value() {
        let mut v = vec![
            "Dss200".to_string(),
            "Dss2X".to_string(),
            "X09".into(),
            "X015".into(),
        ];
        sort_all(&mut v);
        assert_eq!(v, ["X015", "X09", "Dss2X", "Dss200"]);
    }
}
