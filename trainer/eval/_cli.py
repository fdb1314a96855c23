"""``grpo-envs eval``: a model on an environment; pass@k, maj@k and where every sample went."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verifiers.commandline import CommandParser, add_no_progress

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="grpo-envs eval", description="Evaluate a model on an environment: pass@k and maj@k with 95% intervals."
    )
    p.add_argument("--env", help="environment id, e.g. grpo_envs/Arithmetic-v0")
    p.add_argument("--env-kwargs", default="{}", help="JSON keyword arguments for the environment")
    p.add_argument("--model", help='hub name, local path, or "demo"')
    p.add_argument(
        "--backend", default="transformers", choices=("transformers", "vllm", "openai"), help="generation backend"
    )
    p.add_argument("--base-url", default=None, help="an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--api-key-env", default=None, help="the environment variable that holds the server's API key")
    p.add_argument("--concurrency", type=int, default=64, help="requests in flight at once (server backend)")
    p.add_argument("--chat", action="store_true", help="send messages to /v1/chat/completions (server's template)")
    p.add_argument("--tokenizer", default=None, help="folder or hub name of the tokenizer (default: --model)")
    p.add_argument(
        "--engine-kwargs", default="{}", help='JSON keyword arguments for vllm.LLM, e.g. {"dtype": "float32"}'
    )
    p.add_argument("-n", type=int, default=100, help="tasks from the env's seeded stream (default: 100)")
    p.add_argument("--samples", type=int, default=8, help="completions per task (default: 8)")
    p.add_argument("-k", default=None, help="comma-separated k values (default 1, 2, 4, ... up to --samples)")
    p.add_argument("--split", default="eval", choices=("train", "eval"), help="the env's split (default: eval)")
    p.add_argument("--seed", type=int, default=0, help="the tasks' and the sampler's seed (default: 0)")
    p.add_argument("--temperature", type=float, default=0.6, help="sampling temperature (default: 0.6)")
    p.add_argument("--max-new-tokens", type=int, default=1024, help="tokens per completion at most (default: 1024)")
    p.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N (default: auto)")
    p.add_argument(
        "--verifier-executor",
        choices=("local", "ray"),
        default="local",
        help="where single-turn envs' samples are judged: here, or on RAY_ADDRESS's Ray cluster (else a new local "
        "one; pip install 'grpo-envs[ray]'); multi-turn envs step their turns here either way",
    )
    _judge_flags(p)
    _shaping_flags(p)
    p.add_argument("--out", default=None, help="run folder (default runs/eval/ENV)")
    p.add_argument("--resume", action="store_true", help="continue from the folder's samples.jsonl")
    p.add_argument("--compare", nargs=2, metavar=("RUN_A", "RUN_B"), help="print two runs' summaries side by side")
    add_no_progress(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``grpo-envs eval``; returns the exit status (2: bad input, with one line saying why)."""
    from trainer.errors import TrainerError

    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stderr)
    try:
        if args.compare:
            print(compare(Path(args.compare[0]), Path(args.compare[1])))
            return 0
        if args.no_progress:
            _quiet_transformers()
        if not args.env or not args.model:
            raise TrainerError("pass --env ID and --model NAME (or --compare RUN_A RUN_B)")
        from trainer.eval._run import evaluate, table

        ks = _ks(args.k)
        if args.verifier_executor == "local":  # a code env without a Docker engine: one line now
            _check_engine(args)
        summary = evaluate(
            args.env,
            args.model,
            tokenizer=args.tokenizer,
            backend=args.backend,
            base_url=args.base_url,
            api_key=_api_key(args.api_key_env),
            concurrency=args.concurrency,
            chat=args.chat,
            engine_kwargs=_json_arg("--engine-kwargs", args.engine_kwargs),
            n=args.n,
            samples=args.samples,
            ks=ks,
            split=args.split,
            seed=args.seed,
            temperature=args.temperature,
            max_new_tokens=args.max_new_tokens,
            out=args.out,
            resume=args.resume,
            env_kwargs=_json_arg("--env-kwargs", args.env_kwargs),
            device=args.device,
            verifier_executor=args.verifier_executor,
            judge=_judge(args),
            shaping=_shaping(args),
            show_progress=not args.no_progress,
        )
    except (TrainerError, ValueError, OSError) as exc:
        print(f"grpo-envs eval: error: {exc}", file=sys.stderr)
        return 2
    print(table(summary))
    if summary["samples"] and summary["unjudged"] == summary["samples"]:
        why = summary["unjudged_reason"].rstrip(".")
        print(f"grpo-envs eval: error: none of the {summary['samples']} samples was judged: {why}", file=sys.stderr)
        return 1
    return 0


