"""The graders an audit compares: the verdict stored with each sample, our math verifier (any
`MathConfig`), Math-Verify (when installed), an LLM judge. Each is an `Opinion`: a name and
``grade(rows) -> grades``, in order. A grader that cannot judge a sample (no gold, a judge that
failed, a timeout) gives a grade with ``correct`` None: "not judged", never a disagreement."""

from __future__ import annotations

import importlib.metadata as md
import json
import logging
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from trainer.audit._rows import AuditRow, Grade
from trainer.errors import TrainerError

if TYPE_CHECKING:
    from verifiers.judges import Judge

__all__ = ["JudgeOpinion", "MathVerifyOpinion", "Opinion", "OursOpinion", "StoredOpinion", "math_config", "second"]

log = logging.getLogger("trainer")
NO_GOLD = Grade("error", None, "Not judged: the sample has no gold answer (a gold, reference or answer field).")


class Opinion(Protocol):
    """A grader: ``name`` (shown in every report) and ``grade(rows)``, one grade per row, in order."""

    @property
    def name(self) -> str: ...

    def grade(self, rows: Sequence[AuditRow]) -> list[Grade]: ...


class StoredOpinion:
    """The verdict stored with each sample (eval's and the trainer's rows carry one)."""

    name = "stored"

    def grade(self, rows: Sequence[AuditRow]) -> list[Grade]:
        return [row.stored or Grade("error", None, "Not judged: the sample has no stored verdict.") for row in rows]


@dataclass(frozen=True)
class OursOpinion:
    """`verifiers.math.verify_many` with ``config`` (a `MathConfig`; None: the defaults)."""

    config: Any = None
    name: str = "ours"

    def grade(self, rows: Sequence[AuditRow]) -> list[Grade]:
        from verifiers import math as vm
        from verifiers.errors import VerifierInputError

        config = self.config or vm.MathConfig()
        out: list[Grade | None] = [None if row.gold is not None else NO_GOLD for row in rows]
        todo = [k for k, v in enumerate(out) if v is None]
        golds, completions = [str(rows[k].gold) for k in todo], [rows[k].completion for k in todo]
        try:
            results = vm.verify_many(golds, completions, config=config)
        except VerifierInputError:  # one gold we cannot read: judge one by one, that one not judged
            results = [_one(vm.verify, g, c, config) for g, c in zip(golds, completions, strict=True)]
        for k, result in zip(todo, results, strict=True):
            out[k] = Grade.of(result)
        return [v for v in out if v is not None]


def _one(verify: Any, gold: str, completion: str, config: Any) -> Any:
    from verifiers.errors import VerifierInputError
    from verifiers.result import VerifyResult

    try:
        return verify(gold, completion, config=config)
    except VerifierInputError as exc:
        return VerifyResult.judged("error", f"Not judged: the gold is not one we can read ({exc}).")


class MathVerifyOpinion:
    """Hugging Face's Math-Verify (``pip install 'math-verify[antlr4_13_2]'``): the gold parsed as
    LaTeX, the whole completion parsed with its default extraction, then ``verify``."""

    def __init__(self) -> None:
        try:
            import math_verify  # noqa: F401
        except ImportError:
            raise TrainerError(
                "Math-Verify is not installed: pip install 'grpo-envs[audit]' (make demo installs it), or name "
                "another second opinion (--judge-url URL, --config JSON)"
            ) from None
        self.name = f"math-verify {md.version('math-verify')}"

    def grade(self, rows: Sequence[AuditRow]) -> list[Grade]:
        quiet = logging.getLogger("math_verify")
        level, quiet.level = quiet.level, logging.ERROR  # its "timeout disabled" warning, once per call
        try:
            return [self._one(row) for row in rows]
        finally:
            quiet.setLevel(level)

    def _one(self, row: AuditRow) -> Grade:
        from math_verify import parse, verify

        if row.gold is None:
            return NO_GOLD
        timeout = 5 if threading.current_thread() is threading.main_thread() else None  # it uses SIGALRM
        try:
            gold = parse(f"${row.gold}$", parsing_timeout=timeout)
            if not gold:
                return Grade("error", None, f"Not judged: Math-Verify reads no gold in {row.gold[:40]!r}.")
            answer = parse(row.completion, parsing_timeout=timeout)
            if not answer:
                return Grade("no_answer", False, "Math-Verify parsed no answer.")
            same = bool(verify(gold, answer, timeout_seconds=timeout))
        except Exception as exc:  # the peer's own failure (a timeout, a parser error): not a verdict
            return Grade("error", None, f"Not judged: Math-Verify failed ({type(exc).__name__}).")
        extracted = str(answer[-1])[:200]
        if same:
            return Grade("correct", True, "Math-Verify: equal to the gold.", extracted)
        return Grade("incorrect", False, "Math-Verify: not equal to the gold.", extracted)


