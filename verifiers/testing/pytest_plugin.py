"""An opt-in pytest plugin: ``pytest -p verifiers.testing.pytest_plugin`` (or
``pytest_plugins = ["verifiers.testing.pytest_plugin"]`` in a conftest) gives the fixture
``verifier_laws``, so one line runs every law on your verifier:

    def test_my_verifier(verifier_laws):
        verifier_laws(my_verify, "math")

``--verifier-examples N`` overrides the example budget for the whole run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from verifiers.testing._check import VerifierReport, assert_verifier_laws


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--verifier-examples", type=int, default=None, help="examples per verifier law")


@pytest.fixture
def verifier_laws(request: pytest.FixtureRequest) -> Callable[..., VerifierReport]:
    budget = request.config.getoption("--verifier-examples")

    def run(verify: Any, domain: Any = "math", **kwargs: Any) -> VerifierReport:
        if budget is not None:
            kwargs.setdefault("max_examples", budget)
        return assert_verifier_laws(verify, domain, **kwargs)

    return run
