//! The release-build section of `docs/corpus.md`, between two markers: `ctxgen-release-builds`
//! writes it, and the corpus run, which rewrites the rest of the file, keeps it.

pub const BEGIN: &str = "<!-- release-builds: written by ctxgen-release-builds -->";
pub const END: &str = "<!-- /release-builds -->";

/// The section of `text`, markers included, if it has one.
pub fn existing(text: &str) -> Option<&str> {
    let b = text.find(BEGIN)?;
    let e = text[b..].find(END)? + b;
    Some(&text[b..e + END.len()])
}

/// `text` with its section replaced by `section` (appended when it has none).
pub fn splice(text: &str, section: &str) -> String {
    let section = section.trim();
    match existing(text) {
        Some(old) => text.replacen(old, section, 1),
        None if text.trim().is_empty() => format!("{section}\n"),
        None => format!("{}\n\n{section}\n", text.trim_end()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(body: &str) -> String {
        format!("{BEGIN}\n{body}\n{END}")
    }

    #[test]
    fn a_report_without_the_section_gets_it_appended() {
        let text = splice("# Report\n\nrows\n", &section("new"));
        assert_eq!(text, format!("# Report\n\nrows\n\n{}\n", section("new")));
        assert_eq!(existing(&text), Some(section("new").as_str()));
    }

    #[test]
    fn the_section_is_replaced_in_place_and_the_rest_kept() {
        let old = format!("# Report\n\n{}\n\ntail\n", section("old"));
        let text = splice(&old, &section("new"));
        assert_eq!(text, format!("# Report\n\n{}\n\ntail\n", section("new")));
    }

    #[test]
    fn an_empty_file_holds_only_the_section() {
        assert_eq!(splice("", &section("x")), format!("{}\n", section("x")));
        assert_eq!(existing("no markers here"), None);
    }
}
