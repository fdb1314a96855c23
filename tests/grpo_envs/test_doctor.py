"""The doctor's checks as functions."""

from __future__ import annotations

import pytest

from grpo_envs import _doctor
from grpo_envs._doctor import FAIL, OK, Check, name_clashes, render


@pytest.mark.parametrize(
    ("mapping", "expected"),
    [
        # ours only (normalised names: grpo-envs, grpo_envs, GRPO.envs)
        ({"verifiers": ["grpo-envs"], "trainer": ["grpo_envs"], "grpo_envs": ["GRPO.envs"]}, {}),
        # not installed at all (source tree): no clash
        ({}, {}),
        # PrimeIntellect's verifiers installed over ours
        ({"verifiers": ["grpo-envs", "verifiers"]}, {"verifiers": ["verifiers"]}),
        # another project's trainer, listed twice
        ({"trainer": ["trainer", "trainer", "grpo-envs"]}, {"trainer": ["trainer"]}),
        # unrelated packages are ignored
        ({"docker": ["docker"], "verifiers": ["grpo-envs"]}, {}),
    ],
)
def test_name_clashes(mapping: dict[str, list[str]], expected: dict[str, list[str]]) -> None:
    assert name_clashes(mapping) == expected


def test_render_shows_fixes_only_for_failures() -> None:
    text = render([Check("python", OK, "3.11", "never shown"), Check("disk", FAIL, "0 GiB", "a\nb")])
    assert "never shown" not in text
    assert "fix: a" in text
    assert text.splitlines()[3].strip() == "b"
    assert "1 problem(s) found." in text


def test_a_crashing_check_becomes_a_failed_line() -> None:
    def boom() -> Check:
        raise RuntimeError("kaput")

    check = _doctor._guard("thing", boom)
    assert check.status == FAIL
    assert "RuntimeError: kaput" in check.detail


@pytest.mark.gpu
def test_torch_line_names_the_cuda_device() -> None:
    check = _doctor._check_torch(True)
    assert check.status == OK
    assert "CUDA:" in check.detail and "GiB" in check.detail


def test_ray_row_without_an_address_starts_and_joins_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray")
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    check = _doctor._check_ray()
    assert check.status == _doctor.INFO
    assert "no cluster address given (RAY_ADDRESS unset)" in check.detail  # the cluster row: test_ray_executor.py


def test_ray_row_without_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> str:
        raise _doctor.md.PackageNotFoundError(name)

    monkeypatch.setattr(_doctor.md, "version", missing)
    check = _doctor._check_ray()
    assert (check.status, check.fix) == (_doctor.INFO, "pip install 'grpo-envs[ray]'")
