#!/usr/bin/env bash
# Tests the generated Python package: generates it from schemas/, installs it into a
# virtualenv made from the pinned requirements, and runs ruff format --check, ruff check,
# mypy --strict (package and tests), builds the native accelerator and runs pytest (schema and
# helper vectors) without it and with it.
#
# Usage: tests/python/run.sh [pytest args...]
# Environment: PYTHON (default python3), CTXGEN_PY_OUT (output directory, default
# target/python-test; the package goes to its python/ folder).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"

if ! command -v "$python" >/dev/null 2>&1; then
    echo "error: $python not found; the Python binding tests need Python 3.10 or newer" >&2
    exit 2
fi
if ! "$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)'; then
    echo "error: $("$python" --version 2>&1) is too old; Python 3.10 or newer is required" >&2
    exit 2
fi

venv="$here/.venv"
stamp="$venv/.requirements"
if [ ! -x "$venv/bin/python" ] || ! cmp -s "$here/requirements.txt" "$stamp"; then
    echo "== creating $venv"
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    cp "$here/requirements.txt" "$stamp"
fi

gen="${CTXGEN_PY_OUT:-$root/target/python-test}"
out="$gen/python"
echo "== generating the Python package into $out"
rm -rf "$out"
(cd "$root" && cargo run --quiet --bin ctxgen -- generate --lang python --out "$gen" --schemas schemas)
[ -f "$out/pyproject.toml" ] || { echo "error: generation produced no package in $out" >&2; exit 1; }
pkg_src="$out/src"
fixture_src=()
# The fidelity fixture is shared by the three languages' harnesses.
for dir in "$root"/tests/fixtures/python/*/ "$root"/tests/fixtures/fidelity/; do
    feature="$(basename "$dir")"
    [ "$feature" = snapshots ] && continue
    rm -rf "$gen/fixtures/$feature"
    (cd "$root" && cargo run --quiet --bin ctxgen -- generate --lang python --out "$gen/fixtures/$feature" \
        --schemas "$dir" --package-name "fixture-$feature" >/dev/null)
    fixture_src+=("$gen/fixtures/$feature/python/src")
done
fixture_path="$(IFS=:; echo "${fixture_src[*]}")"

cd "$here"
status=0
step() {
    local name="$1"
    shift
    echo "== $name"
    if ! "$@"; then
        echo "FAILED: $name" >&2
        status=1
    fi
}
step "ruff format --check" "$venv/bin/ruff" format --check "$pkg_src" "${fixture_src[@]}" "$here"
step "ruff check" "$venv/bin/ruff" check "$pkg_src" "${fixture_src[@]}" "$here"
step "mypy --strict (package)" env MYPYPATH="$pkg_src" "$venv/bin/mypy" --strict --cache-dir "$venv/.mypy_cache" "$pkg_src"
for src in "${fixture_src[@]}"; do
    step "mypy --strict ($(basename "$(dirname "$(dirname "$src")")"))" \
        env MYPYPATH="$src" "$venv/bin/mypy" --strict --cache-dir "$venv/.mypy_cache" "$src"
done
step "mypy --strict (tests)" env MYPYPATH="$pkg_src:$fixture_path" "$venv/bin/mypy" --strict \
    --cache-dir "$venv/.mypy_cache" --explicit-package-bases "$here"
# The native accelerator (native/, PyO3): clippy, then a dev build into the virtualenv. The
# whole suite runs on the pure Python validators (CTXGEN_NATIVE=0), then the vectors and the
# accelerator's own tests with it on.
native="$out/native/Cargo.toml"
[ -f "$native" ] || { echo "error: generation produced no native accelerator in $out/native" >&2; exit 1; }
step "native accelerator: clippy -D warnings" env CARGO_TARGET_DIR="$root/target/python-native" \
    cargo clippy --quiet --manifest-path "$native" -- -D warnings
step "native accelerator: maturin develop" env VIRTUAL_ENV="$venv" CARGO_TARGET_DIR="$root/target/python-native" \
    "$venv/bin/python" -m maturin develop --quiet --manifest-path "$native"
step "pytest (pure Python)" env CTXGEN_NATIVE=0 PYTHONPATH="$pkg_src:$fixture_path:$here" \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider -m "not native" "$here" "$@"
step "pytest (native accelerator)" env PYTHONPATH="$pkg_src:$fixture_path:$here" \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider "$here/test_vectors.py" "$here/test_native.py" "$@"
exit "$status"
