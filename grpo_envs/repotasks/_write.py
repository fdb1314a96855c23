"""A validated bug as a Harbor task folder, written through `verifiers.agentic` (an `AgenticTask`
and its `write_task`), so ``grpo-envs tasks check`` and `verifiers.agentic.load_tasks` read it::

    instruction.md          the symptom by rule: failing tests and their first message lines
    task.toml               [metadata]: difficulty signal and the split key (the mutated file);
                            [verifier] separate mode, artifact /app; [environment] no network
    environment/Dockerfile  FROM the task base; the project's test dependencies (wheels, if any)
                            installed offline; then the broken project copied to /app
    environment/wheels/     the project's test dependencies as wheels (only when it has some)
    environment/project/    the broken project: no .git, no bytecode caches, no original copy
    tests/test.sh           restores the project's test files and configs, runs the suite with
                            JUnit XML and counts each named test by name
    tests/required_tests.txt  the fail-to-pass and pass-to-pass tests (named-test rule of #53)
    solution/solve.sh       applies the reverse patch (``patch -p1``, or a small Python applier)

One image per project, one thin layer per task: the wheel layers come first and are the same
bytes for every task of a project, so Docker's build cache shares them; only ``COPY project/``
differs. The project's own test files stay visible to the agent (SWE-style: they are how a
developer would reproduce the bug) and are restored from ``tests/project_tests/`` before judging,
with the project's pytest configuration, and any other ``conftest.py`` is removed, so editing or
adding test code gains nothing."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from verifiers.agentic import AgenticTask, Environment, Limits, Verifier, write_task

from ._mutate import Mutation
from ._validate import Validation

BASE_IMAGE = "grpo-envs-task-base"
"""The ``FROM`` name of written tasks: map it to ``build_task_base_image()`` (``--base-image``)."""
APP = "/app"
CONFIGS = ("pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml", "conftest.py")
"""Files that steer pytest: restored with the test files before judging."""

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

# One { } block: bash parses it whole before running it, so code the tests import cannot
# rewrite what runs next. APP and LOGS may be set to judge a folder on the host (tests do).
_TEST_SH = """#!/bin/bash
{{
APP="${{APP:-{app}}}"
HERE="$(cd "$(dirname "$0")" && pwd)"
LOGS="${{LOGS:-/logs/verifier}}"
mkdir -p "$LOGS"
rm -f "$LOGS/reward.txt" "$LOGS/reward.json" "$LOGS/junit.xml"
# stray pytest plugins and start-up hooks the agent may have added never run
find "$APP" \\( -name conftest.py -o -name sitecustomize.py -o -name usercustomize.py -o -name '*.pth' \\) -delete
cp -r "$HERE/project_tests/." "$APP/"
# no bytecode from before judging: a stale or planted .pyc would stand in for the source
find "$APP" -name __pycache__ -prune -exec rm -rf {{}} +
REPORT="$(mktemp -d)"
# the project's code runs as nobody where the verifier may switch to it: it can then neither
# rewrite this script nor kill it, nor write the verdict's files
AS=""
if setpriv --reuid=65534 --regid=65534 --clear-groups ls "$APP" >/dev/null 2>&1; then
  AS="setpriv --reuid=65534 --regid=65534 --clear-groups"; chmod 777 "$REPORT"
fi
cd "$APP" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$APP:$APP/src" HOME=/tmp $AS {runner} \\
  --junitxml="$REPORT/junit.xml" > "$LOGS/run.log" 2>&1
cp "$REPORT/junit.xml" "$LOGS/junit.xml" 2>/dev/null
python3 - "$REPORT/junit.xml" "$HERE/expected.json" > "$LOGS/reward.txt" <<'EOF'
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
exit 0
}}
"""

PYTEST = "python3 -m pytest -p no:cacheprovider -q -o junit_family=xunit1"

_SOLVE = """#!/bin/bash
HERE="$(cd "$(dirname "$0")" && pwd)"
cd "${{APP:-{app}}}"
if command -v patch >/dev/null; then patch -p1 < "$HERE/fix.patch";
else python3 "$HERE/apply.py" "$HERE/fix.patch"; fi
"""


def _tree(root: Path, prefix: str) -> dict[str, bytes]:
    """The project tree's files without version control, caches or bytecode, under ``prefix``."""
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part in _SKIP or part.endswith(".egg-info") for part in rel.parts) or not path.is_file():
            continue
        if path.suffix in (".pyc", ".pyo") or path.is_symlink():
            continue
        out[f"{prefix}{rel.as_posix()}"] = path.read_bytes()
    return out


