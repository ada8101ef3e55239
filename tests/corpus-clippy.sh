#!/usr/bin/env bash
# clippy -D warnings on the Rust crate generated from each file of tests/corpus-subset.txt (one
# workspace of 20 crates): generated Rust is clean for schemas nobody here wrote, not only for
# the protocol schemas. Needs the release `ctxgen` (cargo build --release --bin ctxgen).
# Usage: tests/corpus-clippy.sh [WORK_DIR]   (CTXGEN_CORPUS overrides ../shared/corpus/schemastore)
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
corpus="${CTXGEN_CORPUS:-../shared/corpus/schemastore}"
[ -d "$corpus" ] || { echo "error: the SchemaStore corpus is not at $corpus (set CTXGEN_CORPUS)" >&2; exit 1; }
corpus="$(cd "$corpus" && pwd)"
work="${1:-target/corpus-clippy}"
rm -rf "$work/ws"
mkdir -p "$work/ws"
work="$(cd "$work" && pwd)"
members=()
i=0
while read -r file; do
  case "$file" in ''|'#'*) continue ;; esac
  i=$((i + 1))
  if ! "$root/target/release/ctxgen" generate --out "$work/ws/c$i" --lang rust \
    --package-name "corpus-c$i" "$corpus/$file" >/dev/null 2>"$work/c$i.log"; then
    cat "$work/c$i.log" >&2
    exit 1
  fi
  members+=("\"c$i/rust\"")
done < tests/corpus-subset.txt
{
  echo "[workspace]"
  echo "members = [$(IFS=,; echo "${members[*]}")]"
  echo 'resolver = "2"'
} > "$work/ws/Cargo.toml"
cp Cargo.lock "$work/ws/Cargo.lock"
echo "clippy -D warnings on ${#members[@]} generated crates"
status=0
(cd "$work/ws" && CARGO_TARGET_DIR="$work/target" cargo clippy --quiet --keep-going --workspace --all-features -- -D warnings) || status=$?
# The build is large and not needed again (CI's disk is small).
rm -rf "$work/target"
exit "$status"
