"""Hidden tests of /work/wordfreq: run as a program (never imported) on texts drawn here."""

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
import os
import random
import re
import subprocess

PROGRAM = "/work/wordfreq"


def expected(text, n):
    counts = collections.Counter(w.lower() for w in re.findall(r"[A-Za-z]+", text))
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
    return "".join(f"{c} {w}\n" for w, c in ranked)


def run(text, *args):
    proc = agent_run([PROGRAM, *args], input=text.encode(), capture_output=True, timeout=20, cwd="/tmp")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.decode()


def random_text(rng):
    words = ["apple", "Banana", "cherry", "date", "elder", "fig", "grape", "kiwi", "lime", "mango"]
    seps = [" ", "  ", ", ", ". ", "\n", "; ", " -- ", "'s ", "\t", "42 ", "_", "!? "]
    picks = [rng.choice(words[: rng.randint(3, len(words))]) for _ in range(rng.randint(20, 300))]
    cased = [w.upper() if rng.random() < 0.2 else w for w in picks]
    return "".join(w + rng.choice(seps) for w in cased)


def test_is_an_executable_file():
    assert os.path.isfile(PROGRAM) and os.access(PROGRAM, os.X_OK)


def test_top5_of_the_sample():
    with open("/work/sample.txt") as f:
        assert open("/work/top5.txt").read() == expected(f.read(), 5)


def test_random_texts_and_counts():
    rng = random.Random()
    for _ in range(6):
        text = random_text(rng)
        n = rng.randint(1, 8)
        assert run(text, str(n)) == expected(text, n), (text, n)


def test_default_is_ten():
    text = random_text(random.Random())
    assert run(text) == expected(text, 10)


def test_ties_and_no_words():
    assert run("b a c b a c\n", "3") == "2 a\n2 b\n2 c\n"
    assert run("123 ... !!!\n", "4") == ""
