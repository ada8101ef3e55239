//! `ctxgen init`: writes a project file.

use std::path::Path;
use std::process::ExitCode;

use ctxgen::project::{self, FILE_NAME};
use ctxgen::Lang;

use crate::InitArgs;

pub fn run(a: InitArgs) -> ExitCode {
    match init(&a) {
        Ok(msg) => {
            println!("{msg}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn init(a: &InitArgs) -> Result<String, String> {
    let file = Path::new(FILE_NAME);
    if file.exists() {
        return Err(format!("{FILE_NAME} already exists here; edit it instead"));
    }
    let name = match a.name.clone().or_else(super::dir_name) {
        Some(n) => n,
        None => {
            return Err("cannot name the project after this directory: give --name NAME".into())
        }
    };
    let mut pkg = ctxgen::package::Package::named(name.clone());
    pkg.version = "0.1.0".into();
    pkg.validate(&[Lang::Rust, Lang::TypeScript, Lang::Python])
        .map_err(|e| format!("{e} (give another with --name NAME)"))?;
    let schemas = Path::new(&a.schemas);
    if schemas.is_absolute() || schemas.components().any(|c| c.as_os_str() == "..") {
        return Err("--schemas must be a directory below this one".into());
    }
    let text = project::template(&name, &a.schemas);
    // Checked again by the parser ctxgen generate uses.
    project::Project::parse(&text, file).map_err(|e| e.to_string())?;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
        .map_err(|e| format!("{FILE_NAME}: {e}"))?;
    let mut msg = format!("wrote {FILE_NAME} (package `{name}`)");
    if !schemas.is_dir() {
        std::fs::create_dir_all(schemas).map_err(|e| format!("{}: {e}", schemas.display()))?;
        msg.push_str(&format!("; created {}/", a.schemas));
    }
    msg.push_str(&format!(
        "\nput your JSON Schemas in {}/ and run `ctxgen generate`",
        a.schemas
    ));
    Ok(msg)
}
