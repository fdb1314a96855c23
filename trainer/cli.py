"""``grpo-envs train`` / ``python -m trainer``: run GRPO from a config file and flags."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import Any

from trainer.config import add_config_flags, config_from_args
from trainer.errors import TrainerError
from verifiers.commandline import CommandParser, add_no_progress

__all__ = ["main", "parser"]


def parser(prog: str = "grpo-envs train") -> argparse.ArgumentParser:
    p = CommandParser(
        prog=prog,
        description="Train a causal LM with GRPO on a grpo_envs environment. Precedence: preset < --config < flags. "
        "Flags are the config's fields with dashes (max_new_tokens: --max-new-tokens; underscores work too).",
    )
    add_config_flags(p)
    p.add_argument("--resume", action="store_true", help="continue the --output-dir's run from its newest checkpoint")
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="--output-dir holds a run: move it aside (NAME.old-<timestamp>) and start afresh",
    )
    p.add_argument(
        "--rollout-log",
        action="store_true",
        help="keep every rollout (prompt, reference, completion, verdict) in OUTPUT_DIR/rollouts.jsonl, for "
        "grpo-envs audit",
    )
    add_no_progress(p)
    return p


def _check_judge(judge: Any) -> None:
    from grpo_envs import GrpoEnvsError

    try:
        judge.check("--judge-url (or the config's [judge] url)")
    except GrpoEnvsError as exc:
        raise TrainerError(str(exc)) from None


def _check_engine(env_id: str, env_kwargs: dict[str, Any]) -> None:
    from trainer.rollouts._envs import check_engine, make_env

    env = make_env(env_id, **env_kwargs)
    try:
        check_engine(env)
    finally:
        env.close()


def main(argv: Sequence[str] | None = None, prog: str = "grpo-envs train") -> int:
    args = parser(prog).parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stderr)
    try:
        config = config_from_args(args)
        if config.judge is not None:  # a dead address: one line now, before the model loads
            _check_judge(config.judge)
        if config.verifier_executor == "local":  # a code env without a Docker engine: one line now
            _check_engine(config.env, config.env_kwargs)
        from trainer.grpo import GRPOTrainer

        if args.no_progress:  # nor transformers' own bars ("Loading weights", "Writing model shards")
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
        trainer = GRPOTrainer(
            config,
            resume=args.resume,
            overwrite=args.overwrite,
            show_progress=not args.no_progress,
            rollout_log=args.rollout_log,
        )
        result = trainer.train()
    except TrainerError as exc:
        print(f"grpo-envs train: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: a checkpoint was saved; continue with --resume", file=sys.stderr)
        return 130
    print(f"run written to {config.output_dir} (metrics.jsonl, curves.png, checkpoints/, final/)")
    if result["unjudged_frac"] == 1.0:  # the warning above says how many and why
        why = str(result.get("unjudged_reason") or "").rstrip(".")
        print(f"{prog}: error: no completion was judged, so nothing was learned: {why}", file=sys.stderr)
        return 1
    return 0
