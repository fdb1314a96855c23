"""``grpo-envs tasks init`` and ``tasks check``: a scaffolded task passes (oracle 1, nop 0); a task
whose solution is wrong, one whose tests pass on no action, one that needs the network and a
malformed folder each fail with their reason, one JSON line per task, exit 1. One image built
for the three that share an environment (~8 s on 2 busy cores)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grpo_envs._cli import main
from verifiers.agentic import read_task
from verifiers.sandbox import image_tag

pytestmark = pytest.mark.docker


def test_init_then_check(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("good", "wrong-solution", "passes-on-nothing", "needs-net"):
        assert main(["tasks", "init", f"tasks/{name}"]) == 0
    assert main(["tasks", "init", "tasks/good"]) == 2  # exists: refused, nothing overwritten
    (tmp_path / "tasks/wrong-solution/solution/solve.sh").write_text("echo goodbye > /work/hello.txt\n")
    (tmp_path / "tasks/passes-on-nothing/tests/test.sh").write_text("echo 1 > /logs/verifier/reward.txt\n")
    toml = tmp_path / "tasks/needs-net/task.toml"
    toml.write_text(toml.read_text().replace('network_mode = "no-network"', 'network_mode = "public"'))
    (tmp_path / "tasks/broken").mkdir()
    (tmp_path / "tasks/broken/instruction.md").write_text("x")
    assert read_task(tmp_path / "tasks/good").verifier.artifacts == ("/work/hello.txt",)
    capsys.readouterr()

    assert main(["tasks", "check", "tasks", "--json", "--base-image", f"grpo-envs-task-base={image_tag()}"]) == 1
    rows = {r["task"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert set(rows) == {"good", "wrong-solution", "passes-on-nothing", "needs-net", "broken"}
    assert rows["good"]["ok"] and rows["good"]["oracle"]["status"] == "correct"
    assert rows["good"]["nop"]["status"] == "incorrect" and rows["good"]["build_s"] >= 0
    assert not rows["wrong-solution"]["ok"] and "reference solution scored 0" in rows["wrong-solution"]["reason"]
    assert not rows["passes-on-nothing"]["ok"] and "doing nothing scored 1" in rows["passes-on-nothing"]["reason"]
    assert rows["needs-net"]["reason"].startswith("needs network")
    assert rows["broken"]["reason"] == "task broken: no environment/Dockerfile and no [environment] docker_image"

    assert main(["tasks", "check", "tasks/good", "--base-image", f"grpo-envs-task-base={image_tag()}"]) == 0
    assert capsys.readouterr().out.startswith("ok   good  build ")
