"""Subscribers and the fan-out: Server-Sent Events encoding, merge patches, the outbox.

A message is encoded once and handed to every subscriber of its match,
``FANOUT_SLICE`` of them per event-loop iteration; a subscriber more than
``QUEUE_LIMIT`` messages behind is dropped (it gives its slot back and
reconnects with Last-Event-ID).

A subscriber is served one of two ways:

* with a :class:`Wire` (the server's socket, once the stream's headers are sent):
  the message, framed once as an HTTP/1.1 chunk for all of them, is written
  straight to each socket: no queue, no task to wake, no ASGI send chain;
  ``Wire.write`` answers ``False`` when the viewer is ``QUEUE_LIMIT`` messages
  behind a socket that stopped taking them;
* without (an in-process client, the moment before the headers went out): through
  its :class:`asyncio.Queue`, which the stream's task empties.

Direct sends. A wire whose transport holds nothing buffered gives its socket's
descriptor (``Wire.fd``, else -1): a slice's descriptors get the message in one call,
:func:`send_each`: C (``chukker.live._sendeach``), the slice in one ``io_uring_enter``
where the kernel allows it, else one ``send()`` a socket; pure Python where the module
was not built (``CHUKKER_FANOUT_SENDS`` chooses, :func:`sends` says which). A send
that takes less than the whole message (the socket is full) or fails hands the rest to
the wire (``Wire.sent_part``): the transport buffers it or sees the error, and the wire
stays off the direct path until its transport's buffer is empty again, so bytes never
overtake each other. A descriptor is given only while its connection is open (the wire
clears it before its transport closes the socket: the kernel could give the number to
another viewer).

A fan-out that falls behind (a busy machine: the public workers run at nice +10 behind
everything else) finds several messages waiting when it starts the next: those for the
same viewers go together, one write a viewer of the same bytes in the same order
(:meth:`Outbox._coalesce`, at most :data:`COALESCE_MESSAGES` and
:data:`COALESCE_BYTES`), so a backlog drains as many times faster.

>>> chunk(b"event: x\\n\\n")
b'a\\r\\nevent: x\\n\\n\\r\\n'
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import json
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from chukker.ops import metrics

#: messages a slow client may have queued before it is dropped (it reconnects
#: with Last-Event-ID and gets what it missed)
QUEUE_LIMIT = 512
#: seconds between two keep-alive comments on every stream
KEEPALIVE_S = 15.0
#: subscribers served per event-loop iteration when a message fans out
FANOUT_SLICE = 64
#: at most this many messages, and bytes, go to a viewer in one write when the fan-out
#: has fallen behind (:meth:`Outbox._coalesce`)
COALESCE_MESSAGES = 16
COALESCE_BYTES = 32 * 1024


def _send_each_py(fds: list[int], data: bytes) -> list[tuple[int, int]] | None:
    """:func:`send_each` where its C module was not built: the same answers, slower.

    >>> import socket
    >>> a, b = socket.socketpair()
    >>> a.setblocking(False)
    >>> _send_each_py([a.fileno()], b"hi"), b.recv(2), _send_each_py([-1], b"x")
    (None, b'hi', [(0, -9)])
    >>> a.close(); b.close()
    """
    failed: list[tuple[int, int]] | None = None
    whole = len(data)
    for i, fd in enumerate(fds):
        try:
            sent = os.write(fd, data)  # a non-blocking socket: never waits
        except OSError as e:  # a full socket's EAGAIN included, as from C
            sent = -(e.errno or 1)
        if sent != whole:
            if failed is None:
                failed = []
            failed.append((i, sent))
    return failed


#: one message to many sockets: ``send_each(fds, data)``, None or ``[(index, result)]``
SendEach = Callable[[list[int], bytes], "list[tuple[int, int]] | None"]


def _native_send_each() -> SendEach | None:
    """The C module's sender, if it was built (and ``CHUKKER_PURE_PYTHON`` is not set); a
    built module that does not load fails the import, as any broken part does.

    ``CHUKKER_FANOUT_SENDS`` chooses: ``ring`` (the default: io_uring, a slice in one
    system call, where the kernel lets this process use it, else ``send``), ``send``
    (one ``send()`` a socket) or ``python`` (:func:`_send_each_py`)."""
    how = os.environ.get("CHUKKER_FANOUT_SENDS", "ring")
    if how not in ("ring", "send", "python"):
        raise ValueError(f"CHUKKER_FANOUT_SENDS={how!r}: ring, send or python")
    if how == "python" or os.environ.get("CHUKKER_PURE_PYTHON", "") not in ("", "0"):
        return None
    if importlib.util.find_spec(f"{__package__}._sendeach") is None:
        return None  # no C compiler at install
    module = importlib.import_module(f"{__package__}._sendeach")
    native: SendEach = module.send_each if how == "ring" else module.send_loop
    return native


#: the fan-out's sends: the C module's (``_sendeach.c``), else :func:`_send_each_py`
send_each: SendEach = _native_send_each() or _send_each_py
#: True when the fan-out's sends are the C module's
SEND_EACH_NATIVE = send_each is not _send_each_py


def sends() -> str:
    """How the fan-out sends, in words: io_uring (a slice in one system call), C's
    ``send()`` a socket, or Python's ``os.write`` (asks the C module, which then opens
    this process's ring)."""
    if not SEND_EACH_NATIVE:
        return "pure Python, os.write a socket"
    module = importlib.import_module(f"{__package__}._sendeach")
    if send_each is module.send_each and module.uring():
        return "C, io_uring: a slice in one system call"
    return "C, send() a socket"


