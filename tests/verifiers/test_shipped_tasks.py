"""The agentic tasks shipped in the package (`verifiers.agentic.shipped_tasks_dir`): at least 12,
each a well-formed offline task judged in separate mode whose required tests name every test of
its ``test_outputs.py``, listed in the folder's README; and (docker, slow) every one passes
``tasks check``: its reference solution scores 1 and no action scores 0, four tasks at a time
(55 s warm on 2 cores, ~110 s when other jobs load them; the task base image is built once,
1-3 min, then cached); and three attacks through the programs the tests run score 0 (~25 s)."""

from __future__ import annotations

import ast
from concurrent.futures import ThreadPoolExecutor

import pytest

from verifiers.agentic import (
    build_task_base_image,
    build_task_image,
    check_task,
    shipped_tasks,
    shipped_tasks_dir,
    task_session,
    verify_separate,
)


def test_at_least_12_well_formed_offline_tasks() -> None:
    tasks = shipped_tasks()
    assert len(tasks) >= 12
    readme = (shipped_tasks_dir() / "README.md").read_text()
    assert "Apache-2.0" in readme
    for task in tasks:
        assert f"`{task.name}`" in readme, task.name
        assert not task.needs_network and task.verifier.mode == "separate", task.name
        assert task.verifier.artifacts and "solve.sh" in task.solution, task.name
        assert task.environment.base_images() == ("grpo-envs-task-base",), task.name
        assert task.metadata["license"] == "Apache-2.0", task.name
        tests = ast.parse(task.verifier.tests["test_outputs.py"])
        names = {f"test_outputs.py::{f.name}" for f in tests.body if isinstance(f, ast.FunctionDef)}
        assert set(task.verifier.required_tests) == {n for n in names if n.split("::")[1].startswith("test_")}


@pytest.mark.docker
@pytest.mark.slow
def test_every_shipped_task_passes_tasks_check() -> None:
    bases = {"grpo-envs-task-base": build_task_base_image()}
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda t: check_task(t, base_images=bases), shipped_tasks()))
    failed = {r.name: r.reason for r in results if not r.ok}
    assert not failed, failed
    assert all(r.oracle and r.oracle.reward == 1.0 and r.nop and r.nop.reward == 0.0 for r in results)


REWRITE_TEST_SH = r"""
python3 -c "import collections, re
t = open('/work/sample.txt').read()
c = collections.Counter(w.lower() for w in re.findall('[A-Za-z]+', t))
open('/work/top5.txt', 'w').write(''.join(f'{n} {w}\n' for w, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:5]))"
cat > /work/wordfreq <<'P'
#!/bin/bash
# run by the tests: a daemon that keeps writing reward 1 and a JUnit report of five passes, and
# test.sh rewritten to stop after pytest
cases=$(for t in is_an_executable_file top5_of_the_sample random_texts_and_counts default_is_ten ties_and_no_words
  do printf '<testcase classname="test_outputs" name="test_%s"/>' $t; done)
echo "<testsuites><testsuite name=\"pytest\">$cases</testsuite></testsuites>" > /tmp/forged.xml
( setsid bash -c 'while :; do echo 1 > /logs/verifier/reward.txt; cp /tmp/forged.xml /logs/verifier/junit.xml; done' \
  > /dev/null 2>&1 & )
python3 -c "p = '/tests/test.sh'; s = open(p).read(); open(p, 'w').write(s.replace('status=', 'exit 0; #'))"
P
chmod +x /work/wordfreq
"""
KILL_THE_TESTS = r"""
cat > /work/wordfreq <<'P'
#!/bin/bash
# run by the tests: reward 1 and a JUnit report of five passes, then every process it may kill
for t in is_an_executable_file top5_of_the_sample random_texts_and_counts default_is_ten ties_and_no_words; do
  cases+="<testcase classname=\"test_outputs\" name=\"test_$t\"/>"
done
echo "<testsuites><testsuite name=\"pytest\">$cases</testsuite></testsuites>" > /logs/verifier/junit.xml
echo 1 > /logs/verifier/reward.txt
kill -9 -1
P
chmod +x /work/wordfreq
"""
HARD_CODED = r"""
printf '11 the\n10 it\n10 of\n10 was\n4 we\n' > /work/top5.txt
printf '#!/bin/bash\ncat /work/top5.txt\n' > /work/wordfreq && chmod +x /work/wordfreq
"""


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("attack", [REWRITE_TEST_SH, KILL_THE_TESTS, HARD_CODED], ids=["rewrite", "kill", "hard-coded"])
def test_the_program_the_tests_run_cannot_pay_itself(attack: str) -> None:
    """word-frequency's tests run the agent's /work/wordfreq: as nobody it can neither rewrite the
    running test.sh nor kill it after writing reward 1 and a forged JUnit report. Run as root (the
    tests as first written) the kill attack scored 1 (correct) and the rewrite was read by bash.
    A hard-coded output fails the inputs drawn in the verifier (~5-10 s each)."""
    task = next(t for t in shipped_tasks() if t.name == "word-frequency")
    image = build_task_image(task, base_images={"grpo-envs-task-base": build_task_base_image()})
    with task_session(task, image) as s:
        assert s.exec(attack).exit_code == 0
        verdict = verify_separate(s, task, image)
    assert verdict.status in ("incorrect", "error") and verdict.reward == 0.0, verdict
