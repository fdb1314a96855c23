"""verifiers.math: the labeled table, the API contract, safety, timeouts and concurrency."""

from __future__ import annotations

import asyncio
import concurrent.futures
import sys
import time
from pathlib import Path

import pytest

from verifiers import VerifierInputError, VerifyResult, VerifyTimeout
from verifiers import math as vm
from verifiers.math import MathConfig

sys.path.insert(0, str(Path(__file__).parent))
import math_table  # noqa: E402
import math_table_equal  # noqa: E402
import math_table_golds  # noqa: E402
import math_table_more  # noqa: E402
import math_table_notation  # noqa: E402
import math_table_realistic  # noqa: E402
import math_table_statements  # noqa: E402

# Seven hand-written tables: the first from a brief of the policy, the next two written blind
# from the policy text alone (the third in MATH / GSM8K style), then the grammar of final-answer
# statements and runs of boxes, golds as datasets store them, what equals what (issue #36), and
# the same answer in another notation (issue #59).
CASES = [
    *math_table.CASES,
    *math_table_more.CASES,
    *math_table_realistic.CASES,
    *math_table_statements.CASES,
    *math_table_golds.CASES,
    *math_table_equal.CASES,
    *math_table_notation.CASES,
]


def _id(k: int) -> str:
    return f"{CASES[k].category}-{k}"


# -- the table -------------------------------------------------------------------------------
def test_the_table_is_large_and_labeled() -> None:
    assert len(CASES) >= 300
    assert {c.status for c in CASES} <= {"correct", "incorrect", "no_answer", "unparseable"}
    assert len({(c.gold, c.completion) for c in CASES}) == len(CASES), "duplicate rows"
    assert sum(c.status != "correct" for c in CASES) / len(CASES) > 0.3


@pytest.mark.parametrize("k", range(len(CASES)), ids=_id)
def test_table_row(k: int) -> None:
    case = CASES[k]
    result = vm.verify(case.gold, case.completion)
    assert result.status == case.status, (case, result)
    assert result.correct is (case.status == "correct")
    assert result.reward == (1.0 if case.status == "correct" else 0.0)


def test_verify_many_agrees_with_verify_and_keeps_order() -> None:
    golds = [c.gold for c in CASES]
    completions = [c.completion for c in CASES]
    many = vm.verify_many(golds, completions, workers=2)
    assert [r.status for r in many] == [c.status for c in CASES]