class Wire(Protocol):
    """A viewer's socket, written to directly once its stream's headers are sent.

    ``fd``: the socket's descriptor while its transport holds nothing buffered and the
    connection is open (the fan-out then sends to it with :func:`send_each`), else -1.
    ``fast``: the socket's own write while it keeps up, else None (then :meth:`write`
    checks and counts)."""

    fd: int
    fast: Callable[[bytes], object] | None

    def write(self, framed: bytes, messages: int = 1) -> bool:
        """Write ``messages`` messages framed as one chunk; ``False`` if the viewer is
        too far behind (it is dropped)."""

    def sent_part(self, framed: bytes, result: int, messages: int = 1) -> bool:
        """A direct send took only ``result`` bytes of ``framed`` (or failed: minus the
        errno): off the direct path, and the rest goes through the transport, as
        :meth:`write`."""

    def direct(self) -> None:
        """Back on the direct path if the transport's buffer is empty and it is open."""

    def close(self) -> None:
        """Cut the connection (the viewer reconnects with Last-Event-ID)."""


def chunk(msg: bytes) -> bytes:
    """``msg`` as one HTTP/1.1 chunk (the streams use chunked transfer coding)."""
    return b"%x\r\n%b\r\n" % (len(msg), msg)


@dataclass(eq=False, slots=True)
class Subscriber:
    """One stream's place in its match's fan-out.

    What an idle viewer written to directly holds here: this object, and ``waiter`` (one
    future, no task): its queue is made only when a message must wait in it (before the
    headers went out, or an in-process client), an ``asyncio.Queue`` being four deques."""

    dropped: bool = False
    #: called once when the subscriber is dropped for falling behind (gives back its slot)
    on_drop: Callable[[], None] | None = None
    #: the socket, once the stream is written to directly (see the module's doc)
    wire: Wire | None = None
    #: done when the stream is to end (dropped, closed, or its connection lost): what a
    #: stream written to directly waits for
    waiter: asyncio.Future[None] | None = None
    #: messages it may have queued (``None``: :data:`QUEUE_LIMIT`, read when its queue is made)
    limit: int | None = None
    _queue: asyncio.Queue[bytes] | None = None

    @property
    def queue(self) -> asyncio.Queue[bytes]:
        """The messages waiting for the stream's task (made on first use)."""
        q = self._queue
        if q is None:
            q = self._queue = asyncio.Queue(QUEUE_LIMIT if self.limit is None else self.limit)
        return q

    def queued(self) -> list[bytes]:
        """Take what waits in the queue, if there is one."""
        q = self._queue
        return [] if q is None else [q.get_nowait() for _ in range(q.qsize())]

    def end(self) -> None:
        """Stop serving this subscriber; its stream's task wakes up and finishes."""
        self.dropped = True
        w = self.waiter
        if w is not None and not w.done():
            w.set_result(None)
        with contextlib.suppress(asyncio.QueueFull):
            self.queue.put_nowait(b"")

