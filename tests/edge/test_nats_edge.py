"""Issue 35, item 4: the officials publish to NATS JetStream, edges serve the crowd.

Each test has a stream of its own on a ``nats-server -js`` the module started (see
conftest); the fault tests stop it, restart it, or kill an edge with -9.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from chukker.config import NatsSettings
from chukker.feeds import nats as natsfeed

from .conftest import (
    ORGANISER_AUTH,
    Match,
    NatsServer,
    edge_app,
    edge_process,
    free_port,
    listening,
    officials,
    wait_for,
)

GOAL = {"type": "goal", "team": "A", "player": 2}


def seq_of(c: httpx.Client, match_id: str) -> int:
    r = c.get(f"/api/matches/{match_id}")
    return int(r.json()["seq"]) if r.status_code == 200 else -1


def test_clause_4_edge_serves_the_api_reads_with_the_officials_seq(
        tmp_path: Path, nats_settings: NatsSettings) -> None:
    with officials(tmp_path, nats_settings) as off, off.client() as oc, \
            edge_app(tmp_path, nats_settings) as edge, edge.client() as ec:
        m = Match(oc)
        assert m.post(oc, {"type": "bowl_in"}).status_code == 201
        for _ in range(3):
            assert m.post(oc, GOAL).status_code == 201
        wait_for(lambda: seq_of(ec, m.id) == 4, "the edge to have 4 events")
        mine, theirs = oc.get(f"/api/matches/{m.id}").json(), ec.get(f"/api/matches/{m.id}")
        assert theirs.headers["x-chukker-edge"] in ("current", "behind")
        assert theirs.json()["score"] == mine["score"]
        for path in (f"/m/{m.id}", f"/m/{m.id}/display", f"/m/{m.id}/sheet",
                     f"/m/{m.id}/sheet.json", f"/api/matches/{m.id}/feed.json",
                     f"/api/matches/{m.id}/record", "/", "/api/matches"):
            assert ec.get(path).status_code == 200, path
        wait_for(lambda: ec.get("/readyz").json()["status"] == "ok", "the edge to be current")


class Stream:
    """A raw SSE stream of one match in a thread, its bytes kept as they come."""

    def __init__(self, base: str, match_id: str) -> None:
        import socket
        import threading
        from urllib.parse import urlsplit

        u = urlsplit(base)
        self.sock = socket.create_connection((u.hostname, u.port), timeout=30)
        self.sock.sendall(f"GET /api/matches/{match_id}/stream HTTP/1.1\r\nHost: x\r\n"
                          "Accept: text/event-stream\r\n\r\n".encode())
        self.data = b""
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        while True:
            try:
                got = self.sock.recv(65536)
            except OSError:
                return
            if not got:
                return
            self.data += got

    def close(self) -> None:
        import contextlib

        with contextlib.suppress(OSError):
            self.sock.close()


def readyz(c: httpx.Client) -> dict[str, Any]:
    """``/readyz`` as the operator reads it (the organiser's token: an anonymous caller may
    get its status alone); an edge's status says "behind" to anyone."""
    try:
        return dict(c.get("/readyz", headers=ORGANISER_AUTH).json())
    except (httpx.HTTPError, ValueError):
        return {}


def test_clause_4_nats_outage_and_restart_lose_nothing_and_no_key_press_waits(
        tmp_path: Path, nats_server: NatsServer, nats_settings: NatsSettings) -> None:
    with officials(tmp_path, nats_settings) as off, off.client() as oc, \
            edge_app(tmp_path, nats_settings) as edge, edge.client() as ec:
        m = Match(oc)
        assert m.post(oc, {"type": "bowl_in"}).status_code == 201
        wait_for(lambda: seq_of(ec, m.id) == 1, "the edge to have the bowl-in")
        stream = Stream(edge.url, m.id)
        wait_for(lambda: b"event: state" in stream.data, "the stream's first state")
        nats_server.stop()
        try:
            wait_for(lambda: readyz(ec).get("status") == "behind", "the edge to say it is behind")
            try:
                wait_for(lambda: b'event: edge\ndata: {"behind":true}' in stream.data,
                         "the stream to say the edge is behind")
            except AssertionError:
                raise AssertionError(repr(stream.data[-600:])) from None
            # the timekeeper keeps working: every key press is stored and acknowledged
            for _ in range(5):
                assert m.post(oc, GOAL).status_code == 201
            assert readyz(oc)["status"] == "ok"
            assert readyz(oc)["nats"]["connected"] is False
            assert seq_of(ec, m.id) == 1  # the edge shows what it has, and that it is behind
            assert ec.get(f"/api/matches/{m.id}").headers["x-chukker-edge"] == "behind"
        finally:
            nats_server.start()
        wait_for(lambda: seq_of(ec, m.id) == 6, "the edge to catch up", timeout=30)
        wait_for(lambda: readyz(ec).get("status") == "ok", "the edge to be current again")
        wait_for(lambda: b'event: edge\ndata: {"behind":false}' in stream.data,
                 "the stream to say the edge has caught up")
        wait_for(lambda: stream.data.count(b"event: event") >= 5, "the goals on the stream")
        stream.close()
        assert ec.get(f"/api/matches/{m.id}").json()["score"] == \
            oc.get(f"/api/matches/{m.id}").json()["score"]
        assert readyz(oc)["nats"]["backlog"] == 0


