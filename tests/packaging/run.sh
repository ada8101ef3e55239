#!/usr/bin/env bash
# Installs each generated package the way its ecosystem does, from its packed artifact, into a
# fresh consumer project, and runs a small program against it:
#   npm:  npm install + npm pack (the `prepare` script compiles to ESM + .d.ts), then a fresh
#         project installs the tarball; tsc --strict under moduleResolution nodenext and
#         bundler, and node runs the compiled program;
#   pip:  pip wheel, then a fresh virtualenv installs the wheel with its `typing` extra;
#         mypy --strict on the program, then python runs it; then the native accelerator's
#         wheel (maturin) installed beside the package's: loaded, and the same output;
#   cargo: a fresh crate depends on generated/rust by path; cargo run.
# Usage: tests/packaging/run.sh [npm|pip|cargo ...]   (from anywhere; needs node, npm, python3, cargo)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
which=("${@:-npm pip cargo}")
which=(${which[@]})
for tool in node npm python3 cargo; do
  command -v "$tool" >/dev/null || { echo "error: '$tool' is required to test the packages" >&2; exit 1; }
done
work="$(mktemp -d "${TMPDIR:-/tmp}/ctxgen-packaging.XXXXXX")"
trap 'rm -rf "$work"' EXIT
expected='[["/context","pattern"]]'

npm_package() {
  echo "== npm: pack generated/typescript, install the tarball into fresh projects"
  cp -r "$root/generated/typescript" "$work/pkg"
  rm -f "$work/pkg/.ctxgen-manifest"
  (cd "$work/pkg" && npm install --no-audit --no-fund --prefer-offline --loglevel=error >/dev/null \
    && npm pack --pack-destination "$work" --loglevel=error >/dev/null)
  tarball="$(ls "$work"/context-protocols-*.tgz)"
  listing="$(tar -tzf "$tarball")"
  for f in package/dist/index.js package/dist/index.d.ts package/dist/runtime.js package/package.json; do
    grep -qx "$f" <<<"$listing" || { echo "error: $f is not in the npm tarball" >&2; exit 1; }
  done
  for resolution in nodenext bundler; do
    app="$work/app-$resolution"
    mkdir -p "$app/src"
    cp "$here/consumer.ts" "$app/src/main.ts"
    module=$([ "$resolution" = nodenext ] && echo nodenext || echo esnext)
    cat >"$app/package.json" <<JSON
{ "name": "consumer-$resolution", "private": true, "type": "module" }
JSON
    cat >"$app/tsconfig.json" <<JSON
{
  "compilerOptions": {
    "target": "ES2022", "module": "$module", "moduleResolution": "$resolution",
    "strict": true, "noUncheckedIndexedAccess": true, "exactOptionalPropertyTypes": true,
    "outDir": "dist", "rootDir": "src", "types": []
  },
  "include": ["src"]
}
JSON
    (cd "$app" && npm install --no-audit --no-fund --prefer-offline --loglevel=error "$tarball" typescript@~5.9.3 >/dev/null)
    (cd "$app" && node_modules/.bin/tsc -p tsconfig.json)
    got="$(cd "$app" && node dist/main.js)"
    [ "$got" = "{\"context\":\"reason-789/security\",\"violations\":$expected}" ] \
      || { echo "error: the $resolution consumer printed $got" >&2; exit 1; }
    echo "   moduleResolution $resolution: tsc --strict and node ok"
  done
}

pip_package() {
  echo "== pip: build a wheel of generated/python, install it into a fresh virtualenv"
  python3 -m venv "$work/build-env"
  "$work/build-env/bin/pip" install --quiet --disable-pip-version-check build
  "$work/build-env/bin/python" -m build --wheel --outdir "$work/wheels" "$root/generated/python" \
    >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; exit 1; }
  wheel="$(ls "$work"/wheels/context_protocols-*.whl)"
  # zipfile rather than unzip, which a fresh machine may not have.
  python3 -c 'import sys, zipfile; sys.exit(0 if "context_protocols/py.typed" in zipfile.ZipFile(sys.argv[1]).namelist() else 1)' "$wheel" \
    || { echo "error: no py.typed in the wheel" >&2; exit 1; }
  python3 -m venv "$work/app-env"
  "$work/app-env/bin/pip" install --quiet --disable-pip-version-check "${wheel}[typing]" mypy
  mkdir -p "$work/app-py"
  cp "$here/consumer.py" "$work/app-py/main.py"
  (cd "$work/app-py" && "$work/app-env/bin/mypy" --strict --no-incremental main.py)
  got="$(cd "$work/app-py" && "$work/app-env/bin/python" main.py)"
  [ "$got" = "reason-789/security [('/context', 'pattern')]" ] \
    || { echo "error: the Python consumer printed $got" >&2; exit 1; }
  echo "   mypy --strict and python ok"

  echo "== pip: build the wheel of the native accelerator (maturin), install it beside the package"
  # The build backend (maturin, from the accelerator's pyproject.toml) compiles the crate in
  # release; its own target folder keeps the repository's untouched.
  CARGO_TARGET_DIR="$work/native-target" "$work/build-env/bin/python" -m build --wheel \
    --outdir "$work/native-wheels" "$root/generated/python/native" >"$work/native-build.log" 2>&1 \
    || { cat "$work/native-build.log" >&2; exit 1; }
  native_wheel="$(ls "$work"/native-wheels/context_protocols_native-*.whl)"
  python3 -m venv "$work/native-env"
  "$work/native-env/bin/pip" install --quiet --disable-pip-version-check "$wheel" "$native_wheel"
  # The same program prints the same with the accelerator, which must be the one in use.
  got="$(cd "$work/app-py" && "$work/native-env/bin/python" -W error::RuntimeWarning -c '
import runpy
from context_protocols import _runtime
assert _runtime.ACCELERATED, "the installed accelerator was not loaded"
runpy.run_path("main.py", run_name="__main__")')"
  [ "$got" = "reason-789/security [('/context', 'pattern')]" ] \
    || { echo "error: the Python consumer with the accelerator printed $got" >&2; exit 1; }
  echo "   the accelerator's wheel installs, loads and gives the same violations"
}

cargo_package() {
  echo "== cargo: a fresh crate with generated/rust as a path dependency"
  app="$work/app-rs"
  mkdir -p "$app"
  cp -r "$here/rust/src" "$app/src"
  cat >"$app/Cargo.toml" <<TOML
[package]
name = "consumer"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
context-protocols = { path = "$root/generated/rust" }

[workspace]
TOML
  got="$(cd "$app" && CARGO_TARGET_DIR="$root/target/packaging" cargo run --quiet)"
  [ "$got" = 'Some("reason-789/security") [("/context", "pattern")]' ] \
    || { echo "error: the Rust consumer printed $got" >&2; exit 1; }
  echo "   cargo run ok"
}

for w in "${which[@]}"; do
  case "$w" in
    npm) npm_package ;;
    pip) pip_package ;;
    cargo) cargo_package ;;
    *) echo "error: unknown package kind $w (npm, pip, cargo)" >&2; exit 2 ;;
  esac
done
