//! ctxgen: typed, validating bindings for Rust, TypeScript and Python from JSON Schema.
