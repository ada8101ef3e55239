//! The crate's module `lite`: what `from_json` reads. The JSON text is parsed into a value that
//! borrows its strings (`lite/value.rs`), the validation program is compiled a second time over
//! that value (the checks of the runtime, the formats and the crate's own `validators.rs`, each
//! the same text as in the crate or the Python accelerator), and the typed value is built from
//! it in memory (`lite/de.rs`).

use askama::Template;

use crate::backend::{run, GENERATED};
use crate::error::Result;

#[derive(Template)]
#[template(path = "rust/lite.rs.j2", escape = "none")]
struct LiteTemplate<'a> {
    header: &'a str,
}

#[derive(Template)]
#[template(path = "rust/lite/value.rs.j2", escape = "none")]
struct ValueTemplate<'a> {
    header: &'a str,
}

#[derive(Template)]
#[template(path = "rust/lite/de.rs.j2", escape = "none")]
struct DeTemplate<'a> {
    header: &'a str,
}

/// The files of the module, by path in the crate; `program` is the crate's `validators.rs`.
pub(super) fn files(program: &str) -> Result<Vec<(String, String)>> {
    let header = GENERATED;
    let (checks, formats) = super::check_runtime()?;
    Ok(vec![
        (
            "src/lite.rs".into(),
            run("rust/lite.rs.j2", &LiteTemplate { header })?,
        ),
        (
            "src/lite/value.rs".into(),
            run("rust/lite/value.rs.j2", &ValueTemplate { header })?,
        ),
        (
            "src/lite/de.rs".into(),
            run("rust/lite/de.rs.j2", &DeTemplate { header })?,
        ),
        ("src/lite/runtime.rs".into(), checks),
        ("src/lite/formats.rs".into(), formats),
        ("src/lite/validators.rs".into(), program.to_string()),
    ])
}
