use super::*;

/// The classic shapes that take a backtracking engine exponential or polynomial time.
const REDOS: &[&str] = &[
    "^(a+)+$",
    "(a|a)*$",
    "(a|aa)+$",
    "(\\w+\\s?)*$",
    "^(a*)*b$",
    "(x+x+)+y",
    "a*a*a*a*b",
    "[a-z]+x",
    "^[a-z]+[a-z0-9]*$",
    "^(\\d+|\\d+\\.\\d+)*$",
    "^([a-z0-9]+[-.]?)+\\.com$",
    "(.*a){12}",
    "^(a{1,2}){1,40}$",
];

/// Patterns a backtracking engine runs in linear time.
const LINEAR: &[&str] = &[
    "^[a-z]+$",
    "^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+){0,4}$",
    "^\\d{4}-\\d{2}-\\d{2}$",
    "\\.json$",
    "^[a-z][a-z0-9-]*[a-z0-9]$",
    "^x-",
    "abc",
    "^(\\+|-)?\\d+(\\.\\d+)?$",
    "^[^@]+@[^@]+$",
    "^\\p{L}+$",
    "^(?!x)[a-z]+$",
    "^[0-9]{1,3}(\\.[0-9]{1,3}){3}$",
];

#[test]
fn redos_shapes_use_the_linear_engine() {
    for p in REDOS {
        assert!(matches!(plan(p), Plan::Linear { .. }), "{p}: {:?}", plan(p));
    }
}

#[test]
fn linear_shapes_keep_the_native_engine() {
    for p in LINEAR {
        assert_eq!(plan(p), Plan::Backtracking, "{p}");
    }
}

#[test]
fn backtracking_features_are_hazards_when_not_proven_linear() {
    assert!(plan("(a+)+(?=b)").hazard().is_some());
    assert!(plan("^(a+)\\1+$").hazard().is_some());
    assert!(plan("(a+)+\\p{Script_Extensions=Latin}").hazard().is_some());
    assert_eq!(plan("^(a)\\1$"), Plan::Backtracking);
}

#[test]
fn translations() {
    let t = |p: &str| emit::emit(&parse::parse(p).unwrap(), Dialect::Re2).unwrap();
    assert_eq!(t("^(a+)+$"), "^(?:a+)+$");
    assert_eq!(t("\\d"), "[0-9]");
    assert_eq!(
        t("."),
        "[\\x{0}-\\x{9}\\x{B}-\\x{C}\\x{E}-\\x{2027}\\x{202A}-\\x{D7FF}\\x{E000}-\\x{10FFFF}]"
    );
    assert_eq!(t("[]"), "[^\\x{0}-\\x{10FFFF}]");
    assert_eq!(t("[^]"), "[\\x{0}-\\x{10FFFF}]");
    assert_eq!(t("\\p{Letter}\\P{sc=Greek}"), "[\\p{L}][\\P{Greek}]");
    assert_eq!(t("(?<n>a|b)c"), "(?:a|b)c");
    assert_eq!(t("\\u{1F600}\\uD83D\\uDE00"), "\\x{1F600}\\x{1F600}");
    assert!(emit::emit(&parse::parse("a{1001}").unwrap(), Dialect::Re2).is_err());
    assert!(emit::emit(&parse::parse("(a{100}){20}").unwrap(), Dialect::Re2).is_err());
    assert!(parse::parse("\\uD800").is_err());
}

/// Patterns whose translation must agree with `regress` (the ECMA-262 reference here) on
/// every string of `SAMPLES`.
const DIFFERENTIAL: &[&str] = &[
    "^(a+)+$",
    "(a|aa)+$",
    "(\\w+\\s?)*$",
    "^(a*)*b$",
    "a*a*b",
    "^\\s*\\S+\\s*$",
    "^(\\d|\\w)+$",
    "^[^a-c]+.$",
    "^.+\\b.+$",
    "\\B(x|y)+",
    "^[\\s\\S]+$",
    "^[\\W\\d]+$",
    "^[\\D]+$",
    "([a-z]+[-_]?)+[0-9]$",
    "^(\\p{L}|\\p{N})+$",
    "^(\\p{Lu}\\p{Ll}*)+$",
    "^([\\p{L}-]+\\s?)*$",
    "^(a|b|)+$",
    "^(\\u{1F600}|x)+$",
    "^(\\x41|\\u0062|\\cJ|\\t)+$",
    "^([.-]+|\\[|\\])+$",
    "^([a\\-z]+)+$",
    "^(a{2,3})+$",
    "([^\\n]*x){2}",
    "^$",
    "(a*)*",
    "^(?:[^\\\\]|\\\\.)*$",
];

