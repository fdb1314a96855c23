"""Coverage-selected tests: which of the clean project's tests can notice a bug in one entity.

One clean run under the bundled pytest plugin (`_cover_plugin`, copied into the session) records,
per test, the project's functions, methods and class bodies that ran while it ran (its fixtures
included). A candidate in entity ``E`` of file ``F`` then runs only the tests that called ``E`` or
code nested in it (``E.*``: a class's methods, a function's inner functions). An entity that ran
at import or collection time (a class body, a decorator, a function a module calls when it
loads) can change what every test sees, so a bug there runs the whole suite. A bug in an entity
no test ran cannot be noticed by any test: it is rejected without a run.

Why a plugin of our own and not ``coverage``/pytest-cov: the image has neither, the containers
have no network, and the host's ``coverage`` has a C tracer built for the host's Python; selection
needs whole entities, not lines, so call-level ``sys.settrace`` (no line events) is enough, costs
one Python call per call, and needs no dependency. It misses code run in a subprocess: such a
test is not selected for that entity (documented in docs/repo-tasks.md)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources

PLUGIN = "_grpo_cover"
"""The plugin's module name in the session (``-p _grpo_cover``)."""


def plugin_source() -> bytes:
    """The plugin's source, to copy into the session as ``_grpo_cover.py``."""
    return resources.files(__package__).joinpath("_cover_plugin.py").read_bytes()


def _covers(qualname: str, entity: str) -> bool:
    return qualname == entity or qualname.startswith(entity + ".")


@dataclass(frozen=True)
class Coverage:
    """Per test id, the ``(file, qualname)`` pairs it ran (files relative to the project root);
    ``at_import`` holds what ran outside any test."""

    tests: dict[str, frozenset[tuple[str, str]]] = field(default_factory=dict)
    at_import: frozenset[tuple[str, str]] = frozenset()

    @classmethod
    def from_json(cls, text: str) -> Coverage:
        """The plugin's report (``GRPO_COVER_OUT``); unreadable text is an empty coverage."""
        try:
            raw = json.loads(text)
            codes = [(str(path), str(name)) for path, name in raw["codes"]]
            tests = {str(k): frozenset(codes[i] for i in v) for k, v in raw["tests"].items()}
            return cls(tests, frozenset(codes[i] for i in raw["import"]))
        except (ValueError, KeyError, TypeError, IndexError):
            return cls()

    def select(self, path: str, entity: str) -> frozenset[str] | None:
        """The tests that can notice a bug in ``entity`` of file ``path``: None means all of them
        (the entity ran at import), an empty set means none (no test ran it). ``entity`` may be
        several entities joined by ``+`` (a combined bug): the union of theirs."""
        chosen: set[str] = set()
        for one in entity.split("+"):
            if any(file == path and _covers(name, one) for file, name in self.at_import):
                return None
            for (file, name), tests in self._by_code.items():
                if file == path and _covers(name, one):
                    chosen |= tests
        return frozenset(chosen)

    @cached_property
    def _by_code(self) -> dict[tuple[str, str], set[str]]:
        """The inverse map: per ``(file, qualname)``, the tests that ran it."""
        found: dict[tuple[str, str], set[str]] = {}
        for test, ran in self.tests.items():
            for code in ran:
                found.setdefault(code, set()).add(test)
        return found
