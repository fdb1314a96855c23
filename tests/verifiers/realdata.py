"""The real data beside the checkout (``../shared/realdata``), for the tests that measure on it:
missing fails under CI (CI must measure on it) and skips, visibly, elsewhere."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2].parent / "shared" / "realdata"


def rows(relative: str) -> list[dict[str, Any]]:
    """Every JSONL row of ``../shared/realdata/<relative>``."""
    path = ROOT / relative
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing: CI must measure on the real data")
        pytest.skip(f"{path} is not here (it sits beside the checkout in ../shared)")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def broken(code: str, value: str = "None") -> str:
    """``code`` with every ``return x`` turned into ``return <value>``: a program that must fail."""
    return re.sub(r"\breturn[ \t]+[^\n]+", f"return {value}", code)
