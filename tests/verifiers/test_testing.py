"""The testing kit catches planted bugs, and our own verifiers keep every law."""

from __future__ import annotations

import json
import random
import re
import threading
import time
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_envs._cli import main as cli
from verifiers import VerifyResult
from verifiers import math as vm
from verifiers.errors import VerifierInputError
from verifiers.math import MathConfig
from verifiers.testing import (
    LAWS,
    LawBroken,
    assert_verifier_laws,
    check_verifier,
    from_batch_reward,
    gaming_completions,
    garbage,
    laws,
    math_problems,
)

# -- planted bugs ---------------------------------------------------------------------------------


def exact_string(reference: str, completion: str) -> bool:
    answer = vm.extract_answer(completion)
    return answer is not None and answer.strip().strip("$") == reference


def always_true(reference: str, completion: str) -> bool:
    return True


def crashes_on(pattern: str) -> Any:
    def verify(reference: str, completion: str) -> VerifyResult:
        if pattern == "braces" and completion.count("{") != completion.count("}"):
            raise ValueError("unbalanced braces")
        if pattern == "parens" and completion.count("(") != completion.count(")"):
            raise IndexError("unbalanced parentheses")
        if pattern == "frac" and re.search(r"\\frac\{[^}]*\}?$|\\frac\{$", completion):
            raise KeyError("incomplete fraction")
        if pattern == "environment" and "\\begin" in completion and "\\end" not in completion:
            raise RuntimeError("unclosed environment")
        return vm.verify(reference, completion)

    verify.__name__ = f"crashes_on_{pattern}"
    return verify


def accepts_supersets(reference: str, completion: str) -> bool:
    """Correct when any committed piece equals the gold: sprays and several values pass."""
    found = re.findall(r"\\boxed\{([^{}]*)\}", completion) or [completion]
    pieces = [p.strip() for chunk in found for p in re.split(r",|\bor\b|\s+", chunk) if p.strip()]
    return any(p == reference.strip() for p in pieces) or bool(vm.verify(reference, completion).correct)


def sleeps_above(n: int) -> Any:
    def verify(reference: str, completion: str) -> VerifyResult:
        if len(completion) > n:
            time.sleep(30)
        return vm.verify(reference, completion)

    verify.__name__ = f"sleeps_above_{n}"
    return verify


def nondeterministic(reference: str, completion: str) -> VerifyResult:
    result = vm.verify(reference, completion)
    if random.random() < 0.5:
        return VerifyResult.judged("incorrect", "coin flip")
    return result


def inconsistent(reference: str, completion: str) -> VerifyResult:
    """Says ``correct=True`` on every verdict, whatever the status (built bypassing the checks)."""
    result = vm.verify(reference, completion)
    lying = object.__new__(VerifyResult)
    for name in ("reward", "status", "reason", "extracted", "components"):
        object.__setattr__(lying, name, getattr(result, name))
    object.__setattr__(lying, "correct", True)
    return lying


def out_of_range(reference: str, completion: str) -> float:
    return 2.0 if vm.verify(reference, completion).correct else -0.5


def rejects_interval_unions(reference: str, completion: str) -> VerifyResult:
    """Not reflexive on one structure: any gold with a union of intervals is never matched."""
    if "\\cup" in reference:
        return VerifyResult.judged("incorrect", "unions are not supported")
    return vm.verify(reference, completion)


def reads_only_boxes(reference: str, completion: str) -> VerifyResult:
    """Reads ``\\boxed{}`` and nothing else: misses every other final-answer statement."""
    boxes = re.findall(r"\\boxed\{((?:[^{}]|\{[^{}]*\})*)\}", completion)
    if not boxes:
        return VerifyResult.judged("no_answer", "no box")
    return vm.verify(reference, f"\\boxed{{{boxes[-1]}}}")


def spins_on_long_input(reference: str, completion: str) -> VerifyResult:
    """Hangs on the CPU (a busy loop, which no watchdog thread can stop) on long completions."""
    if len(completion) > 200:
        while True:
            pass
    return vm.verify(reference, completion)


def reads_the_thinking(reference: str, completion: str) -> VerifyResult:
    """Reads the whole completion, thinking included (thinking detection switched off)."""
    return vm.verify(reference, completion, config=MathConfig(think_end=None))


def cuts_at_any_bar_token(reference: str, completion: str) -> VerifyResult:
    """Ends a completion at the first ``<|...|>`` token, as if each one ended the turn: in the
    Sky-T1 format it reads only the thinking (the bug this law was written after)."""
    body = re.sub(r"^(?:\s*<\|[^|<>\n]{1,40}\|>)+", "", completion)  # the leading ones were dropped
    return vm.verify(reference, re.split(r"<\|[^|<>\n]{1,40}\|>", body)[0])


