"""Connection limits of ``chukker serve``: header and body timeouts (slowloris), a
write-stall timeout (clients that stop reading), a ceiling on open connections
below the file-descriptor limit, and the live streams'
caps per address and in total with a share kept for the match's own screens.

>>> caps = StreamCaps(total=3, per_address=2, reserved=1)
>>> caps.acquire("a", False), caps.acquire("a", False), caps.acquire("a", False)
(True, True, False)
>>> caps.acquire("b", False), caps.acquire("b", True)
(False, True)
"""

from __future__ import annotations

import asyncio
import os
import resource
import weakref
from collections import Counter
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from chukker.live.fanout import FANOUT_SLICE, Turns
from chukker.web.api.wire import EXTENSION, SocketWire

#: seconds a client has to send a request's headers, then its body
HEADER_TIMEOUT_S = float(os.environ.get("CHUKKER_HEADER_TIMEOUT_S", "10"))
BODY_TIMEOUT_S = float(os.environ.get("CHUKKER_BODY_TIMEOUT_S", "10"))
#: seconds an idle keep-alive connection stays open
KEEP_ALIVE_S = 5
#: seconds a connection may keep the server's writes blocked (a client that stopped
#: reading, its socket's buffers full) before it is cut, freeing its stream slot
WRITE_STALL_S = float(os.environ.get("CHUKKER_WRITE_STALL_S", "30"))


def raise_fd_limit() -> int:
    """Raise the soft limit on open files to the hard one; return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    return soft


def connection_ceiling() -> int:
    """Open connections beyond which new ones are closed at once (files for the database,
    logs and the reader threads are kept)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return max(64, soft - 256)


class StreamCaps:
    """Live streams per address and in total. ``reserved`` of the total are kept for
    clients that present the match's token (the timekeeper's and committee's screens),
    so a flood of spectators degrades spectators only."""

    def __init__(self, total: int, per_address: int, reserved: int) -> None:
        self.total, self.per_address, self.reserved = total, per_address, reserved
        self.by_address: Counter[str] = Counter()
        self.open = 0

    def acquire(self, address: str, privileged: bool) -> bool:
        limit = self.total if privileged else self.total - self.reserved
        if self.open >= limit:
            return False
        if not privileged and self.by_address[address] >= self.per_address:
            return False
        self.open += 1
        self.by_address[address] += 1
        return True

    def release(self, address: str) -> None:
        self.open -= 1
        self.by_address[address] -= 1
        if self.by_address[address] <= 0:
            del self.by_address[address]

    @classmethod
    def from_env(cls) -> StreamCaps:
        total = int(os.environ.get("CHUKKER_MAX_STREAMS", "16000"))
        per = int(os.environ.get("CHUKKER_MAX_STREAMS_PER_ADDRESS", "2000"))
        return cls(total, per, max(1, total // 20))


class StreamGate:
    """At most ``concurrency`` live streams being set up at once (routing, the first
    state, the first write); the others wait their turn before any of that work.

    A thousand spectators connecting together would otherwise put a thousand
    set-ups ahead of the timekeeper's next POST in the event loop; gated, the
    POST passes after a handful.
    """

    def __init__(self, app: ASGIApp, concurrency: int = 8) -> None:
        self.app = app
        self.slots = asyncio.Semaphore(concurrency)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope.get("path", "").endswith("/stream"):
            await self.app(scope, receive, send)
            return
        await self.slots.acquire()
        held = True

        def release() -> None:
            nonlocal held
            if held:
                held = False
                self.slots.release()

        async def first_write_releases(msg: Message) -> None:
            try:
                await send(msg)
            finally:
                if msg["type"] == "http.response.body":
                    release()

        try:
            await self.app(scope, receive, first_write_releases)
        finally:
            release()


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's HTTP protocol with header and body deadlines and a connection ceiling."""

    ceiling = 1 << 30

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._stall: asyncio.TimerHandle | None = None
        if len(self.connections) > self.ceiling:
            transport.abort()
            return
        self._arm(HEADER_TIMEOUT_S)

    def _arm(self, seconds: float) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.abort()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._deadline is None:
            self._arm(HEADER_TIMEOUT_S)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._arm(BODY_TIMEOUT_S)
        scope = self.scope
        cycle = self.cycle
        if (cycle is not None and cycle.scope is scope
                and scope.get("path", "").endswith("/stream")):
            # the live stream's fast path (web/api/wire.py): its socket, for after its headers
            extensions: dict[str, Any] = scope.setdefault("extensions", {})
            extensions[EXTENSION] = SocketWire(self.transport, self.flow, cycle)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def pause_writing(self) -> None:
        """The transport's buffer is full: the client is not reading. It has
        ``WRITE_STALL_S`` to start again before the connection is cut."""
        super().pause_writing()
        if self._stall is None:
            self._stall = self.loop.call_later(WRITE_STALL_S, self._too_slow)

    def resume_writing(self) -> None:
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        super().resume_writing()

    def eof_received(self) -> bool | None:  # type: ignore[override]
        """The client closed its side. A live stream's connection is closed in its turn,
        ``FANOUT_SLICE`` per loop iteration (:data:`_CLOSING`): when thousands of viewers
        go at once, closing every socket and ending every stream in the same iteration
        held the loop, and a horn falling due meanwhile, for a tenth of a second."""
        wire = self.scope.get("extensions", {}).get(EXTENSION) if self.cycle else None
        if wire is None or self.transport.is_closing():
            return None  # the transport closes now, as uvicorn's protocol has it
        _closing(self.loop).call(self.transport.close)
        return True  # kept half-open until its turn

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        super().connection_lost(exc)


#: the connections to close, ``FANOUT_SLICE`` per loop iteration (one queue per loop)
_CLOSING: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Turns] = (
    weakref.WeakKeyDictionary())


def _closing(loop: asyncio.AbstractEventLoop) -> Turns:
    turns = _CLOSING.get(loop)
    if turns is None:
        turns = _CLOSING[loop] = Turns(FANOUT_SLICE)
    return turns


def uvicorn_options() -> dict[str, Any]:
    """The uvicorn settings that go with the limits above."""
    raise_fd_limit()
    GuardedHttp.ceiling = connection_ceiling()
    return {"http": GuardedHttp, "timeout_keep_alive": KEEP_ALIVE_S, "backlog": 4096,
            "h11_max_incomplete_event_size": 16 * 1024}
