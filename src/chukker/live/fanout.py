"""Subscribers and the fan-out: Server-Sent Events encoding, merge patches, the outbox.

A message is encoded once and handed to every subscriber of its match,
``FANOUT_SLICE`` of them per event-loop iteration; a subscriber more than
``QUEUE_LIMIT`` messages behind is dropped (it gives its slot back and
reconnects with Last-Event-ID).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from chukker.ops import metrics

#: messages a slow client may have queued before it is dropped (it reconnects
#: with Last-Event-ID and gets what it missed)
QUEUE_LIMIT = 512
#: seconds between two keep-alive comments on every stream
KEEPALIVE_S = 15.0
#: subscribers served per event-loop iteration when a message fans out
FANOUT_SLICE = 64


@dataclass(eq=False)
class Subscriber:
    queue: asyncio.Queue[bytes] = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))
    dropped: bool = False
    #: called once when the subscriber is dropped for falling behind (gives back its slot)
    on_drop: Callable[[], None] | None = None

@dataclass(eq=False)
class Outbox:
    """Messages being handed to a match's subscribers, oldest first, with who gets them."""

    queue: deque[tuple[bytes, list[Subscriber], float]] = field(default_factory=deque)

    def __bool__(self) -> bool:
        return bool(self.queue)

    def send(self, data: bytes, subscribers: set[Subscriber]) -> None:
        """Queue ``data`` for every one of ``subscribers`` (in slices, in order)."""
        self.queue.append((data, list(subscribers), time.perf_counter()))
        if len(self.queue) == 1:
            self._pump(subscribers, 0)

    def _pump(self, live: set[Subscriber], start: int) -> None:
        msg, subs, t0 = self.queue[0]
        end = min(start + FANOUT_SLICE, len(subs))
        for sub in subs[start:end]:
            if sub.dropped:
                continue
            try:
                sub.queue.put_nowait(msg)
            except asyncio.QueueFull:
                sub.dropped = True
                live.discard(sub)
                gone = sub.on_drop
                if gone is not None:
                    sub.on_drop = None
                    gone()
        if end < len(subs):
            asyncio.get_running_loop().call_soon(self._pump, live, end)
            return
        self.queue.popleft()
        metrics.fanned_out(time.perf_counter() - t0)
        if self.queue:
            asyncio.get_running_loop().call_soon(self._pump, live, 0)


def sse(kind: str, data: dict[str, Any], seq: int | None) -> str:
    """One Server-Sent Events message.

    >>> sse("state", {"seq": 2}, 2)
    'id: 2\\nevent: state\\ndata: {"seq":2}\\n\\n'
    """
    head = f"id: {seq}\n" if seq is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def merge_diff(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The RFC 7386 merge patch that turns ``old`` into ``new``.

    A member that becomes null (or goes) is sent as null: applied by RFC 7386
    it is left out, which readers take as null; ``live.js`` keeps it as null,
    which gives back ``new`` exactly (a report's members never go away).
    Arrays that change are sent whole (RFC 7386 has no way to append).

    >>> merge_diff({"a": 1, "c": {"x": 1, "y": 2}, "d": 4}, {"a": 1, "c": {"x": 3, "y": 2}})
    {'d': None, 'c': {'x': 3}}
    >>> merge_diff({"w": "A", "r": None}, {"w": None, "r": {"spot": None}})
    {'w': None, 'r': {'spot': None}}
    """
    patch: dict[str, Any] = {}
    for k in old:
        if k not in new:
            patch[k] = None
    for k, v in new.items():
        if k in old:
            o = old[k]
            if o == v:
                continue
            if isinstance(v, dict) and isinstance(o, dict):
                patch[k] = merge_diff(o, v)
                continue
        patch[k] = v
    return patch
