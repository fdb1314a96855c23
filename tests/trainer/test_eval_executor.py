"""``grpo-envs eval --verifier-executor``: single-turn samples judged on the executor (a recording
one here; RayExecutor itself: tests/verifiers/test_ray_executor.py), multi-turn envs here."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.trainer.test_eval import rows
from tests.trainer.test_eval_http import Server
from tests.trainer.test_trainer import EchoDigit
from trainer import TrainerError
from trainer.eval import _run, evaluate
from verifiers import VerifyResult, Workload
from verifiers.executors import LocalExecutor

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
ENV = "grpo_envs/Arithmetic-v0"  # the math verifier: it has an executor form
ARGS: dict[str, Any] = dict(n=6, samples=4, max_new_tokens=2, device="cpu", temperature=1.0)


class Recording:
    """Judges in this process (`LocalExecutor`), or calls everything correct with ``yes``;
    records each call's size (groups call it from threads) and whether it was closed."""

    def __init__(self, *, yes: bool = False) -> None:
        self.yes, self.sizes, self.closed = yes, [], False
        self.lock = threading.Lock()

    def map(
        self, workload: Workload, references: Sequence[Any], completions: Sequence[Any], options: Mapping[str, Any]
    ) -> list[VerifyResult]:
        assert not self.closed
        with self.lock:
            self.sizes.append(len(completions))
        if self.yes:
            return [VerifyResult.judged("correct", "recorded.") for _ in completions]
        return LocalExecutor().map(workload, references, completions, options)

    def close(self) -> None:
        self.closed = True


def made_by_name(monkeypatch: pytest.MonkeyPatch, executor: Recording) -> list[str]:
    """`executor_named`, where eval imports it, gives ``executor``; the names it was asked for."""
    names: list[str] = []
    monkeypatch.setattr(_run, "executor_named", lambda name: names.append(name) or executor)
    return names


def test_every_sample_is_judged_on_the_executor_and_the_summary_is_the_local_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = evaluate(ENV, "demo", out=tmp_path / "local", **ARGS)
    executor = Recording()
    names = made_by_name(monkeypatch, executor)
    remote = evaluate(ENV, "demo", out=tmp_path / "remote", verifier_executor="ray", **ARGS)
    assert names == ["ray"] and executor.closed
    assert executor.sizes == [4 * 6]  # every task's group, every sample, in one batch
    assert remote == local and rows(tmp_path / "remote") == rows(tmp_path / "local")
    assert local["pass@1"]["value"] < 1.0  # the untrained demo model: the verdicts below differ


def test_chat_judges_single_turn_groups_on_the_executor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def answer(route: str, body: dict[str, Any]) -> tuple[int, bytes]:
        choice = {"message": {"role": "assistant", "content": "\\boxed{yes}"}, "finish_reason": "stop"}
        return 200, json.dumps({"choices": [choice], "usage": {"completion_tokens": 3}}).encode()

    server = Server(answer)
    chat: dict[str, Any] = dict(base_url=server.url, chat=True, n=3, samples=4, max_new_tokens=5, ks=[1, 4])
    try:
        local = evaluate(ENV, "m", out=tmp_path / "local", **chat)
        executor = Recording(yes=True)  # calls every answer correct
        made_by_name(monkeypatch, executor)
        remote = evaluate(ENV, "m", out=tmp_path / "remote", verifier_executor="ray", **chat)
    finally:
        server.close()
    assert len(server.requests) == 24 and executor.sizes == [4 * 3] and executor.closed  # one batch
    assert local["pass@1"]["value"] == 0.0 and remote["pass@1"]["value"] == 1.0  # the executor's verdicts
    assert [r["correct"] for r in rows(tmp_path / "remote")] == [True] * 12


def test_a_multi_turn_env_is_stepped_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    executor = Recording()
    made_by_name(monkeypatch, executor)
    with caplog.at_level(logging.WARNING, logger="trainer"):
        summary = evaluate(
            lambda: EchoDigit(turns=2), "demo", out=tmp_path / "a", verifier_executor="ray", **{**ARGS, "n": 2}
        )
    assert summary["samples"] == 8 and executor.sizes == [] and executor.closed
    assert "judges single-turn envs" in caplog.text


def test_a_bad_executor_is_one_clear_error_and_the_executor_is_closed_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(TrainerError, match="verifier_executor: executor must be 'local' or 'ray', got 'dask'"):
        evaluate(ENV, "demo", out=tmp_path / "a", verifier_executor="dask", **ARGS)
    assert not (tmp_path / "a").exists()
    executor = Recording()
    made_by_name(monkeypatch, executor)
    with pytest.raises(TrainerError):
        evaluate(ENV, str(tmp_path / "no" / "model"), out=tmp_path / "b", verifier_executor="ray", **ARGS)
    assert executor.closed
    script = shutil.which("grpo-envs", path=os.path.dirname(sys.executable))
    assert script is not None
    flags = ["--env", ENV, "--model", "demo", "--verifier-executor", "dask", "--out", str(tmp_path / "c")]
    bad = subprocess.run([script, "eval", *flags], capture_output=True, text=True, timeout=300)
    errors = [line for line in bad.stderr.splitlines() if line.startswith("grpo-envs eval: error:")]
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert len(errors) == 1 and "--verifier-executor: invalid choice: 'dask'" in errors[0]
