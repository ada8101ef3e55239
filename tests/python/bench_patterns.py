"""``pattern`` matching speed in Python, through the generated runtime's ``Pattern``: on
``google-re2`` with ctxgen's RE2 translation (what the generated code uses for a pattern
backtracking cannot run in linear time) next to the ``regex`` module with ctxgen's Python
translation (what it used for every pattern before, and still uses for the others).

Usage: PYTHONPATH=generated/python/src tests/python/.venv/bin/python tests/python/bench_patterns.py
"""

from __future__ import annotations

import time
from collections.abc import Callable

from context_protocols._runtime import Pattern


def per_call(runs: int, batch: int, f: Callable[[str], object], s: str) -> float:
    """Median seconds of one call ``f(s)``, over ``runs`` batches of ``batch`` calls."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(batch):
            f(s)
        times.append((time.perf_counter() - start) / batch)
    times.sort()
    return times[len(times) // 2]


A = "a" * 10000
SPACE = r"[\x{9}-\x{D}\x{20}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}-\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}]"
# Pattern, its RE2 translation as ctxgen writes it, hostile input.
HOSTILE = [
    ("^(a+)+$", "^(?:a+)+$", A + "!"),
    ("(a|a)*$", "(?:a|a)*$", A + "!"),
    ("(a|aa)+$", "(?:a|aa)+$", A + "!"),
    (r"(\w+\s?)*$", r"(?:[0-9A-Z\x{5F}a-z]+" + SPACE + "?)*$", A + "!"),
    ("^(a*)*b$", "^(?:a*)*b$", A),
    ("(x+x+)+y", "(?:x+x+)+y", "x" * 10000),
    ("a*a*a*a*b", "a*a*a*a*b", A),
]
# Pattern, its Python translation as ctxgen writes it, its RE2 translation, ordinary input.
ORDINARY = [
    ("^[a-z]+$", r"^[a-z]+\Z", "^[a-z]+$", "hello"),
    (
        r"^\d{4}-\d{2}-\d{2}$",
        r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z",
        r"^[0-9]{4}\x{2D}[0-9]{2}\x{2D}[0-9]{2}$",
        "2024-01-02",
    ),
    (
        "^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+){0,4}$",
        r"^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+){0,4}\Z",
        r"^[\x{2D}0-9A-Z\x{5F}a-z]+(?:\x{2F}[\x{2D}0-9A-Z\x{5F}a-z]+){0,4}$",
        "abc/def_g/hij",
    ),
    (r"\.json$", r"\.json\Z", r"\x{2E}json$", "schema.json"),
]


def main() -> None:
    print("hostile input, 10,000 characters (google-re2, the generated code's engine):")
    for p, t, s in HOSTILE:
        linear = Pattern(t, linear=True)
        linear.search("")  # compiles outside the timing
        print(f"  {p:<14} {per_call(3, 1, linear.search, s) * 1e3:10.3f} ms")
    # The regex module cuts some nested loops short (`^(a+)+$`) but not overlapping ones.
    before = Pattern(r"(a|aa)+\Z")
    short = "a" * 28 + "!"
    print(
        f"  (a|aa)+$ with regex on 28 characters (before): {per_call(1, 1, before.search, short) * 1e3:.1f} ms"
    )
    print("ordinary input, per call (regex, kept for these, vs google-re2):")
    for p, py, t, s in ORDINARY:
        native = Pattern(py)
        linear = Pattern(t, linear=True)
        n = per_call(9, 20000, native.search, s) * 1e9
        r = per_call(9, 20000, linear.search, s) * 1e9
        print(f"  {p:<40} regex {n:6.0f} ns   google-re2 {r:6.0f} ns")


if __name__ == "__main__":
    main()
