"""The in-container program, and how it reaches a container.

The program is the modules of `verifiers.sandbox._in_container` joined into one text: they
share one namespace (the supervisor's ``__main__``), so joining drops their intra-package
imports and ``from __future__`` lines. Each part stays a normal module (linted, type-checked,
importable on the host for unit tests).

It travels over the container's attached stdin, not on its command line: the command is a
short `BOOTSTRAP` that reads one frame (an 8-byte big-endian length, then the program) from
fd 0 and runs it as ``__main__``, as ``python3 -c`` would; the supervisor then reads its
requests from the same stream. So the program has no size ceiling (one command-line argument
is capped at 128 KiB), any image with ``python3`` runs it, and editing it rebuilds no image.
"""

from __future__ import annotations

import struct
from pathlib import Path

__all__ = ["BOOTSTRAP", "PARTS", "PROGRAM", "frame"]

PARTS = (
    "wire.py",
    "objects.py",
    "console.py",
    "faults.py",
    "handles.py",
    "link.py",
    "pyshim.py",
    "roles.py",
    "procs.py",
    "sessions.py",
    "zygote.py",
    "supervisor.py",
)
"""The modules of `verifiers.sandbox._in_container`, each after those it imports."""

SOURCE = Path(__file__).resolve().parents[1] / "_in_container"

# Runs as ``python3 -s -c BOOTSTRAP supervise JOB_UID TESTER_UID``. It reads with os.read, never
# past the program's last byte (what follows is the supervisor's first request), compiles it as
# "<string>" (what ``-c`` names it) and runs it in this module, ``__main__``.
BOOTSTRAP = """import os
def _sandbox_read(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            os._exit(0)
        data += chunk
    return data
exec(compile(_sandbox_read(int.from_bytes(_sandbox_read(8), "big")), "<string>", "exec"))
"""


def _join() -> str:
    out = ["from __future__ import annotations"]
    for name in PARTS:
        skipping = False
        for line in (SOURCE / name).read_text().splitlines():
            if skipping:  # the rest of a parenthesized intra-package import
                skipping = line.strip() != ")"
                continue
            if line.startswith(("from __future__ ", "from verifiers.")):
                skipping = line.rstrip().endswith("(")
                continue
            out.append(line)
    return "\n".join(out) + "\n"


def frame(program: str) -> bytes:
    """What the host writes to a new container's stdin before its first request."""
    data = program.encode()
    return struct.pack(">Q", len(data)) + data


PROGRAM = _join()
