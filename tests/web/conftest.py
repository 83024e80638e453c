"""Fixtures for the live service: an app on a fresh SQLite file, a real uvicorn server,
an SSE reader, and the stock match header."""

from __future__ import annotations

import copy
import json
import os
import queue
import socket
import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from chukker.store import EventStore, StoredEvent, open_store
from chukker.web import create_app
from chukker.web.demo import DEMO_HEADER


@pytest.fixture
def header() -> dict[str, Any]:
    return copy.deepcopy(DEMO_HEADER)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "live.sqlite3"


#: the organiser token of the test servers
ORGANISER = "test-organiser-token"
ORGANISER_AUTH = {"authorization": "Bearer " + ORGANISER}
#: the test servers run open (as the demo does), generously rate-limited
OPEN = {"organiser": ORGANISER, "open_mode": True, "open_rate": (1000.0, 1000.0)}


@pytest.fixture
def client(db_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db_path, **OPEN)) as c:
        yield c


@pytest.fixture
def closed_client(db_path: Path) -> Iterator[TestClient]:
    """A server that is not open: creating matches needs the organiser token."""
    with TestClient(create_app(db_path, organiser=ORGANISER)) as c:
        yield c


class Match:
    """A created match and the headers that carry its secrets."""

    def __init__(self, body: dict[str, Any]) -> None:
        self.id: str = body["match_id"]
        self.tk = {"authorization": "Bearer " + body["timekeeper_token"]}
        self.cm = {"authorization": "Bearer " + body["committee_token"]}
        self.body = body


def new_cmd() -> str:
    return uuid.uuid4().hex


def post_event(c: Any, m: Match, event: dict[str, Any], auth: dict[str, str] | None = None,
               command_id: str | None = None) -> httpx.Response:
    r: httpx.Response = c.post(f"/api/matches/{m.id}/events", headers=auth or m.tk,
                               json={"command_id": command_id or new_cmd(), "event": event})
    return r


@pytest.fixture
def make_match(header: dict[str, Any]) -> Any:
    def make(c: Any, **changes: Any) -> Match:
        h = copy.deepcopy(header)
        for k, v in changes.items():
            if k == "options":
                h["options"].update(v)
            else:
                h[k] = v
        r = c.post("/api/matches", json=h, headers=ORGANISER_AUTH)
        assert r.status_code == 201, r.text
        return Match(r.json())
    return make


class LiveServer:
    """``create_app`` on uvicorn in a thread, on a free loopback port.

    ``options``: ``create_app``'s (:data:`OPEN` when none); ``at_url``: more of them, made
    from the server's own URL (its socket is bound first), e.g. its public address."""

    def __init__(self, store: EventStore | Path | str, *,
                 at_url: Callable[[str], dict[str, Any]] | None = None,
                 **options: Any) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        options = dict(options or OPEN)
        if at_url is not None:
            options.update(at_url(self.url))
        self.app = create_app(store, **options)
        from chukker.web.limits import uvicorn_options

        # the protocol ``chukker serve`` runs (limits and the streams' fast path)
        cfg = uvicorn.Config(self.app, log_level="warning", timeout_graceful_shutdown=1,
                             lifespan="on", **uvicorn_options())
        self.server = uvicorn.Server(cfg)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        self._loop = None
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        self._loop = self.app.state.service.loop
        return self

    def __exit__(self, *exc: object) -> None:
        loop = self._loop
        if loop is not None:
            loop.call_soon_threadsafe(self.app.state.service.close_streams)
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()

    def client(self) -> httpx.Client:
        # a page drawn in a worker process waits for the pool to start on a loaded machine
        return httpx.Client(base_url=self.url, timeout=httpx.Timeout(10, read=60))


@pytest.fixture
def live_server(db_path: Path) -> Iterator[LiveServer]:
    with LiveServer(db_path) as s:
        yield s


