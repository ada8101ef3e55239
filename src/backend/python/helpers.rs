//! Helper functions (`helpers.py`), emitted only for the annotations the schemas carry.

use crate::error::Result;
use crate::ir::Ir;

/// The text of `helpers.py` and the names it exports, or `None` without annotations.
pub fn render(_ir: &Ir, _names: &[String], _modules: &[String]) -> Result<Option<(String, Vec<String>)>> {
    Ok(None)
}
