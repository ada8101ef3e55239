//! `src/helpers.ts`: helper functions driven by the schema annotations (`x-…`).

use askama::Template;

use super::Ctx;

#[derive(Template)]
#[template(path = "typescript/helpers.ts.j2", escape = "none")]
pub(crate) struct HelpersView {
    header: &'static str,
}

pub(crate) fn view(_ctx: &Ctx) -> Option<HelpersView> {
    None
}
