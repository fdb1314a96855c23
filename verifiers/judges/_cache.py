"""An on-disk cache of judge replies: one small JSON file per key, written atomically (threads
and processes may share a directory). Keys are sha256 digests of what decides a reply: the
model, the sampling settings and the rendered messages (the template with its inputs)."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["ReplyCache", "key_of"]


def key_of(*parts: Any) -> str:
    """A stable digest of JSON-able ``parts`` (never Python's per-process ``hash``)."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class ReplyCache:
    """Replies by key under ``directory`` (created on first write).

    Examples:
        >>> import tempfile
        >>> cache = ReplyCache(tempfile.mkdtemp())
        >>> cache.get("ab" * 32) is None
        True
        >>> cache.put("ab" * 32, {"reply": "VERDICT: CORRECT"}); cache.get("ab" * 32)
        {'reply': 'VERDICT: CORRECT'}
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            value = json.loads(self._path(key).read_text())
        except (OSError, ValueError):  # absent, or a torn or foreign file: a miss
            return None
        return value if isinstance(value, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(value, f, ensure_ascii=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
