"""``grpo-envs audit`` on samples whose disagreements are known (the table below): every group and
count in the table, the JSONL, the PNG and the page; a judge that fails mid-run (not judged,
never a disagreement, judged again on resume); a run killed with SIGKILL resumes; ``--rescore``;
bad input in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.verifiers.judge_server import JudgeServer, slots
from trainer import TrainerError
from trainer.audit import AuditReport, audit
from trainer.audit._rows import Grade, read_samples
from verifiers.judges import LLMJudge
from verifiers.structure import read_completion

ROOT = Path(__file__).resolve().parents[2]

# key, gold, completion, stored (status, reason, extracted), what the scripted judge says
ROWS: list[tuple[str, str, str, tuple[str, str, str | None], str]] = [
    # the rule missed a tuple that the judge accepts: group 1, 3 samples
    (
        "a1",
        "(1, 2)",
        "<think>pairs</think>So $\\boxed{(1, 2)}$.",
        ("incorrect", "A value and a tuple differ.", "(1, 2)"),
        "CORRECT",
    ),
    (
        "a2",
        "(3, 4)",
        "<think>more</think>It is $\\boxed{(3, 4)}$.",
        ("incorrect", "A value and a tuple differ.", "(3, 4)"),
        "CORRECT",
    ),
    (
        "a3",
        "(0, 5)",
        "<think>x</think>Thus $\\boxed{(0,5)}$.",
        ("incorrect", "A value and a tuple differ.", "(0,5)"),
        "CORRECT",
    ),
    # the rule paid an equation that the judge rejects: group 2, 2 samples
    ("b1", "5", "So $x = 5$.", ("correct", "The values are equal.", "x = 5"), "INCORRECT"),
    ("b2", "7", "Hence $y = 7$.", ("correct", "The values are equal.", "y = 7"), "INCORRECT"),
    # words the rule cannot read, which the judge accepts: group 3, 1 sample
    (
        "c1",
        "18",
        "She has 18 apples.",
        ("unparseable", "The committed answer '18 apples' is not readable math.", "18 apples"),
        "CORRECT",
    ),
    # agreements
    ("d1", "4", "Four: $\\boxed{4}$", ("correct", "The values are equal.", "4"), "CORRECT"),
    ("d2", "9", "Nine: $\\boxed{9}$", ("correct", "The values are equal.", "9"), "CORRECT"),
    ("d3", "2", "Three: $\\boxed{3}$", ("incorrect", "The values are different.", "3"), "INCORRECT"),
    ("d4", "6", "Five: $\\boxed{5}$", ("incorrect", "The values are different.", "5"), "INCORRECT"),
    # the stored verdict is a timeout: not judged by the first grader, whatever the judge says
    ("e1", "8", "Eight: $\\boxed{9}$", ("timeout", "Timed out after 5.0 s.", None), "CORRECT"),
    # the judge fails on these: not judged by the second grader, never a disagreement
    ("f1", "1", "One: $\\boxed{2}$", ("incorrect", "The values are different.", "2"), "FAIL"),
    ("f2", "3", "Two: $\\boxed{1}$", ("correct", "The values are equal.", "1"), "FAIL"),
]
JUDGE = "m"
GROUPS = [  # count, first, second, shape
    (3, "incorrect: A value and a tuple differ.", f"correct: The judge {JUDGE} said '…'.", "think, boxed, tuple"),
    (2, "correct: The values are equal.", f"incorrect: The judge {JUDGE} said '…'.", "none, not boxed, equation"),
    (
        1,
        "unparseable: The committed answer '…' is not readable math.",
        f"correct: The judge {JUDGE} said '…'.",
        "none, not boxed, number with words",
    ),
]
KEYS = [["a1", "a2", "a3"], ["b1", "b2"], ["c1"]]


def write_rows(path: Path, rows: list[tuple[str, str, str, tuple[str, str, str | None], str]] = ROWS) -> Path:
    lines = []
    for key, gold, completion, (status, reason, extracted), _ in rows:
        row = {"id": key, "task_id": f"task-{key[0]}", "prompt": f"Question {key}?", "gold": gold}
        lines.append({**row, "completion": completion, "status": status, "reason": reason, "extracted": extracted})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def script_for(rows: list[tuple[str, str, str, tuple[str, str, str | None], str]], state: dict[str, Any]) -> Any:
    """The judge's verdicts by the final section it is shown; ``state["fail_after"]``: every call
    after that many is a 500 (a judge that dies mid-run); ``state["delay"]``: seconds per call."""
    says = {(read_completion(c).final or "").strip(): verdict for _, _, c, _, verdict in rows}

    def script(body: dict[str, Any]) -> tuple[int, str, float]:
        state["calls"] = state.get("calls", 0) + 1
        verdict = says[slots(body)["answer"]]
        if verdict == "FAIL" or state["calls"] > state.get("fail_after", 10**9):
            return 500, "overloaded", 0.0
        return 200, f"Comparing.\nVERDICT: {verdict}", state.get("delay", 0.0)

    return script


@pytest.fixture
def server() -> Iterator[tuple[JudgeServer, dict[str, Any]]]:
    state: dict[str, Any] = {}
    s = JudgeServer(script_for(ROWS, state))
    yield s, state
    s.close()


def judge(url: str) -> LLMJudge:
    return LLMJudge(base_url=url, model=JUDGE, retries=0, concurrency=4)


def groups_of(report: AuditReport) -> list[tuple[int, str, str, str]]:
    return [(g.count, g.signature.first, g.signature.second, g.signature.shape_text()) for g in report.groups]


def test_every_group_and_count_in_the_report_table_and_jsonl(tmp_path: Path, server: Any) -> None:
    s, _ = server
    report = audit(write_rows(tmp_path / "s.jsonl"), out=tmp_path / "r", judge=judge(s.url), show_progress=False)
    assert groups_of(report) == GROUPS
    assert [list(g.keys) for g in report.groups] == KEYS
    assert (report.samples, report.agree, report.disagreements) == (13, 4, 6)
    assert dict(report.not_judged) == {"first": 1, "second": 2}
    assert (report.first, report.second) == ("stored", "judge m")
    text = report.table()
    assert "13 samples, 4 agree, 6 disagree, not judged: 1 by stored, 2 by judge m" in text
    assert text.count("e.g. ") == 2 + 2 + 1  # two examples per group at most
    lines = [json.loads(line) for line in (tmp_path / "r" / "report.jsonl").read_text().splitlines()]
    assert [(x["count"], x["stored"], x["judge m"], x["keys"]) for x in lines] == [
        (count, first, second, keys) for (count, first, second, _), keys in zip(GROUPS, KEYS, strict=True)
    ]
    assert lines[0]["examples"][0] == {
        "key": "a1",
        "task": "task-a",
        "gold": "(1, 2)",
        "first_extracted": "(1, 2)",
        "second_extracted": "So $\\boxed{(1, 2)}$.",
        "label": None,
        "tail": "<think>pairs</think>So $\\boxed{(1, 2)}$.",
    }


def test_the_png_has_the_groups(tmp_path: Path, server: Any) -> None:
    from PIL import Image

    s, _ = server
    audit(write_rows(tmp_path / "s.jsonl"), out=tmp_path / "r", judge=judge(s.url), show_progress=False)
    png = tmp_path / "r" / "groups.png"
    with Image.open(png) as image:
        described = image.info["Description"].splitlines()
        colors = image.convert("RGB").getcolors(1 << 20)
    assert [line.split("\t")[0] for line in described] == ["3", "2", "1"]
    assert [line.split("\t")[1] for line in described] == [f"{f} | {s_} | {shape}" for _, f, s_, shape in GROUPS]
    assert colors is not None and len(colors) > 20  # bars and text, not a blank image


def test_a_judge_failing_mid_run_leaves_its_samples_not_judged_and_a_resume_judges_them(
    tmp_path: Path, server: Any
) -> None:
    s, state = server
    state["fail_after"] = 5  # the judge dies after five answers (asked one at a time, in order: a1 to b2)
    samples = write_rows(tmp_path / "s.jsonl")
    one_at_a_time = LLMJudge(base_url=s.url, model=JUDGE, retries=0, concurrency=1)
    cut = audit(samples, out=tmp_path / "r", judge=one_at_a_time, show_progress=False)
    assert dict(cut.not_judged) == {"first": 1, "second": 8}  # every call after the fifth failed (f1, f2 among them)
    bad = {"f1", "f2"}
    judged_keys = {k for g in cut.groups for k in g.keys}
    assert not judged_keys & bad
    for count, first, second, shape in groups_of(cut):  # each group is one of the known ones, smaller or equal
        known = next(g for g in GROUPS if g[1:] == (first, second, shape))
        assert count <= known[0]
    assert cut.disagreements + cut.agree + cut.not_judged["second"] + cut.not_judged["first"] >= 13
    state["fail_after"] = 10**9  # back up: the resumed audit asks only about the samples not judged
    before = state["calls"]
    whole = audit(samples, out=tmp_path / "r", judge=judge(s.url), show_progress=False)
    assert state["calls"] - before == 8
    assert groups_of(whole) == GROUPS and dict(whole.not_judged) == {"first": 1, "second": 2}


@pytest.mark.slow
def test_an_audit_killed_with_sigkill_resumes_to_the_report_of_an_uninterrupted_one(tmp_path: Path) -> None:
    # no judge failures here: the command retries those with backoff (the test above covers them)
    many = [(f"{k}-{n}", gold, f"{c} ({n})", stored, says) for n in range(12) for k, gold, c, stored, says in ROWS[:-2]]
    state: dict[str, Any] = {"delay": 0.05}
    s = JudgeServer(script_for(many, state))
    try:
        samples = write_rows(tmp_path / "s.jsonl", many)
        flags = [str(samples), "--out", str(tmp_path / "cut"), "--judge-url", s.url, "--judge-model", JUDGE]
        flags += ["--judge-options", '{"concurrency": 2}', "--no-progress"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "grpo_envs._cli", "audit", *flags],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        progress = tmp_path / "cut" / "progress.jsonl"
        deadline = time.monotonic() + 120
        while not (progress.exists() and progress.read_text().count("\n") >= 1 + 32):  # one chunk written
            assert proc.poll() is None, "the audit ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        written = progress.read_text().count("\n") - 1
        assert 32 <= written < len(many)
        with open(progress, "a") as f:
            f.write('{"key": "a1-0", "fir')  # as if the kill had torn a line: left out, never glued to the next
        before = state["calls"]
        state["delay"] = 0.0
        resumed = audit(samples, out=tmp_path / "cut", judge=judge(s.url), show_progress=False)
        asked = state["calls"] - before
        assert asked == len(many) - written  # only the samples the killed run had not written
        again = audit(samples, out=tmp_path / "cut", judge=judge(s.url), show_progress=False)
        assert state["calls"] - before == asked and groups_of(again) == groups_of(resumed)  # all kept: none asked
        whole = audit(samples, out=tmp_path / "whole", judge=judge(s.url), show_progress=False)
    finally:
        s.close()
    assert groups_of(resumed) == groups_of(whole) == [(12 * c, f, s_, sh) for c, f, s_, sh in GROUPS]
    assert (
        (resumed.agree, dict(resumed.not_judged))
        == (whole.agree, dict(whole.not_judged))
        == (48, {"first": 12, "second": 0})
    )
    assert [g.keys for g in resumed.groups] == [g.keys for g in whole.groups]


def test_rescore_lists_the_verdicts_the_current_verifier_changed(tmp_path: Path) -> None:
    rows = [  # stored by an older verifier; the current one says otherwise on the first three
        ("r1", "0.5", "So $\\boxed{\\frac{1}{2}}$.", ("incorrect", "The values are different.", "\\frac{1}{2}"), ""),
        (
            "r2",
            "0.25",
            "It is $\\boxed{\\frac{1}{4}}$.",
            ("incorrect", "The values are different.", "\\frac{1}{4}"),
            "",
        ),
        ("r3", "4", "<think>hmm</think>So $\\boxed{5}$.", ("correct", "The values are equal.", "5"), ""),
        ("r4", "3", "So $\\boxed{3}$.", ("correct", "The values are equal.", "3"), ""),
    ]
    report = audit(write_rows(tmp_path / "s.jsonl", rows), out=tmp_path / "r", rescore=True, show_progress=False)
    assert (report.first, report.second, report.rescore) == ("stored", "ours", True)
    assert [
        (g.count, g.signature.first, g.signature.second.split(":")[0], g.signature.shape_text()) for g in report.groups
    ] == [
        (2, "incorrect: The values are different.", "correct", "none, boxed, fraction"),
        (1, "correct: The values are equal.", "incorrect", "think, boxed, number"),
    ]
    assert "4 samples, 1 agree, 3 changed" in report.table()


@pytest.mark.slow
def test_the_command_line_and_its_errors_in_one_line(tmp_path: Path, server: Any) -> None:
    s, _ = server
    samples = write_rows(tmp_path / "s.jsonl", ROWS[:-2])  # no judge failures: the command retries them with backoff
    run = [sys.executable, "-m", "grpo_envs._cli", "audit"]
    ok = subprocess.run(
        [*run, str(samples), "--judge-url", s.url, "--judge-model", JUDGE, "--no-progress"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert "11 samples, 4 agree, 6 disagree" in ok.stdout and (tmp_path / "audit" / "audit.html").is_file()
    for flags, message in [
        ([str(tmp_path / "nope.jsonl")], "nope.jsonl not found: pass a JSONL of samples"),
        ([str(samples), "--judge-url", s.url], "--judge-url needs --judge-model NAME"),
        ([str(samples), "--config", '{"no_such": 1}'], "--config: 'no_such' is not a MathConfig field"),
        ([str(samples), "--config", "{}"], "holds another audit"),
    ]:
        bad = subprocess.run([*run, *flags], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2, bad.stderr
        last = bad.stderr.strip().splitlines()[-1]
        assert last.startswith("grpo-envs audit: error: ") and message in last, bad.stderr
        assert "Traceback" not in bad.stderr


def test_rows_without_a_stored_verdict_are_judged_by_ours_first(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [  # realdata's shape: id, gold, completion, a stored label and no verdict
        {"id": "x", "gold": "194", "completion": "Since 25 + 169 = 194, m + n comes to 194", "label": True},
        {"id": "y", "gold": "195", "completion": "So m + n = 194.\n\nThat is all.", "label": False},
        {"id": "z", "gold": "72", "completion": "The total is $\\boxed{72}$.", "label": True},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = audit(path, out=tmp_path / "r", config={"last_number_fallback": True}, show_progress=False)
    assert (report.first, report.second) == ("ours", "ours (last_number_fallback=True)")
    assert (report.samples, report.agree) == (3, 2)
    [g] = report.groups  # ours finds no answer, the fallback pays the last number: the label sides with it
    assert (g.keys, g.label_sides_with, g.signature.first.split(":")[0], g.signature.second.split(":")[0]) == (
        ("x",),
        (0, 1),
        "no_answer",
        "correct",
    )
    assert "[label: 0 ours, 1 ours (last_number_fallback=True)]" in report.table()
    with pytest.raises(TrainerError, match="--rescore compares the verdicts stored"):
        audit(path, out=tmp_path / "q", rescore=True, show_progress=False)


def test_evals_rows_are_keyed_by_task_seed_and_sample(tmp_path: Path) -> None:
    rows = [  # as trainer.eval writes them (test_eval checks that each carries its reference)
        {"task_seed": 11, "task_id": "t", "sample": j, "prompt": "2 + 2?", "completion": c, "reward": 0.0,
         "correct": s == "correct", "status": s, "reason": r, "extracted": e, "tokens": 3, "truncated": False,
         "attributes": {}, "reference": "4"}
        for j, (c, s, r, e) in enumerate([("\\boxed{4}", "correct", "The values are equal.", "4"),
                                          ("\\boxed{5}", "correct", "The values are equal.", "5")])
    ]  # fmt: skip
    (tmp_path / "samples.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    report = audit(tmp_path / "samples.jsonl", rescore=True, show_progress=False)
    assert (report.samples, report.agree, report.out) == (2, 1, tmp_path / "audit")
    assert [g.keys for g in report.groups] == [("11/1",)]


def test_rollout_log_rows_written_before_the_record_are_read_as_they_were(tmp_path: Path) -> None:
    rows = [  # as the trainer's rollout log wrote them before `grpo_envs.RolloutRecord`
        {"step": step, "task_seed": 7, "sample": 0, "task_id": "t", "prompt": "2 + 2?", "reference": "4",
         "completion": c, "reward": 0.0, "correct": None, "status": s, "reason": r, "extracted": e, "tokens": 3,
         "truncated": False, "overlong": -0.5}
        for step, (c, s, r, e) in enumerate([("\\boxed{4}", "timeout", "Timed out after 5.0 s.", None),
                                             ("\\boxed{5}", "correct", "The values are equal.", "5")], 1)
    ]  # fmt: skip
    (tmp_path / "rollouts.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    [first, second] = read_samples(tmp_path / "rollouts.jsonl")
    assert (first.key, first.gold, first.overlong) == ("1/7/0", "4", -0.5)
    assert first.stored == Grade("timeout", None, "Timed out after 5.0 s.", None)  # not judged, as stored
    assert second.stored == Grade("correct", True, "The values are equal.", "5")  # ``correct`` follows the status
    report = audit(tmp_path / "rollouts.jsonl", rescore=True, show_progress=False)
    assert (report.samples, report.agree, [g.keys for g in report.groups]) == (2, 0, [("2/7/0",)])
    assert report.overlong["samples"] == 2


@pytest.mark.slow
def test_the_trainers_rollout_log_is_what_audit_reads(tmp_path: Path) -> None:
    from tests.trainer.test_trainer import tiny
    from trainer.grpo import GRPOTrainer

    config = tiny(tmp_path, steps=2, prompts_per_step=2, num_generations=2)
    GRPOTrainer(config, show_progress=False, rollout_log=True).train()
    path = tmp_path / "run" / "rollouts.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(r["step"], r["sample"]) for r in rows] == [(s, j) for s in (1, 2) for _ in range(2) for j in range(2)]
    assert all(r["reference"] and r["prompt"] and isinstance(r["completion"], str) for r in rows)
    report = audit(path, rescore=True, show_progress=False)  # the verdicts stored are the current verifier's
    assert (report.samples, report.disagreements) == (8, 0)
    assert report.agree + report.not_judged["first"] == 8
    GRPOTrainer(
        tiny(tmp_path, steps=3, prompts_per_step=2, num_generations=2),
        resume=True,
        show_progress=False,
        rollout_log=True,
    ).train()
    steps = [json.loads(line)["step"] for line in path.read_text().splitlines()]
    assert steps == [1] * 4 + [2] * 4 + [3] * 4  # resumed from the last checkpoint (step 2): nothing twice
