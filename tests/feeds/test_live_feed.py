"""The MQTT feed on the real live service: a practice period's horn reaches a Tasmota
relay, the app's /readyz and /metrics, a broker away while the timekeeper works, and
two servers on one PostgreSQL schema driving one relay."""

from __future__ import annotations

import asyncio
import copy
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from tests.feeds.conftest import free_port
from tests.feeds.fake import PRACTICE
from tests.feeds.helpers import Recorder, retained
from tests.web.conftest import OPEN, ORGANISER_AUTH, Match, post_event

from chukker.config import HornSettings, MqttSettings, RelaySettings, Settings
from chukker.feeds.claims import LocalClaims
from chukker.feeds.mqtt import MqttFeed
from chukker.live import LiveService, Role
from chukker.store import open_store
from chukker.web import create_app
from chukker.web.api import feeds as feeds_api

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

WALL0 = 1_800_000_000_000


class VirtualClock:
    """The server's clock, moved by the test (a passed deadline falls due at once)."""

    def __init__(self) -> None:
        self.now = WALL0

    def now_ms(self) -> int:
        return self.now

    def loop_time(self, wall_ms: int) -> float:
        return asyncio.get_running_loop().time() + (wall_ms - self.now) / 1000

    def advance(self, seconds: float) -> None:
        self.now += round(seconds * 1000)


