"""Objects across the boundary (issue: verifiers.code part 2): the program's instances as
handles, its classes and exceptions, named tuples, their lifetime — and what a hostile program
cannot do with them. In-place changes and console: `test_code_copies.py`; linked structures:
`test_code_structures.py`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from verifiers.sandbox import DockerSandbox

sys.path.insert(0, str(Path(__file__).parent))
from judging import judged  # noqa: E402

pytestmark = pytest.mark.docker


QUEUE = """class MyCircularQueue:
    def __init__(self, k):
        self.items, self.k = [], k

    def enQueue(self, value):
        if len(self.items) == self.k:
            return False
        self.items.append(value)
        return True

    def deQueue(self):
        return bool(self.items) and self.items.pop(0) is not None

    def Front(self):
        return self.items[0] if self.items else -1

    def __len__(self):
        return len(self.items)
"""
QUEUE_TESTS = """
def test_queue():
    q = MyCircularQueue(2)
    assert q.enQueue(1) is True and q.enQueue(2) is True and q.enQueue(3) is False
    assert q.Front() == 1 and len(q) == 2 and q.k == 2
    assert q.deQueue() is True and q.Front() == 2
    assert isinstance(q, MyCircularQueue) and not isinstance(3, MyCircularQueue)
"""


class TestHandles:
    def test_a_stateful_class_is_driven_through_its_methods(self, box: DockerSandbox) -> None:
        assert judged(box, "from solution import MyCircularQueue\n" + QUEUE_TESTS, QUEUE).correct
        asserts = {"asserts": QUEUE_TESTS.replace("def test_queue():\n", "").replace("\n    ", "\n").strip()}
        assert judged(box, asserts, QUEUE).correct  # the same, as bare asserts with no import
        wrong = QUEUE.replace("self.items.pop(0)", "self.items.pop()")  # a stack
        r = judged(box, "from solution import MyCircularQueue\n" + QUEUE_TESTS, wrong)
        assert not r.correct and "assert" in r.reason

    def test_leetcode_solution_classes_and_plain_module_values(self, box: DockerSandbox) -> None:
        program = (
            "MOD = 10**9 + 7\n\nclass Solution:\n    def twoSum(self, nums, target):\n"
            "        seen = {}\n        for i, x in enumerate(nums):\n            if target - x in seen:\n"
            "                return [seen[target - x], i]\n            seen[x] = i\n"
        )
        tests = {"asserts": "assert Solution().twoSum([2, 7, 11, 15], 9) == [0, 1]\nassert MOD == 1000000007"}
        assert judged(box, tests, program).correct
        r = judged(box, tests, program.replace("return [seen[target - x], i]", "return [i, seen[target - x]]"))
        assert r.reward == pytest.approx(0.5)

    def test_convertible_values_generators_matches_and_iteration(self, box: DockerSandbox) -> None:
        program = """import re
from collections import Counter, defaultdict, deque, OrderedDict

def counts(xs):
    return Counter(xs)

def groups(words):
    out = defaultdict(list)
    for w in words:
        out[w[0]].append(w)
    return out

def window(xs):
    return deque(xs, maxlen=2)

def ordered():
    return OrderedDict(a=1)

def squares(n):
    for i in range(n):
        yield i * i

def match(text):
    return re.search(r"ab+", text)

class Bag:
    def __init__(self):
        self.items = {"x": 1, "y": 2}
    def __iter__(self):
        return iter(self.items)
    def __getitem__(self, key):
        return self.items[key]
    def __contains__(self, key):
        return key in self.items
    def __str__(self):
        return "Bag(2)"
"""
        tests = """from solution import *

def test_values():
    assert counts("aab") == {"a": 2, "b": 1}
    assert groups(["ab", "ac", "b"]) == {"a": ["ab", "ac"], "b": ["b"]}
    assert window([1, 2, 3]) == [2, 3]
    assert ordered() == {"a": 1}

def test_generator():
    assert list(squares(4)) == [0, 1, 4, 9]
    assert sum(squares(3)) == 5
    g = squares(2)
    assert next(g) == 0 and next(g) == 1
    with pytest.raises(StopIteration):
        next(g)

def test_match():
    assert match("xabbb")
    assert match("xabbb").group(0) == "abbb"
    assert not match("xyz")

def test_bag():
    b = Bag()
    assert sorted(b) == ["x", "y"] and b["y"] == 2 and "x" in b and "z" not in b
    assert str(b) == "Bag(2)"
