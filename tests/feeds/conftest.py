"""A real MQTT broker for the feed's tests: the machine's Mosquitto on 127.0.0.1:1883
(skips with its reason where none runs; fails under CHUKKER_REQUIRE_MQTT=1), or one
started for a test on a free port (tests that stop and restart their broker)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests import ports

MQTT_HOST = "127.0.0.1"
MQTT_PORT = int(os.environ.get("CHUKKER_TEST_MQTT_PORT", "1883"))


def _listening(port: int, timeout: float = 1.0) -> bool:
    try:
        with socket.create_connection((MQTT_HOST, port), timeout=timeout):
            return True
    except OSError:
        return False


def _missing(reason: str) -> None:
    if os.environ.get("CHUKKER_REQUIRE_MQTT") == "1":
        pytest.fail(f"CHUKKER_REQUIRE_MQTT=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture
def broker_url() -> str:
    """The machine's Mosquitto (``mqtt://127.0.0.1:1883``)."""
    if not _listening(MQTT_PORT):
        _missing(f"the MQTT tests need a broker on {MQTT_HOST}:{MQTT_PORT} (mosquitto -d)")
    return f"mqtt://{MQTT_HOST}:{MQTT_PORT}"


@pytest.fixture
def prefix() -> Iterator[str]:
    """A topic prefix of this test alone (others run tests on the same broker); the
    retained messages left under it on the machine's broker are cleared afterwards."""
    p = "chukker-test/" + uuid.uuid4().hex[:10]
    yield p
    if _listening(MQTT_PORT, 0.2):
        _clear_retained(p)


def _clear_retained(prefix: str) -> None:
    import asyncio
    import contextlib

    import aiomqtt

    async def clear() -> None:
        topics: set[str] = set()
        async with aiomqtt.Client(MQTT_HOST, MQTT_PORT) as c:
            await c.subscribe(f"{prefix}/#")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.3):
                    async for m in c.messages:
                        if m.retain:
                            topics.add(str(m.topic))
            for t in topics:
                await c.publish(t, b"", qos=1, retain=True)

    with contextlib.suppress(Exception):
        asyncio.run(clear())


def free_port() -> int:
    return ports.free_port(1, MQTT_HOST)


class OwnBroker:
    """A Mosquitto of this test on a free port, which it may stop and start again."""

    def __init__(self, exe: str) -> None:
        self.exe = exe
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="chukker-mqtt-"))
        self.conf = self.dir / "mosquitto.conf"
        self.conf.write_text(f"listener {self.port} {MQTT_HOST}\nallow_anonymous true\n"
                             "persistence false\n")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{MQTT_HOST}:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen([self.exe, "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not _listening(self.port, 0.2):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto did not start on port {self.port}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None


@pytest.fixture
def own_broker() -> Iterator[OwnBroker]:
    exe = shutil.which("mosquitto") or ("/usr/sbin/mosquitto"
                                        if os.path.exists("/usr/sbin/mosquitto") else None)
    if exe is None:
        _missing("the broker restart tests need mosquitto installed (apt-get install mosquitto)")
    assert exe is not None
    b = OwnBroker(exe)
    b.start()
    yield b
    b.stop()
    shutil.rmtree(b.dir, ignore_errors=True)