PLANTED = [
    (exact_string, "rendering_invariance"),
    (always_true, "discrimination"),
    (always_true, "gaming_resistance"),
    (crashes_on("braces"), "totality"),
    (crashes_on("parens"), "totality"),
    (crashes_on("frac"), "totality"),
    (crashes_on("environment"), "totality"),
    (accepts_supersets, "gaming_resistance"),
    (nondeterministic, "determinism"),
    (inconsistent, "consistency"),
    (out_of_range, "reward_range"),
    (rejects_interval_unions, "reflexivity"),
    (reads_only_boxes, "rendering_invariance"),
    (reads_only_boxes, "reflexivity"),
    (reads_the_thinking, "thinking_never_counts"),
    (cuts_at_any_bar_token, "thinking_never_counts"),
]


@pytest.mark.parametrize(("verify", "law"), PLANTED, ids=lambda x: getattr(x, "__name__", x))
def test_planted_bugs_break_the_law_that_should_catch_them(verify: Any, law: str) -> None:
    # The default example budget. A bug that is not slowness must not hide behind the latency bound:
    # on a loaded machine a 3 s bound abandoned calls (Hypothesis rejected them) until totality on
    # crashes_on_frac gave up as "not checked"; 30 s keeps every call, and a hang still ends.
    report = check_verifier(verify, "math", laws=[law], latency_s=30.0)
    (result,) = report.laws
    assert not report.ok and not result.ok, report.table()
    assert result.counterexample is not None and result.detail


@pytest.mark.slow
@pytest.mark.parametrize("n", [100, 1000, 20_000])
def test_a_verifier_slow_on_long_input_breaks_latency_quickly(n: int) -> None:
    start = time.monotonic()
    report = check_verifier(sleeps_above(n), "math", laws=["latency"], latency_s=1.0)
    # "took longer than 1 s" (the sleep, abandoned) or, on a loaded machine, "took 1.2 s" (the
    # math verifier itself on a long input): either is the law broken
    assert not report.ok and "took" in report.laws[0].detail, report.laws[0].detail
    assert time.monotonic() - start < 10  # no long shrinking of a 30 s sleep


@pytest.mark.slow
@pytest.mark.parametrize("slow", [sleeps_above(200), spins_on_long_input], ids=["sleeps", "spins"])
def test_a_slow_verifier_fails_fast_and_no_law_passes_on_abandoned_calls(slow: Any) -> None:
    """A verifier that sleeps 30 s (or spins on the CPU) on completions over 200 characters, at
    max_examples=200: latency fails, every law that lost calls says "not checked", and the whole
    run stays within the documented bound (a fast verifier's time plus ~4 x latency_s)."""
    start = time.monotonic()
    report = check_verifier(slow, "math", max_examples=200)
    took = time.monotonic() - start
    assert took < 60, f"the run took {took:.0f} s"
    by_law = {r.law: r for r in report.laws}
    assert not report.ok and not by_law["latency"].ok and by_law["latency"].checked
    assert "longer than 3 s" in by_law["latency"].detail
    for r in report.laws:
        if r.law != "latency":
            assert not r.ok and not r.checked and r.detail.startswith("not checked"), report.table()
    assert "passed" not in report.table()
    assert "after 2, inputs of >= " in report.note and "no more calls were made" in report.note


@pytest.mark.slow
def test_after_two_abandoned_calls_long_inputs_are_skipped_and_short_ones_still_checked() -> None:
    """Slow only on huge inputs: the laws that never met one still pass; the others say why not."""
    report = check_verifier(sleeps_above(50_000), "math", max_examples=40, latency_s=2.5)  # room for a loaded CI
    by_law = {r.law: r for r in report.laws}
    assert not by_law["latency"].ok
    assert by_law["rendering_invariance"].ok and by_law["discrimination"].ok and by_law["reflexivity"].ok
    assert not by_law["totality"].ok and not by_law["totality"].checked, report.table()
    assert "skipped" in by_law["totality"].detail


def test_reflexivity_over_a_users_golds_lists_every_gold_that_fails() -> None:
    golds = ["42", "\\frac{1}{2}", "[0, 1) \\cup (2, 3]", "(1, 2)", "(0, 5) \\cup [7, 9]"]
    report = check_verifier(rejects_interval_unions, "math", laws=["reflexivity"], max_examples=5, golds=golds)
    (result,) = report.laws
    assert not result.ok and result.checked
    failed = {gold for gold, _, _ in result.failures}
    assert {"[0, 1) \\cup (2, 3]", "(0, 5) \\cup [7, 9]"} <= failed and "42" not in failed
    assert check_verifier(vm.verify, "math", laws=["reflexivity"], max_examples=5, golds=golds).ok
    with pytest.raises(VerifierInputError, match="golds must be a list"):
        check_verifier(vm.verify, "math", golds="42")
    with pytest.raises(VerifierInputError, match="does not apply"):
        check_verifier(vm.verify, "code", laws=["reflexivity"])


