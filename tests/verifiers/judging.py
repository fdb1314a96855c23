"""Helpers for the judged-suite tests of objects across the boundary (the sandbox: `conftest.box`)."""

from __future__ import annotations

from verifiers import code as vc
from verifiers.result import VerifyResult
from verifiers.sandbox import DockerSandbox


def fenced(source: str) -> str:
    return f"```python\n{source}\n```"


def judged(box: DockerSandbox, tests: str | dict[str, str], program: str, **kw: float) -> VerifyResult:
    """``program`` judged by ``tests``: a pytest file (a str) or a tests dict."""
    suite = {"pytest": tests} if isinstance(tests, str) else tests
    return vc.verify(suite, fenced(program), sandbox=box, **kw)  # type: ignore[arg-type]
