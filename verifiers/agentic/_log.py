"""`EpisodeLog`: the commands one episode ran (who ran it, the command, exit code, seconds, output size).

`check_task`, the gaming suite (`verifiers.testing.attack_tasks`) and the judges keep one per
episode and can write it as JSON lines. A row has the keys of the terminal env's
``info["commands"]`` (``command``, ``exit_code``, ``seconds``) with the output's size
(``output_chars``) in place of the output itself, and ``phase``: ``"agent"`` (the agent's or a
scripted agent's commands, the reference solution's included), ``"judge"`` (the judging steps:
copying the artifacts out, stopping the agent, running ``test.sh``). `EpisodeLog.rows` adds the
task and the episode's name to each row.

Examples:
    >>> log = EpisodeLog("hello", "oracle")
    >>> log.add("bash solve.sh", 0, 0.25, 12)
    >>> log.rows()[0]["exit_code"], log.rows()[0]["episode"]
    (0, 'oracle')
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

__all__ = ["CommandRecord", "EpisodeLog", "write_jsonl"]

Phase = Literal["agent", "judge"]


@dataclass(frozen=True)
class CommandRecord:
    """One command: ``exit_code`` None when it did not exit by itself (timed out, killed, or the
    session failed); ``seconds`` of wall time; ``output_chars`` of stdout and stderr together."""

    command: str
    exit_code: int | None
    seconds: float
    output_chars: int
    phase: Phase = "agent"


@dataclass
class EpisodeLog:
    """The commands of one episode of ``task`` (``episode`` names it: ``"oracle"``, an attack's name)."""

    task: str = ""
    episode: str = ""
    records: list[CommandRecord] = field(default_factory=list)

    def add(
        self, command: str, exit_code: int | None, seconds: float, output_chars: int, phase: Phase = "agent"
    ) -> None:
        """Record one command."""
        self.records.append(CommandRecord(command, exit_code, round(seconds, 3), output_chars, phase))

    def run(
        self, session: Any, command: str, *, timeout_s: float | None = None, phase: Phase = "agent", **kwargs: Any
    ) -> Any:
        """``session.exec(command, ...)``, recorded; returns its `verifiers.sandbox.ExecResult`."""
        start = time.monotonic()
        result = session.exec(command, timeout_s=timeout_s, **kwargs)
        self.add(command, result.exit_code, time.monotonic() - start, len(result.stdout) + len(result.stderr), phase)
        return result

    def rows(self) -> list[dict[str, Any]]:
        """One JSON-ready dict per command, with the task and the episode."""
        return [{"task": self.task, "episode": self.episode, **asdict(r)} for r in self.records]


def write_jsonl(logs: Iterable[EpisodeLog], out: str | Path | IO[str]) -> int:
    """Append the rows of ``logs`` to ``out`` (a path or a text file) as JSON lines; the count."""
    lines = [json.dumps(row) + "\n" for log in logs for row in log.rows()]
    if isinstance(out, (str, Path)):
        with open(out, "a") as f:
            f.writelines(lines)
    else:
        out.writelines(lines)
    return len(lines)
