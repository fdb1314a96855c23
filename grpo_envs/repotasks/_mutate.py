"""The mutation engine: procedural bugs in one function or class at a time, as a developer could
make them (SWE-smith's techniques plus off-by-one slices and swapped arguments), deterministic by
seed, each with its unified diff and the reverse patch that fixes it.

Edits are made on the source text: only the mutated lines (a statement) or the mutated span (an
expression) are rewritten with `ast.unparse`, so the rest of the file stays byte-identical and the
reverse patch is minimal.

>>> source = "def area(w, h):\\n    return w * h - 0\\n"
>>> sorted({m.technique for m in mutations(source, "geo.py", per_entity=9)})
['change_constant', 'change_operator', 'swap_operands']
"""

from __future__ import annotations

import ast
import copy
import difflib
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from ._sites import SWAPPED_BINOPS, SWAPPED_CMPOPS, Site, entities, first_line, sites_of


@dataclass(frozen=True)
class Mutation:
    """One bug: ``technique`` at line ``line`` of entity ``entity`` in file ``path``. ``source`` is
    the broken file's text, ``diff`` the unified diff that breaks the clean file (``a/path`` to
    ``b/path``, for ``patch -p1``) and ``reverse`` the one that repairs it."""

    path: str
    entity: str
    technique: str
    line: int
    source: str
    diff: str
    reverse: str

    @property
    def lines_changed(self) -> int:
        """How many lines the fix touches (added plus removed): a difficulty signal."""
        return sum(1 for row in self.diff.splitlines() if row[:1] in "+-" and not row.startswith(("+++", "---")))


def unified_diff(before: str, after: str, path: str) -> str:
    """The unified diff from ``before`` to ``after`` of file ``path``, as `patch -p1` reads it
    (a last line without its newline marked so)."""
    rows = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}"
    )
    return "".join(row if row.endswith("\n") else row + "\n\\ No newline at end of file\n" for row in rows)


def _indent(text: str, column: int) -> str:
    """``text`` (unparsed at column 0) indented to ``column``, one line per line, with a newline."""
    return "".join(" " * column + row + "\n" if row.strip() else "\n" for row in text.splitlines())


def _replace_lines(lines: list[str], first: int, last: int, text: str) -> str:
    """The source with lines ``first``..``last`` (1-based, inclusive) replaced by ``text``
    (empty: the lines are removed)."""
    return "".join(lines[: first - 1]) + text + "".join(lines[last:])


def _char_col(line: str, byte_offset: int) -> int:
    """A character index from an AST's UTF-8 byte offset into ``line``."""
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def _statement(site: Site, lines: list[str], rng: random.Random) -> str | None:
    """Apply a statement-level technique: a removal, an if/else inversion or a shuffle."""
    node = site.node
    assert isinstance(node, ast.stmt)
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    last, column = node.end_lineno or node.lineno, node.col_offset
    if site.technique == "invert_if_else":
        assert isinstance(node, ast.If)
        flipped = copy.deepcopy(node)
        flipped.body, flipped.orelse = node.orelse, node.body
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            flipped.orelse = node.body  # an elif branch becomes the if branch
        return _replace_lines(lines, first, last, _indent(ast.unparse(flipped), column))
    if site.technique == "remove_wrapper":
        body = list(getattr(node, "body", []))
        return _replace_lines(lines, first, last, _indent("\n".join(ast.unparse(s) for s in body), column))
    if site.technique == "shuffle_lines":
        return _shuffle(site, lines, rng)
    alone = len([s for s in site.block if not _is_docstring(s)]) == 1 and not _is_docstring(node)
    return _replace_lines(lines, first, last, _indent("pass", column) if alone else "")


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _shuffle(site: Site, lines: list[str], rng: random.Random) -> str | None:
    """The entity's body with its statements (docstring and the last return kept in place) shuffled."""
    body = [s for s in site.block if not _is_docstring(s)]
    if isinstance(body[-1], ast.Return):
        body = body[:-1]
    if len(body) < 2:
        return None
    chunks = ["".join(lines[first_line(s) - 1 : (s.end_lineno or s.lineno)]) for s in body]
    order = list(range(len(chunks)))
    for _ in range(8):
        rng.shuffle(order)
        if order != sorted(order):
            break
    else:
        return None
    text = "".join(chunks[i] for i in order)
    first, last = first_line(body[0]), body[-1].end_lineno or body[-1].lineno
    if "".join(lines[first - 1 : last]) != "".join(chunks):
        return None  # comments or blank lines between the statements: keep it simple, skip
    return "".join(lines[: first - 1]) + text + "".join(lines[last:])


