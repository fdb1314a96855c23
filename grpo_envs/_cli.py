"""The `grpo-envs` command line."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

import grpo_envs

__all__ = ["main"]

_SUBPARSERS: dict[str, argparse.ArgumentParser] = {}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="grpo-envs",
        description="Reasoning environments, verifiable rewards and a GRPO trainer.",
    )
    parser.add_argument("--version", action="version", version=f"grpo-envs {grpo_envs.__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("doctor", help="show what this machine offers the SDK; exit 1 if something is missing")
    sandbox = commands.add_parser("sandbox", help="manage the code sandbox")
    sandbox_commands = sandbox.add_subparsers(dest="sandbox_command", metavar="SANDBOX_COMMAND")
    build = sandbox_commands.add_parser("build-image", help="build the sandbox image (no-op when it exists)")
    build.add_argument(
        "--offline",
        action="store_true",
        help="build from a Debian root file system made by mmdebstrap; contact no registry",
    )
    build.add_argument("--force", action="store_true", help="rebuild even if the image exists")
    _SUBPARSERS["sandbox"] = sandbox
    envs = commands.add_parser("envs", help="list the registered environments or show one")
    envs_commands = envs.add_subparsers(dest="envs_command", metavar="ENVS_COMMAND")
    envs_commands.add_parser("list", help="every environment id with a one-line description")
    show = envs_commands.add_parser("show", help="an environment's docstring and a sampled prompt")
    show.add_argument("env_id", help="e.g. grpo_envs/Arithmetic-v0")
    show.add_argument("--seed", type=int, default=0, help="task seed of the sampled prompt")
    _SUBPARSERS["envs"] = envs
    commands.add_parser("train", help="train with GRPO (see `grpo-envs train --help`)", add_help=False)
    serve = commands.add_parser("serve", help="an HTTP reward server for OpenRLHF and other trainers")
    serve.add_argument("--env", required=True, help="environment id, e.g. grpo_envs/Arithmetic-v0")
    serve.add_argument("--host", default="127.0.0.1", help="listen address (default loopback)")
    serve.add_argument("--port", type=int, default=5000)
    serve.add_argument(
        "--token", default=None, help="require 'Authorization: Bearer TOKEN' (or $GRPO_ENVS_SERVE_TOKEN)"
    )
    serve.add_argument("--tokenizer", default=None, help="strip this tokenizer's special tokens from responses")
    serve.add_argument("--max-items", type=int, default=4096, help="items per request at most")
    check = commands.add_parser(
        "check-verifier", help="run the verifier laws (verifiers.testing) on MODULE:FUNCTION; exit 1 if one fails"
    )
    check.add_argument(
        "target", metavar="MODULE:FUNCTION", help="verify(reference, completion), e.g. mypkg.rewards:verify"
    )
    check.add_argument("--domain", default="math", help="math, code, or MODULE:NAME of a verifiers.testing.Domain")
    check.add_argument("--examples", type=int, default=None, help="examples per law (default: the domain's)")
    check.add_argument("--latency", type=float, default=3.0, help="seconds a call may take (default 3)")
    check.add_argument("--reward-range", type=float, nargs=2, default=(0.0, 1.0), metavar=("LOW", "HIGH"))
    check.add_argument("--law", action="append", dest="laws", default=None, help="run only this law (repeatable)")
    check.add_argument("--golds", default=None, metavar="FILE.jsonl",
                       help="also check that each gold in this dataset equals itself (reflexivity)")  # fmt: skip
    check.add_argument("--gold-key", default="answer", help="the JSONL field that holds the gold (default: answer)")
    check.add_argument("--gold-from", choices=("gsm8k", "boxed"), default=None,
                       help="the field is a full solution: its answer after #### or in its last \\boxed{}")  # fmt: skip
    return parser


def _load(target: str, what: str) -> object:
    """``module:attribute`` -> the object; the current directory is importable, as with ``python -m``."""
    import importlib

    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise LookupError(f"{what} must be MODULE:NAME (e.g. mypkg.rewards:verify), got {target!r}")
    if "" not in sys.path:
        sys.path.insert(0, "")
    try:
        obj: object = importlib.import_module(module_name)
    except ImportError as exc:
        raise LookupError(f"cannot import {module_name!r} ({exc}); run from its project or install it") from exc
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise LookupError(f"{module_name!r} has no {attribute!r}")
        obj = getattr(obj, part)
    return obj


def _golds(path: str, key: str, reduce: str | None) -> list[str]:
    """A JSONL column of gold answers (reduced from full solutions with ``reduce``)."""
    import json

    from verifiers.math._extract import reduce_gold

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
        domain = args.domain if args.domain in ("math", "code") else _load(args.domain, "--domain")
        if not callable(verify):
            raise LookupError(f"{args.target} is a {type(verify).__name__}, not a function")
        if not isinstance(domain, (str, Domain)):
            raise LookupError(f"--domain {args.domain} is a {type(domain).__name__}, not a verifiers.testing.Domain")
        golds = _golds(args.golds, args.gold_key, args.gold_from) if args.golds else []
        report = check_verifier(verify, domain, max_examples=args.examples, latency_s=args.latency,
                                reward_range=tuple(args.reward_range), laws=args.laws, golds=golds)  # fmt: skip
    except (LookupError, VerifierInputError, OSError) as exc:
        print(f"grpo-envs check-verifier: error: {exc}", file=sys.stderr)
        return 2
    print(report.table())
    for law in report.laws:
        if law.failures:
            print(f"\n{len(law.failures)} of your golds fail {law.law}:")
            for gold, completion, detail in law.failures:
                print(f"  gold={gold[:80]!r} as {completion[:60]!r}: {detail[:160]}")
    failed = [r.law for r in report.laws if not r.ok]
    print(
        f"\n{len(report.laws) - len(failed)}/{len(report.laws)} laws held"
        + (f"; broken: {', '.join(failed)}" if failed else "")
    )
    return 0 if report.ok else 1


def _doctor() -> int:
    from grpo_envs._doctor import FAIL, render, run_checks

    checks = run_checks()
    print("grpo-envs doctor\n" + render(checks))
    return 1 if any(c.status == FAIL for c in checks) else 0


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


def _serve(args: argparse.Namespace) -> int:
    import os

    from grpo_envs.adapters.openrlhf import DEFAULT_SPECIAL_TOKENS, RewardServer

    special: list[str] = list(DEFAULT_SPECIAL_TOKENS)
    if args.tokenizer:
        from transformers import AutoTokenizer

        special += list(AutoTokenizer.from_pretrained(args.tokenizer).all_special_tokens)
    token = args.token or os.environ.get("GRPO_ENVS_SERVE_TOKEN")
    try:
        server = RewardServer(args.env, host=args.host, port=args.port, token=token, special_tokens=special,
                              max_items=args.max_items)  # fmt: skip
    except Exception as exc:
        print(f"grpo-envs serve: error: {exc}", file=sys.stderr)
        return 1
    if args.host not in ("127.0.0.1", "localhost", "::1") and token is None:
        print("grpo-envs serve: warning: listening beyond loopback without --token", file=sys.stderr)
    print(f"serving {args.env} at {server.url} (POST /get_reward, GET /health)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.close()
    return 0


def _envs_list() -> int:
    ids = grpo_envs.env_ids(load=True)
    width = max(len(i) for i in ids)
    for env_id, doc in ids.items():
        print(f"{env_id:<{width}}  {doc}")
    return 0


def _envs_show(env_id: str, seed: int) -> int:
    import inspect

    import gymnasium

    try:
        env = gymnasium.make(env_id)
    except Exception as exc:
        known = ", ".join(grpo_envs.env_ids())
        print(f"grpo-envs: error: cannot make {env_id!r}: {exc}\nKnown ids: {known}", file=sys.stderr)
        return 1
    print(f"{env_id}\n\n{inspect.getdoc(type(env.unwrapped)) or '(no docstring)'}\n")
    prompt, _ = env.reset(seed=seed)
    print(f"--- sampled prompt (seed {seed}) ---\n{prompt}")
    env.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status.

    Example:
        >>> main(["--version"])  # doctest: +SKIP
        grpo-envs 0.1.0
    """
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["train"]:  # the trainer parses its own flags (torch is imported only here)
        try:
            from trainer.cli import main as train_main
        except ImportError as exc:
            print(f"grpo-envs: error: training needs the train extra ({exc}): pip install 'grpo-envs[train]'",
                  file=sys.stderr)  # fmt: skip
            return 2
        return train_main(argv[1:])
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="grpo-envs: %(message)s", stream=sys.stderr)
    if args.command == "doctor":
        return _doctor()
    if args.command == "sandbox" and args.sandbox_command == "build-image":
        return _build_image(args.offline, args.force)
    if args.command == "serve":
        return _serve(args)
    if args.command == "check-verifier":
        return _check_verifier(args)
    if args.command == "envs" and args.envs_command == "list":
        return _envs_list()
    if args.command == "envs" and args.envs_command == "show":
        return _envs_show(args.env_id, args.seed)
    # A command group without its subcommand: show the relevant help, exit as a usage error.
    helper = parser if args.command is None else _SUBPARSERS.get(args.command, parser)
    helper.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
