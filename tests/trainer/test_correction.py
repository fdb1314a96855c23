"""Importance-sampling corrections (`trainer.losses._correction`) against hand-computed weights, for every
mode, and what the bounds' zeros mean."""

from __future__ import annotations

import math

import pytest
import torch

from trainer import TrainerError
from trainer.losses._correction import IS_MODES, importance_weights

L = math.log
# token log-ratios d = log pi_old - log pi_behaviour; the padding (mask 0) holds log 100, which no
# mode may read
D = torch.tensor(
    [
        [L(3.0), L(0.1), L(100.0)],  # product 0.3, geometric mean 0.548
        [L(1.5), L(0.8), L(1.2)],  # product 1.44, geometric mean 1.129
        [L(1.8), L(1.5), L(100.0)],  # product 2.7, geometric mean 1.643
        [L(4.0), L(100.0), L(100.0)],  # one token: 4 at every level
    ]
)
MASK = torch.tensor([[1, 1, 0], [1, 1, 1], [1, 1, 0], [1, 0, 0]])
SAMPLER = torch.full((4, 3), -2.0)
OLD = SAMPLER + D
G0, G1, G2 = math.sqrt(0.3), 1.44 ** (1 / 3), math.sqrt(2.7)

# clip_min 0.5, clip_max 2: each mode's weights on the completion tokens, row by row
EXPECTED = {
    "token_truncate": [[2.0, 0.5], [1.5, 0.8, 1.2], [1.8, 1.5], [2.0]],
    "token_mask": [[0.0, 0.0], [1.5, 0.8, 1.2], [1.8, 1.5], [0.0]],
    "sequence_truncate": [[0.5, 0.5], [1.44] * 3, [2.0, 2.0], [2.0]],
    "sequence_mask": [[0.0, 0.0], [1.44] * 3, [0.0, 0.0], [0.0]],
    "seq_mean_truncate": [[G0, G0], [G1] * 3, [G2, G2], [2.0]],
    "seq_mean_mask": [[G0, G0], [G1] * 3, [G2, G2], [0.0]],
}
# (share of the 8 tokens whose weight met a bound, share of the 4 completions with one)
BOUNDED = {
    "token_truncate": (3 / 8, 2 / 4),  # row 0 both tokens, row 3
    "token_mask": (3 / 8, 2 / 4),
    "sequence_truncate": (5 / 8, 3 / 4),  # rows 0, 2, 3
    "sequence_mask": (5 / 8, 3 / 4),
    "seq_mean_truncate": (1 / 8, 1 / 4),  # row 3 only
    "seq_mean_mask": (1 / 8, 1 / 4),
}


def _on_tokens(w: torch.Tensor) -> list[list[float]]:
    return [[float(v) for v, m in zip(row, mrow, strict=True) if m] for row, mrow in zip(w, MASK, strict=True)]


def test_every_mode_is_hand_computed() -> None:
    assert set(EXPECTED) == set(IS_MODES)


@pytest.mark.parametrize("mode", list(EXPECTED))
def test_weights_by_hand(mode: str) -> None:
    got = importance_weights(OLD, SAMPLER, MASK, mode=mode, clip_min=0.5, clip_max=2.0)
    for row, want in zip(_on_tokens(got.weights), EXPECTED[mode], strict=True):
        assert row == pytest.approx(want, rel=1e-5), mode
    metrics = got.metrics(MASK)
    assert (metrics["is_clip_frac"], metrics["is_seq_clip_frac"]) == pytest.approx(BOUNDED[mode])
    flat = [v for row in EXPECTED[mode] for v in row]
    assert metrics["is_weight_mean"] == pytest.approx(sum(flat) / len(flat), rel=1e-5)
    assert not got.weights.requires_grad


def test_weights_carry_no_gradient() -> None:
    old = OLD.clone().requires_grad_(True)
    w = importance_weights(old, SAMPLER, MASK, mode="sequence_truncate").weights
    assert not w.requires_grad and w.grad_fn is None


def test_clip_min_zero_is_no_lower_bound_in_every_mode() -> None:
    for mode in IS_MODES:
        w = importance_weights(OLD, SAMPLER, MASK, mode=mode, clip_min=0.0, clip_max=1e9)
        rows = _on_tokens(w.weights)
        level = mode.rsplit("_", 1)[0]
        first = {"token": [3.0, 0.1], "sequence": [0.3, 0.3], "seq_mean": [G0, G0]}[level]
        assert rows[0] == pytest.approx(first, rel=1e-5), mode  # nothing raised or masked from below
        assert w.metrics(MASK)["is_clip_frac"] == 0.0


def test_truncation_raises_low_weights_to_clip_min_as_trl_does() -> None:
    w = importance_weights(OLD, SAMPLER, MASK, mode="token_truncate", clip_min=0.2, clip_max=10.0)
    assert _on_tokens(w.weights)[0] == pytest.approx([3.0, 0.2])


def test_long_sequences_neither_overflow_nor_make_nan() -> None:
    d = torch.full((2, 400), 0.5)  # a product of e^200: float32 overflows to inf
    d[1] = -0.5
    mask = torch.ones(2, 400)
    for mode in ("sequence_truncate", "sequence_mask"):
        w = importance_weights(d - 3.0, torch.full((2, 400), -3.0), mask, mode=mode, clip_min=0.5, clip_max=2.0)
        assert torch.isfinite(w.weights).all()
        expected = [2.0, 0.5] if mode == "sequence_truncate" else [0.0, 0.0]
        assert w.weights[:, 0].tolist() == pytest.approx(expected)


def test_bad_modes_and_bounds_are_named() -> None:
    with pytest.raises(TrainerError, match="importance_sampling_mode must be one of token_truncate, token_mask"):
        importance_weights(OLD, SAMPLER, MASK, mode="sequence")
    with pytest.raises(TrainerError, match="clip_max > 0"):
        importance_weights(OLD, SAMPLER, MASK, clip_max=0.0)
    with pytest.raises(TrainerError, match="clip_min <= clip_max"):
        importance_weights(OLD, SAMPLER, MASK, clip_min=3.0, clip_max=2.0)
