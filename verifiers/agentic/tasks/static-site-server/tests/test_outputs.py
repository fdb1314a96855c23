"""Hidden tests: minihttpd started here with /work/minihttpd.ini, on loopback (no network)."""

import configparser
import os
import secrets
import subprocess
import time
import urllib.error
import urllib.request

import pytest

CONFIG = "/work/minihttpd.ini"


@pytest.fixture(scope="module")
def server():
    probe = secrets.token_hex(8)
    with open(f"/work/site/probe-{probe}.txt", "w") as f:  # a file the agent never saw
        f.write(probe)
    proc = subprocess.Popen(["python3", "/opt/minihttpd/server.py", CONFIG], cwd="/tmp",
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(100):
        try:
            urllib.request.urlopen("http://127.0.0.1:8080/", timeout=1).close()
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"minihttpd exited: {proc.stderr.read().decode()[-500:]}")
            time.sleep(0.1)
    yield probe
    proc.kill()


def get(path):
    return urllib.request.urlopen(f"http://127.0.0.1:8080{path}", timeout=5)


def test_config_listens_on_loopback_port_8080():
    config = configparser.ConfigParser(interpolation=None)
    assert config.read(CONFIG)
    assert config["server"].get("listen", "127.0.0.1") == "127.0.0.1"
    assert config["server"]["port"].strip() == "8080"
    assert os.path.realpath(config["server"]["root"]) == "/work/site"


def test_index_page(server):
    with get("/") as r:
        assert "hello from grpo" in r.read().decode()


def test_serves_the_site_folder(server):
    with get(f"/probe-{server}.txt") as r:
        assert r.read().decode() == server


def test_cache_control_header(server):
    with get("/") as r:
        assert r.headers.get("Cache-Control") == "no-store"
    with get(f"/probe-{server}.txt") as r:
        assert r.headers.get("Cache-Control") == "no-store"


def test_missing_file_is_404(server):
    with pytest.raises(urllib.error.HTTPError) as err:
        get("/no-such-file.html")
    assert err.value.code == 404
