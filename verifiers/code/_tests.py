"""Test suites: the three accepted shapes, validation, and conversion from dataset rows.

Dataset rows are read as data: JSON is parsed with `json.loads`, test code is split into
statements with `ast` (parsing, never running); nothing from a dataset or a model is
evaluated on the host.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from verifiers.errors import VerifierInputError

__all__ = ["Suite", "parse_suite", "tests_from_row"]

STYLES = ("humaneval", "mbpp", "livecodebench", "taco", "apps", "pytest", "leetcode")


@dataclass(frozen=True)
class Suite:
    """A validated test suite (internal form)."""

    kind: str  # stdin_stdout | call | tester
    cases: tuple[Any, ...]  # (input, output) | (args, expected) | test statement source
    fn_name: str = ""
    setup: str = ""
    prompt: str = ""
    preamble: str = ""  # the dataset's code both sides run first (ListNode, helpers, imports)
    json_outputs: bool = False  # compare as JSON would: tuples read as lists
    unwrap_outputs: bool = False  # APPS/TACO: an expected [x] also accepts x

    def __len__(self) -> int:
        return len(self.cases)


def _bad(what: str) -> VerifierInputError:
    shapes = (
        '{"stdin_stdout": [{"input": str, "output": str}, ...]}, '
        '{"fn_name": str, "inputs": [[args...], ...], "outputs": [...]} or '
        '{"asserts": "assert f(2) == 4\\n...", "entry_point": "f"} or '
        '{"pytest": "from solution import f\\ndef test_f(): ..."}'
    )
    return VerifierInputError(f"tests: {what}. Expected one of {shapes}.")


_HOISTED = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _split_statements(code: str) -> tuple[str, list[str]]:
    """The test code as (setup, tests), in its own order.

    Setup is what can run before the solution is bound: imports, defs and classes. A test is a
    top-level ``assert`` or bare call; every other statement (``expected = [1, 2]``, ``try:
    f(1, 0)`` / ``except ZeroDivisionError:``, a loop) runs, with the solution bound, as part of
    the next test (the last, after the last one), so the tests see them in the order written and
    a statement that calls the solution can never run against our harness instead."""
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise _bad(f"the test code does not parse: {exc}") from None
    setup: list[str] = []
    tests: list[str] = []
    pending: list[str] = []
    for node in tree.body:
        segment = ast.get_source_segment(code, node) or ""
        for decorator in reversed(getattr(node, "decorator_list", [])):  # not part of the node's segment
            segment = f"@{ast.get_source_segment(code, decorator)}\n{segment}"
        if isinstance(node, _HOISTED):
            setup.append(segment)
        elif isinstance(node, ast.Assert) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
            tests.append("\n".join([*pending, segment]))
            pending = []
        else:
            pending.append(segment)
    if pending and tests:
        tests[-1] = "\n".join([tests[-1], *pending])
    return "\n".join(setup), tests


def parse_suite(tests: Mapping[str, Any]) -> Suite:
    """Validate a tests dict and bring it to the internal form; raises VerifierInputError."""
    if isinstance(tests, Suite):
        return tests
    if not isinstance(tests, Mapping):
        raise _bad(f"got a {type(tests).__name__}")
    for key, shape in _SHAPES:  # the first key present decides the shape
        if key in tests:
            return shape(tests)
    raise _bad(f"unknown keys {sorted(tests)}")


def _stdin_stdout_suite(tests: Mapping[str, Any]) -> Suite:
    cases = tests["stdin_stdout"]
    if not isinstance(cases, (list, tuple)) or not cases:
        raise _bad('"stdin_stdout" must be a non-empty list')
    pairs = []
    for k, case in enumerate(cases):
        if not isinstance(case, Mapping) or not {"input", "output"} <= set(case):
            raise _bad(f'stdin_stdout[{k}] needs "input" and "output"')
        if not isinstance(case["input"], str) or not isinstance(case["output"], str):
            raise _bad(f"stdin_stdout[{k}]: input and output must be str")
        pairs.append((case["input"], case["output"]))
    return Suite("stdin_stdout", tuple(pairs))


def _call_suite(tests: Mapping[str, Any]) -> Suite:
    fn, inputs, outputs = tests["fn_name"], tests.get("inputs"), tests.get("outputs")
    if not isinstance(fn, str) or not fn.isidentifier():
        raise _bad(f"fn_name must be a Python identifier, got {fn!r}")
    if isinstance(inputs, tuple):
        inputs = [list(args) if isinstance(args, tuple) else args for args in inputs]
    outputs = list(outputs) if isinstance(outputs, tuple) else outputs
    if not isinstance(inputs, list) or not isinstance(outputs, list) or not inputs:
        raise _bad('"inputs" and "outputs" must be non-empty lists')
    if len(inputs) != len(outputs):
        raise _bad(f"{len(inputs)} inputs but {len(outputs)} outputs")
    if not all(isinstance(args, list) for args in inputs):
        raise _bad("each input must be a list of arguments")
    return Suite(
        "call",
        tuple(zip(inputs, outputs, strict=True)),
        fn_name=fn,
        json_outputs=bool(tests.get("json_outputs", False)),
        unwrap_outputs=bool(tests.get("unwrap_outputs", False)),
    )


def _asserts_suite(tests: Mapping[str, Any]) -> Suite:
    code, entry = tests["asserts"], tests.get("entry_point", "")
    if not isinstance(code, str) or not code.strip():
        raise _bad('"asserts" must be non-empty test code')
    if not isinstance(entry, str) or (entry and not entry.isidentifier()):
        raise _bad(f"entry_point must be a Python identifier, got {entry!r}")
    setup, statements = _split_statements(code)
    if not statements:
        raise _bad("the test code has no top-level assert or call")
    extra, preamble = tests.get("setup", ""), _preamble(tests)
    return Suite(
        "tester",
        tuple(statements),
        fn_name=entry,
        preamble=preamble,
        setup="\n".join(s for s in (preamble, extra, setup) if s),
        prompt=tests.get("prompt", ""),
    )


def _pytest_suite(tests: Mapping[str, Any]) -> Suite:
    code = tests["pytest"]
    if not isinstance(code, str) or not code.strip():
        raise _bad('"pytest" must be the non-empty source of a test module')
    cases = _pytest_cases(code)
    if not cases:
        raise _bad("the pytest file defines no test_* function or Test* class with test_* methods")
    preamble = _preamble(tests)
    setup = "\n".join(s for s in (preamble, code) if s)
    return Suite("tester", tuple(f"__pytest_case__({name!r})" for name in cases), setup=setup, preamble=preamble)


_SHAPES: tuple[tuple[str, Callable[[Mapping[str, Any]], Suite]], ...] = (
    ("stdin_stdout", _stdin_stdout_suite),
    ("fn_name", _call_suite),
    ("asserts", _asserts_suite),
    ("pytest", _pytest_suite),
)


def _preamble(tests: Mapping[str, Any]) -> str:
    preamble = tests.get("preamble", "")
    if not isinstance(preamble, str):
        raise _bad('"preamble" must be Python source (run before the program and before the tests)')
    return preamble


def _pytest_cases(code: str) -> list[str]:
    """The tests pytest would collect from a module: ``test_*`` functions, ``Test*`` classes'
    ``test_*`` methods (as ``Class::method``)."""
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise _bad(f"the pytest file does not parse: {exc}") from None
    cases = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            cases.append(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            cases += [
                f"{node.name}::{item.name}"
                for item in node.body
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test")
            ]
    return cases


def _first_called(code: str) -> str:
    """The first function the test code calls by a plain name that is not a builtin (MBPP rows
    name no entry point): ``volume_sphere`` in ``assert math.isclose(volume_sphere(10), ...)``."""
    import builtins

    try:
        tree = ast.parse(code)
    except SyntaxError:
        match = re.search(r"assert\s+(?:not\s+)?\(?\s*(?:set\()?\s*([A-Za-z_]\w*)\s*\(", code)
        return match.group(1) if match else ""
    called = [n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    own = [name for name in called if not hasattr(builtins, name)]
    return (own or called or [""])[0]  # a solution may shadow a builtin: `def sum(a, b)`


def _json(value: Any, what: str) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            raise VerifierInputError(
                f"{what} is not JSON. Compressed or pickled test data (LiveCodeBench's "
                "private tests) is not decoded here: unpickling would run dataset code on "
                "the host. Decode it yourself and pass plain JSON."
            ) from None
    return value


_FIELDS = {
    "humaneval": ("prompt", "test", "entry_point"),
    "leetcode": ("prompt", "test", "entry_point"),
    "pytest": ("test_code|test",),
    "mbpp": ("test_list",),
    "livecodebench": ("public_test_cases",),
    "taco": ("input_output",),
    "apps": ("input_output",),
}


def _require(row: Mapping[str, Any], style: str) -> None:
    """The fields ``style`` reads must be in ``row`` (one clear error, not a ``KeyError``)."""
    if not isinstance(row, Mapping):
        raise VerifierInputError(f"a dataset row must be a mapping (a dict), got {type(row).__name__}")
    missing = [f for f in _FIELDS.get(style, ()) if not any(name in row for name in f.split("|"))]
    if missing:
        raise VerifierInputError(
            f"a {style!r} row needs the field(s) {', '.join(missing)}; this row has "
            f"{', '.join(sorted(map(str, row)))}. Is it another dataset's row? The styles: {', '.join(STYLES)}"
        )


def tests_from_row(row: Mapping[str, Any], *, style: str) -> dict[str, Any]:
    """Convert a benchmark dataset row into a tests dict for `verify`.

    Styles: "humaneval" (``prompt``, ``test`` with ``check(candidate)``, ``entry_point``),
    "mbpp" (``test_list``, ``test_imports``, ``test_setup_code``), "livecodebench" (``public_test_cases`` as
    JSON; functional tests read each input line as one JSON argument), "taco"/"apps"
    (``input_output`` JSON with ``inputs``/``outputs`` and optional ``fn_name``), "pytest"
    (``test_code``: a pytest module doing ``from solution import ...``, as KodCode stores it),
    "leetcode" (LeetCodeDataset: ``prompt`` is the preamble both sides run, with ``ListNode``,
    ``TreeNode`` and helpers; ``test`` defines ``check(candidate)``; ``entry_point`` is an
    expression such as ``Solution().twoSum``).

    Per-format conversions (documented, not lenient comparison): LiveCodeBench and TACO/APPS
    store expected values as JSON, so a returned tuple is compared as a list; TACO/APPS wrap
    call-based outputs in a one-element list, so ``[x]`` also accepts ``x``.

    Examples:
        >>> tests_from_row({"test_list": ["assert add(1, 2) == 3"], "test_setup_code": ""},
        ...                style="mbpp")["entry_point"]
        'add'
    """
    if style not in STYLES:
        raise VerifierInputError(f"style must be one of {STYLES}, got {style!r}")
    _require(row, style)
    return _FROM_ROW[style](row)


def _humaneval_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "asserts": f"{row['test']}\n\ncheck({row['entry_point']})\n",
        "entry_point": row["entry_point"],
        "setup": row["prompt"],
        "prompt": row["prompt"],
    }


def _leetcode_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"asserts": f"{row['test']}\n\ncheck({row['entry_point']})\n", "preamble": row["prompt"]}


def _pytest_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """KodCode and the like: a test module that imports from `solution`."""
    return {"pytest": row["test_code"] if "test_code" in row else row["test"]}


def _mbpp_row(row: Mapping[str, Any]) -> dict[str, Any]:
    asserts = "\n".join(row["test_list"])
    imports = "\n".join(row.get("test_imports") or [])  # sanitized MBPP: e.g. "import math"
    setup = "\n".join(part for part in (imports, row.get("test_setup_code") or "") if part)
    return {"asserts": asserts, "entry_point": _first_called(asserts), "setup": setup}


def _livecodebench_row(row: Mapping[str, Any]) -> dict[str, Any]:
    cases = list(_json(row["public_test_cases"], "public_test_cases"))
    private = row.get("private_test_cases")
    if private:
        cases += list(_json(private, "private_test_cases"))
    metadata = _json(row.get("metadata") or "{}", "metadata")
    if cases and all(c.get("testtype") == "functional" for c in cases):
        return {
            "fn_name": metadata.get("func_name", ""),
            "inputs": [[json.loads(line) for line in c["input"].split("\n") if line.strip()] for c in cases],
            "outputs": [json.loads(c["output"]) for c in cases],
            "json_outputs": True,
        }
    return {"stdin_stdout": [{"input": c["input"], "output": c["output"]} for c in cases]}


def _taco_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """TACO and APPS: ``input_output`` JSON, call-based when it names ``fn_name``."""
    spec = _json(row["input_output"], "input_output")
    inputs, outputs = spec["inputs"], spec["outputs"]
    if spec.get("fn_name"):
        return {
            "fn_name": spec["fn_name"],
            "inputs": inputs,
            "outputs": outputs,
            "json_outputs": True,
            "unwrap_outputs": True,
        }

    def text(value: Any) -> str:
        return "\n".join(map(str, value)) if isinstance(value, list) else str(value)

    return {"stdin_stdout": [{"input": text(i), "output": text(o)} for i, o in zip(inputs, outputs, strict=True)]}


_FROM_ROW: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "humaneval": _humaneval_row,
    "leetcode": _leetcode_row,
    "pytest": _pytest_row,
    "mbpp": _mbpp_row,
    "livecodebench": _livecodebench_row,
    "taco": _taco_row,
    "apps": _taco_row,
}
