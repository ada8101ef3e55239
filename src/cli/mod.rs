//! What the `ctxgen` subcommands do (the binary only; the library is `ctxgen::Config`).

pub mod generate;
pub mod init;
mod watch;

use ctxgen::Lang;

use crate::LangArg;

impl From<LangArg> for Lang {
    fn from(l: LangArg) -> Lang {
        match l {
            LangArg::Rust => Lang::Rust,
            LangArg::Typescript => Lang::TypeScript,
            LangArg::Python => Lang::Python,
        }
    }
}

/// The current directory's name in kebab-case, the default package name without a project file.
pub fn dir_name() -> Option<String> {
    let cwd = std::env::current_dir().ok()?;
    let name = cwd.file_name()?.to_str()?;
    let kebab = ctxgen::ir::names::package_name_from_dir(name);
    (!kebab.is_empty()).then_some(kebab)
}
