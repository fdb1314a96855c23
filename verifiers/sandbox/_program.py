"""The in-container program: the sandbox modules joined into one ``python3 -c`` text.

The container's root file system is read-only and holds only Python, so the supervisor
travels as the command line (under the 128 KiB per-argument limit). Each part is a normal
module of this package (linted and type-checked); joining drops their intra-package imports
and ``from __future__`` lines.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["PROGRAM"]

_PARTS = (
    "_wire.py",
    "_objects.py",
    "_console.py",
    "_faults.py",
    "_handles.py",
    "_link.py",
    "_pyshim.py",
    "_roles.py",
    "_procs.py",
    "_zygote.py",
    "_supervisor.py",
)


def _join() -> str:
    here = Path(__file__).parent
    out = ["from __future__ import annotations"]
    for name in _PARTS:
        skipping = False
        for line in (here / name).read_text().splitlines():
            if skipping:  # the rest of a parenthesized intra-package import
                skipping = line.strip() != ")"
                continue
            if line.startswith(("from __future__ ", "from verifiers.")):
                skipping = line.rstrip().endswith("(")
                continue
            out.append(line)
    text = "\n".join(out) + "\n"
    if len(text.encode()) >= 128 * 1024:
        raise RuntimeError("the sandbox program outgrew a command-line argument")
    return text


PROGRAM = _join()