async def _stream_messages(s: NatsSettings) -> int:
    nc = await natsfeed.connect(s, "test")
    try:
        info = await nc.jetstream().stream_info(s.stream)
        return int(info.state.messages)
    finally:
        await nc.close()


async def _publish(s: NatsSettings, match_id: str, seq: int, body: bytes, mid: str) -> bool:
    """``body`` published as the officials would (their key: signed, the id theirs)."""
    subj = natsfeed.subject(s.prefix, match_id)
    nc = await natsfeed.connect(s, "test")
    try:
        ack = await nc.jetstream().publish(subj, body, headers=natsfeed.headers_for(
            s.signing_key, subj, seq, body, mid))
        return bool(ack.duplicate)
    finally:
        await nc.close()


def test_clause_4_a_message_published_twice_is_dropped_by_its_msg_id_and_applied_once(
        tmp_path: Path, nats_settings: NatsSettings) -> None:
    s = nats_settings
    with officials(tmp_path, s) as off, off.client() as oc, \
            edge_app(tmp_path, s) as edge, edge.client() as ec:
        m = Match(oc)
        assert m.post(oc, {"type": "bowl_in"}).status_code == 201
        assert m.post(oc, GOAL).status_code == 201
        wait_for(lambda: seq_of(ec, m.id) == 2, "the edge to have 2 events")
        before = asyncio.run(_stream_messages(s))
        assert before == 3  # the header (seq 0), then events 1 and 2
        again = natsfeed.event_body(m.id, 2, "x", {"type": "goal", "team": "B", "at": 1.0},
                                    0, "timekeeper", None)
        assert asyncio.run(_publish(s, m.id, 2, again, natsfeed.msg_id(m.id, 2))) is True
        assert asyncio.run(_stream_messages(s)) == before  # JetStream dropped it
        # past the duplicate window a second copy is stored: the edge skips a seq it has
        assert asyncio.run(_publish(s, m.id, 2, again, "beyond-the-window")) is False
        assert m.post(oc, GOAL).status_code == 201
        wait_for(lambda: seq_of(ec, m.id) == 3, "the edge to have event 3")
        assert ec.get(f"/api/matches/{m.id}").json()["score"] == \
            oc.get(f"/api/matches/{m.id}").json()["score"]


def test_clause_4_edge_killed_with_kill_9_reads_on_from_its_last_seq(
        tmp_path: Path, nats_settings: NatsSettings) -> None:
    replica = tmp_path / "edge.sqlite3"
    port = free_port()
    with officials(tmp_path, nats_settings) as off, off.client() as oc:
        m = Match(oc)
        assert m.post(oc, {"type": "bowl_in"}).status_code == 201
        assert m.post(oc, GOAL).status_code == 201
        p = edge_process(nats_settings, replica, port)
        try:
            ec = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10)
            wait_for(lambda: listening(port) and seq_of(ec, m.id) == 2, "the edge", 60)
            os.kill(p.pid, signal.SIGKILL)
            p.wait(10)
            for _ in range(3):
                assert m.post(oc, GOAL).status_code == 201
            p = edge_process(nats_settings, replica, port)
            wait_for(lambda: listening(port) and seq_of(ec, m.id) == 5, "the edge again", 60)
            assert ec.get(f"/api/matches/{m.id}").json()["score"] == \
                oc.get(f"/api/matches/{m.id}").json()["score"]
        finally:
            p.send_signal(signal.SIGTERM)
            try:
                out = p.communicate(timeout=15)[0].decode(errors="replace")
            except subprocess.TimeoutExpired:
                p.kill()
                out = p.communicate()[0].decode(errors="replace")
        # not a cold start: it read on after the messages it had (header, events 1 and 2)
        assert "from stream sequence 4 " in out, out[-2000:]


