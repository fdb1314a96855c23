"""String clean-up before parsing: formatting that never changes an answer.

Pure string work (regular expressions with no backtracking blow-ups); nothing is evaluated.
"""

from __future__ import annotations

import re

__all__ = ["normalize"]

_QUOTES = (('\\"', '\\"'), ('"', '"'), ("\u201c", "\u201d"))  # "12 and 13": quotes are not math
_DELIMS = (
    _QUOTES
    + (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
    + tuple((f"\\begin{{{env}}}", f"\\end{{{env}}}") for env in ("equation", "equation*", "displaymath", "math"))
)
_UNICODE = {
    "\u2212": "-",  # minus sign
    "\u2013": "-",
    "\u00d7": "\\times ",
    "\u00f7": "\\div ",
    "\u00b7": "\\cdot ",
    "\u22c5": "\\cdot ",
    "\u03c0": "\\pi ",
    "\u221e": "\\infty ",
    "\u2264": "\\le ",
    "\u2265": "\\ge ",
    "\u2260": "\\ne ",
    "\u221a": "\\sqrt",
    "\u00b1": "\\pm ",
    "\u2248": "\\approx ",
    "\u222a": "\\cup ",
    "\u00b2": "^2",
    "\u00b3": "^3",
    "\u00a0": " ",
    "\u2009": " ",
    "\u202f": " ",
}
_WRAPPERS = re.compile(
    r"\\(?:text|textbf|textit|textrm|texttt|textsf|mathrm|mathbf|mathit|mathsf|mathtt|mbox|"
    r"operatorname|boldsymbol|bm|emph|hbox|textnormal|vec|overrightarrow)\s*\{"
)
_DROP = re.compile(
    r"\\(?:left|right|bigl|bigr|Bigl|Bigr|biggl|biggr|Biggl|Biggr|big|Big|bigg|Bigg|"
    r"displaystyle|textstyle|scriptstyle|limits|nolimits)(?![a-zA-Z])"
)
# ``\quad`` may be glued to what follows (``\quadx_2``: golds stored with spaces removed); no
# LaTeX command starts with "quad", so that reads as a space too.
_SPACES = re.compile(r"(?<!\\)(?:\\q?quad|\\(?:enspace|thinspace|medspace|thickspace)(?![a-zA-Z])|\\[,;:! ])|~")
_THOUSANDS_BRACE = re.compile(r"(?<=\d)\s*\{\s*,\s*\}\s*(?=\d{3})")
_THOUSANDS_SPACE = re.compile(r"(?<![\d.,])\d{1,3}(?: \d{3})+(?![\d.,])")
_THOUSANDS_SPACE_DECIMAL = re.compile(r"(?<![\d.,])\d{1,3}(?: \d{3})+(?=\.\d|(?![\d.,]))")  # 1 000,5
_NEG_SPACE = re.compile(r"(?<!\\)\\!")
_COMMA_NEG_SPACE = re.compile(r"(?<=\d),\\!\s+(?=\d{3}(?!\d))")  # MATH's 11,\! 111: the spacing is source layout
_THOUSANDS_THIN = re.compile(r"(?<=\d)(?:\\,|\\ |\\;|\\!|\u2009|\u202f)(?=\d{3}(?!\d))")
# ``1,000`` (and ``1,000, 2``: a group followed by ", " is a list's separator, not ``1,000,2``)
_THOUSANDS_COMMA = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?!\d)(?!,\d)(?!\.\d*,)")
_DECIMAL_COMMA = re.compile(r"(?<=\d)(?:\{,\}|,)(?=\d)")
_DEGREE = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\\circ|\u00b0|\\degree(?![a-zA-Z])|\^\{\s*o\s*\}")
_PERCENT = re.compile(r"\\%|\\percent(?![a-zA-Z])")
_AND_OR = re.compile(r"\s*\band\s*/\s*or\b\s*", re.IGNORECASE)
_LOGIC = {"lor": " or ", "vee": " or ", "land": " and ", "wedge": " and "}
_LOGIC_WORDS = re.compile(r"\\(lor|vee|land|wedge)(?![a-zA-Z])")
# Ordinals: 7^{th}, 21st, 2^{\text{nd}} (the suffix must be the number's own: 2nd, never 2th).
_ORDINAL = re.compile(
    r"(?<![\d.])(\d+)\s*(?:\^\s*\{\s*(st|nd|rd|th)\s*\}|\^\s*(st|nd|rd|th)\b|(st|nd|rd|th)\b)", re.IGNORECASE
)
# A note on an approximation: "(about 2.62)", "(approximately 2.6)", "(\approx 2.62)".
_NOTE = re.compile(
    r"\s*\(\s*(?:(?:about|approximately|approx\.?|roughly|around|nearly)\b|\\approx(?![a-zA-Z])|~)[^()]*\)",
    re.IGNORECASE,
)
_DOUBLED = re.compile(r"\\\\(?=[a-zA-Z])")
# ... and a note after a comma or "or" at the end: ", approximately 2.62", "or about 2.6".
_TRAILING_NOTE = re.compile(
    r"(?<=\S)\s*(?:,|\bor\b|\bi\.e\.)?\s*(?<![\\A-Za-z])(?:about|approximately|approx\.?|roughly|nearly)\s+"
    r"[-+]?\d[\d.]*\s*$",
    re.IGNORECASE,
)
_RENAMES = (
    (re.compile(r"\\textsuperscript\s*\{"), "^{"),  # 7\textsuperscript{th}
    (re.compile(r":=|\\coloneqq(?![a-zA-Z])"), "="),  # f(x) := 2x
    (re.compile(r"\\(?:top|intercal)(?![a-zA-Z])"), "T"),  # v^\top, a transpose
)
_MARKER = re.compile(r"^#{2,}\s*")  # GSM8K's ``####`` written inside the answer
_FRAC_VARIANTS = re.compile(r"\\[dtc]frac(?![a-zA-Z])")
_BINOM_VARIANTS = re.compile(r"\\[dt]binom(?![a-zA-Z])")


