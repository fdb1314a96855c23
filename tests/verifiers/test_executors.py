"""The executor seam without a cluster: `dispatch`'s rules against a scripted backend (order,
one retry on another actor, then "error"; the deadline, then "timeout"), `LocalExecutor`, and
what ``verify_many(executor=...)`` checks before sending anything. The same rules on real Ray
clusters: test_ray_executor.py."""

from __future__ import annotations

import pickle
import sys
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import pytest

from grpo_envs import Verifier, make_group
from verifiers import ExecutorError, VerifierInputError, VerifyResult, Workload, code, math
from verifiers.executors import LocalExecutor, RayExecutor, executor_named
from verifiers.executors._dispatch import HEDGE_MIN_S, ChunkLost, chunk_size, dispatch
from verifiers.math._api import WORKLOAD as MATH

INF = float("inf")


class ScriptedBackend:
    """Actor ``a`` judges item ``k`` as "correct" with reason ``f"{k} by {a}"``, except actors
    in ``dies`` (their chunks come back lost) and in ``hangs`` (never come back). ``delay(actor,
    n)`` is how long the actor's ``n``-th chunk takes (default: no time; the clock is fake).
    ``dies_after``: an actor's chunks after its first n come back lost."""

    def __init__(
        self,
        *,
        dies: Sequence[int] = (),
        hangs: Sequence[int] = (),
        clock: list[float] | None = None,
        delay: Callable[[int, int], float] | None = None,
        dies_after: Mapping[int, int] | None = None,
    ) -> None:
        self.dies, self.hangs = set(dies), set(hangs)
        self.clock = clock if clock is not None else [0.0]
        self.delay = delay or (lambda actor, n: 0.0)
        self.dies_after = dict(dies_after or {})
        self.sent: dict[Hashable, tuple[int, int, int]] = {}
        self.due: dict[Hashable, float] = {}
        self.nth: dict[Hashable, int] = {}
        self.cancelled: list[Hashable] = []

    def submit(self, actor: int, start: int, stop: int) -> Hashable:
        ref = len(self.sent)
        n = sum(a == actor for a, _, _ in self.sent.values())
        self.sent[ref] = (actor, start, stop)
        self.nth[ref] = n
        self.due[ref] = INF if actor in self.hangs else self.clock[0] + self.delay(actor, n)
        return ref

    def wait(self, pending: Sequence[Hashable], timeout_s: float) -> Sequence[Hashable]:
        ready = [r for r in pending if self.due[r] <= self.clock[0]]
        if not ready:  # nothing back yet: time passes until something is, or the whole wait
            self.clock[0] = min(self.clock[0] + timeout_s, min(self.due[r] for r in pending))
            ready = [r for r in pending if self.due[r] <= self.clock[0]]
        return sorted(ready, key=lambda r: self.due[r])[:1]

    def fetch(self, ref: Hashable) -> list[VerifyResult]:
        actor, start, stop = self.sent[ref]
        if actor in self.dies or self.nth[ref] >= self.dies_after.get(actor, INF):
            raise ChunkLost(f"actor {actor} died", actor_died=True)
        return [VerifyResult.judged("correct", f"{k} by {actor}") for k in range(start, stop)]

    def cancel(self, ref: Hashable) -> None:
        self.cancelled.append(ref)

    def copies(self) -> Counter[tuple[int, int]]:
        """How many times each chunk (start, stop) was sent."""
        return Counter((start, stop) for _, start, stop in self.sent.values())


def run(backend: ScriptedBackend, actors: Sequence[int], n: int, *, timeout_s: float = 10.0, hedge: float = 0.0) -> Any:
    return dispatch(
        backend, actors, n, most_per_chunk=4, depth=2, timeout_s=timeout_s, hedge=hedge, clock=lambda: backend.clock[0]
    )


def test_results_come_back_in_input_order_from_every_actor() -> None:
    out = run(ScriptedBackend(), [0, 1, 2], 23)
    assert [int(r.reason.split()[0]) for r in out.results] == list(range(23))
    assert {r.reason.split()[-1] for r in out.results} == {"0", "1", "2"}
    assert sum(out.chunks_done.values()) == len(range(0, 23, chunk_size(23, 3, 4, 2)))


def test_a_dead_actors_chunks_are_retried_once_on_another_actor() -> None:
    out = run(ScriptedBackend(dies=[1]), [0, 1], 16)
    assert all(r.status == "correct" and r.reason.endswith("by 0") for r in out.results)
    assert out.dead == {1}