@dataclass(eq=False)
class Outbox:
    """Messages being handed to a match's subscribers, oldest first, with who gets them."""

    #: (the bytes, who gets them, when queued, the messages they join: () for one)
    queue: deque[tuple[bytes, list[Subscriber], float, tuple[bytes, ...]]] = field(
        default_factory=deque)

    def __bool__(self) -> bool:
        return bool(self.queue)

    def send(self, data: bytes, subscribers: set[Subscriber]) -> None:
        """Queue ``data`` for every one of ``subscribers`` (in slices, in order)."""
        self.queue.append((data, list(subscribers), time.perf_counter(), ()))
        if len(self.queue) == 1:
            self._pump(subscribers, 0, None)

    def _coalesce(self) -> tuple[bytes, tuple[bytes, ...]]:
        """The next message joined with those queued behind it for the same viewers.

        A fan-out that has fallen behind (a busy machine, where the public workers run
        at nice +10 behind everything else) has several messages waiting; each viewer
        then gets them together, in one write of the same bytes in the same order (an
        SSE stream is a sequence of messages, whichever chunks carry them): a viewer
        costs one write for the lot, so the backlog drains as many times faster. Only
        messages for the very same subscribers join (one who came in between has its
        own start), at most :data:`COALESCE_MESSAGES` and :data:`COALESCE_BYTES`."""
        msg, subs, t0, _ = self.queue.popleft()
        parts, size = [msg], len(msg)
        while self.queue and len(parts) < COALESCE_MESSAGES:
            nxt, who, _t, _p = self.queue[0]
            if who != subs or size + len(nxt) > COALESCE_BYTES:
                break
            self.queue.popleft()
            parts.append(nxt)
            size += len(nxt)
        data, kept = b"".join(parts), tuple(parts) if len(parts) > 1 else ()
        self.queue.appendleft((data, subs, t0, kept))
        return data, kept

    @staticmethod
    def _drop(live: set[Subscriber], sub: Subscriber) -> None:
        live.discard(sub)
        sub.end()
        gone = sub.on_drop
        if gone is not None:
            sub.on_drop = None
            gone()

    def _pump(self, live: set[Subscriber], start: int, framed: bytes | None) -> None:
        msg, subs, t0, parts = self.queue[0]
        end = min(start + FANOUT_SLICE, len(subs))
        if framed is None:
            if len(self.queue) > 1:  # fallen behind: the waiting ones go together
                msg, parts = self._coalesce()
            framed = chunk(msg)  # once per message, for every socket
        count = len(parts) or 1
        fds: list[int] = []
        direct: list[Subscriber] = []
        for sub in subs[start:end]:
            wire = sub.wire
            if wire is not None:
                # the per-viewer path: its descriptor, for one send of the prepared bytes
                # to the whole slice (module doc, *Direct sends*)
                fd = wire.fd
                if fd >= 0 and not sub.dropped:
                    fds.append(fd)
                    direct.append(sub)
                    continue
                fast = wire.fast
                if fast is not None and not sub.dropped:
                    try:
                        fast(framed)
                    except RuntimeError:  # uvloop: closed; the stream's task ends
                        wire.fast = None
                        continue
                    wire.direct()  # if nothing stayed in its transport: direct from the next
                    continue
                if sub.dropped:
                    continue
                if wire.write(framed, count):
                    continue
                wire.close()
            elif sub.dropped:
                continue
            else:
                try:
                    for one in parts or (msg,):  # a queue's messages stay one an item
                        sub.queue.put_nowait(one)
                    continue
                except asyncio.QueueFull:
                    pass
            self._drop(live, sub)
        if fds:
            failed = send_each(fds, framed)
            if failed is not None:
                for i, result in failed:
                    sub = direct[i]
                    wire = sub.wire
                    if wire is not None and not wire.sent_part(framed, result, count):
                        wire.close()
                        self._drop(live, sub)
        if end < len(subs):
            asyncio.get_running_loop().call_soon(self._pump, live, end, framed)
            return
        self.queue.popleft()
        metrics.fanned_out(time.perf_counter() - t0)
        if self.queue:
            asyncio.get_running_loop().call_soon(self._pump, live, 0, None)


