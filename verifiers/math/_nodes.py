"""The parse tree's node type (see `_parser` for the node kinds)."""

from __future__ import annotations

from typing import Any

__all__ = ["Node"]

Node = tuple[Any, ...]
