"""`Session`: one locked-down container per episode whose state persists between commands.

One module-wide session carries the state tests; each test that ends a session (close, the
owner killed, root) starts its own. The network is never tried: the lockdown is read from the
engine, as tests/verifiers/test_sandbox.py does for jobs.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator

import docker.errors
import pytest

from verifiers.errors import SandboxError
from verifiers.sandbox import Session, SessionPool, image_tag
from verifiers.sandbox._host.container import LABEL

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def session() -> Iterator[Session]:
    with Session(timeout_s=10, file_cap=1 << 20, out_cap=1 << 16) as s:
        yield s


def gone(s: Session, within_s: float = 20.0) -> bool:
    """True once the engine no longer knows the session's container."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            s.container.client.containers.get(s.id)
        except docker.errors.NotFound:
            return True
        time.sleep(0.2)
    return False


def test_the_container_is_locked_down(session: Session) -> None:
    attrs = session.container.client.api.inspect_container(session.id)
    host = attrs["HostConfig"]
    assert host["NetworkMode"] == "none" and host["ReadonlyRootfs"] is True
    assert host["CapDrop"] == ["ALL"] and "no-new-privileges" in host["SecurityOpt"]
    assert host["Memory"] > 0 and host["Memory"] == host["MemorySwap"] and host["PidsLimit"] == 128
    assert set(host["Tmpfs"]) == {"/work", "/tmp"} and all("size=" in o for o in host["Tmpfs"].values())
    assert attrs["Mounts"] == [] and not host.get("Binds")
    r = session.exec("id -u; grep CapEff /proc/self/status; touch /etc/x 2>&1; echo $?")
    uid, caps, _, status = r.stdout.splitlines()
    assert int(uid) >= 100_000 and caps.split()[1] == "0000000000000000" and status == "1", r


def test_state_persists_across_commands(session: Session) -> None:
    assert session.exec("mkdir -p /tmp/proj && cd /tmp/proj && export GREETING='hi there'").ok
    assert session.exec('echo "$GREETING" > note && X=local').ok
    site = "$HOME/.local/lib/python3.11/site-packages"
    assert session.exec(f"mkdir -p {site} && echo 'VALUE = 42' > {site}/mypkg.py").ok  # an installed package
    r = session.exec("pwd; cat note; echo \"[$X]\"; python3 -c 'import mypkg; print(mypkg.VALUE)'")
    assert r.ok and r.stdout == "/tmp/proj\nhi there\n[]\n42\n", r  # exports persist, shell variables do not
    assert session.exec("unset GREETING; exit 7").exit_code == 7
    assert session.exec('echo "[$GREETING]"; pwd').stdout == "[]\n/tmp/proj\n"
    assert session.exec("unset LANG").ok  # a variable of the start environment stays unset too
    assert session.exec('echo "[${LANG-unset}]"').stdout == "[unset]\n"
    assert session.exec("export LANG=C.UTF-8").ok
    assert session.exec("cd /work").ok


def test_files_bytes_and_text_size_capped(session: Session) -> None:
    blob = bytes(range(256)) * 16
    session.write_file("data/blob.bin", blob)
    session.write_file("/tmp/t.txt", "héllo\n")
    assert session.read_bytes("/work/data/blob.bin") == blob
    assert session.exec("wc -c < data/blob.bin; cat /tmp/t.txt").stdout == "4096\nhéllo\n"
    session.exec("printf 'made by a command' > made.txt")
    assert session.read_text("made.txt") == "made by a command"
    with pytest.raises(SandboxError, match="file cap"):
        session.write_file("big", b"x" * ((1 << 20) + 1))
    r = session.exec("head -c 100000000 /dev/zero > /work/100mb && stat -c %s /work/100mb && rm /work/100mb")
    assert r.ok and r.stdout == "100000000\n", r  # over a job's 64 MiB file cap, within /work's 256 MiB
    session.exec("head -c 1100000 /dev/zero > big_out")
    with pytest.raises(SandboxError, match="larger than the read cap"):
        session.read_bytes("big_out")
    with pytest.raises(SandboxError, match="No such file"):
        session.read_bytes("missing")
    with pytest.raises(SandboxError, match="Read-only"):
        session.write_file("/etc/evil", "x")
    assert session.exec("mkfifo /tmp/fifo && ln -s /dev/stdin /tmp/stdin").ok  # would block a reader forever
    for path in ("/tmp/fifo", "/tmp/stdin"):
        with pytest.raises(SandboxError, match="not a regular file"):
            session.read_bytes(path)
    with pytest.raises(SandboxError, match="No such device|not a regular file"):  # a FIFO nobody reads
        session.write_file("/tmp/fifo", "x")
    assert session.read_text("made.txt") == "made by a command"  # the session is fine


