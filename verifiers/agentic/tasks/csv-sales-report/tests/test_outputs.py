"""Hidden tests of /work/report.py: run as a program (never imported) on CSV files written here."""

import os as _os
import pathlib as _pathlib
import subprocess as _subprocess
import tempfile as _tempfile

AS_AGENT = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
AGENT_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp"}


def agent_run(cmd, **kwargs):
    """Run the agent's code as nobody (the artifacts' owner, no capability), never as the tests' root."""
    return _subprocess.run(AS_AGENT + [str(c) for c in cmd], env=AGENT_ENV, **kwargs)


def shared_dir():
    """A fresh folder under /tmp that nobody may read (inputs for the agent's code)."""
    path = _tempfile.mkdtemp(prefix="inputs-", dir="/tmp")
    _os.chmod(path, 0o755)
    return _pathlib.Path(path)


import csv
import io
import json
import random
import subprocess
from decimal import Decimal


def expected(text):
    totals = {}
    for row in csv.DictReader(io.StringIO(text, newline="")):
        t = totals.setdefault(row["region"], {"units": 0, "revenue": Decimal(0)})
        t["units"] += int(row["units"])
        t["revenue"] += int(row["units"]) * Decimal(row["unit_price"])
    return {r: {"units": t["units"], "revenue": float(round(t["revenue"], 2))} for r, t in sorted(totals.items())}


def sales_csv(rng, rows):
    regions = ["north", "south", "east", "west", "central", "far east", "north-west"]
    products = ["widget", "gadget, large", 'bolt "M6"', "nut", "gear\nset", "x,y,z"]
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["date", "region", "product", "units", "unit_price"])
    for _ in range(rows):
        w.writerow([
            f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", rng.choice(regions), rng.choice(products),
            rng.randint(1, 99), f"{rng.randint(1, 99999) / 100:.2f}",
        ])
    return out.getvalue()


def run(path):
    proc = agent_run(["python3", "/work/report.py", path], capture_output=True, text=True, timeout=20, cwd="/tmp")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def same(got, want):
    assert list(got) == list(want), "regions (sorted) differ"
    for region, t in want.items():
        assert got[region]["units"] == t["units"], region
        assert abs(got[region]["revenue"] - t["revenue"]) < 0.005, region


def test_report_json_of_the_sample():
    with open("/work/sales.csv", newline="") as f:
        want = expected(f.read())
    with open("/work/report.json") as f:
        same(json.load(f), want)


def test_random_files():
    tmp_path = shared_dir()
    rng = random.Random()
    for i in range(5):
        text = sales_csv(rng, rng.randint(1, 200))
        path = tmp_path / f"sales-{i}.csv"
        path.write_text(text)
        out = run(str(path))
        same(json.loads(out), expected(text))
        assert out == json.dumps(json.loads(out), indent=2, sort_keys=True) + "\n", "not the asked layout"


def test_header_only():
    tmp_path = shared_dir()
    path = tmp_path / "empty.csv"
    path.write_text("date,region,product,units,unit_price\n")
    assert json.loads(run(str(path))) == {}
