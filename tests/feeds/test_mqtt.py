"""The MQTT feed against a real Mosquitto: state, event and horn topics, horn relays,
the queue's bound, a broker killed and restarted mid-match."""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any

import aiomqtt
import pytest
from tests.feeds.conftest import OwnBroker
from tests.feeds.fake import FakeService
from tests.feeds.helpers import Recorder, retained

from chukker.config import HornSettings, MqttSettings, RelaySettings
from chukker.feeds import metrics
from chukker.feeds.claims import LocalClaims
from chukker.feeds.mqtt import MqttFeed


def make_feed(url: str, prefix: str, *relays: RelaySettings, **kw: Any) -> MqttFeed:
    mqtt = MqttSettings(url=url, prefix=prefix, client_id=f"t-{prefix.rsplit('/', 1)[-1]}",
                        queue_limit=kw.pop("queue_limit", 10_000), tick_s=kw.pop("tick_s", 1.0))
    horn = HornSettings(relays=relays, relay_max_late_ms=kw.pop("relay_max_late_ms", 2000))
    return MqttFeed(mqtt, horn, **kw)


async def connected(feed: MqttFeed, timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while not feed.connected:
            await asyncio.sleep(0.01)


async def drained(feed: MqttFeed, timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while len(feed.outbox) or not feed.connected:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)


def test_state_topic_is_retained_and_says_teams_score_clock_and_seq(broker_url: str,
                                                                     prefix: str) -> None:
    async def main() -> None:
        feed = make_feed(broker_url, prefix)
        svc = FakeService(feed)
        feed.header_of = svc.header_of
        await feed.start()
        try:
            svc.event(0.0, "bowl_in")
            svc.event(20.5, "goal", team="B", player=2)
            svc.event(21.0, "whistle")
            await drained(feed)
            got = await retained(broker_url, f"{prefix}/match/m1/state")
            assert got is not None, "no retained state"
            st = got.json()
            assert st["teams"]["A"]["name"] == "Aguilas" and st["teams"]["B"]["name"] == "Búhos"
            assert st["teams"]["B"]["score"] == 1 and st["seq"] == 3
            assert st["running"] is False and st["clock_ms"] == 99_000
            assert st["status"] == "stopped" and st["period"] == 1 and st["practice"] is True
            assert st["last_goal"]["team"] == "B"
            assert st["at"] >= svc.start_ms + 21_000  # epoch ms, as /api/time
        finally:
            await feed.stop()

    asyncio.run(main())


def test_event_topic_carries_every_event_with_its_seq_undos_too(broker_url: str,
                                                                prefix: str) -> None:
    async def main() -> None:
        feed = make_feed(broker_url, prefix)
        svc = FakeService(feed)
        async with Recorder(broker_url, [f"{prefix}/match/+/event"]) as rec:
            await feed.start()
            try:
                svc.event(0.0, "bowl_in")
                svc.event(5.0, "goal", team="A", player=1)
                svc.event(6.0, "undo", event=2)
                await rec.wait_for(lambda m: m.json()["seq"] == 3)
            finally:
                await feed.stop()
        seqs = [m.json()["seq"] for m in rec.on("/event")]
        assert seqs == [1, 2, 3]
        # epoch ms, as /api/time: the match's start (the server_time of its reports) + at
        assert rec.on("/event")[1].json()["at_ms"] == svc.start_ms + 5_000
        assert rec.on("/event")[-1].json()["event"]["type"] == "undo"

    asyncio.run(main())


def test_state_is_published_every_tick_while_the_clock_runs(broker_url: str,
                                                           prefix: str) -> None:
    async def main() -> None:
        feed = make_feed(broker_url, prefix, tick_s=0.1)
        svc = FakeService(feed, start_ms=time.time_ns() // 1_000_000)
        async with Recorder(broker_url, [f"{prefix}/match/m1/state"]) as rec:
            await feed.start()
            try:
                svc.event(0.0, "bowl_in")
                await rec.wait_for(lambda m: len(rec.got) >= 5, timeout=10)
            finally:
                await feed.stop()
        clocks = [m.json()["clock_ms"] for m in rec.got]
        assert all(m.json()["running"] for m in rec.got)
        assert clocks == sorted(clocks, reverse=True) and clocks[-1] < clocks[0]

    asyncio.run(main())


def test_tasmota_relay_gets_power_on_at_the_practice_horn_then_off_after_pulse(
        broker_url: str, prefix: str) -> None:
    relay_topic = prefix.replace("/", "-") + "-horn"

    async def main() -> None:
        relay = RelaySettings("tasmota", relay_topic, pulse_ms=300)
        feed = make_feed(broker_url, prefix, relay)
        # a practice period of 120 s whose end is due now on the wall clock
        svc = FakeService(feed, start_ms=time.time_ns() // 1_000_000 - 120_000)
        async with Recorder(broker_url, [f"cmnd/{relay_topic}/POWER",
                                         f"{prefix}/match/m1/horn"]) as rec:
            await feed.start()
            await connected(feed)
            try:
                svc.event(0.0, "bowl_in")
                horns = svc.run_to(120.0)
                assert [h["kind"] for h in horns] == ["end"]
                await rec.wait_for(lambda m: m.payload == b"OFF")
            finally:
                await feed.stop()
        power = [m.payload for m in rec.on("/POWER")]
        assert power == [b"ON", b"OFF"]
        horn = rec.on("/horn")[0].json()
        assert horn == {"kind": "end", "period": 1, "at": horns[0]["at"], "match_id": "m1"}
        assert feed.relay_latency and feed.relay_latency[0][0] == horns[0]["at"]

    asyncio.run(main())


def test_shelly_and_topic_relays_get_their_own_commands(broker_url: str, prefix: str) -> None:
    sh, tp = prefix.replace("/", "-") + "-shelly", prefix + "/board/horn"

    async def main() -> None:
        feed = make_feed(broker_url, prefix, RelaySettings("shelly", sh, 1200),
                         RelaySettings("topic", tp, 800))
        svc = FakeService(feed, start_ms=time.time_ns() // 1_000_000 - 120_000)
        async with Recorder(broker_url, [f"{sh}/rpc", tp]) as rec:
            await feed.start()
            await connected(feed)
            try:
                svc.event(0.0, "bowl_in")
                svc.run_to(120.0)
                await rec.wait_for(lambda m: m.topic == tp)
                await rec.wait_for(lambda m: m.topic.endswith("/rpc"))
            finally:
                await feed.stop()
        rpc = rec.on("/rpc")[0].json()
        assert rpc["method"] == "Switch.Set"
        assert rpc["params"] == {"id": 0, "on": True, "toggle_after": 1.2}
        assert rec.on(tp)[0].json()["kind"] == "end"

    asyncio.run(main())


def test_a_horn_reported_twice_sounds_the_relay_once(broker_url: str, prefix: str) -> None:
    relay_topic = prefix.replace("/", "-") + "-once"

    async def main() -> None:
        claims = LocalClaims()
        relay = RelaySettings("tasmota", relay_topic, pulse_ms=100)
        a = make_feed(broker_url, prefix, relay, claims=claims)
        b = make_feed(broker_url, prefix + "x", relay, claims=claims)
        horn = {"kind": "end", "period": 1, "at": time.time_ns() // 1_000_000}
        async with Recorder(broker_url, [f"cmnd/{relay_topic}/POWER"]) as rec:
            await a.start()
            await b.start()
            await connected(a)
            await connected(b)
            try:
                a.on_horn("m1", horn)
                b.on_horn("m1", horn)
                a.on_horn("m1", horn)
                await rec.wait_for(lambda m: m.payload == b"OFF")
                await asyncio.sleep(0.3)
            finally:
                await a.stop()
                await b.stop()
        assert [m.payload for m in rec.got] == [b"ON", b"OFF"]

    asyncio.run(main())


def test_the_online_topic_says_1_while_the_server_publishes_and_0_once_it_stops(
        broker_url: str, prefix: str) -> None:
    async def main() -> None:
        feed = make_feed(broker_url, prefix)
        await feed.start()
        await connected(feed)
        await drained(feed)
        up = await retained(broker_url, feed.online_topic)
        await feed.stop()
        down = await retained(broker_url, feed.online_topic)
        assert up is not None and up.payload == b"1"
        assert down is not None and down.payload == b"0"
        async with aiomqtt.Client("127.0.0.1", int(broker_url.rsplit(":", 1)[1])) as c:
            await c.publish(feed.online_topic, b"", qos=1, retain=True)  # leave no trace

    asyncio.run(main())


def test_relays_with_an_arena_sound_only_for_that_arenas_match(broker_url: str,
                                                              prefix: str) -> None:
    t1, t2 = prefix.replace("/", "-") + "-a1", prefix.replace("/", "-") + "-a2"

    async def main() -> None:
        feed = make_feed(broker_url, prefix, RelaySettings("topic", t1, arena="Arena 1"),
                         RelaySettings("topic", t2, arena="Arena 2"))
        svc = FakeService(feed, start_ms=time.time_ns() // 1_000_000 - 120_000)
        feed.assign_arena("Arena 2", "m1")
        async with Recorder(broker_url, [t1, t2, f"{prefix}/arena/+/+"]) as rec:
            await feed.start()
            await connected(feed)
            try:
                svc.event(0.0, "bowl_in")
                svc.run_to(120.0)
                await rec.wait_for(lambda m: m.topic == t2)
                await rec.wait_for(lambda m: m.topic.endswith("arena-2/horn"))
                await rec.wait_for(lambda m: m.topic.endswith("arena-2/state"))
                await asyncio.sleep(0.2)
            finally:
                await feed.stop()
        assert not rec.on(t1)
        assert rec.on("arena-2/state")[-1].json()["match_id"] == "m1"

    asyncio.run(main())


def test_queue_bound_drops_the_oldest_events_while_the_broker_is_away(prefix: str) -> None:
    from tests.feeds.conftest import free_port

    async def main() -> None:
        feed = make_feed(f"mqtt://127.0.0.1:{free_port()}", prefix, queue_limit=10)
        svc = FakeService(feed)
        before = metrics.DROPPED.labels("event", "queue_full")._value.get()
        await feed.start()
        try:
            for i in range(25):
                svc.event(i * 1.0, "bowl_in" if i == 0 else "whistle" if i % 2 else "bowl_in")
        finally:
            await feed.stop(drain_s=0)
        assert not feed.connected
        assert feed.outbox.dropped["event"] == 15
        assert metrics.DROPPED.labels("event", "queue_full")._value.get() - before == 15
        # states coalesce: one per topic, however many changes came
        assert len(feed.outbox) == 10 + 1
        left = [json.loads(m.body()) for m in iter(feed.outbox.pop, None)]
        assert [e["seq"] for e in left[:10]] == list(range(16, 26))
        assert left[-1]["seq"] == 25

    asyncio.run(main())


def test_broker_killed_and_restarted_mid_match_gets_events_and_the_retained_state_again(
        own_broker: OwnBroker, prefix: str) -> None:
    async def main() -> None:
        feed = make_feed(own_broker.url, prefix)
        svc = FakeService(feed)
        await feed.start()
        try:
            await connected(feed)
            svc.event(0.0, "bowl_in")
            svc.event(10.0, "goal", team="A", player=1)
            await drained(feed)
            own_broker.stop()  # killed: a broker without persistence loses the retained state
            async with asyncio.timeout(10):
                while feed.connected:
                    await asyncio.sleep(0.01)
            svc.event(11.0, "whistle")
            svc.event(12.0, "bowl_in")
            svc.event(30.0, "goal", team="B", player=3)
            assert not feed.connected and len(feed.outbox) >= 3
            own_broker.start()
            async with Recorder(own_broker.url, [f"{prefix}/match/m1/event"]) as rec:
                await connected(feed, timeout=40)
                await drained(feed)
                await rec.wait_for(lambda m: m.json()["seq"] == 5)
            got = await retained(own_broker.url, f"{prefix}/match/m1/state")
        finally:
            await feed.stop()
        assert got is not None, "the state was not published again after the reconnect"
        st = got.json()
        assert st["seq"] == 5 and st["teams"]["A"]["score"] == 1 and st["teams"]["B"]["score"] == 1
        assert [m.json()["seq"] for m in rec.got] == [3, 4, 5]
        assert feed.connections == 2

    asyncio.run(main())


def test_relay_command_that_missed_its_instant_is_dropped_not_sounded_late(
        own_broker: OwnBroker, prefix: str) -> None:
    relay_topic = prefix.replace("/", "-") + "-late"

    async def main() -> None:
        feed = make_feed(own_broker.url, prefix, RelaySettings("tasmota", relay_topic, 100),
                         relay_max_late_ms=200)
        await feed.start()
        try:
            await connected(feed)
            own_broker.stop()
            async with asyncio.timeout(10):
                while feed.connected:
                    await asyncio.sleep(0.01)
            feed.on_horn("m1", {"kind": "end", "period": 1, "at": time.time_ns() // 1_000_000})
            await asyncio.sleep(0.5)
            own_broker.start()
            async with Recorder(own_broker.url, [f"cmnd/{relay_topic}/POWER"]) as rec:
                await connected(feed, timeout=40)
                await drained(feed)
                await rec.wait_for(lambda m: True)
                await asyncio.sleep(0.2)
        finally:
            await feed.stop()
        assert [m.payload for m in rec.got] == [b"OFF"]  # never a late ON; the OFF is harmless
        assert feed.outbox.dropped["relay"] == 1

    asyncio.run(main())


@pytest.mark.postgres
def test_two_servers_on_one_postgres_schema_send_one_relay_command_per_horn(
        broker_url: str, prefix: str, pg_url: str, pg_schema: str) -> None:
    from chukker.feeds.claims import PostgresClaims
    from chukker.store.postgres import PostgresStore

    PostgresStore(pg_url, pg_schema).close()  # the schema exists, as under a live server
    relay_topic = prefix.replace("/", "-") + "-pg"

    async def main() -> None:
        relay = RelaySettings("tasmota", relay_topic, pulse_ms=100)
        feeds = [make_feed(broker_url, f"{prefix}/{n}", relay,
                           claims=PostgresClaims(pg_url, pg_schema, n), claims_block=True)
                 for n in ("server-1", "server-2")]
        horn = {"kind": "end", "period": 1, "at": time.time_ns() // 1_000_000}
        async with Recorder(broker_url, [f"cmnd/{relay_topic}/POWER",
                                         f"{prefix}/+/match/+/horn"]) as rec:
            for f in feeds:
                await f.start()
                await connected(f)
            try:
                for f in feeds:  # both schedulers sound the same horn
                    f.on_horn("m1", horn)
                await rec.wait_for(lambda m: m.payload == b"OFF")
                await asyncio.sleep(0.3)
                winner = feeds[0].claims.winner("m1", "end", horn["at"])  # type: ignore[attr-defined]
            finally:
                for f in feeds:
                    await f.stop()
        assert [m.payload for m in rec.on("/POWER")] == [b"ON", b"OFF"]
        assert len(rec.on("/horn")) == 1
        assert rec.on("/horn")[0].topic.startswith(f"{prefix}/{winner}/")

    asyncio.run(main())


def test_server_stopping_mid_pulse_sends_the_tasmota_off_at_once(broker_url: str,
                                                                prefix: str) -> None:
    relay_topic = prefix.replace("/", "-") + "-stop"

    async def main() -> list[bytes]:
        feed = make_feed(broker_url, prefix, RelaySettings("tasmota", relay_topic, 60_000))
        async with Recorder(broker_url, [f"cmnd/{relay_topic}/POWER"]) as rec:
            await feed.start()
            await connected(feed)
            feed.on_horn("m1", {"kind": "end", "period": 1, "at": time.time_ns() // 1_000_000})
            await rec.wait_for(lambda m: m.payload == b"ON")
            await feed.stop()  # a minute before the OFF was due
            await rec.wait_for(lambda m: m.payload == b"OFF")
        return [m.payload for m in rec.got]

    assert asyncio.run(main()) == [b"ON", b"OFF"]


def test_mqtts_with_the_clubs_own_ca_and_a_password(tmp_path: Any, prefix: str) -> None:
    """TLS to a broker whose certificate the club's CA signed, user and password in the URL."""
    import shutil
    import subprocess

    from tests.feeds.conftest import MQTT_HOST, _listening, _missing, free_port

    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    openssl = shutil.which("openssl")
    if not openssl or not os.path.exists(exe):
        _missing("the TLS test needs mosquitto and openssl")
    d = tmp_path

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], cwd=d, check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
        "-days", "2", "-subj", "/CN=club CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr",
        "-subj", "/CN=localhost")
    (d / "ext.cnf").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", "srv.pem", "-days", "2", "-extfile", "ext.cnf")
    subprocess.run([shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd", "-b", "-c",
                    str(d / "passwd"), "club", "s3cret"], check=True, capture_output=True)
    port = free_port()
    (d / "m.conf").write_text(
        f"listener {port} {MQTT_HOST}\ncafile {d}/ca.pem\ncertfile {d}/srv.pem\n"
        f"keyfile {d}/srv.key\nallow_anonymous false\npassword_file {d}/passwd\n"
        "persistence false\n"
        # as root, mosquitto would become the mosquitto user, who cannot read this folder
        + ("user root\n" if os.geteuid() == 0 else ""))
    proc = subprocess.Popen([exe, "-c", str(d / "m.conf")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while not _listening(port, 0.2):
            assert time.monotonic() < deadline and proc.poll() is None, "no TLS broker"
            time.sleep(0.05)

        async def main() -> None:
            mqtt = MqttSettings(url=f"mqtts://club:s3cret@{MQTT_HOST}:{port}", prefix=prefix,
                                tls_ca=str(d / "ca.pem"))
            feed = MqttFeed(mqtt)
            svc = FakeService(feed)
            await feed.start()
            try:
                await connected(feed)
                svc.event(0.0, "bowl_in")
                await drained(feed)
            finally:
                await feed.stop()
            assert feed.published >= 2 and feed.last_error is None

            wrong = MqttFeed(MqttSettings(url=f"mqtts://club:nope@{MQTT_HOST}:{port}",
                                          tls_ca=str(d / "ca.pem")))
            await wrong.start()
            await asyncio.sleep(1.0)
            await wrong.stop(drain_s=0)
            assert not wrong.connected and wrong.last_error  # refused: said in /readyz

        asyncio.run(main())
    finally:
        proc.kill()
        proc.wait()
