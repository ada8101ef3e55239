"""Shared fixtures of the Python binding tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"


def load_json(path: Path) -> Any:
    """Reads a JSON file."""
    return json.loads(path.read_text(encoding="utf-8"))


def pytest_configure(config: Any) -> None:
    """Registers the ``native`` marker: tests that need the native accelerator switched on."""
    config.addinivalue_line(
        "markers", "native: needs the native accelerator on (not CTXGEN_NATIVE=0)"
    )
