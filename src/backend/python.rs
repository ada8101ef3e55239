//! Python backend: IR → template context for `templates/python/`.
//!
//! The generated package has two layers:
//!
//! * `_validators.py`: one function per node of the validation program, run on the raw JSON
//!   value with `_runtime.py` (docs/validation.md). This is the **only** verdict engine.
//! * one module per schema file with pydantic v2 models (strict, aliases, `extra` policy,
//!   discriminated unions), `validate_x(data) -> list[Violation]` and `parse_x(data) -> X`.
//!
//! Deviation from "map pydantic's errors": pydantic cannot express every keyword the schemas
//! use (`if`/`then`/`else`, `x-max-words`, `anyOf`/`oneOf` reported as one error, `required`
//! reported at the object, ECMA-262 patterns, RFC 3339 formats, `multipleOf` with the shared
//! tolerance), and its error locations and types do not map one-to-one onto (pointer,
//! keyword) pairs. Mapping its errors would make Python disagree with Rust and TypeScript. So
//! the exact verdict always comes from the generated validator functions, which implement the
//! same program as the other languages; the models are a sound over-approximation filled only
//! after validation (`parse_x`), and each model's `model_validator(mode="before")` runs the
//! same validator when a model is validated directly, so `X.model_validate(bad)` also fails
//! exactly when `validate_x(bad)` reports violations. Pydantic `Field` constraints are only
//! emitted where pydantic agrees exactly with the validator (code-point lengths, anchored
//! patterns with `regex_engine="python-re"`, numeric bounds, list lengths).
//!
//! Copies of a struct that contain one another are one model class (`shared_models`): their
//! other names are aliases of it, `parse_x` and `validate_x` still check each copy's own
//! schema, and `X.model_validate` checks the class's schema.

mod lit;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use askama::Template;
use serde_json::Value;

use super::escape;
use super::{run, Files, Options, GENERATED};
use crate::error::Result;
use crate::ir::names::{self, Lang};
use crate::ir::{Check, Format, Ir, JsonKind, JsonType, NodeId, Ty, TypeId, TypeKind};

pub use lit::translate_pattern;

mod graph;
pub(crate) use graph::DEEP_BUILD;
mod layout;
mod native;
mod order;
mod types;
mod validators;

use graph::*;
use layout::*;
use order::{sort_all, sort_imports};
use types::*;
use validators::*;

// ---------------------------------------------------------------------------------------------
// Package

#[derive(Template)]
#[template(path = "python/runtime.py.j2", escape = "none")]
struct RuntimeTpl {
    header: &'static str,
    /// Some node checks `format: regex`: the runtime imports `regress` for ECMA-262 syntax.
    ecma_regex: bool,
    /// The native accelerator: its import name and fingerprint, as Python string literals.
    native: Option<(String, String)>,
}

#[derive(Template)]
#[template(path = "python/init.py.j2", escape = "none")]
struct InitTpl {
    header: &'static str,
    doc: String,
    /// (module, exported names)
    modules: Vec<(String, Vec<String>)>,
    all: Vec<String>,
    /// (type name literal, `(validate_x, parse_x)`)
    registry: Vec<(String, String)>,
    /// (schema location literal, type name literal)
    locations: Vec<(String, String)>,
}

#[derive(Template)]
#[template(path = "python/reexport.py.j2", escape = "none")]
struct ReexportTpl {
    header: &'static str,
    doc: escape::python::Docstring,
    import: String,
    all: String,
}

/// The module of a schema file whose types live in a shared file (see `import_cycles`): it
/// re-exports them.
/// What a module exports for a type: the type and its `dump_x`, `is_valid_x`, `parse_x` and
/// `validate_x`.
fn exported_names(names: &[String], id: TypeId) -> [String; 5] {
    let snake = names::field_name(Lang::Python, &names[id])
        .trim_end_matches('_')
        .to_string();
    [
        names[id].clone(),
        format!("dump_{snake}"),
        format!("is_valid_{snake}"),
        format!("parse_{snake}"),
        format!("validate_{snake}"),
    ]
}

