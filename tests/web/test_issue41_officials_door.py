"""Issue 41: the officials' door sealed, and bounded request heads on every plane.

The guard's four questions: who may call the officials' port (anyone, within a
per-address cap of connections and requests, the ``307`` included; a proven token
always), how big a request's head may be (16 KB, answered 431 before it is parsed),
no server path from the client (the caps key on the peer, or a trusted proxy's
forwarded client), and a key press is never behind a crowd (the timekeeper's POST
passes while the crowd's address is refused)."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests import ports

from chukker.config import LimitSettings, Settings
from chukker.web.gate import AddressGate, Proof, proof_of
from chukker.web.limits import MAX_HEAD_BYTES
from chukker.web.planes import Plane

ROOT = Path(__file__).resolve().parents[2]


def ask(port: int, data: bytes, host: str = "127.0.0.1", seconds: float = 10) -> bytes:
    """Send ``data`` on a new connection; everything answered until it closes."""
    s = socket.create_connection((host, port), timeout=seconds)
    try:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            s.sendall(data)
        got = b""
        while True:
            try:
                part = s.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not part:
                break
            got += part
        return got
    finally:
        s.close()


def big_head(size: int, path: str = "/api/time") -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: x\r\nX-Big: ".encode() + b"a" * size
            + b"\r\nConnection: close\r\n\r\n")


# ------------------------------------------------------------------ bounded heads
def test_a_head_over_16_kb_is_answered_431_before_it_is_parsed(live_server: Any) -> None:
    got = ask(live_server.port, big_head(1 << 20))
    assert got.startswith(b"HTTP/1.1 431 ")
    body = json.loads(got.split(b"\r\n\r\n", 1)[1])
    assert body["code"] == "headers_too_large" and body["params"]["limit"] == MAX_HEAD_BYTES
    assert ask(live_server.port, big_head(MAX_HEAD_BYTES - 200)).startswith(b"HTTP/1.1 200 ")


def test_a_pipelined_second_head_over_the_limit_is_refused_too(live_server: Any) -> None:
    """Counted as it is parsed as well: answered 431, or its connection dropped while
    the request before it is still being answered; never served."""
    first = b"GET /api/time HTTP/1.1\r\nHost: x\r\n\r\n"
    got = ask(live_server.port, first + big_head(40_000))
    assert got.count(b"HTTP/1.1 200 ") <= 1
    done = b"GET /api/time HTTP/1.1\r\nHost: x\r\n\r\n"
    s = socket.create_connection(("127.0.0.1", live_server.port), timeout=10)
    s.sendall(done)
    assert s.recv(65536).startswith(b"HTTP/1.1 200 ")  # answered: now a second head
    s.sendall(b"GET /api/time HTTP/1.1\r\nHost: x\r\nX-A: " + b"a" * 9000 + b"\r\nX-B: "
              + b"b" * 9000 + b"\r\n\r\n")
    got = b""
    while part := s.recv(65536):
        got += part
    s.close()
    assert got.startswith(b"HTTP/1.1 431 ")


def test_a_huge_head_never_reaches_the_app(live_server: Any) -> None:
    cache = live_server.app.state
    for _ in range(20):
        assert ask(live_server.port, big_head(200_000, "/learn/")).startswith(b"HTTP/1.1 431")
    with live_server.client() as c:  # the server still answers, and kept nothing of them
        assert c.get("/api/time").status_code == 200
    assert cache is live_server.app.state


# ------------------------------------------------------------------ the officials' caps
def test_gate_caps_an_address_not_a_proven_token() -> None:
    g = AddressGate(connections=2, rate=1.0, burst=3.0)
    assert [g.admits("crowd", Proof.NONE) for _ in range(4)] == [True] * 3 + [False]
    assert g.admits("crowd", Proof.PROVEN) and g.admits("other", Proof.NONE)
    assert g.admits("crowd", Proof.CLAIMED)  # a bucket of its own: the crowd never spends it
    for _ in range(3):
        g.opened("crowd")
    assert g.crowded("crowd") and not g.admits("crowd", Proof.CLAIMED)
    assert g.admits("crowd", Proof.PROVEN)
    assert g.admits("proxied", Proof.NONE, connection="")  # a trusted proxy's connection
    for _ in range(3):
        g.closed("crowd")
    assert not g.open


def test_proof_is_a_match_token_or_ticket_never_a_header_alone(server_factory: Any,
                                                                db_path: Path) -> None:
    from tests.web.conftest import ORGANISER_AUTH, Match

    from chukker.web.demo import DEMO_HEADER

    srv = server_factory(db_path, open_mode=True, plane=Plane.OFFICIALS)
    with srv, srv.client() as c:
        m = Match(c.post("/api/matches", json=DEMO_HEADER, headers=ORGANISER_AUTH).json())
        state = srv.app.state
        events = f"/api/matches/{m.id}/events"
        tk = m.tk["authorization"].encode()
        assert proof_of(state, events, b"", tk) is Proof.PROVEN
        assert proof_of(state, events, b"", b"Bearer forged") is Proof.CLAIMED
        assert proof_of(state, "/m/x", b"", None) is Proof.NONE
        ticket = c.post(f"/api/matches/{m.id}/stream-ticket", headers=m.tk).json()["ticket"]
        stream = f"/api/matches/{m.id}/stream"
        assert proof_of(state, stream, f"ticket={ticket}".encode(), None) is Proof.PROVEN
        assert proof_of(state, stream, b"ticket=1.2.3", None) is Proof.CLAIMED


def test_metrics_show_what_the_officials_door_refused_reset_and_shut_out() -> None:
    """An operator sees the door at work in ``/metrics``: requests refused (429),
    connections reset, addresses shut out so far and now."""
    from chukker.ops import metrics

    g = AddressGate(connections=2, rate=1.0, burst=2.0)
    metrics.watch_door(g.counts)
    try:
        for _ in range(4):
            g.admits("crowd", Proof.NONE)
        g.refused, g.reset, g.shutouts = g.refused, 5, 1
        text = metrics.scrape().decode()
        assert f'chukker_officials_door_total{{outcome="refused"}} {float(g.refused)}' in text
        assert 'chukker_officials_door_total{outcome="reset"} 5.0' in text
        assert 'chukker_officials_door_total{outcome="shutout"} 1.0' in text
        assert "chukker_officials_shut_out 0.0" in text
        assert g.refused == 2
    finally:
        metrics.DOOR.read = None


def test_officials_port_refuses_a_crowd_s_address_but_never_the_timekeeper(
        server_factory: Any, db_path: Path) -> None:
    from tests.web.conftest import ORGANISER_AUTH, Match, post_event

    from chukker.web.demo import DEMO_HEADER

    s = Settings(limits=LimitSettings(officials_rate=1.0,
                                      officials_connections_per_address=8))
    srv = server_factory(db_path, open_mode=True, plane=Plane.OFFICIALS, settings=s)
    with srv, srv.client() as c:
        m = Match(c.post("/api/matches", json=DEMO_HEADER, headers=ORGANISER_AUTH).json())
        crowd = (b"GET /api/matches/%s/stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                 % m.id.encode())
        answers = [ask(srv.port, crowd)[:12] for _ in range(8)]
        assert b"HTTP/1.1 307" in answers  # the burst: sent to the public plane
        assert answers[-1] == b"HTTP/1.1 429"  # then the 307 is rate limited too
        assert srv.app.state.address_gate.refused >= 1
        # the timekeeper, at the same address, on a new connection each time
        for _ in range(3):
            with httpx.Client(base_url=srv.url) as fresh:
                assert post_event(fresh, m, {"type": "bowl_in"} if _ == 0 else
                                  {"type": "whistle"}).status_code in (201, 409)
        # held connections: over the cap an anonymous request is refused, a token's is not
        held = [socket.create_connection(("127.0.0.1", srv.port)) for _ in range(9)]
        try:
            time.sleep(0)  # the connections are accepted by the server's loop
            deadline = time.monotonic() + 10
            while len(srv.app.state.address_gate.open) == 0 and time.monotonic() < deadline:
                time.sleep(0.01)
            assert ask(srv.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n"
                       b"Connection: close\r\n\r\n")[:12] == b"HTTP/1.1 429"
            with httpx.Client(base_url=srv.url) as fresh:
                assert fresh.get(f"/api/matches/{m.id}/display-token",
                                 headers=m.tk).status_code == 200
        finally:
            for h in held:
                h.close()


# ------------------------------------------------------------------ a real serve
def _free_port(host: str = "127.0.0.1") -> int:
    return ports.free_port(2, host)


def _up(host: str, port: int) -> bool:
    try:
        return httpx.get(f"http://{host}:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.mark.xdist_group("serve")
def test_serve_officials_host_binds_the_officials_port_there_only(tmp_path: Path) -> None:
    """``--officials-host``: the officials' port listens on that address alone; both
    planes answer a 1 MB head 431 (a real ``chukker serve``, two planes)."""
    port, officials = _free_port(), _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    proc = subprocess.Popen(
        [sys.executable, "-m", "chukker.web", "--db", str(tmp_path / "s.sqlite3"),
         "--host", "127.0.0.1", "--port", str(port), "--officials-host", "127.0.0.2",
         "--officials-port", str(officials), "--public-workers", "1", "--open"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out: list[str] = []
    threading.Thread(target=lambda: out.extend(proc.stdout or []), daemon=True).start()
    try:
        deadline = time.monotonic() + 90
        while not (_up("127.0.0.2", officials) and _up("127.0.0.1", port)):
            assert proc.poll() is None and time.monotonic() < deadline, "".join(out)
            time.sleep(0.2)
        assert not _up("127.0.0.1", officials)  # not on the public host
        for host, p in (("127.0.0.2", officials), ("127.0.0.1", port)):
            assert ask(p, big_head(1 << 20), host).startswith(b"HTTP/1.1 431 "), host
    finally:
        proc.terminate()
        proc.wait(30)
