"""The live stream's fast path: once its headers are sent, write straight to the socket.

uvicorn's HTTP protocol (``limits.GuardedHttp``) puts a :class:`SocketWire` into the
scope of every ``.../stream`` request (``scope["extensions"]["chukker.wire"]``). The
stream sends its headers and first state through the ASGI chain as any answer
does (middleware sees it once: headers, logs, metrics), then hands the wire to its
subscriber: every later message is a chunk framed once for all viewers
(:func:`chukker.live.fanout.chunk`), below the ASGI send chain: sent to the socket's
descriptor with the rest of its slice (``fanout.send_each``) while the transport holds
nothing buffered, else one ``transport.write``.
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

    __slots__ = ("_fileno", "_write", "behind", "cycle", "fast", "fd", "flow", "limit",
                 "transport", "waiter")

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
        sock = transport.get_extra_info("socket")
        #: the socket's descriptor, for the fan-out's direct sends (-1: none)
        self._fileno: int = sock.fileno() if sock is not None else -1
        #: the same while the stream is the subscriber's, its transport holds nothing
        #: buffered and the connection is open (``fanout.send_each`` then sends to it);
        #: -1 otherwise. Cleared before the transport closes the socket: asyncio and
        #: uvloop both call ``connection_lost`` (:meth:`lost`) first.
        self.fd = -1

    def direct(self) -> None:
        """Direct sends from the next message, if the transport holds nothing buffered
        (else the bytes it holds would be overtaken) and the connection is open."""
        t = self.transport
        if (self.fast is not None and not self.flow.write_paused and not t.is_closing()
                and not t.get_write_buffer_size()):
            self.fd = self._fileno

    def leave(self) -> None:
        """The stream is no longer its subscriber's: no more direct sends."""
        self.fd = -1

    def sent_part(self, framed: bytes, result: int, messages: int = 1) -> bool:
        """A direct send took ``result`` bytes of ``framed`` (minus the errno if it
        failed): the rest goes through the transport, which buffers it (the socket is
        full) or sees the error and closes; direct sends wait for its buffer to empty."""
        self.fd = -1
        return self.write(framed[result:] if result > 0 else framed, messages)

    def paused(self) -> None:
        """The socket's buffer went over its mark (``pause_writing``): count what is
        buffered behind it (:meth:`write`)."""
        self.fast = None
        self.fd = -1

    def resumed(self) -> None:
        """The socket drained (``resume_writing``): straight writes again."""
        self.behind = 0
        if not self.transport.is_closing():
            self.fast = self._write

    def lost(self) -> None:
        """The connection is gone: nothing more is written to it; its stream ends."""
        self.fast = None
        self.fd = -1
        w = self.waiter
        if w is not None and not w.done():
            w.set_result(None)

    def ready(self) -> bool:
        """Headers sent in chunked coding and the answer still open: writes may go direct."""
        c = self.cycle
        return bool(c.response_started and c.chunked_encoding and not c.response_complete
                    and not c.disconnected and not self.transport.is_closing())

    def write(self, framed: bytes, messages: int = 1) -> bool:
        """The hot path of every fan-out: one flag, one ``write`` (checks only when the
        socket's buffer is over its mark or the transport is gone). ``messages``: how
        many messages ``framed`` carries (the fan-out joins them when it fell behind),
        each counted against the viewer's limit."""
        if self.flow.write_paused:
            if self.transport.is_closing():
                return True  # gone: the stream's task sees the disconnect and ends
            self.behind += messages
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
        self.fd = -1
        self.fast = None
        self.transport.abort()


def wire_of(scope: Any) -> SocketWire | None:
    ext = scope.get("extensions")
    found = ext.get(EXTENSION) if ext else None
    return found if isinstance(found, SocketWire) else None
