"""group_advantages and grpo_loss against hand-computed numbers."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
import torch

from trainer import TrainerError, group_advantages, grpo_loss, pass_at_k
from trainer.losses._math import k3_kl, token_logprobs


def test_advantages_hand_computed() -> None:
    assert torch.allclose(
        group_advantages([[1.0, 0.0, 0.0, 1.0]]), torch.tensor([[0.8660, -0.8660, -0.8660, 0.8660]]), atol=1e-4
    )
    # mean 0.25, unbiased std 0.5
    assert torch.allclose(group_advantages([[1.0, 0.0, 0.0, 0.0]]), torch.tensor([[1.5, -0.5, -0.5, -0.5]]), atol=1e-6)


def test_equal_rewards_give_exact_zeros() -> None:
    adv = group_advantages([[0.7, 0.7, 0.7], [0.0, 0.0, 0.0]])
    assert torch.equal(adv, torch.zeros(2, 3))


def test_missing_rewards_are_left_out_and_get_zero() -> None:
    adv = group_advantages([[1.0, None, 0.0, float("nan")]])
    # statistics over [1, 0]: mean 0.5, unbiased std 0.7071
    assert adv[0, 1] == 0 and adv[0, 3] == 0
    assert adv[0, 0] == pytest.approx(0.5 / math.sqrt(0.5), rel=1e-5)
    assert not torch.isnan(adv).any()


def test_scales() -> None:
    r = [[1.0, 0.0], [3.0, 1.0]]
    assert torch.equal(group_advantages(r, scale="none"), torch.tensor([[0.5, -0.5], [1.0, -1.0]]))
    batch_std = torch.tensor([1.0, 0.0, 3.0, 1.0]).std(unbiased=True)
    assert torch.allclose(group_advantages(r, scale="batch"), torch.tensor([[0.5, -0.5], [1.0, -1.0]]) / batch_std)
    with pytest.raises(TrainerError, match="G >= 2"):
        group_advantages([[1.0], [0.0]])
    with pytest.raises(TrainerError, match="scale"):
        group_advantages(r, scale="token")


def test_k3() -> None:
    x = torch.tensor([-1.0, -3.0], requires_grad=True)
    kl = k3_kl(x, x.detach())
    assert torch.equal(kl, torch.zeros(2))
    kl.sum().backward()
    assert torch.equal(x.grad, torch.zeros(2))
    assert float(k3_kl(torch.tensor(-1.0), torch.tensor(-2.0))) == pytest.approx(0.367879, abs=1e-6)


LP = torch.tensor([[-1.0, -2.0, 0.0, 0.0], [-0.5, -1.5, -2.5, -0.1]])
MASK = torch.tensor([[1, 1, 0, 0], [1, 1, 1, 1]])
ADV = torch.tensor([1.0, -1.0])


@pytest.mark.parametrize(("loss_type", "expected"), [("grpo", 0.0), ("dapo", 1 / 3), ("dr_grpo", 0.25)])
def test_on_policy_loss_values(loss_type: str, expected: float) -> None:
    loss, metrics = grpo_loss(LP, LP, None, ADV, MASK, beta=0.0, loss_type=loss_type, max_new_tokens=4)
    assert float(loss) == pytest.approx(expected, abs=1e-6)
    assert metrics["ratio"] == pytest.approx(1.0) and metrics["clip_low"] == metrics["clip_high"] == 0.0


def test_kl_penalty_enters_the_loss() -> None:
    ref = LP - 1.0  # k3 per token = e^-1 - (-1) - 1 = 0.367879
    loss, metrics = grpo_loss(LP, LP, ref, torch.zeros(2), MASK, beta=0.5, loss_type="dapo")
    assert float(loss) == pytest.approx(0.5 * 0.367879, abs=1e-5)
    assert metrics["kl"] == pytest.approx(0.367879, abs=1e-5)
    with pytest.raises(TrainerError, match="ref_logps"):
        grpo_loss(LP, LP, None, ADV, MASK, beta=0.1)


def test_clipping_zeroes_the_gradient_where_it_should() -> None:
    old = torch.zeros(1, 4)
    # ratios e^0.5 = 1.65 (above 1.2) and e^-0.5 = 0.61 (below 0.8) and 1.1, 0.9 (inside)
    logps = torch.tensor([[0.5, -0.5, math.log(1.1), math.log(0.9)]], requires_grad=True)
    mask = torch.ones(1, 4)
    for adv, dead in ((1.0, [0]), (-1.0, [1])):
        logps.grad = None
        loss, metrics = grpo_loss(logps, old, None, torch.tensor([adv]), mask, beta=0.0, loss_type="dapo")
        loss.backward()
        grad = logps.grad[0]
        for k in range(4):
            assert (grad[k] == 0) == (k in dead), (adv, k, grad)
        assert metrics["clip_high" if adv > 0 else "clip_low"] == pytest.approx(0.25)


def test_epsilon_high_widens_the_upper_clip() -> None:
    old = torch.zeros(1, 1)
    logps = torch.tensor([[math.log(1.25)]], requires_grad=True)
    loss, _ = grpo_loss(logps, old, None, torch.tensor([1.0]), torch.ones(1, 1), beta=0.0, epsilon_high=0.28)
    loss.backward()
    assert logps.grad[0, 0] != 0  # 1.25 < 1.28: not clipped


@pytest.mark.parametrize("loss_type", ["grpo", "dapo", "dr_grpo"])
def test_extra_padding_changes_nothing(loss_type: str) -> None:
    pad = torch.full((2, 3), -7.0)
    wide_lp = torch.cat([LP, pad], dim=1)
    wide_mask = torch.cat([MASK, torch.zeros(2, 3, dtype=MASK.dtype)], dim=1)
    old = LP - 0.1
    a, _ = grpo_loss(LP, old, LP, ADV, MASK, loss_type=loss_type, max_new_tokens=8)
    b, _ = grpo_loss(wide_lp, torch.cat([old, pad], 1), wide_lp, ADV, wide_mask, loss_type=loss_type, max_new_tokens=8)
    assert float(a) == pytest.approx(float(b), abs=1e-6)


def test_dapo_over_micro_batches_equals_one_pass() -> None:
    torch.manual_seed(0)
    lp = torch.randn(6, 5, requires_grad=True)
    old = lp.detach() + 0.05 * torch.randn(6, 5)
    ref = lp.detach() - 0.1
    adv = torch.randn(6)
    mask = (torch.rand(6, 5) > 0.3).float()
    full, _ = grpo_loss(lp, old, ref, adv, mask, loss_type="dapo")
    (grad_full,) = torch.autograd.grad(full, lp)
    total = mask.sum()
    grad_acc = torch.zeros_like(lp)
    for rows in (slice(0, 2), slice(2, 3), slice(3, 6)):
        part, _ = grpo_loss(
            lp[rows], old[rows], ref[rows], adv[rows], mask[rows], loss_type="dapo", num_tokens=float(total)
        )
        (g,) = torch.autograd.grad(part, lp)
        grad_acc += g
    assert torch.allclose(grad_full, grad_acc, atol=1e-6)


def test_any_float_dtype() -> None:
    loss, _ = grpo_loss(LP.bfloat16(), LP.bfloat16(), LP.bfloat16(), ADV, MASK.bool(), loss_type="dapo")
    assert loss.dtype == torch.float32 and float(loss) == pytest.approx(1 / 3, abs=1e-2)


def test_token_logprobs_match_log_softmax() -> None:
    torch.manual_seed(1)
    logits = torch.randn(3, 4, 11)
    ids = torch.randint(0, 11, (3, 4))
    expected = torch.log_softmax(logits, -1).gather(-1, ids.unsqueeze(-1)).squeeze(-1)
    assert torch.allclose(token_logprobs(logits, ids), expected, atol=1e-6)
    assert token_logprobs(logits.bfloat16(), ids).dtype == torch.float32


def test_pass_at_k() -> None:
    assert pass_at_k(8, 0, 4) == 0.0 and pass_at_k(8, 8, 1) == 1.0
    assert pass_at_k(8, 2, 1) == pytest.approx(0.25)
    assert pass_at_k(4, 1, 2) == pytest.approx(1 - math.comb(3, 2) / math.comb(4, 2))


def test_the_loss_math_loads_no_eval_module() -> None:
    """Importing the loss math (`trainer.losses._math`) loads none of `trainer.eval` (pass@k, which both
    use, is `trainer._metrics`), and few of the project's modules at all."""
    code = "import sys, trainer.losses._math\nprint(' '.join(m for m in sys.modules if m.split('.')[0] in ('trainer', 'grpo_envs', 'verifiers')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert "trainer.losses._math" in loaded and [m for m in loaded if m.startswith("trainer.eval")] == []
    assert len(loaded) < 15, sorted(loaded)


