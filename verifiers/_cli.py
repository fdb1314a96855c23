"""The `verifiers` commands of `grpo-envs`: ``sandbox build-image``, ``sandbox prune-images`` and
``check-verifier``.

Each is a ``main(argv) -> int`` that the ``grpo-envs`` dispatcher (`grpo_envs._cli`) calls with
the arguments after the command's name.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import Any

from verifiers.commandline import CommandParser, add_no_progress

__all__ = ["check_verifier_main", "check_verifier_parser", "sandbox_main"]


def sandbox_main(argv: Sequence[str]) -> int:
    """``grpo-envs sandbox build-image [--offline] [--force]``, ``grpo-envs sandbox prune-images [--dry-run]``."""
    parser = CommandParser(prog="grpo-envs sandbox", description="manage the code sandbox")
    commands = parser.add_subparsers(dest="sandbox_command", metavar="SANDBOX_COMMAND")
    build = commands.add_parser("build-image", help="build the sandbox image (no-op when it exists)")
    build.add_argument(
        "--offline",
        action="store_true",
        help="build from a Debian root file system made by mmdebstrap; contact no registry",
    )
    build.add_argument("--force", action="store_true", help="rebuild even if the image exists")
    prune = commands.add_parser("prune-images", help="remove the task images that no container uses")
    prune.add_argument("--dry-run", action="store_true", help="only print what would be removed")
    args = parser.parse_args(argv)
    if args.sandbox_command not in ("build-image", "prune-images"):
        parser.print_help(sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="grpo-envs: %(message)s", stream=sys.stderr)
    if args.sandbox_command == "prune-images":
        return _prune_images(args.dry_run)
    return _build_image(args.offline, args.force)


def check_verifier_main(argv: Sequence[str]) -> int:
    """``grpo-envs check-verifier MODULE:FUNCTION [...]``: the verifier laws on the user's function."""
    args = check_verifier_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="grpo-envs: %(message)s", stream=sys.stderr)
    return _check_verifier(args)


def check_verifier_parser() -> argparse.ArgumentParser:
    """The flags of ``grpo-envs check-verifier``."""
    parser = CommandParser(
        prog="grpo-envs check-verifier",
        description="run the verifier laws (verifiers.testing) on MODULE:FUNCTION; exit 1 if one fails",
    )
    parser.add_argument(
        "target", metavar="MODULE:FUNCTION", help="verify(reference, completion), e.g. mypkg.rewards:verify"
    )
    parser.add_argument("--domain", default="math", help="math, code, or MODULE:NAME of a verifiers.testing.Domain")
    parser.add_argument("--examples", type=int, default=None, help="examples per law (default: the domain's)")
    parser.add_argument("--latency", type=float, default=3.0, help="seconds a call may take (default 3)")
    parser.add_argument("--reward-range", type=float, nargs=2, default=(0.0, 1.0), metavar=("LOW", "HIGH"))
    parser.add_argument("--law", action="append", dest="laws", default=None, help="run only this law (repeatable)")
    parser.add_argument(
        "--golds", default=None, metavar="FILE.jsonl", help="also check that each gold in this dataset equals itself"
    )
    parser.add_argument("--gold-key", default="answer", help="the JSONL field that holds the gold (default: answer)")
    parser.add_argument(
        "--gold-from",
        choices=("gsm8k", "boxed"),
        default=None,
        help="the field is a full solution: its answer after #### or in its last \\boxed{}",
    )
    add_no_progress(parser, "no progress output (check-verifier prints its table only at the end)")
    return parser


def _load(target: str, what: str) -> object:
    """``module:attribute`` -> the object, the module found from the current folder (behind the
    installed packages: `verifiers.commandline.import_user_module`)."""
    from verifiers.commandline import UserModuleError, load_user_object

    try:
        obj: object = load_user_object(target, what)
    except UserModuleError as exc:
        raise LookupError(str(exc)) from None
    return obj