@pytest.mark.slow
def test_every_planted_bug_is_caught_by_a_full_check() -> None:
    for verify in (exact_string, always_true, accepts_supersets, crashes_on("braces")):
        laws = [law for law in LAWS if law != "latency"]
        report = check_verifier(verify, "math", laws=laws, max_examples=30, latency_s=30.0)  # no load-lost calls
        assert not report.ok, verify.__name__


def test_our_math_verifier_keeps_every_law() -> None:
    report = check_verifier(vm.verify, "math")
    assert report.ok, report.table()
    assert [r.law for r in report.laws] == list(LAWS)
    assert "passed" in report.table() and "FAILED" not in report.table()


@pytest.mark.docker
def test_our_code_verifier_keeps_every_law() -> None:
    from verifiers import code as vc
    from verifiers.sandbox import DockerSandbox

    with DockerSandbox(size=2) as box:
        report = check_verifier(
            lambda tests, completion: vc.verify(tests, completion, sandbox=box), "code", latency_s=20.0
        )
    assert report.ok, report.table()


def test_assert_verifier_laws_raises_with_the_table() -> None:
    with pytest.raises(AssertionError, match="discrimination"):
        assert_verifier_laws(always_true, "math", laws=["discrimination"], max_examples=10)


def test_a_trl_batch_reward_function_is_wrapped() -> None:
    def trl_reward(prompts: Any, completions: Any, completion_ids: Any = None, **kwargs: Any) -> list[float]:
        return [
            1.0 if vm.verify(ref, c).correct else 0.0 for ref, c in zip(kwargs["reference"], completions, strict=True)
        ]

    report = check_verifier(
        from_batch_reward(trl_reward), "math", laws=["rendering_invariance", "discrimination"], max_examples=20
    )
    assert report.ok, report.table()


# -- the strategies compose in a user's own tests -------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(st.data())
def test_strategies_in_a_users_hypothesis_test(data: st.DataObject) -> None:
    problem = data.draw(math_problems())
    assert vm.verify(problem.gold, data.draw(problem.renderings)).correct
    assert not vm.verify(problem.gold, data.draw(gaming_completions(problem.gold))).correct
    vm.verify(problem.gold, data.draw(garbage()))


