"""engine_client: a clear EngineUnavailableError, never a leaked socket or a raw SDK error."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from verifiers import EngineUnavailableError
from verifiers.sandbox import engine_client


def test_missing_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent.sock")
    with pytest.raises(EngineUnavailableError) as info:
        engine_client(timeout_s=2)
    message = str(info.value)
    assert "No Docker engine answers at unix:///nonexistent.sock" in message
    assert "socket /nonexistent.sock does not exist" in message
    assert "DOCKER_HOST is set to 'unix:///nonexistent.sock'" in message
    assert "grpo-envs doctor" in message


def test_stale_socket_with_no_engine_behind_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "stale.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stale:
        stale.bind(str(path))  # bound but never listening: connections are refused
        monkeypatch.setenv("DOCKER_HOST", f"unix://{path}")
        with pytest.raises(EngineUnavailableError, match="refuses connections"):
            engine_client(timeout_s=2)


def test_something_else_listening_is_not_an_engine(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "mute.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as mute:
        mute.bind(str(path))
        mute.listen(1)  # accepts, never answers: the SDK times out
        monkeypatch.setenv("DOCKER_HOST", f"unix://{path}")
        with pytest.raises(EngineUnavailableError, match="No Docker engine answers"):
            engine_client(timeout_s=1)


@pytest.mark.docker
def test_real_engine_negotiates_an_api_version() -> None:
    client = engine_client()
    try:
        assert client.ping() is True
        major, minor = map(int, client.api.api_version.split("."))
        assert (major, minor) >= (1, 24)
    finally:
        client.close()
