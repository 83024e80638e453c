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
import os
import socket
import stat
from typing import Protocol

from chukker.store.base import MATCH_ID, StoreError

#: seconds between two polls of the database for appends no datagram told of
POLL_S = 0.5
#: the largest datagram read (a match id is at most 64 characters)
MAX_DATAGRAM = 128


class Notifier(Protocol):
    """What a store shared by several readers tells and hears (:class:`LocalNotifier`
    between workers; an edge's replica tells its own process, ``chukker.edge``)."""

    def tell(self, match_id: str, seq: int) -> None: ...

    async def receive(self, timeout: float) -> list[tuple[str, int]]: ...

    def close(self) -> None: ...


def parse(data: bytes) -> tuple[str, int] | None:
    """``(match_id, seq)`` of a datagram, or None for anything else (ignored)."""
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

    def tell(self, match_id: str, seq: int) -> None:
        """Tell every other worker that ``seq`` of ``match_id`` is durable; never blocks
        and never raises (a worker that cannot hear it now finds it by polling)."""
        data = f"{match_id} {seq}".encode("ascii", "replace")
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

    async def receive(self, timeout: float) -> list[tuple[str, int]]:
        """What the other workers tell within ``timeout`` seconds (empty if nothing)."""
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
                await asyncio.wait_for(waiter, timeout)
        finally:
            loop.remove_reader(self._rx.fileno())
        return self.pending()

    def close(self) -> None:
        self._tx.close()
        self._rx.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
