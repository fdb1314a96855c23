"""Objects across the boundary (issue: verifiers.code part 2): the program's instances as
handles, its exceptions, in-place changes, printed output, linked structures — and what a
hostile program cannot do with them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from verifiers import code as vc
from verifiers.result import VerifyResult
from verifiers.sandbox import DockerSandbox

pytestmark = pytest.mark.docker


def fenced(source: str) -> str:
    return f"```python\n{source}\n```"


@pytest.fixture(scope="module")
def box() -> Iterator[DockerSandbox]:
    with DockerSandbox(size=1, timeout_s=5) as sandbox:
        yield sandbox


def judged(box: DockerSandbox, tests: str | dict[str, str], program: str, **kw: float) -> VerifyResult:
    suite = {"pytest": tests} if isinstance(tests, str) else tests
    return vc.verify(suite, fenced(program), sandbox=box, **kw)  # type: ignore[arg-type]


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
        program = ("MOD = 10**9 + 7\n\nclass Solution:\n    def twoSum(self, nums, target):\n"
                   "        seen = {}\n        for i, x in enumerate(nums):\n            if target - x in seen:\n"
                   "                return [seen[target - x], i]\n            seen[x] = i\n")  # fmt: skip
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
        program = ("class Anything:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n\n"
                   "def answer():\n    return Anything()\n\n_one = Anything()\n\ndef same():\n    return _one\n")  # fmt: skip
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
        tests = {"asserts": "v = Vector(1, 2) + Vector(3, 4)\nassert v == Vector(4, 6) and v != Vector(0, 0)\n"
                 "assert (v * 2).y == 12 and (2 * v).x == 8\nassert Vector(1, 1) < Vector(2, 2)\n"
                 "assert abs(Vector(3, 4)) == 5 and int(Vector(3, 4)) == 5\n"
                 "with Opened() as f:\n    assert f.open is True\nassert f.open is False"}  # fmt: skip
        r = judged(box, tests, program)
        assert r.correct, r.reason
        # an object whose every operation is itself and that is always true
        cheat = ("class Yes:\n    def __bool__(self):\n        return True\n    def __lt__(self, o):\n"
                 "        return Yes()\n    __gt__ = __le__ = __ge__ = __sub__ = __rsub__ = __add__ = __lt__\n"
                 "    def __abs__(self):\n        return self\n\nclass Zero:\n    def __sub__(self, o):\n"
                 "        return 0.0\n    __rsub__ = __sub__\n\ndef area(r):\n    return Yes()\n\n"
                 "def zero(r):\n    return Zero()\n")  # fmt: skip
        for check in (
            "assert abs(area(1) - 3.14159) < 1e-4",
            "assert area(1) < 4",
            "assert 3 < area(1)",
            "assert abs(zero(1) - 3.14159) < 1e-4",
            "assert abs(3.14159 - zero(1)) < 1e-4",
        ):
            assert not judged(box, {"asserts": check}, cheat).correct, check

    def test_hash_is_the_programs_so_equal_objects_share_a_set(self, box: DockerSandbox) -> None:
        program = ("class Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n"
                   "    def __eq__(self, o):\n        return (self.x, self.y) == (o.x, o.y)\n"
                   "    def __hash__(self):\n        return hash((self.x, self.y))\n\n"
                   "class Bare:\n    __hash__ = None\n")  # fmt: skip
        tests = {"asserts": "assert hash(Point(1, 2)) == hash(Point(1, 2))\nassert len({Point(1, 2), Point(1, 2)}) == 1\n"
                 "ok = False\ntry:\n    hash(Bare())\nexcept TypeError:\n    ok = True\nassert ok"}  # fmt: skip
        r = judged(box, tests, program)
        assert r.correct, r.reason

    def test_dunder_results_are_type_checked_in_the_judge(self, box: DockerSandbox) -> None:
        program = ("class Liar:\n    def __bool__(self):\n        return 'yes'\n    def __len__(self):\n"
                   "        return -1\n\ndef liar():\n    return Liar()\n")  # fmt: skip
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


class TestMutationAndOutput:
    def test_in_place_changes_to_arguments_are_copied_back(self, box: DockerSandbox) -> None:
        program = ("def sort_in_place(xs):\n    xs.sort()\n\ndef add_key(d):\n    d['new'] = [1]\n\n"
                   "def push_inner(grid):\n    grid[0].append(9)\n\ndef enqueue(q, x):\n    q.append(x)\n")  # fmt: skip
        tests = {"asserts": "xs = [3, 1, 2]\nsort_in_place(xs)\nassert xs == [1, 2, 3]\n"
                 "d = {'a': 1}\nadd_key(d)\nassert d == {'a': 1, 'new': [1]}\n"
                 "grid = [[1], [2]]\nrow = grid[0]\npush_inner(grid)\nassert row == [1, 9] and grid[0] is row\n"
                 "q = []\nenqueue(q, 1)\nenqueue(q, 2)\nassert q == [1, 2]"}  # fmt: skip
        r = judged(box, tests, program)
        assert r.correct, r.reason
        copies = program.replace("xs.sort()", "xs = sorted(xs)")
        r = judged(box, tests, copies)
        failed = [k for k, v in r.components.items() if v == 0.0]
        assert failed == ["test_1"], r.reason  # "assert xs == [1, 2, 3]"

    def test_copy_back_writes_only_values(self, box: DockerSandbox) -> None:
        program = ("class Anything:\n    def __eq__(self, other):\n        return True\n\n"
                   "def fill(xs):\n    xs.append(Anything())\n")  # fmt: skip
        assert not judged(box, {"asserts": "xs = [1]\nfill(xs)\nassert xs == [1, 2]"}, program).correct
        checks = {"asserts": "xs = [1]\nfill(xs)\nassert len(xs) == 2 and type(xs[1]).__module__ != 'solution'"}
        assert judged(box, checks, program).correct

    PRINTS = "def show(xs):\n    for x in xs:\n        print(x)\n"

    def test_what_a_call_prints_reaches_the_tests_stdout(self, box: DockerSandbox) -> None:
        tests = """import contextlib, io, sys
