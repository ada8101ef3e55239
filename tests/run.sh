#!/usr/bin/env bash
# Runs every test: the Rust crate and its generated bindings, then the TypeScript and Python
# harnesses when they are present. Installs what it needs (toolchain components, npm packages
# from the committed lockfile, a Python virtualenv from pinned requirements).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v cargo >/dev/null || { echo "error: cargo is required (https://rustup.rs)" >&2; exit 1; }
rustup component add rustfmt clippy >/dev/null 2>&1 || true

echo "== generated/ is up to date"
cargo run --quiet -- generate --check

echo "== generated Rust crate: rustfmt and clippy"
(cd generated/rust && cargo fmt --check)
cargo clippy --quiet -p context-protocols --all-features -- -D warnings
cargo clippy --quiet -p ctxgen --lib --bins -- -D warnings

echo "== cargo test"
cargo test --workspace

for lang in typescript python; do
  if [ -x "tests/$lang/run.sh" ]; then
    echo "== $lang"
    "tests/$lang/run.sh"
  fi
done