def test_a_chunk_lost_twice_is_an_error_verdict() -> None:
    out = run(ScriptedBackend(dies=[0, 1]), [0, 1], 8)
    assert {r.status for r in out.results} == {"error"}
    assert out.results[0].correct is None and "lost this item twice" in out.results[0].reason
    assert out.dead == {0, 1}


def test_with_no_other_actor_left_a_lost_chunk_is_an_error_at_once() -> None:
    backend = ScriptedBackend(dies=[0])
    out = run(backend, [0], 8)
    assert {r.status for r in out.results} == {"error"}
    assert {actor for actor, _, _ in backend.sent.values()} == {0}  # never sent to a dead actor again


def test_a_hanging_actor_cannot_hold_the_call_past_its_timeout() -> None:
    backend = ScriptedBackend(hangs=[1])
    out = run(backend, [0, 1], 16, timeout_s=5.0)
    assert backend.clock[0] <= 5.0
    by_actor = {a: {r.status for k, r in enumerate(out.results) if _owner(backend, k) == a} for a in (0, 1)}
    assert by_actor == {0: {"correct"}, 1: {"timeout"}}
    assert out.abandoned and set(out.abandoned) == {1} and backend.cancelled


def _owner(backend: ScriptedBackend, k: int) -> int:
    return next(a for a, start, stop in backend.sent.values() if start <= k < stop)


# -- stragglers: a slow actor's chunks go again to an idle one, first answer wins ----------------
def test_a_slow_actors_chunks_are_sent_again_to_an_idle_actor() -> None:
    backend = ScriptedBackend(delay=lambda actor, n: 100.0 if actor == 1 else 0.0)
    out = run(backend, [0, 1], 16, timeout_s=50.0, hedge=3.0)
    assert [r.reason for r in out.results] == [f"{k} by 0" for k in range(16)]
    assert backend.clock[0] == pytest.approx(HEDGE_MIN_S)  # actor 0 answered at once: the floor
    assert out.hedged == 2 and max(backend.copies().values()) == 2
    slow = [ref for ref, (actor, _, _) in backend.sent.items() if actor == 1]
    assert sorted(backend.cancelled) == slow and out.abandoned == {1: slow}  # its copies lost the race


def test_the_original_wins_when_it_answers_before_the_copy() -> None:
    # actor 0 answers its own two chunks at once, then takes 10 s; actor 1 takes 2 s
    backend = ScriptedBackend(delay=lambda actor, n: 2.0 if actor == 1 else (0.0 if n < 2 else 10.0))
    out = run(backend, [0, 1], 16, timeout_s=50.0, hedge=3.0)
    owners = {r.reason.split()[-1] for k, r in enumerate(out.results) if _owner(backend, k) == 1}
    assert owners == {"1"} and {r.status for r in out.results} == {"correct"}
    assert backend.clock[0] == pytest.approx(2.0)
    copies = [ref for ref, (actor, _, _) in backend.sent.items() if actor == 0 and backend.nth[ref] >= 2]
    assert len(copies) == 2 and sorted(backend.cancelled) == copies


def test_a_copy_that_is_lost_leaves_the_original_to_answer() -> None:
    backend = ScriptedBackend(delay=lambda actor, n: 5.0 if actor == 1 else 0.0, dies_after={0: 2})
    out = run(backend, [0, 1], 16, timeout_s=50.0, hedge=3.0)
    assert {r.status for r in out.results} == {"correct"}
    assert {r.reason.split()[-1] for k, r in enumerate(out.results) if _owner(backend, k) == 1} == {"1"}
    assert out.dead == {0} and backend.clock[0] == pytest.approx(5.0)


def test_each_chunk_goes_out_at_most_twice_and_the_deadline_still_holds() -> None:
    backend = ScriptedBackend(hangs=[1, 2])
    out = run(backend, [0, 1, 2], 24, timeout_s=20.0, hedge=3.0)
    assert backend.clock[0] <= 20.0
    assert max(backend.copies().values()) == 2  # the copies to actor 0 came back; no third copy
    assert {r.status for r in out.results} == {"correct"}


def test_no_copy_goes_out_before_the_floor() -> None:
    backend = ScriptedBackend(delay=lambda actor, n: 0.5 if actor == 1 else 0.0)
    out = run(backend, [0, 1], 16, timeout_s=50.0, hedge=3.0)
    assert out.hedged == 0 and len(backend.sent) == 4  # 0.5 s is under the 1 s floor
    assert {r.reason.split()[-1] for k, r in enumerate(out.results) if _owner(backend, k) == 1} == {"1"}


