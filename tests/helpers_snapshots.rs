//! Snapshots of the helper functions each language gets for the protocol schemas, which carry
//! every helper annotation (`x-path-hierarchy`, `x-quality-score`, `x-bands`, …).

use ctxgen::{Config, Lang};

#[test]
fn helper_output_snapshots() {
    let mut config = Config::new();
    config
        .schemas_dir("schemas")
        .assert_formats(true)
        .languages(&[Lang::Rust, Lang::TypeScript, Lang::Python]);
    let rendered = config.render().expect("protocol schemas generate");
    let mut seen = 0;
    for (dir, files) in &rendered.packages {
        let lang = dir.file_name().unwrap().to_string_lossy().into_owned();
        for (path, text) in files {
            let file = path.rsplit('/').next().unwrap_or(path);
            if file.starts_with("helpers.") {
                insta::assert_snapshot!(format!("helpers__{lang}__{file}"), text);
                seen += 1;
            }
        }
    }
    assert_eq!(seen, 3, "every language has a helpers module");
}
