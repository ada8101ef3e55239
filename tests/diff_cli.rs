//! `ctxgen diff` and `ctxgen check-compat` from the command line: exit codes, JSON output, the
//! protocol schemas against the last released state, and the seed-002 version rules on the
//! session-context schema's own `schema_version` field.

use assert_cmd::Command;
use serde_json::Value;

const PV: &str = "tests/diff/protocol-version";

fn ctxgen() -> Command {
    let mut c = Command::cargo_bin("ctxgen").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn json_of(args: &[&str]) -> (Value, i32) {
    let out = ctxgen()
        .args(args)
        .args(["--format", "json", "--samples", "200"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)));
    (v, out.status.code().unwrap_or(-1))
}

#[test]
fn protocol_schemas_match_the_released_state() {
    let out = ctxgen()
        .args([
            "check-compat",
            "--baseline",
            "tests/compat-baseline",
            "--schemas",
            "schemas",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("ok"), "{text}");
}

#[test]
fn optional_field_with_minor_bump_is_ok() {
    let (v, code) = json_of(&[
        "diff",
        "--check",
        &format!("{PV}/1.0.0"),
        &format!("{PV}/1.1.0-optional-field"),
    ]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(
        v["version"]["old"],
        serde_json::json!({"major": 1, "minor": 0, "patch": 0})
    );
    assert_eq!(v["version"]["wire"], "minor");
    assert_eq!(v["version"]["declared"], "minor");
    assert_eq!(v["version"]["ok"], true);
    // Every package needs a major release: the `schema_version` literal type changed, and Rust
    // structs gain a pub field.
    assert_eq!(v["version"]["api"]["rust"], "major");
    let api = v["api"].as_array().unwrap();
    let added = |lang: &str| {
        api.iter()
            .find(|c| c["lang"] == lang && c["kind"] == "field-added")
            .unwrap()["breaking"]
            .clone()
    };
    assert_eq!(added("rust"), true);
    assert_eq!(added("typescript"), false);
    assert_eq!(added("python"), false);
}

#[test]
fn optional_field_with_patch_bump_fails_the_check() {
    let (v, code) = json_of(&[
        "diff",
        "--check",
        &format!("{PV}/1.0.0"),
        &format!("{PV}/1.0.1-optional-field"),
    ]);
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["version"]["required"], "minor");
    assert_eq!(v["version"]["declared"], "patch");
    // Without --check the report is the same and the exit code 0.
    let (_, code) = json_of(&[
        "diff",
        &format!("{PV}/1.0.0"),
        &format!("{PV}/1.0.1-optional-field"),
    ]);
    assert_eq!(code, 0);
}

#[test]
fn required_field_needs_a_major_bump() {
    let (v, code) = json_of(&[
        "diff",
        "--check",
        &format!("{PV}/1.0.0"),
        &format!("{PV}/2.0.0-required-field"),
    ]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["version"]["required"], "major");
    let (v, code) = json_of(&[
        "diff",
        "--check",
        &format!("{PV}/1.0.0"),
        &format!("{PV}/1.1.0-required-field"),
    ]);
    assert_eq!(code, 1, "{v:#}");
    let root = v["types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["root"] == true)
        .unwrap();
    assert_eq!(root["reader"]["outcome"], "incompatible");
    assert_eq!(root["writer"]["outcome"], "compatible");
    let cx = &root["reader"]["counterexample"];
    assert_eq!(cx["accepted_by"], "old");
    assert!(cx["instance"].get("priority").is_none(), "{cx:#}");
    assert_eq!(cx["violations"][0]["keyword"], "required");
}

#[test]
fn errors_exit_2() {
    let out = ctxgen()
        .args(["diff", "tests/diff/does-not-exist", "schemas"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = ctxgen().args(["diff", "schemas"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = ctxgen().args(["check-compat"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = ctxgen()
        .args(["diff", "--against", "no-such-revision-xyz", "schemas"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn against_a_git_revision() {
    // HEAD's copy of schemas/ against the working tree's: the same unless schemas are being edited.
    let out = ctxgen()
        .args(["diff", "--against", "HEAD", "schemas", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["old"].as_str().unwrap().ends_with("@HEAD"));
}
