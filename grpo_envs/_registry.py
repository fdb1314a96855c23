"""Registration of the built-in environments and of third-party plugins."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import warnings
from typing import Any

import gymnasium

from grpo_envs.errors import GrpoEnvsError

__all__ = ["BUILTINS", "NAMESPACE", "env_ids", "load_plugins", "register_builtins", "resolve_env_id"]

NAMESPACE = "grpo_envs"
PLUGIN_GROUP = "grpo_envs.envs"

# id -> (entry point, one-line description); classes are imported only when made.
BUILTINS: dict[str, tuple[str, str]] = {
    "Arithmetic-v0": ("grpo_envs.envs.arithmetic:Arithmetic", "Multi-step integer and fraction arithmetic."),
    "LinearEquations-v0": ("grpo_envs.envs.linear_equations:LinearEquations", "Linear equations, 2x2 systems."),
    "Countdown-v0": ("grpo_envs.envs.countdown:Countdown", "Reach a target using each given number once."),
    "Sorting-v0": ("grpo_envs.envs.sorting:Sorting", "Sort a list of integers."),
    "ModularArithmetic-v0": ("grpo_envs.envs.modular:ModularArithmetic", "Modular powers, products and inverses."),
    "MathDataset-v0": ("grpo_envs.envs.math_dataset:MathDataset", "Question/answer math data (JSONL or HF datasets)."),
    "CodeTests-v0": ("grpo_envs.envs.code_tests:CodeTests", "Write a program; judged by unit tests in Docker."),
    "CodeRepair-v0": ("grpo_envs.envs.code_repair:CodeRepair", "Multi-turn: fix buggy code from failing test output."),
    "Digits-v0": ("grpo_envs.envs.digits:Digits", "One-digit tasks for tiny models (the CPU demo)."),
    "PythonTool-v0": ("grpo_envs.envs.python_tool:PythonTool", "Multi-turn: run Python in the sandbox, then answer."),
    "Terminal-v0": ("grpo_envs.envs.harbor:HarborTerminal", "Multi-turn shell work on a folder of Harbor tasks."),
}
OPTIONAL: dict[str, tuple[str, str, str]] = {
    "ReasoningGym-v0": (
        "grpo_envs.envs.reasoning_gym:ReasoningGym",
        "Any reasoning-gym dataset by name (extra: reasoning-gym).",
        "reasoning_gym",
    ),
}
_plugin_ids: dict[str, str] = {}


def register_builtins() -> None:
    """Register every built-in id (and optional ones whose package is installed)."""
    for name, (entry_point, _) in BUILTINS.items():
        env_id = f"{NAMESPACE}/{name}"
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point)
    for name, (entry_point, _, module) in OPTIONAL.items():
        env_id = f"{NAMESPACE}/{name}"
        if env_id not in gymnasium.registry and importlib.util.find_spec(module) is not None:
            gymnasium.register(id=env_id, entry_point=entry_point)


def load_plugins() -> None:
    """Call every ``grpo_envs.envs`` entry point (a function registering its ids).

    A plugin that fails is a warning, never a crash. Plugins should register with string
    entry points (``"pkg.module:Env"``) so that their env modules load only when made.
    """
    for ep in importlib.metadata.entry_points(group=PLUGIN_GROUP):
        before = set(gymnasium.registry)
        try:
            ep.load()()
        except Exception as exc:
            warnings.warn(
                f"grpo_envs plugin {ep.name!r} ({ep.value}) failed to register: {type(exc).__name__}: {exc}",
                RuntimeWarning,
                stacklevel=2,
            )
            continue
        for env_id in set(gymnasium.registry) - before:
            _plugin_ids[env_id] = ep.name


def resolve_env_id(env_id: str) -> str:
    """Make ``module:Name-vN`` (Gymnasium's syntax) makeable from any command: import ``module``,
    the one that registers the id, from the current folder the way ``python -m`` would but behind
    the installed packages (`verifiers.commandline.import_user_module`: a folder of yours named
    ``trainer/`` never replaces ours). Returns ``env_id`` unchanged; an id without a module is
    returned as is. A module that cannot be imported is one `GrpoEnvsError` saying why.

    Examples:
        >>> resolve_env_id("grpo_envs/Arithmetic-v0")
        'grpo_envs/Arithmetic-v0'
    """
    from verifiers.commandline import UserModuleError, import_user_module

    module, sep, _ = env_id.partition(":")
    if sep and module:
        try:
            import_user_module(module)
        except UserModuleError as exc:
            raise GrpoEnvsError(f"env {env_id!r}: {exc}") from None
    return env_id


def env_ids(*, load: bool = False) -> dict[str, str]:
    """Every id this package and its plugins registered -> a one-line description.

    Plugin descriptions are their entry points unless ``load`` imports them for docstrings.
    """
    out: dict[str, str] = {}
    for name, (_, doc) in BUILTINS.items():
        out[f"{NAMESPACE}/{name}"] = doc
    for name, (_, doc, _) in OPTIONAL.items():
        if f"{NAMESPACE}/{name}" in gymnasium.registry:
            out[f"{NAMESPACE}/{name}"] = doc
    for env_id, plugin in sorted(_plugin_ids.items()):
        out[env_id] = f"(plugin {plugin}) {_doc_of(env_id, load)}"
    return out


def _doc_of(env_id: str, load: bool) -> str:
    spec: Any = gymnasium.registry.get(env_id)
    entry = getattr(spec, "entry_point", None)
    if isinstance(entry, str):
        if not load:
            return entry
        try:
            from gymnasium.envs.registration import load_env_creator

            entry = load_env_creator(entry)
        except Exception as exc:
            return f"{entry} (cannot be imported: {exc})"
    doc = (getattr(entry, "__doc__", None) or "").strip().splitlines()
    return doc[0] if doc else ""