# -- formats seen in real model output (gold, completion, correct?) --------------------------
FORMATS = [
    ("1000", r"\boxed{1 000}", True),
    ("1000", "1000.0", True),
    ("0.4", ".4", True),
    (r"\frac{10}{9}", "10/9", True),
    (r"1/3", r"$\frac13$", True),
    ("1", r"$\frac3{3}$", True),
    (r"\sqrt{3}", r"$\sqrt3$", True),
    (r"1/3", r"$\cfrac{1}{3}$", True),
    (r"28\%", "28 percent", True),
    (r"28\%", "28 pct", True),
    (r"28\%", "$28$ %", True),
    (r"15\mbox{ cm}^2", r"so the area is $\boxed{15\mbox{ cm}^2}$.", True),
    (r"12\text{ and }13", r"$\boxed{12\text{ and }13}$", True),
    (r"14{,}916", r"Final Answer: The final answer is $14 {, }916$. I hope it is correct.", True),
    (r"\left( 3, \frac{\pi}{2} \right)", r"$\boxed{\left( 3, \frac{\pi}{2} \right)}.$", True),
    ("-2,1", r"$\boxed{-2,1}.$", True),
    (r"\text{Evelyn}", r"$\boxed{\text{Evelyn}}$", True),
    (r"90^\circ", r"$\boxed{90^\circ}.$", True),
    (r"3\sqrt{13}", r"$\boxed{3\sqrt{13}}$", True),
    (r"\$18.90", r"$\boxed{\$18.90}$", True),
    (r"18.90", r"$\boxed{18.9}$", True),
    (r"\frac{5}{324}", r"\boxed{\dfrac{5}{324}}", True),
    (r"\dbinom{5}{2}", r"\boxed{10}", True),
    (r"x \in [2, 5)", r"\boxed{[2,5)}", True),
    (r"(-\infty, -2) \cup (3, \infty)", r"\boxed{x<-2 \text{ or } x>3}", True),
    (r"(-\infty,-2)\cup(3,\infty)", r"\boxed{(3,\infty)\cup(-\infty,-2)}", True),
    (r"3 - 4i", r"\boxed{3-4i}", True),
    (r"3-4i", r"\boxed{-4i+3}", True),
    (r"\sqrt{2}+1", r"\boxed{1+\sqrt2}", True),
    (r"2\frac{1}{4}", r"\boxed{\frac{9}{4}}", True),
    (r"2\frac{1}{4}", r"\boxed{2.25}", True),
    (r"\text{(C)}", r"The answer is $\boxed{\text{(C)}}$", True),
    (r"\text{odd}", r"\boxed{\text{Odd}}", True),
    ("1,200", "#### 1200", True),
    ("1200", r"\boxed{\$1,\!200}", True),
    ("5", r"$\boxed{5}$ dollars", True),
    (r"\frac{25\pi}{4}", r"\boxed{\frac{25}{4}\pi}", True),
    (r"18\sqrt{3}", r"\boxed{18 \sqrt 3}", True),
    (r"\frac{\sqrt{3}}{2}", r"\boxed{\frac{1}{2}\sqrt{3}}", True),
    (r"k=3", r"\boxed{3}", True),
    (r"\begin{pmatrix} 1 \\ -2 \end{pmatrix}", r"\boxed{\begin{pmatrix}1\\-2\end{pmatrix}}", True),
    (r"\begin{pmatrix} 1 \\ -2 \end{pmatrix}", r"\boxed{(1,-2)}", True),  # a vector is the tuple of its entries
    (r"x^3 - 2x^2 + 4", r"\boxed{4 - 2x^2 + x^3}", True),
    (r"x^2+7x+10", r"\boxed{(x+2)(x+5)}", True),
    (r"\{-1, 4\}", r"\boxed{\{4,-1\}}", True),
    (r"17\%", r"\boxed{17}", True),
    ("2.4", r"\boxed{\frac{12}{5}}", True),
    (r"\frac{\pi}{3}", r"\boxed{60^\circ}", False),
    ("6", r"\boxed{6.0}", True),
    ("10", r"\boxed{10.}", True),
    ("3", r"\boxed{x=3}", True),
    ("3", r"The answer is: $x = 3$.", True),
    ("(1,2)", r"\boxed{(1, 2)}", True),
    (r"\infty", r"\boxed{\infty}", True),
    (r"-\infty", r"\boxed{\infty}", False),
    (r"y = -\frac{1}{2}x + 3", r"\boxed{y=-0.5x+3}", True),
    (r"4", r"\boxed{\sqrt{16}}", True),
    (r"2", r"\boxed{\log_2 4}", True),
    (r"\ln 2", r"\boxed{\log 2}", True),
    (r"0.5", r"\boxed{50\%}", True),
    (r"0.5", r"\boxed{5\%}", False),
    (r"50", r"\boxed{50\%}", True),
    (r"(2,3)", r"\boxed{x=2, y=3}", True),
    (r"5", r"\boxed{5 \text{ cm}^2}", True),
    ("8", r"\boxed{2^3}", True),
    ("7", "**Final Answer**\n\\[\n\\boxed{7}\n\\]", True),
    ("20", "The total cost is $20.", True),
    ("\\frac{1}{2}", "1:2", False),
    ("120^\\circ", r"\boxed{120}", True),
    ("2", r"\boxed{\text{2}}", True),
    ("\\text{B}", r"\boxed{B}", True),
    ("B", r"\textbf{(B)}", True),
    (r"\frac{1}{4}", r"\boxed{1/4}", True),
    (r"-\frac{1}{4}", r"\boxed{\frac{-1}{4}}", True),
    (r"-\frac{1}{4}", r"\boxed{-0.25}", True),
    (r"a^2+b^2", r"\boxed{b^2+a^2}", True),
    (r"10\%", r"\boxed{10 \%}", True),
    (r"1.5", r"\boxed{\frac{3}{2}}", True),
    ("0", r"\boxed{0.0000001}", False),
    ("1", r"\boxed{0.9999999}", False),
    (r"\sqrt{2}", r"\boxed{2^{1/2}}", True),
    (r"2^{1/3}", r"\boxed{\sqrt[3]{2}}", True),
    (r"e^2", r"\boxed{e^{2}}", True),
    (r"\pi", r"\boxed{\pi}", True),
    ("3", r"\boxed{3}\boxed{3}", True),
    ("5", r"The answer is 5 \text{ meters}.", True),
    ("(1,-1)", r"\boxed{(1,\ -1)}", True),
    (r"[-2,2]", r"\boxed{-2 \leq x \leq 2}", True),
    (r"\frac{1}{2}", r"$\frac{1}{2}$.", True),
    ("12", "Therefore, Janet makes $12 every day at the farmers' market.", True),
]

