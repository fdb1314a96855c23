"""Hidden tests of /work/ini2env.py: run as a program on INI files written here."""

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


import configparser
import random
import re
import subprocess


def expected(path):
    config = configparser.ConfigParser(interpolation=None)
    config.read(path)
    out = {}
    for section in config.sections():
        for key, value in config[section].items():
            name = re.sub(r"[^A-Z0-9]", "_", f"{section}_{key}".upper())
            escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
            out[name] = f'{name}="{escaped}"'
    return "".join(line + "\n" for _, line in sorted(out.items()))


def sourced(env_text, names):
    """What bash makes of the lines: each variable's value."""
    script = env_text + "".join(f'printf "%s\\0" "${n}"\n' for n in names)
    proc = agent_run(["bash", "-c", script], capture_output=True, timeout=20, cwd="/tmp")
    return proc.stdout.decode().split("\0")[:-1]


def random_ini(rng):
    chars = "abcXYZ019 -_.$\\\"'`!@#%&*()[]{}=;:,<>?/"
    lines = []
    for s in range(rng.randint(1, 4)):
        lines.append(f"[{rng.choice(['db', 'web.front', 'a-b', 'Mixed'])}{s}]")
        for k in range(rng.randint(1, 5)):
            value = "".join(rng.choice(chars) for _ in range(rng.randint(1, 20))).strip() or "v"
            lines.append(f"{rng.choice(['key', 'some-key', 'k.x', 'Up'])}{k} = {value}")
    return "\n".join(lines) + "\n"


def run(path):
    proc = agent_run(["python3", "/work/ini2env.py", str(path)], capture_output=True, text=True, timeout=20, cwd="/tmp")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_app_env():
    assert open("/work/app.env").read() == expected("/work/app.ini")


def test_random_files():
    tmp_path = shared_dir()
    rng = random.Random()
    for i in range(10):
        path = tmp_path / f"{i}.ini"
        path.write_text(random_ini(rng))
        out = run(path)
        assert out == expected(path), path.read_text()
        config = configparser.ConfigParser(interpolation=None)
        config.read(path)
        pairs = [(re.sub(r"[^A-Z0-9]", "_", f"{s}_{k}".upper()), v) for s in config.sections() for k, v in config[s].items()]
        names = sorted(dict(pairs))
        assert sourced(out, names) == [dict(pairs)[n] for n in names], "bash reads other values"