class Turns:
    """At most ``per_turn`` waiters go on per event-loop iteration, the others wait theirs.

    For work that comes in crowds: when thousands of streams end at once (a venue's
    network drops, the last whistle of a final), each one's teardown (the middleware
    unwinding, its access line) is tens of microseconds, and run in one loop iteration
    they held a horn falling due meanwhile for hundreds of milliseconds. In turns,
    the loop's timers run between two groups, as between two slices of a fan-out.

    >>> async def crowd() -> list[int]:
    ...     turns, order = Turns(2), []
    ...     async def one(k: int) -> None:
    ...         await turns.wait()
    ...         order.append(k)
    ...     await asyncio.gather(*(one(k) for k in range(5)))
    ...     return order
    >>> asyncio.run(crowd())
    [0, 1, 2, 3, 4]
    """

    def __init__(self, per_turn: int) -> None:
        self.per_turn = per_turn
        #: who waits: a waiter's future, or a callback (:meth:`call`)
        self.waiting: deque[asyncio.Future[None] | Callable[[], object]] = deque()
        self.scheduled = False

    async def wait(self) -> None:
        """Return in a later loop iteration, with at most ``per_turn`` others."""
        fut = asyncio.get_running_loop().create_future()
        self._queue(fut)
        await fut

    def call(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` in its turn (from the loop's thread: e.g. closing a socket)."""
        self._queue(callback)

    def _queue(self, item: asyncio.Future[None] | Callable[[], object]) -> None:
        self.waiting.append(item)
        if not self.scheduled:
            self.scheduled = True
            asyncio.get_running_loop().call_soon(self._let_go)

    def _let_go(self) -> None:
        waiting = self.waiting
        n = 0
        while waiting and n < self.per_turn:
            item = waiting.popleft()
            if isinstance(item, asyncio.Future):
                if item.done():  # a cancelled waiter takes no turn
                    continue
                item.set_result(None)
            else:
                item()
            n += 1
        if waiting:
            asyncio.get_running_loop().call_soon(self._let_go)
        else:
            self.scheduled = False


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

    One extension (RFC 7386 has no way to append): an array that only grew at
    its end is sent as ``{"$append": [the new items]}`` (a goal's patch carries
    the new goal, not the whole list); any other change of an array sends it
    whole. :func:`apply_patch` applies both (``docs/live.md``, *Patches*).

    >>> merge_diff({"a": 1, "c": {"x": 1, "y": 2}, "d": 4}, {"a": 1, "c": {"x": 3, "y": 2}})
    {'d': None, 'c': {'x': 3}}
    >>> merge_diff({"w": "A", "r": None}, {"w": None, "r": {"spot": None}})
    {'w': None, 'r': {'spot': None}}
    >>> merge_diff({"goals": [1, 2]}, {"goals": [1, 2, 3]}), merge_diff({"g": [1, 2]}, {"g": [2]})
    ({'goals': {'$append': [3]}}, {'g': [2]})
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
            if (isinstance(v, list) and isinstance(o, list) and len(o) < len(v)
                    and o and v[: len(o)] == o):
                patch[k] = {APPEND: v[len(o):]}
                continue
        patch[k] = v
    return patch


#: the one member of a patch object that appends to an array
APPEND = "$append"


def apply_patch(target: Any, patch: Any) -> Any:
    """``patch`` (from :func:`merge_diff`) applied to ``target``, as ``live.js`` does:
    RFC 7386, a null member kept as null, ``{"$append": [...]}`` extending an array.

    >>> old = {"goals": [1], "c": {"x": 1}, "w": "A"}
    >>> new = {"goals": [1, 2], "c": {"x": 3}, "w": None}
    >>> apply_patch(old, merge_diff(old, new)) == new
    True
    """
    if not isinstance(patch, dict):
        return patch
    if isinstance(target, list) and len(patch) == 1 and APPEND in patch:
        return target + list(patch[APPEND])
    if not isinstance(target, dict):
        target = {}
    out = dict(target)
    for k, v in patch.items():
        out[k] = apply_patch(out.get(k), v)
    return out
