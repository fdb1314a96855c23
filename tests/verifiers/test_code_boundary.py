"""The boundary between the program and the test (issue: verifiers.code, control flow and the
test's classes): what the program raises never steers the test's control flow, and the test
code's classes are the program's too. Each case in every test format: asserts, fn_name,
pytest-style and LeetCode rows."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from verifiers import code as vc
from verifiers.sandbox import DockerSandbox
from verifiers.sandbox._host.classes import shared_classes

sys.path.insert(0, str(Path(__file__).parent))
from judging import judged  # noqa: E402

# -- StopIteration and StopAsyncIteration from a call -----------------------------------------
PRIME = "def is_prime(n):\n    return n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))\n"
PRIME_CHECKER = "class Checker:\n    def is_prime(self, n):\n        return n > 1 and all(n % d for d in range(2, n))\n"
STOPS = {
    "StopIteration": "def is_prime(n):\n    raise StopIteration\n",
    "its own StopIteration": "class Done(StopIteration):\n    pass\n\ndef is_prime(n):\n    raise Done('done')\n",
    "StopAsyncIteration": "def is_prime(n):\n    raise StopAsyncIteration\n",
}
# Each line passes when the iteration ends at once (before the fix, with a program whose every
# call raises StopIteration): all() is True, any() False, a loop checks nothing.
ITERATING = """assert all(map(is_prime, [2, 3, 5, 7]))
assert not any(map(is_prime, [4, 6, 8]))
assert all(filter(is_prime, [2, 3, 5]))
assert all(is_prime(n) for n in [2, 3])
assert sum(map(is_prime, [9, 15])) == 0
assert dict(zip(map(is_prime, [4]), [1])) == {False: 1}
for flag in map(is_prime, [2, 13]):
    assert flag
"""
ASYNC_ITERATING = """import asyncio

class Stream:
    def __init__(self, values):
        self.values = list(values)
    def __aiter__(self):
        return self
    async def __anext__(self):
        if not self.values:
            raise StopAsyncIteration
        return is_prime(self.values.pop())

async def all_prime(values):
    async for flag in Stream(values):
        if not flag:
            return False
    return True

assert asyncio.run(all_prime([2, 3, 5]))
"""


def _lines(suite: str) -> list[str]:
    return [line for line in suite.splitlines() if line.startswith("assert")]


@pytest.mark.docker
class TestIterationEnds:
    def test_a_call_that_raises_stopiteration_fails_in_asserts(self, box: DockerSandbox) -> None:
        tests = {"asserts": ITERATING, "entry_point": "is_prime"}
        r = judged(box, tests, PRIME)
        assert r.correct, r.reason
        for name, hack in STOPS.items():
            r = judged(box, tests, hack)
            assert r.reward == 0.0, (name, r.components)
            assert "RuntimeError" not in r.reason and "PEP 479" in r.reason, r.reason
        r = judged(box, {"asserts": ASYNC_ITERATING}, PRIME)
        assert r.correct, r.reason
        r = judged(box, {"asserts": ASYNC_ITERATING}, STOPS["StopAsyncIteration"])
        assert r.reward == 0.0, r.reason

    def test_through_a_handles_method_and_a_class(self, box: DockerSandbox) -> None:
        suite = "c = Checker()\n" + ITERATING.replace("is_prime", "c.is_prime")
        r = judged(box, {"asserts": suite}, PRIME_CHECKER)
        assert r.correct, r.reason
        hack = "class Checker:\n    def is_prime(self, n):\n        raise StopIteration\n"
        assert judged(box, {"asserts": suite}, hack).reward == 0.0
        # a constructor that raises StopIteration inside map() over the class
        ctor = "assert all(map(Checker, [1, 2]))\n"
        assert judged(box, {"asserts": ctor}, "class Checker:\n    def __init__(self, n):\n        pass\n").correct
        hack = "class Checker:\n    def __init__(self, n):\n        raise StopIteration\n"
        assert judged(box, {"asserts": ctor}, hack).reward == 0.0

    def test_pytest_style(self, box: DockerSandbox) -> None:
        tests = "from solution import is_prime\n\n" + "".join(
            f"def test_{k}():\n    {line}\n\n" for k, line in enumerate(_lines(ITERATING))
        )
        assert judged(box, tests, PRIME).correct
        for name, hack in STOPS.items():
            r = judged(box, tests, hack)
            assert r.reward == 0.0, (name, r.components)
        # through a handle's method
        tests = "from solution import Checker\n\n" + "".join(
            f"def test_{k}():\n    c = Checker()\n    {line.replace('is_prime', 'c.is_prime')}\n\n"
            for k, line in enumerate(_lines(ITERATING))
        )
        assert judged(box, tests, PRIME_CHECKER).correct
        hack = "class Checker:\n    def is_prime(self, n):\n        raise StopIteration\n"
        assert judged(box, tests, hack).reward == 0.0

    def test_leetcode_rows(self, box: DockerSandbox) -> None:
        row = {
            "prompt": "from typing import *\n",
            "entry_point": "Solution().isPrime",
            "test": "def check(candidate):\n"
            + "".join(f"    {line}\n" for line in _lines(ITERATING)).replace("is_prime", "candidate"),
        }
        tests = vc.tests_from_row(row, style="leetcode")
        right = "class Solution:\n    def isPrime(self, n: int) -> bool:\n" + "        " + PRIME.splitlines()[1] + "\n"
        assert judged(box, tests, right).correct
        for kind in ("StopIteration", "StopAsyncIteration"):
            hack = f"class Solution:\n    def isPrime(self, n: int) -> bool:\n        raise {kind}\n"
            assert judged(box, tests, hack).reward == 0.0

    def test_fn_name(self, box: DockerSandbox) -> None:
        tests = {"fn_name": "is_prime", "inputs": [[2], [4]], "outputs": [True, False]}
        assert judged(box, tests, PRIME).correct
        for hack in STOPS.values():
            r = judged(box, tests, hack)
            assert r.reward == 0.0 and "runtime error" in r.reason, r.reason

    def test_the_programs_iterators_still_end_their_iteration(self, box: DockerSandbox) -> None:
        program = (
            "def squares(n):\n    for i in range(n):\n        yield i * i\n\n"
            "class Countdown:\n    def __init__(self, n):\n        self.n = n\n    def __iter__(self):\n"
            "        return self\n    def __next__(self):\n        if self.n == 0:\n            raise StopIteration\n"
            "        self.n -= 1\n        return self.n\n"
        )
        tests = """import pytest
