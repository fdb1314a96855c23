"""A pytest plugin copied into the session as ``_grpo_cover.py`` (stdlib and pytest only: the image
has neither ``coverage`` nor a network): which functions each test calls, and which tests to run.

Environment (each optional):

- ``GRPO_COVER_OUT``: record, per test, every function, method or class body of the project
  (files under ``GRPO_COVER_ROOT``, default the working folder) that ran while the test ran, its
  fixtures included (a module- or session-scoped fixture counts for every test that uses it),
  and what ran outside any test (at import, during collection); written there as JSON.
- ``GRPO_COLLECTED``: write the ids of every collected test there (a test file that no longer
  imports leaves its tests out: they failed).
- ``GRPO_SELECT``: a file of test ids, one a line; only those run.

Test ids are the JUnit report's ``classname::name`` (what `_validate.test_id` reads). Tracing
is call-level (``sys.settrace`` with no local trace function): one cheap call per Python call,
no line events, since selection needs only whole entities."""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import Iterator
from types import CodeType, FrameType
from typing import Any

import pytest


def junit_key(nodeid: str) -> str:
    """The JUnit ``classname::name`` of a pytest node id, as pytest's JUnit writer makes it."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    return f"{'.'.join(names[:-1])}::{names[-1]}" if len(names) > 1 else names[-1]


class _Tracer:
    """Collects the code objects called into ``current``."""

    def __init__(self) -> None:
        self.current: set[CodeType] = set()
        self.outside = self.current

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            self.current.add(frame.f_code)


_TRACER = _Tracer()
_OWN: dict[str, set[CodeType]] = {}
_FIXTURES: dict[int, set[CodeType]] = {}
_USES: dict[str, list[int]] = {}


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("GRPO_COVER_OUT"):
        threading.settrace(_TRACER)
        sys.settrace(_TRACER)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("GRPO_COLLECTED"):
        with open(os.environ["GRPO_COLLECTED"], "w") as out:
            out.write("".join(junit_key(item.nodeid) + "\n" for item in items))
    if os.environ.get("GRPO_SELECT"):
        with open(os.environ["GRPO_SELECT"]) as chosen:
            wanted = set(chosen.read().splitlines())
        keep = [item for item in items if junit_key(item.nodeid) in wanted]
        config.hook.pytest_deselected(items=[item for item in items if junit_key(item.nodeid) not in wanted])
        items[:] = keep


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: Any, request: Any) -> Iterator[None]:
    outer, _TRACER.current = _TRACER.current, set()
    try:
        yield
    finally:
        _FIXTURES.setdefault(id(fixturedef), set()).update(_TRACER.current)
        outer |= _TRACER.current
        _TRACER.current = outer


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Any) -> Iterator[None]:
    if not os.environ.get("GRPO_COVER_OUT"):
        yield
        return
    _TRACER.current = set()
    try:
        yield
    finally:
        key = junit_key(item.nodeid)
        _OWN[key] = _TRACER.current
        info = getattr(item, "_fixtureinfo", None)
        defs = getattr(info, "name2fixturedefs", {}) if info is not None else {}
        _USES[key] = [id(d) for chain in defs.values() for d in chain]
        _TRACER.current = _TRACER.outside


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = os.environ.get("GRPO_COVER_OUT")
    if not out:
        return
    sys.settrace(None)
    threading.settrace(None)
    root = os.path.abspath(os.environ.get("GRPO_COVER_ROOT", os.getcwd())) + os.sep
    names: dict[CodeType, int] = {}
    table: list[list[str]] = []

    def ids(codes: set[CodeType]) -> list[int]:
        found = []
        for code in codes:
            if code not in names:
                if not code.co_filename.startswith(root):
                    continue
                names[code] = len(table)
                table.append([code.co_filename[len(root) :], getattr(code, "co_qualname", code.co_name)])
            found.append(names[code])
        return sorted(set(found))

    tests = {key: ids(own.union(*(_FIXTURES.get(f, set()) for f in _USES.get(key, ())))) for key, own in _OWN.items()}
    at_import = ids(_TRACER.outside)
    with open(out, "w") as sink:
        json.dump({"codes": table, "tests": tests, "import": at_import}, sink)
