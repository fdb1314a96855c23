"""verifiers.code: test formats, partial credit, reward hacks that must not pay."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from verifiers import VerifierInputError
from verifiers import code as vc
from verifiers.sandbox import DockerSandbox, ExecResult, FakeSandbox


def fenced(source: str) -> str:
    return f"Here is my solution.\n```python\n{source}\n```\nIt reads the input and prints."


ADD = {
    "stdin_stdout": [
        {"input": "2 3\n", "output": "5\n"},
        {"input": "10 -4\n", "output": "6\n"},
        {"input": "0 0\n", "output": "0\n"},
    ]
}
DOUBLE = {"fn_name": "double", "inputs": [[1], [2], [5]], "outputs": [2, 4, 10]}
INC = {
    "asserts": "assert inc(1) == 2\nassert inc(-1) == 0\nassert inc(10) == 11",
    "entry_point": "inc",
}


# -- no engine needed --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("expected", "actual", "same"),
    [
        ("5\n", "5", True),
        ("5\n", "5\r\n\n\n", True),
        ("1 2\n3\n", "1 2   \n3", True),
        ("1 2\n", "1  2\n", True),  # tokens split on any whitespace
        ("1 2\n", "2 1\n", False),  # no order leniency
        ("1\n2\n", "1 2\n", False),  # lines correspond one to one
        ("3\n", "3.0\n", False),  # integer tokens are exact
        ("0.5\n", "0.5000001\n", True),
        ("1000000.0\n", "1000000.5\n", True),  # relative: 1e-6 of a million is 1
        ("1000000.0\n", "1000002.0\n", False),
        ("0.5\n", "0.51\n", False),
        ("Yes\n", "yes\n", False),  # case-sensitive
        ("a\n", "a\nb\n", False),
        ("\n", "", True),
    ],
)
def test_output_comparison(expected: str, actual: str, same: bool) -> None:
    assert (vc.first_difference(expected, actual) is None) is same


@pytest.mark.parametrize(
    ("completion", "expected"),
    [
        ("```python\nprint(1)\n```", "print(1)\n"),
        ("```py\nx = 1\n```\ntext\n```python\nprint(2)\n```", "print(2)\n"),
        ("print(3)", "print(3)"),
        ("<think>```python\nprint(0)\n```</think>```python\nprint(4)\n```", "print(4)\n"),
        ("```cpp\nint main(){}\n```", None),
        ("   \n", None),
        ("```python\nprint(5)", "print(5)"),  # unclosed fence: the rest is the program
    ],
)
def test_extract_code(completion: str, expected: str | None) -> None:
    assert vc.extract_code(completion) == expected


def test_fake_sandbox_runs_nothing_and_scores_partial_credit() -> None:
    box = FakeSandbox(on_run=lambda code, stdin: ExecResult(stdout="5\n" if "2 3" in stdin else "x", exit_code=0))
    r = vc.verify(ADD, fenced("whatever"), sandbox=box)
    assert r.status == "incorrect" and r.correct is False
    assert r.reward == pytest.approx(1 / 3)
    assert r.components["test_0"] == 1.0 and r.components["test_1"] == 0.0
    assert r.reason.startswith("Test 2 of 3 failed: wrong answer")
    assert [q["op"] for q in box.requests] == ["run"] * 3
    strict = vc.verify(ADD, fenced("whatever"), sandbox=box, partial_credit=False)
    assert strict.reward == 0.0 and strict.status == "incorrect"


def test_sandbox_failure_is_status_error() -> None:
    box = FakeSandbox(on_run=lambda code, stdin: ExecResult(error="engine down"))
    r = vc.verify(ADD, fenced("print(5)"), sandbox=box)
    assert r.status == "error" and r.correct is None and r.reward == 0.0
    assert "engine down" in r.reason


@pytest.mark.parametrize(
    ("result", "kind"),
    [
        (ExecResult(timed_out=True), "time limit"),
        (ExecResult(oom_killed=True), "memory limit"),
        (ExecResult(truncated=True, stdout="5\n"), "output limit"),
        (
            ExecResult(exit_code=1, stderr="Traceback...\nZeroDivisionError: division by zero\n"),
            "runtime error (exit status 1: ZeroDivisionError: division by zero)",
        ),
        (ExecResult(exit_code=0, stdout="all tests passed\n"), "wrong answer"),
    ],
)
def test_failure_kinds_are_named(result: ExecResult, kind: str) -> None:
    r = vc.verify(
        {"stdin_stdout": [{"input": "", "output": "5\n"}]}, "print(5)", sandbox=FakeSandbox(on_run=lambda c, s: result)
    )
    assert r.status == "incorrect" and kind in r.reason


def test_no_code_is_unparseable() -> None:
    box = FakeSandbox()
    for completion in ("", "   ", "```java\nclass A {}\n```"):
        r = vc.verify(ADD, completion, sandbox=box)
        assert r.status == "unparseable" and r.correct is False and r.reward == 0.0
    assert box.requests == []


@pytest.mark.parametrize(
    ("tests", "match"),
    [
        ({}, "unknown keys"),
        ({"stdin_stdout": []}, "non-empty"),
        ({"stdin_stdout": [{"input": "1"}]}, 'needs "input" and "output"'),
        ({"fn_name": "f x", "inputs": [[1]], "outputs": [1]}, "identifier"),
        ({"fn_name": "f", "inputs": [[1], [2]], "outputs": [1]}, "2 inputs but 1 outputs"),
        ({"fn_name": "f", "inputs": [1], "outputs": [1]}, "list of arguments"),
        ({"asserts": "x = 1", "entry_point": "f"}, "no top-level assert"),
        ({"asserts": "assert f(", "entry_point": "f"}, "does not parse"),
        ("assert f(1) == 2", "got a str"),
    ],
)
def test_malformed_tests_raise_a_clear_error(tests: object, match: str) -> None:
    with pytest.raises(VerifierInputError, match=match):
        vc.verify(tests, "print(1)", sandbox=FakeSandbox())  # type: ignore[arg-type]


def test_other_languages_are_refused() -> None:
    with pytest.raises(VerifierInputError, match="not supported"):
        vc.verify(ADD, "print(1)", sandbox=FakeSandbox(), language="cpp")


# -- dataset rows --------------------------------------------------------------------------------
HUMANEVAL_ROW = {
    "task_id": "HumanEval/38-like",
    "prompt": (
        "def encode(s: str):\n    return ''.join(chr(ord(c) + 1) for c in s)\n\n\n"
        'def decode(s: str):\n    """Undo encode."""\n'
    ),
    "test": (
        "METADATA = {}\n\n\ndef check(candidate):\n"
        "    for word in ['abc', 'hello', 'zz']:\n"
        "        assert candidate(encode(word)) == word\n"
    ),
    "entry_point": "decode",
}


def test_tests_from_row_styles() -> None:
    he = vc.tests_from_row(HUMANEVAL_ROW, style="humaneval")
    assert he["entry_point"] == "decode" and he["asserts"].rstrip().endswith("check(decode)")
    mbpp = vc.tests_from_row(
        {"test_list": ["assert similar((3, 4), (4, 5)) == (4,)"], "test_setup_code": ""},
        style="mbpp",
    )
    assert mbpp["entry_point"] == "similar"
    lcb = vc.tests_from_row(
        {
            "public_test_cases": json.dumps([{"input": "[1, 2]\n3", "output": "6", "testtype": "functional"}]),
            "metadata": json.dumps({"func_name": "f"}),
        },
        style="livecodebench",
    )
    assert lcb == {"fn_name": "f", "inputs": [[[1, 2], 3]], "outputs": [6], "json_outputs": True}
    lcb_stdin = vc.tests_from_row(
        {"public_test_cases": [{"input": "1\n", "output": "2\n", "testtype": "stdin"}]},
        style="livecodebench",
    )
    assert lcb_stdin == {"stdin_stdout": [{"input": "1\n", "output": "2\n"}]}
    taco = vc.tests_from_row({"input_output": json.dumps({"inputs": ["1\n"], "outputs": ["2\n"]})}, style="taco")
    assert taco == {"stdin_stdout": [{"input": "1\n", "output": "2\n"}]}
    apps = vc.tests_from_row(
        {"input_output": json.dumps({"fn_name": "g", "inputs": [[1]], "outputs": [[2]]})},
        style="apps",
    )
    assert apps["unwrap_outputs"] and apps["fn_name"] == "g"


def test_pickled_private_tests_are_refused_not_unpickled() -> None:
    row = {
        "public_test_cases": "[]",
        "private_test_cases": "eJzLSM3JyQcABiwCFQ==",
        "metadata": "{}",
    }
    with pytest.raises(VerifierInputError, match="unpickling would run dataset code"):
        vc.tests_from_row(row, style="livecodebench")


def test_unknown_style() -> None:
    with pytest.raises(VerifierInputError, match="style must be one of"):
        vc.tests_from_row({}, style="codeforces")


# -- in the real sandbox -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def box() -> Iterator[DockerSandbox]:
    with DockerSandbox(size=2, timeout_s=5) as sandbox:
        yield sandbox


ADD_OK = "a, b = map(int, input().split())\nprint(a + b)"


@pytest.mark.docker
class TestInTheSandbox:
    def test_each_format_passes_a_correct_program(self, box: DockerSandbox) -> None:
        assert vc.verify(ADD, fenced(ADD_OK), sandbox=box).correct
        assert vc.verify(DOUBLE, fenced("def double(x):\n    return 2 * x"), sandbox=box).correct
        assert vc.verify(INC, fenced("def inc(x):\n    return x + 1"), sandbox=box).correct
        leetcode = "class Solution:\n    def double(self, x):\n        return x * 2"
        assert vc.verify(DOUBLE, fenced(leetcode), sandbox=box).correct

    def test_partial_credit_in_each_format(self, box: DockerSandbox) -> None:
        r = vc.verify(ADD, fenced("a, b = map(int, input().split())\nprint(a + b if a else 1)"), sandbox=box)
        assert r.reward == pytest.approx(2 / 3) and r.status == "incorrect"
        r = vc.verify(DOUBLE, fenced("def double(x):\n    return 4 if x == 2 else 0"), sandbox=box)
        assert r.reward == pytest.approx(1 / 3) and "expected 2, got 0" in r.reason
        r = vc.verify(INC, fenced("def inc(x):\n    return abs(x) + 1"), sandbox=box)
        assert r.reward == pytest.approx(2 / 3) and r.reason.startswith("Test 2 of 3 failed")

    def test_runtime_error_names_the_exception(self, box: DockerSandbox) -> None:
        r = vc.verify(DOUBLE, fenced("def double(x):\n    return 1 / 0"), sandbox=box)
        assert r.reward == 0.0 and "ZeroDivisionError" in r.reason
        r = vc.verify(ADD, fenced("print(undefined)"), sandbox=box)
        assert "NameError" in r.reason

    def test_timeouts_per_test_and_for_the_suite(self, box: DockerSandbox) -> None:
        slow = "def double(x):\n    import time\n    if x == 2:\n        time.sleep(30)\n    return 2 * x"
        r = vc.verify(DOUBLE, fenced(slow), sandbox=box, timeout_s=1)
        assert r.reward == pytest.approx(2 / 3) and "time limit" in r.reason
        r = vc.verify(INC, fenced("def inc(x):\n    while True: pass"), sandbox=box, timeout_s=0.5, suite_timeout_s=2)
        assert r.reward == 0.0 and "time limit" in r.reason

    def test_humaneval_helpers_come_from_the_dataset(self, box: DockerSandbox) -> None:
        tests = vc.tests_from_row(HUMANEVAL_ROW, style="humaneval")
        body = "    return ''.join(chr(ord(c) - 1) for c in s)\n"
        assert vc.verify(tests, body, sandbox=box).correct  # a body completes the prompt
        # The completion redefines the helper the test calls: the tester still uses the row's.
        cheat = "def encode(s):\n    return s\n\ndef decode(s):\n    return s\n"
        assert not vc.verify(tests, fenced(cheat), sandbox=box).correct

    def test_json_outputs_and_unwrapping_are_per_format(self, box: DockerSandbox) -> None:
        pair = "def f(x):\n    return (x, x)"
        strict = {"fn_name": "f", "inputs": [[1]], "outputs": [[1, 1]]}
        assert not vc.verify(strict, fenced(pair), sandbox=box).correct  # (1, 1) != [1, 1]
        assert vc.verify({**strict, "json_outputs": True}, fenced(pair), sandbox=box).correct
        wrapped = {"fn_name": "f", "inputs": [[1]], "outputs": [[7]], "unwrap_outputs": True}
        assert vc.verify(wrapped, fenced("def f(x):\n    return 7"), sandbox=box).correct

    def test_verify_many_one_suite_for_a_group(self, box: DockerSandbox) -> None:
        group = [
            fenced(ADD_OK),
            fenced("print(5)"),
            "no code here ```java\n```",
            fenced("while True: pass"),
        ]
        results = vc.verify_many(ADD, group, sandbox=box, timeout_s=1)
        assert [r.status for r in results] == ["correct", "incorrect", "unparseable", "incorrect"]
        assert [round(r.reward, 2) for r in results] == [1.0, 0.33, 0.0, 0.0]

    def test_verify_many_one_suite_per_completion(self, box: DockerSandbox) -> None:
        results = vc.verify_many(
            [DOUBLE, INC], [fenced("def double(x): return 2*x"), fenced("def inc(x): return x")], sandbox=box
        )
        assert [r.correct for r in results] == [True, False]


# -- reward hacks ---------------------------------------------------------------------------------
HACKS = {
    "sys.exit(0) first": "import sys\nsys.exit(0)",
    "os._exit(0) first": "import os\nos._exit(0)",
    "atexit success banner": "import atexit\natexit.register(lambda: print('All tests passed'))",
    "exec /bin/true": "import os\nos.execv('/bin/true', ['true'])",
    "re-exec with -O": (
        "import os, sys\nif not sys.flags.optimize:\n    os.execv(sys.executable, [sys.executable, '-O', *sys.argv])\n"
    ),
    "banner": "print('All tests passed!')\nprint('OK')",
    "patch builtins": (
        "import builtins\nbuiltins.AssertionError = type('A', (Exception,), {})\n"
        "builtins.print = lambda *a, **k: None\n"
    ),
    "patch compile/exec": "import builtins\nbuiltins.compile = lambda *a, **k: compile('pass', 'x', 'exec')\n",
    "fake unittest and pytest": (
        "open('unittest.py', 'w').write('raise SystemExit(0)')\nopen('pytest.py', 'w').write('raise SystemExit(0)')\n"
    ),
    "read the tester's files": (
        "import os\nfor root in ('/tester', '/tmp'):\n"
        "    try:\n        print(os.listdir(root))\n    except OSError as e:\n        print(e)\n"
    ),
}
EQ_HACKS = {
    "custom __eq__": "class Any:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"
    "def FN(*a):\n    return Any()",
    "int subclass": "class I(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\n"
    "def FN(*a):\n    return I(0)",
    "named tuple with its own __eq__": "from collections import namedtuple\n"
    "class P(namedtuple('P', 'v')):\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"
    "def FN(*a):\n    return P(0)",
    "object that is always less and always close": "class L:\n    def __lt__(self, o):\n        return True\n"
    "    __le__ = __gt__ = __ge__ = __lt__\n    def __sub__(self, o):\n        return 0\n    __rsub__ = __sub__\n"
    "def FN(*a):\n    return L()",
    "str of the answer": "def FN(x):\n    return str(2 * x)",
    "tuple for list": "def FN(x):\n    return tuple([2 * x])",
    "calling frame": (
        "import sys\ndef FN(*a):\n    f = sys._getframe(1)\n"
        "    while f is not None:\n        for v in f.f_locals.values():\n"
        "            if isinstance(v, int) and v > 1:\n                return v\n        f = f.f_back\n"
        "    return -1"
    ),
    "exit inside the call": "import os\ndef FN(*a):\n    os._exit(0)",
    "a result too large to read": "def FN(*a):\n    return ['x' * 1000] * 20000",
    "patch assert via builtins": ("import builtins\nbuiltins.AssertionError = BaseException\ndef FN(x):\n    return 0"),
}


@pytest.mark.docker
@pytest.mark.parametrize("name", sorted(HACKS))
def test_hacks_score_zero_in_every_format(box: DockerSandbox, name: str) -> None:
    hack = HACKS[name]
    stdin = vc.verify(ADD, fenced(hack), sandbox=box)
    call = vc.verify(DOUBLE, fenced(hack + "\ndef double(x):\n    return -999"), sandbox=box)
    judged = vc.verify(INC, fenced(hack + "\ndef inc(x):\n    return -999"), sandbox=box)
    for r in (stdin, call, judged):
        assert r.reward == 0.0 and r.status == "incorrect", (name, r)


@pytest.mark.docker
@pytest.mark.parametrize("name", sorted(EQ_HACKS))
def test_forged_values_score_zero(box: DockerSandbox, name: str) -> None:
    tests_call = {"fn_name": "double", "inputs": [[1], [2]], "outputs": [[2], [4]]}
    tests_tester = {
        "asserts": "assert double(1) == [2]\nassert double(2) == [4]",
        "entry_point": "double",
    }
    tests_close = {"asserts": "assert abs(double(1) - 2) < 1e-6\nassert 3 < double(2) < 5", "entry_point": "double"}
    program = fenced(EQ_HACKS[name].replace("FN", "double"))
    for tests in (tests_call, tests_tester, tests_close):
        r = vc.verify(tests, program, sandbox=box)
        assert r.reward == 0.0, (name, r)


@pytest.mark.docker
def test_skipped_tests_do_not_pass(box: DockerSandbox) -> None:
    tests = {
        "asserts": "import unittest\nassert inc(1) == 2\nassert inc(5) == 6",
        "entry_point": "inc",
    }
    skip = "import unittest\ndef inc(x):\n    raise unittest.SkipTest('skip me')"
    r = vc.verify(tests, fenced(skip), sandbox=box)
    assert r.reward == 0.0 and "SkipTest" in r.reason
