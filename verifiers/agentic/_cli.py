"""``grpo-envs tasks check DIR...``, ``grpo-envs tasks attack DIR...`` and ``grpo-envs tasks init NAME``."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verifiers.agentic._check import check_task
from verifiers.agentic._harbor import read_task, write_task
from verifiers.agentic._log import EpisodeLog, write_jsonl
from verifiers.agentic._task import AgenticTask, Environment, Limits, Verifier
from verifiers.commandline import CommandParser
from verifiers.errors import TaskFormatError

__all__ = ["TASK_BASE", "scaffold", "tasks_main"]

TASK_BASE = "grpo-envs-task-base"
"""The ``FROM`` name scaffolded tasks use: map it to a local image with ``--base-image``."""

_TEST_SH = """#!/bin/bash
# Runs in a fresh verifier container after the agent's turn; only /work/hello.txt is carried over.
if [ "$(cat /work/hello.txt 2>/dev/null)" = "hello" ]; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""


def scaffold(name: str) -> AgenticTask:
    """A small working task named ``name`` to edit: write ``hello`` to ``/work/hello.txt``."""
    return AgenticTask(
        name=name,
        instruction="Write the word hello (and a newline) to /work/hello.txt.\n",
        environment=Environment(dockerfile=f"FROM {TASK_BASE}\nWORKDIR /work\n"),
        verifier=Verifier(tests={"test.sh": _TEST_SH.encode()}, artifacts=("/work/hello.txt",)),
        solution={"solve.sh": b"#!/bin/bash\necho hello > /work/hello.txt\n"},
        limits=Limits(agent_timeout_s=60.0, verifier_timeout_s=60.0, memory_mb=512, network_mode="none"),
        metadata={"difficulty": "easy", "category": "shell"},
    )


def _common(sub: Any) -> None:
    sub.add_argument("dirs", nargs="+", metavar="DIR", help="a task folder, or a folder of task folders")
    sub.add_argument("--json", action="store_true", help="print one JSON line per task")
    sub.add_argument(
        "--base-image",
        action="append",
        default=[],
        metavar="NAME=IMAGE",
        help="build FROM NAME on the local IMAGE (repeatable); nothing is pulled",
    )
    sub.add_argument("--log", metavar="FILE", help="append each episode's commands to FILE as JSON lines")


def tasks_main(argv: Sequence[str]) -> int:
    """``grpo-envs tasks check|attack DIR... [--json] [--base-image NAME=IMAGE] [--log FILE]``,
    ``grpo-envs tasks init NAME``."""
    parser = CommandParser(prog="grpo-envs tasks", description="agentic tasks in the Harbor format")
    commands = parser.add_subparsers(dest="tasks_command", metavar="TASKS_COMMAND")
    _common(commands.add_parser("check", help="the reference solution must score 1 and no action 0"))
    attack = commands.add_parser("attack", help="the gaming suite: no scripted attack may be judged correct")
    _common(attack)
    attack.add_argument(
        "--attack", action="append", default=[], metavar="NAME", help="run only this attack (repeatable)"
    )
    attack.add_argument("--workers", type=int, default=2, help="attacks run at a time (default 2)")
    init = commands.add_parser("init", help="write a small working task folder to edit")
    init.add_argument("name", help="the task's folder (made under the current folder)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="grpo-envs: %(message)s", stream=sys.stderr)
    if args.tasks_command == "init":
        try:
            folder = write_task(scaffold(Path(args.name).name), Path(args.name).parent)
        except (FileExistsError, ValueError) as exc:
            print(f"grpo-envs tasks init: {exc}", file=sys.stderr)
            return 2
        print(f"wrote {folder}; check it with: grpo-envs tasks check {folder} --base-image {TASK_BASE}=IMAGE")
        return 0
    bases = dict(b.split("=", 1) for b in args.base_image if "=" in b)
    if len(bases) != len(args.base_image):
        print(f"grpo-envs tasks {args.tasks_command}: --base-image takes NAME=IMAGE", file=sys.stderr)
        return 2
    if args.tasks_command == "attack":
        return _attack(args.dirs, bases, args)
    if args.tasks_command != "check":
        parser.print_help(sys.stderr)
        return 2
    return _check(args.dirs, bases, args.json, args.log)


def _folders(dirs: Sequence[str]) -> list[Path]:
    out: list[Path] = []
    for d in map(Path, dirs):
        out += (
            [d]
            if (d / "instruction.md").is_file()
            else sorted(p for p in d.iterdir() if (p / "instruction.md").is_file())
        )
    return out


def _check(dirs: Sequence[str], bases: dict[str, str], as_json: bool, log: str | None) -> int:
    failed = 0
    for folder in _folders(dirs):
        try:
            result = check_task(read_task(folder), base_images=bases)
            row = result.as_json()
            logs: Sequence[EpisodeLog] = result.logs
        except TaskFormatError as exc:
            row = {"task": folder.name, "ok": False, "reason": str(exc), "build_s": 0.0, "oracle": None, "nop": None}
            logs = ()
        if log:
            write_jsonl(logs, log)
        failed += not row["ok"]
        if as_json:
            print(json.dumps(row), flush=True)
        else:
            print(
                f"{'ok  ' if row['ok'] else 'FAIL'} {row['task']}  build {row['build_s']:.1f} s  {row['reason']}",
                flush=True,
            )
    return 1 if failed else 0


def _attack(dirs: Sequence[str], bases: dict[str, str], args: Any) -> int:
    from verifiers.testing import ATTACKS, attack_tasks

    chosen = [a for a in ATTACKS if a.name in args.attack] if args.attack else list(ATTACKS)
    unknown = set(args.attack) - {a.name for a in ATTACKS}
    if unknown:
        print(f"grpo-envs tasks attack: no attack {sorted(unknown)[0]!r}; known: {', '.join(a.name for a in ATTACKS)}",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        tasks = [read_task(folder) for folder in _folders(dirs)]
    except TaskFormatError as exc:
        print(f"grpo-envs tasks attack: {exc}", file=sys.stderr)
        return 2
    report = attack_tasks(tasks, attacks=chosen, base_images=bases, workers=args.workers)
    if args.log:
        write_jsonl([r.log for r in report.results], args.log)
    for row in report.task_rows():
        if args.json:
            print(json.dumps(row), flush=True)
        else:
            verdict = "ok  " if row["ok"] else "FAIL"
            print(f"{verdict} {row['task']}  {row['seconds']:.1f} s  {row['reason']}", flush=True)
    return 0 if report.ok else 1