_SYMBOLS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.Lt: "<", ast.LtE: "<=",
    ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in",
    ast.Is: "is", ast.IsNot: "is not", ast.And: "and", ast.Or: "or",
}  # fmt: skip


class _Text:
    """The source as one string, with AST positions (line, UTF-8 byte column) as indexes into it."""

    def __init__(self, lines: list[str]) -> None:
        self.lines, self.text = lines, "".join(lines)
        self.starts = [0]
        for row in lines:
            self.starts.append(self.starts[-1] + len(row))

    def start(self, node: ast.AST) -> int:
        line: int = getattr(node, "lineno")  # noqa: B009
        return self.starts[line - 1] + _char_col(self.lines[line - 1], getattr(node, "col_offset"))  # noqa: B009

    def end(self, node: ast.AST) -> int:
        line: int = getattr(node, "end_lineno")  # noqa: B009
        return self.starts[line - 1] + _char_col(self.lines[line - 1], getattr(node, "end_col_offset"))  # noqa: B009

    def segment(self, node: ast.AST) -> str:
        return self.text[self.start(node) : self.end(node)]


def _edit(text: _Text, edits: list[tuple[int, int, str]]) -> str | None:
    """The source with non-overlapping ``(start, end, new)`` edits made."""
    out, at = [], 0
    for start, end, new in sorted(edits):
        if start < at:
            return None
        out += [text.text[at:start], new]
        at = end
    return "".join(out) + text.text[at:]


def _operator(text: _Text, gaps: Sequence[tuple[ast.AST, ast.AST]], old: str, new: str) -> str | None:
    """Replace operator ``old`` by ``new`` in the gap between each pair of operands (a gap holding
    anything but the operator, parentheses and spaces is left alone: the mutation is skipped)."""
    edits = []
    for left, right in gaps:
        start, end = text.end(left), text.start(right)
        gap = text.text[start:end]
        if " ".join(gap.replace("(", " ").replace(")", " ").replace("\\", " ").split()) != old:
            return None
        words = old.split()
        at, stop = gap.index(words[0]), gap.rindex(words[-1]) + len(words[-1])
        edits.append((start + at, start + stop, new))
    return _edit(text, edits)


def _expression(site: Site, lines: list[str], rng: random.Random) -> str | None:  # noqa: C901
    """Apply an expression-level technique by editing only the tokens it changes."""
    node, technique, text = site.node, site.technique, _Text(lines)
    if technique == "change_constant" and isinstance(node, ast.Constant):
        value: int = node.value  # type: ignore[assignment]  # an int: `_sites` chose it so
        return _edit(text, [(text.start(node), text.end(node), repr(value + rng.choice((-1, 1))))])
    if technique == "change_operator" and isinstance(node, ast.BinOp):
        old, new = _SYMBOLS[type(node.op)], _SYMBOLS[SWAPPED_BINOPS[type(node.op)]]
        return _operator(text, [(node.left, node.right)], old, new)
    if technique == "change_operator" and isinstance(node, ast.Compare):
        old, new = _SYMBOLS[type(node.ops[0])], _SYMBOLS[SWAPPED_CMPOPS[type(node.ops[0])]]
        return _operator(text, [(node.left, node.comparators[0])], old, new)
    if technique == "change_operator" and isinstance(node, ast.BoolOp):
        old = _SYMBOLS[type(node.op)]
        pairs = list(zip(node.values, node.values[1:], strict=False))
        return _operator(text, pairs, old, "or" if old == "and" else "and")
    pair: tuple[ast.AST, ast.AST] | None = None
    if technique == "swap_operands" and isinstance(node, ast.BinOp):
        pair = (node.left, node.right)
    elif technique == "swap_operands" and isinstance(node, ast.Compare):
        pair = (node.left, node.comparators[0])
    elif technique == "swap_arguments" and isinstance(node, ast.Call):
        pair = (node.args[0], node.args[1])
    if pair:
        a, b = pair
        return _edit(
            text, [(text.start(a), text.end(a), text.segment(b)), (text.start(b), text.end(b), text.segment(a))]
        )
    if technique == "break_chain" and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return _edit(text, [(text.start(node), text.end(node), text.segment(node.func.value))])
    if technique == "off_by_one_slice" and isinstance(node, ast.Slice):
        return _slice(text, node, rng)
    return None