"""
        r = judged(box, "import pytest\n" + tests, program)
        assert r.correct, r.reason
        r = judged(box, "import pytest\n" + tests, program.replace('r"ab+"', 'r"q+"'))
        assert r.components["test_2"] == 0.0 and r.components["test_0"] == 1.0

    def test_a_handle_equals_only_itself(self, box: DockerSandbox) -> None:
        program = (
            "class Anything:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n\n"
            "def answer():\n    return Anything()\n\n_one = Anything()\n\ndef same():\n    return _one\n"
        )
        assert not judged(box, {"asserts": "assert answer() == 42"}, program).correct
        # two of the program's objects: its own __eq__ decides, as in Python
        assert judged(box, {"asserts": "assert answer() == answer()"}, program).correct
        assert not judged(box, {"asserts": "assert [answer()] == [42]"}, program).correct
        assert judged(box, {"asserts": "assert same() == same() and same() is same()"}, program).correct

    def test_operators_run_in_the_program_but_never_rank_its_objects_against_values(self, box: DockerSandbox) -> None:
        program = """class Vector:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __add__(self, other):
        return Vector(self.x + other.x, self.y + other.y)
    def __mul__(self, k):
        return Vector(self.x * k, self.y * k)
    __rmul__ = __mul__
    def __eq__(self, other):
        return isinstance(other, Vector) and (self.x, self.y) == (other.x, other.y)
    def __lt__(self, other):
        return (self.x, self.y) < (other.x, other.y)
    def __abs__(self):
        return (self.x ** 2 + self.y ** 2) ** 0.5
    def __int__(self):
        return int(abs(self))

class Opened:
    def __enter__(self):
        self.open = True
        return self
    def __exit__(self, *exc):
        self.open = False
        return False
"""
        tests = {
            "asserts": "v = Vector(1, 2) + Vector(3, 4)\nassert v == Vector(4, 6) and v != Vector(0, 0)\n"
            "assert (v * 2).y == 12 and (2 * v).x == 8\nassert Vector(1, 1) < Vector(2, 2)\n"
            "assert abs(Vector(3, 4)) == 5 and int(Vector(3, 4)) == 5\n"
            "with Opened() as f:\n    assert f.open is True\nassert f.open is False"
        }
        r = judged(box, tests, program)
        assert r.correct, r.reason
        # an object whose every operation is itself and that is always true
        cheat = (
            "class Yes:\n    def __bool__(self):\n        return True\n    def __lt__(self, o):\n"
            "        return Yes()\n    __gt__ = __le__ = __ge__ = __sub__ = __rsub__ = __add__ = __lt__\n"
            "    def __abs__(self):\n        return self\n\nclass Zero:\n    def __sub__(self, o):\n"
            "        return 0.0\n    __rsub__ = __sub__\n\ndef area(r):\n    return Yes()\n\n"
            "def zero(r):\n    return Zero()\n"
        )
        for check in (
            "assert abs(area(1) - 3.14159) < 1e-4",
            "assert area(1) < 4",
            "assert 3 < area(1)",
            "assert abs(zero(1) - 3.14159) < 1e-4",
            "assert abs(3.14159 - zero(1)) < 1e-4",
        ):
            assert not judged(box, {"asserts": check}, cheat).correct, check

    def test_hash_is_the_programs_so_equal_objects_share_a_set(self, box: DockerSandbox) -> None:
        program = (
            "class Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n"
            "    def __eq__(self, o):\n        return (self.x, self.y) == (o.x, o.y)\n"
            "    def __hash__(self):\n        return hash((self.x, self.y))\n\n"
            "class Bare:\n    __hash__ = None\n"
        )
        tests = {
            "asserts": "assert hash(Point(1, 2)) == hash(Point(1, 2))\nassert len({Point(1, 2), Point(1, 2)}) == 1\n"
            "ok = False\ntry:\n    hash(Bare())\nexcept TypeError:\n    ok = True\nassert ok"
        }
        r = judged(box, tests, program)
        assert r.correct, r.reason

    def test_dunder_results_are_type_checked_in_the_judge(self, box: DockerSandbox) -> None:
        program = (
            "class Liar:\n    def __bool__(self):\n        return 'yes'\n    def __len__(self):\n"
            "        return -1\n\ndef liar():\n    return Liar()\n"
        )
        r = judged(box, {"asserts": "assert liar()"}, program)
        assert not r.correct and "TypeError" in r.reason
        assert not judged(box, {"asserts": "assert len(liar()) >= -1"}, program).correct


class TestExceptions:
    PROGRAM = """class InsufficientFunds(ValueError):
    def __init__(self, amount):
        super().__init__(f"short by {amount}")
        self.amount = amount

    def __eq__(self, other):
        return True

class Account:
    def __init__(self, balance):
        self.balance = balance

    def withdraw(self, amount):
        if amount > self.balance:
            raise InsufficientFunds(amount - self.balance)
        if amount < 0:
            raise KeyError("negative")
        self.balance -= amount
        return self.balance
"""
    TESTS = """import pytest
from solution import Account, InsufficientFunds

def test_own_exception():
    with pytest.raises(InsufficientFunds) as excinfo:
        Account(5).withdraw(8)
    assert excinfo.value.amount == 3
    assert "short by 3" in str(excinfo.value)

