"""Our environments inside other trainers: TRL (`trl`), verl (`verl`), OpenRLHF and any HTTP
client (`openrlhf`). Each module imports its trainer's packages only when used."""

from __future__ import annotations

__all__: list[str] = []
