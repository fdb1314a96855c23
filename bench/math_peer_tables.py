"""Agreement with a peer's own regression tables: Math-Verify's NuminaMath and OpenThoughts cases.

    python bench/math_peer_tables.py [--tests DIR] [--version 0.9.0] [--show]

Math-Verify ships labelled (gold, prediction, expected) rows in its source distribution
(``tests/test_numina_cases.py``, ``tests/test_open_thoughts.py``; ``test_all.py`` is its grammar
table, printed apart: it encodes the peer's own choices, such as 6-digit float rounding). This
script fetches that sdist from PyPI with ``pip download`` (or reads ``--tests``), reads each table's
``parametrize`` rows without importing them, judges every row with `verifiers.math.verify`
(default config) and prints, per table, the rows where our verdict equals the peer's label, and
Math-Verify's own score on the same rows as the baseline (when it is installed), then how many of
the tables' distinct golds each judges equal to themselves. No row here is copied into our
tests: they measure the project, they do not tune it.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
TABLES = ("test_numina_cases.py", "test_open_thoughts.py", "test_all.py")


def fetch(version: str, into: Path) -> Path:
    """The peer's ``tests/`` folder from its sdist on PyPI."""
    cmd = [sys.executable, "-m", "pip", "download", f"math-verify=={version}", "--no-deps", "--no-binary", ":all:"]
    subprocess.run([*cmd, "-q", "-d", str(into)], check=True)
    archive = next(into.glob("math_verify-*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return next(into.glob("math_verify-*/tests"))


def rows(path: Path) -> list[tuple[str, str, bool]]:
    """The (gold, pred, expected) rows of every ``parametrize("gold, pred, expected", [...])``."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call) or getattr(node.func, "attr", "") != "parametrize":
            continue
        names = ast.literal_eval(node.args[0])
        names = [n.strip() for n in (names.split(",") if isinstance(names, str) else names)]
        if names[:3] != ["gold", "pred", "expected"]:
            continue
        try:
            values = ast.literal_eval(node.args[1])
        except ValueError:
            continue
        out += [(v[0], v[1], bool(v[2])) for v in values]
    return out


def ours(gold: str, pred: str) -> bool:
    from verifiers import math as vm

    return vm.verify(gold, pred).correct is True


def theirs(gold: str, pred: str) -> bool | None:
    try:
        from math_verify import parse, verify
        from math_verify.parser import ExprExtractionConfig, LatexExtractionConfig
    except ImportError:
        return None
    targets = [LatexExtractionConfig(boxed_match_priority=0), ExprExtractionConfig()]
    try:
        return bool(verify(parse(gold, targets), parse(pred, targets), float_rounding=6, strict=True))
    except Exception:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tests", type=Path, help="Math-Verify's tests/ folder (default: fetched from PyPI)")
    parser.add_argument("--version", default="0.9.0", help="the sdist to fetch (default: 0.9.0)")
    parser.add_argument("--show", action="store_true", help="list the rows where we disagree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tests = args.tests or fetch(args.version, Path(tmp))
        print(f"Math-Verify {args.version} tables in {tests}\n")
        print(f"{'table':24} {'rows':>5} {'grpo-envs':>10} {'math-verify':>12} {'ratio':>6}")
        for name in TABLES:
            table = rows(tests / name)
            agree = sum(ours(g, p) == e for g, p, e in table)
            peer = [theirs(g, p) for g, p, _ in table]
            peer_agree = None if None in peer else sum(v == e for v, (_, _, e) in zip(peer, table, strict=True))
            peer_text = "n/a" if peer_agree is None else f"{peer_agree / len(table):.3f}"
            ratio = "" if not peer_agree else f"{agree / peer_agree:.2f}x"
            print(f"{name:24} {len(table):>5} {agree / len(table):>10.3f} {peer_text:>12} {ratio:>6}")
            if args.show:
                for g, p, e in table:
                    if ours(g, p) != e:
                        print(f"    {'FN' if e else 'FP'}  gold={g[:60]!r}  pred={p[-60:]!r}")
        reflexive(sorted({g for name in TABLES for g, _, _ in rows(tests / name)}), args.show)


def reflexive(golds: list[str], show: bool) -> None:
    """Every distinct gold of the tables judged against itself (the gold as the completion)."""
    mine = [g for g in golds if not ours(g, g)]
    peer = [theirs(g, g) for g in golds]
    peer_text = "n/a" if None in peer else f"{len(golds) - peer.count(False)}"
    print(f"\ngolds equal to themselves (of {len(golds)}): grpo-envs {len(golds) - len(mine)}, math-verify {peer_text}")
    for g in mine if show else []:
        print(f"    not reflexive: {g[:100]!r}")


if __name__ == "__main__":
    main()
