"""The codecs of objects across the boundary, in one process: the program's side
(`_in_container.objects`) and the tester's (`_in_container.link`), with answers a hostile program
could forge."""

from __future__ import annotations

from typing import Any

import pytest

from verifiers.sandbox._in_container.handles import Handle
from verifiers.sandbox._in_container.link import Link, RequestCodec, update_in_place
from verifiers.sandbox._in_container.objects import MAX_OBJECTS, Objects
from verifiers.sandbox._in_container.wire import NotAValue

NODE = "class Node:\n    def __init__(self, val, nxt=None):\n        self.val, self.nxt = val, nxt\n"


def link_side() -> Link:
    namespace: dict[str, Any] = {"__name__": "__tester__"}
    exec(NODE, namespace)
    return Link(-1, -1, {}, namespace)


def program_side(dataset: set[str]) -> Objects:
    namespace: dict[str, Any] = {"__name__": "solution"}
    exec(NODE + "class Other:\n    pass\n", namespace)
    objects = Objects(namespace)
    objects.dataset = dataset
    return objects


def answer(objects: Objects, value: Any) -> dict[str, Any]:
    codec = objects.message()
    return {"status": "ok", "value": codec.encode(value), "objects": codec.out_objects}


def test_a_cycle_crosses_as_the_testers_own_class_with_its_shape() -> None:
    objects, link = program_side({"Node"}), link_side()
    a = objects.namespace["Node"](1)
    a.nxt = objects.namespace["Node"](2, a)
    got = RequestCodec(link).answer(answer(objects, [a, a]), (), {})
    assert type(got[0]) is link.namespace["Node"] and got[0] is got[1]
    assert got[0].val == 1 and got[0].nxt.val == 2 and got[0].nxt.nxt is got[0]


def test_a_long_chain_crosses_without_recursion() -> None:
    objects, link = program_side({"Node"}), link_side()
    head = None
    for i in range(50_000):
        head = objects.namespace["Node"](i, head)
    got = RequestCodec(link).answer(answer(objects, head), (), {})
    count = 0
    while got is not None:
        got, count = got.nxt, count + 1
    assert count == 50_000


def test_classes_the_test_does_not_define_stay_handles() -> None:
    objects, link = program_side({"Node"}), link_side()
    other = objects.namespace["Other"]()
    got = RequestCodec(link).answer(answer(objects, other), (), {})
    assert isinstance(got, Handle) and got == got and got != other
    again = RequestCodec(link).answer(answer(objects, other), (), {})
    assert again is got  # the same object, the same handle


@pytest.mark.parametrize(
    "forged",
    [
        {"value": ["r", 0], "objects": [["Secret", []]]},  # a class the test code does not define
        {"value": ["r", 0], "objects": [["Node", [["__class__", ["n"]]]]]},  # not an attribute
        {"value": ["r", 0], "objects": [["Node", [["val", ["x", "os.system"]]]]]},
        {"value": ["r", 3], "objects": []},
        {"value": ["R", 0]},  # nothing was sent
        {"value": ["T", "eval"]},  # not a builtin type
        {"value": ["h", "1", "Node", {}]},
        {"value": ["r", 0], "objects": [["Node", []]] * (MAX_OBJECTS + 1)},
    ],
)
def test_forged_answers_are_not_values(forged: dict[str, Any]) -> None:
    with pytest.raises(NotAValue):
        RequestCodec(link_side()).answer({"status": "ok", **forged}, (), {})


def test_the_testers_objects_go_out_as_attributes_and_come_back_as_themselves() -> None:
    link, objects = link_side(), program_side({"Node"})
    head = link.namespace["Node"](1, link.namespace["Node"](2))
    codec = RequestCodec(link)
    message = {"args": [codec.encode(head)], "objects": codec.table()}
    inner = objects.message(message["objects"])
    received = inner.decode(message["args"][0])
    assert type(received) is objects.namespace["Node"] and received.nxt.val == 2
    received.nxt.val = 5  # the program changes it in place, and returns the head it got
    back = {"status": "ok", "value": inner.encode(received), "after": inner.after(), "objects": inner.out_objects}
    assert codec.answer(back, (head,), {}) is head and head.nxt.val == 5


def test_code_in_the_testers_objects_does_not_cross() -> None:
    link = link_side()
    node = link.namespace["Node"](1)
    node.hook = lambda: 1
    codec = RequestCodec(link)
    codec.encode(node)
    with pytest.raises(NotAValue, match="builtins.function"):
        codec.table()


def test_update_in_place_keeps_the_tests_references() -> None:
    grid, row = [[1], [2]], None
    row = grid[0]
    assert update_in_place(grid, [[1, 9], [2], [3]]) is grid and grid == [[1, 9], [2], [3]] and grid[0] is row
    d = {"a": [1], "b": 2}
    inner = d["a"]
    update_in_place(d, {"a": [1, 2]})
    assert d == {"a": [1, 2]} and d["a"] is inner
    assert update_in_place((1,), [1]) == [1]  # different kinds: the new value


def test_the_program_parts_share_no_top_level_name() -> None:
    """The in-container program is its parts joined into one module: a name two parts define
    would silently be the later one's."""
    import ast

    from verifiers.sandbox._host import program

    owners: dict[str, str] = {}
    clashes = []
    for part in program.PARTS:
        tree = ast.parse((program.SOURCE / part).read_text())
        names = set()
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(t.id for t in targets if isinstance(t, ast.Name))
        for name in names:
            if name in owners:
                clashes.append((name, owners[name], part))
            owners[name] = part
    assert not clashes


def test_every_module_a_part_imports_is_a_part_before_it() -> None:
    import re

    from verifiers.sandbox._host import program

    for k, part in enumerate(program.PARTS):
        text = (program.SOURCE / part).read_text()
        for module in re.findall(r"^from verifiers\.sandbox\._in_container\.(\w+) import", text, re.M):
            assert f"{module}.py" in program.PARTS[:k], (part, module)
