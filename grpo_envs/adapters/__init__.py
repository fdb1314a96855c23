"""Our environments inside other trainers: TRL (`trl`), verl (`verl`), OpenRLHF and any HTTP
client (`openrlhf`), OpenEnv (`openenv`). Each module imports its trainer's packages only when used.

Owns the translation only: a peer's batch becomes tasks rebuilt from their seeds, judged by the
env as `Judgement` values (`_common.Scorer`), and each `Judgement` becomes what the peer reads."""

from __future__ import annotations

__all__: list[str] = []
