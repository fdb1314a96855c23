"""bench/memory.py: GAE and the PPO losses by hand, and a smoke run of the tiny size."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]


def load_memory() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_memory", ROOT / "bench" / "memory.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


memory = load_memory()


# -- GAE: (rewards, values, mask, gamma, lam) -> advantages, by hand ------------------------------
@pytest.mark.parametrize(
    ("rewards", "values", "mask", "gamma", "lam", "expected"),
    [
        # lambda 1, gamma 1: the return from t minus V(t)
        ([[0.0, 0.0, 1.0]], [[0.5, 0.5, 0.5]], [[1, 1, 1]], 1.0, 1.0, [[0.5, 0.5, 0.5]]),
        # lambda 0: the one-step TD error r + V(t+1) - V(t); after the last token V = 0
        ([[0.0, 0.0, 1.0]], [[0.5, 0.5, 0.5]], [[1, 1, 1]], 1.0, 0.0, [[0.0, 0.0, 0.5]]),
        # gamma 0.5, lambda 1: r2 = 1 discounted twice, minus V = 0
        ([[0.0, 0.0, 1.0]], [[0.0, 0.0, 0.0]], [[1, 1, 1]], 0.5, 1.0, [[0.25, 0.5, 1.0]]),
        # right padding: the completion ends at t=1; the pad's value and reward do not leak in
        ([[0.0, 1.0, 9.0]], [[0.5, 0.5, 7.0]], [[1, 1, 0]], 1.0, 1.0, [[0.5, 0.5, 0.0]]),
    ],
)
def test_gae_by_hand(
    rewards: list[list[float]],
    values: list[list[float]],
    mask: list[list[int]],
    gamma: float,
    lam: float,
    expected: list[list[float]],
) -> None:
    adv, returns = memory.gae(torch.tensor(rewards), torch.tensor(values), torch.tensor(mask), gamma=gamma, lam=lam)
    assert torch.allclose(adv, torch.tensor(expected))
    assert torch.allclose(returns, adv + torch.tensor(values))


def test_ppo_policy_loss_clips_like_ppo() -> None:
    mask = torch.ones(1, 2)
    adv = torch.tensor([[1.0, -1.0]])
    same = torch.zeros(1, 2)
    # ratio 1: the loss is minus the mean advantage
    assert float(memory.ppo_policy_loss(same, same, adv, mask)) == pytest.approx(0.0)
    # ratio e^1 on a positive advantage is clipped at 1.2; on a negative one min() keeps e^1
    up = torch.ones(1, 2)
    expected = -(1.2 * 1.0 + torch.e * -1.0) / 2
    assert float(memory.ppo_policy_loss(up, same, adv, mask)) == pytest.approx(float(expected))


def test_value_loss_takes_the_larger_of_clipped_and_unclipped() -> None:
    mask = torch.ones(1, 1)
    old, returns = torch.tensor([[0.0]]), torch.tensor([[1.0]])
    # v = 1.0 moves past the clip (0.2): the clipped value 0.2 is further from R, so it counts
    assert float(memory.value_loss(torch.tensor([[1.0]]), old, returns, mask)) == pytest.approx(0.5 * 0.8**2)
    # v = 0.1 is inside the clip: both are the same
    assert float(memory.value_loss(torch.tensor([[0.1]]), old, returns, mask)) == pytest.approx(0.5 * 0.9**2)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_tiny_run_reports_every_variant() -> None:
    proc = subprocess.run(
        [sys.executable, "bench/memory.py", "--size", "tiny", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=570,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["isolation"] == "subprocess per variant"
    rows = {r["variant"]: r for r in result["rows"]}
    assert list(rows) == ["baseline", "grpo-beta0", "grpo", "ppo"]
    policy = rows["baseline"]["params"]
    hidden = memory.SIZES["tiny"]["hidden_size"]
    # what each variant holds: the reference is a second policy; the value model a third plus its head
    assert rows["grpo-beta0"]["params"] == policy and rows["grpo-beta0"]["trainable"] == policy
    assert rows["grpo"]["params"] == 2 * policy and rows["grpo"]["trainable"] == policy
    value = policy + hidden + 1
    assert rows["ppo"]["params"] == 2 * policy + value and rows["ppo"]["trainable"] == policy + value
    assert all(r["peak_mb"] > 100 for r in rows.values())  # a process with torch imported
    assert rows["ppo"]["vs_ppo"] == 1.0 and result["grpo_vs_ppo"] == rows["grpo"]["vs_ppo"]
