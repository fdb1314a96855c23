"""The `grpo_envs` commands of `grpo-envs`: ``envs``, ``serve`` and ``doctor``.

Each is a ``main(argv) -> int`` that the ``grpo-envs`` dispatcher (`grpo_envs._cli`) calls with
the arguments after the command's name.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import Any

import grpo_envs
from grpo_envs.errors import GrpoEnvsError
from verifiers.commandline import CommandParser, add_no_progress

__all__ = ["doctor_main", "envs_main", "serve_main", "serve_parser"]


def doctor_main(argv: Sequence[str]) -> int:
    """``grpo-envs doctor``: what this machine offers the SDK; exit 1 if something is missing."""
    CommandParser(prog="grpo-envs doctor", description=doctor_main.__doc__).parse_args(argv)
    return _doctor()


def envs_main(argv: Sequence[str]) -> int:
    """``grpo-envs envs list`` / ``grpo-envs envs show ID [--seed N]`` / ``grpo-envs envs init NAME``."""
    parser = CommandParser(prog="grpo-envs envs", description="list the registered environments or show one")
    commands = parser.add_subparsers(dest="envs_command", metavar="ENVS_COMMAND")
    commands.add_parser("list", help="every environment id with a one-line description")
    show = commands.add_parser("show", help="an environment's docstring and a sampled prompt")
    show.add_argument("env_id", help="e.g. grpo_envs/Arithmetic-v0")
    show.add_argument("--seed", type=int, default=0, help="task seed of the sampled prompt")
    init = commands.add_parser("init", help="write a pip-installable env package NAME to start from")
    init.add_argument(
        "name", metavar="NAME", help="e.g. my-multiply (package my_multiply, id my_multiply/MyMultiply-v0)"
    )
    init.add_argument("--dir", default=".", help="where to write the NAME/ folder (default: here)")
    args = parser.parse_args(argv)
    if args.envs_command == "list":
        return _envs_list()
    if args.envs_command == "show":
        return _envs_show(args.env_id, args.seed)
    if args.envs_command == "init":
        return _envs_init(args.name, args.dir)
    parser.print_help(sys.stderr)
    return 2


def serve_main(argv: Sequence[str]) -> int:
    """``grpo-envs serve --env ID`` (labels are task keys) or ``--verifier math|code`` (labels are
    gold answers / JSON test suites of your own dataset): an HTTP reward server for OpenRLHF and
    other trainers."""
    args = serve_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="grpo-envs: %(message)s", stream=sys.stderr)
    if args.no_progress:
        _quiet_hub()
    if args.env:
        try:
            grpo_envs.resolve_env_id(args.env)
        except GrpoEnvsError as exc:
            print(f"grpo-envs serve: error: {exc}", file=sys.stderr)
            return 1
    if args.openenv:
        from grpo_envs.adapters.openenv import _serve_command

        return _serve_command(args)
    return _serve(args)


def serve_parser() -> argparse.ArgumentParser:
    """The flags of ``grpo-envs serve``."""
    parser = CommandParser(prog="grpo-envs serve", description=serve_main.__doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--env", help="environment id, e.g. grpo_envs/Arithmetic-v0 (labels: write_dataset's keys)")
    source.add_argument(
        "--verifier",
        choices=("math", "code"),
        help="no env: each label is the gold answer (math) or a JSON test suite (code, in the Docker sandbox)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="listen address (default loopback)")
    parser.add_argument("--port", type=int, default=5000)
    parser.add_argument(
        "--token", default=None, help="require 'Authorization: Bearer TOKEN' (or $GRPO_ENVS_SERVE_TOKEN)"
    )
    parser.add_argument("--tokenizer", default=None, help="strip this tokenizer's special tokens from responses")
    parser.add_argument("--max-items", type=int, default=4096, help="items per request at most")
    parser.add_argument(
        "--verifier-executor",
        choices=("local", "ray"),
        default="local",
        help="where requests are judged: here, or on RAY_ADDRESS's Ray cluster (pip install 'grpo-envs[ray]')",
    )
    grpo_envs.JudgeConfig.add_flags(parser, key_flag=True)  # behind --verifier math: the rule first
    openenv = parser.add_argument_group("OpenEnv (--openenv; needs grpo-envs[openenv])")
    openenv.add_argument(
        "--openenv", action="store_true", help="serve --env through OpenEnv's server (WebSocket sessions at /ws)"
    )
    openenv.add_argument("--max-sessions", type=int, default=64, help="WebSocket sessions at once (default 64)")
    openenv.add_argument(
        "--session-timeout", type=float, default=600.0, help="close sessions idle this many seconds (0: never)"
    )
    openenv.add_argument(
        "--reveal-reference", action="store_true", help="send each task's reference on reset (tests, check_env)"
    )
    add_no_progress(parser, "no progress bars (loading --tokenizer from the hub)")
    return parser


def _quiet_hub() -> None:
    """No progress bars from huggingface_hub and transformers (where installed)."""
    try:
        from huggingface_hub.utils import disable_progress_bars  # type: ignore[attr-defined]
    except ImportError:
        return
    disable_progress_bars()


def _doctor() -> int:
    from grpo_envs._doctor import FAIL, render, run_checks

    checks = run_checks()
    print("grpo-envs doctor\n" + render(checks))
    return 1 if any(c.status == FAIL for c in checks) else 0


def _serve(args: argparse.Namespace) -> int:
    import os

    from grpo_envs.adapters.openrlhf import DEFAULT_SPECIAL_TOKENS, RewardServer
    from verifiers.executors import executor_named

    special: list[str] = list(DEFAULT_SPECIAL_TOKENS)
    token = args.token or os.environ.get("GRPO_ENVS_SERVE_TOKEN")
    try:
        if args.tokenizer:
            special += _special_tokens(args.tokenizer)
        executor = None if args.verifier_executor == "local" else executor_named(args.verifier_executor)
        judge = _judge(args)
        server = RewardServer(
            args.env,
            verifier=args.verifier,
            executor=executor,
            host=args.host,
            port=args.port,
            token=token,
            special_tokens=special,
            max_items=args.max_items,
            judge=judge,
        )
    except Exception as exc:
        print(f"grpo-envs serve: error: {exc}", file=sys.stderr)
        return 1
    if args.host not in ("127.0.0.1", "localhost", "::1") and token is None:
        print("grpo-envs serve: warning: listening beyond loopback without --token", file=sys.stderr)
    what = args.env or f"gold answers with the {args.verifier} verifier"
    what += f", then the judge {judge.model} at {judge.url} ({judge.mode})" if judge else ""
    print(f"serving {what} at {server.url} (POST /get_reward, GET /health)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        server.close()
    return 0


def _judge(args: argparse.Namespace) -> Any:
    """The judge settings the ``--judge-*`` flags name (`JudgeConfig`; None without them), as
    ``grpo-envs train`` and ``grpo-envs eval`` read theirs: applied to ``--env``'s verifier, or
    asked about ``--verifier math``'s rejections."""
    judge = grpo_envs.JudgeConfig.from_flags(args)
    if judge is not None and args.verifier not in (None, "math"):
        raise GrpoEnvsError("--judge-url needs --env or --verifier math: the code verifier takes no judge")
    if judge is not None and args.env is None and judge.mode != "hybrid":
        raise GrpoEnvsError("serve judges gold answers rule first: --judge-mode judge needs --env")
    if judge is not None:
        judge.check("--judge-url")  # a dead address: refused at the start, not 7.5 s per request
    return judge


