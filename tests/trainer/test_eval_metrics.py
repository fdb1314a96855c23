"""The eval metrics against hand-computed numbers: pass@k with unjudged samples, maj@k with ties,
non-voting samples and equivalent answers, the bootstrap interval, the summary."""

from __future__ import annotations

import math

import pytest

from trainer.eval import Sample, bootstrap_interval, maj_at_k, majority_correct, pass_at_k_over_tasks, summarize
from trainer.eval._metrics import DRAWS


def s(task: str, correct: bool | None, answer: str | None = None, status: str | None = None, **kw: object) -> Sample:
    status = status or {True: "correct", False: "incorrect", None: "timeout"}[correct]
    return Sample(task, correct, status, answer, **kw)  # type: ignore[arg-type]


def test_pass_at_k_uses_judged_samples_and_leaves_out_short_tasks() -> None:
    tasks = {
        "a": [s("a", True), s("a", False), s("a", False), s("a", True)],  # n=4, c=2
        "b": [s("b", None), s("b", True), s("b", False)],  # judged n=2, c=1 (the timeout is left out)
        "c": [s("c", None), s("c", None), s("c", False)],  # judged n=1
    }
    one, left1 = pass_at_k_over_tasks(tasks, 1)
    assert one == {"a": 0.5, "b": 0.5, "c": 0.0} and left1 == 0
    two, left2 = pass_at_k_over_tasks(tasks, 2)
    assert two == {"a": pytest.approx(1 - math.comb(2, 2) / math.comb(4, 2)), "b": 1.0} and left2 == 1
    assert pass_at_k_over_tasks(tasks, 4) == ({"a": 1.0}, 2)


def test_reward_is_never_read_as_correctness() -> None:
    tasks = {"a": [s("a", False, reward=1.0), s("a", False, reward=0.9)]}
    assert pass_at_k_over_tasks(tasks, 2) == ({"a": 0.0}, 0)


def test_majority_ties_go_to_the_group_that_came_first() -> None:
    first_wrong = [s("t", False, "3"), s("t", True, "4"), s("t", False, "3"), s("t", True, "4")]
    assert majority_correct(first_wrong) is False
    assert majority_correct(list(reversed(first_wrong))) is True
    assert majority_correct([s("t", False, "3"), s("t", True, "4"), s("t", True, "4")]) is True


def test_samples_without_an_answer_and_unjudged_ones_do_not_vote() -> None:
    votes = [
        s("t", False, "no idea", status="no_answer"),
        s("t", False, "\\frac{", status="unparseable"),
        s("t", None, "7"),  # timed out: not judged, no vote
        s("t", None, "7"),
        s("t", True, "5"),
    ]
    assert majority_correct(votes) is True  # "5" is the only voter
    assert majority_correct(votes[:4]) is False  # nobody voted


def test_equivalent_answers_merge_only_when_equal_both_ways() -> None:
    votes = [s("t", False, "2"), s("t", True, "1/2"), s("t", True, "0.5")]
    assert majority_correct(votes) is False  # three different strings: the first wins
    both = lambda a, b: eval(a) == eval(b)  # noqa: E731,S307 (test data only)
    assert majority_correct(votes, both) is True  # 1/2 and 0.5 are one group of two
    one_way = lambda a, b: a == "1/2" and b == "0.5" or a == b  # noqa: E731
    assert majority_correct(votes, one_way) is False  # an asymmetric "equal" does not merge


def test_maj_at_k_is_the_expectation_over_subsets() -> None:
    # three judged samples: "4" (right), "5" (wrong), "4" (right)
    task = [s("t", True, "4"), s("t", False, "5"), s("t", True, "4")]
    assert maj_at_k({"t": task}, 1) == ({"t": pytest.approx(2 / 3)}, 0)
    # pairs in sample order: (4, 5) a tie, the first wins: right; (4, 4) right; (5, 4) a tie: wrong
    assert maj_at_k({"t": task}, 2) == ({"t": pytest.approx(2 / 3)}, 0)
    assert maj_at_k({"t": task}, 3) == ({"t": 1.0}, 0)
    assert maj_at_k({"t": task}, 4) == ({}, 1)


def test_maj_at_k_draws_seeded_subsets_when_there_are_too_many() -> None:
    task = [s("t", k % 3 == 0, str(k % 3)) for k in range(20)]  # C(20, 5) = 15504 subsets
    assert math.comb(20, 5) > DRAWS
    first, _ = maj_at_k({"t": task}, 5)
    assert maj_at_k({"t": task}, 5)[0] == first  # the same draws every call
    assert 0.0 < first["t"] < 1.0


def test_bootstrap_interval_brackets_the_mean_and_is_seeded() -> None:
    values = [0.0] * 50 + [1.0] * 50
    low, high = bootstrap_interval(values)
    assert low < 0.5 < high and 0.35 < low and high < 0.65
    assert bootstrap_interval(values) == (low, high)
    assert bootstrap_interval([0.7]) == (0.7, 0.7)


def test_summary_counts_statuses_lengths_truncation_and_attributes() -> None:
    samples = [
        s("a", True, "1", tokens=10, attributes={"difficulty": 1}),
        s("a", False, "2", tokens=30, truncated=True, attributes={"difficulty": 1}),
        s("b", None, None, tokens=20, attributes={"difficulty": 2}),
        s("b", False, "9", tokens=40, attributes={"difficulty": 2}),
    ]
    out = summarize(samples, ks=[1, 2])
    assert (out["tasks"], out["samples"], out["unjudged"]) == (2, 4, 1)
    assert out["statuses"] == {"correct": 1, "incorrect": 2, "timeout": 1}
    assert out["pass@1"]["value"] == pytest.approx(0.25) and out["pass@1"]["tasks"] == 2
    assert out["pass@2"]["tasks"] == 1 and out["pass@2"]["left_out"] == 1  # b has one judged sample
    assert out["tokens_mean"] == 25 and out["tokens_p95"] == 40 and out["truncated_rate"] == 0.25
    assert out["by"]["difficulty"]["1"]["pass@1"]["value"] == 0.5
    assert out["by"]["difficulty"]["2"]["pass@1"]["value"] == 0.0
    low, high = out["pass@1"]["ci95"]
    assert low <= out["pass@1"]["value"] <= high


def test_the_math_verifier_offers_an_equivalence_for_majority_votes() -> None:
    from grpo_envs import math_verifier

    eq = math_verifier().equivalent
    assert eq is not None
    votes = [s("t", False, "2"), s("t", True, "\\frac{1}{2}"), s("t", True, "0.5")]
    assert eq("\\frac{1}{2}", "0.5") and eq("0.5", "\\frac{1}{2}") and not eq("2", "0.5")
    assert majority_correct(votes, eq) is True


def test_each_pair_of_answers_is_asked_once_over_all_draws_and_ks() -> None:
    calls: list[tuple[str, str]] = []

    def eq(a: str, b: str) -> bool:
        calls.append((a, b))
        return a.strip() == b.strip()

    task = [s("t", k % 2 == 0, ["1", " 1", "2"][k % 3]) for k in range(9)]
    summarize(task, ks=[1, 2, 4, 8], equivalent=eq)
    assert len(calls) == len(set(calls)) and len(calls) <= 6  # 3 answers: at most 6 ordered pairs