@pytest.mark.parametrize("loss_type", ["grpo", "dr_grpo"])
def test_per_sequence_losses_over_micro_batches_equal_one_pass(loss_type: str) -> None:
    torch.manual_seed(2)
    lp = torch.randn(6, 5, requires_grad=True)
    old, ref, adv = lp.detach() + 0.05 * torch.randn(6, 5), lp.detach() - 0.1, torch.randn(6)
    mask = (torch.rand(6, 5) > 0.3).float()
    full, _ = grpo_loss(lp, old, ref, adv, mask, loss_type=loss_type, max_new_tokens=5)
    (grad_full,) = torch.autograd.grad(full, lp)
    grad_acc = torch.zeros_like(lp)
    for rows in (slice(0, 4), slice(4, 6)):
        part, _ = grpo_loss(
            lp[rows],
            old[rows],
            ref[rows],
            adv[rows],
            mask[rows],
            loss_type=loss_type,
            max_new_tokens=5,
            num_sequences=6,
        )
        (g,) = torch.autograd.grad(part, lp)
        grad_acc += g
    assert torch.allclose(grad_full, grad_acc, atol=1e-6)
    alone, _ = grpo_loss(lp[0:4], old[0:4], ref[0:4], adv[0:4], mask[0:4], loss_type=loss_type, max_new_tokens=5)
    counted, _ = grpo_loss(
        lp[0:4], old[0:4], ref[0:4], adv[0:4], mask[0:4], loss_type=loss_type, max_new_tokens=5, num_sequences=6
    )
    assert float(counted.detach()) == pytest.approx(float(alone.detach()) * 4 / 6)  # its share of the whole batch