def _golds(path: str, key: str, reduce: str | None) -> list[str]:
    """A JSONL column of gold answers (reduced from full solutions with ``reduce``)."""
    import json

    from verifiers.math import reduce_gold

    golds = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise LookupError(f"{path}:{number} is not JSON ({exc})") from exc
            if not isinstance(row, dict) or key not in row:
                fields = sorted(row) if isinstance(row, dict) else type(row).__name__
                raise LookupError(f"{path}:{number} has no field {key!r} (fields: {fields}); pass --gold-key")
            gold = str(row[key])
            if reduce == "gsm8k" and "####" not in gold:
                raise LookupError(f"{path}:{number}: --gold-from gsm8k needs '#### ANSWER' in {key!r}")
            golds.append(reduce_gold(gold) if reduce else gold)
    if not golds:
        raise LookupError(f"{path} holds no rows")
    return golds


def _check_verifier(args: argparse.Namespace) -> int:
    from verifiers.errors import VerifierInputError
    from verifiers.testing import Domain, check_verifier

    try:
        verify = _load(args.target, "the verifier")
        if args.domain not in ("math", "code") and ":" not in args.domain:
            raise LookupError(
                f"unknown --domain {args.domain!r}: the built-in domains are math and code; a domain of your own "
                "is MODULE:NAME of a verifiers.testing.Domain (e.g. mypkg.laws:CHEM)"
            )
        domain = args.domain if args.domain in ("math", "code") else _load(args.domain, "--domain")
        if not callable(verify):
            raise LookupError(f"{args.target} is a {type(verify).__name__}, not a function")
        if not isinstance(domain, (str, Domain)):
            raise LookupError(f"--domain {args.domain} is a {type(domain).__name__}, not a verifiers.testing.Domain")
        _callable_as_verify(verify, args.target)
        if domain == "code" or getattr(domain, "name", None) == "code":
            _engine_answers()  # before any law runs: one line, not "nan vs nan"
        golds = _golds(args.golds, args.gold_key, args.gold_from) if args.golds else []
        report = check_verifier(
            verify,
            domain,
            max_examples=args.examples,
            latency_s=args.latency,
            reward_range=tuple(args.reward_range),
            laws=args.laws,
            golds=golds,
        )
    except (LookupError, VerifierInputError, OSError) as exc:
        print(f"grpo-envs check-verifier: error: {exc}", file=sys.stderr)
        return 2
    print(report.table())
    for law in report.laws:
        if law.failures:
            print(f"\n{len(law.failures)} of your golds fail {law.law}:")
            for gold, completion, detail in law.failures:
                print(f"  gold={gold!r} as {completion!r}: {detail}")
    failed = [r.law for r in report.laws if not r.ok]
    print(
        f"\n{len(report.laws) - len(failed)}/{len(report.laws)} laws held"
        + (f"; broken: {', '.join(failed)}" if failed else "")
    )
    return 0 if report.ok else 1


def _prune_images(dry_run: bool) -> int:
    from verifiers.errors import SandboxError
    from verifiers.sandbox import prune_images

    try:
        names = prune_images(dry_run=dry_run)
    except SandboxError as exc:
        print(f"grpo-envs: error: {exc}", file=sys.stderr)
        return 1
    for name in names:
        print(name)
    print(f"grpo-envs: {'would remove' if dry_run else 'removed'} {len(names)} unused task image(s)", file=sys.stderr)
    return 0


def _callable_as_verify(verify: Any, target: str) -> None:
    """A `LookupError` when ``verify(reference, completion)`` cannot be called (its signature)."""
    import inspect

    try:
        inspect.signature(verify).bind("reference", "completion")
    except TypeError as exc:
        raise LookupError(f"{target} cannot be called as verify(reference, completion): {exc}") from None
    except ValueError:  # no signature to read (some builtins): the laws will call it
        pass


def _engine_answers() -> None:
    """A `LookupError` with `grpo-envs doctor`'s line when no Docker engine answers."""
    from verifiers.errors import EngineUnavailableError
    from verifiers.sandbox import engine_client

    try:
        engine_client(timeout_s=3).close()
    except EngineUnavailableError as exc:
        first = str(exc).splitlines()[0].rstrip(".")
        raise LookupError(f"--domain code runs code in the Docker sandbox: {first} (see grpo-envs doctor)") from None


def _build_image(offline: bool, force: bool) -> int:
    from verifiers.errors import SandboxError
    from verifiers.sandbox import build_image

    try:
        tag = build_image(offline=offline, force=force)
    except SandboxError as exc:
        print(f"grpo-envs: error: {exc}", file=sys.stderr)
        return 1
    print(tag)
    return 0
