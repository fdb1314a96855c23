"""`verifiers.commandline`: the user's modules come from the current folder but never replace our
packages, and every command has one flag style (dashes, with underscore spellings as hidden aliases)."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from verifiers.commandline import CommandParser, UserModuleError, import_user_module, load_user_object


@pytest.fixture
def user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty current folder; the modules a test imports from it are forgotten afterwards."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    yield tmp_path
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]


def test_a_module_in_the_current_folder_is_imported_and_can_import_its_neighbours(user_folder: Path) -> None:
    (user_folder / "helpers_w37.py").write_text("X = 7\n")
    (user_folder / "mine_w37.py").write_text("from helpers_w37 import X\nY = X * 6\n")
    assert import_user_module("mine_w37").Y == 42
    assert load_user_object("mine_w37:Y", "the value") == 42
    assert sys.path[-1] == str(user_folder)  # appended: behind the installed packages


def test_a_package_and_its_submodule_are_imported(user_folder: Path) -> None:
    (user_folder / "pkg_w37").mkdir()
    (user_folder / "pkg_w37" / "__init__.py").write_text("")
    (user_folder / "pkg_w37" / "envs.py").write_text("NAME = 'inner'\n")
    assert import_user_module("pkg_w37.envs").NAME == "inner"


def test_a_users_folder_named_like_our_packages_is_never_imported(user_folder: Path) -> None:
    for name in ("trainer", "verifiers", "grpo_envs"):
        (user_folder / name).mkdir()
        (user_folder / name / "__init__.py").write_text("raise RuntimeError('shadowed')\n")
    (user_folder / "uses_ours_w37.py").write_text("import trainer.errors\nE = trainer.errors.TrainerError\n")
    assert import_user_module("uses_ours_w37").E.__module__ == "trainer.errors"
    assert import_user_module("verifiers").__file__ != str(user_folder / "verifiers" / "__init__.py")


def test_the_users_file_wins_over_an_installed_module_of_the_same_name(
    user_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)  # put back afterwards
    (user_folder / "colorsys.py").write_text("MINE = True\n")
    assert import_user_module("colorsys").MINE is True  # as `python my_script.py` would find it


@pytest.mark.parametrize(
    ("files", "name", "expected"),
    [
        ({}, "absent_w37", r"cannot import 'absent_w37': there is no absent_w37\.py or absent_w37/ in .*; run the"),
        ({"bad_w37.py": "x = (\n"}, "bad_w37", r"importing 'bad_w37' raised SyntaxError: .*"),
        (
            {"boom_w37.py": "\n\n1 / 0\n"},
            "boom_w37",
            r"raised ZeroDivisionError: division by zero \(boom_w37\.py, line 3\)",
        ),
        ({"dep_w37.py": "import no_such_dep_w37\n"}, "dep_w37", r"No module named 'no_such_dep_w37' \(is it installed"),
        ({}, "not-a-name", r"'not-a-name' is not a module name"),
    ],
)
def test_a_module_that_cannot_be_imported_is_one_line(
    user_folder: Path, files: dict[str, str], name: str, expected: str
) -> None:
    for file, text in files.items():
        (user_folder / file).write_text(text)
    with pytest.raises(UserModuleError, match=expected) as caught:
        import_user_module(name)
    assert "\n" not in str(caught.value)
    assert name not in sys.modules  # a failed import leaves nothing half-made behind


def test_load_user_object_names_a_missing_attribute(user_folder: Path) -> None:
    (user_folder / "rewards_w37.py").write_text("def verify(ref, ans):\n    return True\n")
    with pytest.raises(UserModuleError, match="'rewards_w37' has no 'verfy'"):
        load_user_object("rewards_w37:verfy", "the verifier")
    with pytest.raises(UserModuleError, match="the verifier must be MODULE:NAME"):
        load_user_object("rewards_w37", "the verifier")


def _parsers() -> dict[str, Callable[[], argparse.ArgumentParser]]:
    from grpo_envs._commands import serve_parser
    from trainer.cli import parser as train_parser
    from trainer.eval._cli import _parser as eval_parser
    from verifiers._cli import check_verifier_parser

    return {"train": train_parser, "eval": eval_parser, "serve": serve_parser, "check-verifier": check_verifier_parser}


@pytest.mark.parametrize("command", ["train", "eval", "serve", "check-verifier"])
def test_every_command_shows_dashes_accepts_underscores_and_has_no_progress(command: str) -> None:
    parser = _parsers()[command]()
    assert isinstance(parser, CommandParser)
    text = parser.format_help()
    assert re.findall(r"--[a-z0-9]+_[a-z0-9_]+", text) == [], text  # no underscore spelling shown
    assert "--no-progress" in text
    dashed = {s for a in parser._actions for s in a.option_strings if s.startswith("--") and "-" in s[2:]}
    assert dashed, command
    for flag in dashed:  # each one's underscore spelling reaches the same flag
        alias = "--" + flag[2:].replace("-", "_")
        assert parser._dashed([alias, "x", f"{alias}=y"]) == [flag, "x", f"{flag}=y"]


def test_underscores_parse_to_the_same_values_and_values_are_left_alone() -> None:
    p = CommandParser(prog="t")
    p.add_argument("--max-new-tokens", type=int)
    p.add_argument("--env")
    args = p.parse_args(["--max_new_tokens=3", "--env", "my_envs:my_envs/A_b-v0"])
    assert args.max_new_tokens == 3 and args.env == "my_envs:my_envs/A_b-v0"


def test_an_unknown_flag_names_the_closest_one(capsys: pytest.CaptureFixture[str]) -> None:
    p = CommandParser(prog="t")
    p.add_argument("--max-new-tokens", type=int)
    with pytest.raises(SystemExit):
        p.parse_args(["--max_new_tokenz", "3"])
    err = capsys.readouterr().err
    assert "unrecognized arguments: --max_new_tokenz 3 (did you mean --max-new-tokens?)" in err
