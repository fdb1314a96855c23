"""Torch-free numbers shared by the training loop's metrics and the eval's (`trainer.eval`):
the unbiased pass@k estimator. It lives here, not in `trainer.eval`, so that the loss math and
the run log import it without loading the evaluation."""

from __future__ import annotations

import math

from trainer.errors import TrainerError

__all__ = ["pass_at_k"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimator ``1 - C(n - c, k) / C(n, k)`` (Chen et al., 2021).

    Examples:
        >>> pass_at_k(n=8, c=2, k=1), round(pass_at_k(n=8, c=2, k=4), 4)
        (0.25, 0.7857)
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise TrainerError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")
    return 1.0 if n - c < k else 1.0 - math.comb(n - c, k) / math.comb(n, k)
