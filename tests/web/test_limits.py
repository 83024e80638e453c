"""Server-level limits: one server per SQLite file, slowloris, stream caps."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from chukker.web.limits import StreamCaps


def test_a_second_serve_on_the_same_sqlite_file_refuses_pointing_to_postgresql(
        tmp_path: Path) -> None:
    db = tmp_path / "one.sqlite3"
    lock = open(str(db) + ".lock", "a+")  # noqa: SIM115 - what the first server holds
    import fcntl

    fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        env = {**os.environ}
        env.pop("CHUKKER_DATABASE_URL", None)
        r = subprocess.run([sys.executable, "-m", "chukker.web", "--db", str(db), "--no-demo",
                            "--port", "1"], capture_output=True, text=True, timeout=60, env=env)
        assert r.returncode == 2  # one line and exit 2, as every start-up failure
        assert "PostgreSQL" in r.stderr and "already served" in r.stderr
    finally:
        lock.close()


def test_organiser_token_is_printed_again_by_its_command(tmp_path: Path) -> None:
    db = tmp_path / "o.sqlite3"
    from chukker.store import open_store

    open_store(str(db)).close()  # issue 30: with no database there, the command refuses
    env = {k: v for k, v in os.environ.items() if k != "CHUKKER_ORGANISER_TOKEN"}
    run = [sys.executable, "-m", "chukker.cli", "organiser-token", "--db", str(db)]
    a = subprocess.run(run, capture_output=True, text=True, timeout=60, env=env)
    b = subprocess.run(run, capture_output=True, text=True, timeout=60, env=env)
    assert a.returncode == 0 and a.stdout.strip() and a.stdout == b.stdout
    assert (os.stat(str(db) + ".organiser-token").st_mode & 0o077) == 0


def test_spectator_streams_are_capped_per_address_and_in_total_with_a_reserve() -> None:
    caps = StreamCaps(total=10, per_address=4, reserved=2)
    assert [caps.acquire("nat", False) for _ in range(5)] == [True] * 4 + [False]
    assert all(caps.acquire(f"10.0.0.{i}", False) for i in range(4))
    assert caps.acquire("other", False) is False  # spectators' share is full
    assert caps.acquire("nat", True) and caps.acquire("nat", True)  # the reserve
    assert caps.acquire("nat", True) is False
    caps.release("nat")
    assert caps.acquire("x", True)


def test_slowloris_connection_is_closed_after_the_header_timeout(
        server_factory: Any, db_path: Path, monkeypatch: Any) -> None:
    import uvicorn

    from chukker.web import limits

    monkeypatch.setattr(limits, "HEADER_TIMEOUT_S", 0.3)
    srv = server_factory(db_path)
    srv.server = uvicorn.Server(uvicorn.Config(srv.app, log_level="warning", lifespan="on",
                                               **limits.uvicorn_options()))
    import threading

    srv.thread = threading.Thread(target=srv.server.run, kwargs={"sockets": [srv.sock]},
                                  daemon=True)
    with srv:
        s = socket.create_connection(("127.0.0.1", srv.port))
        s.sendall(b"GET /api/time HTTP/1.1\r\nHost: x\r\n")
        s.settimeout(5)
        t0 = time.monotonic()
        try:
            data = s.recv(100)
        except ConnectionResetError:
            data = b""
        assert data == b"" and time.monotonic() - t0 < 4  # closed, not answered
        s.close()
        assert httpx.get(srv.url + "/api/time").status_code == 200


def eventually(check: Any, seconds: float = 20.0) -> bool:
    """Poll ``check()`` until it holds or the deadline passes (no fixed sleeps)."""
    end = time.monotonic() + seconds
    while not check():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def test_a_closed_stream_gives_its_slot_back(live_server: Any, make_match: Any) -> None:
    caps = live_server.app.state.streams
    svc = live_server.app.state.service
    with live_server.client() as c:
        m = make_match(c)

        def held() -> bool:
            return caps.open == 1 and len(svc._matches[m.id].subscribers) == 1

        def free() -> bool:
            return caps.open == 0 and not svc._matches[m.id].subscribers

        with c.stream("GET", f"/api/matches/{m.id}/stream") as r:
            # keep the line iterator: a dropped one closes the connection (httpcore),
            # which made the slot go back before it was checked
            lines = r.iter_lines()
            assert next(lines).startswith("retry:")
            assert held()  # taken before the first byte was sent
            time.sleep(0.2)
            assert held()  # and kept while the stream is open
        assert eventually(free), (caps.open, len(svc._matches[m.id].subscribers))
        # released when the stream ended, not when the garbage collector got to it
        with c.stream("GET", f"/api/matches/{m.id}/stream") as r:
            lines = r.iter_lines()
            next(lines)
            assert held()
        assert eventually(free)



def test_streams_that_end_together_end_in_turns_and_each_gives_its_slot_back(
        live_server: Any, make_match: Any) -> None:
    """A crowd of viewers that goes at once (a venue's network drops): each connection is
    closed and each stream ended in its turn, ``FANOUT_SLICE`` per loop iteration (a horn
    falling due meanwhile waits one group, not the crowd: ``benchmarks/leave.py``),
    and every slot and subscription goes back."""
    from chukker.live import fanout

    caps = live_server.app.state.streams
    svc = live_server.app.state.service
    n = 3 * fanout.FANOUT_SLICE + 5
    with live_server.client() as c:
        m = make_match(c)
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", live_server.port))
        s.sendall(f"GET /api/matches/{m.id}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        socks.append(s)
    for s in socks:  # the head may come in one read and the first message in the next
        s.settimeout(10)
        got = b""
        while b"retry:" not in got:
            chunk = s.recv(65536)
            assert chunk, got
            got += chunk
    assert eventually(lambda: caps.open == n), caps.open
    for s in socks:
        s.close()
    assert eventually(lambda: caps.open == 0 and not svc._matches[m.id].subscribers), (
        caps.open, len(svc._matches[m.id].subscribers))
    assert eventually(lambda: not live_server.server.server_state.connections or all(
        p.transport.is_closing() for p in live_server.server.server_state.connections))


def test_over_the_cap_a_spectator_gets_503_with_retry_after(db_path: Path,
                                                            make_match: Any) -> None:
    from starlette.testclient import TestClient
    from tests.web.conftest import OPEN

    from chukker.web import create_app

    app = create_app(db_path, **OPEN, streams=StreamCaps(total=0, per_address=0, reserved=0))
    with TestClient(app) as client:
        m = make_match(client)
        r = client.get(f"/api/matches/{m.id}/stream")
    assert r.status_code == 503 and r.json()["code"] == "too_many_streams"
    assert r.headers["retry-after"] == "5"


def _stalled_stream(srv: Any, match_id: str) -> socket.socket:
    """A client that opens a live stream and never reads a byte of it."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", srv.port))
    s.sendall(f"GET /api/matches/{match_id}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return s


def _flood(srv: Any, match_id: str, messages: int, size: int) -> None:
    """Publish ``messages`` comments of ``size`` bytes to the match's streams."""
    svc = srv.app.state.service
    lm = svc._matches[match_id]
    blob = b": " + b"x" * size + b"\n\n"
    for _ in range(messages):
        srv._loop.call_soon_threadsafe(svc._enqueue, lm, blob)


def test_a_stream_that_stops_reading_gives_its_slot_back_once_far_behind(
        live_server: Any, make_match: Any, monkeypatch: Any) -> None:
    from chukker.live import fanout as live

    monkeypatch.setattr(live, "QUEUE_LIMIT", 16)
    caps = live_server.app.state.streams
    with live_server.client() as c:
        m = make_match(c)
    s = _stalled_stream(live_server, m.id)
    try:
        assert eventually(lambda: caps.open == 1)
        lm = live_server.app.state.service._matches[m.id]
        # 64 KB messages: the socket's buffers fill, the writes block, the queue fills
        for _ in range(40):
            _flood(live_server, m.id, 8, 64 * 1024)
            if eventually(lambda: caps.open == 0, 0.5):
                break
        assert eventually(lambda: caps.open == 0 and not lm.subscribers)
        # the others are not held up: a new stream gets its state at once
        with live_server.client() as c, c.stream("GET", f"/api/matches/{m.id}/stream") as r:
            lines = r.iter_lines()
            assert next(lines).startswith("retry:")
    finally:
        s.close()


def test_a_connection_whose_writes_stay_blocked_is_cut(
        server_factory: Any, db_path: Path, monkeypatch: Any, make_match: Any) -> None:
    import threading

    import uvicorn

    from chukker.web import limits

    monkeypatch.setattr(limits, "WRITE_STALL_S", 0.5)
    srv = server_factory(db_path)
    srv.server = uvicorn.Server(uvicorn.Config(srv.app, log_level="warning", lifespan="on",
                                               **limits.uvicorn_options()))
    srv.thread = threading.Thread(target=srv.server.run, kwargs={"sockets": [srv.sock]},
                                  daemon=True)
    with srv:
        caps = srv.app.state.streams
        with srv.client() as c:
            m = make_match(c)
        s = _stalled_stream(srv, m.id)
        try:
            assert eventually(lambda: caps.open == 1)
            _flood(srv, m.id, 40, 256 * 1024)  # 10 MB it will never read
            assert eventually(lambda: caps.open == 0)
            # the server cut the connection: what it reads ends (reset or end of stream)
            s.settimeout(10)
            got = 0
            try:
                while (chunk := s.recv(1 << 16)):
                    got += len(chunk)
            except ConnectionResetError:
                pass
            assert got < 10 * 1024 * 1024
        finally:
            s.close()
        assert httpx.get(srv.url + "/api/time").status_code == 200
