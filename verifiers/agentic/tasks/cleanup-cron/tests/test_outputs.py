"""Hidden tests of /work/cleanup.sh (run with bash on folders made here) and of /work/crontab."""

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


import os
import random
import subprocess
import time

DAY = 86400


def make_tree(root, rng, now):
    old, young = set(), set()
    names = ["a.txt", "b c.log", "-dash", "new\nline", "x" * 40, ".hidden", "d*star"]
    for i in range(rng.randint(4, 14)):
        sub = os.path.join(root, *rng.sample(["s1", "s 2", "deep", "deeper"], rng.randint(0, 3)))
        os.makedirs(sub, exist_ok=True)
        path = os.path.join(sub, f"{i}-{rng.choice(names)}")
        with open(path, "w") as f:
            f.write("x")
        age = rng.choice([0.5, 2.9, 3.1, 10, 400])
        os.utime(path, (now - age * DAY, now - age * DAY))
        (old if age > 3 else young).add(path)
    return old, young


def run(root, days):
    proc = agent_run(["bash", "/work/cleanup.sh", root, str(days)], capture_output=True, text=True,
                          timeout=30, cwd="/tmp")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_deletes_exactly_the_old_files():
    tmp_path = shared_dir()
    rng = random.Random()
    now = time.time()
    for trial in range(4):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        outside = tmp_path / f"outside-{trial}.txt"
        outside.write_text("keep")
        os.utime(outside, (now - 100 * DAY, now - 100 * DAY))
        os.symlink(outside, root / "link-to-outside")
        old, young = make_tree(str(root), rng, now)
        for d, _, _ in os.walk(root):
            os.chmod(d, 0o777)  # the script runs as nobody
        os.chmod(tmp_path, 0o777)  # so that a script that followed the link could delete the outside file
        out = run(str(root), 3)
        assert out.strip() == str(len(old)), out
        for p in old:
            assert not os.path.lexists(p), p
        for p in young:
            assert os.path.exists(p), p
        assert outside.exists(), "a file outside the folder was deleted"
        assert all(os.path.isdir(d) for d, _, _ in os.walk(root)), "folders are kept"


def test_crontab_line():
    lines = [ln for ln in open("/work/crontab").read().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    assert len(lines) == 1, lines
    fields = lines[0].split(None, 5)
    assert fields[:5] == ["30", "3", "*", "*", "*"], fields
    assert fields[5].split() == ["bash", "/work/cleanup.sh", "/work/scratch", "7"], fields[5]
