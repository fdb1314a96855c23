"""``grpo-envs audit``: stored samples (eval's ``samples.jsonl``, the trainer's ``rollouts.jsonl``,
any JSONL of prompt / gold / completion) re-judged by a second opinion, the disagreements grouped
by pattern: `audit` returns an `AuditReport` and writes its files (``report.jsonl``, ``groups.png``,
``audit.html``)."""

from __future__ import annotations

from trainer.audit._audit import audit
from trainer.audit._result import AuditReport

__all__ = ["AuditReport", "audit"]
