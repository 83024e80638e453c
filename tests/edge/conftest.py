"""NATS JetStream for the edge's tests: a ``nats-server -js`` of their own on a free
port, its store in a temporary folder (so that a test can stop and restart it).
Skips with its reason where Debian's ``nats-server`` is missing; fails under
``CHUKKER_REQUIRE_NATS=1``."""

from __future__ import annotations

import copy
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from tests import ports

from chukker.config import NatsSettings, Settings
from chukker.web.demo import DEMO_HEADER

HOST = "127.0.0.1"
ORGANISER = "test-organiser-token"
ORGANISER_AUTH = {"authorization": "Bearer " + ORGANISER}
#: the officials' and the edges' shared secret (nats.signing_key)
SIGNING_KEY = "test-signing-key-0123456789abcdefghij"


def free_port() -> int:
    return ports.free_port(2, HOST)


def listening(port: int, timeout: float = 0.2) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=timeout):
            return True
    except OSError:
        return False


def wait_for(check: Any, what: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def nats_binary() -> str:
    found = shutil.which("nats-server") or (
        "/usr/sbin/nats-server" if os.path.exists("/usr/sbin/nats-server") else None)
    if found is None:
        reason = "the edge's tests need Debian's nats-server (apt-get install nats-server)"
        if os.environ.get("CHUKKER_REQUIRE_NATS") == "1":
            pytest.fail(f"CHUKKER_REQUIRE_NATS=1 but {reason}")
        pytest.skip(reason)
    return found


class NatsServer:
    """``nats-server -js`` on a free port; :meth:`stop` and :meth:`start` keep its store."""

    def __init__(self) -> None:
        self.binary = nats_binary()
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="chukker-nats-")
        self.url = f"nats://{HOST}:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [self.binary, "-a", HOST, "-p", str(self.port), "-js", "-sd", self.dir],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: listening(self.port), "nats-server to listen")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)  # an outage, not a farewell
            self.proc.wait(10)
            self.proc = None
        wait_for(lambda: not listening(self.port), "nats-server to go")

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module")
def nats_server() -> Iterator[NatsServer]:
    s = NatsServer()
    s.start()
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def nats_settings(nats_server: NatsServer) -> NatsSettings:
    """A stream and subject prefix of this test alone."""
    tag = uuid.uuid4().hex[:8]
    return NatsSettings(url=nats_server.url, stream=f"T{tag}", prefix=f"t{tag}",
                        officials_url="http://officials.example:8001", signing_key=SIGNING_KEY)


class Server:
    """An app on uvicorn in a thread, on a free loopback port."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((HOST, 0))
        self.url = f"http://{HOST}:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                                    timeout_graceful_shutdown=1))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        wait_for(lambda: self.server.started or not self.thread.is_alive(), "uvicorn")
        assert self.server.started
        return self

    def __exit__(self, *exc: object) -> None:
        loop = self.app.state.service.loop
        if loop is not None:
            loop.call_soon_threadsafe(self.app.state.service.close_streams)
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=httpx.Timeout(10, read=30))


def officials(tmp_path: Path, nats: NatsSettings) -> Server:
    from chukker.web.app import create_app

    settings = Settings(nats=nats)
    return Server(create_app(tmp_path / "officials.sqlite3", organiser=ORGANISER,
                             settings=settings))


def edge_app(tmp_path: Path, nats: NatsSettings, name: str = "edge") -> Server:
    from chukker.web.edge import create_edge_app

    return Server(create_edge_app(Settings(nats=nats), tmp_path / f"{name}.sqlite3"))


class Match:
    def __init__(self, c: httpx.Client) -> None:
        r = c.post("/api/matches", json=copy.deepcopy(DEMO_HEADER), headers=ORGANISER_AUTH)
        assert r.status_code == 201, r.text
        body = r.json()
        self.id: str = body["match_id"]
        self.tk = {"authorization": "Bearer " + body["timekeeper_token"]}

    def post(self, c: httpx.Client, event: dict[str, Any]) -> httpx.Response:
        return c.post(f"/api/matches/{self.id}/events", headers=self.tk,
                      json={"command_id": uuid.uuid4().hex, "event": event})


def edge_process(nats: NatsSettings, replica: Path, port: int) -> subprocess.Popen[bytes]:
    """``chukker edge`` as the operator starts it."""
    env = {**os.environ, "CHUKKER_NATS_URL": nats.url or "", "CHUKKER_NATS_STREAM": nats.stream,
           "CHUKKER_NATS_PREFIX": nats.prefix,
           "CHUKKER_NATS_OFFICIALS_URL": nats.officials_url or "",
           "CHUKKER_NATS_SIGNING_KEY": nats.signing_key or "",
           "CHUKKER_LOG_FORMAT": "text"}
    return subprocess.Popen([sys.executable, "-m", "chukker.cli", "edge", "--port", str(port),
                             "--replica", str(replica)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
