//! The native accelerator of a Python package (`native/`): the generated Rust validators as a
//! PyO3 extension module, built with maturin. It compiles the Rust backend's validators and the
//! checks of its runtime over a `Value` that reads Python objects in place
//! (`templates/python/native/value.rs.j2`). The pure Python package loads it when it is
//! installed and carries the same fingerprint (both written by one run), and hands it every
//! value it validates; the pure Python validators stay the reference and take whatever the
//! accelerator declines as not plain JSON (`templates/python/native/lib.rs.j2`).

use askama::Template;

use super::super::{run, rust, Files, Options, GENERATED};
use crate::error::Result;
use crate::ir::{names, Ir};

/// Values nested deeper than this are validated by the pure Python validators.
const MAX_DEPTH: usize = 512;

#[derive(Template)]
#[template(path = "python/native/lib.rs.j2", escape = "none")]
struct LibTpl<'a> {
    header: &'static str,
    import_name: &'a str,
    module: &'a str,
    glue: String,
    fingerprint: &'a str,
    max_depth: usize,
    nodes: Vec<usize>,
}

#[derive(Template)]
#[template(path = "python/native/value.rs.j2", escape = "none")]
struct ValueTpl {
    header: &'static str,
    max_depth: usize,
}

#[derive(Template)]
#[template(path = "python/native/cargo.toml.j2", escape = "none")]
struct CargoTpl<'a> {
    header: &'static str,
    module: &'a str,
    dependencies: String,
}

#[derive(Template)]
#[template(path = "python/native/pyproject.toml.j2", escape = "none")]
struct PyprojectTpl {
    header: &'static str,
    module_toml: String,
    name: String,
    version: String,
    description: String,
    license: Option<String>,
}

/// The Rust the accelerator compiles besides its glue: the validators of the Rust backend and
/// the checks of its runtime (`native/src/`).
pub(super) struct Sources {
    validators: String,
    runtime: String,
    formats: String,
    value: String,
}

impl Sources {
    pub(super) fn new(ir: &Ir) -> Result<Self> {
        let (runtime, formats) = rust::check_runtime()?;
        let value = ValueTpl {
            header: GENERATED,
            max_depth: MAX_DEPTH,
        };
        Ok(Sources {
            validators: rust::render_validators(ir)?,
            runtime,
            formats,
            value: run("python/native/value.rs.j2", &value)?,
        })
    }

    /// The fingerprint the accelerator and the Python package (its `_validators.py`) share.
    pub(super) fn fingerprint(&self, python_validators: &str) -> String {
        fingerprint(&[
            &self.validators,
            &self.runtime,
            &self.formats,
            &self.value,
            python_validators,
        ])
    }
}

/// FNV-1a (64 bits) of the texts: stable across builds of ctxgen, unlike std's hasher.
pub(super) fn fingerprint(texts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for t in texts {
        for b in t.bytes().chain([0]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// Writes `native/`: the crate (`Cargo.toml`, `src/lib.rs`, `src/value.rs`, the validators,
/// runtime and formats of [`Sources`]) and its `pyproject.toml`.
pub(super) fn render(
    ir: &Ir,
    opts: &Options,
    import_name: &str,
    sources: Sources,
    fingerprint: &str,
    files: &mut Files,
) -> Result<()> {
    let module = names::python_native_module(import_name);
    let lib = LibTpl {
        header: GENERATED,
        import_name,
        module: &module,
        glue: names::python_native_glue(&ir.modules),
        fingerprint,
        max_depth: MAX_DEPTH,
        nodes: (0..ir.program.nodes.len()).collect(),
    };
    files.insert(
        "native/src/lib.rs".into(),
        run("python/native/lib.rs.j2", &lib)?,
    );
    files.insert("native/src/value.rs".into(), sources.value);
    files.insert("native/src/validators.rs".into(), sources.validators);
    files.insert("native/src/runtime.rs".into(), sources.runtime);
    files.insert("native/src/formats.rs".into(), sources.formats);
    files.insert("native/rustfmt.toml".into(), rust::rustfmt_toml()?);
    // The checks use serde_json for the schema's constants only.
    let dependencies = rust::DEPENDENCIES
        .iter()
        .filter(|(name, _)| *name != "serde")
        .map(|(name, req)| format!("{name} = {req}\n"))
        .collect();
    files.insert(
        "native/Cargo.toml".into(),
        run(
            "python/native/cargo.toml.j2",
            &CargoTpl {
                header: GENERATED,
                module: &module,
                dependencies,
            },
        )?,
    );
    let m = opts.package.manifest(names::Lang::Python);
    let dist = opts.package.python_dist();
    files.insert(
        "native/pyproject.toml".into(),
        run(
            "python/native/pyproject.toml.j2",
            &PyprojectTpl {
                header: GENERATED,
                module_toml: crate::package::toml_string(&module),
                name: crate::package::toml_string(&format!("{dist}-native")),
                version: m.version,
                description: crate::package::toml_string(&format!(
                    "The native accelerator of {dist}: its validators, compiled"
                )),
                license: m.license,
            },
        )?,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_is_fnv1a_of_the_texts_each_ended_by_a_nul() {
        // FNV-1a of the single byte 0: the offset basis xor 0, times the prime.
        assert_eq!(fingerprint(&[""]), "af63bd4c8601b7df");
        assert_ne!(fingerprint(&["ab", "c"]), fingerprint(&["a", "bc"]));
        assert_eq!(fingerprint(&["x", "y"]), fingerprint(&["x", "y"]));
    }
}
