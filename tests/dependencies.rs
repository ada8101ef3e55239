//! The dependencies generated Rust code needs are declared once
//! (`ctxgen::backend::rust::DEPENDENCIES`); the `build.rs` example and the README must list them.

#[test]
fn the_build_script_example_and_the_readme_list_every_dependency() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let example = std::fs::read_to_string(root.join("examples/build-script/Cargo.toml")).unwrap();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for (name, req) in ctxgen::backend::rust::DEPENDENCIES {
        let line = format!("{name} = {req}");
        assert!(
            example.lines().any(|l| l.trim() == line),
            "examples/build-script/Cargo.toml lacks `{line}`"
        );
        assert!(readme.contains(&line), "README.md lacks `{line}`");
    }
}
