"""GSPO and CISPO (`trainer.losses._surrogates`) against hand-computed losses and gradients; where each gives
GRPO's (or DAPO's) gradient on-policy and where it does not; importance weights in every loss."""

from __future__ import annotations

import math
from typing import Any

import pytest
import torch

from trainer import grpo_loss
from trainer.losses._surrogates import LOSSES

E = math.exp


def _grad(
    loss_type: str, lp: torch.Tensor, old: torch.Tensor, adv: torch.Tensor, mask: torch.Tensor, **kw: Any
) -> tuple[float, torch.Tensor, dict[str, float]]:
    """The loss, its gradient with respect to ``lp`` and the metrics."""
    x = lp.clone().requires_grad_(True)
    loss, metrics = grpo_loss(x, old, kw.pop("ref", None), adv, mask, loss_type=loss_type, **kw)
    (g,) = torch.autograd.grad(loss, x)
    return float(loss.detach()), g, metrics


# -- GSPO ----------------------------------------------------------------------------------------
# row 0: token log-ratios 0.3, -0.1 (mean 0.1: s = e^0.1); row 1: one token, log-ratio 0.5 (s = e^0.5)
G_LP = torch.tensor([[0.3, -0.1, 9.0], [0.5, 9.0, 9.0]])  # 9.0: padding, never read
G_OLD = torch.zeros(2, 3)
G_MASK = torch.tensor([[1, 1, 0], [1, 0, 0]])


def test_gspo_by_hand_unclipped_and_clipped() -> None:
    # A = (1, -1), eps 0.2: s0 = 1.105 is inside; s1 = 1.649 with A < 0 takes the unclipped (lower) branch
    loss, g, m = _grad("gspo", G_LP, G_OLD, torch.tensor([1.0, -1.0]), G_MASK, beta=0.0)
    assert loss == pytest.approx(-(E(0.1) - E(0.5)) / 2, rel=1e-6)
    # d/dlogp_t of -s A / 2 = -s A / (2 |y|): row 0 over 2 tokens, row 1 over 1
    assert g[0].tolist() == pytest.approx([-E(0.1) / 4, -E(0.1) / 4, 0.0], rel=1e-5)
    assert g[1].tolist() == pytest.approx([E(0.5) / 2, 0.0, 0.0], rel=1e-5)
    assert m["ratio"] == pytest.approx((2 * E(0.1) + E(0.5)) / 3, rel=1e-6)  # s on each of the 3 tokens
    assert m["clip_low"] == m["clip_high"] == 0.0
    # A = (1, 1): s1 = 1.649 > 1.2 is clipped: its term is 1.2 and its gradient 0
    loss, g, m = _grad("gspo", G_LP, G_OLD, torch.tensor([1.0, 1.0]), G_MASK, beta=0.0)
    assert loss == pytest.approx(-(E(0.1) + 1.2) / 2, rel=1e-6)
    assert g[1].abs().max() == 0 and g[0, 0] != 0
    assert m["clip_high"] == pytest.approx(1 / 3)  # the clipped sequence's one token of 3
    # the paper's range (3e-4, 4e-4): s0 = 1.105 is clipped too
    _, g, m = _grad("gspo", G_LP, G_OLD, torch.tensor([1.0, 1.0]), G_MASK, beta=0.0, epsilon=3e-4, epsilon_high=4e-4)
    assert g.abs().max() == 0 and m["clip_high"] == 1.0


def test_gspo_differs_from_grpo_per_token_off_policy() -> None:
    # GRPO clips each token: row 0's ratios e^0.3 = 1.35 (clipped at A > 0) and e^-0.1 (not)
    _, g_grpo, m = _grad("grpo", G_LP, G_OLD, torch.tensor([1.0, 1.0]), G_MASK, beta=0.0)
    assert g_grpo[0, 0] == 0 and g_grpo[0, 1] != 0 and m["clip_high"] == pytest.approx(2 / 3)
    _, g_gspo, _ = _grad("gspo", G_LP, G_OLD, torch.tensor([1.0, 1.0]), G_MASK, beta=0.0)
    assert g_gspo[0, 0] == g_gspo[0, 1] != 0  # one sequence ratio: each token gets the same share


