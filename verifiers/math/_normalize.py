"""String clean-up before parsing: formatting that never changes an answer.

Pure string work (regular expressions with no backtracking blow-ups); nothing is evaluated.
"""

from __future__ import annotations

import re

__all__ = ["normalize"]

_DELIMS = (("$$", "$$"), ("$", "$"), ("\\(", "\\)"), ("\\[", "\\]"))
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
    "\u222a": "\\cup ",
    "\u00b2": "^2",
    "\u00b3": "^3",
    "\u00a0": " ",
    "\u2009": " ",
    "\u202f": " ",
}
_WRAPPERS = re.compile(
    r"\\(?:text|textbf|textit|textrm|texttt|textsf|mathrm|mathbf|mathit|mathsf|mathtt|mbox|"
    r"operatorname|boldsymbol|bm|emph|hbox|textnormal)\s*\{"
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
_THOUSANDS_COMMA = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?![\d,])(?!\.\d*,)")
_DECIMAL_COMMA = re.compile(r"(?<=\d)(?:\{,\}|,)(?=\d)")
_DEGREE = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|\\circ|\u00b0|\\degree(?![a-zA-Z])|\^\{\s*o\s*\}")
_PERCENT = re.compile(r"\\%|\\percent(?![a-zA-Z])")
_AND_OR = re.compile(r"\s*\band\s*/\s*or\b\s*", re.IGNORECASE)
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


def normalize(text: str, *, thousands: bool = True, decimal_comma: bool = False) -> str:
    """Return ``text`` with formatting that never matters removed.

    Examples:
        >>> normalize(r"$\\left( \\dfrac{1}{2}, 1{,}000 \\right)$")
        '( \\\\frac{1}{2}, 1000 )'
    """
    for bad, good in _UNICODE.items():
        if bad in text:
            text = text.replace(bad, good)
    text = _strip_delimiters(text)
    text = _AND_OR.sub(" or ", text)
    text = _unwrap(text)
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
            text = _THOUSANDS_COMMA.sub(lambda m: m.group(0).replace(",", ""), text)
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