fn render_reexport(names: &[String], module: &crate::ir::Module, shared: &str) -> Result<String> {
    let mut exported = Vec::new();
    for &id in &module.types {
        exported.extend(exported_names(names, id));
    }
    sort_imports(&mut exported);
    let mut all = exported.clone();
    sort_all(&mut all);
    let quoted: Vec<String> = all.iter().map(|n| lit::string(n)).collect();
    Ok(eol(run(
        "python/reexport.py.j2",
        &ReexportTpl {
            header: GENERATED,
            doc: escape::python::docstring(
                &format!("Types of `{}` (defined in `{shared}`).", module.rel),
                0,
            ),
            import: lit::import(&format!(".{shared}"), &exported),
            all: lit::seq(&quoted, "[", "]", 0, 10, 0),
        },
    )?))
}

#[derive(Template)]
#[template(path = "python/pyproject.toml.j2", escape = "none")]
struct PyprojectTpl {
    header: &'static str,
    /// Quoted TOML strings ([`crate::package::toml_string`]).
    m: crate::package::Manifest,
    package_dir: String,
    typing_extensions: bool,
    /// Some pattern runs on `google-re2` (`crate::backend::pattern`).
    re2: bool,
    /// `format: regex` needs `regress` ([`RuntimeTpl::ecma_regex`]).
    ecma_regex: bool,
}

/// The Python import name of the package (`context_protocols`).
pub fn package_name(opts: &Options) -> String {
    opts.package.python_import()
}