def test_chunks_are_small_enough_for_every_actor_and_never_empty() -> None:
    assert chunk_size(64, 2, 64, 2) == 16
    assert chunk_size(8192, 256, 64, 2) == 16
    assert chunk_size(100_000, 4, 64, 2) == 64
    assert chunk_size(0, 4, 64, 2) == 1
    assert run(ScriptedBackend(), [0, 1], 0).results == []


# -- the seam in verify_many and Group.score ----------------------------------------------------
class Recording:
    """An executor that records what it is sent and judges nothing."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[Any], list[Any], dict[str, Any]]] = []

    def map(
        self, workload: Workload, references: Sequence[Any], completions: Sequence[Any], options: Mapping[str, Any]
    ) -> list[VerifyResult]:
        self.calls.append((workload.name, list(references), list(completions), dict(options)))
        return [VerifyResult.judged("incorrect", "recorded.") for _ in completions]

    def close(self) -> None:
        pass


def test_local_executor_gives_what_verify_many_gives() -> None:
    golds, comps = ["2", "1/2", "3", "x^2"], ["1 + 1 = 2", r"\boxed{0.5}", "maybe 4", r"\boxed{x \cdot x}"]
    slow_ok = 60.0  # sympy's first import in a fresh worker, on a loaded machine
    local = math.verify_many(golds, comps, executor=LocalExecutor(), timeout_s=slow_ok)
    assert local == math.verify_many(golds, comps, timeout_s=slow_ok)


def test_a_bad_gold_raises_before_anything_is_sent() -> None:
    executor = Recording()
    with pytest.raises(VerifierInputError, match="gold is empty"):
        math.verify_many(["1", " "], ["1", "2"], executor=executor)
    with pytest.raises(VerifierInputError, match="test suites for"):
        code.verify_many([{"fn_name": "f", "inputs": [[1]], "outputs": [1]}], ["a", "b"], executor=executor)
    assert executor.calls == []


def test_code_sends_one_suite_per_completion_and_takes_no_sandbox_beside_an_executor() -> None:
    suite = {"fn_name": "f", "inputs": [[1]], "outputs": [2]}
    executor = Recording()
    code.verify_many(suite, ["def f(x): return 2", "x"], executor=executor, timeout_s=2.0)
    kind, suites, _, options = executor.calls[0]
    assert (kind, suites, options["timeout_s"]) == ("code", [suite, suite], 2.0)
    from verifiers.sandbox import FakeSandbox

    with pytest.raises(VerifierInputError, match="not both"):
        code.verify_many(suite, ["x"], executor=executor, sandbox=FakeSandbox())


def test_group_score_sends_its_answers_to_the_executor() -> None:
    group = make_group("grpo_envs/Arithmetic-v0", seed=11, num_generations=2)
    executor = Recording()
    score = group.score([group.env.reference_completion(group.task), None], executor=executor)  # type: ignore[list-item]
    assert [(kind, len(comps)) for kind, _, comps, _ in executor.calls] == [("math", 1)]
    assert score.results[0].reason == "recorded."  # the extracted answer went out
    assert score.results[1].status == "no_answer"  # not text: judged in the caller


def test_a_verifier_of_your_own_runs_here_whatever_the_executor() -> None:
    mine = Verifier.from_fn(
        "exact", lambda ref, ans: VerifyResult.judged("correct" if ans == ref else "incorrect", "text.")
    )
    assert [r.correct for r in mine.verify_many(["4", "4"], ["4", "5"], executor=Recording())] == [True, False]


def test_verify_results_pickle_for_the_trip_back() -> None:
    r = VerifyResult.judged("incorrect", "Test 1 failed.", extracted="x", reward=0.5, components={"pass_rate": 0.5})
    assert pickle.loads(pickle.dumps(r)) == r


# -- RayExecutor without a cluster -------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"timeout_s": 0}, "timeout_s"),
        ({"chunk_size": 0}, "chunk_size"),
        ({"workers_per_node": -1}, "workers_per_node"),
        ({"hedge": -1}, "hedge must be a number >= 0"),
    ],
)
def test_ray_executor_names_a_bad_argument(kwargs: dict[str, Any], field: str) -> None:
    with pytest.raises(VerifierInputError, match=field):
        RayExecutor(**kwargs)


def test_ray_executor_without_ray_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(ExecutorError, match=r"pip install 'grpo-envs\[ray\]'"):
        math.verify_many(["1"], ["1"], executor=RayExecutor())


def test_a_ray_executor_starts_nothing_until_used() -> None:
    executor = RayExecutor("ray://nowhere:10001")
    assert executor.actors() == () and "ray://nowhere" in repr(executor)
    executor.close()
    with pytest.raises(ExecutorError, match="closed"):
        executor.map(MATH, ["1"], ["1"], {})


def test_executors_are_named_by_config() -> None:
    assert isinstance(executor_named("local"), LocalExecutor)
    assert isinstance(executor_named("ray"), RayExecutor)
    with pytest.raises(VerifierInputError, match="'local' or 'ray'"):
        executor_named("dask")


def test_importing_the_executors_does_not_import_ray() -> None:
    import subprocess

    code = "import grpo_envs, verifiers.executors, sys; print('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# -- workloads: the values executors run ---------------------------------------------------------
def test_a_workloads_digest_is_stable_across_processes_and_changes_with_what_shapes_its_workers() -> None:
    import subprocess

    code = "from verifiers.math._api import WORKLOAD; print(WORKLOAD.digest)"
    seen = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": seed}
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert seen == {MATH.digest}  # never hash(): the same in every process
    assert MATH.with_settings(extra=1).digest != MATH.digest
    from verifiers.code._verify import WORKLOAD as CODE

    assert len({MATH.digest, CODE.digest, CODE.with_settings(containers=2).digest}) == 3


def test_workloads_pickle_and_say_what_is_wrong_with_them() -> None:
    from verifiers import Needs

    assert pickle.loads(pickle.dumps(MATH)) == MATH and pickle.loads(pickle.dumps(MATH)).digest == MATH.digest
    with pytest.raises(VerifierInputError, match="name must be an identifier"):
        Workload("two words", MATH.batch)
    with pytest.raises(VerifierInputError, match=r"Workload\.open must be a function"):
        Workload("w", MATH.batch, open=3)  # type: ignore[arg-type]
    with pytest.raises(VerifierInputError, match=r"Needs\.cpu must be a finite number >= 0"):
        Needs(cpu=-1)


OPENED: list[int] = []


def open_state(cpus: int, tag: str = "a") -> str:
    OPENED.append(cpus)
    return f"{tag}{len(OPENED)}"


def echo(state: str | None, refs: list[Any], comps: list[Any], options: dict[str, Any]) -> list[VerifyResult]:
    return [VerifyResult.judged("correct", f"{state} {options['n']}") for _ in comps]


def closed(state: str) -> None:
    OPENED.append(-1)


def test_the_local_executor_opens_each_workloads_state_once_and_closes_it() -> None:
    OPENED.clear()
    echoes = Workload("echo", echo, open=open_state, close=closed)
    executor = LocalExecutor(worker_settings={"other": {"tag": "z"}})
    assert [r.reason for r in executor.map(echoes, ["r", "r"], ["c", "c"], {"n": 1})] == ["a1 1", "a1 1"]
    assert executor.map(echoes, ["r"], ["c"], {"n": 2})[0].reason == "a1 2"  # the same state
    assert executor.map(echoes.with_settings(tag="b"), ["r"], ["c"], {"n": 3})[0].reason == "b2 3"
    assert OPENED[:2] == [OPENED[0]] * 2 and OPENED[0] >= 1  # every CPU of this machine
    executor.close()
    assert OPENED[2:] == [-1, -1]
    with pytest.raises(ExecutorError, match="closed"):
        executor.map(echoes, ["r"], ["c"], {"n": 4})
    with pytest.raises(VerifierInputError, match="runs a verifiers.Workload, got str"):
        LocalExecutor().map("math", ["1"], ["1"], {})  # type: ignore[arg-type]


def test_a_workload_from_a_file_no_package_holds_is_pickled_by_value(tmp_path: Any) -> None:
    import importlib.util
    import subprocess

    pytest.importorskip("ray")
    from verifiers.executors._fleet import pickle_by_value

    (tmp_path / "mine_w38.py").write_text(
        "from verifiers import VerifyResult, Workload\n"
        "def said(state, refs, comps, options):\n"
        "    return [VerifyResult.judged('correct', 'mine') for _ in comps]\n"
        "KIND = Workload('mine', said)\n"
    )
    spec = importlib.util.spec_from_file_location("mine_w38", tmp_path / "mine_w38.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mine_w38"] = module
    try:
        spec.loader.exec_module(module)
        assert pickle_by_value(MATH) == []  # ours: by reference
        assert pickle_by_value(module.KIND) == ["mine_w38"]
        from ray import cloudpickle

        blob = cloudpickle.dumps(module.KIND)
    finally:
        del sys.modules["mine_w38"]
    code = "import pickle, sys; k = pickle.loads(sys.stdin.buffer.read()); print(k.batch(None, [1], [2], {})[0].reason)"
    out = subprocess.run([sys.executable, "-c", code], input=blob, capture_output=True, check=True, cwd="/")
    assert out.stdout.decode().strip() == "mine"  # where mine_w38 cannot be imported
