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

/// A piece of a name in natural order: a run of ASCII digits, or any other character.
#[derive(Debug, PartialEq, Eq)]
enum Piece {
    Digits(String),
    Char(char),
}

fn pieces(s: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if !c.is_ascii_digit() {
            out.push(Piece::Char(c));
            continue;
        }
        let mut run = String::from(c);
        while let Some(d) = chars.next_if(char::is_ascii_digit) {
            run.push(d);
        }
        out.push(Piece::Digits(run));
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

/// Sorts `names` by `key` (stable; the same comparisons as comparing the names themselves).
fn sort_by_key<K>(names: &mut [String], key: impl Fn(&str) -> K, cmp: impl Fn(&K, &K) -> Ordering) {
    let mut keyed: Vec<(K, String)> = names
        .iter_mut()
        .map(|n| (key(n), std::mem::take(n)))
        .collect();
    keyed.sort_by(|a, b| cmp(&a.0, &b.0));
    for (slot, (_, name)) in names.iter_mut().zip(keyed) {
        *slot = name;
    }
}

/// Sorts the names of a `from … import` like ruff's isort rules (by kind, then naturally and
/// case-insensitively, then naturally).
pub(super) fn sort_imports(names: &mut [String]) {
    sort_by_key(
        names,
        |n| (name_kind(n), pieces(&n.to_lowercase()), pieces(n)),
        |a, b| {
            a.0.cmp(&b.0)
                .then_with(|| natural(&a.1, &b.1))
                .then_with(|| natural(&a.2, &b.2))
        },
    );
}

/// Sorts `__all__` like ruff's RUF022 (by kind, then naturally and case-sensitively).
pub(super) fn sort_all(names: &mut [String]) {
    sort_by_key(
        names,
        |n| (name_kind(n), pieces(n)),
        |a, b| a.0.cmp(&b.0).then_with(|| natural(&a.1, &b.1)),
    );
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
