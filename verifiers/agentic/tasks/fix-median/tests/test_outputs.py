"""Hidden tests of /work/stats/stats.py: each call runs in a subprocess (the module is never
imported into this process), on inputs drawn at random here."""

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
import statistics
import subprocess
import sys

PROBE = """
import json, sys
sys.path.insert(0, "/work/stats")
import stats
args = json.loads(sys.argv[2])
try:
    value = getattr(stats, sys.argv[1])(*args)
    print(json.dumps(["ok", value, args]))
except Exception as exc:
    print(json.dumps(["raised", type(exc).__name__, args]))
"""


def call(name, *args):
    proc = agent_run(
        [sys.executable, "-I", "-c", PROBE, name, json.dumps(args)],
        capture_output=True, text=True, timeout=20, cwd="/tmp",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_median_of_random_lists():
    rng = random.Random()
    for n in (1, 2, 5, 6, 9, 10):
        values = [rng.randint(-1000, 1000) for _ in range(n)]
        kind, got, after = call("median", values)
        assert kind == "ok" and abs(got - statistics.median(values)) < 1e-9, (values, got)
        assert after[0] == values, "median changed the list it was given"


def test_median_of_floats():
    values = [random.uniform(-5, 5) for _ in range(8)]
    kind, got, _ = call("median", values)
    assert kind == "ok" and abs(got - statistics.median(values)) < 1e-9


def test_mean_and_spread_still_right():
    values = [random.randint(-50, 50) for _ in range(7)]
    assert abs(call("mean", values)[1] - statistics.fmean(values)) < 1e-9
    assert call("spread", values)[1] == max(values) - min(values)


def test_empty_raises_value_error():
    for name in ("mean", "median", "spread"):
        assert call(name, [])[:2] == ["raised", "ValueError"], name