# -- CISPO ---------------------------------------------------------------------------------------
def test_cispo_by_hand() -> None:
    lp = torch.tensor([[-1.0, -2.0], [-0.5, 0.0]])
    old = torch.tensor([[-1.5, -1.0], [-0.5, 0.0]])  # ratios e^0.5 = 1.649, e^-1 = 0.368; 1
    mask = torch.tensor([[1, 1], [1, 0]])
    adv = torch.tensor([2.0, -1.0])
    # epsilon (1.0, 0.5): weights clip(r, 0, 1.5) = 1.5, 0.368; 1 (stop-gradient)
    loss, g, m = _grad("cispo", lp, old, adv, mask, beta=0.0, epsilon=1.0, epsilon_high=0.5)
    objective = 1.5 * 2 * -1.0 + E(-1) * 2 * -2.0 + 1.0 * -1.0 * -0.5
    assert loss == pytest.approx(-objective / 3, rel=1e-6)  # token mean over 3 tokens
    # d/dlogp_t = -w_t A / 3: the capped token keeps its gradient (GRPO's would be 0 there)
    assert g.flatten().tolist() == pytest.approx([-1.5 * 2 / 3, -E(-1) * 2 / 3, 1 / 3, 0.0], rel=1e-5)
    assert m["clip_high"] == pytest.approx(1 / 3) and m["clip_low"] == 0.0
    _, g_dapo, _ = _grad("dapo", lp, old, adv, mask, beta=0.0, epsilon=1.0, epsilon_high=0.5)
    assert g_dapo[0, 0] == 0  # DAPO drops the clipped token from the gradient


def test_cispo_default_lower_bound_is_none_and_its_upper_bound_is_absolute() -> None:
    lp, old = torch.tensor([[0.0, 0.0]]), torch.tensor([[-3.0, 5.0]])  # ratios e^3 = 20.1, e^-5 = 0.0067
    _, g, m = _grad("cispo", lp - 1.0, old - 1.0, torch.tensor([1.0]), torch.ones(1, 2), beta=0.0, epsilon=1.0,
                    epsilon_high=4.0)  # fmt: skip
    assert g[0].tolist() == pytest.approx([-5.0 / 2, -E(-5) / 2], rel=1e-5)  # capped at 5; never raised
    assert (m["clip_high"], m["clip_low"]) == (0.5, 0.0)


# -- on-policy: which loss gives GRPO's gradient --------------------------------------------------
def _batch(equal_lengths: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    torch.manual_seed(3)
    lp = -torch.rand(6, 5) * 3
    ref = lp - 0.2 * torch.rand(6, 5)
    mask = torch.ones(6, 5) if equal_lengths else (torch.arange(5) < torch.tensor([5, 2, 4, 1, 3, 5])[:, None]).float()
    return lp, ref, torch.randn(6), mask


@pytest.mark.parametrize("beta", [0.0, 0.04])
def test_gspo_on_policy_is_grpo(beta: float) -> None:
    """On-policy s_i = 1 and ds_i = mean_t dlogp: GSPO's gradient is GRPO's, KL term included."""
    lp, ref, adv, mask = _batch(equal_lengths=False)
    a = _grad("grpo", lp, lp, adv, mask, beta=beta, ref=ref)
    b = _grad("gspo", lp, lp, adv, mask, beta=beta, ref=ref, epsilon=3e-4, epsilon_high=4e-4)
    assert b[0] == pytest.approx(a[0], abs=1e-6)
    torch.testing.assert_close(b[1], a[1], rtol=1e-5, atol=1e-7)


def test_gspo_is_not_grpo_off_policy_or_with_token_weights() -> None:
    """Where it should not be: off-policy (one clipped sequence ratio against per-token clips), and
    with importance weights that vary along a completion (GSPO scales each completion's whole
    gradient by its mean weight; GRPO scales each token's)."""
    lp, ref, adv, mask = _batch(equal_lengths=False)
    old = lp + 0.3 * torch.randn(6, 5)
    assert not torch.allclose(
        _grad("gspo", lp, old, adv, mask, beta=0.0)[1], _grad("grpo", lp, old, adv, mask, beta=0.0)[1]
    )
    w = 0.5 + torch.rand(6, 5)
    a = _grad("gspo", lp, lp, adv, mask, beta=0.0, is_weights=w)[1]
    b = _grad("grpo", lp, lp, adv, mask, beta=0.0, is_weights=w)[1]
    assert not torch.allclose(a, b, atol=1e-4)


@pytest.mark.parametrize("beta", [0.0, 0.04])
def test_cispo_on_policy_is_dapo_and_is_grpo_only_at_equal_lengths(beta: float) -> None:
    """On-policy every CISPO weight is 1 and the loss is REINFORCE's token mean: DAPO's gradient.
    GRPO's per-completion mean equals it only when every completion has the same length."""
    for equal in (True, False):
        lp, ref, adv, mask = _batch(equal_lengths=equal)
        cispo = _grad("cispo", lp, lp, adv, mask, beta=beta, ref=ref, epsilon=1.0, epsilon_high=4.0)[1]
        torch.testing.assert_close(cispo, _grad("dapo", lp, lp, adv, mask, beta=beta, ref=ref)[1], rtol=1e-5, atol=1e-7)
        same_as_grpo = torch.allclose(cispo, _grad("grpo", lp, lp, adv, mask, beta=beta, ref=ref)[1], atol=1e-6)
        assert same_as_grpo == equal


def test_cispo_is_not_dapo_off_policy() -> None:
    lp, _, adv, mask = _batch(equal_lengths=False)
    old = lp + 0.5 * torch.randn(6, 5)  # many ratios outside [0.8, 1.2]
    a = _grad("cispo", lp, old, adv, mask, beta=0.0)[1]
    b = _grad("dapo", lp, old, adv, mask, beta=0.0)[1]
    assert not torch.allclose(a, b, atol=1e-4)
    assert int(((b == 0) & (mask > 0)).sum()) > int(((a == 0) & (mask > 0)).sum())  # DAPO drops clipped tokens


# -- every loss: weights, micro-batches ----------------------------------------------------------
@pytest.mark.parametrize("loss_type", list(LOSSES))
def test_zero_weights_drop_a_tokens_term_in_every_loss(loss_type: str) -> None:
    lp, ref, adv, mask = _batch(equal_lengths=False)
    w = torch.ones(6, 5)
    w[1] = 0.0  # sequence_mask dropped completion 1
    _, g, _ = _grad(loss_type, lp, lp, adv, mask, beta=0.04, ref=ref, is_weights=w, max_new_tokens=5)
    assert g[1].abs().max() == 0 and g[0].abs().max() > 0


@pytest.mark.parametrize("loss_type", ["gspo", "cispo"])
def test_micro_batches_equal_one_pass(loss_type: str) -> None:
    lp, ref, adv, mask = _batch(equal_lengths=False)
    old = lp + 0.05 * torch.randn(6, 5)
    x = lp.clone().requires_grad_(True)
    full, _ = grpo_loss(x, old, ref, adv, mask, loss_type=loss_type)
    (want,) = torch.autograd.grad(full, x)
    got = torch.zeros_like(lp)
    for rows in (slice(0, 2), slice(2, 3), slice(3, 6)):
        part, _ = grpo_loss(
            x[rows], old[rows], ref[rows], adv[rows], mask[rows], loss_type=loss_type, num_sequences=6,
            num_tokens=float(mask.sum()),
        )  # fmt: skip
        got += torch.autograd.grad(part, x)[0]
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-7)


