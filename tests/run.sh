#!/usr/bin/env bash
# Runs every test: the Rust crate and its generated bindings, the TypeScript and Python
# harnesses, and the JSON-Schema-Test-Suite conformance run. Installs what it needs (npm
# packages from the committed lockfile, a Python virtualenv from pinned requirements).
set -euo pipefail
cd "$(dirname "$0")/.."

command -v cargo >/dev/null || { echo "error: cargo is required (https://rustup.rs)" >&2; exit 1; }
rustup component add rustfmt clippy >/dev/null 2>&1 || true

# Keep the build small on disk: no incremental state, line tables only for debug info (a full
# run otherwise leaves about 8 GB under target/). Either can be overridden from the environment.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
export CARGO_PROFILE_DEV_DEBUG="${CARGO_PROFILE_DEV_DEBUG:-line-tables-only}"
export CARGO_PROFILE_TEST_DEBUG="${CARGO_PROFILE_TEST_DEBUG:-line-tables-only}"

# Each stage's heading carries the time since the start, so a slow stage shows in the log.
stage() { printf '== %s  [%dm%02ds]\n' "$1" $((SECONDS / 60)) $((SECONDS % 60)); }

stage "generated/ is up to date"
cargo run --quiet --bin ctxgen -- generate --check --deny-warnings

stage "rustfmt and clippy: ctxgen, its tests, and the generated crate"
cargo fmt --all --check
cargo clippy --quiet -p context-protocols --all-features -- -D warnings
cargo clippy --quiet -p ctxgen --all-targets -- -D warnings
# The library as a build dependency compiles it (Rust backend only), and with one other backend.
cargo clippy --quiet -p ctxgen --lib --no-default-features -- -D warnings
cargo clippy --quiet -p ctxgen --lib --no-default-features --features python -- -D warnings

stage "cargo test"
cargo test --workspace

stage "typescript"
bash tests/typescript/run.sh

stage "python"
bash tests/python/run.sh

stage "packages as installed (npm tarball, wheel, path crate into fresh consumer projects)"
bash tests/packaging/run.sh

stage "conformance (JSON-Schema-Test-Suite)"
suite="${CTXGEN_SUITE:-../shared/corpus/json-schema-test-suite}"
[ -d "$suite" ] || { echo "error: the JSON-Schema-Test-Suite is not at $suite (set CTXGEN_SUITE)" >&2; exit 1; }
# The runners below are the dev builds `cargo test` has mostly made already: they spend their
# time in cargo, tsc, node and python, not in ctxgen (the same conformance run takes as long
# with release builds), and a release build of ctxgen, jsonschema and the runners costs six
# minutes on two cores. Each runner starts the `ctxgen` binary next to it.
cargo build --quiet -p ctxgen -p ctxgen-tools --bins
tools=target/debug
CTXGEN_PYTHON=tests/python/.venv/bin/python "$tools/ctxgen-conformance" "$suite" \
  --work target/conformance --report target/conformance.md --baseline tests/conformance-baseline.txt --require-agreement
if ! diff -q target/conformance.md docs/conformance.md >/dev/null; then
  echo "error: docs/conformance.md is out of date; copy target/conformance.md over it" >&2
  diff target/conformance.md docs/conformance.md | head -20 >&2
  exit 1
fi

stage "hostile patterns (tests/patterns: expected verdicts, agreement, 10,000-character inputs)"
CTXGEN_PYTHON=tests/python/.venv/bin/python "$tools/ctxgen-conformance" tests/patterns \
  --work target/patterns --baseline tests/patterns/baseline.txt --require-agreement

stage "SchemaStore subset (tests/corpus-subset.txt): generate, clippy -D warnings on each Rust crate, tsc, import, mypy"
corpus="${CTXGEN_CORPUS:-../shared/corpus/schemastore}"
[ -d "$corpus" ] || { echo "error: the SchemaStore corpus is not at $corpus (set CTXGEN_CORPUS)" >&2; exit 1; }
CTXGEN_PYTHON=tests/python/.venv/bin/python "$tools/ctxgen-corpus" "$corpus" \
  --list tests/corpus-subset.txt --require-all --clippy --work target/corpus-subset --report target/corpus-subset.md

stage "SchemaStore package.json with the ten schemas it references, as one directory: Python imports and mypy --strict"
CTXGEN_PYTHON=tests/python/.venv/bin/python "$tools/ctxgen-release-builds" "$corpus" \
  --largest 0 --directory package.json --python --no-builds --work target/release-builds-quick \
  --report target/release-builds-quick.md

stage "SchemaStore instances (tests/instances-subset.txt): verdicts against the jsonschema crate, agreement, round trips"
CTXGEN_PYTHON=tests/python/.venv/bin/python cargo run --quiet --example ctxgen-instances -- \
  --corpus "$corpus" --list tests/instances-subset.txt --work target/instances-subset \
  --baseline tests/instances-baseline.txt --require-agreement --require-round-trip \
  --report target/instances-subset.md --json target/instances-subset.json

stage "hostile schemas (docs/fuzzing.md): the fixtures of tests/hostile (build checks of the small ones), then a 200-mutant fuzz smoke"
"$tools/ctxgen-fuzz" --fixtures --quick --work target/fuzz-fixtures
"$tools/ctxgen-fuzz" --smoke --work target/fuzz-smoke

stage "generation scale (benches/scale.rs) in quick mode: the bench still runs (no timing is checked)"
# The test profile reuses what `cargo test` built (`cargo bench` would build every
# dev-dependency again in release, minutes for a check that times nothing).
cargo test --quiet --bench scale -- --quick

stage "validation benchmark (ctxgen-bench) in quick mode: every harness runs and ctxgen's verdicts are the specification's (no timing is checked)"
CTXGEN_PYTHON=tests/python/.venv/bin/python "$tools/ctxgen-bench" --quick --corpus "$corpus" \
  --instances "${CTXGEN_INSTANCES:-../shared/corpus/schemastore-instances}"
stage "done"
