"""The dataset's own linked structures across the boundary (issue: verifiers.code part 2):
ListNode, TreeNode and graph nodes the test code (or a preamble) defines, both ways."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from verifiers import code as vc
from verifiers.sandbox import DockerSandbox

sys.path.insert(0, str(Path(__file__).parent))
from judging import judged  # noqa: E402

pytestmark = pytest.mark.docker


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
        r = judged(
            box,
            {
                "asserts": self.LIST_TESTS + "\ntest_reverse()\ntest_delete_in_place()\n"
                "test_same_node_back()\ntest_empty()"
            },
            self.LIST_PROGRAM,
        )
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
        program = (
            "def clone(node, seen=None):\n    seen = {} if seen is None else seen\n"
            "    if id(node) in seen:\n        return seen[id(node)]\n    copy = type(node)(node.val)\n"
            "    seen[id(node)] = copy\n    copy.neighbors = [clone(n, seen) for n in node.neighbors]\n"
            "    return copy\n"
        )
        program = program.replace("type(node)(node.val)", "type(node).__new__(type(node))\n    copy.val = node.val")
        r = judged(box, "import pytest\n" + tests, program)
        assert r.correct, r.reason

    def test_the_programs_own_tree_nodes_are_handles(self, box: DockerSandbox) -> None:
        program = (
            "class TreeNode:\n    def __init__(self, val=0, left=None, right=None):\n"
            "        self.val, self.left, self.right = val, left, right\n\n"
            "def depth(root):\n    return 0 if root is None else 1 + max(depth(root.left), depth(root.right))\n\n"
            "def mirror(root):\n    if root:\n        root.left, root.right = mirror(root.right), mirror(root.left)\n"
            "    return root\n"
        )
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
        tests = (
            "class ListNode:\n    def __init__(self, val=0, next=None):\n        self.val, self.next = val, next\n\n"
            "def test_long():\n    assert long_list() is not None\n"
        )
        program = (
            "class ListNode:\n    def __init__(self, val=0, next=None):\n        self.val, self.next = val, next\n\n"
            "def long_list():\n    head = None\n    for i in range(100_001):\n        head = ListNode(i, head)\n"
            "    return head\n"
        )
        r = judged(box, tests, program, timeout_s=20)
        assert not r.correct and "100000 objects" in r.reason

    def test_a_structure_cannot_carry_code(self, box: DockerSandbox) -> None:
        tests = (
            "class Box:\n    def __init__(self):\n        self.secret = 42\n        self.hook = lambda: 42\n\n"
            "def test_box():\n    assert peek(Box()) == 42\n"
        )
        r = judged(box, tests, "def peek(b):\n    return b.hook()\n")
        assert not r.correct and "the test passes a builtins.function to the program" in r.reason


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
