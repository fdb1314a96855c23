"""A new kind of verifier, defined in this file alone: a word counter (a completion is correct
when it has as many words as its reference says). It is a `Workload` (what its workers need,
the state each opens once, its batch function), a ``verify_many`` that takes an executor, and a
`Verifier` for an env; nothing else in the repository knows it. It runs on `LocalExecutor` here
and on `RayExecutor` in a loopback-only network namespace (ray_worker.py loads this file under
a name no Ray worker can import, so the workload reaches them pickled by value).
"""

from __future__ import annotations

import os
import random
import sys
import uuid
from collections.abc import Sequence
from typing import Any

import pytest
from ray_netns import need_namespace, run_worker

from grpo_envs import ANSWER_TAGS, ReasoningEnv, Task, Verifier, make_group
from verifiers import Needs, VerifyResult, Workload
from verifiers.executors import Executor, LocalExecutor

# -- the kind -----------------------------------------------------------------------------------
OPENED: list[str] = []  # the states opened in this process


def open_counter(cpus: int, unit: str = "words") -> dict[str, Any]:
    """A worker's long-lived state: here only who opened it (a model or a client in real life)."""
    state = {"id": uuid.uuid4().hex[:8], "pid": os.getpid(), "unit": unit, "imported": __name__ in sys.modules}
    OPENED.append(state["id"])
    return state


def count(
    state: dict[str, Any] | None, references: list[Any], completions: list[Any], options: dict[str, Any]
) -> list[VerifyResult]:
    """One verdict per completion; ``options["where"]``: the reason says which state judged it."""
    out = []
    for reference, text in zip(references, completions, strict=True):
        if not isinstance(text, str) or state is None:
            out.append(VerifyResult.judged("no_answer", "No words: not text."))
            continue
        n = len(text.split()) if state["unit"] == "words" else len(text)
        reason = f"{n} {state['unit']}, {reference} wanted."
        if options.get("where"):
            reason = f"{state['id']} {state['pid']} {state['imported']}"
        out.append(VerifyResult.judged("correct" if n == int(reference) else "incorrect", reason))
    return out


WORDS = Workload("words", count, open=open_counter, needs=Needs(cpu=1))


def verify_many(
    references: Sequence[Any], completions: Sequence[Any], *, executor: Executor | None = None, where: bool = False
) -> list[VerifyResult]:
    """The kind's public function: judged on ``executor`` (default: this process)."""
    return (executor or LocalExecutor()).map(WORDS, list(references), list(completions), {"where": where})


def words_verifier() -> Verifier:
    def batch(
        references: list[Any], answers: list[str], prompts: list[str | None], executor: Executor | None
    ) -> list[VerifyResult]:
        return verify_many(references, answers, executor=executor)

    return Verifier("words", batch)


class Words(ReasoningEnv):
    """Write exactly N words (in answer tags: the format hands the verifier the words themselves)."""

    default_format = ANSWER_TAGS

    def default_verifier(self) -> Verifier:
        return words_verifier()

    def make_task(self, rng: random.Random) -> Task:
        n = rng.randint(1, 5)
        return Task(f"words-{n}", f"Write exactly {n} words.", str(n))

    def reference_answer(self, task: Task) -> str:
        return " ".join(["word"] * int(task.answer))


TEXTS = ["one two three", "one two", "a b c d e", "", "x " * 40, None]
REFS = ["3", "3", "5", "1", "40", "2"]


def verdicts(results: list[VerifyResult]) -> list[list[Any]]:
    return [[r.status, r.reward, r.correct, r.reason] for r in results]


def group_texts(group: Any) -> list[str]:
    return [
        group.env.reference_completion(group.task),
        "<answer>too many words here now</answer>",
        "none",
        "<answer></answer>",
    ]


# -- on LocalExecutor, in this process ---------------------------------------------------------
def test_the_new_kind_runs_on_the_local_executor_on_state_it_opens_once() -> None:
    OPENED.clear()
    executor = LocalExecutor()
    got = verify_many(REFS, TEXTS, executor=executor)
    assert [r.status for r in got] == ["correct", "incorrect", "correct", "incorrect", "correct", "no_answer"]
    assert got[1].reason == "2 words, 3 wanted."
    verify_many(REFS, TEXTS, executor=executor)
    assert len(OPENED) == 1  # one state for the executor's lifetime
    letters = LocalExecutor(worker_settings={"words": {"unit": "letters"}})
    assert verify_many(["5"], ["hello"], executor=letters)[0].reason == "5 letters, 5 wanted."
    assert len(OPENED) == 2  # other settings: another state


def test_an_env_of_the_new_kind_scores_a_group_on_the_executor() -> None:
    group = make_group(Words(), seed=3, num_generations=4)
    local = group.score(group_texts(group))
    assert local.rewards == (1.0, 0.0, 0.0, 0.0) and local.results[2].status == "no_answer"
    assert group.score(group_texts(group), executor=LocalExecutor()) == local


# -- on RayExecutor, inside a loopback-only network namespace ---------------------------------
def on_ray(report: dict[str, Any]) -> None:
    """Run by ray_worker.py (``kind`` scenario) with this file loaded as ``kind_under_test``."""
    import ray

    from verifiers.executors import RayExecutor

    ray.init(num_cpus=2, include_dashboard=False, _temp_dir=os.environ["GE_RAY_TEMP"])
    report["module"] = __name__
    report["local"] = verdicts(verify_many(REFS * 8, TEXTS * 8))
    group = make_group(Words(), seed=3, num_generations=4)
    report["group_local"] = list(group.score(group_texts(group)).rewards)
    with RayExecutor(timeout_s=120) as ex:
        report["ray"] = verdicts(verify_many(REFS * 8, TEXTS * 8, executor=ex))
        report["group_ray"] = list(group.score(group_texts(group), executor=ex).rewards)
        texts = [t for t in TEXTS if t is not None] * 8
        report["where"] = sorted({r.reason for r in verify_many(REFS[:5] * 8, texts, executor=ex, where=True)})
        report["workers"] = sorted([a.workload, a.pid] for a in ex.actors())
    report["driver_pid"] = os.getpid()
    ray.shutdown()


@pytest.fixture(scope="module")
def ray_run() -> dict[str, Any]:
    need_namespace()
    return run_worker("kind", args=[__file__])


@pytest.mark.slow
def test_the_new_kind_runs_on_ray_workers_that_never_import_this_file(ray_run: dict[str, Any]) -> None:
    assert ray_run["module"] == "kind_under_test"  # no worker can import a module of that name
    assert ray_run["ray"] == ray_run["local"]
    assert ray_run["group_ray"] == ray_run["group_local"] == [1.0, 0.0, 0.0, 0.0]
    workers = ray_run["workers"]
    assert [w for w, _ in workers] == ["words", "words"]  # one per CPU, as Needs(cpu=1) asks
    pids = {str(pid) for _, pid in workers}
    states = [reason.split() for reason in ray_run["where"]]
    assert {pid for _, pid, _ in states} == pids and str(ray_run["driver_pid"]) not in pids
    assert len(states) == len(pids)  # each worker opened its state once, for every call
    assert {imported for _, _, imported in states} == {"False"}  # pickled by value: never imported there
    assert ray_run["leftover"] == []