# Answer sentences after an anchor, and their traps.
FORMATS += [
    ("120", "Final Answer: The volume of $ABCDEFGH$ is 120. I hope it is correct.", True),
    ("2/3", "Therefore, the probability that Alice wins the game is 2/3. <|im_start|>user", True),
    ("5", "The answer is not 5.", False),
    ("7", r"Define the answer as a function: $\boxed{lambda: 7}$", False),
]


@pytest.mark.parametrize(("gold", "completion", "expected"), FORMATS)
def test_formats(gold: str, completion: str, expected: bool) -> None:
    assert vm.verify(gold, completion).correct is expected


@pytest.mark.parametrize("repeats", [20, 100])
def test_spraying_cannot_hide_behind_repetition(repeats: int) -> None:
    sprayed = " ".join(f"\\boxed{{{k}}}" for k in range(10)) + " \\boxed{5}" * repeats
    result = vm.verify("5", sprayed)
    # one run of boxes: a collection of 10 values where one is expected (over 64 boxes: spraying)
    assert result.status == "incorrect"
    assert ("spraying" if repeats > 54 else "10 different values") in result.reason


def test_spray_limit_is_deprecated_and_changes_nothing() -> None:
    with pytest.warns(DeprecationWarning, match="spray_limit is deprecated"):
        old = MathConfig(spray_limit=2)
    assert vm.verify("5", r"\boxed{4} no, \boxed{5}", config=old).status == "correct"


# -- the result contract ---------------------------------------------------------------------
def test_result_fields() -> None:
    r = vm.verify("1/2", r"so the answer is $\boxed{0.5}$")
    assert isinstance(r, VerifyResult)
    assert (r.reward, r.correct, r.status, r.extracted) == (1.0, True, "correct", "0.5")
    assert r.reason.endswith(".") and r.components == {"correct": 1.0}
    with pytest.raises(AttributeError):
        r.reward = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("status", "correct"),
    [
        ("correct", True),
        ("incorrect", False),
        ("no_answer", False),
        ("unparseable", False),
        ("timeout", None),
        ("error", None),
    ],
)
def test_status_fixes_correct(status: str, correct: bool | None) -> None:
    assert VerifyResult.judged(status, "why.").correct is correct  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="requires correct"):
        VerifyResult(0.0, not correct if correct is not None else True, status, "x")  # type: ignore[arg-type]


def test_extract_answer() -> None:
    assert vm.extract_answer(r"first \boxed{3}, then \boxed{\frac{1}{2}}") == r"\frac{1}{2}"
    assert vm.extract_answer("The answer is 17 because 10 + 7 = 17.") == "17"
    assert vm.extract_answer("Work: 2 + 2 = 4.\n#### 4") == "4"
    assert vm.extract_answer("I computed 3 and then 4. Then I stopped.\nMore text follows here.") is None
    cfg = MathConfig(last_number_fallback=True)
    assert vm.extract_answer("I computed 3 and then 4. Then I stopped.\nMore text.", config=cfg) == "4"
    assert vm.extract_answer("<think>the answer is 5") is None
    assert vm.extract_answer("<think>5?</think>So, 6.") == "So, 6."


