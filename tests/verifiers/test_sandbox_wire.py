"""The in-container program text and the value encoding (no engine needed)."""

from __future__ import annotations

import math

import pytest

from verifiers.sandbox._host.program import BOOTSTRAP, PARTS, PROGRAM, SOURCE, frame
from verifiers.sandbox._in_container.wire import NotAValue, decode, encode


def test_the_program_is_one_self_contained_text() -> None:
    compile(PROGRAM, "sandbox-program", "exec")
    assert "from verifiers" not in PROGRAM and "import verifiers" not in PROGRAM
    assert PROGRAM.count("from __future__") == 1 and PROGRAM.startswith("from __future__")
    assert len(BOOTSTRAP.encode()) < 1024  # the command line carries the bootstrap, not the program


def test_every_in_container_module_is_a_part_and_imports_only_the_standard_library() -> None:
    import ast
    import sys

    modules = {p.name for p in SOURCE.glob("*.py")} - {"__init__.py"}
    assert modules == set(PARTS)
    outside = []
    for part in PARTS:
        for node in ast.walk(ast.parse((SOURCE / part).read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else ["<relative>"]
            else:
                continue
            for name in names:
                ours = name.startswith("verifiers.sandbox._in_container.")
                optional = name == "pytest" and part == "pyshim.py"  # the real one where the image has it
                if not ours and not optional and name.split(".")[0] not in sys.stdlib_module_names:
                    outside.append((part, name))
    assert outside == []


def test_the_bootstrap_runs_a_program_read_from_stdin_as_main_and_leaves_the_rest() -> None:
    """What a container's command does, on the host's interpreter: the frame is read exactly,
    the program runs as ``__main__`` under the name ``-c`` gives it, with the command's arguments."""
    import subprocess
    import sys

    program = (
        "import sys, os, traceback\n"
        "print(__name__, sys.argv[1:], traceback.extract_stack()[-1].filename)\n"
        "print(os.read(0, 100).decode())\n"
    ) + "# padding\n" * 20_000  # 200 KB: over what one command-line argument may hold
    assert len(program.encode()) > 128 * 1024
    proc = subprocess.run(
        [sys.executable, "-s", "-c", BOOTSTRAP, "supervise", "7", "8"],
        input=frame(program) + b"the first request",
        capture_output=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().splitlines() == ["__main__ ['supervise', '7', '8'] <string>", "the first request"]


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        False,
        0,
        -(10**40),
        2.5,
        -0.0,
        math.inf,
        1 + 2j,
        "",
        "héllo",
        b"\x00\xff",
        [1, [2, (3,)]],
        (1, "a"),
        {1, 2},
        frozenset({"x"}),
        {"a": [1], (1, 2): None},
    ],
)
def test_builtin_values_round_trip_with_their_exact_types(value: object) -> None:
    back = decode(encode(value))
    assert back == value and type(back) is type(value)


def test_nan_round_trips() -> None:
    assert math.isnan(decode(encode(math.nan)))


def test_bool_and_int_and_tuple_and_list_stay_distinct() -> None:
    assert type(decode(encode(True))) is bool and type(decode(encode(1))) is int
    assert decode(encode((1, 2))) != decode(encode([1, 2]))


class Sneaky(int):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


class Anything:
    def __eq__(self, other: object) -> bool:
        return True


@pytest.mark.parametrize("value", [Sneaky(3), Anything(), [1, Anything()], {"k": Sneaky(1)}])
def test_subclasses_and_objects_are_not_values(value: object) -> None:
    with pytest.raises(NotAValue):
        decode(encode(value))


@pytest.mark.parametrize(
    "tagged",
    [None, [], ["?"], ["i", 5], ["i", "1" * 6000], ["l", "x"], ["d", [[["l", []], ["n"]]]], ["s"]],
)
def test_malformed_data_is_not_a_value(tagged: object) -> None:
    with pytest.raises((NotAValue, ValueError, TypeError)):
        decode(tagged)


def test_nesting_is_bounded() -> None:
    deep: list[object] = []
    for _ in range(200):
        deep = [deep]
    with pytest.raises(NotAValue):
        decode(encode(deep))
