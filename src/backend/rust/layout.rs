//! Array literals laid out as rustfmt lays them out when they do not fit on one line: one item a
//! line, except that an array whose items are all simple (literals and paths, possibly behind
//! `&`) and short (`short_array_element_width_threshold`, 10 characters) fills each line up to
//! the width ("mixed" layout).

/// rustfmt's line width.
pub(crate) const WIDTH: usize = 100;
/// rustfmt's `short_array_element_width_threshold`.
const SHORT: usize = 10;

/// The lines of the items of an array literal broken over lines at `indent`, each with its
/// trailing comma.
pub(crate) fn array_lines(items: &[String], indent: usize) -> Vec<String> {
    if !items.iter().all(|i| i.len() <= SHORT && simple(i)) {
        return items.iter().map(|i| format!("{i},")).collect();
    }
    let room = WIDTH.saturating_sub(indent);
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for item in items {
        let piece = item.len() + 1;
        if !line.is_empty() && line.len() + 1 + piece > room {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(item);
        line.push(',');
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// rustfmt's `is_simple_expr` for the items ctxgen writes: a literal, a path, or either behind
/// `&` or `-`.
fn simple(item: &str) -> bool {
    let item = item.trim_start_matches(['&', '-']);
    let literal = item.starts_with('"') || item.starts_with("r\"") || item.starts_with("r#");
    let path = !item.is_empty()
        && item
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '.');
    literal || path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_simple_items_fill_lines_like_rustfmt() {
        let items: Vec<String> = (0..20).map(|i| format!("\"field-{i}\"")).collect();
        let lines = array_lines(&items, 12);
        assert_eq!(
            lines[0],
            "\"field-0\", \"field-1\", \"field-2\", \"field-3\", \"field-4\", \"field-5\", \"field-6\", \"field-7\","
        );
        assert!(lines.iter().all(|l| l.len() + 12 <= WIDTH));
        // A long item, or one that is not simple, makes it one a line.
        let mut long = items.clone();
        long.push("\"a-long-name\"".into());
        assert_eq!(array_lines(&long, 12).len(), 21);
        assert_eq!(array_lines(&["(&P1, n2)".to_string()], 12), ["(&P1, n2),"]);
    }
}