def test_truncated_is_weights_by_hand() -> None:
    from trainer.losses._math import sampler_mismatch, truncated_is_weights

    train = torch.tensor([[-1.0, -2.0, -0.5, -4.0]])
    sampler = torch.tensor([[-1.0, -3.0, -0.1, -1.0]])
    w = truncated_is_weights(train, sampler, cap=2.0)
    assert w.tolist()[0] == pytest.approx([1.0, 2.0, math.exp(-0.4), math.exp(-3.0)])  # e^1 capped at 2
    assert not w.requires_grad
    assert truncated_is_weights(train, sampler, cap=10.0)[0, 1].item() == pytest.approx(math.e)
    with pytest.raises(TrainerError, match="cap must be > 0"):
        truncated_is_weights(train, sampler, cap=0.0)
    mask = torch.tensor([[1, 1, 1, 0]])  # the last token is padding: left out
    m = sampler_mismatch(train, sampler, mask)
    assert m["logp_abs_diff"] == pytest.approx((0 + 1 + 0.4) / 3)
    k3 = [0.0, math.exp(1) - 1 - 1, math.exp(-0.4) + 0.4 - 1]  # exp(d) - d - 1, d = train - sampler
    assert m["k3_kl"] == pytest.approx(sum(k3) / 3)


def test_is_weights_scale_each_tokens_term_of_the_loss() -> None:
    lp = torch.tensor([[-1.0, -1.0], [-1.0, -1.0]])
    mask = torch.tensor([[1, 1], [1, 1]])
    adv = torch.tensor([1.0, -1.0])
    plain, _ = grpo_loss(lp, lp, None, adv, mask, beta=0.0, loss_type="dapo")
    ones, _ = grpo_loss(lp, lp, None, adv, mask, beta=0.0, loss_type="dapo", is_weights=torch.ones(2, 2))
    assert float(ones) == float(plain) == 0.0  # +1 and -1 advantages cancel
    w = torch.tensor([[0.5, 1.0], [1.0, 1.0]])
    weighted, _ = grpo_loss(lp, lp, None, adv, mask, beta=0.0, loss_type="dapo", is_weights=w)
    # per-token loss -A (ratio 1): [-1, -1, +1, +1]; the first weighted 0.5 -> sum 0.5, over 4 tokens
    assert float(weighted) == pytest.approx(0.5 / 4)