from solution import squares, Countdown

def test_generator():
    g = squares(2)
    assert next(g) == 0 and next(g) == 1
    with pytest.raises(StopIteration):
        next(g)
    assert next(g, "done") == "done"
    assert list(squares(3)) == [0, 1, 4] and sum(squares(3)) == 5

def test_iterator_class():
    assert list(Countdown(3)) == [2, 1, 0]
    assert all(x < 3 for x in Countdown(3))
    it = Countdown(1)
    assert next(it) == 0
    with pytest.raises(StopIteration):
        next(it)
"""
        r = judged(box, tests, program)
        assert r.correct, r.reason


@pytest.mark.docker
class TestContextManagers:
    PROGRAM = (
        "class Quiet:\n    def __enter__(self):\n        return self\n"
        "    def __exit__(self, kind, value, tb):\n        return True\n\n"
        "def double(x):\n    return 2 * x\n"
    )

    def test_the_programs_exit_never_swallows_the_tests_assertion(self, box: DockerSandbox) -> None:
        swallowed = "with Quiet():\n    assert double(2) == 5\nassert double(1) == 2\n"
        r = judged(box, {"asserts": swallowed}, self.PROGRAM)
        assert r.reward == 0.0 and "assert" in r.reason, r.reason
        r = judged(
            box,
            "from solution import Quiet, double\n\ndef test_q():\n" + "    " + swallowed.replace("\n", "\n    "),
            self.PROGRAM,
        )
        assert r.reward == 0.0
        # the program's own errors and the test's ordinary exceptions it may swallow, as Python does
        allowed = "with Quiet():\n    double(None)\nwith Quiet():\n    raise KeyError(1)\nassert double(2) == 4\n"
        r = judged(box, {"asserts": allowed}, self.PROGRAM.replace("2 * x", "x + x"))
        assert r.correct, r.reason


# -- the test's classes in the program's namespace --------------------------------------------
LIST_NODE = """class ListNode:
    def __init__(self, val=0, next=None):
        self.val, self.next = val, next

    def __repr__(self):
        return f"ListNode({self.val})"

    def values(self):
        return "the test's own helper method, never the program's"
"""
HELPERS = """def build(values):
    head = None
    for v in reversed(values):
        head = ListNode(v, head)
    return head

def values(head):
    out = []
    while head:
        out.append(head.val)
        head = head.next
    return out
"""
# Uses ListNode at definition time (the annotation) and at run time, never defines it.
USES_LIST_NODE = """from typing import Optional

def from_list(values: list) -> Optional[ListNode]:
    head = None
    for v in reversed(values):
        head = ListNode(v, head)
    return head

def double_all(head: Optional[ListNode]) -> Optional[ListNode]:
    out = []
    while head:
        out.append(head.val * 2)
        head = head.next
    return from_list(out)
"""
# Defines its own ListNode, whose method only the program's class has: the program's wins.
OWN_LIST_NODE = """class ListNode:
    def __init__(self, val=0, next=None):
        self.val, self.next = val, next

    def doubled(self):
        return ListNode(self.val * 2, self.next.doubled() if self.next else None)

def from_list(values):
    head = None
    for v in reversed(values):
        head = ListNode(v, head)
    return head

def double_all(head):
    return head.doubled() if head else None