def _slice(text: _Text, node: ast.Slice, rng: random.Random) -> str | None:
    """Move one bound of a slice by one: ``a[i:j]`` to ``a[i:j - 1]`` and the like."""
    bound = rng.choice([b for b in (node.lower, node.upper) if b is not None])
    delta = rng.choice((-1, 1))
    if isinstance(bound, ast.Constant) and type(bound.value) is int:
        new = repr(bound.value + delta)
    else:
        segment = text.segment(bound)
        simple = isinstance(bound, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant))
        new = f"{segment if simple else '(' + segment + ')'} {'+' if delta > 0 else '-'} 1"
    return _edit(text, [(text.start(bound), text.end(bound), new)])


def _class(site: Site, lines: list[str], rng: random.Random) -> str | None:
    """Remove one base class (the header is rewritten) or one method (its lines removed)."""
    node = site.node
    if site.technique == "remove_method":
        return _statement(Site("remove_method", site.entity, node, site.block), lines, rng)
    assert isinstance(node, ast.ClassDef)
    header = copy.deepcopy(node)
    header.bases.pop(rng.randrange(len(node.bases)))
    header.body, header.decorator_list = [ast.Pass()], []
    text = ast.unparse(header).splitlines()[0]
    return _replace_lines(lines, node.lineno, node.body[0].lineno - 1, _indent(text, node.col_offset))


def apply(site: Site, source: str, rng: random.Random) -> str | None:
    """The source with ``site`` broken, or None when the technique finds nothing to change there
    (the result always parses and differs from ``source`` in its syntax tree)."""
    lines = source.splitlines(keepends=True)
    if site.technique in ("remove_base", "remove_method"):
        mutated = _class(site, lines, rng)
    elif isinstance(site.node, ast.stmt):
        mutated = _statement(site, lines, rng)
    else:
        mutated = _expression(site, lines, rng)
    if mutated is None:
        return None
    try:
        if ast.dump(ast.parse(mutated)) == ast.dump(ast.parse(source)):
            return None
    except SyntaxError:
        return None
    return mutated


def mutations(
    source: str, path: str, *, seed: int = 0, techniques: tuple[str, ...] | None = None, per_entity: int = 3
) -> Iterator[Mutation]:
    """Candidate bugs in ``source`` (file ``path`` relative to the project root): up to
    ``per_entity`` sites per function, method or class, chosen by ``seed`` from every site of the
    allowed ``techniques``; entities in source order. A file that does not parse yields nothing."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    lines = source.splitlines(keepends=True)
    rng = random.Random(seed)
    for entity, node in entities(tree):
        sites = [s for s in sites_of(entity, node, lines) if techniques is None or s.technique in techniques]
        rng.shuffle(sites)
        made = 0
        for site in sites:
            if made >= per_entity:
                break
            mutated = apply(site, source, random.Random(f"{seed}:{entity}:{made}"))
            if mutated is None:
                continue
            made += 1
            yield Mutation(
                path, entity, site.technique, site.node.lineno,  # type: ignore[attr-defined]
                mutated, unified_diff(source, mutated, path), unified_diff(mutated, source, path),
            )  # fmt: skip
