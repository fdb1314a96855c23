"""``grpo-envs tasks from-repo PATH --out DIR``: validated repair tasks from a Python project."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence

from grpo_envs.errors import GrpoEnvsError
from verifiers.commandline import CommandParser, add_no_progress

from ._from_repo import from_repo


def tasks_main(argv: Sequence[str]) -> int:
    """``grpo-envs tasks from-repo PATH --out DIR [--max-tasks N] [--budget-s S] [--workers W]``."""
    parser = CommandParser(prog="grpo-envs tasks", description="repair tasks from a project's own tests")
    commands = parser.add_subparsers(dest="tasks_command", metavar="TASKS_COMMAND")
    make = commands.add_parser("from-repo", help="break PATH's code, keep the bugs its tests catch, write task folders")
    make.add_argument("path", metavar="PATH", help="the project's root (its tests run with pytest)")
    make.add_argument("--out", required=True, help="folder the task folders are written into")
    make.add_argument("--max-tasks", type=int, default=10, help="stop after this many tasks (default 10)")
    make.add_argument("--budget-s", type=float, default=300.0, help="time budget in seconds (default 300)")
    make.add_argument("--workers", type=int, default=2, help="candidates validated at once (default 2)")
    make.add_argument("--seed", type=int, default=0, help="which mutation sites are chosen (default 0)")
    make.add_argument("--combined", type=int, default=2, help="more tasks, each two kept bugs of one file (default 2)")
    make.add_argument("--clean-runs", type=int, default=3, help="clean runs that find flaky tests (default 3)")
    make.add_argument(
        "--wheels", metavar="DIR", help="the project's test dependencies as wheels (default: downloaded on the host)"
    )
    make.add_argument(
        "--whole-suite", action="store_true", help="run every test per candidate, not only the tests that cover it"
    )
    add_no_progress(make, "no progress output (this command logs its summary only)")
    args = parser.parse_args(argv)
    if args.tasks_command != "from-repo":
        parser.print_help(sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="grpo-envs: %(message)s", stream=sys.stderr)
    try:
        report = from_repo(
            args.path, args.out, max_tasks=args.max_tasks, budget_s=args.budget_s, workers=args.workers,
            seed=args.seed, combined=args.combined, clean_runs=args.clean_runs, coverage=not args.whole_suite,
            wheels=args.wheels,
        )  # fmt: skip
    except GrpoEnvsError as exc:
        print(f"grpo-envs tasks: error: {exc}", file=sys.stderr)
        return 1
    print(
        f"{len(report.tasks)} tasks in {args.out}: {report.tried} candidates tried, {report.kept} kept, "
        f"{report.duplicates} duplicates, {report.combined} combined, {len(report.flaky)} flaky tests left out,"
        f" {report.seconds:.0f} s"
    )
    return 0 if report.tasks else 1