def test_output_is_capped_and_stdin_is_passed(session: Session) -> None:
    r = session.exec("head -c 200000 /dev/zero | tr '\\0' a")
    assert r.truncated and not r.ok and len(r.stdout) == (1 << 16) + 1
    assert session.exec("tr a-z A-Z", stdin="shout\n").stdout == "SHOUT\n"


def test_a_command_may_run_as_many_processes_as_the_container_holds(session: Session) -> None:
    r = session.exec("for i in $(seq 90); do sleep 30 & done; jobs -p | wc -l; kill $(jobs -p)")
    assert r.ok and r.stdout == "90\n" and "fork" not in r.stderr, r  # a job's processes stop at 64


def test_a_hung_command_is_killed_at_its_timeout_and_the_session_goes_on(session: Session) -> None:
    assert session.exec("nohup sleep 300 >/dev/null 2>&1 & echo $! > /tmp/bg.pid").ok
    start = time.monotonic()
    r = session.exec("echo before; sleep 300", timeout_s=1)
    assert r.timed_out and r.exit_code is None and r.stdout == "before\n", r
    assert time.monotonic() - start < 5
    again = session.exec(
        "echo alive; kill -0 $(cat /tmp/bg.pid) && echo background-lives; cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^sleep$'"
    )
    assert again.stdout == "alive\nbackground-lives\n1\n", again  # only the hung command's processes died


@pytest.mark.serial  # verdict times: beside busy processes the container gets less than its CPU quota
def test_a_fork_bomb_and_a_memory_bomb_get_their_verdicts_in_time(session: Session) -> None:
    from tests.verifiers.test_sandbox import FORKED_MEMORY_BOMB, SLACK_S, SPINNING_FORK_BOMB

    session.write_file("/tmp/fork.py", SPINNING_FORK_BOMB)
    session.write_file("/tmp/mem.py", FORKED_MEMORY_BOMB)
    start = time.monotonic()
    r = session.exec("python3 /tmp/fork.py", timeout_s=2)
    assert r.timed_out and time.monotonic() - start < 2 * 2 + SLACK_S, (time.monotonic() - start, r)
    start = time.monotonic()
    r = session.exec("python3 /tmp/mem.py", timeout_s=2)
    assert r.oom_killed and not r.ok and time.monotonic() - start < 2 * 2 + SLACK_S, r
    assert session.exec("echo usable").stdout == "usable\n"


def test_close_kills_what_was_left_running_and_removes_the_container() -> None:
    s = Session()
    assert s.exec("nohup sleep 1000 >/dev/null 2>&1 &").ok
    s.close()
    assert gone(s, within_s=5)
    assert s.exec("true").error == "the session is closed"
    s.close()  # idempotent


def test_a_session_whose_container_died_says_so_and_stays_failed() -> None:
    with Session() as s:
        s.container.container.kill()
        first, second = s.exec("echo hi"), s.exec("echo hi")
        assert first.error and "container is gone" in first.error and not first.ok
        assert second.error == first.error
        with pytest.raises(SandboxError, match="container is gone"):
            s.read_bytes("x")
    assert gone(s, within_s=10)


OWNER = """
import sys, time
from verifiers.sandbox import Session, SessionPool, image_tag
s = Session()
s.exec("nohup sleep 1000 >/dev/null 2>&1 &")
print(s.id, flush=True)
time.sleep(600)
"""


