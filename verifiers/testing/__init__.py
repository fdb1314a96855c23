"""Hypothesis strategies and laws for testing verifiers (yours and ours).

Not public yet: the strategies here back the SDK's own property tests; the public kit
(`check_verifier`, documented strategies) arrives with its own issue.
"""

from __future__ import annotations

__all__: list[str] = []
