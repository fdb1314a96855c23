"""verifiers.math never evaluates model text: payloads in every position run nothing."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from verifiers import math as vm
from verifiers.math import MathConfig, _core

sys.path.insert(0, str(Path(__file__).parent))
import math_table  # noqa: E402

SOURCE = Path(vm.__file__).parent
PAYLOADS = [
    "__import__('os').system('touch {marker}')",
    "exec(\"open('{marker}', 'w').close()\")",
    "open('{marker}', 'w')",
    "(lambda: __import__('os').system('touch {marker}'))()",
    "eval(\"__import__('os').system('touch {marker}')\")",
    "Symbol('x').__class__.__init__.__globals__['os'].system('touch {marker}')",
]
TEMPLATES = [
    r"\boxed{P}",
    "The answer is P.",
    "P",
    r"\boxed{\begin{pmatrix} P & 1 \\ 2 & 3 \end{pmatrix}}",
    r"\boxed{\{P, 1\}}",
    r"\boxed{[P, 2)}",
    r"\boxed{(1, P)}",
    r"\boxed{\frac{P}{2}}",
    r"\boxed{x^{P}}",
    r"\boxed{\sqrt{P}}",
    r"\boxed{\text{P}}",
    r"\boxed{P = 1}",
    "Answer: P, 1, 2",
    r"\boxed{1 \pm P}",
    r"\boxed{P \cup (1, 2)}",
    r"\boxed{\sin(P)}",
    r"\boxed{0 \le P < 1}",
]
GOLDS = [
    "1",
    r"\frac{1}{2}",
    "x + 1",
    r"\{1, 2\}",
    "(1, 2)",
    r"[0, 1)",
    r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}",
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payloads_in_every_position_run_nothing(tmp_path: Path, payload: str) -> None:
    marker = tmp_path / "pwned"
    code = payload.format(marker=marker)
    texts = [t.replace("P", code) for t in TEMPLATES]
    golds = GOLDS + texts  # as the completion and as the gold
    completions = texts + [r"\boxed{1}"] * len(GOLDS)
    pairs = [(g, c) for g in golds for c in completions[: len(texts)]]
    pairs += [(g, completions[k % len(completions)]) for k, g in enumerate(golds)]
    results = [vm.verify(g, c) for g, c in pairs[: len(golds) * len(texts)]]
    results += vm.verify_many([g for g, _ in pairs[len(results) :]], [c for _, c in pairs[len(results) :]])
    for a in texts:
        for b in GOLDS:
            vm.equivalent(b, a)
            vm.equivalent(a, b)
    assert not marker.exists(), "a payload ran"
    assert all(r.status in ("incorrect", "unparseable", "no_answer", "correct") for r in results)
    # a payload is never a correct answer, except to itself (reflexivity: the gold stated as the answer)
    cfg = MathConfig()
    for (gold, _), r in zip(pairs, results, strict=True):
        if r.correct and "__" in (r.extracted or ""):
            assert _core._as_written(r.extracted or "", cfg) == _core._as_written(_core.gold_answer(gold, cfg), cfg)


def test_no_string_ever_reaches_sympys_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the sympy judge in-process with sympy's string parser booby-trapped."""
    import sympy.parsing.sympy_parser as sympy_parser

    cases = [(c.gold, c.completion) for c in math_table.CASES]
    cases += [(g, t.replace("P", PAYLOADS[0].format(marker="/nonexistent/x"))) for g in GOLDS for t in TEMPLATES]
    for gold, completion in cases:  # first without the trap: sympy's own lazy imports parse
        _core.run_core(gold, completion, MathConfig())  # a few constant strings of theirs

    def trap(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a string reached sympy's parser: {args[:1]!r}")

    monkeypatch.setattr(sympy_parser, "parse_expr", trap)
    monkeypatch.setattr(sympy_parser, "eval_expr", trap)
    for gold, completion in cases:
        _core.run_core(gold, completion, MathConfig())


def test_the_source_never_calls_string_evaluators() -> None:
    forbidden = re.compile(r"\b(sympify|parse_expr|parse_latex|eval|exec|S)\(|sympy\.S\b|__import__")
    for path in SOURCE.glob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            assert not forbidden.search(code), f"{path.name}:{number}: {line.strip()}"