def test_a_session_whose_owner_is_killed_leaves_no_container(session: Session) -> None:
    owner = subprocess.Popen([sys.executable, "-c", OWNER], stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        container_id = owner.stdout.readline().strip()
        assert container_id
    finally:
        owner.kill()  # SIGKILL: no atexit, no close()
        owner.wait()
        if owner.stdout is not None:
            owner.stdout.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            session.container.client.containers.get(container_id)
        except docker.errors.NotFound:
            break
        time.sleep(0.2)
    else:
        pytest.fail(f"container {container_id[:12]} outlived its owner")


def test_root_is_uid_0_without_capabilities() -> None:
    with Session(root=True) as s:
        r = s.exec(
            "id -u; grep -E 'Cap(Eff|Prm)' /proc/self/status | cut -f2; touch /usr/x 2>&1; "
            "chown 1000 /tmp; echo chown=$?; echo ok > /work/f; ls -ln /work/f | cut -d' ' -f3"
        )
        lines = r.stdout.splitlines()
        assert lines[:3] == ["0", "0000000000000000", "0000000000000000"], r
        assert "Read-only file system" in lines[3] and "chown=1" in lines and lines[-1] == "0", r
        assert s.read_text("/work/f") == "ok\n"


def test_a_warm_pool_hands_out_fresh_sessions_at_once_and_shrinks_when_idle() -> None:
    with SessionPool(size=3, idle_s=2.0, timeout_s=5) as pool:
        pool.warm()
        warm = set(pool.waiting())
        assert len(warm) == 3
        sessions = [pool.session() for _ in range(3)]  # a group of G sessions of one task
        try:
            assert {s.id for s in sessions} == warm
            assert sessions[0].exec("echo mine > /work/f").ok
            r = sessions[1].exec("ls /work; echo $HOME")
            assert r.ok and r.stdout == "/work\n", r  # nothing of another session's state
        finally:
            for s in sessions:
                s.close()
        deadline = time.monotonic() + 20
        while pool.idle() < 3 and time.monotonic() < deadline:  # refilled in the background
            time.sleep(0.1)
        refilled = pool.waiting()
        assert len(refilled) == 3 and not set(refilled) & warm
        deadline = time.monotonic() + 20
        while pool.idle() and time.monotonic() < deadline:  # unused for idle_s: removed
            time.sleep(0.2)
        assert pool.idle() == 0
        with pytest.raises(SandboxError, match="no-such-image:1 is missing"):
            pool.session("no-such-image:1")
        client = sessions[0].container.client
        deadline = time.monotonic() + 10
        while client.containers.list(all=True, sparse=True, filters={"label": f"{LABEL}={pool.pool_id}"}):
            assert time.monotonic() < deadline, "the pool's containers outlived it"  # removal may be in progress
            time.sleep(0.2)


def test_prune_images_removes_only_unused_task_images(session: Session, capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import uuid

    from verifiers._cli import sandbox_main
    from verifiers.sandbox import TASK_IMAGE_LABEL, prune_images

    client = session.container.client
    run = uuid.uuid4().hex[:8]
    tags = [f"grpo-envs-test-task-{run}:{k}" for k in ("unused", "used")]
    for tag in tags:  # metadata only, on top of the sandbox image: about a second each
        dockerfile = f"FROM {image_tag()}\nLABEL {TASK_IMAGE_LABEL}={tag}\n".encode()
        client.images.build(fileobj=io.BytesIO(dockerfile), tag=tag, rm=True)
    holder = client.containers.create(tags[0], ["true"], network_mode="none", labels={LABEL: "test-prune"})
    pool = SessionPool(size=1)
    try:
        pool.warm(tags[1])  # another image gets its own warm set, and a warm container uses its image
        assert pool.idle(tags[1]) == 1 and pool.idle() == 0
        with pool.session(tags[1]) as s:
            assert s.container.container.attrs["Config"]["Image"] == tags[1] and s.exec("echo ok").stdout == "ok\n"
        assert not set(tags) & set(prune_images(client, dry_run=True))  # both are in use
        holder.remove(force=True)
        pool.warm(tags[1])  # its replacement is up (it was being started in the background)
        assert sandbox_main(["prune-images", "--dry-run"]) == 0
        listed = capsys.readouterr().out.split()
        assert tags[0] in listed and tags[1] not in listed and image_tag() not in listed
        assert all(client.images.get(tag) for tag in tags)  # a dry run removes nothing
        removed = prune_images(client)
        assert tags[0] in removed and tags[1] not in removed and image_tag() not in removed  # the pool's stays
        with pytest.raises(docker.errors.ImageNotFound):
            client.images.get(tags[0])
        assert client.images.get(tags[1]) and client.images.get(image_tag())
    finally:
        pool.close()
        try:
            holder.remove(force=True)
        except docker.errors.NotFound:
            pass
        for tag in tags:
            try:
                client.images.remove(tag, force=True)
            except docker.errors.NotFound:  # removed by the test, or never built
                pass