def test_the_pytest_plugin_gives_a_one_line_fixture(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('pytest_plugins = ["verifiers.testing.pytest_plugin"]')
    pytester.makepyfile(
        "from verifiers import math as vm\n"
        "def test_mine(verifier_laws):\n    verifier_laws(vm.verify, 'math')\n"
        "def test_broken(verifier_laws):\n    verifier_laws(lambda r, c: True, 'math')\n"
    )
    result = pytester.runpytest("--verifier-examples", "5", "-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)


def test_leftover_watchdog_threads_do_not_block() -> None:
    before = threading.active_count()
    check_verifier(sleeps_above(100), "math", laws=["latency"], latency_s=0.2, max_examples=3)
    assert threading.active_count() <= before + 2  # abandoned calls are daemon threads


# -- each law alone, inside a user's own tests --------------------------------------------------------
def test_each_law_is_a_function_that_raises_law_broken() -> None:
    laws.rendering_invariance(vm.verify, "\\frac{1}{2}", "The answer is $0.5$.")
    laws.discrimination(vm.verify, "\\frac{1}{2}", "\\boxed{-\\frac{1}{2}}")
    laws.totality(vm.verify, "1", "\\frac{1}{")
    with pytest.raises(LawBroken, match="not judged correct") as broken:
        laws.rendering_invariance(exact_string, "\\frac{1}{2}", "\\boxed{0.5}")
    assert broken.value.law == "rendering_invariance"
    with pytest.raises(LawBroken, match="raised ValueError: unbalanced braces"):
        laws.totality(crashes_on("braces"), "1", "\\frac{1}{")
    with pytest.raises(LawBroken, match="outside"):
        laws.reward_range(out_of_range, "1", "\\boxed{1}")
    with pytest.raises(LawBroken, match="longer than 0.2 s"):
        laws.latency(sleeps_above(10), "1", "x" * 11, latency_s=0.2)
    assert set(laws.LAWS) == set(LAWS)


def test_bad_arguments_get_our_error_naming_the_fix() -> None:
    with pytest.raises(VerifierInputError, match="unknown laws.*pass some of"):
        check_verifier(vm.verify, "math", laws=["speed"])
    with pytest.raises(VerifierInputError, match="domain must be"):
        check_verifier(vm.verify, "physics")
    with pytest.raises(VerifierInputError, match="low < high"):
        check_verifier(vm.verify, "math", reward_range=(1.0, 0.0))


# -- grpo-envs check-verifier ----------------------------------------------------------------------
USER_MODULE = """
from verifiers import math as vm

def good(reference, completion):
    return vm.verify(reference, completion)

def string_match(reference, completion):
    return completion.strip() == reference

NOT_A_FUNCTION = 3
"""


def test_check_verifier_cli_prints_the_table_and_exits_by_the_verdict(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "user_rewards.py").write_text(USER_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", str(tmp_path))])

    # (--latency 10: the law's default 3 s is for a user's machine; a hang still fails it by far)
    assert cli(["check-verifier", "user_rewards:good", "--examples", "10", "--latency", "10"]) == 0
    out = capsys.readouterr().out
    assert f"{len(LAWS)}/{len(LAWS)} laws held" in out and out.count("passed") == len(LAWS)

    assert (
        cli(["check-verifier", "user_rewards:string_match", "--examples", "20", "--law", "rendering_invariance"]) == 1
    )
    out = capsys.readouterr().out
    assert "FAILED" in out and "rendering_invariance" in out and "broken: rendering_invariance" in out

    for target, message in [
        ("user_rewards", "MODULE:NAME"),
        ("no_such_module:f", "cannot import"),
        ("user_rewards:missing", "has no 'missing'"),
        ("user_rewards:NOT_A_FUNCTION", "not a function"),
    ]:
        assert cli(["check-verifier", target]) == 2
        assert message in capsys.readouterr().err
    assert cli(["check-verifier", "user_rewards:good", "--law", "speed"]) == 2
    assert "unknown laws" in capsys.readouterr().err


def test_check_verifier_cli_checks_a_datasets_golds(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "user_golds.py").write_text(USER_MODULE + UNION_BLIND)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.path", [p for p in __import__("sys").path if p not in ("", str(tmp_path))])
    rows = [{"answer": "42"}, {"answer": "[0, 1) \\cup (2, 3]"}, {"answer": "\\frac{3}{4}"}]
    (tmp_path / "golds.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    solutions = [{"answer": "2 + 2 = 4\n#### 4"}, {"answer": "5 * 7 = 35\n#### 35"}]
    (tmp_path / "gsm8k.jsonl").write_text("".join(json.dumps(r) + "\n" for r in solutions))

    flags = ["--examples", "5", "--law", "reflexivity"]
    assert cli(["check-verifier", "user_golds:good", *flags, "--golds", "golds.jsonl"]) == 0
    assert "1/1 laws held" in capsys.readouterr().out
    assert cli(["check-verifier", "user_golds:union_blind", *flags, "--golds", "golds.jsonl"]) == 1
    out = capsys.readouterr().out
    assert "1 of your golds fail reflexivity" in out and "[0, 1) \\\\cup (2, 3]" in out and "unions" in out
    assert cli(["check-verifier", "user_golds:good", *flags, "--golds", "gsm8k.jsonl", "--gold-from", "gsm8k"]) == 0
    capsys.readouterr()
    assert cli(["check-verifier", "user_golds:good", *flags, "--golds", "golds.jsonl", "--gold-key", "gold"]) == 2
    assert "has no field 'gold'" in capsys.readouterr().err
    assert cli(["check-verifier", "user_golds:good", *flags, "--golds", "golds.jsonl", "--gold-from", "gsm8k"]) == 2
    assert "needs '#### ANSWER'" in capsys.readouterr().err
    assert cli(["check-verifier", "user_golds:good", *flags, "--golds", "missing.jsonl"]) == 2
    assert "missing.jsonl" in capsys.readouterr().err


UNION_BLIND = """
from verifiers import VerifyResult

def union_blind(reference, completion):
    if "\\\\cup" in reference:
        return VerifyResult.judged("incorrect", "unions are not supported")
    return vm.verify(reference, completion)
"""


def test_check_verifier_console_script(tmp_path: Any) -> None:
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "user_rewards.py").write_text(USER_MODULE)
    script = Path(sys.executable).with_name("grpo-envs")
    run = subprocess.run(
        [str(script), "check-verifier", "user_rewards:good", "--examples", "3", "--law", "totality"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert run.returncode == 0, run.stderr
    assert "totality" in run.stdout and "1/1 laws held" in run.stdout


@pytest.mark.slow
def test_our_math_verifier_keeps_every_law_on_a_bigger_budget() -> None:
    report = check_verifier(vm.verify, "math", max_examples=300)
    assert report.ok, report.table()
