"""The in-container program text and the value encoding (no engine needed)."""

from __future__ import annotations

import math

import pytest

from verifiers.sandbox._program import PROGRAM
from verifiers.sandbox._wire import NotAValue, decode, encode


def test_the_program_is_one_self_contained_text() -> None:
    compile(PROGRAM, "sandbox-program", "exec")
    assert "from verifiers" not in PROGRAM and "import verifiers" not in PROGRAM
    assert PROGRAM.count("from __future__") == 1 and PROGRAM.startswith("from __future__")
    assert len(PROGRAM.encode()) < 128 * 1024  # one command-line argument


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