def test_clause_4_cold_start_reads_every_match_from_the_stream(
        tmp_path: Path, nats_settings: NatsSettings) -> None:
    with officials(tmp_path, nats_settings) as off, off.client() as oc:
        ms = [Match(oc) for _ in range(2)]
        for m in ms:
            assert m.post(oc, {"type": "bowl_in"}).status_code == 201
        assert ms[0].post(oc, GOAL).status_code == 201
        wait_for(lambda: off.app.state.nats.backlog() == 0 and off.app.state.nats.published
                 == 5, "the officials to publish everything")
    with edge_app(tmp_path, nats_settings, "cold") as edge, edge.client() as ec:
        wait_for(lambda: seq_of(ec, ms[0].id) == 2 and seq_of(ec, ms[1].id) == 1,
                 "the new edge to read the stream")
        listed = {x["match_id"] for x in ec.get("/api/matches").json()}
        assert {m.id for m in ms} <= listed


# ------------------------------------------------------------------ the edge's doors
@pytest.fixture(scope="module")
def quiet_edge(tmp_path_factory: pytest.TempPathFactory, nats_server: NatsServer) -> Any:
    s = NatsSettings(url=nats_server.url, stream="DOORS", prefix="doors",
                     officials_url="http://officials.example:8001")
    with edge_app(tmp_path_factory.mktemp("doors"), s) as edge, edge.client() as ec:
        yield ec


@pytest.mark.parametrize(("method", "path"), [
    ("POST", "/api/matches/m1/events"), ("POST", "/api/matches"), ("POST", "/new"),
    ("POST", "/api/matches/m1/stream-ticket"), ("POST", "/tournaments/api"),
    ("PUT", "/api/matches/m1"), ("DELETE", "/api/matches/m1"), ("PATCH", "/"),
    ("POST", "/learn/result"),
])
def test_clause_4_edge_refuses_every_write_naming_the_officials_address(
        quiet_edge: httpx.Client, method: str, path: str) -> None:
    r = quiet_edge.request(method, path, json={"command_id": "c", "event": {"type": "bowl_in"}},
                           headers={"authorization": "Bearer whatever"})
    assert r.status_code == 403
    body = r.json()
    assert body["code"] == "edge_read_only"
    assert body["params"]["officials"] == "http://officials.example:8001"
    assert "http://officials.example:8001" in body["message"]


def test_clause_4_edge_refusal_in_english_spanish_and_italian(quiet_edge: httpx.Client) -> None:
    said = {lang: quiet_edge.post("/api/matches/m1/events?lang=" + lang, json={}).json()["text"]
            for lang in ("en", "es", "it")}
    assert said["en"].startswith("this server is a public edge")
    assert said["es"].startswith("este servidor es un nodo público")
    assert said["it"].startswith("questo server è un nodo pubblico")
    assert all("http://officials.example:8001" in t for t in said.values())
    r = quiet_edge.post("/api/matches/m1/events", json={}, headers={"accept-language": "it"})
    assert r.headers["content-language"] == "it"


def test_guard_edge_who_may_call_officials_doors_are_refused_even_as_reads(
        quiet_edge: httpx.Client) -> None:
    """Who may call an edge's doors: anyone may read; no secret opens anything more (the
    console and the display token are the officials' doors, answered with their address)."""
    for path in ("/m/m1/console", "/api/matches/m1/display-token"):
        r = quiet_edge.get(path, headers={"authorization": "Bearer anything"})
        assert r.status_code == 403 and r.json()["code"] == "edge_read_only"
    assert quiet_edge.get("/api/matches").status_code == 200
    assert quiet_edge.get("/").status_code == 200


def test_guard_edge_how_big_a_write_is_refused_before_its_body_is_read(
        quiet_edge: httpx.Client) -> None:
    """How big may the input be: a write's body is never read (refused from its headers),
    whatever its size; the reads' limits are the public plane's own (the same Guard)."""
    r = quiet_edge.post("/api/matches/m1/events", content=b"{" * (4 << 20),
                        headers={"content-type": "application/json"})
    assert r.status_code == 403 and r.json()["code"] == "edge_read_only"