def dockerfile(wheels: Sequence[str] = (), *, image: str = BASE_IMAGE) -> str:
    """The task's Dockerfile: the base, the wheels named (files under ``environment/wheels/``)
    installed offline, then the project. Every task of a project shares all but the last layer."""
    lines = [f"FROM {image}"]
    if wheels:
        lines += [
            "COPY wheels/ /tmp/wheels/",
            "RUN python3 -m pip install --no-index --no-deps --break-system-packages /tmp/wheels/*.whl"
            " && rm -rf /tmp/wheels",
        ]
    return "\n".join([*lines, f"WORKDIR {APP}", "COPY project/ /app/", ""])


def instruction(validation: Validation) -> str:
    """The symptom as a user would report it, by rule: the failing tests and the first line of
    each one's message; never test source, never the fix."""
    rows = [
        f"- `{name}`" + (f": {msg}" if msg else "")
        for name, msg in zip(validation.fail_to_pass, validation.messages, strict=True)
    ]
    return (
        f"# Some tests of this project fail\n\nThe project is in `{APP}`. These tests used to pass and now fail:\n\n"
        + "\n".join(rows)
        + "\n\nFind the bug in the project's code and fix it so that they pass again, without breaking"
        " the tests that pass now. Changing the test files does not help: they are restored before"
        " judging.\n"
    )


def repair_task(
    name: str,
    project: Path,
    mutation: Mutation,
    validation: Validation,
    *,
    test_files: Sequence[str],
    image: str = BASE_IMAGE,
    runner: str = PYTEST,
    wheels: Sequence[Path] = (),
    metadata: dict[str, object] | None = None,
) -> AgenticTask:
    """The validated bug ``mutation`` of ``project`` as an `AgenticTask` named ``name``;
    ``test_files`` (relative paths) and the project's pytest configs are restored before judging,
    ``wheels`` are the project's test dependencies, installed offline into its image."""
    context = _tree(project, "project/")
    context[f"project/{mutation.path}"] = mutation.source.encode()
    context |= {f"wheels/{w.name}": w.read_bytes() for w in wheels}
    restored = sorted({*test_files, *(c for c in CONFIGS if (project / c).is_file())})
    tests = {f"project_tests/{t}": (project / t).read_bytes() for t in restored}
    tests["expected.json"] = json.dumps([*validation.fail_to_pass, *validation.pass_to_pass], indent=1).encode()
    tests["test.sh"] = _TEST_SH.format(app=APP, runner=runner).encode()
    return AgenticTask(
        name=name,
        instruction=instruction(validation),
        environment=Environment(dockerfile=dockerfile(sorted(w.name for w in wheels), image=image), context=context),
        verifier=Verifier(
            tests=tests, artifacts=(APP,), required_tests=(*validation.fail_to_pass, *validation.pass_to_pass)
        ),
        solution={
            "solve.sh": _SOLVE.format(app=APP).encode(),
            "fix.patch": mutation.reverse.encode(),
            "apply.py": _APPLY.lstrip().encode(),
        },
        limits=Limits(agent_timeout_s=1800.0, verifier_timeout_s=600.0, memory_mb=2048, network_mode="none"),
        metadata={
            "source": "grpo-envs tasks from-repo",
            "split_key": mutation.path,
            "technique": mutation.technique,
            "entity": mutation.entity,
            "tests_failing": len(validation.fail_to_pass),
            "lines_changed": mutation.lines_changed,
            "entities_touched": 1 + mutation.entity.count("+"),
            **(metadata or {}),
        },
    )


def write_repair_task(
    out: Path,
    project: Path,
    mutation: Mutation,
    validation: Validation,
    *,
    test_files: Sequence[str],
    image: str = BASE_IMAGE,
    runner: str = PYTEST,
    wheels: Sequence[Path] = (),
    metadata: dict[str, object] | None = None,
) -> Path:
    """Write one validated task to the Harbor folder ``out`` (which must not exist yet); see
    `repair_task`. Returns ``out``."""
    out = Path(out)
    task = repair_task(
        out.name, project, mutation, validation,
        test_files=test_files, image=image, runner=runner, wheels=wheels, metadata=metadata,
    )  # fmt: skip
    return write_task(task, out.parent)
