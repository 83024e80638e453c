"""Connection limits of ``chukker serve``: header and body timeouts (slowloris), a
write-stall timeout (clients that stop reading), a ceiling on open connections
below the file-descriptor limit, a request head (line and headers) of at most
:data:`MAX_HEAD_BYTES` (431 before it is parsed), the officials' port's per-address
caps (:mod:`chukker.web.gate`), and the live streams'
caps per address and in total with a share kept for the match's own screens.

>>> caps = StreamCaps(total=3, per_address=2, reserved=1)
>>> caps.acquire("a", False), caps.acquire("a", False), caps.acquire("a", False)
(True, True, False)
>>> caps.acquire("b", False), caps.acquire("b", True)
(False, True)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import socket
import struct
import weakref
from collections import Counter
from dataclasses import dataclass
from typing import Any

import httptools
from starlette.applications import Starlette
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.utils import get_remote_addr

from chukker.live.fanout import FANOUT_SLICE, Turns
from chukker.live.service import LiveService
from chukker.ops.proxy import parse_address
from chukker.web.api.wire import EXTENSION, SocketWire
from chukker.web.errors import body as refusal_body
from chukker.web.gate import AddressGate, proof_of
from chukker.web.security import Organised

#: seconds a client has to send a request's headers, then its body: the defaults of the
#: settings ``limits.header_timeout_s`` and ``limits.body_timeout_s`` (``$CHUKKER_HEADER_
#: TIMEOUT_S``, ``$CHUKKER_BODY_TIMEOUT_S``), which reach the protocol through the app's
#: :class:`ConnectionTimeouts`; never read from the environment here
HEADER_TIMEOUT_S = 10.0
BODY_TIMEOUT_S = 10.0
#: seconds an idle keep-alive connection stays open
KEEP_ALIVE_S = 5
#: seconds a connection may keep the server's writes blocked (a client that stopped
#: reading, its socket's buffers full) before it is cut, freeing its stream slot: the
#: default of the setting ``limits.write_stall_s`` (``$CHUKKER_WRITE_STALL_S``)
WRITE_STALL_S = 30.0
#: the longest request head (request line and headers, bytes) on every plane: past it
#: the request is answered 431 before it is parsed, and its connection closed
MAX_HEAD_BYTES = 16 * 1024
#: seconds a refused connection is read (and what it sends dropped) so that the client
#: reads its answer before the connection closes
LINGER_S = 2.0
#: seconds to send the headers on a connection of an address over its cap (officials' port)
CROWDED_HEADER_TIMEOUT_S = 1.0


def canned(status: int, reason: str, code: str, params: dict[str, Any],
           headers: tuple[tuple[str, str], ...] = ()) -> bytes:
    """A whole HTTP/1.1 refusal (JSON, ``connection: close``, never stored), written by
    the protocol itself: no app, no task.

    >>> canned(431, "Request Header Fields Too Large", "headers_too_large",
    ...        {"limit": 16384}).split(b"\\r\\n")[0]
    b'HTTP/1.1 431 Request Header Fields Too Large'
    """
    data = json.dumps(refusal_body(code, params)).encode()
    head = [f"HTTP/1.1 {status} {reason}", "content-type: application/json",
            f"content-length: {len(data)}", "connection: close", "cache-control: no-store",
            *(f"{k}: {v}" for k, v in headers)]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + data


HEAD_TOO_LARGE = canned(431, "Request Header Fields Too Large", "headers_too_large",
                        {"limit": MAX_HEAD_BYTES})
CROWDED = canned(429, "Too Many Requests", "rate_limited", {"retry_after": 1},
                 (("retry-after", "1"),))


@dataclass(frozen=True, slots=True)
class ConnectionTimeouts:
    """The deadlines of an app's connections, from its settings (read once at start);
    ``None``: the module's default (:data:`HEADER_TIMEOUT_S`, :data:`BODY_TIMEOUT_S`,
    :data:`WRITE_STALL_S`), read when used.

    >>> ConnectionTimeouts(header_s=2.5).header(), ConnectionTimeouts().write_stall()
    (2.5, 30.0)
    """

    header_s: float | None = None
    body_s: float | None = None
    write_stall_s: float | None = None

    def header(self) -> float:
        return HEADER_TIMEOUT_S if self.header_s is None else self.header_s

    def body(self) -> float:
        return BODY_TIMEOUT_S if self.body_s is None else self.body_s

    def write_stall(self) -> float:
        return WRITE_STALL_S if self.write_stall_s is None else self.write_stall_s


class Served(Organised):
    """What the protocol reads of the state of the app it serves: the base of
    ``chukker.web.state.AppState`` (which this module cannot import: it imports this),
    its trusted proxies (:class:`~chukker.web.proxied.Proxied`), its organiser
    (:class:`~chukker.web.security.Organised`) and the following."""

    @property
    def address_gate(self) -> AddressGate | None:
        """The officials' port's per-address caps (``None`` on the other planes)."""
        raise NotImplementedError

    @property
    def service(self) -> LiveService:
        raise NotImplementedError

    @property
    def timeouts(self) -> ConnectionTimeouts:
        """The app's deadlines."""
        raise NotImplementedError


