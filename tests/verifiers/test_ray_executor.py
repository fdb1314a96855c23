"""`RayExecutor` on real local Ray clusters, each inside a loopback-only network namespace
(ray_netns.py: Ray's traffic never leaves 127.0.0.1), played by ray_worker.py: one worker run
per cluster, several scenarios each, asserted here one by one."""

from __future__ import annotations

from typing import Any

import pytest
from ray_netns import need_namespace, run_worker

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def single() -> dict[str, Any]:
    need_namespace()
    return run_worker("single")


@pytest.fixture(scope="module")
def trained() -> dict[str, Any]:
    need_namespace()
    return run_worker("torchrun")


@pytest.fixture(scope="module")
def judged() -> dict[str, Any]:
    need_namespace()
    return run_worker("judges")


@pytest.fixture(scope="module")
def cluster() -> dict[str, Any]:
    need_namespace()
    return run_worker("cluster")


# -- ray.init(num_cpus=2): math -----------------------------------------------------------------
def test_math_verdicts_equal_the_local_executors_in_order(single: dict[str, Any]) -> None:
    assert single["ray"] == single["local"]
    assert {s for s, *_ in single["local"]} >= {"correct", "incorrect", "no_answer"}
    assert [workload for workload, _ in single["actors"]] == ["math", "math"]  # one per CPU


def test_group_score_through_the_executor_equals_local(single: dict[str, Any]) -> None:
    assert single["group_ray"] == single["group_local"] == [1.0, 0.0, 0.0, 0.0]


def test_an_actor_killed_mid_batch_has_its_items_retried(single: dict[str, Any]) -> None:
    killed = single["kill_one"]
    assert killed["raised"] is None
    assert killed["ray"] == single["local"]  # every item judged, by the actor left
    assert killed["victim"] not in killed["pids_after"] and len(killed["pids_after"]) == 1


def test_killing_every_actor_gives_error_verdicts_not_an_exception(single: dict[str, Any]) -> None:
    killed = single["kill_all"]
    assert killed["raised"] is None
    assert set(killed["statuses"]) == {"error", "no_answer"}  # no_answer: not text, judged in the caller
    assert single["healed"] == single["local"]  # the next call starts fresh actors


def test_a_frozen_actor_cannot_hold_a_batch_past_the_timeout(single: dict[str, Any]) -> None:
    frozen = single["deadline"]
    assert frozen["raised"] is None
    assert 2.9 <= frozen["elapsed"] < 10.0  # timeout_s=3; generous: two other test runs share 2 cores
    statuses = set(frozen["statuses"])
    # the other actor's chunks came back (judged: correct, or no_answer on rows without one, by chunk)
    assert "timeout" in statuses and statuses - {"timeout"}


def test_a_frozen_actors_chunks_are_judged_by_the_other_actor(single: dict[str, Any]) -> None:
    frozen = single["straggler"]
    assert frozen["raised"] is None
    assert frozen["verdicts"] == single["local"]  # every item judged, none timed out
    # the frozen actor had chunks (none comes back before the 1 s floor), and the copies went out
    # long before timeout_s=60
    assert 1.0 <= frozen["elapsed"] < 30.0


# -- executors in other processes share the actors ---------------------------------------------
def test_another_executor_judges_on_the_same_actors_and_leaves_them_running(single: dict[str, Any]) -> None:
    shared = single["shared"]
    assert shared["other"] == single["local"]
    assert shared["other_pids"] == shared["first"] and len(shared["first"]) == 2  # no new actors
    assert shared["after"] == single["local"] and shared["after_pids"] == shared["first"]


def test_ranks_in_processes_of_their_own_share_the_actors(single: dict[str, Any]) -> None:
    shared = single["shared"]
    for rank in shared["ranks"]:
        assert rank["verdicts"] == rank["local"]
        assert rank["pids"] == shared["first"]  # two CPUs, two actors, for every process


def test_the_doctor_shows_the_cluster_named_by_ray_address(single: dict[str, Any]) -> None:
    status, detail = single["doctor"]
    assert status == "ok"
    assert "1 node, 2 CPUs; no node offers Docker" in detail


