//! `ctxgen generate --watch`: generates, then again whenever a schema or the project file
//! changes (debounced by `notify-debouncer-mini`); an error is printed and the watch goes on.
//! Changes below the output directory are ignored, so that the watch never triggers itself.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use notify_debouncer_mini::notify::RecursiveMode;
use notify_debouncer_mini::{new_debouncer, DebounceEventResult};

use super::generate::{configure, once, Fail, Setup};
use crate::GenerateArgs;

pub fn run(args: &GenerateArgs, setup: Setup) -> Result<ExitCode, Fail> {
    let Some(dir) = setup.schemas.clone() else {
        return Err(Fail(
            "--watch watches a schema directory: give --schemas DIR or use a project file".into(),
        ));
    };
    let (tx, rx) = mpsc::channel::<DebounceEventResult>();
    let mut debouncer = new_debouncer(Duration::from_millis(300), tx)
        .map_err(|e| Fail(format!("cannot watch {}: {e}", dir.display())))?;
    let mut watched = vec![dir.clone()];
    watched.extend(setup.project.clone());
    for p in &watched {
        debouncer
            .watcher()
            .watch(p, RecursiveMode::Recursive)
            .map_err(|e| Fail(format!("cannot watch {}: {e}", p.display())))?;
    }
    let out = absolute(&setup.out);
    let mut config = setup.config;
    announce(once(args, &config));
    println!("watching {} (Ctrl-C stops)", dir.display());
    for batch in rx {
        let events = match batch {
            Ok(events) => events,
            Err(e) => {
                eprintln!("error: watching: {e}");
                continue;
            }
        };
        let relevant = events.iter().any(|e| {
            let p = absolute(&e.path);
            !p.starts_with(&out)
                && (p.extension().is_some_and(|x| x == "json")
                    || p.file_name()
                        .is_some_and(|n| n == ctxgen::project::FILE_NAME)
                    || p.is_dir())
        });
        if !relevant {
            continue;
        }
        // The project file may have changed: read the settings again.
        match configure(args) {
            Ok(s) => config = s.config,
            Err(Fail(e)) => {
                eprintln!("error: {e}");
                continue;
            }
        }
        announce(once(args, &config));
    }
    Ok(ExitCode::SUCCESS)
}

fn announce(result: Result<ExitCode, Fail>) {
    if let Err(Fail(e)) = result {
        eprintln!("error: {e}");
    }
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
