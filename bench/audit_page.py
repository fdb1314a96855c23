"""Benchmark: the audit page (``audit.html``) opened from disk in headless Chromium with thousands
of samples: how long until the first filtered page of 25 is on screen, against a page of 100
samples in the same run.

    python bench/audit_page.py [--sizes 100,1000,5000,20000] [--chars 3000]

Each sample's completion is ``--chars`` characters (a thinking section and a final one: a long
chain-of-thought output is 3,000-10,000). The page is written by `trainer.audit._page.write_page`,
opened at ``#verdict=disagree`` (parse the embedded JSON, filter, render 25 cards), and
the page's own ``performance.now()`` at the end of that first render is read back from the DOM
(``data-rendered-ms``), from navigation start: loading the file, parsing the HTML and the JSON,
filtering and rendering. A filter change afterwards costs the filter and the render only.
Printed: samples, the file's size, the time to write it, the time to the first render (median
of ``--repeats``), and its ratio to the 100-sample page's.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def page(n: int, chars: int, folder: Path) -> tuple[Path, float]:
    from trainer.audit._page import write_page
    from trainer.audit._result import AuditReport
    from trainer.audit._rows import AuditRow, Grade

    think = "Let me compute step by step. " * (chars // 2 // 29)
    final = "So the total is 12 + 30 = 42, and the answer is $\\boxed{42}$. " * (chars // 2 // 62)
    rows = [
        AuditRow(f"s{k}", "42", f"<think>{think}</think>{final}", prompt="What is 12 + 30?", task=f"t{k % 7}")
        for k in range(n)
    ]
    yes, no = Grade("correct", True, "The values are equal.", "42"), Grade("incorrect", False, "Not equal.", "41")
    items = [(r, yes, no if k % 3 == 0 else yes) for k, r in enumerate(rows)]
    report = AuditReport("ours", "judge", n, n - len(items[::3]), {"first": 0, "second": 0}, ())
    started = time.perf_counter()
    path = write_page(report, items, folder / f"page-{n}.html")
    return path, time.perf_counter() - started


def rendered_ms(path: Path, browser: str, folder: Path, cards: int) -> float:
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={folder / 'profile'}"]
    done = subprocess.run([*cmd, "--dump-dom", path.as_uri() + "#verdict=disagree"], capture_output=True, text=True)
    found = re.search(r'data-rendered-ms="(\d+)"', done.stdout)
    assert found is not None, done.stderr[-1000:]
    assert done.stdout.count('<div class="sample">') == cards
    return float(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,1000,5000,20000")
    parser.add_argument("--chars", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.exit("needs chromium (apt-get install chromium)")
    print(f"{'samples':>8} {'file MB':>8} {'write s':>8} {'first render ms':>16} {'vs 100':>7}")
    base = None
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for n in [int(s) for s in args.sizes.split(",")]:
            path, write_s = page(n, args.chars, folder)
            ms = statistics.median(
                rendered_ms(path, browser, folder, min(25, (n + 2) // 3)) for _ in range(args.repeats)
            )
            base = base or ms
            size = path.stat().st_size / 1e6
            print(f"{n:>8} {size:>8.1f} {write_s:>8.2f} {ms:>16.0f} {ms / base:>7.2f}")


if __name__ == "__main__":
    main()
