"""Issue 40, "Edges carry it": tournaments, the season, the pony lines, the horns' audit,
the archive flags and matches created but not started reach a ``chukker edge`` process
through NATS JetStream alone.

One NATS server, one officials' server and one edge process (a real ``chukker edge``,
its own SQLite replica) for the whole module; each test waits for what it expects
(never a timing).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from chukker.config import NatsSettings, Settings
from chukker.live import Clock, hash_token, new_match_id
from chukker.store import StoredEvent, open_store
from chukker.web.demo import DEMO_HEADER

from ..tournament.web_helpers import four_team_toml, post
from .conftest import (
    ORGANISER,
    ORGANISER_AUTH,
    SIGNING_KEY,
    Match,
    NatsServer,
    Server,
    free_port,
    listening,
    wait_for,
)

pytestmark = pytest.mark.xdist_group("edge-tournaments")


@dataclass
class Day:
    off: Server
    oc: httpx.Client
    ec: httpx.Client
    replica: Path
    #: a match whose first period ends a moment after the officials start (a horn)
    horn_match: str


def _edge(nats: NatsSettings, replica: Path, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "CHUKKER_NATS_URL": nats.url or "", "CHUKKER_NATS_STREAM": nats.stream,
           "CHUKKER_NATS_PREFIX": nats.prefix, "CHUKKER_LOG_FORMAT": "text",
           "CHUKKER_NATS_SIGNING_KEY": nats.signing_key or ""}
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "chukker.cli", "edge", "--port",
                                 str(port), "--replica", str(replica)], env=env, stdout=out,
                                stderr=subprocess.STDOUT)


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory, nats_server: NatsServer) -> Iterator[Day]:
    from chukker.web.app import create_app

    tmp = tmp_path_factory.mktemp("edge-tournaments")
    tag = uuid.uuid4().hex[:8]
    nats = NatsSettings(url=nats_server.url, stream=f"T{tag}", prefix=f"t{tag}",
                        signing_key=SIGNING_KEY)
    db = tmp / "officials.sqlite3"
    store = open_store(db)
    now = Clock().now_ms()
    horn_match = new_match_id()
    ago = 450_000 - 1500  # the first period ends 1.5 s from now: its end horn sounds
    store.create_match(horn_match, dict(DEMO_HEADER), now - ago, hash_token("tk"),
                       hash_token("cm"))
    store.append(horn_match, StoredEvent(1, "bowl", {"type": "bowl_in", "at": 0.0}, now - ago,
                                         "timekeeper"), now - ago)
    store.close()
    port = free_port()
    replica = tmp / "edge.sqlite3"
    with contextlib.ExitStack() as stack:
        off = stack.enter_context(Server(create_app(db, organiser=ORGANISER,
                                                    settings=Settings(nats=nats))))
        oc = stack.enter_context(off.client())
        p = _edge(nats, replica, port, tmp / "edge.log")
        stack.callback(_stop, p)
        ec = stack.enter_context(httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10))
        wait_for(lambda: listening(port), "the edge to listen", 60)
        yield Day(off, oc, ec, replica, horn_match)


def _stop(p: subprocess.Popen[bytes]) -> None:
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(15)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def _upload(c: httpx.Client, text: str) -> dict[str, Any]:
    r = c.post("/tournaments/api", json={"text": text}, headers=ORGANISER_AUTH)
    assert r.status_code == 201, r.text
    return dict(r.json())


def _status(c: httpx.Client, path: str) -> int:
    try:
        return c.get(path).status_code
    except httpx.HTTPError:
        return 0


def test_clause_edges_carry_it_an_upload_reaches_the_edge_pages_season_and_pony_line(
        day: Day) -> None:
    text = four_team_toml().replace('name = "Four Cup"', 'name = "Edge Cup"').replace(
        'id = "reds"\n', 'id = "reds"\nmounts = [{ id = "r-bay", name = "Bay" }]\n', 1)
    body = _upload(day.oc, text)
    tid = body["tournament_id"]
    wait_for(lambda: _status(day.ec, f"/tournaments/{tid}") == 200,
             "the edge to serve the tournament")
    page = day.ec.get(f"/tournaments/{tid}")
    assert "Edge Cup" in page.text and page.headers["x-chukker-edge"] in ("current", "behind")
    assert "Edge Cup" in day.ec.get("/tournaments/").text
    assert "Edge Cup" in day.ec.get("/tournaments/season").text
    mounts = day.ec.get(f"/tournaments/{tid}/teams/reds/mounts")
    assert mounts.status_code == 200 and "Bay" in mounts.text
    # the same live matches on both sides, and none made by the edge
    theirs = day.ec.get(f"/tournaments/{tid}/results.json").json()
    mine = day.oc.get(f"/tournaments/{tid}/results.json").json()
    assert {m["id"]: m["live"] for m in theirs["matches"]} == \
        {m["id"]: m["live"] for m in mine["matches"]}
    # the tokens' hashes stay with the officials
    with sqlite3.connect(f"file:{day.replica}?mode=ro", uri=True) as db:
        kept = db.execute("SELECT body FROM tournament_events WHERE tournament_id = ?",
                          (tid,)).fetchone()[0]
    assert '"committee_hash":"-"' in kept


def test_clause_edges_carry_it_a_created_match_without_events_is_pre_match_on_the_edge(
        day: Day) -> None:
    body = _upload(day.oc, four_team_toml().replace('name = "Four Cup"', 'name = "Pre Cup"'))
    made = body["matches"]["m2"]
    m = Match(day.oc)  # through the API, no event yet
    for live_id in (made, m.id):
        wait_for(lambda live_id=live_id: _status(day.ec, f"/api/matches/{live_id}") == 200,
                 "the edge to have the match")
        r = day.ec.get(f"/api/matches/{live_id}").json()
        assert r["seq"] == 0 and r["status"] == "pre_match"
        assert day.ec.get(f"/m/{live_id}").status_code == 200


def test_clause_edges_carry_it_a_result_reaches_the_edges_tournament_page(day: Day) -> None:
    body = _upload(day.oc, four_team_toml().replace('name = "Four Cup"', 'name = "Result Cup"'))
    tid, live = body["tournament_id"], body["matches"]["m1"]
    token = body["arenas"]["Arena 1"]["token"]
    for ev in ({"type": "bowl_in"}, {"type": "goal", "team": "A"},
               {"type": "forfeit", "team": "B"}):
        assert post(day.oc, "", live, token, ev).status_code == 201, ev

    def m1_final(c: httpx.Client) -> dict[str, Any] | None:
        r = c.get(f"/tournaments/{tid}/results.json")
        if r.status_code != 200:  # the edge has not had the tournament yet
            return None
        m1 = next(m for m in r.json()["matches"] if m["id"] == "m1")
        return m1 if m1.get("decided_by") else None

    mine = wait_for(lambda: m1_final(day.oc), "the officials to settle m1")
    theirs = wait_for(lambda: m1_final(day.ec), "the edge to show m1's result")
    assert theirs == mine

    def results(path: str, uri: bool) -> int:
        with contextlib.closing(sqlite3.connect(path, uri=uri)) as db:
            return int(db.execute("SELECT COUNT(*) FROM tournament_events WHERE "
                                  "tournament_id = ? AND kind = 'result'", (tid,)).fetchone()[0])

    officials_db = str(day.off.app.state.service.store.path)
    wait_for(lambda: results(officials_db, False) >= 1, "the result event on the officials")
    wait_for(lambda: results(f"file:{day.replica}?mode=ro", True) ==
             results(officials_db, False), "the result event on the edge")
    assert "Result Cup" in day.ec.get(f"/tournaments/{tid}").text


def test_clause_edges_carry_it_the_horns_audit_and_the_archive_flag(day: Day) -> None:
    mid = day.horn_match
    audit = wait_for(lambda: day.oc.get(f"/api/matches/{mid}/horns").json(),
                     "the officials' audit row")
    wait_for(lambda: _status(day.ec, f"/api/matches/{mid}/horns") == 200 and
             day.ec.get(f"/api/matches/{mid}/horns").json() == audit, "the edge's audit row")
    assert [h["kind"] for h in audit] == ["end"]
    m = Match(day.oc)
    wait_for(lambda: m.id in day.ec.get("/").text, "the match on the edge's home page")
    store = day.off.app.state.service.store
    store.set_archived(m.id, True, Clock().now_ms())  # what the committee's button writes
    wait_for(lambda: m.id not in day.ec.get("/").text and
             m.id in day.ec.get("/?archived=1").text, "the edge to file the match away")
    store.set_archived(m.id, False, Clock().now_ms())
    wait_for(lambda: m.id in day.ec.get("/").text, "the edge to bring it back")