# -- reductions by name --------------------------------------------------------------------------
def test_each_reduction_by_hand() -> None:
    from trainer.losses._surrogates import REDUCTIONS

    per_token = torch.tensor([[1.0, 3.0, 100.0], [2.0, 100.0, 100.0]])  # 100: masked out
    mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    assert float(REDUCTIONS["sequence_mean"](per_token, mask, 2.0, mask.sum(), 3)) == (2.0 + 2.0) / 2
    assert float(REDUCTIONS["token_mean"](per_token, mask, 2.0, mask.sum(), 3)) == 6.0 / 3
    assert float(REDUCTIONS["generation_limit"](per_token, mask, 2.0, mask.sum(), 3)) == 6.0 / (2 * 3)
    assert {spec.reduction for spec in LOSSES.values()} == set(REDUCTIONS)


def test_a_new_loss_is_a_line_in_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    from trainer.losses._surrogates import Loss, cispo_surrogate

    monkeypatch.setitem(LOSSES, "cispo_by_sequence", Loss(cispo_surrogate, "sequence_mean"))
    lp, old = torch.tensor([[-0.5, -1.0, 0.0], [-0.2, 0.0, 0.0]]), torch.tensor([[-0.7, -0.8, 0.0], [-0.1, 0.0, 0.0]])
    adv, mask = torch.tensor([1.0, -1.0]), torch.tensor([[1, 1, 0], [1, 0, 0]])
    mine = _grad("cispo_by_sequence", lp, old, adv, mask, beta=0.0)
    cispo = _grad("cispo", lp, old, adv, mask, beta=0.0)
    assert mine[2] == cispo[2]  # the same surrogate: the same clipping and ratio
    # cispo divides every token by the 3 tokens; by sequence, row 0's two tokens by 2 x 2 and row 1's one by 2
    assert torch.allclose(mine[1], cispo[1] * torch.tensor([[3 / 4, 3 / 4, 0.0], [3 / 2, 0.0, 0.0]]))
