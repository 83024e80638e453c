"""Subscribers for the feed's tests: a Tasmota-style relay and a topic recorder."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import aiomqtt


@dataclass
class Received:
    topic: str
    payload: bytes
    retain: bool
    #: wall ms when it arrived
    at_ms: int

    def json(self) -> Any:
        return json.loads(self.payload)


@dataclass
class Recorder:
    """Subscribes to ``topics`` and keeps every message (a relay, a board, a logger)."""

    url: str
    topics: list[str]
    got: list[Received] = field(default_factory=list)
    _task: asyncio.Task[None] | None = None
    _ready: asyncio.Event = field(default_factory=asyncio.Event)

    async def __aenter__(self) -> Recorder:
        self._task = asyncio.create_task(self._run())
        async with asyncio.timeout(10):
            await self._ready.wait()
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task

    async def _run(self) -> None:
        u = urlsplit(self.url)
        while True:
            try:
                async with aiomqtt.Client(u.hostname or "127.0.0.1", u.port or 1883) as c:
                    for t in self.topics:
                        await c.subscribe(t, qos=1)
                    self._ready.set()
                    async for m in c.messages:
                        body = m.payload if isinstance(m.payload, bytes) else str(
                            m.payload).encode()
                        self.got.append(Received(str(m.topic), body, bool(m.retain),
                                                 time.time_ns() // 1_000_000))
            except aiomqtt.MqttError:
                await asyncio.sleep(0.2)

    def on(self, suffix: str) -> list[Received]:
        return [m for m in self.got if m.topic.endswith(suffix)]

    async def wait_for(self, pred: Any, timeout: float = 10.0) -> list[Received]:
        async with asyncio.timeout(timeout):
            while True:
                hits = [m for m in self.got if pred(m)]
                if hits:
                    return hits
                await asyncio.sleep(0.01)


async def retained(url: str, topic: str, timeout: float = 5.0) -> Received | None:
    """The message the broker retains on ``topic`` (a new subscriber's first message)."""
    async with Recorder(url, [topic]) as r:
        try:
            hits = await r.wait_for(lambda m: m.retain, timeout)
        except TimeoutError:
            return None
        return hits[-1]
