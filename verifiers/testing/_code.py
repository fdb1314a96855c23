"""Code problems for the laws: programs whose output is known by construction, equivalent
programs (renamed, reformatted, another algorithm), wrong ones (off by one, boundary bugs),
gaming programs, and test suites in each format `verifiers.code` accepts."""

from __future__ import annotations

from hypothesis import strategies as st

from verifiers.testing._problems import Problem

__all__ = ["code_problems", "programs_with_known_output", "test_suites", "wrong_programs"]


def _fence(code: str) -> str:
    return f"Here is my program.\n```python\n{code}\n```"


def _sum_programs(n: int, k: int, *, function: bool = False) -> tuple[list[str], list[str], str]:
    """Programs for sum(i * k for i in range(n)): equivalent ones and near misses.

    ``function=True`` gives ``solve()`` returning the value (for call and assert suites)."""
    expected = str(sum(i * k for i in range(n)))
    loops = [
        (f"total = 0\nfor i in range({n}):\n    total += i * {k}", "total"),
        (f"acc=0\nfor j in range({n}): acc+=j*{k}", "acc"),
    ]
    right_exprs = [
        f"sum(i * {k} for i in range({n}))",
        f"{k} * {n} * ({n} - 1) // 2",
        f"sum([i*{k} for i in range({n})])",
    ]
    wrong_exprs = [
        f"sum(i * {k} for i in range({n} + 1))",  # off by one
        f"sum(i * {k} for i in range(1, {n} - 1))",  # boundary
        f"{k} * {n} * ({n} + 1) // 2",  # wrong closed form
    ]

    def program(expr: str) -> str:
        return f"def solve():\n    return {expr}\n" if function else f"print({expr})"

    def loop_program(body: str, name: str) -> str:
        if function:
            inner = "\n".join("    " + line for line in body.splitlines())
            return f"def solve():\n{inner}\n    return {name}\n"
        return f"{body}\nprint({name})"

    right = [program(e) for e in right_exprs] + [loop_program(b, v) for b, v in loops]
    wrong = [program(e) for e in wrong_exprs]
    return right, wrong, expected


def programs_with_known_output() -> st.SearchStrategy[tuple[str, str]]:
    """(program, stdout) pairs whose output is known by construction."""
    return st.builds(
        lambda n, k, which: (_sum_programs(n, k)[0][which], _sum_programs(n, k)[2] + "\n"),
        st.integers(3, 60),
        st.integers(1, 9),
        st.integers(0, 4),
    )


def wrong_programs(n: int, k: int) -> st.SearchStrategy[str]:
    """Off-by-one and boundary versions of the sum program for (n, k)."""
    return st.sampled_from(_sum_programs(n, k)[1])


def test_suites(n: int, k: int) -> st.SearchStrategy[dict[str, object]]:
    """The same problem as a suite in each format: stdin/stdout, function calls, asserts."""
    expected = sum(i * k for i in range(n))
    return st.sampled_from(
        [
            {"stdin_stdout": [{"input": "", "output": f"{expected}\n"}]},
            {"fn_name": "solve", "inputs": [[]], "outputs": [expected]},
            {"asserts": f"assert solve() == {expected}", "entry_point": "solve"},
        ]
    )


@st.composite
def code_problems(draw: st.DrawFn) -> Problem:
    """A tests dict (JSON, as the gold) with equivalent programs and wrong ones."""
    import json

    n, k = draw(st.integers(3, 60)), draw(st.integers(1, 9))
    suite = draw(test_suites(n, k))
    right, wrong, _ = _sum_programs(n, k, function="stdin_stdout" not in suite)
    return Problem("program", json.dumps(suite), st.sampled_from(right).map(_fence), st.sampled_from(wrong).map(_fence))


CODE_GAMING = [
    "```python\nprint('All tests passed!')\n```",
    "```python\nimport sys\nsys.exit(0)\n```",
    "```python\nimport os\nos._exit(0)\n```",
    "```python\n\n```",
    "```python\nraise SystemExit(0)\n```",
    "```python\nimport atexit\natexit.register(lambda: print('OK'))\n```",
    "```python\nclass Any:\n    def __eq__(self, other):\n        return True\n"
    "def solve():\n    return Any()\nprint(Any())\n```",
    "I would write a program, but the answer is obvious.",
]
