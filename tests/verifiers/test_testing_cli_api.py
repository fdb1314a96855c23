"""The testing kit's API (`check_verifier`) and its command (``grpo-envs check-verifier --domain
MODULE:NAME``) give the same verdicts for a user's own `Domain`: the same laws on the same draws.

Issue 57 reported that with a user's Domain the command said totality passed where the API said it
failed (5 runs of 5). Not reproduced here, neither on the code of that time (d0d2aa0^: both passed,
totality drew no cut-off thought then) nor now (both fail at the first cut-off thought); see the
report of branch i57c. This test keeps them together: the docs' own ``my_domain.py`` (from
docs/testing-kit.md), a verifier that raises on a thought that never closed and pays a near miss,
each side in its own process with another hash seed, from the user's folder, with the installed
console script (the folder joins ``sys.path`` behind the installed packages there)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_docs import blocks

LAWS = ["determinism", "totality", "discrimination", "rendering_invariance", "thinking_never_counts", "consistency"]
VERIFY = """
from verifiers.structure import read_completion


def verify(reference, completion):
    final = read_completion(completion).final
    if final is None:
        raise ValueError("the thinking never closed")
    return float(reference in final)  # "Parises" holds "Paris": a near miss paid
"""
API = f"""
import json
from verifiers.testing import check_verifier
from my_domain import CAPITALS
from cut_rewards import verify
report = check_verifier(verify, CAPITALS, laws={LAWS!r})
print(json.dumps([[r.law, r.examples, r.ok, r.checked, list(r.counterexample or [])] for r in report.laws]))
"""


def _user(folder: Path, hash_seed: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PATH=os.path.dirname(sys.executable) + os.pathsep + env["PATH"], PYTHONHASHSEED=hash_seed)
    return env


@pytest.mark.slow  # ~15 s: two processes, six laws each
def test_the_command_and_the_api_give_the_same_verdicts_for_a_users_domain(tmp_path: Path) -> None:
    (domain,) = [b for b in blocks("docs/testing-kit.md") if b.mark == "file" and b.value == "my_domain.py"]
    (tmp_path / "my_domain.py").write_text(domain.code)
    (tmp_path / "cut_rewards.py").write_text(VERIFY)
    (tmp_path / "api.py").write_text(API)
    run = dict(cwd=tmp_path, capture_output=True, text=True, timeout=300)
    api = subprocess.run([sys.executable, "api.py"], env=_user(tmp_path, "1"), **run)  # type: ignore[call-overload]
    assert api.returncode == 0, api.stderr[-3000:]
    laws = [f"--law={law}" for law in LAWS]
    cmd = [
        "grpo-envs",
        "check-verifier",
        "cut_rewards:verify",
        "--domain",
        "my_domain:CAPITALS",
        *laws,
        "--no-progress",
    ]
    cli = subprocess.run(cmd, env=_user(tmp_path, "2"), **run)  # type: ignore[call-overload]
    assert cli.returncode == 1, cli.stderr[-3000:]
    verdicts = json.loads(api.stdout.strip().splitlines()[-1])
    rows = {
        m[0]: (int(m[1]), m[2]) for m in re.findall(r"^(\w+)\s+(\d+)\s+(passed|FAILED|NOT CHECKED)", cli.stdout, re.M)
    }
    assert rows == {law: (n, "passed" if ok else "FAILED") for law, n, ok, _, _ in verdicts}
    failed = {law: example for law, _, ok, _, example in verdicts if not ok}
    assert {"totality", "discrimination"} <= set(failed)  # the cut-off thought raises; "Parises" is paid
    for _reference, completion in failed.values():
        assert repr(completion) in cli.stdout  # the same counterexample, shown whole
