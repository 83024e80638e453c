"""Issue 35, MQTT that cannot be taken over: the server's client identifier is never
published, a session taken over is reported and won back, and the relays keep sounding."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import aiomqtt
from tests.feeds.fake import FakeService
from tests.feeds.helpers import Recorder
from tests.feeds.test_mqtt import connected, drained, make_feed

from chukker.config import RelaySettings
from chukker.feeds import metrics
from chukker.feeds.mqtt import MqttFeed


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def test_no_topic_nor_payload_names_the_servers_client_identifier(broker_url: str,
                                                                   prefix: str) -> None:
    shelly = prefix.replace("/", "-") + "-shelly"

    async def main() -> None:
        feed = make_feed(broker_url, prefix, RelaySettings("shelly", shelly, 500))
        feed.client_id = feed.session_id = "Zq8-secret-identifier"
        svc = FakeService(feed, start_ms=_now_ms() - 120_000)
        feed.header_of = svc.header_of
        async with Recorder(broker_url, [f"{prefix}/#", f"{shelly}/#"]) as rec:
            await feed.start()
            await connected(feed)
            try:
                svc.event(0.0, "bowl_in")
                svc.run_to(120.0)
                await rec.wait_for(lambda m: m.topic.endswith("/rpc"))
                await drained(feed)
            finally:
                await feed.stop()
            await asyncio.sleep(0.1)
        assert rec.got, "nothing was published"
        assert any(m.topic == feed.online_topic for m in rec.got)
        for m in rec.got:
            assert feed.client_id not in m.topic, m.topic
            assert feed.client_id.encode() not in m.payload, (m.topic, m.payload)
        async with aiomqtt.Client("127.0.0.1", int(broker_url.rsplit(":", 1)[1])) as c:
            await c.publish(feed.online_topic, b"", qos=1, retain=True)  # leave no trace

    asyncio.run(main())


def test_a_session_taken_over_is_reported_won_back_and_every_later_relay_horn_sounds(
        broker_url: str, prefix: str) -> None:
    """An attacker who learnt the identifier (here: read from the feed, as if leaked)
    connects with it every 0.3 s. The broker drops the server's session (MQTT 5 reason
    code 0x8E); the server reports it and reconnects with a fresh identifier, so the
    attacker's later connections take nothing over and the relay sounds every horn."""
    relay_topic = prefix.replace("/", "-") + "-taken"
    port = int(broker_url.rsplit(":", 1)[1])
    before = metrics.TAKEN_OVER._value.get()

    async def attack(identifier: str, stop: asyncio.Event) -> None:
        while not stop.is_set():
            with contextlib.suppress(aiomqtt.MqttError):
                async with aiomqtt.Client("127.0.0.1", port, identifier=identifier):
                    await asyncio.sleep(0.3)

    async def main() -> tuple[MqttFeed, list[Any], int]:
        feed = make_feed(broker_url, prefix, RelaySettings("tasmota", relay_topic, pulse_ms=50))
        stop = asyncio.Event()
        async with Recorder(broker_url, [f"cmnd/{relay_topic}/POWER"]) as rec:
            await feed.start()
            await connected(feed)
            attacker = asyncio.create_task(attack(feed.client_id, stop))
            try:
                async with asyncio.timeout(15):
                    while not feed.taken_over:
                        await asyncio.sleep(0.02)
                await connected(feed)
                assert feed.status()["session_taken_over"] >= 1
                assert feed.session_id != feed.client_id
                horns = 8
                for i in range(horns):  # the attack goes on meanwhile
                    feed.on_horn("m1", {"kind": "end", "period": i + 1, "at": _now_ms()})
                    await asyncio.sleep(0.35)
                await rec.wait_for(lambda m: len(rec.on("/POWER")) >= 2 * horns)
            finally:
                stop.set()
                await attacker
                await feed.stop()
        return feed, rec.on("/POWER"), horns

    feed, power, horns = asyncio.run(main())
    assert [m.payload for m in power].count(b"ON") == horns
    assert metrics.TAKEN_OVER._value.get() > before
    assert feed.status()["last_taken_over_ms"] is not None


class _Lost(Exception):
    """A connection lost without a reason code (an MQTT 3.1.1 broker)."""


def test_repeated_short_connections_count_as_a_session_taken_over_without_a_reason_code(
) -> None:
    feed = make_feed("mqtt://127.0.0.1:1", "chukker-test/unit")
    first = feed.session_id
    assert not feed._taken_over(_Lost(), 0.5)
    assert not feed._taken_over(_Lost(), 30.0)  # a connection that lived: not counted
    assert not feed._taken_over(_Lost(), 0.5)
    assert feed._taken_over(_Lost(), 0.5)
    assert feed.taken_over == 1 and feed.session_id != first
    assert feed.session_id.startswith(feed.client_id)


def test_the_online_topic_names_the_server_by_its_name_not_its_identifier() -> None:
    from chukker.config import MqttSettings

    feed = MqttFeed(MqttSettings(url="mqtt://127.0.0.1:1", prefix="p", client_id="secret-id",
                                 server_name="arena-box"))
    assert feed.online_topic == "p/server/arena-box/online"
    anonymous = MqttFeed(MqttSettings(url="mqtt://127.0.0.1:1", prefix="p"))
    assert anonymous.client_id not in anonymous.online_topic