from solution import show

def test_capsys(capsys):
    show([1, 2])
    assert capsys.readouterr().out == "1\\n2\\n"

def test_redirect():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        show(["a"])
    assert buf.getvalue() == "a\\n"

def test_reassigned_stdout():
    old, sys.stdout = sys.stdout, io.StringIO()
    try:
        show([3])
        text = sys.stdout.getvalue()
    finally:
        sys.stdout = old
    assert text == "3\\n"
"""
        r = judged(box, tests, self.PRINTS)
        assert r.correct, r.reason
        r = judged(box, tests, self.PRINTS.replace("print(x)", "print(x, end=' ')"))
        assert r.reward == 0.0

    def test_assert_suites_have_a_helper_for_printed_output(self, box: DockerSandbox) -> None:
        tests = {"asserts": "from judge import printed\nwith printed() as out:\n    show([1, 2])\n"
                 "assert out.text == '1\\n2\\n'"}  # fmt: skip
        assert judged(box, tests, self.PRINTS).correct
        assert not judged(box, tests, self.PRINTS.replace("print(x)", "print(x + 1)")).correct

    READS = ("import sys\n\ndef ask():\n    name = input('name? ')\n    return f'hi {name}'\n\n"
             "def total():\n    return sum(int(line) for line in sys.stdin)\n\n"
             "def first():\n    return sys.stdin.readline().strip()\n")  # fmt: skip

    def test_what_a_call_reads_comes_from_the_tests_input(self, box: DockerSandbox) -> None:
        tests = """import io, sys
import pytest
from solution import ask, total, first