def test_equivalent() -> None:
    assert vm.equivalent(r"\frac{1}{2}", "0.5")
    assert vm.equivalent("(x+1)^2", "x^2 + 2x + 1")
    assert not vm.equivalent("(1, 2)", "[1, 2]")
    assert not vm.equivalent("1", r"\frac{1}{")  # does not parse -> False
    assert not vm.equivalent("1", 1)  # type: ignore[arg-type]


def test_last_number_fallback_is_an_option_and_never_rescues_an_explicit_answer() -> None:
    text = "She has 3 apples, buys 4 more and ends with 7 apples in the basket at the end of it all."
    assert vm.verify("7", text).status == "no_answer"
    gsm = MathConfig(last_number_fallback=True)
    assert vm.verify("7", text, config=gsm).correct
    assert vm.verify("7", r"We get 7 apples. \boxed{7 apples!!}", config=gsm).status != "correct"


@pytest.mark.parametrize(
    ("config", "gold", "completion", "expected"),
    [
        (MathConfig(percent_as_fraction=True), r"25\%", r"\boxed{0.25}", "correct"),
        (MathConfig(), r"25\%", r"\boxed{0.25}", "correct"),
        (MathConfig(percent_as_fraction=False), r"25\%", r"\boxed{0.25}", "incorrect"),
        (MathConfig(percent_as_fraction=True), r"62.5\%", r"\boxed{\frac{5}{8}}", "correct"),
        (MathConfig(percent_as_fraction=True), r"\frac{5}{8}", r"\boxed{62.5\%}", "correct"),
        (MathConfig(percent_as_fraction=False), r"62.5\%", r"\boxed{\frac{5}{8}}", "incorrect"),
        (MathConfig(equation_as_value=False), r"h(t) = t^2 + 1", r"\boxed{t^2 + 1}", "incorrect"),
        (MathConfig(equation_as_value=False), r"h(t) = t^2 + 1", r"\boxed{h(s) = s^2 + 1}", "correct"),
        (MathConfig(bare_max_chars=20), "42", "Counting them all gives 42", "no_answer"),
        (MathConfig(bare_max_chars=20), r"x^2+2x+1", r"(x+1)^2 + 0 \cdot x + 0 \cdot x^2 + 0", "correct"),
        (MathConfig(equation_as_value=False), "2", r"\boxed{x = 2}", "incorrect"),
        (MathConfig(decimal_rounding=False), "12.57", r"\boxed{4\pi}", "incorrect"),
        (MathConfig(), "12.57", r"\boxed{4\pi}", "correct"),
        (MathConfig(rel_tol=0.01), "3.14", r"\boxed{3.15}", "correct"),
        (MathConfig(rel_tol=0.01), "100", r"\boxed{101}", "incorrect"),  # integers stay exact
        (MathConfig(think_end=None), "5", r"<think>\boxed{5}", "correct"),
        (MathConfig(ignore_degrees=False), "30", r"\boxed{30^\circ}", "incorrect"),
        (
            MathConfig(case_sensitive_text=True),
            r"\text{Monday}",
            r"\boxed{\text{monday}}",
            "incorrect",
        ),
        (MathConfig(anchors=("result:",)), "9", "Result: 9", "correct"),
        (MathConfig(mixed_numbers=False), r"\frac{7}{4}", r"\boxed{1\frac{3}{4}}", "incorrect"),
        (MathConfig(mixed_numbers=False), r"\frac{3}{4}", r"\boxed{1\frac{3}{4}}", "correct"),
        (MathConfig(imaginary_i=False), "-1", r"\boxed{i^2}", "incorrect"),
        (MathConfig(), "-1", r"\boxed{i^2}", "correct"),
        (MathConfig(euler_e=False), "1", r"\boxed{\ln e}", "incorrect"),
        (MathConfig(), "1", r"\boxed{\ln e}", "correct"),
        (MathConfig(thousands_separators=False), "1000", r"\boxed{1,000}", "incorrect"),
        (MathConfig(), "1000", r"\boxed{1,000}", "correct"),
        # decimal commas (off by default: 3,5 is two values there)
        (MathConfig(decimal_comma=True), "3.5", r"\boxed{3,5}", "correct"),
        (MathConfig(decimal_comma=True), "3.5", r"\boxed{3{,}5}", "correct"),
        (MathConfig(decimal_comma=True), r"\frac{1}{4}", "The answer is 0,25.", "correct"),
        (MathConfig(decimal_comma=True), "1000.5", r"\boxed{1 000,5}", "correct"),
        (MathConfig(decimal_comma=True), "1000.5", r"\boxed{1\,000,5}", "correct"),
        (MathConfig(decimal_comma=True), "0,75", r"\boxed{\frac{3}{4}}", "correct"),  # the gold too
        (MathConfig(decimal_comma=True), "3.5", r"\boxed{3,6}", "incorrect"),
        (MathConfig(decimal_comma=True), "1000", r"\boxed{1,000}", "incorrect"),  # 1.000, not a thousand
        (MathConfig(decimal_comma=True), "1, 5", r"\boxed{1, 5}", "correct"),  # a list keeps its spaces
        (MathConfig(decimal_comma=True), "1, 5", r"\boxed{1,5}", "incorrect"),
        (MathConfig(), "3.5", r"\boxed{3,5}", "incorrect"),
    ],
)
def test_config_changes_the_policy(config: MathConfig, gold: str, completion: str, expected: str) -> None:
    assert vm.verify(gold, completion, config=config).status == expected


