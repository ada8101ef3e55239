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
