"""Which mutations are tasks: read the test runner's JUnit XML report (pytest's ``--junitxml``;
unittest through a JUnit writer gives the same shape) and apply the keep rule.

A candidate is kept when at least one test that passes on the clean project fails on the broken
one (fail-to-pass), at least one still passes (pass-to-pass), nothing timed out and at most
``max_broken`` tests break (Repo2RLEnv's cap of 5: a bug that breaks everything teaches little).
A test missing from the broken run's report counts as failed, never as passed."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


def test_id(classname: str, name: str) -> str:
    """A pytest-style id from a JUnit ``classname`` and ``name``: ``tests/test_a.py::TestX::test_y``
    from ``tests.test_a.TestX`` and ``test_y`` is not recoverable exactly, so the id is the
    report's own ``classname::name``, stable between runs of one project."""
    return f"{classname}::{name}" if classname else name


@dataclass(frozen=True)
class Outcome:
    """One test's result: ``status`` (passed, failed or skipped) and, for a failure, the first line
    of its message (the assertion or exception, as a user would quote it)."""

    status: str
    message: str = ""


def parse_junit(xml: str) -> dict[str, Outcome]:
    """Every test case of a JUnit XML report by id. Unparsable XML reads as no tests at all."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError:
        return {}
    found: dict[str, Outcome] = {}
    for case in root.iter("testcase"):
        key = test_id(case.get("classname", ""), case.get("name", ""))
        problem = case.find("failure")
        problem = problem if problem is not None else case.find("error")
        if problem is not None:
            text = problem.get("message") or (problem.text or "")
            if text == "collection failure":  # the module's import error is the text's last "E" line
                errors = [row[1:].strip() for row in (problem.text or "").splitlines() if row.startswith("E ")]
                text = errors[-1] if errors else text
            found[key] = Outcome(FAILED, (text.strip().splitlines() or [""])[0][:200])
        elif case.find("skipped") is not None:
            found[key] = Outcome(SKIPPED)
        else:
            found[key] = Outcome(PASSED)
    return found


@dataclass(frozen=True)
class Validation:
    """What one candidate did to the clean project's passing tests."""

    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    messages: tuple[str, ...]
    timed_out: bool
    max_broken: int
    selected: int | None = None
    """How many clean-passing tests the candidate ran: None for the whole suite (coverage off, or
    the entity runs at import), 0 when no test covers its entity (rejected without a run)."""

    @property
    def kept(self) -> bool:
        """The keep rule (module docstring)."""
        return not self.timed_out and 1 <= len(self.fail_to_pass) <= self.max_broken and len(self.pass_to_pass) >= 1


def validate_candidate(
    clean: dict[str, Outcome],
    broken: dict[str, Outcome],
    *,
    ran: set[str] | None = None,
    timed_out: bool = False,
    max_broken: int = 5,
) -> Validation:
    """The validation of a broken run against the clean one. ``ran`` is the set of clean-passing tests
    the broken run was asked to run (default: all of them); a test of ``ran`` missing from
    ``broken`` failed. Tests not run (they do not cover the mutated entity) pass unchanged, by
    construction, and count as pass-to-pass."""
    passing = sorted(k for k, o in clean.items() if o.status == PASSED)
    asked = set(passing) if ran is None else ran & set(passing)
    f2p, p2p, messages = [], [], []
    for key in passing:
        outcome = broken.get(key, Outcome(FAILED, "the test did not run")) if key in asked else Outcome(PASSED)
        if outcome.status == PASSED:
            p2p.append(key)
        else:
            f2p.append(key)
            messages.append(outcome.message)
    return Validation(tuple(f2p), tuple(p2p), tuple(messages), timed_out, max_broken)
