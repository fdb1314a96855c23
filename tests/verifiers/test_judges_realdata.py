"""`with_judge(verifiers.math.verify, judge)` on the real completions of ``../shared/realdata``
with scripted judges on 127.0.0.1: an oracle (it answers by the row's label) and a judge that
pays everything (the worst a judge that is simply wrong can do). What the rule accepts and
what has no answer never reach a judge; the oracle never lowers the rule's accuracy; what a
paying judge can add is bounded by the rule's rejections that hold an answer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from judge_server import JudgeServer
from realdata import rows

from verifiers import math as vm
from verifiers.judges import LLMJudge, with_judge

FILES = ("math/gsm8k_completions.jsonl", "math/longcot_skyt1_aime_amc.jsonl")


class Oracle:
    """Scripted judges that read the row id from the question slot."""

    def __init__(self, labels: dict[str, bool]) -> None:
        self.labels = labels
        self.pays_all = False

    def __call__(self, body: dict[str, Any]) -> tuple[int, str, float]:
        user = body["messages"][-1]["content"]
        row_id = user.split("Question:\n", 1)[1].split("\n\n", 1)[0]
        paid = self.pays_all or self.labels[row_id]
        return 200, "VERDICT: " + ("CORRECT" if paid else "INCORRECT"), 0.0


@pytest.fixture(scope="module")
def labelled() -> list[dict[str, Any]]:
    return [r for f in FILES for r in rows(f) if r["label"] is not None]


@pytest.fixture(scope="module")
def oracle(labelled: list[dict[str, Any]]) -> Iterator[tuple[Oracle, JudgeServer]]:
    script = Oracle({r["id"]: bool(r["label"]) for r in labelled})
    server = JudgeServer(script)
    yield script, server
    server.close()


def test_rule_then_judge_on_real_completions(
    labelled: list[dict[str, Any]], oracle: tuple[Oracle, JudgeServer]
) -> None:
    script, server = oracle
    golds, completions, ids = (
        [r["gold"] for r in labelled],
        [r["completion"] for r in labelled],
        [r["id"] for r in labelled],
    )
    rule = vm.verify_many(golds, completions)
    hybrid = with_judge(vm.verify, LLMJudge(base_url=server.url, model="oracle", concurrency=8))
    judged = hybrid.verify_many(golds, completions, prompts=ids)
    asked = {b["messages"][-1]["content"].split("Question:\n")[1].split("\n\n")[0] for _, b in server.requests}
    for row, r, h in zip(labelled, rule, judged, strict=True):
        if r.correct or r.status == "no_answer":  # what the judge must not touch
            assert row["id"] not in asked and (h.status, h.correct, h.reward) == (r.status, r.correct, r.reward)
    label = [bool(row["label"]) for row in labelled]
    accuracy = [sum((x.correct is True) == y for x, y in zip(v, label, strict=True)) for v in (rule, judged)]
    missed = sum(y and r.correct is not True for r, y in zip(rule, label, strict=True))
    recovered = sum(
        y and r.correct is not True and h.correct is True for r, h, y in zip(rule, judged, label, strict=True)
    )
    assert accuracy[1] >= accuracy[0] and accuracy[1] == accuracy[0] + recovered
    script.pays_all = True
    try:
        paid = with_judge(vm.verify, LLMJudge(base_url=server.url, model="pays-all", concurrency=8)).verify_many(
            golds, completions, prompts=ids
        )
    finally:
        script.pays_all = False
    exposed = sum(not y and p.correct is True for p, y in zip(paid, label, strict=True))
    sent = len(asked)
    assert exposed <= sent and all(p.correct for p, r in zip(paid, rule, strict=True) if r.correct)
    print(
        f"\n{len(labelled)} labelled rows: rule {accuracy[0]}, rule+oracle judge {accuracy[1]} right; rule missed "
        f"{missed}, the judge recovered {recovered}; {sent} rejections sent to the judge; a judge that pays all "
        f"would pay {exposed} wrong completions; {len(labelled) - sent} never reach a judge"
    )