def test_patched_input(monkeypatch, capsys):
    answers = iter(["ada", "bob"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert ask() == "hi ada" and ask() == "hi bob"

def test_patched_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO("cy\\n"))
    assert ask() == "hi cy"
    assert capsys.readouterr().out == "name? "

def test_stdin_lines(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\\n2\\n3\\n"))
    assert total() == 6

def test_readline():
    sys.stdin = io.StringIO("x y\\nrest\\n")
    try:
        assert first() == "x y"
    finally:
        sys.stdin = sys.__stdin__

def test_no_input_is_end_of_file():
    with pytest.raises(EOFError):
        ask()
    assert total() == 0
"""
        r = judged(box, tests, self.READS)
        assert r.correct, r.reason
        r = judged(box, tests, self.READS.replace("return f'hi {name}'", "return 'hi ada'"))
        assert r.components["test_0"] == 0.0 and r.components["test_2"] == 1.0

    def test_the_output_cap_still_holds_inside_calls(self, box: DockerSandbox) -> None:
        flood = "def show(xs):\n    while True:\n        print('x' * 10000)\n"
        r = judged(box, "from solution import show\n\ndef test_a():\n    show([1])\n", flood, timeout_s=10)
        assert not r.correct and "output" in r.reason


class TestLinkedStructures:
    LIST_TESTS = """class ListNode:
    def __init__(self, val=0, next=None):
        self.val, self.next = val, next

def build(values):
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

def test_reverse():
    head = build([1, 2, 3])
    result = reverse(head)
    assert isinstance(result, ListNode) and values(result) == [3, 2, 1]

def test_delete_in_place():
    head = build([4, 5, 1, 9])
    delete_node(head.next)
    assert values(head) == [4, 1, 9]

def test_same_node_back():
    head = build([7])
    assert middle(head) is head

def test_empty():
    assert reverse(None) is None
"""
    LIST_PROGRAM = """class ListNode:
    def __init__(self, val=0, next=None):
        self.val = val
        self.next = next

def reverse(head):
    prev = None
    while head:
        head.next, prev, head = prev, head, head.next
    return prev

def delete_node(node):
    node.val, node.next = node.next.val, node.next.next

def middle(head):
    slow = fast = head
    while fast and fast.next:
        slow, fast = slow.next, fast.next.next
    return slow
"""

    def test_the_tests_own_list_nodes_cross_both_ways(self, box: DockerSandbox) -> None:
        r = judged(box, {"asserts": self.LIST_TESTS + "\ntest_reverse()\ntest_delete_in_place()\n"
                         "test_same_node_back()\ntest_empty()"}, self.LIST_PROGRAM)  # fmt: skip
        assert r.correct, r.reason
        r = judged(box, "import pytest\n" + self.LIST_TESTS, self.LIST_PROGRAM)
        assert r.correct, r.reason
        wrong = self.LIST_PROGRAM.replace("node.val, node.next = node.next.val, node.next.next", "node = None")
        r = judged(box, "import pytest\n" + self.LIST_TESTS, wrong)
        assert r.components["test_1"] == 0.0 and r.components["test_0"] == 1.0

    def test_graphs_with_cycles_cross_and_the_program_needs_no_class_of_its_own(self, box: DockerSandbox) -> None:
        tests = """class Node:
    def __init__(self, val, neighbors=None):
        self.val, self.neighbors = val, neighbors or []

def test_clone():
    a, b = Node(1), Node(2)
    a.neighbors, b.neighbors = [b], [a]
    c = clone(a)
    assert c is not a and c.val == 1 and c.neighbors[0].val == 2
    assert c.neighbors[0].neighbors[0] is c
"""
        program = ("def clone(node, seen=None):\n    seen = {} if seen is None else seen\n"
                   "    if id(node) in seen:\n        return seen[id(node)]\n    copy = type(node)(node.val)\n"
                   "    seen[id(node)] = copy\n    copy.neighbors = [clone(n, seen) for n in node.neighbors]\n"
                   "    return copy\n")  # fmt: skip
        program = program.replace("type(node)(node.val)", "type(node).__new__(type(node))\n    copy.val = node.val")
        r = judged(box, "import pytest\n" + tests, program)
        assert r.correct, r.reason

    def test_the_programs_own_tree_nodes_are_handles(self, box: DockerSandbox) -> None:
        program = ("class TreeNode:\n    def __init__(self, val=0, left=None, right=None):\n"
                   "        self.val, self.left, self.right = val, left, right\n\n"
                   "def depth(root):\n    return 0 if root is None else 1 + max(depth(root.left), depth(root.right))\n\n"
                   "def mirror(root):\n    if root:\n        root.left, root.right = mirror(root.right), mirror(root.left)\n"
                   "    return root\n")  # fmt: skip
        tests = """from solution import TreeNode, depth, mirror

def test_depth():
    assert depth(TreeNode(2, TreeNode(1, TreeNode(0)), TreeNode(3))) == 3

def test_mirror():
    root = mirror(TreeNode(1, TreeNode(2), TreeNode(3)))
    assert root.left.val == 3 and root.right.val == 2 and root.left.left is None
    root.val = 9
    assert root.val == 9
"""
        r = judged(box, tests, program)
        assert r.correct, r.reason

    def test_a_structure_past_the_size_bound_is_refused(self, box: DockerSandbox) -> None:
        tests = ("class ListNode:\n    def __init__(self, val=0, next=None):\n        self.val, self.next = val, next\n\n"
                 "def test_long():\n    assert long_list() is not None\n")  # fmt: skip
        program = ("class ListNode:\n    def __init__(self, val=0, next=None):\n        self.val, self.next = val, next\n\n"
                   "def long_list():\n    head = None\n    for i in range(100_001):\n        head = ListNode(i, head)\n"
                   "    return head\n")  # fmt: skip
        r = judged(box, tests, program, timeout_s=20)
        assert not r.correct and "100000 objects" in r.reason

    def test_a_structure_cannot_carry_code(self, box: DockerSandbox) -> None:
        tests = ("class Box:\n    def __init__(self):\n        self.secret = 42\n        self.hook = lambda: 42\n\n"
                 "def test_box():\n    assert peek(Box()) == 42\n")  # fmt: skip
        r = judged(box, tests, "def peek(b):\n    return b.hook()\n")
        assert not r.correct and "the test passes a builtins.function to the program" in r.reason


class TestLifetime:
    def test_a_method_that_never_returns_is_stopped_and_the_next_test_runs(self, box: DockerSandbox) -> None:
        program = "class Spin:\n    def forever(self):\n        while True:\n            pass\n    def one(self):\n        return 1\n"
        tests = ("from solution import Spin\n\ndef test_spin():\n    Spin().forever()\n\n"
                 "def test_one():\n    assert Spin().one() == 1\n")  # fmt: skip
        r = judged(box, tests, program, timeout_s=1)
        assert r.components["test_0"] == 0.0 and r.components["test_1"] == 1.0
        assert "time limit" in r.reason

    def test_a_dead_handle_is_a_clear_error_and_never_passes(self, box: DockerSandbox) -> None:
        program = (
            "import os\n\nclass Box:\n    def die(self):\n        os._exit(3)\n    def one(self):\n        return 1\n"
        )
        tests = {"asserts": "b = Box()\ntry:\n    b.die()\nexcept BaseException:\n    pass\ntry:\n    b.one()\n"
                 "except BaseException as exc:\n    assert 'exited' in str(exc)\nassert True"}  # fmt: skip
        r = judged(box, tests, program)
        assert not r.correct and "exited" in r.reason


# A LeetCodeDataset-shaped row: the prompt is a preamble both sides run (imports, ListNode and
# TreeNode with helpers), the test is check(candidate), the entry point an expression.
LEETCODE_PREAMBLE = """from typing import *
from collections import *

class ListNode:
    def __init__(self, val=0, next=None):
        self.val = val
        self.next = next

def list_node(values: list):
    head = None
    for v in reversed(values):
        head = ListNode(v, head)
    return head

def is_same_list(a, b):
    while a and b and a.val == b.val:
        a, b = a.next, b.next
    return a is None and b is None

class TreeNode:
    def __init__(self, val=0, left=None, right=None):
        self.val = val
        self.left = left
        self.right = right

def tree_node(values: list):
    if not values:
        return None
    nodes = [None if v is None else TreeNode(v) for v in values]
    kids = deque(nodes[1:])
    for node in nodes:
        if node is not None:
            node.left = kids.popleft() if kids else None
            node.right = kids.popleft() if kids else None
    return nodes[0]

def is_same_tree(p, q):
    if not p or not q:
        return p is q
    return p.val == q.val and is_same_tree(p.left, q.left) and is_same_tree(p.right, q.right)
"""
LEETCODE_ROWS = [
    {
        "prompt": LEETCODE_PREAMBLE,
        "entry_point": "Solution().reverseList",
        "test": "def check(candidate):\n    assert is_same_list(candidate(head = list_node([1, 2, 3])), list_node([3, 2, 1]))\n"
        "    assert candidate(head = list_node([])) is None\n",
        "completion": "class Solution:\n    def reverseList(self, head: Optional[ListNode]) -> Optional[ListNode]:\n"
        "        prev = None\n        while head:\n            head.next, prev, head = prev, head, head.next\n"
        "        return prev\n",
    },
    {
        "prompt": LEETCODE_PREAMBLE,
        "entry_point": "Solution().invertTree",
        "test": "def check(candidate):\n    assert is_same_tree(candidate(root = tree_node([4, 2, 7, 1, 3])),"
        " tree_node([4, 7, 2, None, None, 3, 1]))\n    assert candidate(root = tree_node([])) is None\n",
        "completion": "class Solution:\n    def invertTree(self, root: Optional[TreeNode]) -> Optional[TreeNode]:\n"
        "        if root:\n            root.left, root.right = self.invertTree(root.right), self.invertTree(root.left)\n"
        "        return root\n",
    },
]


def test_leetcode_rows_with_linked_lists_and_trees(box: DockerSandbox) -> None:
    for row in LEETCODE_ROWS:
        tests = vc.tests_from_row(row, style="leetcode")
        assert judged(box, tests, row["completion"]).correct
        broken = row["completion"].replace("return prev", "return head").replace("return root", "return None")
        assert not judged(box, tests, broken).correct


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
    program = ("from collections import namedtuple\n\nPoint = namedtuple('Point', 'x y')\n\n"
               "def mid(a, b):\n    return Point((a.x + b.x) / 2, (a.y + b.y) / 2)\n\n"
               "class Stack:\n    pass\n\ndef make():\n    return Stack()\n")  # fmt: skip
    tests = {"asserts": "from collections import namedtuple\nP = namedtuple('P', 'x y')\n"
             "m = mid(P(0, 0), P(2, 4))\nassert m == (1.0, 2.0) and m.y == 2.0 and type(m).__name__ == 'Point'"}  # fmt: skip
    r = judged(box, tests, program)
    assert r.correct, r.reason
    assert not judged(box, tests, program.replace("/ 2, (a.y", "/ 3, (a.y")).correct
