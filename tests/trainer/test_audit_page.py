"""The audit page in headless Chromium (a Debian package; `make test` installs it): what a person
sees after filtering by pattern, verdict and task (the URL's ``#`` part, as a click sets it),
that thousands of samples render a page at a time, and a screenshot that is not blank."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.trainer.test_audit import GROUPS, JUDGE, ROWS, judge, script_for, write_rows
from tests.verifiers.judge_server import JudgeServer
from trainer.audit import audit
from trainer.audit._page import write_page
from trainer.audit._rows import AuditRow, Grade

pytestmark = pytest.mark.slow


def chromium() -> str:
    """The browser; missing, the test fails under CI (it must run there) and skips, visibly, elsewhere."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("chromium is not installed: make test installs it (apt-get install chromium)", pytrace=False)
        pytest.skip("needs chromium (make test installs it, as root: apt-get install chromium)")
    return found


def browse(page: Path, tmp_path: Path, hash_: str = "", *flags: str) -> str:
    """The page's DOM after its script ran, opened from disk at ``#hash_``."""
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}"]
    dump = [] if any(f.startswith("--screenshot") for f in flags) else ["--dump-dom"]
    cmd += ["--virtual-time-budget=5000", "--window-size=1200,1400", *dump, *flags, f"{page.as_uri()}#{hash_}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def text_of(dom: str, element_id: str) -> str:
    found = re.search(rf'id="{element_id}"[^>]*>([^<]*)<', dom)
    assert found is not None, element_id
    return found.group(1)


def keys_shown(dom: str) -> list[str]:
    return re.findall(r'<div class="sample"><div class="head"><span>([^<]+)</span>', dom)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("page")
    server = JudgeServer(script_for(ROWS, {}))
    try:
        audit(write_rows(folder / "s.jsonl"), out=folder / "r", judge=judge(server.url), show_progress=False)
    finally:
        server.close()
    yield folder / "r" / "audit.html"


def test_the_groups_and_counts_are_on_the_page(page: Path, tmp_path: Path) -> None:
    dom = browse(page, tmp_path)
    rows = re.findall(r'<tr class="group"[^>]*>(.*?)</tr>', dom)
    cells = [re.findall(r"<td>([^<]*)</td>", row) for row in rows]
    expected = [[str(k), str(c), shape, first, second, ""] for k, (c, first, second, shape) in enumerate(GROUPS, 1)]
    assert [[cell.replace("&amp;", "&") for cell in row] for row in cells] == expected
    assert text_of(dom, "count") == "13 of 13 samples match"
    assert "13 samples: 4 agree, 6 disagree; not judged: 1 by stored, 2 by judge m" in dom
    assert keys_shown(dom) == [r[0] for r in ROWS]


@pytest.mark.parametrize(
    ("hash_", "keys"),
    [
        ("group=0", ["a1", "a2", "a3"]),
        ("verdict=not%20judged", ["e1", "f1", "f2"]),
        ("verdict=agree&task=task-d&second=incorrect", ["d3", "d4"]),
        ("first=unparseable&q=apples", ["c1"]),
    ],
)
def test_a_filter_shows_what_it_says(page: Path, tmp_path: Path, hash_: str, keys: list[str]) -> None:
    dom = browse(page, tmp_path, hash_)
    assert keys_shown(dom) == keys
    assert text_of(dom, "count") == f"{len(keys)} of 13 samples match"
    if hash_ == "group=0":
        thinking_is_folded_and_both_verdicts_are_shown(dom)


def thinking_is_folded_and_both_verdicts_are_shown(dom: str) -> None:
    first = dom[dom.index('<div class="sample">') :]
    first = first[: first.index('<div class="sample">', 10)]
    assert "<details><summary>thinking (think, 5 characters)</summary><pre>pairs</pre></details>" in first
    assert "<pre>So $\\boxed{(1, 2)}$.</pre>" in first
    assert "A value and a tuple differ." in first and f"The judge {JUDGE} said 'VERDICT: CORRECT'." in first


def test_thousands_of_samples_render_a_page_at_a_time_and_the_screenshot_is_not_blank(tmp_path: Path) -> None:
    from PIL import Image

    from trainer.audit._result import AuditReport

    rows = [
        AuditRow(f"s{k}", "1", f"<think>{'x' * 200}</think>The answer is {k % 3}.", task=f"t{k % 5}")
        for k in range(5000)
    ]
    rows[377] = AuditRow("s377", "1", "It is 1.</script><b>bold</b><!--", task="t2")  # text, never markup
    items = [(r, Grade("correct", True, "ok", "1"), Grade("incorrect", False, "no", r.key)) for r in rows]
    report = AuditReport("a", "b", 5000, 0, {"first": 0, "second": 0}, ())
    path = write_page(report, items, tmp_path / "big.html")
    dom = browse(path, tmp_path, "task=t2&page=3")
    assert text_of(dom, "count") == "1000 of 5000 samples match" and text_of(dom, "page") == "page 4 of 40"
    assert keys_shown(dom) == [f"s{k}" for k in range(2 + 5 * 75, 2 + 5 * 100, 5)]
    assert "It is 1.&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt;&lt;!--" in dom and "<b>bold</b>" not in dom
    shot = tmp_path / "shot.png"
    browse(path, tmp_path, "task=t2", f"--screenshot={shot}", "--hide-scrollbars")
    with Image.open(shot) as image:
        assert image.size == (1200, 1400)
        colors = image.convert("RGB").getcolors(1 << 20)
    assert colors is not None and len(colors) > 50  # text, badges, boxes: not one blank colour
    assert max(colors)[0] < 0.97 * 1200 * 1400  # the background is not all there is