# -- bad input from our caller ---------------------------------------------------------------
@pytest.mark.parametrize(
    ("gold", "match"),
    [
        (None, "gold must be a str"),
        (42, "gold must be a str"),
        ("", "gold is empty"),
        ("   ", "gold is empty"),
        ("1" * 20_000, "at most 10000"),
    ],
)
def test_bad_gold_raises_a_clear_value_error(gold: object, match: str) -> None:
    with pytest.raises(VerifierInputError, match=match) as info:
        vm.verify(gold, "42")  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rel_tol": -1}, "rel_tol"),
        ({"boxed": "yes"}, "boxed"),
        ({"anchors": ["answer:"]}, "anchors must be a tuple"),
        ({"bare_max_chars": -5}, "bare_max_chars"),
    ],
)
def test_bad_config_raises(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(VerifierInputError, match=match):
        MathConfig(**kwargs)  # type: ignore[arg-type]


def test_bad_call_arguments() -> None:
    with pytest.raises(VerifierInputError, match="config must be a MathConfig"):
        vm.verify("1", "1", config={"boxed": True})  # type: ignore[arg-type]
    with pytest.raises(VerifierInputError, match="timeout_s"):
        vm.verify("1", "1", timeout_s=0)
    with pytest.raises(VerifierInputError, match="same length"):
        vm.verify_many(["1"], ["1", "2"])


@pytest.mark.parametrize("completion", [None, 42, b"\\boxed{1}", ["1"]])
def test_non_text_completion_is_no_answer(completion: object) -> None:
    r = vm.verify("1", completion)  # type: ignore[arg-type]
    assert r.status == "no_answer" and r.correct is False


# -- never hangs -----------------------------------------------------------------------------
HOSTILE = [
    r"\boxed{9^{9^{9^9}}}",
    r"\boxed{10^{10^{10}}!}",
    r"\boxed{(10^{10^{10}})! - 1}",
    r"\boxed{2^{2^{2^{2^{2^{2^{2}}}}}}}",
    r"\boxed{\binom{10^{100}}{10^{50}}}",
    r"\boxed{" + "{" * 5000 + "1" + "}" * 5000 + "}",
    r"\boxed{" + "(" * 3000 + "x" + ")" * 3000 + "}",
    "\\boxed{" + "\\frac{1}{" * 800 + "2" + "}" * 800 + "}",
    "x" * 100_000,
    "\\boxed{" * 20_000,
    "The answer is " + "9" * 5000,
    r"\boxed{1e99999999}",
    r"\boxed{10^{-10^{10}}}",
    r"\boxed{x^{10^{10^{10}}} - x^{10^{10^{10}}}}",
]


@pytest.mark.serial
@pytest.mark.parametrize("completion", HOSTILE, ids=lambda c: c[:30])
@pytest.mark.parametrize("gold", ["0", "9^{9^{9^9}}", "x"])
def test_hostile_inputs_finish_within_the_timeout(gold: str, completion: str) -> None:
    start = time.monotonic()
    result = vm.verify(gold, completion, timeout_s=3.0)
    assert time.monotonic() - start < 4.0
    assert isinstance(result, VerifyResult)
    assert result.status != "error", result


def test_huge_values_are_judged_by_mathematics() -> None:
    assert vm.verify(r"4^{2^{99}}", r"\boxed{2^{2^{100}}}").correct
    assert vm.verify(r"9^{9^{9^9}}", r"\boxed{9^{9^{9^9}}}").correct
    assert vm.verify(r"9^{9^{9^9}}", r"\boxed{9^{9^{9^8}}}").status == "incorrect"
    assert vm.verify(r"10^{10^{10}}", r"\boxed{10^{10^{10}} + 1}").status == "incorrect"


# Without numeric sampling, sympy must expand a 5-variable polynomial of degree 24: ~40 s here.
SLOW = MathConfig(numeric_samples=0)
SLOW_GOLD = "(a+b+c+d+e)^{24}"
SLOW_EXPR = "(a+b+c+d+e)^{23} (a+b+c+d+e+1)"
SLOW_ANSWER = f"\\boxed{{{SLOW_EXPR}}}"


@pytest.mark.serial
def test_a_slow_comparison_times_out_and_the_next_call_is_fast() -> None:
    start = time.monotonic()
    r = vm.verify(SLOW_GOLD, SLOW_ANSWER, config=SLOW, timeout_s=0.3)
    assert r.status == "timeout" and r.correct is None and r.reward == 0.0
    assert "0.3 s" in r.reason
    assert time.monotonic() - start < 2.0
    start = time.monotonic()
    assert vm.verify("1", r"\boxed{\sin^2 x + \cos^2 x}").correct  # a warm spare took over
    assert time.monotonic() - start < 1.5


def test_equivalent_raises_verify_timeout() -> None:
    with pytest.raises(VerifyTimeout):
        vm.equivalent(SLOW_GOLD, SLOW_EXPR, config=SLOW, timeout_s=0.3)


def test_plain_numbers_are_judged_in_process_fast() -> None:
    vm.verify("42", "The answer is 42.")
    start = time.perf_counter()
    for _ in range(200):
        assert vm.verify("3.75", r"so the total is $\boxed{\frac{15}{4}}$").correct
    per_call = (time.perf_counter() - start) / 200
    assert per_call < 0.02  # ~0.2 ms here; a sympy round trip would be far slower


# -- concurrency -----------------------------------------------------------------------------
PAIRS = [
    ("1", r"\boxed{\sin^2 x + \cos^2 x}"),
    ("x+1", r"\boxed{\frac{x^2-1}{x-1}}"),
    ("2", r"\boxed{2}"),
    (r"\sqrt{2}", r"\boxed{1.414}"),
    ("(x+1)^2", r"\boxed{x^2+2x+2}"),
]
EXPECTED = ["correct", "correct", "correct", "incorrect", "incorrect"]


def test_threads() -> None:
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda k: vm.verify(*PAIRS[k % 5]).status, range(40)))
    assert statuses == [EXPECTED[k % 5] for k in range(40)]


def test_asyncio() -> None:
    async def main() -> list[str]:
        results = await asyncio.gather(*(asyncio.to_thread(vm.verify, g, c) for g, c in PAIRS))
        return [r.status for r in results]

    assert asyncio.run(main()) == EXPECTED
