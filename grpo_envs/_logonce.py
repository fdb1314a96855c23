"""A failure's traceback once per distinct error, not once per completion: a verifier that raises
on every one of 500 completions logs one traceback, the rest at debug level."""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["error_key", "log_error_once"]

log = logging.getLogger("grpo_envs")
_seen: set[tuple[str, str, int]] = set()
_MAX_SEEN = 1024


def error_key(exc: BaseException) -> tuple[str, str, int]:
    """What makes two errors the same: the exception's type and the line that raised it."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    where = (tb.tb_frame.f_code.co_filename, tb.tb_lineno) if tb is not None else ("", 0)
    return (type(exc).__qualname__, *where)


def log_error_once(exc: BaseException, message: str, *args: Any) -> bool:
    """Log ``message % args`` with ``exc``'s traceback at ERROR the first time this error is seen
    in this process, at DEBUG after that; returns whether it was the first time."""
    key = error_key(exc)
    first = key not in _seen
    if first:
        if len(_seen) < _MAX_SEEN:
            _seen.add(key)
        log.error(message + " (the same error again is logged at debug level)", *args, exc_info=exc)
    else:
        log.debug(message, *args)
    return first
