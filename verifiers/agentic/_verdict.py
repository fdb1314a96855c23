"""The verdict of an agentic task from what its tests left in ``/logs/verifier``.

Read in the judging container after ``tests/test.sh`` ran (never from where the agent works):

- ``reward.txt``: one number; ``reward.json``: an object whose ``reward`` key is a number. When
  both exist they must agree (within 1e-9), else the verdict is a masked error: a task writing
  two rewards that differ is the task's bug, and we do not pick one.
- The reward is in [0, 1]; 1 is correct, below 1 incorrect with that reward. Missing, malformed,
  non-finite or out of range: a masked error (status "error") with the reason, never a silent 0.
- Named tests (`Verifier.required_tests`): each must be reported passed in the runner's JUnit XML
  report (``junit.xml``). One that is missing from the report (not collected, not run), failed,
  errored or skipped fails the task: the named tests win over a reward of 1. A reward below 1
  stays the verdict when every named test passed.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET

from verifiers.result import VerifyResult

__all__ = ["junit_outcomes", "verdict_from_files"]

_TOLERANCE = 1e-9


def _number(text: str, source: str) -> float | str:
    """The reward ``text`` holds, or why it is not one."""
    try:
        value = float(text.strip())
    except ValueError:
        return f"{source} is not a number: {text.strip()[:60]!r}"
    if not math.isfinite(value) or not -_TOLERANCE <= value <= 1 + _TOLERANCE:
        return f"{source} holds {value}, outside [0, 1]"
    return min(1.0, max(0.0, value))


def _from_json(raw: bytes) -> float | str:
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return "reward.json is not JSON"
    value = data.get("reward") if isinstance(data, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return "reward.json has no numeric 'reward' key"
    return _number(repr(float(value)), "reward.json")


def _reward(reward_txt: bytes | None, reward_json: bytes | None) -> float | str:
    """The reward of the two files, or why there is none (see the module's rule)."""
    if reward_txt is None and reward_json is None:
        return "the tests wrote no /logs/verifier/reward.txt or reward.json"
    txt = None if reward_txt is None else _number(reward_txt.decode("utf-8", "replace"), "reward.txt")
    js = None if reward_json is None else _from_json(reward_json)
    for value in (txt, js):
        if isinstance(value, str):
            return value
    if isinstance(txt, float) and isinstance(js, float) and abs(txt - js) > _TOLERANCE:
        return f"reward.txt ({txt}) and reward.json ({js}) disagree"
    return txt if isinstance(txt, float) else js  # type: ignore[return-value]


def junit_outcomes(xml: bytes) -> dict[str, str]:
    """Each test case of a JUnit XML report -> "passed", "failed", "error" or "skipped", keyed by
    every name it may be given: ``name``, ``classname.name``, ``classname::name`` and pytest's
    node id ``path/to/file.py::name`` (from ``classname`` ``path.to.file``).

    Raises:
        ValueError: ``xml`` is not a JUnit XML report.
    """
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise ValueError(f"not XML: {exc}") from exc
    if root.tag not in ("testsuites", "testsuite"):
        raise ValueError(f"not a JUnit report (root element <{root.tag}>)")
    out: dict[str, str] = {}
    for case in root.iter("testcase"):
        name, cls = case.get("name", ""), case.get("classname", "")
        kinds = {child.tag for child in case}
        outcome = next((k for k in ("error", "failure", "skipped") if k in kinds), "passed")
        outcome = {"failure": "failed"}.get(outcome, outcome)
        keys = {name}
        if cls:
            parts = cls.split(".")
            keys |= {f"{cls}.{name}", f"{cls}::{name}", "/".join(parts) + f".py::{name}"}
            keys |= {"/".join(parts[:i]) + ".py::" + "::".join([*parts[i:], name]) for i in range(1, len(parts))}
        for key in keys:  # a name reported twice counts as its worst outcome
            if out.get(key, "passed") == "passed":
                out[key] = outcome
    return out


def _named_tests(required: tuple[str, ...], junit_xml: bytes | None) -> str | None:
    """Why the named tests do not all pass, or None when they do."""
    if not required:
        return None
    if junit_xml is None:
        return f"no JUnit report (junit.xml): the {len(required)} named tests were not reported"
    try:
        outcomes = junit_outcomes(junit_xml)
    except ValueError as exc:
        return f"junit.xml is unreadable ({exc}): the named tests were not reported"
    bad = [f"{n} ({outcomes.get(n, 'not reported')})" for n in required if outcomes.get(n) != "passed"]
    return f"named tests not passed: {', '.join(bad[:5])}" + (" ..." if len(bad) > 5 else "") if bad else None


def verdict_from_files(
    reward_txt: bytes | None,
    reward_json: bytes | None,
    *,
    junit_xml: bytes | None = None,
    required_tests: tuple[str, ...] = (),
    tests_exit: int | None = 0,
) -> VerifyResult:
    """The verdict from the files ``test.sh`` left (None: the file is missing).

    Examples:
        >>> verdict_from_files(b"1\\n", None).status
        'correct'
        >>> v = verdict_from_files(None, None)
        >>> (v.status, v.correct)
        ('error', None)
    """
    reward = _reward(reward_txt, reward_json)
    if isinstance(reward, str):
        return VerifyResult.judged("error", f"{reward} (test.sh exit {tests_exit}): masked, not a 0")
    why_not = _named_tests(required_tests, junit_xml)
    if why_not is not None:
        return VerifyResult.judged("incorrect", why_not, reward=0.0, components={"reward_file": reward})
    if reward >= 1.0:
        return VerifyResult.judged("correct", "the tests gave reward 1", components={"reward_file": reward})
    return VerifyResult.judged(
        "incorrect", f"the tests gave reward {reward:g}", reward=reward, components={"reward_file": reward}
    )
