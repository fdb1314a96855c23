"""Files the docs use are shipped: ``--config demo`` runs from any folder (the package's
demo.toml, the clone's configs/demo.toml), and the extras named in the docs install what their
commands need (the audit's Math-Verify in the demo's virtualenv, pytest for the testing kit)."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from trainer.config import load_config
from trainer.configs import SHIPPED, shipped_config
from trainer.errors import TrainerError

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_demo_config_loads_by_name_from_any_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_config("demo") == load_config("demo.toml") == load_config(ROOT / "configs" / "demo.toml")
    assert (ROOT / "configs" / "demo.toml").resolve() == shipped_config("demo")  # one file, not two copies
    (tmp_path / "demo.toml").write_text('model = "demo"\nsteps = 3\n')
    assert load_config("demo.toml").steps == 3  # a file of yours is read first
    with pytest.raises(TrainerError, match="not found: mine.toml .shipped with the package: demo"):
        load_config("mine.toml")


def test_every_shipped_config_is_package_data() -> None:
    assert "configs/*.toml" in PYPROJECT["tool"]["setuptools"]["package-data"]["trainer"]
    assert all(shipped_config(name) is not None and shipped_config(name).is_file() for name in SHIPPED)  # type: ignore[union-attr]


def test_the_extras_the_docs_name_install_what_their_commands_need() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert any(d.startswith("math-verify") for d in extras["demo"])  # README's audit runs in the demo's venv
    assert any(d.startswith("math-verify") for d in extras["audit"])
    assert any(d.startswith("pytest") for d in extras["testing"])  # docs/testing-kit.md's pytest example
    docs = (ROOT / "docs" / "audit.md").read_text() + (ROOT / "docs" / "testing-kit.md").read_text()
    assert "grpo-envs[audit]" in docs and "grpo-envs[testing]" in docs