def served(app: object) -> Served | None:
    """The state of the app a protocol serves (``None``: an app not of ``create_app``),
    looked up once per connection."""
    state = app.state if isinstance(app, Starlette) else None
    return state if isinstance(state, Served) else None


class _Refused(Exception):
    """Raised in a parser callback to stop parsing a refused request."""


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


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's HTTP protocol with header and body deadlines, a connection ceiling, a
    bounded request head (:data:`MAX_HEAD_BYTES`, counted as the bytes arrive and again
    as they are parsed) and, on the officials' port (an app whose ``state`` has an
    ``address_gate``), the per-address caps of :mod:`chukker.web.gate`: its door when a
    connection is accepted (a shut-out address is reset before any HTTP work), its
    per-request caps once a request's head is read."""

    ceiling = 1 << 30
    #: the live stream's wire of this connection (set in :meth:`connection_made`; ``None``
    #: before, should uvicorn pause writing that early)
    _stream_wire: SocketWire | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        self._stall: asyncio.TimerHandle | None = None
        self._head, self._tail, self._parsed = 0, b"", 0
        self._refused = False
        self._gate: AddressGate | None = None
        self._peer = ""
        #: the live stream's wire of this connection, kept here (a request pipelined
        #: behind the stream replaces the protocol's scope and cycle, not this)
        self._stream_wire: SocketWire | None = None
        state = self._state = served(self.config.app)
        self._timeouts = state.timeouts if state is not None else ConnectionTimeouts()
        gate = state.address_gate if state is not None else None
        peer = ""
        if state is not None and gate is not None:
            client = get_remote_addr(transport)
            address = client[0] if client else "?"
            if not state.trusted_proxies.trusts(parse_address(address)):
                peer = address  # a trusted proxy's connections are not capped
                if not gate.door(peer):  # the door: reset before any HTTP work
                    self.transport = transport
                    reset(transport)
                    return
        super().connection_made(transport)
        if len(self.connections) > self.ceiling:
            transport.abort()
            return
        timeout = self._timeouts.header()
        if gate is not None:
            self._gate = gate
            if peer:
                self._peer = peer
                gate.opened(peer)
                if gate.crowded(peer):
                    timeout = min(timeout, CROWDED_HEADER_TIMEOUT_S)
        self._arm(timeout)

    # ------------------------------------------------------------------ the request head
    def data_received(self, data: bytes) -> None:
        if self._refused:  # lingering: what the client still sends is dropped unread
            return
        if self._head >= 0:  # in a request's head: its bytes counted before any parsing
            seen = self._tail + data
            end = seen.find(b"\r\n\r\n")
            n = self._head + (len(data) if end < 0 else end + 4 - len(self._tail))
            if n > MAX_HEAD_BYTES:
                self._refuse(HEAD_TOO_LARGE)
                return
            if end < 0:
                self._head, self._tail = n, seen[-3:]
            else:
                self._head, self._tail = -1, b""
        # uvicorn's own data_received, but a refusal of ours (raised in a parser callback)
        # is neither logged nor answered a second time
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            if not self._refused:
                msg = "Invalid HTTP request received."
                self.logger.warning(msg)
                self.send_400_response(msg)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()

    def _refuse(self, answer: bytes) -> None:
        """Answer ``answer`` and close: the client's side is read and dropped for
        :data:`LINGER_S` (so that it reads the answer), then the connection is cut."""
        self._refused = True
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            # a pipelined request over the limit while the one before is answered: the
            # connection is dropped (its answer would come before the other's)
            self.transport.abort()
            return
        self.transport.write(answer)
        if self.transport.can_write_eof():
            self.transport.write_eof()
            self._arm(LINGER_S)
        else:  # pragma: no cover - TCP can always
            self.transport.close()

    def on_url(self, url: bytes) -> None:
        self._parsed += len(url)
        if self._parsed > MAX_HEAD_BYTES:  # a pipelined head, past what data_received saw
            self._refuse(HEAD_TOO_LARGE)
            raise _Refused
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._parsed += len(name) + len(value) + 4
        if self._parsed > MAX_HEAD_BYTES:
            self._refuse(HEAD_TOO_LARGE)
            raise _Refused
        super().on_header(name, value)

    def _admitted(self) -> bool:
        """The officials' port's caps (:mod:`chukker.web.gate`): may this request go on?"""
        gate = self._gate
        assert gate is not None
        auth = None
        for k, v in self.headers:
            if k == b"authorization":
                auth = v
                break
        try:
            url = httptools.parse_url(self.url)
        except httptools.HttpParserInvalidURLError:
            return True  # uvicorn answers it
        state = self._state
        assert state is not None  # a gate is the app's
        address = self._peer
        if not address:  # through a trusted proxy: the client it forwards for
            address = _forwarded_client(state, self.client, self.headers)
        path = url.path.decode("latin-1")
        return gate.admits(address, proof_of(state, path, url.query or b"", auth),
                           self._peer)

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
            self._arm(self._timeouts.header())

    def on_headers_complete(self) -> None:
        if self._gate is not None and not self._admitted():
            self._refuse(CROWDED)
            raise _Refused
        super().on_headers_complete()
        self._arm(self._timeouts.body())
        scope = self.scope
        cycle = self.cycle
        if (cycle is not None and cycle.scope is scope
                and scope.get("path", "").endswith("/stream")):
            # the live stream's fast path (web/api/wire.py): its socket, for after its headers
            extensions: dict[str, Any] = scope.setdefault("extensions", {})
            wire = extensions[EXTENSION] = SocketWire(self.transport, self.flow, cycle)
            held = self._stream_wire
            if held is None or held.cycle.response_complete:  # not behind a live stream
                self._stream_wire = wire

    def on_message_complete(self) -> None:
        self._disarm()
        self._head, self._tail, self._parsed = 0, b"", 0  # the next request's head
        super().on_message_complete()

    def pause_writing(self) -> None:
        """The transport's buffer is full: the client is not reading. It has
        ``WRITE_STALL_S`` to start again before the connection is cut."""
        super().pause_writing()
        if self._stall is None:
            self._stall = self.loop.call_later(self._timeouts.write_stall(), self._too_slow)
        wire = self._wire()
        if wire is not None:
            wire.paused()

    def resume_writing(self) -> None:
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        super().resume_writing()
        wire = self._wire()
        if wire is not None:
            wire.resumed()

    def _wire(self) -> SocketWire | None:
        """This connection's live-stream wire, if it serves a stream."""
        return self._stream_wire

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
        if self._gate is not None and self._peer:
            self._gate.closed(self._peer)
            self._peer = ""
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None
        wire = self._wire()
        if wire is not None:
            wire.lost()
        super().connection_lost(exc)


def reset(transport: asyncio.BaseTransport) -> None:
    """Close a connection with a reset (``SO_LINGER`` 0): nothing is written, and no
    ``TIME_WAIT`` is kept for it."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError, AttributeError, ValueError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()  # type: ignore[attr-defined]


def _forwarded_client(state: Served, client: tuple[str, int] | None,
                      headers: list[tuple[bytes, bytes]]) -> str:
    """The client a trusted proxy forwards for (the app's ``trusted_proxies``)."""
    from chukker.ops.proxy import client_of_scope

    return client_of_scope({"client": client, "headers": headers},
                           state.trusted_proxies)


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
