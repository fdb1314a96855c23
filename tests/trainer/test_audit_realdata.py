"""docs/audit.md's walk-through on the real data: its ``grpo-envs audit`` command on
``../shared/realdata`` (from the checkout, as the page says), and every line of the table the page
shows is in what the command prints (Math-Verify's version aside). Without the real data: skipped
here, failed under CI (tests/verifiers/realdata.py)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.verifiers.realdata import rows

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "audit.md"


def walkthrough() -> tuple[list[str], list[str]]:
    """The page's real-data command (as words) and the table shown after it (as lines)."""
    after = PAGE.read_text().split("<!-- run-by: tests/trainer/test_audit_realdata.py -->", 1)[1]
    command = re.search(r"```bash\n(.*?)```", after, re.S)
    table = re.search(r"```text\n(.*?)```", after, re.S)
    assert command is not None and table is not None
    return shlex.split(command.group(1)), table.group(1).splitlines()


def same_version(line: str) -> str:
    return re.sub(r"math-verify \d+(\.\d+)*", "math-verify V", line).rstrip()


@pytest.mark.slow
def test_the_pages_walkthrough_runs_on_the_real_data_and_prints_its_table(tmp_path: Path) -> None:
    pytest.importorskip("math_verify")  # the dev extra installs it (the command's default second opinion)
    rows("math/longcot_skyt1_aime_amc.jsonl")  # here, or skipped (failed under CI)
    words, shown = walkthrough()
    assert words[:2] == ["grpo-envs", "audit"] and "--out" in words
    words[words.index("--out") + 1] = str(tmp_path / "out")
    done = subprocess.run(
        [sys.executable, "-m", "grpo_envs._cli", *words[1:], "--no-progress"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    printed = {same_version(line) for line in done.stdout.splitlines()}
    missing = [line for line in shown if same_version(line) not in printed]
    assert missing == [], done.stdout
    assert len(shown) >= 14  # the summary, the header and four groups of three lines