def test_builtin_bases_are_honoured():
    with pytest.raises(ValueError, match="short by"):
        Account(1).withdraw(2)
    try:
        Account(1).withdraw(-1)
    except KeyError as exc:
        assert exc.args == ("negative",)
    else:
        raise AssertionError("no KeyError")

def test_no_exception():
    assert Account(5).withdraw(2) == 3

def test_raises_forms():
    excinfo = pytest.raises(InsufficientFunds, Account(1).withdraw, 4)
    assert excinfo.match(r"short by \\d") and excinfo.value.amount == 3
"""

    def test_pytest_raises_and_except_see_the_programs_exceptions(self, box: DockerSandbox) -> None:
        r = judged(box, self.TESTS, self.PROGRAM)
        assert r.correct, r.reason
        silent = self.PROGRAM.replace("raise InsufficientFunds(amount - self.balance)", "return 0")
        r = judged(box, self.TESTS, silent)
        assert [r.components[f"test_{k}"] for k in range(4)] == [0.0, 0.0, 1.0, 0.0]

    def test_an_exception_with_a_custom_eq_or_instancecheck_cannot_pass(self, box: DockerSandbox) -> None:
        program = """class Meta(type):
    def __instancecheck__(cls, obj):
        return True
    def __subclasscheck__(cls, sub):
        return True

class Sneaky(Exception, metaclass=Meta):
    def __eq__(self, other):
        return True

def parse(text):
    raise Sneaky("not a number")
"""
        tests = "import pytest\nfrom solution import parse\n\ndef test_parse():\n    with pytest.raises(ValueError):\n        parse('x')\n"
        assert not judged(box, tests, program).correct
        assert not judged(
            box, {"asserts": "ok = False\ntry:\n    parse('x')\nexcept ValueError:\n    ok = True\nassert ok"}, program
        ).correct


class TestLifetime:
    def test_a_method_that_never_returns_is_stopped_and_the_next_test_runs(self, box: DockerSandbox) -> None:
        program = "class Spin:\n    def forever(self):\n        while True:\n            pass\n    def one(self):\n        return 1\n"
        tests = (
            "from solution import Spin\n\ndef test_spin():\n    Spin().forever()\n\n"
            "def test_one():\n    assert Spin().one() == 1\n"
        )
        r = judged(box, tests, program, timeout_s=1)
        assert r.components["test_0"] == 0.0 and r.components["test_1"] == 1.0
        assert "time limit" in r.reason

    def test_a_dead_handle_is_a_clear_error_and_never_passes(self, box: DockerSandbox) -> None:
        program = (
            "import os\n\nclass Box:\n    def die(self):\n        os._exit(3)\n    def one(self):\n        return 1\n"
        )
        tests = {
            "asserts": "b = Box()\ntry:\n    b.die()\nexcept BaseException:\n    pass\ntry:\n    b.one()\n"
            "except BaseException as exc:\n    assert 'exited' in str(exc)\nassert True"
        }
        r = judged(box, tests, program)
        assert not r.correct and "exited" in r.reason


def test_the_program_never_gets_the_tests_objects_or_code(box: DockerSandbox) -> None:
    """What the program receives of a test's object is a copy of its attributes in a class of
    the program's: the test's methods, module and frames do not travel."""
    tests = """class Node:
    def __init__(self, val):
        self.val = val
    def expected(self):
        return 42

def test_copy_only():
    node = Node(1)
    assert probe(node) == 42
"""
    program = """import gc, sys

def probe(node):
    for attempt in (lambda: node.expected(), lambda: type(node).expected(node),
                    lambda: sys._getframe(1).f_globals["Node"](0).expected(),
                    lambda: next(o for o in gc.get_objects() if getattr(o, "__name__", "") == "expected")()):
        try:
            return attempt()
        except Exception:
            pass
    return 0
"""
    r = judged(box, tests, program)
    assert not r.correct and "assert" in r.reason


def test_named_tuples_cross_as_named_tuples(box: DockerSandbox) -> None:
    program = (
        "from collections import namedtuple\n\nPoint = namedtuple('Point', 'x y')\n\n"
        "def mid(a, b):\n    return Point((a.x + b.x) / 2, (a.y + b.y) / 2)\n\n"
        "class Stack:\n    pass\n\ndef make():\n    return Stack()\n"
    )
    tests = {
        "asserts": "from collections import namedtuple\nP = namedtuple('P', 'x y')\n"
        "m = mid(P(0, 0), P(2, 4))\nassert m == (1.0, 2.0) and m.y == 2.0 and type(m).__name__ == 'Point'"
    }
    r = judged(box, tests, program)
    assert r.correct, r.reason
    assert not judged(box, tests, program.replace("/ 2, (a.y", "/ 3, (a.y")).correct
