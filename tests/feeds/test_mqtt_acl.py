"""Issue 41: the Mosquitto ACL of ``docs/feeds.md`` against a real Mosquitto (one of this
test, on a free port, with the docs' password file and ACL), with a Tasmota and a
Shelly relay subscribing as their own users: every horn reaches both. With the docs'
old ACL, which denied the Shelly's ``<topic>/rpc``, the horn is reported refused (MQTT 5
PUBACK reason code 0x87), never published."""

from __future__ import annotations

import asyncio
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import aiomqtt
import pytest
from tests.feeds.conftest import OwnBroker
from tests.feeds.fake import FakeService

from chukker.config import HornSettings, MqttSettings, RelaySettings
from chukker.feeds.mqtt import MqttFeed
from chukker.feeds.outbox import Kind

DOCS = Path(__file__).resolve().parents[2] / "docs" / "feeds.md"
TASMOTA, SHELLY = "arena1-horn", "shellyplus1-arena1"
USERS = {"chukker": "s3rver", "board": "b0ard", TASMOTA: "t4smota", SHELLY: "sh3lly"}
#: the line of the docs' old ACL for Shelly relays (Gen1's topics, not Gen2's RPC)
OLD_SHELLY_LINE = "topic readwrite shellies/#"


def docs_acl() -> str:
    """The ACL block of docs/feeds.md, as a club would copy it."""
    blocks = re.findall(r"```text\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    (acl,) = [str(b) for b in blocks if b.startswith("# /etc/mosquitto/chukker.acl")]
    return acl


def old_acl() -> str:
    return re.sub(r"(?m)^topic write \+/rpc$", OLD_SHELLY_LINE, docs_acl())


@pytest.fixture
def locked(own_broker: OwnBroker) -> Iterator[OwnBroker]:
    """The test's Mosquitto restarted with the docs' lock-down: no anonymous clients, a
    password file made with ``mosquitto_passwd``, the ACL written by each test."""
    own_broker.stop()
    pw = own_broker.dir / "chukker.passwd"
    for i, (user, password) in enumerate(USERS.items()):
        subprocess.run(["mosquitto_passwd", *(["-c"] if i == 0 else []), "-b", str(pw), user,
                        password], check=True, capture_output=True, timeout=30)
    # run as root, Mosquitto drops to its own user before it reads the two files
    own_broker.dir.chmod(0o755)
    pw.chmod(0o644)
    own_broker.conf.write_text(
        f"listener {own_broker.port} 127.0.0.1\nallow_anonymous false\npersistence false\n"
        f"password_file {pw}\nacl_file {own_broker.dir / 'chukker.acl'}\n")
    yield own_broker


async def _relay(port: int, user: str, topic: str, got: list[tuple[str, bytes]],
                 ready: asyncio.Event) -> None:
    async with aiomqtt.Client("127.0.0.1", port, username=user, password=USERS[user]) as c:
        await c.subscribe(topic, qos=1)
        ready.set()
        async for m in c.messages:
            got.append((str(m.topic), bytes(m.payload) if isinstance(m.payload, bytes | bytearray)
                        else str(m.payload).encode()))


async def _horn_with_relays(broker: OwnBroker) -> tuple[MqttFeed, list[tuple[str, bytes]]]:
    """The server (user ``chukker``) sounds one horn with a Tasmota and a Shelly relay;
    each relay subscribes to its own commands as its own user. The relays' messages."""
    got: list[tuple[str, bytes]] = []
    readies = [asyncio.Event(), asyncio.Event()]
    subs = [asyncio.create_task(_relay(broker.port, TASMOTA, f"cmnd/{TASMOTA}/POWER", got,
                                       readies[0])),
            asyncio.create_task(_relay(broker.port, SHELLY, f"{SHELLY}/rpc", got, readies[1]))]
    mqtt = MqttSettings(url=f"mqtt://chukker:{USERS['chukker']}@127.0.0.1:{broker.port}",
                        prefix="chukker", client_id="t-acl", server_name="acl-test")
    feed = MqttFeed(mqtt, HornSettings(relays=(RelaySettings("tasmota", TASMOTA, 200),
                                               RelaySettings("shelly", SHELLY, 800))))
    try:
        async with asyncio.timeout(10):
            for r in readies:
                await r.wait()
        await feed.start()
        async with asyncio.timeout(10):
            while not feed.connected:
                await asyncio.sleep(0.01)
        svc = FakeService(feed, start_ms=time.time_ns() // 1_000_000 - 120_000)
        svc.event(0.0, "bowl_in")
        svc.run_to(120.0)  # the practice period's end: a horn
        async with asyncio.timeout(10):
            while feed.published + feed.refused < 4 or len(got) < 1:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.4)  # the Tasmota's OFF, and anything else on its way
    finally:
        await feed.stop()
        for t in subs:
            t.cancel()
        await asyncio.gather(*subs, return_exceptions=True)
    return feed, got


def test_docs_acl_lets_the_server_sound_a_tasmota_and_a_shelly_relay(locked: OwnBroker) -> None:
    (locked.dir / "chukker.acl").write_text(docs_acl())
    locked.start()
    feed, got = asyncio.run(_horn_with_relays(locked))
    topics = [t for t, _ in got]
    assert f"{SHELLY}/rpc" in topics, got
    assert topics.count(f"cmnd/{TASMOTA}/POWER") == 2, got  # ON, then OFF
    assert b'"method":"Switch.Set"' in dict(got)[f"{SHELLY}/rpc"]
    assert feed.refused == 0 and feed.status()["refused_topics"] == {}


def test_a_publish_the_broker_refuses_is_reported_refused_not_published(
        locked: OwnBroker) -> None:
    (locked.dir / "chukker.acl").write_text(old_acl())
    locked.start()
    feed, got = asyncio.run(_horn_with_relays(locked))
    assert f"{SHELLY}/rpc" not in [t for t, _ in got]  # the horn that never fired
    assert [t for t, _ in got].count(f"cmnd/{TASMOTA}/POWER") == 2
    status = feed.status()
    assert status["refused"] == 1 and "Not authorized" in status["refused_topics"][
        f"{SHELLY}/rpc"]
    assert len(feed.relay_latency) == 1  # the Tasmota's ON sounded; the Shelly's did not
    assert feed.outbox.dropped[Kind.RELAY] == 1


def test_docs_acl_lets_no_board_sound_a_horn(locked: OwnBroker) -> None:
    """A board's password (read-only) cannot sound a relay: the broker refuses."""
    (locked.dir / "chukker.acl").write_text(docs_acl())
    locked.start()

    async def main() -> list[str]:
        got: list[tuple[str, bytes]] = []
        ready = asyncio.Event()
        sub = asyncio.create_task(_relay(locked.port, TASMOTA, f"cmnd/{TASMOTA}/POWER", got,
                                         ready))
        async with asyncio.timeout(10):
            await ready.wait()
        async with aiomqtt.Client("127.0.0.1", locked.port, username="board",
                                  password=USERS["board"],
                                  protocol=aiomqtt.ProtocolVersion.V5) as c:
            await c.publish(f"cmnd/{TASMOTA}/POWER", b"ON", qos=1)
            await c.publish(f"{SHELLY}/rpc", b"{}", qos=1)
        await asyncio.sleep(0.3)
        sub.cancel()
        await asyncio.gather(sub, return_exceptions=True)
        return [t for t, _ in got]

    assert asyncio.run(main()) == []
