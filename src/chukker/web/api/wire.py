"""The live stream's fast path: once its headers are sent, write straight to the socket.

uvicorn's HTTP protocol (``limits.GuardedHttp``) puts a :class:`SocketWire` into the
scope of every ``.../stream`` request (``scope["extensions"]["chukker.wire"]``). The
stream sends its headers and first state through the ASGI chain as any answer
does (middleware sees it once: headers, logs, metrics), then hands the wire to its
subscriber: every later message is one ``transport.write`` of a chunk framed once
for all viewers (:func:`chukker.live.fanout.chunk`), below the ASGI send chain.
At the end (the viewer went, fell behind, or the server stops) the last chunk goes
through the ASGI chain again, so uvicorn's response cycle ends as usual.

Backpressure: while the socket's buffer is over its high-water mark (the viewer
stopped reading) messages are still buffered, at most ``QUEUE_LIMIT`` of them;
one more and the viewer is dropped and its connection cut (its slot goes back at
once; it reconnects with Last-Event-ID). ``WRITE_STALL_S`` cuts a viewer whose
socket stays blocked (``limits.GuardedHttp.pause_writing``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from chukker.live import fanout

#: the scope extension that carries the wire
EXTENSION = "chukker.wire"


class SocketWire:
    """One stream's socket, as uvicorn's protocol sees it."""

    __slots__ = ("_write", "behind", "cycle", "fast", "flow", "limit", "transport", "waiter")

    def __init__(self, transport: asyncio.Transport, flow: Any, cycle: Any) -> None:
        self.transport = transport
        self.flow = flow  # uvicorn's FlowControl: write_paused over the high-water mark
        self.cycle = cycle  # uvicorn's RequestResponseCycle of this request
        self.behind = 0
        #: messages it may fall behind (its subscriber's; ``None``: ``fanout.QUEUE_LIMIT``)
        self.limit: int | None = None
        #: the transport's bound ``write``, looked up once (a fan-out calls it per viewer)
        self._write = transport.write
        #: the same while the socket keeps up: the fan-out calls it without a check
        #: (``None`` while the protocol's writing is paused, and once the connection is lost)
        self.fast: Any = None if flow.write_paused else transport.write
        #: done when the connection is lost (the stream waits for it, or for its end)
        self.waiter: asyncio.Future[None] | None = None

    def paused(self) -> None:
        """The socket's buffer went over its mark (``pause_writing``): count what is
        buffered behind it (:meth:`write`)."""
        self.fast = None

    def resumed(self) -> None:
        """The socket drained (``resume_writing``): straight writes again."""
        self.behind = 0
        if not self.transport.is_closing():
            self.fast = self._write

    def lost(self) -> None:
        """The connection is gone: nothing more is written to it; its stream ends."""
        self.fast = None
        w = self.waiter
        if w is not None and not w.done():
            w.set_result(None)

    def ready(self) -> bool:
        """Headers sent in chunked coding and the answer still open: writes may go direct."""
        c = self.cycle
        return bool(c.response_started and c.chunked_encoding and not c.response_complete
                    and not c.disconnected and not self.transport.is_closing())

    def write(self, framed: bytes) -> bool:
        """The hot path of every fan-out: one flag, one ``write`` (checks only when the
        socket's buffer is over its mark or the transport is gone)."""
        if self.flow.write_paused:
            if self.transport.is_closing():
                return True  # gone: the stream's task sees the disconnect and ends
            self.behind += 1
            if self.behind > (fanout.QUEUE_LIMIT if self.limit is None else self.limit):
                return False
        elif self.behind:
            self.behind = 0
        try:  # noqa: SIM105 - a context manager per viewer per message costs more
            self._write(framed)
        except RuntimeError:  # uvloop: the transport is closed; the stream's task ends
            pass
        return True

    def close(self) -> None:
        self.transport.abort()


def wire_of(scope: Any) -> SocketWire | None:
    ext = scope.get("extensions")
    found = ext.get(EXTENSION) if ext else None
    return found if isinstance(found, SocketWire) else None
