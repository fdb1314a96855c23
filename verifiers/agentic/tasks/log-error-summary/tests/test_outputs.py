"""Hidden tests of /work/errsum.sh: run with bash (never sourced here) on logs written here."""

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


import collections
import random
import subprocess


def expected(text):
    counts = collections.Counter()
    for line in text.splitlines():
        parts = line.split(" ", 3)
        if len(parts) >= 3 and parts[1] == "ERROR" and parts[2].startswith("[") and parts[2].endswith("]"):
            counts[parts[2][1:-1]] += 1
    return "".join(f"{s} {c}\n" for s, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def log_text(rng, n):
    services = ["auth", "billing", "search-v2", "cart", "mail", "ERROR", "db_main"]
    levels = ["INFO", "INFO", "WARN", "ERROR", "ERROR", "DEBUG", "ERRORS", "error"]
    msgs = ["ok", "ERROR in [auth] upstream", "saw 2 ERROR lines", "[cart] ERROR", "x ERROR [mail] y", ""]
    lines = []
    for _ in range(n):
        lines.append(f"2025-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T10:00:00Z {rng.choice(levels)} "
                     f"[{rng.choice(services)}] {rng.choice(msgs)}".rstrip())
    return "\n".join(lines) + "\n"


def run(path):
    proc = agent_run(["bash", "/work/errsum.sh", str(path)], capture_output=True, text=True, timeout=20, cwd="/tmp")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_errors_txt_of_the_sample():
    assert open("/work/errors.txt").read() == expected(open("/work/logs/app.log").read())


def test_random_logs():
    tmp_path = shared_dir()
    rng = random.Random()
    for i in range(6):
        text = log_text(rng, rng.randint(1, 400))
        path = tmp_path / f"app {i}.log"  # a space in the name
        path.write_text(text)
        assert run(path) == expected(text), text


def test_no_errors_prints_nothing():
    tmp_path = shared_dir()
    path = tmp_path / "quiet.log"
    path.write_text("2025-01-01T00:00:00Z INFO [auth] ERROR free\n")
    assert run(path) == ""