def test_no_ray_process_outlives_the_single_node_run(single: dict[str, Any]) -> None:
    assert single["leftover"] == []


# -- two nodes, only the second with {"docker": 1}: math and code ------------------------------
@pytest.mark.docker
def test_math_and_code_verdicts_equal_local_on_two_nodes(cluster: dict[str, Any]) -> None:
    assert cluster["math_ray"] == cluster["math_local"]
    assert cluster["code_ray"] == cluster["code_local"]
    assert {s for s, *_ in cluster["code_local"]} == {"correct", "incorrect", "unparseable"}


@pytest.mark.docker
def test_code_work_lands_only_on_the_docker_node(cluster: dict[str, Any]) -> None:
    code = [(node, chunks) for workload, node, chunks in cluster["actors"] if workload == "code"]
    assert code and all(node == cluster["docker_node"] for node, _ in code)
    assert sum(chunks for _, chunks in code) >= 1
    math_nodes = {node for workload, node, chunks in cluster["actors"] if workload == "math" and chunks}
    assert len(math_nodes) == 2  # math spreads over both nodes


@pytest.mark.docker
def test_killing_every_code_actor_gives_error_verdicts(cluster: dict[str, Any]) -> None:
    killed = cluster["kill_code"]
    assert killed["raised"] is None
    assert set(killed["statuses"]) == {"error", "unparseable"}


@pytest.mark.docker
def test_a_local_cluster_of_the_executors_own_offers_docker(cluster: dict[str, Any]) -> None:
    assert cluster["local_docker"] == 1
    assert cluster["local_code"] == cluster["code_local"]
    assert cluster["local_ray_after_close"] is False


@pytest.mark.docker
def test_nothing_outlives_the_cluster_run(cluster: dict[str, Any]) -> None:
    from verifiers.sandbox import engine_client
    from verifiers.sandbox._host.container import OWNER_LABEL

    assert cluster["leftover"] == []  # no Ray process, actor or worker pool
    assert cluster["ray_after_close"] is False
    client = engine_client(timeout_s=10)
    try:
        for owner in [*cluster["code_owners"], cluster["driver_owner"]]:
            assert client.containers.list(all=True, sparse=True, filters={"label": f"{OWNER_LABEL}={owner}"}) == []
    finally:
        client.close()


# -- the trainer under torchrun, verifier_executor="ray", no RAY_ADDRESS -------------------------
def test_torchrun_ranks_train_on_one_cluster_and_one_set_of_judges(trained: dict[str, Any]) -> None:
    assert trained["returncode"] == 0, trained["stderr"]
    assert [row["step"] for row in trained["rows"]] == [1]
    assert trained["clusters"] == 1  # rank 0 started it, rank 1 joined
    assert trained["math_judges"] == 2  # one per CPU of the machine, shared by both ranks
    assert trained["leftover"] == []


# -- judges: an LLM judge (network) and a reward model (CPU here) on the actors ------------------
def test_judge_verdicts_on_ray_equal_the_local_executors_and_no_executors(judged: dict[str, Any]) -> None:
    none, local, ray = judged["none"], judged["local"], judged["ray"]
    assert ray == local == none
    statuses = [s for s, *_ in ray["hybrid"]]
    assert statuses[:6] == ["correct", "correct", "incorrect", "no_answer", "unparseable", "no_answer"]
    assert ray["hybrid"][0][3].startswith("The judge decided") and "The rule decided" in ray["hybrid"][4][3]
    assert ray["calls"] == none["calls"] > 0  # the actors reached the scripted judge on 127.0.0.1
    assert {s for s, *_ in ray["rm"]} <= {"correct", "incorrect", "no_answer"}
    assert [s for s, *_ in ray["env"]][:2] == ["correct", "correct"]  # JudgeConfig in an env: the judge paid
    assert {"llm_judge", "reward_model", "math"} <= set(judged["actors"])  # math: the env's rule, on Ray too


def test_nothing_outlives_the_judges_run(judged: dict[str, Any]) -> None:
    assert judged["leftover"] == []
