"""The testing kit keeps its word on thinking sections: totality draws cut-off and unclosed
thoughts in every family, the thinking law draws only what a verifier can judge from the
completion, our math verifier agrees with it on many seeds, and the CLI and the API give one
report for a user's `Domain`."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_envs._cli import main as cli
from verifiers import math as vm
from verifiers.structure import END_OF_TURN, read_completion
from verifiers.testing import LAWS, VerifierReport, check_verifier, math_problems, thinking_completions
from verifiers.testing._domain import WHOLE, LawResult
from verifiers.testing._thinking import THINKING_SHAPES, every_cut_off


def strips_the_final(reference: str, completion: str) -> Any:
    """Reads the final section and calls ``.strip()`` on it: raises on every cut-off thought."""
    final = read_completion(completion).final
    return vm.verify(reference, final.strip())  # type: ignore[union-attr]


def test_every_families_cut_off_and_unclosed_thought_has_no_final_section() -> None:
    cases = every_cut_off("42")
    opened = [shape for shape in THINKING_SHAPES if shape[2] is not None]
    assert len(cases) > len(opened)  # each family's cut-off, and most an ended-inside turn too
    assert all(read_completion(c).final is None for c in cases), [c for c in cases if read_completion(c).final]


@pytest.mark.parametrize("domain", ["math", "text"])
def test_totality_catches_a_verifier_that_raises_on_cut_off_thinking(domain: str) -> None:
    report = check_verifier(strips_the_final, domain if domain == "math" else _text_domain(), laws=["totality"])
    (result,) = report.laws
    assert not result.ok and "NoneType" in result.detail


@settings(max_examples=200, deadline=None, database=None)
@given(math_problems(), st.data())
def test_a_template_opened_thought_holds_no_end_of_turn_and_no_delimiter(problem: Any, data: st.DataObject) -> None:
    completion = data.draw(thinking_completions(problem))
    if "<think>" not in completion and "</think>" in completion:  # the chat template opened the thought
        thought = completion.split("</think>")[0]
        assert not any(token in thought for token in END_OF_TURN), completion


def test_our_math_verifier_keeps_the_thinking_law_on_many_seeds() -> None:
    # Before: 6 seeds of 30 (60 examples each) drew a completion the verifier rightly paid: a
    # template-opened thought whose turn ended (<|im_end|>) before </think>, or a rendering
    # holding its own "</think><answer>0</answer>". 10 seeds x 30 examples: about 6 s.
    for seed in range(10):
        report = check_verifier(
            vm.verify,
            "math",
            laws=["thinking_never_counts"],
            max_examples=30,
            seed=seed,
            isolation="thread",
            latency_s=30.0,
        )
        assert report.ok, f"seed {seed}:\n{report.table()}"


@pytest.mark.slow
def test_our_math_verifier_keeps_every_law_on_several_seeds() -> None:
    laws = [law for law in LAWS if law != "latency"]  # latency is the default run's (a loaded machine)
    for seed in range(3):
        report = check_verifier(vm.verify, "math", laws=laws, max_examples=8, seed=seed, latency_s=30.0)
        assert report.ok, f"seed {seed}:\n{report.table()}"


def test_a_seed_draws_another_sample_and_none_draws_the_same() -> None:
    def seen(seed: int | None) -> tuple[str, ...]:
        calls: list[str] = []

        def records(reference: str, completion: str) -> bool:
            calls.append(completion)
            return False

        check_verifier(records, "math", laws=["discrimination"], max_examples=5, seed=seed, isolation="thread")
        return tuple(calls)

    assert seen(None) == seen(None)
    assert seen(1) == seen(1) != seen(2)


def test_a_long_counterexample_is_shown_whole_or_with_both_ends() -> None:
    tail = "the decisive tail \\boxed{7}"
    short = "x" * 300 + tail
    huge = "y" * (3 * WHOLE) + tail
    for completion, elided in ((short, False), (huge, True)):
        table = VerifierReport(False, (LawResult("totality", False, 1, ("0", completion), "raised X"),)).table()
        assert "decisive tail" in table and ("characters]..." in table) is elided
        assert len(table) < 2 * WHOLE + 400


def test_the_cli_and_the_api_give_one_report_for_a_users_domain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "kit57_rewards.py").write_text(
        textwrap.dedent(
            """
            from verifiers.structure import read_completion
            def verify(reference, completion):
                final = read_completion(completion).final
                return 1.0 if final.strip().endswith(reference) else 0.0
            """
        )
    )
    (tmp_path / "kit57_domain.py").write_text(
        "from tests.verifiers.test_testing_thinking import _text_domain\nTEXT = _text_domain()\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(os.fspath(Path(__file__).resolve().parents[2]))
    args = ["kit57_rewards:verify", "--domain", "kit57_domain:TEXT", "--law", "totality", "--law", "discrimination"]
    assert cli(["check-verifier", *args, "--examples", "20", "--no-progress"]) == 1
    printed = capsys.readouterr().out
    import kit57_rewards  # type: ignore[import-not-found]

    api = check_verifier(kit57_rewards.verify, _text_domain(), laws=["totality", "discrimination"], max_examples=20)
    assert printed.startswith(api.table() + "\n"), (printed, api.table())
    assert "totality" in printed and not api.ok


def _text_domain() -> Any:
    """A user's text domain, built from scratch as docs/testing-kit.md shows."""
    from verifiers.testing import Domain, Problem, gaming_completions, garbage

    def problem(word: str) -> Problem:
        return Problem(
            "word",
            word,
            renderings=st.sampled_from([f"The answer is {word}.", f"\\boxed{{{word}}}"]),
            near_misses=st.sampled_from([f"The answer is {word}s.", f"\\boxed{{{word[::-1]}x}}"]),
        )

    return Domain("text", st.sampled_from(["cat", "dog", "bird"]).map(problem), gaming_completions, garbage())


def test_the_thinking_law_draws_template_opened_thoughts_for_a_verifier_told_so() -> None:
    from functools import partial

    def told(name: str) -> object:
        return partial(vm.verify, config=vm.MathConfig(thought_opened=name))

    for seed in range(3):  # 3 seeds x 30 examples, each law run twice: about 3 s
        report = check_verifier(
            vm.verify,
            "math",
            laws=["thinking_never_counts"],
            max_examples=30,
            seed=seed,
            isolation="thread",
            latency_s=30.0,
            opened_thought=told,
        )
        assert report.ok, f"seed {seed}:\n{report.table()}"
    # a verifier not told (the bug: a cut-off thought with no delimiter read as a plain answer) fails
    report = check_verifier(
        vm.verify,
        "math",
        laws=["thinking_never_counts"],
        max_examples=30,
        isolation="thread",
        latency_s=30.0,
        opened_thought=lambda name: vm.verify,
    )
    (row,) = report.laws
    assert not row.ok and "the chat template opened the thought ('think')" in row.detail, report.table()
    assert row.counterexample is not None and "</think>" not in row.counterexample[1]  # cut off or ended inside
