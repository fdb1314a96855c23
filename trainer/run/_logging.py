"""Run records: metrics.jsonl (learning, deterministic), perf.jsonl (timings), TensorBoard,
a tqdm bar, and at the end a PNG plot and a summary table."""

from __future__ import annotations

import importlib.util
import json
import logging
import math
from collections import Counter
from pathlib import Path
from typing import Any

__all__ = ["RunLog", "UpdateTotals", "eval_metrics", "peak_memory_mb", "perf_row", "rollout_metrics"]

log = logging.getLogger("trainer")


def _truncate(path: Path, steps: int) -> None:
    """Keep the rows of the first ``steps`` steps (a resumed run rewrites what came after)."""
    if not path.exists():
        return
    rows = [line for line in path.read_text().splitlines() if line.strip()]
    kept = [r for r in rows if json.loads(r).get("step", 0) <= steps]
    path.write_text("".join(r + "\n" for r in kept))


class RunLog:
    def __init__(
        self,
        run_dir: Path,
        *,
        total_steps: int,
        resume_step: int = 0,
        run_id: str | None = None,
        show_progress: bool = True,
    ) -> None:
        """A fresh run's directory holds no logs (`trainer.run._rundir`); a resumed run's logs are cut
        back to its checkpoint's step. The first row of ``metrics.jsonl`` carries ``run_id``."""
        self.dir = run_dir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.metrics_path = run_dir / "metrics.jsonl"
        self.perf_path = run_dir / "perf.jsonl"
        for path in (self.metrics_path, self.perf_path, run_dir / "eval.jsonl"):
            _truncate(path, resume_step)
        self.run_id = run_id
        self.skipped: list[str] = []
        self._tb: Any = None
        self._purge_step = resume_step + 1 if resume_step else None
        self._tb_ok = importlib.util.find_spec("tensorboard") is not None
        if not self._tb_ok:
            self.skipped.append("TensorBoard (pip install tensorboard)")
        self.bar: Any = None
        if show_progress:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total_steps, initial=resume_step, desc="GRPO", unit="step", dynamic_ncols=True)

    @property
    def tb(self) -> Any:
        """The TensorBoard writer, opened at the first row (a trainer that never steps leaves no
        writer thread behind), or None without tensorboard."""
        if self._tb is None and self._tb_ok:
            try:
                from torch.utils.tensorboard import SummaryWriter

                self._tb = SummaryWriter(str(self.dir / "tensorboard"), purge_step=self._purge_step)
            except Exception:
                self._tb_ok = False
                self.skipped.append("TensorBoard (pip install tensorboard)")
        return self._tb

    def _append(self, path: Path, row: dict[str, Any]) -> None:
        with open(path, "a") as f:
            f.write(json.dumps(row, sort_keys=True) + "\n")

    def step(self, metrics: dict[str, Any], perf: dict[str, Any]) -> None:
        first = not self.metrics_path.exists() or self.metrics_path.stat().st_size == 0
        self._append(self.metrics_path, {**metrics, "run_id": self.run_id} if first else metrics)
        self._append(self.perf_path, perf)
        if self.tb is not None:
            for key, value in {**metrics, **perf}.items():
                if isinstance(value, (int, float)) and key != "step":
                    self.tb.add_scalar(key, value, metrics["step"])
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(reward=f"{metrics['reward_mean']:.3f}", correct=f"{metrics['correct_rate']:.2f}")

    def eval(self, row: dict[str, Any]) -> None:
        self._append(self.dir / "eval.jsonl", row)
        if self.tb is not None:
            for key, value in row.items():
                if isinstance(value, (int, float)) and key != "step":
                    self.tb.add_scalar(f"eval/{key}", value, row["step"])
        log.info("eval at step %d: %s", row["step"], {k: v for k, v in row.items() if k != "step"})

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        if self._tb is not None:
            self._tb.close()

    def finish(self) -> str:
        """Write the plot (if matplotlib is installed) and return the summary table."""
        rows = [json.loads(line) for line in self.metrics_path.read_text().splitlines() if line.strip()]
        evals = []
        eval_path = self.dir / "eval.jsonl"
        if eval_path.exists():
            evals = [json.loads(line) for line in eval_path.read_text().splitlines() if line.strip()]
        if rows:
            self._plot(rows, evals)
        return summary(rows, evals, self.skipped)

    def _plot(self, rows: list[dict[str, Any]], evals: list[dict[str, Any]]) -> None:
        """Reward (dashed) and correct rate (solid), each per step (faint) and as a 10-step mean,
        and the evals' accuracy as points: the two train lines coincide when reward is 0/1."""
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except Exception:
            self.skipped.append("the plot (pip install matplotlib)")
            return
        steps = [r["step"] for r in rows]
        fig, ax = plt.subplots(figsize=(7, 4))
        for key, label, color, style, width in (
            ("correct_rate", "correct rate", "tab:orange", "-", 2.5),
            ("reward_mean", "reward (mean)", "tab:blue", "--", 1.5),
        ):
            values = [r[key] for r in rows]
            smooth = [
                sum(values[max(0, k - 9) : k + 1]) / len(values[max(0, k - 9) : k + 1]) for k in range(len(values))
            ]
            ax.plot(steps, values, color=color, alpha=0.25, linewidth=0.8, linestyle=style, label=f"{label}, per step")
            ax.plot(steps, smooth, color=color, linewidth=width, linestyle=style, label=f"{label}, mean of 10 steps")
        points = [(e["step"], e["accuracy"]) for e in evals if "accuracy" in e]
        if points:
            ax.plot(*zip(*points, strict=True), "o", color="tab:green", label="eval accuracy (eval split)")
        ax.set_xlabel("step")
        ax.set_ylim(-0.05, 1.05)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(self.dir / "curves.png", dpi=120)
        plt.close(fig)