@pytest.fixture
def server_factory() -> Any:
    return LiveServer


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 as live.js applies it: a null member is kept as null, and
    ``{"$append": [...]}`` extends an array (``chukker.live.fanout.apply_patch``)."""
    from chukker.live.fanout import apply_patch

    return apply_patch(target, patch)


class SSE:
    """Reads a match's stream in a thread; ``next(kind)`` waits for the next message.

    Like a browser, it keeps the report: the ``state`` message's, with each
    ``patch`` applied; an ``event`` or ``horn`` message is handed out with the
    report its patch produced (``data["report"]``).
    """

    def __init__(self, base: str, match_id: str, last_event_id: int | None = None) -> None:
        self.url = f"{base}/api/matches/{match_id}/stream"
        self.headers = {} if last_event_id is None else {"last-event-id": str(last_event_id)}
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.report: Any = None
        self._stop = threading.Event()
        self._client = httpx.Client(timeout=httpx.Timeout(10, read=30))
        self._opened = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        if not self._opened.wait(10):
            raise RuntimeError("stream did not open")

    def _run(self) -> None:
        try:
            with self._client.stream("GET", self.url, headers=self.headers) as r:
                self._opened.set()
                msg: dict[str, Any] = {}
                held: list[dict[str, Any]] = []
                for line in r.iter_lines():
                    if self._stop.is_set():
                        return
                    if not line:
                        if "data" in msg:
                            msg["data"] = json.loads(msg["data"])
                            kind = msg.get("event")
                            if kind in ("event", "horn"):
                                held.append(msg)
                            else:
                                if kind == "state":
                                    self.report = msg["data"]["report"]
                                elif kind == "patch":
                                    self.report = merge_patch(self.report, msg["data"]["patch"])
                                for h in held:
                                    h["data"].setdefault("report", copy.deepcopy(self.report))
                                    self.messages.put(h)
                                held = []
                                self.messages.put(msg)
                        msg = {}
                    elif line.startswith(":"):
                        continue
                    else:
                        k, _, v = line.partition(":")
                        msg[k] = v[1:] if v.startswith(" ") else v
        except Exception:  # noqa: BLE001 - closed by the test
            self._opened.set()

    def next(self, kind: str | None = None, timeout: float = 15.0) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {kind or 'message'} within {timeout} s")
            m = self.messages.get(timeout=left)
            if kind is None or m.get("event") == kind:
                return m

    def close(self) -> None:
        self._stop.set()
        self._client.close()


@pytest.fixture
def sse() -> Iterator[Any]:
    opened: list[SSE] = []

    def open_(base: str, match_id: str, last_event_id: int | None = None) -> SSE:
        s = SSE(base, match_id, last_event_id)
        opened.append(s)
        return s

    yield open_
    for s in opened:
        s.close()


def backdated_match(store: EventStore, header: dict[str, Any], ago_ms: int) -> str:
    """A match whose first period started ``ago_ms`` ago (bowl-in at record time 0).

    Lets a test reach a horn without waiting 7:30: the period ends
    ``450_000 - ago_ms`` ms from now.
    """
    from chukker.live import Clock, hash_token, new_match_id

    now = Clock().now_ms()
    mid = new_match_id()
    store.create_match(mid, header, now - ago_ms, hash_token("tk-" + mid), hash_token("cm-" + mid))
    store.append(mid, StoredEvent(1, "bowl", {"type": "bowl_in", "at": 0.0}, now - ago_ms,
                                  "timekeeper"), now - ago_ms)
    return mid


@pytest.fixture
def backdate() -> Any:
    return backdated_match


def chromium_or_skip() -> str:
    path = "/usr/bin/chromium"
    if not os.path.exists(path):
        if os.environ.get("CHUKKER_REQUIRE_BROWSER") == "1":
            pytest.fail("CHUKKER_REQUIRE_BROWSER=1 but /usr/bin/chromium is missing")
        pytest.skip("browser tests need Debian's chromium at /usr/bin/chromium")
    return path


@pytest.fixture
def store_at(db_path: Path) -> Iterator[EventStore]:
    s = open_store(db_path)
    yield s
    s.close()


@pytest.fixture
def post() -> Any:
    return post_event
