"""Appends told between the worker processes of one machine on one SQLite file.

``chukker serve --workers N`` runs N processes on one SQLite file. Each one binds
a Unix datagram socket ``<index>.sock`` in a private runtime folder (mode 0700)
that the supervisor made; every durable append sends ``"<match id> <seq>"`` to
each of the other workers' sockets. Nothing a client sends names a path: the
folder is the supervisor's, the names are the workers' numbers.

A datagram can be lost (a worker restarting, its queue full): the store polls
``PRAGMA data_version`` every :data:`POLL_S` as well and reads what was appended
since (see :meth:`chukker.store.sqlite.SQLiteStore.notifications`), so a lost
datagram costs latency, never an event.

An event appended carries itself (issue 43): ``"<match id> <seq>\n"`` then the stored
event as JSON (command id, body, recorded ms, actor; at most :data:`MAX_CARRIED`
bytes). A worker that hears it keeps it (:meth:`LocalNotifier.take`), and its live
service applies it without reading the store again: no thread hop, no query, per event
and per public worker. Anything missing (a datagram lost, an event too big to carry, a
gap) is read from the store as before. The datagram is sent after the commit, by the
one writer of that seq: what it carries is what the store holds.

>>> import tempfile
>>> d = tempfile.mkdtemp()
>>> a, b = LocalNotifier(d, 0, 2), LocalNotifier(d, 1, 2)
>>> a.tell("m1", 3)
>>> b.pending()
[('m1', 3)]
>>> parse(b"../etc/passwd 1"), parse(b"m1 x"), parse(b"m1 7"), parse(b"t.ab 2")
(None, None, ('m1', 7), ('t.ab', 2))
>>> a.close(); b.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import stat
from typing import Protocol, TypeVar

from chukker.store.base import MATCH_ID, StoredEvent, StoreError

#: seconds between two polls of the database for appends no datagram told of
POLL_S = 0.5
#: the largest event a datagram carries (JSON bytes); a bigger one is told by its seq alone
MAX_CARRIED = 8192
#: the largest datagram read (a match id is at most 64 characters, then the event)
MAX_DATAGRAM = MAX_CARRIED + 128
#: events heard and not yet taken, kept at most (the oldest go first)
MAX_KEPT = 512

T = TypeVar("T")


class Notifier(Protocol):
    """What a store shared by several readers tells and hears (:class:`LocalNotifier`
    between workers; an edge's replica tells its own process, ``chukker.edge``)."""

    def tell(self, match_id: str, seq: int) -> None: ...

    async def receive(self, until: float) -> list[tuple[str, int]]:
        """What is told before the running loop's time ``until`` (an absolute deadline:
        the caller's polls fall on the process's grid, :mod:`chukker.ticks`)."""
        ...

    def close(self) -> None: ...


def datagram(match_id: str, seq: int, stored: StoredEvent | None = None) -> bytes:
    """What is told of an append: ``"<match id> <seq>"``, and the event when it is small.

    >>> datagram("m1", 2, StoredEvent(2, "c", {"type": "goal"}, 5, "timekeeper")).split()
    [b'm1', b'2', b'["c","{\\\\"type\\\\":\\\\"goal\\\\"}",5,"timekeeper"]']
    """
    head = f"{match_id} {seq}".encode("ascii", "replace")
    if stored is None or stored.seq != seq:
        return head
    body = json.dumps([stored.command_id, stored.body(), stored.recorded_ms, stored.actor],
                      separators=(",", ":"), ensure_ascii=True).encode("ascii")
    return head if len(body) > MAX_CARRIED else head + b"\n" + body


def carried(data: bytes, seq: int) -> StoredEvent | None:
    """The event a datagram carries (see :func:`datagram`), or None (none, or malformed).

    >>> carried(datagram("m1", 2, StoredEvent(2, "c", {"type": "goal"}, 5, "tk")), 2)
    StoredEvent(seq=2, command_id='c', event={'type': 'goal'}, recorded_ms=5, actor='tk')
    >>> carried(b'm1 2 ["c","[1]",5,"tk"]', 2), carried(b"m1 2", 2)
    (None, None)
    """
    _, nl, payload = data.partition(b"\n")
    if not nl:
        return None
    return unpack(payload, seq)


def unpack(payload: bytes | str, seq: int) -> StoredEvent | None:
    """Event ``seq`` from the JSON a notification carries (``[command id, body, recorded
    ms, actor]``), or None: too long, malformed, or nested past the parser's depth. At
    most :data:`MAX_CARRIED` bytes are parsed, twice.

    >>> unpack('["c","{}",5,"tk"]', 2)
    StoredEvent(seq=2, command_id='c', event={}, recorded_ms=5, actor='tk')
    >>> unpack("[" * 5000 + "]" * 5000, 1), unpack('["c","{}",5,"tk"]' + " " * MAX_CARRIED, 1)
    (None, None)
    """
    if len(payload) > MAX_CARRIED:
        return None
    try:
        got = json.loads(payload)
        if not (isinstance(got, list) and len(got) == 4):
            return None
        command_id, body, recorded_ms, actor = got
        event = json.loads(body) if isinstance(body, str) else None
    except (ValueError, RecursionError):  # RecursionError: "[[[[..." past the C parser's depth
        return None
    if not (isinstance(command_id, str) and isinstance(event, dict)
            and type(recorded_ms) is int and isinstance(actor, str)):
        return None
    try:
        return StoredEvent(seq, command_id, event, recorded_ms, actor)
    except (ValueError, OverflowError):  # what the event is cannot be read (its time)
        return None


def keep(kept: dict[tuple[str, int], T], told: tuple[str, int], event: T) -> None:
    """Keep ``event`` as heard, until taken; at most :data:`MAX_KEPT` (the oldest go first:
    events of a match not loaded here are never taken)."""
    kept[told] = event
    if len(kept) > MAX_KEPT:
        del kept[next(iter(kept))]


def take(kept: dict[tuple[str, int], T], match_id: str, after_seq: int,
         upto: int) -> list[T] | None:
    """Events ``after_seq + 1 .. upto`` of ``match_id`` from ``kept`` (taken out of it), or
    None if one of them is not there (then all of them are read from the store).

    >>> k = {("m1", 2): StoredEvent(2, "c", {}, 5, "tk")}
    >>> take(k, "m1", 1, 2), take(k, "m1", 1, 2)
    ([StoredEvent(seq=2, command_id='c', event={}, recorded_ms=5, actor='tk')], None)
    """
    out: list[T] = []
    for q in range(after_seq + 1, upto + 1):
        e = kept.pop((match_id, q), None)
        if e is None:
            return None
        out.append(e)
    return out


def parse(data: bytes) -> tuple[str, int] | None:
    """``(match_id, seq)`` of a datagram, or None for anything else (ignored)."""
    data = data.partition(b"\n")[0]
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return None
    match_id, _, seq = text.partition(" ")
    key = match_id[2:] if match_id.startswith("t.") else match_id  # a tournament's log
    if not MATCH_ID.match(key) or not seq.isdigit() or len(seq) > 12:
        return None
    return match_id, int(seq)


def check_private(folder: str) -> None:
    """Raise :class:`StoreError` unless ``folder`` is a directory of this user, mode 0700."""
    try:
        st = os.stat(folder, follow_symlinks=False)
    except OSError as e:
        raise StoreError(f"runtime folder {folder}: {e.strerror or e}") from None
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise StoreError(f"runtime folder {folder}: not a private folder of this user "
                         f"(mode {stat.S_IMODE(st.st_mode):o}; it must be 700)")


class LocalNotifier:
    """Worker ``index`` of ``workers``: tells the others of appends, hears theirs."""

    def __init__(self, folder: str, index: int, workers: int) -> None:
        if not 0 <= index < workers:
            raise StoreError(f"worker {index}: there are {workers} workers (0-{workers - 1})")
        check_private(folder)
        self.folder, self.index, self.workers = folder, index, workers
        self.path = os.path.join(folder, f"{index}.sock")
        with contextlib.suppress(FileNotFoundError):  # left by a worker that died
            os.unlink(self.path)
        self._rx = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._rx.bind(self.path)
        os.chmod(self.path, 0o600)
        self._rx.setblocking(False)
        self._tx = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self._tx.setblocking(False)
        self._peers = [os.path.join(folder, f"{j}.sock") for j in range(workers) if j != index]
        #: datagrams sent, not delivered (a peer down or its queue full), received
        self.sent = self.undelivered = self.received = 0
        #: (match id, seq) -> the event its datagram carried, until :meth:`take` takes it
        self.kept: dict[tuple[str, int], StoredEvent] = {}

    def tell(self, match_id: str, seq: int) -> None:
        """Tell every other worker that ``seq`` of ``match_id`` is durable; never blocks
        and never raises (a worker that cannot hear it now finds it by polling)."""
        self._send(datagram(match_id, seq))

    def tell_event(self, match_id: str, stored: StoredEvent) -> None:
        """As :meth:`tell`, carrying the event (when small) so that nobody reads it again."""
        self._send(datagram(match_id, stored.seq, stored))

    def take(self, match_id: str, after_seq: int, upto: int) -> list[StoredEvent] | None:
        """The events ``after_seq + 1 .. upto`` of ``match_id`` as their datagrams carried
        them, or None if one of them was not carried (read the store)."""
        return take(self.kept, match_id, after_seq, upto)

    def _send(self, data: bytes) -> None:
        for peer in self._peers:
            try:
                self._tx.sendto(data, peer)
                self.sent += 1
            except OSError:
                self.undelivered += 1

    def pending(self) -> list[tuple[str, int]]:
        """What was told and not yet read, without waiting."""
        out: list[tuple[str, int]] = []
        while True:
            try:
                data = self._rx.recv(MAX_DATAGRAM)
            except (BlockingIOError, InterruptedError):
                return out
            except OSError:  # closed
                return out
            self.received += 1
            got = parse(data)
            if got is not None:
                out.append(got)
                event = carried(data, got[1])
                if event is not None:
                    keep(self.kept, got, event)

    async def receive(self, until: float) -> list[tuple[str, int]]:
        """What the other workers tell before the loop's time ``until`` (empty if
        nothing)."""
        got = self.pending()
        if got:
            return got
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            if not waiter.done():
                waiter.set_result(None)

        loop.add_reader(self._rx.fileno(), readable)
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(until):
                    await waiter
        finally:
            loop.remove_reader(self._rx.fileno())
        return self.pending()

    def close(self) -> None:
        self._tx.close()
        self._rx.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