def test_guard_edge_no_door_takes_a_server_path_the_client_names(tmp_path: Path,
                                                                 nats_settings: NatsSettings
                                                                 ) -> None:
    """Does a door touch a server path the client names: the edge adds no door to the
    public plane's (its replica's file comes from the command line or the settings)."""
    from chukker.config import Settings
    from chukker.web.app import create_app
    from chukker.web.edge import create_edge_app

    def paths(app: Any) -> set[tuple[str, str]]:
        return {(getattr(r, "path", ""), ",".join(sorted(getattr(r, "methods", None) or [])))
                for r in app.routes}

    plain = create_app(tmp_path / "plain.sqlite3", organiser="x")
    edge = create_edge_app(Settings(nats=nats_settings), tmp_path / "e.sqlite3")
    assert paths(edge) == paths(plain)


def test_guard_edge_publishing_never_delays_a_key_press(nats_settings: NatsSettings) -> None:
    """Could it delay a key press: the publisher's listener only notes the match's new seq
    (no I/O, nothing awaited); the NATS outage test shows the officials answer on."""
    async def source(match_id: str, after: int) -> list[tuple[int, bytes]] | None:
        raise AssertionError("nothing is read while noting")

    async def note() -> int:
        pub = natsfeed.NatsPublisher(nats_settings, source)
        for seq in range(1, 1001):  # never started: nothing can go out, nothing waits
            assert pub.on_event("m1", seq, {"type": "goal"}) is None
        pub.on_state("m2", 0, {})
        return pub.backlog()

    assert asyncio.run(note()) == 2


def test_clause_4_without_nats_nothing_changes(tmp_path: Path) -> None:
    from chukker.config import Settings
    from chukker.web.app import create_app

    app = create_app(tmp_path / "n.sqlite3", organiser="x", settings=Settings())
    assert app.state.nats is None
    assert not any(type(x).__name__ == "NatsPublisher" for x in app.state.service._listeners)


def test_clause_4_edge_needs_nats_url(tmp_path: Path) -> None:
    import sys

    env = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_NATS")}
    r = subprocess.run([sys.executable, "-m", "chukker.cli", "edge", "--port", str(free_port()),
                        "--replica", str(tmp_path / "e.sqlite3")], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert "nats.url" in r.stderr
    assert not (tmp_path / "e.sqlite3").exists()


def test_clause_4_nats_settings_refuse_a_bad_address() -> None:
    from chukker.config import ConfigError, load

    s = load(file=None, env={"CHUKKER_NATS_URL": "nats://ann:pw@hub:4222"})
    assert s.nats.url == "nats://ann:pw@hub:4222" and s.nats.stream == "CHUKKER"
    assert natsfeed.display(s.nats.url) == "nats://hub:4222"
    for bad in ("http://hub:4222", "nats://", "nats://hub:99999"):
        with pytest.raises(ConfigError, match=r"nats\.url"):
            load(file=None, env={"CHUKKER_NATS_URL": bad})
    with pytest.raises(ConfigError, match=r"nats\.officials_url"):
        load(file=None, env={"CHUKKER_NATS_OFFICIALS_URL": "javascript:alert(1)"})


def test_clause_4_events_stored_while_nats_was_away_are_published_after_the_officials_restart(
        tmp_path: Path, nats_server: NatsServer, nats_settings: NatsSettings) -> None:
    """Acknowledged while NATS was down, then the officials' process stopped before it came
    back: the next officials' process publishes them from the store (JetStream never had
    them), and an edge has every one."""
    with officials(tmp_path, nats_settings) as off, off.client() as oc:
        m = Match(oc)
        assert m.post(oc, {"type": "bowl_in"}).status_code == 201
        wait_for(lambda: off.app.state.nats.backlog() == 0, "the bowl-in to be published")
        nats_server.stop()
        try:
            for _ in range(3):
                assert m.post(oc, GOAL).status_code == 201
        except BaseException:
            nats_server.start()
            raise
    nats_server.start()
    with officials(tmp_path, nats_settings) as off, off.client() as oc, \
            edge_app(tmp_path, nats_settings) as edge, edge.client() as ec:
        wait_for(lambda: seq_of(ec, m.id) == 4, "the edge to have every event")
        assert ec.get(f"/api/matches/{m.id}").json()["score"] == \
            oc.get(f"/api/matches/{m.id}").json()["score"]