def _judge_flags(parser: argparse.ArgumentParser) -> None:
    from grpo_envs import JudgeConfig

    JudgeConfig.add_flags(parser)  # as serve and train spell them


def _shaping_flags(parser: argparse.ArgumentParser) -> None:
    """``--sampling-overlong`` and its lengths, as train spells them (over the run's own, when
    --model is a run's folder)."""
    from trainer.eval._shaping import OVERLONG_KEYS
    from trainer.sampling._config import SamplingConfig

    SamplingConfig.add_flags(parser, only=OVERLONG_KEYS)


def _shaping(args: argparse.Namespace) -> dict[str, Any]:
    from trainer.sampling._config import SamplingConfig

    return SamplingConfig.flag_settings(args)


def _judge(args: argparse.Namespace) -> Any:
    """The judge the ``--judge-*`` flags name (`grpo_envs.JudgeConfig`), or None."""
    from grpo_envs import GrpoEnvsError, JudgeConfig
    from trainer.errors import TrainerError

    try:
        settings = JudgeConfig.from_flags(args)
        if settings is not None:
            settings.check("--judge-url")  # a dead address: one line now, before the model loads
        return settings
    except GrpoEnvsError as exc:
        raise TrainerError(str(exc)) from None


def _check_engine(args: argparse.Namespace) -> None:
    from trainer.rollouts._envs import check_engine, make_env

    env = make_env(args.env, **_json_arg("--env-kwargs", args.env_kwargs))
    try:
        check_engine(env)
    finally:
        env.close()


def _quiet_transformers() -> None:
    """No bars from transformers either ("Loading weights"); a server backend may have no transformers."""
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        return
    hf_logging.disable_progress_bar()


def _ks(text: str | None) -> list[int] | None:
    from trainer.errors import TrainerError

    if not text:
        return None
    try:
        return [int(k) for k in text.split(",")]
    except ValueError:
        raise TrainerError(f"-k takes comma-separated whole numbers, e.g. -k 1,4,8; got {text!r}") from None


def _json_arg(flag: str, text: str) -> dict[str, Any]:
    from trainer.errors import TrainerError

    try:
        value = json.loads(text)
    except ValueError as exc:
        raise TrainerError(f"{flag} must be a JSON object, e.g. '{{\"a\": 1}}': {exc}") from None
    if not isinstance(value, dict):
        raise TrainerError(f"{flag} must be a JSON object, got {text!r}")
    return value


def _api_key(variable: str | None) -> str | None:
    from trainer.errors import TrainerError

    if variable is None:
        return None
    if not os.environ.get(variable):
        raise TrainerError(f"--api-key-env {variable}: that environment variable is not set")
    return os.environ[variable]


def compare(a: Path, b: Path) -> str:
    """Two runs' metrics side by side (from their ``summary.json``)."""
    from trainer.errors import TrainerError

    runs = []
    for folder in (a, b):
        path = folder / "summary.json"
        if not path.is_file():
            raise TrainerError(f"{path} not found: --compare takes two eval run folders")
        runs.append(json.loads(path.read_text()))
    keys = [k for k, v in runs[0].items() if isinstance(v, dict) and "ci95" in v and k in runs[1]]
    lines = [f"{'metric':<14}{a.name[:24]:>26}{b.name[:24]:>26}"]
    for key in keys:
        cells = [f"{r[key]['value']:.3f} [{r[key]['ci95'][0]:.2f}, {r[key]['ci95'][1]:.2f}]" for r in runs]
        lines.append(f"{key:<14}{cells[0]:>26}{cells[1]:>26}")
    return "\n".join(lines)
