"""A validated bug as a Harbor-style task folder (a plain writer; the lead can later point it at
the Harbor task format of issue 53)::

    instruction.md          the symptom by rule: failing tests and their first message lines
    task.toml               metadata: difficulty signal and the split key (the mutated file)
    environment/Dockerfile  FROM the project's image, the broken project copied to /app
    environment/project/    the broken project: no .git, no bytecode caches, no original copy
    tests/test.sh           restores the project's test files, runs the suite with JUnit XML and
                            counts each named test by name (a test missing from the report fails)
    solution/solve.sh       applies the reverse patch (``patch -p1``, or a small Python applier)

The project's own test files stay visible to the agent (SWE-style: they are how a developer would
reproduce the bug) and are restored from ``tests/project_tests/`` before judging, so editing them
gains nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from ._mutate import Mutation
from ._validate import Verdict

_SKIP = {".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".venv", ".coverage"}

_APPLY = r"""
import re, sys
patch = open(sys.argv[1]).read().splitlines(keepends=True)
path = next(row[6:].strip() for row in patch if row.startswith("+++ b/"))
lines = open(path).read().splitlines(keepends=True)
out, at, i = [], 0, 0
while i < len(patch):
    head = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", patch[i])
    i += 1
    if not head:
        continue
    start = int(head.group(1)) - (0 if head.group(2) == "0" else 1)
    out += lines[at:start]
    at = start
    while i < len(patch) and not patch[i].startswith("@@"):
        row, i = patch[i], i + 1
        if row.startswith("\\"):
            out[-1] = out[-1].rstrip("\n")
        elif row[:1] in " -":
            assert lines[at].rstrip("\n") == row[1:].rstrip("\n"), "patch does not apply"
            at += 1
            if row[0] == " ":
                out.append(lines[at - 1])
        elif row[:1] == "+":
            out.append(row[1:])
out += lines[at:]
open(path, "w").write("".join(out))
"""

_TEST_SH = """#!/bin/bash
# Judge: restore the project's test files, run the suite, count each named test by name.
APP="${{APP:-/app}}"
HERE="$(cd "$(dirname "$0")" && pwd)"
LOGS="${{LOGS:-/logs/verifier}}"
mkdir -p "$LOGS"
cp -r "$HERE/project_tests/." "$APP/"
# no bytecode from before judging: a stale or planted .pyc would stand in for the source
find "$APP" -name __pycache__ -prune -exec rm -rf {{}} +
cd "$APP" && PYTHONDONTWRITEBYTECODE=1 {runner} > "$LOGS/run.log" 2>&1
python3 - "$LOGS/report.xml" "$HERE/expected.json" > "$LOGS/reward.txt" <<'EOF'
import json, sys, xml.etree.ElementTree as ET
try:
    cases = list(ET.parse(sys.argv[1]).getroot().iter("testcase"))
except (OSError, ET.ParseError):
    cases = []
seen = {{}}
for c in cases:
    key = c.get("classname", "") + "::" + c.get("name", "") if c.get("classname") else c.get("name", "")
    bad = any(c.find(t) is not None for t in ("failure", "error", "skipped"))
    seen[key] = seen.get(key, True) and not bad
names = json.load(open(sys.argv[2]))
print(1 if names and all(seen.get(n) is True for n in names) else 0)
EOF
cat "$LOGS/reward.txt"
"""

PYTEST = 'python3 -m pytest -p no:cacheprovider -q --junitxml="$LOGS/report.xml"'


def _copy_project(root: Path, dest: Path) -> None:
    """The project tree without version control, caches or bytecode."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if n in _SKIP or n.endswith((".pyc", ".pyo", ".egg-info"))}

    shutil.copytree(root, dest, ignore=ignore)


def instruction(verdict: Verdict) -> str:
    """The symptom as a user would report it, by rule: the failing tests and the first line of
    each one's message; never test source, never the fix."""
    rows = [
        f"- `{name}`" + (f": {msg}" if msg else "")
        for name, msg in zip(verdict.fail_to_pass, verdict.messages, strict=True)
    ]
    return (
        "# Some tests of this project fail\n\nThe project is in `/app`. These tests used to pass and now fail:\n\n"
        + "\n".join(rows)
        + "\n\nFind the bug in the project's code and fix it so that they pass again, without breaking"
        " the tests that pass now. Changing the test files does not help: they are restored before"
        " judging.\n"
    )


def write_task(
    out: Path,
    project: Path,
    mutation: Mutation,
    verdict: Verdict,
    *,
    test_files: list[str],
    image: str,
    runner: str = PYTEST,
) -> Path:
    """Write one validated task to folder ``out`` (which must not exist yet); ``test_files`` are the
    project's test files (relative paths) restored before judging. Returns ``out``."""
    env = out / "environment"
    _copy_project(project, env / "project")
    (env / "project" / mutation.path).write_text(mutation.source)
    (env / "Dockerfile").write_text(f"FROM {image}\nCOPY project/ /app/\nWORKDIR /app\n")
    tests = out / "tests"
    for name in test_files:
        (tests / "project_tests" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(project / name, tests / "project_tests" / name)
    (tests / "expected.json").write_text(json.dumps([*verdict.fail_to_pass, *verdict.pass_to_pass], indent=1))
    (tests / "test.sh").write_text(_TEST_SH.format(runner=runner))
    solution = out / "solution"
    solution.mkdir()
    (solution / "fix.patch").write_text(mutation.reverse)
    (solution / "apply.py").write_text(_APPLY.lstrip())
    (solution / "solve.sh").write_text(
        '#!/bin/bash\nHERE="$(cd "$(dirname "$0")" && pwd)"\ncd "${APP:-/app}"\n'
        'if command -v patch >/dev/null; then patch -p1 < "$HERE/fix.patch";\n'
        'else python3 "$HERE/apply.py" "$HERE/fix.patch"; fi\n'
    )
    for script in (tests / "test.sh", solution / "solve.sh"):
        script.chmod(0o755)
    (out / "instruction.md").write_text(instruction(verdict))
    (out / "task.toml").write_text(_toml(mutation, verdict))
    return out


def _toml(mutation: Mutation, verdict: Verdict) -> str:
    """``task.toml``: the difficulty signal and the split key (the file, so near-duplicates of one
    file never straddle train and eval)."""
    return (
        'version = "1.0"\n\n[metadata]\nsource = "grpo-envs tasks from-repo"\n'
        f"split_key = {json.dumps(mutation.path)}\ntests_failing = {len(verdict.fail_to_pass)}\n"
        f"lines_changed = {mutation.lines_changed}\nentities_touched = 1\n\n"
        "[verifier]\ntimeout_sec = 600.0\n\n[agent]\ntimeout_sec = 1800.0\n"
    )
