//! Parses a message envelope with bindings generated at build time.

#[allow(dead_code, unused_imports)]
mod protocols {
    include!(concat!(env!("OUT_DIR"), "/ctxgen/rust/bindings.rs"));
}

use protocols::MessageEnvelope;

fn parse(text: &str) -> Result<MessageEnvelope, protocols::Error> {
    MessageEnvelope::from_json(text)
}

fn main() {
    let text =
        r#"{"id": "msg-2", "context": "reason-789/security", "kind": "reflection", "payload": {}}"#;
    match parse(text) {
        Ok(envelope) => println!("context: {:?}", envelope.context),
        Err(e) => eprintln!("{e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_valid_envelope_and_rejects_a_bad_path() {
        assert!(parse(r#"{"context": "a/b", "kind": "reflection", "payload": {}}"#).is_ok());
        let err = parse(r#"{"context": "/a", "kind": "reflection", "payload": {}}"#).unwrap_err();
        match err {
            protocols::Error::Invalid(v) => assert_eq!(v.0[0].pointer, "/context"),
            other => panic!("unexpected {other}"),
        }
    }
}