const SAMPLES: &[&str] = &[
    "",
    "a",
    "aa",
    "aaaa!",
    "aaab",
    "b",
    " x y ",
    "x\ny",
    "abc def",
    "abc-def_1",
    "abc-def_",
    "ÉtéÀ",
    "Été à",
    "e\u{301}",
    "é",
    "١٢٣",
    "\u{1F600}\u{1F600}",
    "\u{1F600}x",
    "\u{a0}x\u{2028}",
    "\u{3000}word\u{feff}",
    "Ab\nb\t",
    "x.y-z[]",
    "a-z",
    "aaaaaa",
    "aaaaa",
    "Über Straße",
    "\\\\x",
    "\\",
    "xx",
    "xy",
    "x\u{2029}y",
    "x\u{85}x",
];

#[test]
fn translations_agree_with_ecma_262() {
    for p in DIFFERENTIAL {
        let ecma = regress::Regex::with_flags(p, "u").unwrap();
        let node = parse::parse(p).unwrap_or_else(|e| panic!("{p}: {e}"));
        let rust = emit::emit(&node, Dialect::Rust).unwrap_or_else(|e| panic!("{p}: {e}"));
        let linear = regex::Regex::new(&rust).unwrap_or_else(|e| panic!("{p} as {rust}: {e}"));
        for s in SAMPLES {
            assert_eq!(
                ecma.find(s).is_some(),
                linear.is_match(s),
                "{p} (as {rust}) on {s:?}"
            );
        }
    }
}

#[test]
fn unknown_syntax_is_a_hazard_not_a_panic() {
    for p in [
        "(?i:a)",
        "\\",
        "[",
        "(",
        "a{2,1}",
        "\\p{",
        "\\u{110000}",
        "*",
    ] {
        assert!(plan(p).hazard().is_some(), "{p}");
    }
}

/// Prints the engine of every pattern of a JSON list (`CTXGEN_PATTERNS=file`).
#[test]
#[ignore]
fn classify_list() {
    let Ok(path) = std::env::var("CTXGEN_PATTERNS") else {
        return;
    };
    let list: Vec<String> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let (mut b, mut l, mut h) = (0, 0, 0);
    for p in &list {
        let t = std::time::Instant::now();
        let plan = plan(p);
        let ms = t.elapsed().as_millis();
        match &plan {
            Plan::Backtracking => b += 1,
            Plan::Linear { .. } => l += 1,
            Plan::Hazard { .. } => h += 1,
        }
        let kind = match &plan {
            Plan::Backtracking => "B".to_string(),
            Plan::Linear { .. } => "L".to_string(),
            Plan::Hazard { reason } => format!("H {reason}"),
        };
        println!("{kind}\t{ms}ms\t{p}");
    }
    println!("backtracking {b}, linear {l}, hazard {h}");
}

/// Writes the differential patterns, their RE2 translations and `regress`'s verdicts on the
/// samples as JSON (`CTXGEN_PATTERN_DUMP=file`), for checking the other linear engines.
#[test]
#[ignore]
fn dump_differential() {
    let Ok(path) = std::env::var("CTXGEN_PATTERN_DUMP") else {
        return;
    };
    let mut out = Vec::new();
    for p in DIFFERENTIAL.iter().chain(REDOS) {
        let ecma = regress::Regex::with_flags(p, "u").unwrap();
        let re2 = emit::emit(&parse::parse(p).unwrap(), Dialect::Re2).unwrap();
        let cases: Vec<serde_json::Value> = SAMPLES
            .iter()
            .map(|s| serde_json::json!([s, ecma.find(s).is_some()]))
            .collect();
        out.push(serde_json::json!({"pattern": p, "re2": re2, "cases": cases}));
    }
    std::fs::write(path, serde_json::to_string_pretty(&out).unwrap()).unwrap();
}
