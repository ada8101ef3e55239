//! A user's program against the generated crate as a path dependency.

use context_protocols::{Error, MessageEnvelope};

fn main() {
    let good = r#"{"context": "reason-789/security", "kind": "reflection", "payload": {}}"#;
    let envelope = MessageEnvelope::from_json(good).expect("a valid envelope parses");
    let bad = r#"{"context": "/a", "kind": "reflection", "payload": {}}"#;
    let Err(Error::Invalid(v)) = MessageEnvelope::from_json(bad) else {
        panic!("an invalid envelope was accepted");
    };
    let found: Vec<(String, &str)> = v.0.iter().map(|v| (v.pointer.clone(), v.keyword)).collect();
    println!("{:?} {found:?}", envelope.context);
}
