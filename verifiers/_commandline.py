"""The implementation of `verifiers.commandline` (see there)."""

from __future__ import annotations

import argparse
import difflib
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

__all__ = ["CommandParser", "UserModuleError", "add_no_progress", "import_user_module", "load_user_object"]

_OURS = ("grpo_envs", "verifiers", "trainer")
"""Top-level packages of this distribution: never imported from the user's folder."""


class UserModuleError(ImportError):
    """A module named on the command line cannot be imported; the message says why and what to do."""


class CommandParser(argparse.ArgumentParser):
    """An `argparse.ArgumentParser` whose flags are dashes, with underscore spellings as hidden aliases;
    no abbreviations (``--max-new-token`` is an unknown flag, not ``--max-new-tokens``); an error
    is one line (no usage block; ``--help`` shows it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def format_help(self) -> str:
        """argparse's help, without the docstrings' reStructuredText literals (````x````: x)."""
        return super().format_help().replace("``", "")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        words = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(self._dashed(words), namespace)

    def _dashed(self, words: list[str]) -> list[str]:
        """``--a_b`` and ``--a_b=V`` as ``--a-b`` when this parser knows ``--a-b`` and not ``--a_b``."""
        known = set(self._option_string_actions)
        out: list[str] = []
        for word in words:
            if word == "--":
                out += words[len(out) :]
                break
            flag, eq, value = word.partition("=")
            dashed = flag.replace("_", "-")
            if flag.startswith("--") and "_" in flag and flag not in known and dashed in known:
                word = dashed + eq + value
            out.append(word)
        return out

    def error(self, message: str) -> NoReturn:
        """argparse's error, with the closest known flag for an unrecognized one."""
        if message.startswith("unrecognized arguments:"):
            flags = sorted(s for s in self._option_string_actions if s.startswith("--"))
            for word in message.split(":", 1)[1].split():
                close = difflib.get_close_matches(word.partition("=")[0].replace("_", "-"), flags, n=1)
                if word.startswith("-") and close:
                    message += f" (did you mean {close[0]}?)"
                    break
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def add_no_progress(parser: argparse.ArgumentParser, what: str = "no progress bars (logs only)") -> None:
    """``--no-progress``, the same flag on every command."""
    parser.add_argument("--no-progress", action="store_true", help=what)


def import_user_module(name: str) -> ModuleType:
    """Import ``name`` (``pkg.mod`` too) as found from the current folder, after the installed packages.

    A module or package of that name in the current folder is loaded from its file (so nothing
    installed under the same name is taken instead), and the folder is appended to ``sys.path`` so
    it can import its neighbours; our own packages (``grpo_envs``, ``verifiers``, ``trainer``) are
    imported before that, so they always come from where they are installed (an editable install's
    finder runs after every ``sys.path`` entry). Raises `UserModuleError` with one line naming the
    problem.

    Examples:
        >>> import_user_module("json").__name__
        'json'
    """
    top = name.partition(".")[0]
    if not name or not all(part.isidentifier() for part in name.split(".")):
        raise UserModuleError(f"{name!r} is not a module name (expected e.g. my_envs or mypkg.envs)")
    folder = Path.cwd()
    if str(folder) not in sys.path and "" not in sys.path:
        _import_ours()
        sys.path.append(str(folder))  # for the module's own imports of its neighbours
    try:
        if top not in sys.modules and top not in _OURS:
            _load_from(folder, top)
        return importlib.import_module(name)
    except UserModuleError:
        raise
    except ModuleNotFoundError as exc:
        if exc.name not in (top, name):
            raise UserModuleError(f"importing {name!r} failed: {exc} (is it installed in this environment?)") from exc
        raise UserModuleError(
            f"cannot import {name!r}: there is no {top}.py or {top}/ in {folder} and no installed module of that "
            "name; run the command from the folder that holds it, or install it"
        ) from None
    except Exception as exc:
        where = _where(exc)
        raise UserModuleError(f"importing {name!r} raised {type(exc).__name__}: {exc}{where}") from exc


def _import_ours() -> None:
    """Import our packages before the current folder joins ``sys.path``: an editable install's
    finder comes after every ``sys.path`` entry, so a ``trainer/`` there would otherwise win (each
    package is cheap to import: no torch, no docker)."""
    for name in _OURS:
        if name not in sys.modules:
            importlib.import_module(name)


def _load_from(folder: Path, top: str) -> None:
    """Load ``folder/top.py`` or the package ``folder/top/`` into ``sys.modules`` under ``top``."""
    package = folder / top / "__init__.py"
    path = package if package.is_file() else folder / f"{top}.py"
    if not path.is_file():
        return
    locations = [str(path.parent)] if path == package else None
    spec = importlib.util.spec_from_file_location(top, path, submodule_search_locations=locations)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules[top] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(top, None)
        raise


def _where(exc: BaseException) -> str:
    """`` (file.py, line N)``: the innermost frame of the traceback, or nothing."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    return f" ({Path(tb.tb_frame.f_code.co_filename).name}, line {tb.tb_lineno})"


def load_user_object(target: str, what: str) -> Any:
    """``module:attribute`` (``pkg.mod:obj.attr``) -> the object, the module imported by
    `import_user_module`; a `UserModuleError` names what is wrong.

    Examples:
        >>> load_user_object("json:dumps", "the function").__name__
        'dumps'
    """
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise UserModuleError(f"{what} must be MODULE:NAME (e.g. mypkg.rewards:verify), got {target!r}")
    obj: Any = import_user_module(module_name)
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise UserModuleError(f"{module_name!r} has no {attribute!r}")
        obj = getattr(obj, part)
    return obj
