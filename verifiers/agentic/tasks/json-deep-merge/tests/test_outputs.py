"""Hidden tests of /work/merge.py: run as a program (never imported) on JSON files written here."""

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


import copy
import json
import random
import subprocess


def merge(base, over):
    out = copy.deepcopy(base)
    for key, value in over.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def value(rng, depth):
    kind = rng.random()
    if depth < 3 and kind < 0.35:
        return {rng.choice("abcdefg"): value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    if kind < 0.45:
        return None
    if kind < 0.6:
        return [rng.randint(0, 9) for _ in range(rng.randint(0, 3))]
    return rng.choice([rng.randint(-99, 99), "s" + str(rng.randint(0, 9)), True, False, 0.5])


def document(rng):
    return {rng.choice("abcdefgh"): value(rng, 1) for _ in range(rng.randint(1, 6))}


def run(tmp_path, base, over):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(base))
    b.write_text(json.dumps(over))
    proc = agent_run(["python3", "/work/merge.py", str(a), str(b)], capture_output=True, text=True, timeout=20, cwd="/tmp")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_merged_json_of_the_two_files():
    base = json.load(open("/work/config/defaults.json"))
    over = json.load(open("/work/config/local.json"))
    assert json.load(open("/work/config/merged.json")) == merge(base, over)


def test_random_documents():
    tmp_path = shared_dir()
    rng = random.Random()
    for _ in range(25):
        base, over = document(rng), document(rng)
        base = {k: v for k, v in base.items() if v is not None}
        assert run(tmp_path, base, over) == merge(base, over), (base, over)


def test_lists_are_replaced_and_null_deletes():
    tmp_path = shared_dir()
    base = {"a": [1, 2], "b": {"c": 1, "d": 2}, "e": 1}
    over = {"a": [3], "b": {"c": None}, "e": {"f": 1}, "g": None}
    assert run(tmp_path, base, over) == {"a": [3], "b": {"d": 2}, "e": {"f": 1}}