async def until(pred: Any, timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while not pred():
            await asyncio.sleep(0.01)


def _feed(url: str, prefix: str, relay: RelaySettings, svc: LiveService, **kw: Any) -> MqttFeed:
    return MqttFeed(MqttSettings(url=url, prefix=prefix), HornSettings(relays=(relay,)),
                    header_of=lambda mid: feeds_api._header_of(svc, mid),
                    now_ms=svc.clock.now_ms, **kw)


def test_practice_period_horn_reaches_the_tasmota_relay(tmp_path: Path, broker_url: str,
                                                        prefix: str) -> None:
    relay_topic = prefix.replace("/", "-") + "-arena"

    async def main() -> tuple[list[Any], str]:
        clock = VirtualClock()
        svc = LiveService(open_store(tmp_path / "live.sqlite3"), clock=clock)  # type: ignore[arg-type]
        await svc.start()
        feed = _feed(broker_url, prefix, RelaySettings("tasmota", relay_topic, 200), svc)
        async with Recorder(broker_url, [f"cmnd/{relay_topic}/POWER",
                                         f"{prefix}/match/+/horn"]) as rec:
            await feeds_api.start_feed(svc, feed)
            try:
                await until(lambda: feed.connected)
                created = await svc.create_match(copy.deepcopy(PRACTICE))
                lm = await svc.load(created.match_id)
                await svc.submit(lm, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
                clock.advance(120)  # the practice period's 120 s
                svc.retime()
                await rec.wait_for(lambda m: m.payload == b"OFF")
                horns = await asyncio.to_thread(svc.store.horns, lm.id)
            finally:
                await feeds_api.stop_feed(svc, feed)
                await svc.stop()
        return rec.got, created.match_id if horns else ""

    got, match_id = asyncio.run(main())
    assert match_id, "the service recorded no horn"
    assert [m.payload for m in got if m.topic.endswith("/POWER")] == [b"ON", b"OFF"]
    horn = next(m.json() for m in got if m.topic.endswith("/horn"))
    assert horn == {"kind": "end", "period": 1, "at": WALL0 + 120_000, "match_id": match_id}


def test_app_publishes_state_and_readyz_and_metrics_report_the_feed(
        tmp_path: Path, broker_url: str, prefix: str) -> None:
    s = Settings(mqtt=MqttSettings(url=broker_url, prefix=prefix), metrics_token="m" * 24)
    with TestClient(create_app(tmp_path / "a.sqlite3", settings=s, **OPEN)) as c:
        r = c.post("/api/matches", json=copy.deepcopy(PRACTICE), headers=ORGANISER_AUTH)
        m = Match(r.json())
        assert post_event(c, m, {"type": "bowl_in"}).status_code == 201
        assert post_event(c, m, {"type": "goal", "team": "B", "player": 2}).status_code == 201
        feed = c.app.state.feed  # type: ignore[attr-defined]
        deadline = time.monotonic() + 10
        while (not feed.connected or len(feed.outbox)) and time.monotonic() < deadline:
            time.sleep(0.02)
        ready = c.get("/readyz", headers=ORGANISER_AUTH).json()  # the operator's details
        metrics = c.get("/metrics", headers={"authorization": "Bearer " + "m" * 24}).text
    st = asyncio.run(retained(broker_url, f"{prefix}/match/{m.id}/state"))
    assert st is not None and st.json()["teams"]["B"]["score"] == 1
    assert st.json()["teams"]["B"]["name"] == "Búhos"
    assert ready["feeds"]["mqtt"]["connected"] is True
    assert "chukker_mqtt_connected" in metrics and "chukker_mqtt_horn_to_relay_seconds" in metrics


def test_broker_away_the_timekeeper_works_and_the_server_stays_ready(tmp_path: Path,
                                                                    prefix: str) -> None:
    s = Settings(mqtt=MqttSettings(url=f"mqtt://127.0.0.1:{free_port()}", prefix=prefix,
                                   queue_limit=10))
    with TestClient(create_app(tmp_path / "b.sqlite3", settings=s, **OPEN)) as c:
        m = Match(c.post("/api/matches", json=copy.deepcopy(PRACTICE),
                         headers=ORGANISER_AUTH).json())
        for i in range(30):
            ev = {"type": "bowl_in"} if i % 2 == 0 else {"type": "whistle"}
            assert post_event(c, m, ev).status_code == 201
        r = c.get("/readyz", headers=ORGANISER_AUTH)
        feed = c.app.state.feed  # type: ignore[attr-defined]
    assert r.status_code == 200 and r.json()["status"] == "ok"
    assert r.json()["feeds"]["mqtt"]["connected"] is False
    assert feed.outbox.dropped["event"] == 20  # 30 events, 10 kept


def test_no_mqtt_url_no_feed(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "c.sqlite3", settings=Settings(), **OPEN)) as c:
        assert c.app.state.feed is None  # type: ignore[attr-defined]
        assert "feeds" not in c.get("/readyz", headers=ORGANISER_AUTH).json()


@pytest.mark.postgres
def test_two_live_servers_on_one_postgres_schema_sound_one_relay_command(
        broker_url: str, prefix: str, pg_url: str, pg_schema: str) -> None:
    from chukker.feeds.claims import PostgresClaims
    from chukker.store.postgres import PostgresStore

    relay_topic = prefix.replace("/", "-") + "-two"

    async def main() -> list[Any]:
        clock = VirtualClock()
        svcs = [LiveService(PostgresStore(pg_url, pg_schema), clock=clock)  # type: ignore[arg-type]
                for _ in range(2)]
        for svc in svcs:
            await svc.start()
        feeds = [_feed(broker_url, f"{prefix}/s{i}", RelaySettings("tasmota", relay_topic, 100),
                       svc, claims=PostgresClaims(pg_url, pg_schema, f"s{i}"), claims_block=True)
                 for i, svc in enumerate(svcs)]
        async with Recorder(broker_url, [f"cmnd/{relay_topic}/POWER"]) as rec:
            for svc, feed in zip(svcs, feeds, strict=True):
                await feeds_api.start_feed(svc, feed)
            try:
                for f in feeds:
                    await until(lambda f=f: f.connected)
                created = await svcs[0].create_match(copy.deepcopy(PRACTICE))
                lms = [await svc.load(created.match_id) for svc in svcs]
                await svcs[0].submit(lms[0], Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
                await until(lambda: lms[1].seq == 1)  # the other server heard of it
                heard: list[Mapping[str, Any]] = []
                orig = [f.on_horn for f in feeds]
                for f, o in zip(feeds, orig, strict=True):
                    f.on_horn = lambda mid, h, o=o: (heard.append(h), o(mid, h))  # type: ignore[method-assign]
                clock.advance(120)
                for svc in svcs:
                    svc.retime()
                await rec.wait_for(lambda m: m.payload == b"OFF")
                await until(lambda: len(heard) == 2)  # both servers sounded it
                await asyncio.sleep(0.3)
            finally:
                for svc, feed in zip(svcs, feeds, strict=True):
                    await feeds_api.stop_feed(svc, feed)
                    await svc.stop()
        return rec.got

    got = asyncio.run(main())
    assert [m.payload for m in got] == [b"ON", b"OFF"]


def test_claims_in_the_process_are_the_sqlite_default(tmp_path: Path) -> None:
    s = Settings(mqtt=MqttSettings(url="mqtt://127.0.0.1:1"))
    app = create_app(tmp_path / "d.sqlite3", settings=s, **OPEN)
    assert isinstance(app.state.feed.claims, LocalClaims)


@pytest.mark.slow
def test_chukker_serve_with_relays_from_the_environment_sounds_a_real_practice_horn(
        tmp_path: Path, broker_url: str, prefix: str) -> None:
    """A server started as a club would (settings from CHUKKER_* variables), a practice
    match of 10-second periods on the real clock, a Tasmota relay that hears its horn."""
    import json
    import os
    import subprocess
    import sys

    import httpx

    relay_topic = prefix.replace("/", "-") + "-serve"
    port = free_port()
    env = {**os.environ, "CHUKKER_MQTT_URL": broker_url, "CHUKKER_MQTT_PREFIX": prefix,
           "CHUKKER_HORN_RELAYS": json.dumps([{"kind": "tasmota", "topic": relay_topic,
                                               "pulse_ms": 300}]),
           "CHUKKER_ORGANISER_TOKEN": "feeds-test-organiser-token", "CHUKKER_LOG_ACCESS": "0"}
    header = copy.deepcopy(PRACTICE)
    header["options"]["practice"] = {"period_s": 10, "interval_s": 5}
    proc = subprocess.Popen([sys.executable, "-m", "chukker.cli", "serve", "--port", str(port),
                             "--db", str(tmp_path / "serve.sqlite3"), "--no-demo"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    async def main() -> tuple[list[Any], list[Any]]:
        base = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            async with asyncio.timeout(30):
                while True:
                    try:
                        if (await http.get("/readyz")).status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    await asyncio.sleep(0.1)
            r = await http.post("/api/matches", json=header, headers={
                "authorization": "Bearer feeds-test-organiser-token"})
            m = Match(r.json())
            async with Recorder(broker_url, [f"cmnd/{relay_topic}/POWER"]) as rec:
                r = await http.post(f"/api/matches/{m.id}/events", headers=m.tk,
                                    json={"command_id": "c1", "event": {"type": "bowl_in"}})
                assert r.status_code == 201, r.text
                await rec.wait_for(lambda msg: msg.payload == b"OFF", timeout=30)
            horns = (await http.get(f"/api/matches/{m.id}/horns")).json()
        return rec.got, horns

    try:
        got, horns = asyncio.run(main())
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert [m.payload for m in got] == [b"ON", b"OFF"], err.decode()[-2000:]
    assert horns and horns[0]["kind"] == "end"
    assert got[0].at_ms >= horns[0]["deadline"]  # never before the horn's instant


def test_tournament_arenas_topics_follow_each_arenas_current_match(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, broker_url: str, prefix: str) -> None:
    from tests.tournament.web_helpers import four_team_toml

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    s = Settings(mqtt=MqttSettings(url=broker_url, prefix=prefix))
    with TestClient(create_app(tmp_path / "t.sqlite3", settings=s, **OPEN)) as c:
        body = c.post("/tournaments/api", json={"text": four_team_toml()}).json()
        assert c.get(f"/tournaments/{body['tournament_id']}").status_code == 200
        feed = c.app.state.feed  # type: ignore[attr-defined]
        now = dict(feed._arena_now)
        deadline = time.monotonic() + 10
        while (not feed.connected or len(feed.outbox)) and time.monotonic() < deadline:
            time.sleep(0.02)
    # the first match of each arena (m1 on Arena 1, m2 on Arena 2) is its current one
    assert now == {"Arena 1": body["matches"]["m1"], "Arena 2": body["matches"]["m2"]}
    st = asyncio.run(retained(broker_url, f"{prefix}/arena/arena-2/state"))
    assert st is not None and st.json()["match_id"] == body["matches"]["m2"]


def test_after_a_restart_arena_relays_know_their_matches_before_any_page_is_seen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.tournament.web_helpers import four_team_toml

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    s = Settings(mqtt=MqttSettings(url=f"mqtt://127.0.0.1:{free_port()}"))
    with TestClient(create_app(tmp_path / "r.sqlite3", settings=s, **OPEN)) as c:
        body = c.post("/tournaments/api", json={"text": four_team_toml()}).json()
    with TestClient(create_app(tmp_path / "r.sqlite3", settings=s, **OPEN)) as c:
        feed = c.app.state.feed  # type: ignore[attr-defined]
        arenas = {mid: feed.arena_of(live) for mid, live in body["matches"].items()}
    assert arenas == {f"m{n}": "Arena 1" if n % 2 else "Arena 2" for n in range(1, 7)}


def test_an_arenas_topics_follow_the_match_that_gets_under_way(broker_url: str,
                                                             prefix: str) -> None:
    from tests.feeds.fake import FakeService

    async def main() -> None:
        feed = MqttFeed(MqttSettings(url=broker_url, prefix=prefix))
        one, two = FakeService(feed, "one"), FakeService(feed, "two")
        feed.map_arena("one", "Arena 1")
        feed.map_arena("two", "Arena 1")
        one.run_to(0)  # both known, neither under way
        two.run_to(0)
        assert feed._arena_now.get("Arena 1") is None
        two.event(0.0, "bowl_in")
        assert feed._arena_now["Arena 1"] == "two"
        one.event(0.0, "bowl_in")  # another match of the arena cannot take it mid-match
        assert feed._arena_now["Arena 1"] == "two"

    asyncio.run(main())
