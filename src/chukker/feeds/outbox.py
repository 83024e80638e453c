"""The MQTT feed's bounded queue: nothing put here ever waits.

Three lanes, served in this order:

1. relay commands (a horn must sound at its instant);
2. horns and events, first in first out, at most ``limit``: beyond it the oldest
   is dropped and counted (``chukker_mqtt_dropped_total{reason="queue_full"}``);
3. states, coalesced: one per topic, the latest. The latest state of every
   topic is also kept (:attr:`Outbox.retained`, the newest ``retained_limit``
   topics) and queued again after a reconnect (:meth:`Outbox.republish`), so
   a broker that lost its retained messages gets them back.

>>> from chukker.feeds.outbox import Kind, Message, Outbox
>>> box = Outbox(limit=2)
>>> for i in range(3):
...     box.put(Message(Kind.EVENT, "t/event", str(i).encode()))
>>> box.put_state(Message(Kind.STATE, "t/state", b"old", retain=True))
>>> box.put_state(Message(Kind.STATE, "t/state", b"new", retain=True))
>>> [m.payload for m in iter(box.pop, None)], box.dropped[Kind.EVENT]
([b'1', b'2', b'new'], 1)
"""

from __future__ import annotations

import asyncio
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from chukker.feeds import metrics


class Kind(StrEnum):
    STATE = "state"
    EVENT = "event"
    HORN = "horn"
    RELAY = "relay"


@dataclass(slots=True, eq=False)
class Message:
    kind: Kind
    topic: str
    #: the bytes to publish; ``None``: ``build()`` makes them when the message goes out
    payload: bytes | None = None
    retain: bool = False
    build: Callable[[], bytes] | None = None
    #: relay commands: the horn's instant (epoch ms), for lateness and its latency metric
    horn_at: int | None = None
    #: relay commands: this one makes the horn sound (not the ``OFF`` that follows)
    sounds: bool = False
    #: times the broker refused or lost it
    tries: int = field(default=0)
    #: relay commands: what follows this one, and how long after it goes out (Tasmota's OFF)
    then: tuple[int, Message] | None = None

    def body(self) -> bytes:
        if self.payload is None:
            assert self.build is not None
            self.payload = self.build()
        return self.payload


class Outbox:
    def __init__(self, limit: int = 10_000, retained_limit: int = 5_000) -> None:
        self.limit = limit
        self.retained_limit = retained_limit
        self._relay: deque[Message] = deque()
        self._stream: deque[Message] = deque()
        self._states: dict[str, Message] = {}
        #: the latest state of each topic (oldest-touched first)
        self.retained: OrderedDict[str, Message] = OrderedDict()
        self.dropped: Counter[Kind] = Counter()
        self._ready = asyncio.Event()

    def __len__(self) -> int:
        return len(self._relay) + len(self._stream) + len(self._states)

    def _changed(self) -> None:
        metrics.QUEUE_DEPTH.set(len(self))
        if len(self):
            self._ready.set()

    def drop(self, msg: Message, reason: str) -> None:
        self.dropped[msg.kind] += 1
        metrics.DROPPED.labels(msg.kind.value, reason).inc()

    def put(self, msg: Message, *, front: bool = False) -> None:
        """Queue a relay command, a horn or an event (never waits)."""
        lane = self._relay if msg.kind is Kind.RELAY else self._stream
        if front:
            lane.appendleft(msg)
        else:
            lane.append(msg)
        while len(lane) > self.limit:
            self.drop(lane.popleft() if not front else lane.pop(), "queue_full")
        self._changed()

    def put_state(self, msg: Message, *, again: bool = False) -> None:
        """Queue a state: it replaces any state of its topic not yet sent.

        ``again``: a state that failed to go out; it goes back only if no newer one came.
        """
        if again:
            if self.retained.get(msg.topic) is msg and msg.topic not in self._states:
                self._states[msg.topic] = msg
                self._changed()
            return
        self._states[msg.topic] = msg
        if msg.retain:
            self.retained[msg.topic] = msg
            self.retained.move_to_end(msg.topic)
            while len(self.retained) > self.retained_limit:
                self.retained.popitem(last=False)
        self._changed()

    def republish(self) -> int:
        """Queue every retained state again (after a reconnect); how many."""
        n = 0
        for topic, msg in self.retained.items():
            if topic not in self._states:
                self._states[topic] = msg
                n += 1
        self._changed()
        return n

    def pop(self) -> Message | None:
        """The next message to publish, or ``None``."""
        msg: Message | None = None
        if self._relay:
            msg = self._relay.popleft()
        elif self._stream:
            msg = self._stream.popleft()
        elif self._states:
            topic = next(iter(self._states))
            msg = self._states.pop(topic)
        if not len(self):
            self._ready.clear()
        metrics.QUEUE_DEPTH.set(len(self))
        return msg

    def pop_relay(self) -> Message | None:
        """The next relay command, or ``None``."""
        if not self._relay:
            return None
        msg = self._relay.popleft()
        if not len(self):
            self._ready.clear()
        metrics.QUEUE_DEPTH.set(len(self))
        return msg

    def relays(self) -> list[Message]:
        """The relay commands waiting (to drop those grown too late)."""
        return list(self._relay)

    def remove_relay(self, msg: Message) -> None:
        self._relay.remove(msg)
        self._changed()

    async def wait(self, timeout: float) -> bool:
        """Until something is queued (True) or ``timeout`` seconds pass (False)."""
        if len(self):
            return True
        try:
            async with asyncio.timeout(timeout):
                await self._ready.wait()
        except TimeoutError:
            return False
        return True
