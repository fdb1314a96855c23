"""Every code block of the README and of docs/ runs, taken from the files themselves.

Python blocks run as a script in a fresh process, statement by statement: a statement whose
comment starts with a Python literal (``vm.verify("5", "5").correct  # True``) is checked against
it. Shell blocks run with ``bash -e``, TOML blocks are parsed. A page's blocks run in order in one
empty folder outside the clone (files the docs use are shipped: ``--config demo``), as a user
would: the installed console scripts on PATH, no PYTHONPATH, no hub. The line above a
block may say how else it is covered: ``<!-- no-run: reason -->``, ``<!-- run-by: tests/x.py -->``
(a test that reads this page) or ``<!-- file: NAME -->`` (saved as NAME for the later blocks).
Output is fenced as ``text``. A code block that is neither run nor marked fails the first test.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))]
RUN = {"python", "bash", "toml"}
OUTPUT = {"text"}
_FENCE = re.compile(r"^```([A-Za-z]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
_MARK = re.compile(r"<!--\s*(no-run|run-by|file):\s*(.*?)\s*-->\s*$")
DOCKER_PAGES = {"docs/verifiers/code.md", "docs/sandbox.md"}
SLOW_PAGES = {"docs/training.md", "docs/evaluation.md", "docs/testing-kit.md", "docs/audit.md"}


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    language: str
    code: str
    mark: str = ""  # no-run | run-by | file
    value: str = ""  # the mark's reason, test file or file name

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def blocks(page: str) -> list[Block]:
    """The fenced blocks of ``page``, with the marker on the line above each."""
    text = (ROOT / page).read_text()
    out = []
    for m in _FENCE.finditer(text):
        line = text[: m.start()].count("\n") + 1
        above = text[: m.start()].rstrip("\n").rsplit("\n", 2)[-2:]  # a marker may share with a named one
        mark = next((found for found in map(_MARK.search, reversed(above)) if found), None)
        out.append(Block(page, line, m.group(1), m.group(2), *(mark.groups() if mark else ("", ""))))
    return out


ALL = [b for page in PAGES for b in blocks(page)]


def test_every_code_block_is_run_or_marked() -> None:
    wrong = []
    for b in ALL:
        if b.mark == "no-run" and not b.value:
            wrong.append(f"{b.where}: no-run needs a reason")
        elif b.mark == "run-by":
            test = ROOT / b.value
            if not (test.is_file() and b.page.split("/")[-1] in test.read_text()):
                wrong.append(f"{b.where}: run-by {b.value} is not a test that reads {b.page}")
        elif b.mark == "file" and not re.fullmatch(r"[\w.-]+", b.value):
            wrong.append(f"{b.where}: file: needs a plain file name, got {b.value!r}")
        elif not b.mark and b.language not in RUN | OUTPUT:
            wrong.append(f"{b.where}: a ```{b.language or '(no language)'} block is neither run nor marked")
    assert wrong == [], "\n".join(wrong)
    assert len([b for b in ALL if not b.mark and b.language in RUN]) >= 15  # the collection works


# Runs one python block: statement by statement, each literal comment checked.
DRIVER = r"""
import ast, re, sys
source = open(sys.argv[1]).read()
lines = source.splitlines()

def stated(comment):
    for text in [comment] + [comment[: m.start()] for m in re.finditer(r" \(", comment)][::-1]:
        try:
            return True, ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            continue
    return False, None

namespace = {"__name__": "__main__"}
for node in ast.parse(source).body:
    last = lines[node.end_lineno - 1]
    is_output, expected = stated(last.split("  # ", 1)[1]) if "  # " in last else (False, None)
    code = ast.get_source_segment(source, node)
    if isinstance(node, ast.Expr) and is_output:
        got = eval(compile(ast.Expression(node.value), "block", "eval"), namespace)
        if got != expected:
            sys.exit(f"line {node.lineno}: {code} gives {got!r}, the page says {expected!r}")
    else:
        exec(compile(ast.Module([node], []), "block", "exec"), namespace)
"""


def _user_env() -> dict[str, str]:
    """A user's shell: this virtualenv's scripts first on PATH, no PYTHONPATH, no hub."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return {**env, "HF_HUB_OFFLINE": "1", "MPLBACKEND": "Agg"}


def _run(b: Block, folder: Path) -> None:
    if b.language == "toml":
        tomllib.loads(b.code)
        return
    script = folder / f"block_{b.line}.{'py' if b.language == 'python' else 'sh'}"
    script.write_text(b.code)
    if b.language == "python":
        (folder / "_driver.py").write_text(DRIVER)
        cmd = [sys.executable, str(folder / "_driver.py"), str(script)]
    else:
        cmd = ["bash", "-e", "-o", "pipefail", str(script)]
    done = subprocess.run(cmd, cwd=folder, env=_user_env(), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{b.where} failed:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"


def _marks(page: str) -> list[Any]:
    return [pytest.mark.docker] * (page in DOCKER_PAGES) + [pytest.mark.slow] * (page in SLOW_PAGES)


@pytest.mark.parametrize("page", [pytest.param(p, marks=_marks(p), id=p) for p in PAGES])
def test_the_pages_code_blocks_run(page: str, tmp_path: Path) -> None:
    ran = 0
    for b in blocks(page):
        if b.mark == "file":
            (tmp_path / b.value).write_text(b.code)
        elif not b.mark and b.language in RUN:
            _run(b, tmp_path)
            ran += 1
    if ran == 0:
        pytest.skip(f"{page} has no block to run here")
