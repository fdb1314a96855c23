"""``grpo-envs audit SAMPLES``: stored samples re-judged by a second opinion; where the verdicts
disagree, grouped by pattern (a terminal table, ``report.jsonl``, ``groups.png``, ``audit.html``)."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from verifiers.commandline import CommandParser, add_no_progress

if TYPE_CHECKING:
    from verifiers.judges import LLMJudge

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = CommandParser(
        prog="grpo-envs audit",
        description="Re-judge stored samples with a second opinion and group where the verdicts disagree, "
        "most frequent pattern first. SAMPLES: eval's samples.jsonl, the trainer's rollouts.jsonl (rollout_log), "
        "or any JSONL with gold and completion (prompt, id, task_id, status/reason and label when you have them). "
        "With no second opinion named, Math-Verify (when installed).",
    )
    p.add_argument("samples", metavar="SAMPLES", help="a JSONL file of samples")
    p.add_argument("--out", default=None, help="the report's folder (default: audit/ beside SAMPLES)")
    p.add_argument(
        "--config",
        default=None,
        help="our math verifier with these MathConfig fields as the second opinion: a JSON object, e.g. "
        "'{\"last_number_fallback\": true}', or a .json/.toml file",
    )
    p.add_argument(
        "--rescore",
        action="store_true",
        help="compare the stored verdicts with the current verifier (with --config when given): what changed",
    )
    p.add_argument("--restart", action="store_true", help="start over instead of resuming --out's progress.jsonl")
    from grpo_envs import JudgeConfig

    JudgeConfig.add_flags(p, key_flag=True)  # as serve, train and eval spell them; the judge alone is the opinion
    add_no_progress(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``grpo-envs audit``; returns the exit status (2: bad input, with one line saying why)."""
    from trainer.audit._audit import audit
    from trainer.errors import TrainerError

    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s", stream=sys.stderr)
    try:
        report = audit(
            args.samples,
            out=args.out,
            judge=_judge(args),
            config=args.config,
            rescore=args.rescore,
            restart=args.restart,
            show_progress=not args.no_progress,
        )
    except (TrainerError, ValueError, OSError) as exc:
        print(f"grpo-envs audit: error: {exc}", file=sys.stderr)
        return 2
    print(report.table())
    if report.samples and report.not_judged.get("second", 0) == report.samples:
        why = report.second_failure.rstrip(".")
        said = f"{report.second} judged none of the {report.samples} samples: {why}"
        print(f"grpo-envs audit: error: {said}", file=sys.stderr)
        return 1
    return 0


def _judge(args: argparse.Namespace) -> LLMJudge | None:
    """The LLM judge the ``--judge-*`` flags name (`grpo_envs.JudgeConfig`, the one builder), or None."""
    from grpo_envs import GrpoEnvsError, JudgeConfig
    from trainer.errors import TrainerError
    from verifiers.errors import VerifierInputError

    try:
        settings = JudgeConfig.from_flags(args)
        if settings is None:
            return None
        if args.config is not None or args.rescore:
            raise TrainerError("name one second opinion: --judge-url, or --config / --rescore, not both")
        settings.check("--judge-url")  # a dead address: one line now, not retries per sample
        judge: LLMJudge = settings.judge()
        return judge
    except (GrpoEnvsError, VerifierInputError) as exc:
        raise TrainerError(str(exc)) from None
