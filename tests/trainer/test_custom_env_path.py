"""The README's path for an env of one's own: the custom-env block saved as a module, trained
with ``grpo-envs train --env module:id`` on the demo model (no `alphabet` attribute needed) and
evaluated with ``grpo-envs eval`` — the documented commands, with fewer steps and tasks."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHORTER = {"--steps": "2", "--prompts_per_step": "2", "-n": "4", "--samples": "2"}


def commands() -> list[list[str]]:
    readme = (ROOT / "README.md").read_text()
    block = readme.split("<!-- custom-env-train -->")[1].split("<!-- /custom-env-train -->")[0]
    text = block.split("```bash\n")[1].split("```")[0].replace("\\\n", " ")
    out = []
    for line in text.strip().splitlines():
        words = shlex.split(line)
        for k, word in enumerate(words[:-1]):
            if word in SHORTER:
                words[k + 1] = SHORTER[word]
        out.append(words)
    return out


@pytest.mark.slow
def test_the_readme_custom_env_trains_and_evaluates(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    code = (
        readme.split("<!-- custom-env -->")[1].split("<!-- /custom-env -->")[0].split("```python\n")[1].split("```")[0]
    )
    (tmp_path / "my_envs.py").write_text(code)
    script = shutil.which("grpo-envs", path=os.path.dirname(sys.executable))
    assert script is not None
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(tmp_path)}
    train, evaluate = commands()
    assert train[:2] == ["grpo-envs", "train"] and evaluate[:2] == ["grpo-envs", "eval"]
    done = subprocess.run(
        [script, *train[1:], "--eval_prompts", "2"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "runs" / "multiply" / "final" / "config.json").exists()
    rows = [json.loads(line) for line in (tmp_path / "runs" / "multiply" / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows if "reward_mean" in r] == [1, 2]
    done = subprocess.run([script, *evaluate[1:]], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "pass@1" in done.stdout and "(4 tasks, 8 samples)" in done.stdout
    summary = json.loads((tmp_path / "runs" / "eval" / "multiply" / "summary.json").read_text())
    assert summary["env"] == "my_envs:my_envs/Multiply-v0" and summary["samples"] == 8