"""
LIST_ASSERTS = """assert values(double_all(build([1, 2, 3]))) == [2, 4, 6]
assert double_all(None) is None
assert isinstance(from_list([5]), ListNode) and values(from_list([5, 6])) == [5, 6]
"""


def test_what_goes_is_the_definition_stripped() -> None:
    shared = shared_classes(
        "import json\nfrom solution import f\nimport pytest\n"
        + LIST_NODE
        + "class TestList:\n    def test_a(self):\n        assert f(1) == 2\n"
        + "class Reference:\n    ANSWERS = [1, 2, 3]\n    def solve(self, x):\n        return x\n"
        + "    def __call__(self, x):\n        return x\n",
        "def f(x):\n    return x\n",
    )
    assert shared is not None
    assert shared["imports"] == ["import json"]
    assert [name for name, _ in shared["classes"]] == ["ListNode", "Reference"]
    list_node, reference = (source for _, source in shared["classes"])
    assert "__repr__" in list_node and "def values" not in list_node
    assert "ANSWERS" not in reference and "solve" not in reference and "__call__" not in reference
    assert shared_classes(LIST_NODE, "class ListNode:\n    pass\n") is None  # the program's wins
    assert shared_classes(LIST_NODE, "def f(:\n") is None


def test_decorated_definitions_keep_their_decorators_in_the_tester() -> None:
    from verifiers.code._tests import parse_suite

    code = "import functools\n@functools.total_ordering\n@dataclass(frozen=True)\nclass P:\n    x: int = 0\n\nassert f(P())\n"
    assert parse_suite({"asserts": code}).setup.splitlines()[1:3] == [
        "@functools.total_ordering",
        "@dataclass(frozen=True)",
    ]


@pytest.mark.docker
class TestTheTestsClasses:
    def test_asserts(self, box: DockerSandbox) -> None:
        tests = {"asserts": LIST_NODE + HELPERS + LIST_ASSERTS}
        for program in (USES_LIST_NODE, OWN_LIST_NODE):
            r = judged(box, tests, program)
            assert r.correct, r.reason
        wrong = USES_LIST_NODE.replace("head.val * 2", "head.val * 3")
        r = judged(box, tests, wrong)
        assert r.components["test_0"] == 0.0 and r.components["test_2"] == 1.0, r.components

    def test_pytest_style(self, box: DockerSandbox) -> None:
        tests = (
            "import pytest\nfrom solution import double_all, from_list\n\n"
            + LIST_NODE
            + HELPERS
            + "".join(f"\ndef test_{k}():\n    {line}\n" for k, line in enumerate(LIST_ASSERTS.splitlines()))
        )
        for program in (USES_LIST_NODE, OWN_LIST_NODE):
            r = judged(box, tests, program)
            assert r.correct, r.reason

    def test_a_dataclass_and_the_tests_imports(self, box: DockerSandbox) -> None:
        tests = (
            "from dataclasses import dataclass, field\n\n@dataclass\nclass Point:\n    x: int = 0\n"
            "    tags: list = field(default_factory=list)\n\n"
            "assert far([Point(1), Point(5, ['a'])]) == Point(5, ['a'])\n"
        )
        program = "def far(points: list[Point]) -> Point:\n    return max(points, key=lambda p: p.x)\n"
        r = judged(box, {"asserts": tests}, program)
        assert r.correct, r.reason
        r = judged(box, {"asserts": tests}, "def far(points):\n    return dataclass\n")
        assert r.reward == 0.0 and "NameError" in r.reason  # the test's imports stay the test's

    def test_leetcode_rows(self, box: DockerSandbox) -> None:
        row = {
            "prompt": "from typing import *\n\n" + LIST_NODE + HELPERS,
            "entry_point": "Solution().doubleAll",
            "test": "def check(candidate):\n    assert values(candidate(build([1, 2]))) == [2, 4]\n"
            "    assert candidate(None) is None\n",
        }
        tests = vc.tests_from_row(row, style="leetcode")
        uses = (
            "class Solution:\n    def doubleAll(self, head: Optional[ListNode]) -> Optional[ListNode]:\n"
            "        return ListNode(head.val * 2, self.doubleAll(head.next)) if head else None\n"
        )
        own = OWN_LIST_NODE + "\nclass Solution:\n    def doubleAll(self, head):\n        return double_all(head)\n"
        for program in (uses, own):
            r = judged(box, tests, program)
            assert r.correct, r.reason

    def test_the_program_never_gets_the_tests_data_or_methods(self, box: DockerSandbox) -> None:
        tests = (
            "class Answers:\n    EXPECTED = 41\n    def expected(self):\n        return 41\n\nassert answer() == 41\n"
        )
        for program in (
            "def answer():\n    return Answers.EXPECTED\n",
            "def answer():\n    return Answers().expected()\n",
            "def answer():\n    import gc\n    return next(o for o in gc.get_objects() if o == 41)\n",
        ):
            r = judged(box, {"asserts": tests}, program)
            assert r.reward == 0.0, (program, r.reason)

    def test_fn_name_suites_have_no_test_code(self, box: DockerSandbox) -> None:
        # fn_name suites carry values only: no class to share, a program that needs one defines it
        tests = {"fn_name": "double_all", "inputs": [[None]], "outputs": [None]}
        assert "NameError: name 'ListNode'" in judged(box, tests, USES_LIST_NODE).reason
        assert judged(box, tests, OWN_LIST_NODE).correct
