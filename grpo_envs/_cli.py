"""The `grpo-envs` command line: a dispatcher. Each package owns its commands (`grpo_envs`:
envs, serve, doctor; `verifiers`: sandbox, check-verifier; `trainer`: train, eval, audit) as a
``main(argv) -> int``; this module names them and imports the one asked for, so no package
imports a package above it. Third-party packages add commands through the entry-point group
``grpo_envs.commands`` (name = ``module:function``; the first docstring line is its help).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata as md
import os
import sys
from collections.abc import Callable, Sequence

import grpo_envs

__all__ = ["COMMANDS", "main"]

COMMANDS: dict[str, tuple[str, str]] = {
    "doctor": (
        "grpo_envs._commands:doctor_main",
        "show what this machine offers the SDK; exit 1 if something is missing",
    ),
    "sandbox": ("verifiers._cli:sandbox_main", "manage the code sandbox"),
    "envs": ("grpo_envs._commands:envs_main", "list the registered environments or show one"),
    "train": ("trainer.cli:main", "train with GRPO (see `grpo-envs train --help`)"),
    "eval": ("trainer.eval._cli:main", "a model on an environment: pass@k and maj@k with 95%% intervals"),
    "audit": (
        "trainer.audit._cli:main",
        "re-judge stored samples with a second opinion; where verdicts disagree, grouped by pattern",
    ),
    "serve": ("grpo_envs._commands:serve_main", "an HTTP reward server for OpenRLHF and other trainers"),
    "tasks": (
        "grpo_envs._cli:tasks_main",
        "tasks: `tasks check DIR...`, `tasks attack DIR...` and `tasks init NAME` (Harbor folders), "
        "`tasks from-repo PATH --out DIR`",
    ),
    "check-verifier": (
        "verifiers._cli:check_verifier_main",
        "run the verifier laws (verifiers.testing) on MODULE:FUNCTION; exit 1 if one fails",
    ),
}
"""Command name -> (``module:function``, one line of help)."""


def _commands() -> dict[str, tuple[str, str]]:
    found = dict(COMMANDS)
    for ep in md.entry_points(group="grpo_envs.commands"):
        found.setdefault(ep.name, (ep.value, f"(from {ep.dist.name if ep.dist else ep.module})"))
    return found


def _resolve(target: str) -> Callable[[list[str]], int]:
    module, _, name = target.partition(":")
    function: Callable[[list[str]], int] = getattr(importlib.import_module(module), name)
    return function


TASKS = {
    "check": "verifiers.agentic._cli:tasks_main",
    "init": "verifiers.agentic._cli:tasks_main",
    "attack": "verifiers.agentic._cli:tasks_main",
    "from-repo": "grpo_envs.repotasks._cli:tasks_main",
}
"""``grpo-envs tasks`` subcommand -> the ``module:function`` that parses it (Harbor folders live in
`verifiers.agentic`, tasks made from a repository in `grpo_envs.repotasks`)."""


def tasks_main(argv: list[str]) -> int:
    """``grpo-envs tasks check|attack|init|from-repo ...``: hands the arguments to the subcommand's owner."""
    if argv and argv[0] in TASKS:
        return _resolve(TASKS[argv[0]])(argv)
    if argv and argv[0] not in ("-h", "--help"):
        print(
            f"grpo-envs tasks: error: unknown subcommand {argv[0]!r}: choose from {', '.join(TASKS)}", file=sys.stderr
        )
        return 2
    print(
        "usage: grpo-envs tasks {check,attack,init,from-repo} ...\n\n"
        "  check DIR...          a task's reference solution must score 1 and no action 0\n"
        "  attack DIR...         the gaming suite: no scripted attack may be judged correct\n"
        "  init NAME             write a small working Harbor task folder to edit\n"
        "  from-repo PATH --out DIR\n"
        "                        break a project's code, keep the bugs its tests catch, write task folders",
        file=sys.stderr if argv[:1] != ["--help"] and argv[:1] != ["-h"] else sys.stdout,
    )
    return 0 if argv else 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status.

    Examples:
        >>> main(["--version"])  # doctest: +SKIP
        grpo-envs 0.1.0
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = _commands()
    if argv and argv[0] in commands:
        target = commands[argv[0]][0]
        try:
            run = _resolve(target)
        except ImportError as exc:
            extra = " (pip install 'grpo-envs[train]')" if argv[0] == "train" else ""
            print(f"grpo-envs {argv[0]}: error: cannot load {target}: {exc}{extra}", file=sys.stderr)
            return 2
        try:
            status = run(argv[1:])
            sys.stdout.flush()  # a pipe's reader that left shows here, not at exit
            return status
        except BrokenPipeError:  # `grpo-envs envs show ID | head`: the reader left; no traceback
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141
    parser = argparse.ArgumentParser(
        prog="grpo-envs", description="Reasoning environments, verifiable rewards and a GRPO trainer."
    )
    parser.add_argument("--version", action="version", version=f"grpo-envs {grpo_envs.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in commands.items():
        sub.add_parser(name, help=help_text, add_help=False)
    parser.parse_args(argv)  # --version, --help and unknown commands end here
    parser.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
