"""DockerSandbox against hostile programs: each attack is contained and the pool stays healthy.

Every attack test first inspects the containers it may land on and asserts the lockdown;
payloads are bounded (cap + 64 MiB written, cap + 1 MiB printed, forks until the pids limit
or 10,000). The network is only ever tried from inside the network-less container.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from verifiers.sandbox import DockerSandbox, ExecResult, Job
from verifiers.sandbox._host.engines import remove_orphans
from verifiers.sandbox._host.pool import OUT_CAP

pytestmark = pytest.mark.docker

SECRET = "grpo-envs-test-secret-6f1e"


@pytest.fixture(scope="module")
def box() -> Iterator[DockerSandbox]:
    os.environ["GRPO_ENVS_TEST_SECRET"] = SECRET  # must never reach a job
    with DockerSandbox(size=2, timeout_s=5) as sandbox:
        yield sandbox


@pytest.fixture(scope="module")
def one() -> Iterator[DockerSandbox]:
    """A single container, so consecutive jobs are known to share it."""
    with DockerSandbox(size=1, timeout_s=5, recycle_after=10_000) as sandbox:
        yield sandbox


def assert_locked_down(sandbox: DockerSandbox) -> None:
    assert type(sandbox) is DockerSandbox, "attack tests run only against the real sandbox"
    containers = list(sandbox._all)
    assert containers
    for c in containers:
        attrs = c.client.api.inspect_container(c.id)
        host = attrs["HostConfig"]
        assert host["NetworkMode"] == "none"
        assert host["ReadonlyRootfs"] is True
        assert host["Memory"] > 0 and host["Memory"] == host["MemorySwap"]
        assert host["PidsLimit"] == sandbox.pids_limit
        assert host["LogConfig"]["Type"] == "none"
        assert host["NanoCpus"] == int(sandbox.cpus * 1e9)
        assert attrs["Mounts"] == [] and not host.get("Binds")
        assert sorted(host["CapAdd"]) == ["KILL", "SETGID", "SETUID"]
        assert host["CapDrop"] == ["ALL"]
        assert "no-new-privileges" in host["SecurityOpt"]
        assert set(host["Tmpfs"]) == {"/work", "/tester", "/tmp"}
        assert all("size=" in options for options in host["Tmpfs"].values())
        assert not any(SECRET in e for e in attrs["Config"]["Env"])


def healthy(sandbox: DockerSandbox) -> None:
    """The next job on the pool passes."""
    result = sandbox.run("print(sum(range(10)))")
    assert result.ok and result.stdout == "45\n", result


# -- basics ------------------------------------------------------------------------------------
def test_runs_as_main_with_stdin_and_files(box: DockerSandbox) -> None:
    code = "import helper, sys\nprint(__name__, helper.X, sys.stdin.read().upper())"
    r = box.run(code, stdin="abc", files={"helper.py": "X = 7\n"})
    assert r.ok and r.stdout == "__main__ 7 ABC\n"


def test_sys_exit_zero_after_printing_is_fine(box: DockerSandbox) -> None:
    r = box.run("print('done')\nimport sys\nsys.exit(0)")
    assert r.ok and r.stdout == "done\n"


def test_large_stdin_and_source_and_threads(box: DockerSandbox) -> None:
    data = "x" * 600_000
    source = (
        "import sys, threading\n"
        + "# pad\n" * 50_000
        + (
            "n = len(sys.stdin.read())\nts = [threading.Thread(target=lambda: None) for _ in range(8)]\n"
            "[t.start() for t in ts]; [t.join() for t in ts]\nprint(n)"
        )
    )
    r = box.run(source, stdin=data)
    assert r.ok and r.stdout == "600000\n"


def test_one_mebibyte_of_output_is_allowed(box: DockerSandbox) -> None:
    r = box.run("import sys\nsys.stdout.write('y' * (1 << 20))")
    assert r.ok and len(r.stdout) == 1 << 20 and not r.truncated


def test_512_mib_of_memory_is_available(box: DockerSandbox) -> None:
    r = box.run("x = bytearray(480 * 2**20)\nx[::4096] = b'1' * len(x[::4096])\nprint(len(x))")
    assert r.ok, r


def test_exit_status_and_stderr(box: DockerSandbox) -> None:
    r = box.run("raise ValueError('boom')")
    assert r.exit_code == 1 and "ValueError: boom" in r.stderr and not r.ok
    r = box.run("import sys\nsys.exit('bad input')")
    assert r.exit_code == 1 and "bad input" in r.stderr
    r = box.run("import sys\nsys.exit(7)")
    assert r.exit_code == 7


def test_interpreter_semantics_of_a_fresh_process(box: DockerSandbox) -> None:
    code = (
        "import atexit, random, threading, time\n"
        "atexit.register(lambda: print('atexit ran'))\n"
        "def late():\n    time.sleep(0.2)\n    print('thread joined')\n"
        "threading.Thread(target=late).start()\n"
        "print(__name__, random.random())\n"
    )
    first, second = box.run(code), box.run(code)
    for r in (first, second):
        assert r.ok, r
        lines = r.stdout.splitlines()
        assert lines[0].startswith("__main__ ") and lines[1:] == ["thread joined", "atexit ran"]
    assert first.stdout.split()[1] == second.stdout.split()[1]  # each job is seeded the same: no verdict by chance


def test_job_identity_and_environment(box: DockerSandbox) -> None:
    code = (
        "import os\nprint(os.getuid(), os.getgid(), os.getcwd())\n"
        "print(open('/proc/self/status').read().split('CapEff:')[1].split()[0])\n"
        "print(sorted(os.environ))"
    )
    r = box.run(code)
    ids, caps, env = r.stdout.splitlines()
    uid, gid, cwd = ids.split()
    assert int(uid) >= 100_000 and uid == gid and cwd == "/work"
    assert int(caps, 16) == 0  # no capabilities at all
    assert SECRET not in r.stdout
    assert eval(env) == sorted(  # our own test output, not model text
        ["HOME", "LANG", "PATH", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "PYTHONNOUSERSITE", "TMPDIR"]
    )


def test_usable_from_threads_and_asyncio(box: DockerSandbox) -> None:
    import asyncio

    async def main() -> list[str]:
        runs = [asyncio.to_thread(box.run, f"print({k})") for k in range(6)]
        return [r.stdout for r in await asyncio.gather(*runs)]

    assert asyncio.run(main()) == [f"{k}\n" for k in range(6)]


def test_run_many_keeps_order(box: DockerSandbox) -> None:
    results = box.run_many([Job(f"print({k} * {k})") for k in range(8)])
    assert [r.stdout for r in results] == [f"{k * k}\n" for k in range(8)]


# -- attacks -----------------------------------------------------------------------------------
@pytest.mark.serial  # the 1 s limit is the job's own time: beside busy processes its wall time grows (up to 8x)
def test_infinite_loop(box: DockerSandbox) -> None:
    assert_locked_down(box)
    start = time.monotonic()
    r = box.run("while True:\n    pass", timeout_s=1)
    assert r.timed_out and not r.ok and r.exit_code is None
    assert time.monotonic() - start < 5
    healthy(box)


def test_sleeping_past_the_limit(box: DockerSandbox) -> None:
    assert_locked_down(box)
    r = box.run("import time\nprint('before', flush=True)\ntime.sleep(60)", timeout_s=1)
    assert r.timed_out and r.stdout == "before\n"
    healthy(box)


def test_fork_bomb(box: DockerSandbox) -> None:
    assert_locked_down(box)
    bomb = (
        "import os, time\nn = 0\n"
        "for _ in range(10_000):\n"
        "    try:\n        os.fork()\n        n += 1\n    except OSError:\n        break\n"
        "time.sleep(30)"
    )
    r = box.run(bomb, timeout_s=2)
    assert not r.ok and (r.timed_out or r.exit_code != 0)
    healthy(box)


SPINNING_FORK_BOMB = (
    "import os\n"
    "while True:\n"
    "    try:\n"
    "        if os.fork() == 0:\n"
    "            while True:\n"
    "                pass\n"
    "    except OSError:\n"
    "        pass\n"
)
SLACK_S = 6  # a verdict within twice its limit plus this (the old clock took 8x: 17 s for 2 s, load ~5)
FORKED_MEMORY_BOMB = (
    "import os\nfor _ in range(6):\n    if os.fork() == 0:\n        break\n"
    "x = []\nwhile True:\n    x.append(bytearray(8 << 20))\n"
)


@pytest.mark.serial  # verdict times: beside busy processes the container gets less than its CPU quota
def test_a_spinning_fork_bomb_and_a_memory_bomb_get_their_verdicts_in_time(box: DockerSandbox) -> None:
    """The time limit counts the whole process tree: before, the first process's own clock
    barely moved while its children spun, and the verdict came at 8x the limit (49 s for 6 s)."""
    start = time.monotonic()
    r = box.run(SPINNING_FORK_BOMB, timeout_s=2)
    assert r.timed_out and time.monotonic() - start < 2 * 2 + SLACK_S, (time.monotonic() - start, r)
    start = time.monotonic()
    r = box.run(FORKED_MEMORY_BOMB, timeout_s=2, memory_mb=256)
    assert not r.ok and (r.oom_killed or "MemoryError" in r.stderr), r
    assert time.monotonic() - start < 2 * 2 + SLACK_S
    healthy(box)


def test_large_allocation(box: DockerSandbox) -> None:
    assert_locked_down(box)
    r = box.run("x = bytearray(3 * 2**30)\nprint('allocated')", timeout_s=10)
    assert not r.ok and "allocated" not in r.stdout
    assert r.oom_killed or "MemoryError" in r.stderr, r
    healthy(box)


def test_large_disk_write(box: DockerSandbox) -> None:
    assert_locked_down(box)
    code = (
        "chunk = b'0' * 2**20\n"
        "with open('big', 'wb') as f:\n"
        "    for _ in range(64 + 64):\n        f.write(chunk)\n"
        "print('wrote it all')"
    )
    r = box.run(code, timeout_s=10)
    assert not r.ok and "wrote it all" not in r.stdout
    assert "No space left" in r.stderr or "File too large" in r.stderr or r.exit_code != 0
    healthy(box)


def test_output_flood(box: DockerSandbox) -> None:
    assert_locked_down(box)
    r = box.run(f"import sys\nsys.stdout.write('z' * {OUT_CAP + 2**20})", timeout_s=10)
    assert r.truncated and not r.ok
    assert len(r.stdout) <= OUT_CAP + 1
    healthy(box)


def test_no_network_to_a_host_loopback_server(box: DockerSandbox) -> None:
    assert_locked_down(box)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(3)
    port = server.getsockname()[1]
    got: list[Any] = []

    def accept() -> None:
        try:
            got.append(server.accept())
        except OSError:
            pass

    listener = threading.Thread(target=accept)
    listener.start()
    code = (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
        "    print('connected')\n"
        "except OSError as e:\n    print('refused', type(e).__name__)\n"
        "import os\nprint(sorted(os.listdir('/sys/class/net')))"
    )
    r = box.run(code)
    listener.join()
    server.close()
    assert r.ok and "connected" not in r.stdout, r
    assert r.stdout.splitlines()[-1] == "['lo']"
    assert got == []  # nothing reached the host
    healthy(box)


def test_no_engine_socket(box: DockerSandbox) -> None:
    assert_locked_down(box)
    code = (
        "import os, socket\n"
        "for path in ('/var/run/docker.sock', '/run/docker.sock'):\n"
        "    print(path, os.path.exists(path))\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "try:\n    s.connect('/var/run/docker.sock')\n    print('connected')\n"
        "except OSError as e:\n    print('no', type(e).__name__)\n"
    )
    r = box.run(code)
    assert r.ok and "connected" not in r.stdout and "True" not in r.stdout, r
    healthy(box)


def test_no_peeking_at_the_supervisor_or_the_host_environment(box: DockerSandbox) -> None:
    assert_locked_down(box)
    code = (
        "import os\n"
        "for path in ('/proc/1/environ', '/proc/1/mem', '/proc/1/root/etc/shadow'):\n"
        "    try:\n        open(path, 'rb').read(10)\n        print('read', path)\n"
        "    except OSError as e:\n        print('denied', path)\n"
        "print(any('SECRET' in k for k in os.environ))"
    )
    r = box.run(code)
    assert r.ok and "read " not in r.stdout and SECRET not in r.stdout, r
    assert r.stdout.splitlines()[-1] == "False"
    healthy(box)


def test_read_only_root_and_no_privileges(box: DockerSandbox) -> None:
    assert_locked_down(box)
    code = (
        "import os\n"
        "for path in ('/etc/passwd', '/usr/lib/python3.11/os.py', '/evil'):\n"
        "    try:\n        open(path, 'a').write('x')\n        print('wrote', path)\n"
        "    except OSError:\n        print('denied')\n"
        "try:\n    os.setuid(0)\n    print('root')\nexcept PermissionError:\n    print('denied')\n"
    )
    r = box.run(code)
    assert r.ok and "wrote" not in r.stdout and "root" not in r.stdout, r
    healthy(box)


def test_double_forked_daemon_is_killed_and_nothing_is_left_behind(one: DockerSandbox) -> None:
    assert_locked_down(one)
    daemon = (
        "import os, sys, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(1)\n"
        "        open('/tmp/daemon-was-here', 'w').write('x')\n"
        "        time.sleep(60)\n"
        "    os._exit(0)\n"
        "open('/work/left', 'w').write('x'); open('/tmp/left', 'w').write('x')\n"
        "open('/dev/shm/left', 'w').write('x')\n"
        "site = os.path.expanduser('~/.local/lib/python3.11/site-packages')\n"
        "os.makedirs(site, exist_ok=True)\n"
        "open(site + '/evil.pth', 'w').write(\"import sys; print('HOOK', file=sys.stderr)\\n\")\n"
        "print('parent done')\n"
    )
    r = one.run(daemon)
    assert r.ok and r.stdout == "parent done\n", r
    time.sleep(1.5)
    probe = (
        "import os\n"
        "mine = [p for p in os.listdir('/proc') if p.isdigit() and p != str(os.getpid())\n"
        "        and os.stat('/proc/' + p).st_uid == os.getuid()]\n"
        "print('others', mine)\n"
        "for path in ('/work/left', '/tmp/left', '/dev/shm/left', '/tmp/daemon-was-here',\n"
        "             os.path.expanduser('~/.local')):\n"
        "    print(path, os.path.exists(path))\n"
    )
    r = one.run(probe)
    assert r.ok and "HOOK" not in r.stderr, r
    assert "others []" in r.stdout
    assert "True" not in r.stdout, r.stdout


def test_a_timeout_recycles_the_container(one: DockerSandbox) -> None:
    before = {c.id for c in one._all}
    assert one.run("while True: pass", timeout_s=0.5).timed_out
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and {c.id for c in one._all} & before:
        time.sleep(0.1)
    assert not ({c.id for c in one._all} & before)  # replaced by a fresh container
    healthy(one)


# -- engine trouble ------------------------------------------------------------------------------
def test_a_container_killed_under_a_job_is_retried_on_a_fresh_one(one: DockerSandbox) -> None:
    victim = next(iter(one._all))
    victim.container.kill()
    r = one.run("print('survived')")
    assert r.ok and r.stdout == "survived\n", r
    assert victim not in one._all


def test_orphans_of_a_dead_process_are_removed(box: DockerSandbox) -> None:
    from verifiers.sandbox._host.container import LABEL, OWNER_LABEL

    client = next(iter(box._all)).client
    orphan = client.containers.create(
        box.image,
        command=["true"],
        labels={LABEL: "test", OWNER_LABEL: f"{socket.gethostname()}:1999999"},
        network_mode="none",
    )
    assert remove_orphans(client) >= 1
    assert orphan.id not in {c.id for c in client.containers.list(all=True, sparse=True)}
    assert all(c.id in {x.id for x in client.containers.list(sparse=True)} for c in box._all)  # ours live


def test_exec_result_without_engine_is_an_error_not_an_exception() -> None:
    r = ExecResult(error="engine down")
    assert not r.ok