class JudgeOpinion:
    """An LLM judge (`verifiers.judges.LLMJudge`) over an OpenAI-compatible server; a call that fails
    is "not judged"."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge
        self.name = f"judge {getattr(judge, 'model', type(judge).__name__)}"

    def grade(self, rows: Sequence[AuditRow]) -> list[Grade]:
        todo = [k for k, row in enumerate(rows) if row.gold is not None]
        results = self.judge.verify_many(
            [rows[k].gold for k in todo], [rows[k].completion for k in todo], prompts=[rows[k].prompt for k in todo]
        )
        out = [NO_GOLD] * len(rows)
        for k, result in zip(todo, results, strict=True):
            out[k] = Grade.of(result)
        return out


def math_config(text: str | Mapping[str, Any] | None) -> Any:
    """A `MathConfig` from a mapping of its fields, a JSON object, or a ``.json`` / ``.toml`` file of
    them (lists become tuples); raises `TrainerError` naming an unknown field.

    Examples:
        >>> math_config('{"last_number_fallback": true}').last_number_fallback
        True
    """
    from verifiers.math import MathConfig

    if text is None:
        return MathConfig()
    if isinstance(text, Mapping):
        values = dict(text)
    elif Path(text).suffix in (".json", ".toml") and Path(text).is_file():
        values = _file(Path(text))
    else:
        try:
            values = json.loads(text)
        except ValueError:
            raise TrainerError(
                f"--config takes a JSON object of MathConfig fields or a .json/.toml file, got {text!r}"
            ) from None
    if not isinstance(values, dict):
        raise TrainerError(f"--config must be a JSON object of MathConfig fields, got {text!r}")
    known = {f.name for f in fields(MathConfig)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise TrainerError(f"--config: {unknown[0]!r} is not a MathConfig field (fields: {', '.join(sorted(known))})")
    given: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
    return MathConfig(**given)


def _file(path: Path) -> Any:
    if path.suffix == ".json":
        return json.loads(path.read_text())
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10
        import tomli as tomllib
    return tomllib.loads(path.read_text())


def second(
    *, judge: Judge | None = None, config: str | Mapping[str, Any] | None = None, rescore: bool = False
) -> tuple[Opinion, str]:
    """The second opinion asked for, and a line saying which it is and why: an LLM judge, ours with
    ``config`` (always with ``rescore``), else Math-Verify (the default, when installed)."""
    if rescore:
        opinion = OursOpinion(math_config(config), _ours_name(config))
        return opinion, f"rescoring: the stored verdicts against the current verifier ({opinion.name})"
    if judge is not None:
        opinion_j = JudgeOpinion(judge)
        return opinion_j, f"second opinion: {opinion_j.name}"
    if config is not None:
        opinion = OursOpinion(math_config(config), _ours_name(config))
        return opinion, f"second opinion: our math verifier with {opinion.name}"
    opinion_mv = MathVerifyOpinion()
    return opinion_mv, f"second opinion: {opinion_mv.name} (none named; --judge-url or --config name another)"


def _ours_name(config: str | Mapping[str, Any] | None) -> str:
    if config is None or config in ({}, "{}"):
        return "ours"
    values = config if isinstance(config, Mapping) else None
    if values is None and not Path(str(config)).is_file():
        values = json.loads(str(config))
    shown = ", ".join(f"{k}={v!r}" for k, v in values.items()) if values is not None else Path(str(config)).name
    return f"ours ({shown})"