def perf_row(step: int, seconds: dict[str, float], tokens_per_s: float) -> dict[str, Any]:
    """A step's row of ``perf.jsonl``: ``time_<part>_s`` for each part of ``seconds`` (rollout: with
    async workers, the time the learner waited for the batch; generate, score, train, sync)."""
    return {"step": step, **{f"time_{part}_s": s for part, s in seconds.items()}, "tokens_per_s": tokens_per_s}


def rollout_metrics(groups: list[list[Any]]) -> dict[str, Any]:
    """Reward, correctness, status and length statistics of a step's rollouts."""
    flat = [r for g in groups for r in g]
    rewards = [r.reward for r in flat if r.reward is not None]
    mean = sum(rewards) / max(1, len(rewards))
    std = math.sqrt(sum((x - mean) ** 2 for x in rewards) / max(1, len(rewards)))
    statuses = Counter(r.status for r in flat)
    parts: dict[str, list[float]] = {}
    for r in flat:
        for name, value in r.reward_parts.items():
            parts.setdefault(name, []).append(value)
    zero_var = sum(len({r.reward for r in g if r.judged}) <= 1 for g in groups) / len(groups)
    errors = [r.reason for r in flat if not r.judged][:3]
    lengths = [r.generated for r in flat]
    out: dict[str, Any] = {
        "reward_mean": mean,
        "reward_std": std,
        "correct_rate": sum(r.correct is True for r in flat) / len(flat),
        "completion_len_mean": sum(lengths) / len(lengths),
        "completion_len_max": max(lengths),
        "truncated_frac": sum(r.truncated for r in flat) / len(flat),
        "masked_frac": sum(not r.judged for r in flat) / len(flat),  # unjudged: out of the loss
        "zero_variance_frac": zero_var,
        **{f"status/{s}": n for s, n in sorted(statuses.items())},
        **{f"reward/{name}": sum(v) / len(v) for name, v in sorted(parts.items())},
    }
    if errors:
        out["errors"] = errors
    return out


