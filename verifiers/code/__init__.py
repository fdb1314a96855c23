"""Code judged by unit tests run inside the Docker sandbox.

``verify(tests, completion)`` takes the program from the completion (the last fenced Python
block, else the whole text), runs every test case in the sandbox and returns a `VerifyResult`
whose ``reward`` is the fraction of tests passed (``partial_credit=False``: all or nothing).

Three test shapes (``tests_from_row`` converts HumanEval, MBPP, LiveCodeBench, TACO/APPS):

- ``{"stdin_stdout": [{"input": str, "output": str}, ...]}``: the program runs as
  ``__main__``; its stdout is compared token by token on the host (see ``first_difference``).
- ``{"fn_name": str, "inputs": [[args...], ...], "outputs": [...]}``: the program is loaded
  and the function called; return values come back as exact builtin types and are compared on
  the host (``3 != "3"``, ``(1, 2) != [1, 2]``; ints and floats compare as numbers).
- ``{"asserts": "assert f(2) == 4\\n...", "entry_point": "f"}``: each top-level assert (or
  call, e.g. HumanEval's ``check(candidate)``) runs in a separate tester process under another
  uid; every call of ``f`` crosses to the program as serialized values.

Why hacks do not pay: the verdict is never the program's exit status or its banner; expected
outputs and test code never enter the program's process; in function-call tests a returned
object with a custom ``__eq__`` or a builtin subclass is "not a value", and in tests run in the
tester it is a handle that equals only itself; exiting early, patching builtins or unittest, or reading
the caller's frame reach only the program's own process. Tests in the tester may also use the
program's classes, exceptions, printed output and in-place changes, and the dataset's own
``ListNode``/``TreeNode`` classes (a ``"preamble"`` both sides run; see the README).

Examples:
    >>> from verifiers import code
    >>> tests = {"stdin_stdout": [{"input": "2 3\\n", "output": "5\\n"}]}
    >>> code.verify(tests, "```python\\na, b = map(int, input().split())\\nprint(a + b)\\n```")
    ... # doctest: +SKIP
    VerifyResult(reward=1.0, correct=True, status='correct', ...)
"""

from __future__ import annotations

from verifiers.code._compare import first_difference
from verifiers.code._extract import extract_code
from verifiers.code._tests import tests_from_row
from verifiers.code._verify import verify, verify_many

__all__ = ["extract_code", "first_difference", "tests_from_row", "verify", "verify_many"]