def _special_tokens(name: str) -> list[str]:
    try:
        from transformers import AutoTokenizer

        return list(AutoTokenizer.from_pretrained(name).all_special_tokens)
    except ImportError:
        raise GrpoEnvsError("--tokenizer needs transformers: pip install 'grpo-envs[train]'") from None
    except (OSError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise GrpoEnvsError(
            f"cannot load the tokenizer {name!r} ({first}): pass a local folder with tokenizer files, or a hub "
            "name while online"
        ) from None


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
        env = gymnasium.make(grpo_envs.resolve_env_id(env_id))
    except Exception as exc:
        known = ", ".join(grpo_envs.env_ids())
        print(f"grpo-envs: error: cannot make {env_id!r}: {exc}\nKnown ids: {known}", file=sys.stderr)
        return 1
    print(f"{env_id}\n\n{inspect.getdoc(type(env.unwrapped)) or '(no docstring)'}\n")
    prompt, _ = env.reset(seed=seed)
    print(f"--- sampled prompt (seed {seed}) ---\n{prompt}")
    env.close()
    return 0


def _envs_init(name: str, where: str) -> int:
    from pathlib import Path

    from grpo_envs._scaffold import scaffold

    try:
        names, root = scaffold(name, Path(where))
    except (GrpoEnvsError, OSError) as exc:
        print(f"grpo-envs envs init: error: {exc}", file=sys.stderr)
        return 1
    print(
        f"wrote {root}/ (env {names.env_id}: {names.package}/env.py, the entry point in pyproject.toml, "
        f"tests/test_env.py, README.md)\nnext: cd {root} && pip install -e . && grpo-envs envs show {names.env_id}"
    )
    return 0