def summary(rows: list[dict[str, Any]], evals: list[dict[str, Any]], skipped: list[str]) -> str:
    if not rows:
        return "no steps were run"
    k = max(1, min(10, len(rows) // 2))  # halves of a short run, never overlapping beyond one step
    head, tail = rows[:k], rows[-k:]
    steps = "step" if k == 1 else f"{k} steps"

    def avg(part: list[dict[str, Any]], key: str) -> float:
        return float(sum(r[key] for r in part) / len(part))

    lines = [
        f"{'':<24}{'first ' + steps:>16}{'last ' + steps:>16}",
        f"{'reward (mean)':<24}{avg(head, 'reward_mean'):>16.3f}{avg(tail, 'reward_mean'):>16.3f}",
        f"{'correct rate':<24}{avg(head, 'correct_rate'):>16.3f}{avg(tail, 'correct_rate'):>16.3f}",
        f"{'completion length':<24}{avg(head, 'completion_len_mean'):>16.1f}{avg(tail, 'completion_len_mean'):>16.1f}",
    ]
    if evals:
        last = evals[-1]
        lines.append(
            f"eval at step {last['step']}: accuracy {last['accuracy']:.3f}, "
            + ", ".join(f"{k} {v:.3f}" for k, v in last.items() if k.startswith("pass@"))
            + f", reward {last['reward_mean']:.3f}"
        )
    if skipped:
        lines.append("skipped: " + "; ".join(skipped))
    return "\n".join(lines)


class UpdateTotals:
    """An update's metrics, summed over its micro-batches (and over ranks afterwards): the loss, each
    micro-batch's token means weighted by its share of the update's ``tokens`` (so N ranks log
    what one process logs), per-completion shares by its share of the ``n`` rows; averaged over
    the iterations."""

    PER_ROW = frozenset({"is_seq_clip_frac"})

    def __init__(self, n: int, tokens: float, iterations: int, *, sampler: bool = False, corrected: bool = False):
        self.n, self.tokens, self.iterations = n, tokens, iterations
        self.values: dict[str, float] = dict.fromkeys(("loss", "kl", "clip_low", "clip_high", "ratio"), 0.0)
        if sampler:  # the generator's log-probs against the trainer's (`sampler_mismatch`)
            self.values.update(sampler_logp_diff=0.0, sampler_kl=0.0)
        if corrected:  # the importance weights (`trainer.losses._correction.ISWeights.metrics`)
            self.values.update(is_weight_mean=0.0, is_clip_frac=0.0, is_seq_clip_frac=0.0)

    def add(self, loss: float, metrics: dict[str, float], *, rows: int, tokens: float) -> None:
        self.values["loss"] += loss / self.iterations
        self._add(metrics, rows=rows, tokens=tokens, iterations=self.iterations)

    def add_once(self, mismatch: dict[str, float], weights: dict[str, float], *, rows: int, tokens: float) -> None:
        """A micro-batch's `sampler_mismatch` and importance-weight metrics (measured once per
        update, before it changes the policy)."""
        found = {"sampler_logp_diff": mismatch["logp_abs_diff"], "sampler_kl": mismatch["k3_kl"], **weights}
        self._add(found, rows=rows, tokens=tokens, iterations=1)

    def _add(self, metrics: dict[str, float], *, rows: int, tokens: float, iterations: int) -> None:
        for key, value in metrics.items():
            share = rows / self.n if key in self.PER_ROW else tokens / self.tokens
            self.values[key] += value * share / iterations


def eval_metrics(groups: list[list[Any]]) -> dict[str, float]:
    """Accuracy, pass@1, pass@G (from ``correct``, never ``reward > 0``) and mean reward."""
    from trainer._metrics import pass_at_k

    g = len(groups[0])
    correct = [[r.correct is True for r in grp] for grp in groups]
    rewards = [r.reward or 0.0 for grp in groups for r in grp]
    return {
        "accuracy": sum(map(sum, correct)) / (len(correct) * g),
        "pass@1": sum(pass_at_k(g, sum(c), 1) for c in correct) / len(correct),
        f"pass@{g}": sum(pass_at_k(g, sum(c), g) for c in correct) / len(correct),
        "reward_mean": sum(rewards) / len(rewards),
    }


def peak_memory_mb(device: Any) -> float:
    """Peak memory of this process: CUDA's allocator on a GPU, the resident set on CPU."""
    if device.type == "cuda":
        import torch

        return float(torch.cuda.max_memory_allocated(device) / 2**20)
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
