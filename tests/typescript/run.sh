#!/usr/bin/env bash
# Tests the generated TypeScript package: prettier --check, tsc (strict,
# noUncheckedIndexedAccess, exactOptionalPropertyTypes) on the package and on the tests,
# then every schema vector and every helper vector with node's test runner.
# Usage: tests/typescript/run.sh   (from anywhere; needs node >= 20, npm and cargo)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

for tool in node npm cargo; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "error: '$tool' is required to run the TypeScript tests but was not found on PATH" >&2
    exit 1
  fi
done
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 20 ]; then
  echo "error: node >= 20 is required (found $(node --version))" >&2
  exit 1
fi

cd "$here"
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error

work="$(mktemp -d "${TMPDIR:-/tmp}/ctxgen-ts.XXXXXX")"
trap 'rm -rf "$work"' EXIT
pkg="$work/pkg"

echo "== generate"
(cd "$root" && cargo run --quiet --bin ctxgen -- generate --lang typescript --out "$work/gen" >/dev/null)
mv "$work/gen/typescript" "$pkg"
(cd "$root" && CTXGEN_TS_OUT="$work" cargo test --quiet --test typescript_snapshots write_test_inputs -- --ignored >/dev/null)

echo "== prettier --check (package, fixture packages, tests)"
"$here/node_modules/.bin/prettier" --check --log-level warn --ignore-path /dev/null "$pkg" "$work/fixtures" "$here"/*.ts "$here"/*.mjs

echo "== tsc --noEmit (generated package and fixture packages)"
ln -s "$here/node_modules" "$pkg/node_modules"
# The fixture packages (and later the tests) resolve their dependencies (re2js) from here.
ln -s "$here/node_modules" "$work/node_modules"
# tsc is single-threaded: two projects at a time.
printf '%s\0' "$pkg/tsconfig.json" "$work/fixtures"/*/tsconfig.json |
  xargs -0 -n 1 -P 2 "$here/node_modules/.bin/tsc" --noEmit -p

echo "== tsc (tests)"
mkdir -p "$work/tests"
cp "$here"/*.ts "$here"/*.test.mjs "$work/tests/"
cp "$here/tsconfig.test.json" "$work/tsconfig.json"
echo '{"type": "module"}' >"$work/package.json"
"$here/node_modules/.bin/tsc" -p "$work/tsconfig.json"

echo "== node --test"
CTXGEN_VECTORS="$root/tests/vectors" CTXGEN_TS_NAMES="$work/names.json" \
  CTXGEN_TS_FIXTURES="$root/tests/fixtures/typescript" \
  node --test --test-concurrency=2 --test-reporter="${CTXGEN_TEST_REPORTER:-dot}" "$work/out/tests/"*.test.js "$work/tests/"*.test.mjs