def _unwrap(text: str) -> str:
    """Replace ``\\text{...}`` and similar wrappers by their content (nested braces kept)."""
    for _ in range(50):
        m = _WRAPPERS.search(text)
        if m is None:
            return text
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        inner = text[m.end() : i - 1] if depth == 0 else text[m.end() :]
        text = text[: m.start()] + " " + inner + " " + text[i:]
    return text


def _ordinal(m: re.Match[str]) -> str:
    """``21st`` -> ``21`` when the suffix is the number's own (``2th`` stays as written)."""
    digits, suffix = m.group(1), (m.group(2) or m.group(3) or m.group(4)).lower()
    n = int(digits[-2:])
    own = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return digits if suffix == own else m.group(0)


def _separator_levels(text: str) -> dict[int, int]:
    """For each character inside brackets (``(``, ``[``, ``\\{``) whose commas are all unspaced
    (``(101,202,303)``: the writer separates elements that way), the index of that bracket.
    Characters inside a nested bracket belong to the nested one."""
    owner: dict[int, int] = {}
    spaced: set[int] = set()
    stack: list[int] = []
    i, n = 0, len(text)
    while i < n:
        two = text[i : i + 2]
        if text[i] in "([" or two == "\\{":
            stack.append(i)
            i += 2 if two == "\\{" else 1
            continue
        if text[i] in ")]" or two == "\\}":
            if stack:
                stack.pop()
            i += 2 if two == "\\}" else 1
            continue
        if stack:
            owner[i] = stack[-1]
            if text[i] == "," and i + 1 < n and text[i + 1].isspace():
                spaced.add(stack[-1])
        i += 1
    return {k: v for k, v in owner.items() if v not in spaced}


def _thousands_commas(text: str, elements: bool) -> str:
    """``1,000`` -> ``1000``; with ``elements``, a group inside brackets whose commas are all
    unspaced stays separate elements (``(101,202,303)``), unless a group has a leading zero
    (``(1,000)``: no one writes the element 000)."""
    levels = _separator_levels(text) if elements else {}

    def one(m: re.Match[str]) -> str:
        groups = m.group(0).split(",")
        if m.start() in levels and all(g[0] != "0" for g in groups[1:]):
            return m.group(0)
        return "".join(groups)

    return _THOUSANDS_COMMA.sub(one, text)


def _strip_delimiters(text: str) -> str:
    changed = True
    while changed:
        changed = False
        text = text.strip()
        for left, right in _DELIMS:
            if len(text) >= len(left) + len(right) and text.startswith(left) and text.endswith(right):
                text = text[len(left) : len(text) - len(right)]
                changed = True
                break
    return text


def normalize(text: str, *, thousands: bool = True, decimal_comma: bool = False, elements: bool = False) -> str:
    """Return ``text`` with formatting that never matters removed. With ``elements``, a
    ``d,ddd`` group inside brackets whose commas are all unspaced is read as separate elements
    (``(4,251)`` is the pair), not as a number (the default reading: 4251).

    Examples:
        >>> normalize(r"$\\left( \\dfrac{1}{2}, 1{,}000 \\right)$")
        '( \\\\frac{1}{2}, 1000 )'
    """
    for bad, good in _UNICODE.items():
        if bad in text:
            text = text.replace(bad, good)
    if "\\begin" not in text:  # a doubled escape (``\\\\frac``, ``\\\\le``) is the command, outside rows
        text = _DOUBLED.sub(r"\\", text)
    text = _MARKER.sub("", _strip_delimiters(text))
    text = _AND_OR.sub(" or ", text)
    text = _LOGIC_WORDS.sub(lambda m: _LOGIC[m.group(1)], text)
    for pattern, replacement in _RENAMES:
        text = pattern.sub(replacement, text)
    text = _unwrap(text)
    text = _ORDINAL.sub(_ordinal, text)
    text = _TRAILING_NOTE.sub("", _NOTE.sub("", text))
    text = text.replace("$", " ").replace("\\$", " ")
    text = _COMMA_NEG_SPACE.sub(",", text)
    text = _NEG_SPACE.sub("", text)
    if decimal_comma:  # 3,5 and 3{,}5 are 3.5; a comma is then never a thousands separator
        text = _DECIMAL_COMMA.sub(".", text)
    if thousands:
        if not decimal_comma:
            text = _THOUSANDS_BRACE.sub("", text)
        text = _THOUSANDS_THIN.sub("", text)
        if not decimal_comma:
            text = _thousands_commas(text, elements)
        spaces = _THOUSANDS_SPACE_DECIMAL if decimal_comma else _THOUSANDS_SPACE
        text = spaces.sub(lambda m: m.group(0).replace(" ", ""), text)
    text = _DEGREE.sub(" \u00b0 ", text)
    text = _PERCENT.sub(" % ", text)
    text = _FRAC_VARIANTS.sub(lambda _: "\\frac", text)
    text = _BINOM_VARIANTS.sub(lambda _: "\\binom", text)
    text = _DROP.sub("", text)
    text = _SPACES.sub(" ", text)
    text = re.sub(r"\s+", " ", text).strip()
    while text.endswith((".", ";")):
        text = text[:-1].rstrip()
    return text
