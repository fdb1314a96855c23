"""``grpo-envs eval`` on CPU with the tiny demo model: the same tasks every run, every sample
written, a resumed run equal to an uninterrupted one, and bad input in one line."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.trainer.test_trainer import EchoDigit
from trainer import TrainerError
from trainer.eval import evaluate

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
ARGS: dict[str, Any] = dict(n=10, samples=4, max_new_tokens=2, device="cpu", temperature=1.0)


def rows(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (folder / "samples.jsonl").read_text().splitlines()]


def test_every_sample_is_written_and_the_summary_agrees_with_them(tmp_path: Path) -> None:
    summary = evaluate("grpo_envs/Digits-v0", "demo", out=tmp_path / "a", ks=[1, 4], **ARGS)
    written = rows(tmp_path / "a")
    assert len(written) == 40 and len({r["task_seed"] for r in written}) == 10
    assert {"prompt", "completion", "reward", "status", "reason", "extracted", "tokens", "reference"} <= set(written[0])
    assert all(isinstance(r["reference"], str) and r["reference"] for r in written)  # what `audit` re-judges against
    by_task: dict[int, list[bool]] = {}
    for r in written:
        by_task.setdefault(r["task_seed"], []).append(r["correct"] is True)
    assert summary["pass@1"]["value"] == pytest.approx(sum(sum(c) / 4 for c in by_task.values()) / 10)
    assert summary["pass@4"]["value"] == pytest.approx(sum(any(c) for c in by_task.values()) / 10)
    assert json.loads((tmp_path / "a" / "summary.json").read_text())["pass@1"] == summary["pass@1"]
    assert summary["statuses"] == dict(
        sorted({s: sum(r["status"] == s for r in written) for s in {r["status"] for r in written}}.items())
    )
    assert "op" in summary["by"]  # Digits' task attribute
    png = (tmp_path / "a" / "passk.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


def test_the_same_arguments_give_the_same_tasks_and_samples(tmp_path: Path) -> None:
    evaluate("grpo_envs/Digits-v0", "demo", out=tmp_path / "a", **ARGS)
    evaluate("grpo_envs/Digits-v0", "demo", out=tmp_path / "b", **ARGS)
    assert rows(tmp_path / "a") == rows(tmp_path / "b")
    evaluate("grpo_envs/Digits-v0", "demo", out=tmp_path / "c", **{**ARGS, "seed": 1})
    assert [r["task_seed"] for r in rows(tmp_path / "c")] != [r["task_seed"] for r in rows(tmp_path / "a")]


def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path: Path) -> None:
    whole = evaluate("grpo_envs/Digits-v0", "demo", out=tmp_path / "whole", **ARGS)
    cut = tmp_path / "cut"
    cut.mkdir()
    lines = (tmp_path / "whole" / "samples.jsonl").read_text().splitlines(keepends=True)
    (cut / "samples.jsonl").write_text("".join(lines[:14]) + lines[14][:25])  # 3.5 tasks, then a torn line
    resumed = evaluate("grpo_envs/Digits-v0", "demo", out=cut, resume=True, **ARGS)
    assert resumed == whole
    done = [r for r in rows(cut) if r["task_seed"] in {x["task_seed"] for x in rows(tmp_path / "whole")[:12]}]
    assert len(done) >= 12


OLD_KEYS = (  # a row of samples.jsonl as eval wrote it before `grpo_envs.RolloutRecord`
    "task_seed", "task_id", "sample", "prompt", "completion", "reward", "correct", "status", "reason", "extracted",
    "tokens", "truncated", "attributes", "reference",
)  # fmt: skip


def test_a_run_resumes_from_rows_written_before_the_record(tmp_path: Path) -> None:
    whole = evaluate("grpo_envs/Digits-v0", "demo", out=tmp_path / "whole", **ARGS)
    cut = tmp_path / "cut"
    cut.mkdir()
    old = [{k: row[k] for k in OLD_KEYS} for row in rows(tmp_path / "whole")[:12]]  # 3 tasks, in the old shape
    old = [{**row, "reason": f"(old) {row['reason']}"} for row in old]  # marked: a task done again would lose it
    (cut / "samples.jsonl").write_text("".join(json.dumps(row) + "\n" for row in old))
    resumed = evaluate("grpo_envs/Digits-v0", "demo", out=cut, resume=True, **ARGS)
    assert resumed == whole
    assert [{k: row[k] for k in OLD_KEYS} for row in rows(cut)[:12]] == old  # kept as they said, not redone


def test_bad_input_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TrainerError, match="cannot make env 'grpo_envs/Nope-v0'.*envs list"):
        evaluate("grpo_envs/Nope-v0", "demo", out=tmp_path / "x", **ARGS)
    with pytest.raises(TrainerError, match="each -k must be in \\[1, --samples\\]; got -k 8 with --samples"):
        evaluate("grpo_envs/Digits-v0", "demo", out=tmp_path / "x", ks=[8], **ARGS)
    with pytest.raises(TrainerError, match="-n and --samples must be >= 1, got -n 1 and --samples 0"):
        evaluate("grpo_envs/Digits-v0", "demo", out=tmp_path / "x", **{**ARGS, "n": 1, "samples": 0})
    evaluate("grpo_envs/Digits-v0", "demo", out=tmp_path / "y", **{**ARGS, "n": 1})
    with pytest.raises(TrainerError, match="exists: pass --resume"):
        evaluate("grpo_envs/Digits-v0", "demo", out=tmp_path / "y", **{**ARGS, "n": 1})
    with pytest.raises(TrainerError):
        evaluate("grpo_envs/Digits-v0", str(tmp_path / "no" / "such" / "model"), out=tmp_path / "z", **ARGS)


@pytest.mark.slow
def test_the_cli_prints_the_table_and_compares_runs(tmp_path: Path) -> None:
    script = shutil.which("grpo-envs", path=os.path.dirname(sys.executable))
    assert script is not None
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    base = [
        script,
        "eval",
        "--env",
        "grpo_envs/Digits-v0",
        "--model",
        "demo",
        "-n",
        "4",
        "--samples",
        "2",
        "--max-new-tokens",
        "1",
        "--device",
        "cpu",
    ]
    run = subprocess.run([*base, "--out", str(tmp_path / "r")], capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    assert "pass@1" in run.stdout and "maj@2" in run.stdout and "95% interval" in run.stdout
    both = subprocess.run(
        [script, "eval", "--compare", str(tmp_path / "r"), str(tmp_path / "r")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert both.returncode == 0 and both.stdout.count("pass@1") == 1
    bad = subprocess.run(
        [*base, "-k", "3", "--out", str(tmp_path / "s")], capture_output=True, text=True, timeout=300, env=env
    )
    assert (
        bad.returncode == 2
        and bad.stderr.strip().startswith("grpo-envs eval: error: each -k must be in [1, --samples]; got -k 3")
        and "Traceback" not in bad.stderr
    )


@pytest.mark.slow
def test_a_run_killed_mid_way_resumes_to_the_summary_of_an_uninterrupted_one(tmp_path: Path) -> None:
    script = shutil.which("grpo-envs", path=os.path.dirname(sys.executable))
    assert script is not None
    args = dict(n=64, samples=4, max_new_tokens=3, device="cpu", temperature=1.0)
    flags = ["--env", "grpo_envs/Digits-v0", "--model", "demo", "-n", "64", "--samples", "4", "--max-new-tokens", "3"]
    flags += ["--device", "cpu", "--temperature", "1.0", "--out", str(tmp_path / "cut")]
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    proc = subprocess.Popen([script, "eval", *flags], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    path = tmp_path / "cut" / "samples.jsonl"
    deadline = time.monotonic() + 240
    while not (path.exists() and path.read_text().count("\n") >= 32):  # a chunk of 8 tasks is written
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    written = path.read_text().count("\n")
    assert 32 <= written < 64 * 4  # killed mid-run
    resumed = subprocess.run([script, "eval", *flags, "--resume"], env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    whole = evaluate("grpo_envs/Digits-v0", "demo", out=tmp_path / "whole", **args)
    assert json.loads((tmp_path / "cut" / "summary.json").read_text()) == json.loads(json.dumps(whole))
    assert rows(tmp_path / "cut") == rows(tmp_path / "whole")


class CountingEcho(EchoDigit):
    """EchoDigit that counts the turns of each of its episodes (class-wide, in reset order)."""

    episodes: list[list[int]] = []

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        self.turns_taken = [0]
        CountingEcho.episodes.append(self.turns_taken)
        return super().reset(seed=seed, options=options)

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        self.turns_taken[0] += 1
        return super().step(action)


def test_a_multi_turn_env_runs_its_turns_through_the_model(tmp_path: Path) -> None:
    CountingEcho.episodes.clear()
    summary = evaluate(lambda: CountingEcho(turns=3), "demo", out=tmp_path / "a", **{**ARGS, "n": 6, "samples": 4})
    written = rows(tmp_path / "a")
    assert len(written) == 24 and summary["samples"] == 24
    turns = [t[0] for t in CountingEcho.episodes if t[0] > 0]  # the eval's probe resets take no turn
    assert len(turns) == 24 and max(turns) == 3 and all(1 <= t <= 3 for t in turns)
    for r, t in zip(written, turns, strict=True):  # the episodes in order: wrong turns were retried
        assert t == 3 or r["correct"] is True  # an episode ends early only on a right answer
        assert r["tokens"] >= t  # every turn generated at least one token
    assert summary["pass@1"]["value"] == pytest.approx(sum(r["correct"] is True for r in written) / 24)