pub fn render(ir: &Ir, opts: &Options) -> Result<Files> {
    let pkg = package_name(opts);
    let names = names::type_names(Lang::Python, ir);
    let canon = shared_models(ir);
    let deferral = Deferral::new(ir, &canon);
    let module_names = names::module_names(Lang::Python, &ir.modules);
    let mut files = Files::new();
    let base = format!("src/{pkg}");
    let ecma_regex = ir.program.nodes.iter().any(|n| {
        n.checks.contains(&crate::ir::checks::Check::Format(
            crate::ir::checks::Format::Regex,
        ))
    });
    files.insert(format!("{base}/py.typed"), String::new());
    let validators = render_validators(ir)?;
    let native = match opts.python_native {
        true => {
            let sources = native::Sources::new(ir)?;
            let fingerprint = sources.fingerprint(&validators);
            native::render(ir, opts, &pkg, sources, &fingerprint, &mut files)?;
            Some((
                lit::string(&names::python_native_module(&pkg)),
                lit::string(&fingerprint),
            ))
        }
        false => None,
    };
    let accelerated = native.is_some();
    files.insert(
        format!("{base}/_runtime.py"),
        eol(run(
            "python/runtime.py.j2",
            &RuntimeTpl {
                header: GENERATED,
                ecma_regex,
                native,
            },
        )?),
    );
    files.insert(format!("{base}/_validators.py"), validators);
    let mut init_modules = Vec::new();
    let mut all = vec![
        "SCHEMAS".to_string(),
        "TYPES".to_string(),
        "ValidationError".to_string(),
        "Violation".to_string(),
    ];
    let mut registry = Vec::new();
    let mut locations = Vec::new();
    // Modules that import each other share one file of their types, re-exported by each.
    let cycles = import_cycles(ir, &canon);
    let type_files: Vec<String> = (0..ir.modules.len())
        .map(|m| match cycles[m].as_slice() {
            [_] => module_names[m].clone(),
            group => format!("_{}_cycle", module_names[group[0]]),
        })
        .collect();
    let module = |members: &[usize]| {
        render_module(
            ir,
            &canon,
            &deferral,
            &names,
            &type_files,
            members,
            accelerated,
        )
    };
    for (m, schema) in ir.modules.iter().enumerate() {
        if cycles[m].len() == 1 {
            files.insert(format!("{base}/{}.py", module_names[m]), module(&[m])?);
        } else {
            if cycles[m][0] == m {
                files.insert(format!("{base}/{}.py", type_files[m]), module(&cycles[m])?);
            }
            files.insert(
                format!("{base}/{}.py", module_names[m]),
                render_reexport(&names, schema, &type_files[m])?,
            );
        }
        let mut exported = Vec::new();
        // The directory of the schema files, as the origins of this module's types spell it.
        let base = schema.types.iter().find_map(|&id| {
            ir.types[id]
                .origin
                .file
                .strip_suffix(schema.rel.as_str())
                .map(str::to_string)
        });
        for &id in &schema.types {
            let [_, dump, is_valid, parse, validate] = exported_names(&names, id);
            exported.extend([names[id].clone(), dump, is_valid]);
            let pair = [validate, parse];
            exported.extend(pair.iter().cloned());
            // A type may come from another document than its module's (a `$ref` into a
            // schema that is not a module): the location names that document.
            // A variant built from an `if`/`then` table has no schema location of its own.
            let origin = &ir.types[id].origin;
            let file = match base.as_deref().and_then(|b| origin.file.strip_prefix(b)) {
                Some(rel) => rel,
                None => &origin.file,
            };
            if ir.types[id].variant_of.is_none() {
                locations.push((
                    lit::string(&format!("{file}#{}", origin.pointer)),
                    lit::string(&names[id]),
                ));
            }
            registry.push((
                lit::string(&names[id]),
                lit::seq(&pair, "(", ")", 4, names[id].len() + 4, 1),
            ));
        }
        sort_imports(&mut exported);
        all.extend(exported.iter().cloned());
        init_modules.push((module_names[m].clone(), exported));
    }
    // `typing_extensions` is a dependency of pydantic; the package declares it when it
    // imports it (for `TypeAliasType`).
    let typing_extensions = files
        .values()
        .any(|text| text.contains("\nfrom typing_extensions import "));
    files.insert(
        "pyproject.toml".into(),
        run(
            "python/pyproject.toml.j2",
            &PyprojectTpl {
                header: GENERATED,
                m: opts.package.manifest(Lang::Python),
                package_dir: crate::package::toml_string(&format!("src/{pkg}")),
                typing_extensions,
                re2: files.values().any(|text| text.contains("linear=True")),
                ecma_regex,
            },
        )?,
    );
    let helpers = helpers::render(ir, &names, &module_names)?;
    // The package root re-exports the helpers, except where a type's `parse_x`/`validate_x`
    // already has the name (`parse_context_path` parses a `ContextPath` at the root; the path
    // helper of the same name stays in `helpers`).
    let helper_names: Vec<String> = helpers
        .as_ref()
        .map(|h| h.1.iter().filter(|n| !all.contains(n)).cloned().collect())
        .unwrap_or_default();
    if let Some((text, _)) = &helpers {
        files.insert(format!("{base}/helpers.py"), text.clone());
    }
    all.extend(helper_names.iter().cloned());
    if helpers.is_some() {
        all.push("HelperError".into());
        let mut exported = helper_names.clone();
        exported.push("HelperError".into());
        sort_imports(&mut exported);
        init_modules.push(("helpers".to_string(), exported));
    }
    init_modules.sort();
    all.sort();
    all.dedup();
    sort_all(&mut all);
    let doc = format!(
        "Typed, validating bindings generated by ctxgen ({} {}).",
        opts.package.python_dist(),
        opts.package.python_version()
    );
    files.insert(
        format!("{base}/__init__.py"),
        run(
            "python/init.py.j2",
            &InitTpl {
                header: GENERATED,
                doc,
                modules: init_modules,
                all,
                registry,
                locations,
            },
        )
        .map(eol)?,
    );
    Ok(files)
}

mod flows;
mod helpers;
