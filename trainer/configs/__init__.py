"""Config files shipped with the package, so the documented commands run from any folder:
``grpo-envs train --config demo`` (and ``load_config("demo")``) is the CPU demo's
``demo.toml``; a file of that name in the current folder is read instead.

Examples:
    >>> shipped_config("demo").name, shipped_config("mine.toml")
    ('demo.toml', None)
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["SHIPPED", "shipped_config"]

SHIPPED = ("demo",)
"""The names of the shipped configs (``NAME`` or ``NAME.toml``)."""


def shipped_config(name: str) -> Path | None:
    """The shipped config file called ``name`` (``demo`` or ``demo.toml``), or None."""
    stem = name[: -len(".toml")] if name.endswith(".toml") else name
    return Path(__file__).with_name(f"{stem}.toml") if stem in SHIPPED else None
