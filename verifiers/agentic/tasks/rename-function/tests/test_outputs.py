"""Hidden tests of the refactor: the package (the agent's files over the image's) is used in
subprocesses only; the old name is looked for as a whole word."""

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


import json
import random
import re
import subprocess
import sys

FILES = ["/app/shop/__init__.py", "/app/shop/pricing.py", "/app/shop/cart.py", "/app/shop/checkout.py"]

PROBE = """
import json, sys
sys.path.insert(0, "/app")
import shop
from shop import pricing, cart, checkout
items = json.loads(sys.argv[1])
c = cart.Cart()
for price, qty in items:
    c.add(price, qty)
print(json.dumps({
    "compute": pricing.compute_total(items, 0.2),
    "exported": shop.compute_total(items),
    "cart": c.total(0.1),
    "receipt": checkout.receipt(c, 0.05),
    "discounted": checkout.discounted(c, 15),
    "label": pricing.calc_total_label(items),
    "old": [hasattr(m, "calc_total") for m in (shop, pricing)],
}))
"""


def total(items, tax=0.0):
    return round(sum(p * q for p, q in items) * (1 + tax), 2)


def test_no_old_name_left():
    for path in FILES:
        text = open(path).read()
        assert not re.search(r"\bcalc_total\b", text), path


def test_behaviour_kept():
    rng = random.Random()
    items = [[rng.randint(1, 9999) / 100, rng.randint(1, 5)] for _ in range(rng.randint(1, 6))]
    proc = agent_run([sys.executable, "-I", "-c", PROBE, json.dumps(items)],
                          capture_output=True, text=True, timeout=20, cwd="/tmp")
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    count = sum(q for _, q in items)
    assert got["compute"] == total(items, 0.2)
    assert got["exported"] == total(items)
    assert got["cart"] == total(items, 0.1)
    assert got["receipt"] == f"{count} items, {total(items, 0.05):.2f}"
    assert got["discounted"] == round(total(items) * 85 / 100, 2)
    assert got["label"] == f"total: {total(items):.2f}"
    assert got["old"] == [False, False], "the old name is still there (an alias?)"
