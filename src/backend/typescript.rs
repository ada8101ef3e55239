//! TypeScript backend: IR → template context for `templates/typescript/`.

use super::{Files, Options};
use crate::error::Result;
use crate::ir::Ir;

pub fn render(_ir: &Ir, _opts: &Options) -> Result<Files> {
    Ok(Files::new())
}
