"""The SQLite event store: one file, WAL journal, full sync on every append.

>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> s = SQLiteStore(os.path.join(d, "t.sqlite3"))
>>> m = s.create_match("m1", {"format": "chukker-match/1"}, 1000, "h1", "h2")
>>> s.append("m1", StoredEvent(1, "c1", {"type": "bowl_in", "at": 0.0}, 2000, "timekeeper"), 2000)
>>> [e.seq for e in s.events("m1")], s.get_match("m1").start_ms
([1], 2000)
>>> s.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chukker import ticks
from chukker.store.base import (
    EVENT_COLS,
    MATCH_COLS,
    TOURNAMENT_EVENT_COLS,
    Backend,
    CommandExists,
    HornRow,
    MatchImport,
    MatchRow,
    SeqTaken,
    StorageFull,
    StoredEvent,
    StoreError,
    TournamentEvent,
    TournamentSeqTaken,
    TournamentWrite,
    UnknownMatch,
    UnknownTournament,
    event_row,
    header_json,
    match_row,
    tournament_event_row,
    tournament_key,
)

if TYPE_CHECKING:
    from chukker.store.notify import Notifier

#: how many of the newest matches the store keeps in memory for the lists
RECENT = 100
#: less room than this (on the disk, or under the database's size limit) is "full"
MIN_FREE_BYTES = 1 << 20
#: seconds a storage check's answer is reused
STORAGE_CHECK_S = 1.0

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    header TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    start_ms INTEGER,
    timekeeper_hash TEXT NOT NULL,
    committee_hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    match_id TEXT NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    command_id TEXT NOT NULL,
    body TEXT NOT NULL,
    recorded_ms INTEGER NOT NULL,
    actor TEXT NOT NULL,
    PRIMARY KEY (match_id, seq),
    UNIQUE (match_id, command_id)
);
CREATE TABLE IF NOT EXISTS horns (
    match_id TEXT NOT NULL REFERENCES matches(id),
    at_ms INTEGER NOT NULL,
    period INTEGER NOT NULL,
    kind TEXT NOT NULL,
    sounded_ms INTEGER NOT NULL,
    PRIMARY KEY (match_id, at_ms, kind)
);
CREATE INDEX IF NOT EXISTS matches_newest ON matches(created_ms DESC, id DESC);
CREATE TABLE IF NOT EXISTS archived (
    match_id TEXT PRIMARY KEY REFERENCES matches(id),
    archived_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tournament_events (
    tournament_id TEXT NOT NULL REFERENCES tournaments(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    recorded_ms INTEGER NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);
CREATE TRIGGER IF NOT EXISTS tournament_events_append_only_u
BEFORE UPDATE ON tournament_events
BEGIN SELECT RAISE(ABORT, 'tournament events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS tournament_events_append_only_d
BEFORE DELETE ON tournament_events
BEGIN SELECT RAISE(ABORT, 'tournament events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_u BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_d BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
"""

def is_disk_full(e: BaseException) -> bool:
    """SQLite's SQLITE_FULL (its extended codes too) or the system's ENOSPC.

    >>> is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
    True
    >>> is_disk_full(sqlite3.OperationalError("database or disk is full"))
    True
    >>> is_disk_full(sqlite3.OperationalError("database is locked"))
    False
    """
    if isinstance(e, OSError):
        return e.errno in (errno.ENOSPC, errno.EDQUOT)
    if isinstance(e, sqlite3.Error):
        code = getattr(e, "sqlite_errorcode", None)
        if isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_FULL:
            return True
        return "disk is full" in str(e)
    return False


class SQLiteStore:
    """An :class:`~chukker.store.base.EventStore` in one SQLite file.

    Writes go through one connection, one at a time. Reads use a connection
    per worker thread (WAL lets them read while a write is in progress), so a
    listing never holds up an append or a horn.

    Several processes may share the file (``chukker serve --workers``, see
    :meth:`attach`): SQLite's write lock (``BEGIN IMMEDIATE``, a 30 s busy timeout)
    serialises their appends, and an append whose sequence number another process
    took first raises :class:`SeqTaken`, as on PostgreSQL.
    """

    backend = Backend.SQLITE

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        """``synchronous``: SQLite's ``FULL`` (every commit synced: the default, the
        officials' events) or ``NORMAL`` (WAL: safe from a crash of the process, synced at
        checkpoints; an edge's replica, which the stream can always fill again)."""
        if synchronous not in ("FULL", "NORMAL"):
            raise StoreError(f"synchronous={synchronous!r}: FULL or NORMAL")
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=30.0
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous}")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        self._readers_lock = threading.Lock()
        self._closed = False
        #: the newest matches, while no match was created or started since (one server
        #: per file, so this process sees every change)
        self._recent: list[MatchRow] | None = None
        self._recent_gen = 0
        #: why the last write failed for want of space (None: the last write succeeded)
        self._full: str | None = None
        #: (monotonic time, answer) of the last storage check: a flood of /readyz
        #: touches the writer's lock at most once a second
        self._storage_seen: tuple[float, str | None] = (-1e9, None)
        #: the other worker processes on this file (``chukker serve --workers``), if any
        self.notifier: Notifier | None = None
        #: a connection of its own for ``PRAGMA data_version`` (other processes' commits)
        self._watch: sqlite3.Connection | None = None
        self._watch_lock = threading.Lock()
        self._recent_version = -1
        self._listening = False

    # ------------------------------------------------------------- several workers
    def attach(self, notifier: Notifier) -> None:
        """Share this file with the other worker processes of ``notifier``: every append
        tells them, :meth:`notifications` hears theirs, and the newest-matches cache
        is checked against the other processes' commits."""
        self.notifier = notifier
        if self._watch is None:
            self._watch = sqlite3.connect(self.path, check_same_thread=False,
                                          isolation_level=None, timeout=30.0)
            self._watch.execute("PRAGMA query_only=ON")

    @property
    def listening(self) -> bool:
        """False while a worker sharing the file has not yet started hearing the others
        (``/readyz``); True for a store of one process."""
        return self.notifier is None or self._listening

    def data_version(self) -> int:
        """Changes whenever another connection (of any process) commits to the file."""
        db = self._watch
        if db is None:
            return 0
        with self._watch_lock:
            return int(db.execute("PRAGMA data_version").fetchone()[0])

    def appended_since(self, rowid: int) -> tuple[int, list[tuple[str, int]]]:
        """The newest event rowid, and ``(match_id, last seq)`` of each match with events
        after ``rowid`` (events are append-only, so rowids only grow)."""
        db = self._watch if self._watch is not None else self._reader()
        with self._watch_lock:
            top = db.execute("SELECT COALESCE(MAX(rowid), 0) FROM events").fetchone()[0]
            if top <= rowid:
                return int(top), []
            rows = db.execute(
                "SELECT match_id, MAX(seq) FROM events WHERE rowid > ? AND rowid <= ? "
                "GROUP BY match_id", (rowid, top)).fetchall()
        return int(top), [(str(m), int(q)) for m, q in rows]

    def tournaments_appended_since(self, rowid: int) -> tuple[int, list[tuple[str, int]]]:
        """As :meth:`appended_since`, for the tournaments' logs: ``(t.<id>, last seq)``."""
        db = self._watch if self._watch is not None else self._reader()
        with self._watch_lock:
            top = db.execute(
                "SELECT COALESCE(MAX(rowid), 0) FROM tournament_events").fetchone()[0]
            if top <= rowid:
                return int(top), []
            rows = db.execute(
                "SELECT tournament_id, MAX(seq) FROM tournament_events "
                "WHERE rowid > ? AND rowid <= ? GROUP BY tournament_id", (rowid, top)).fetchall()
        return int(top), [(tournament_key(str(t)), int(q)) for t, q in rows]

    async def notifications(
        self, on_listening: Callable[[], Awaitable[object]] | None = None,
    ) -> AsyncIterator[tuple[str, int]]:
        """Yield ``(match_id, seq)`` for appends of the other workers on this file (as
        :meth:`chukker.store.postgres.PostgresStore.notifications` does for servers).

        Their datagrams are yielded at once; every ``POLL_S`` the file's
        ``data_version`` is read too and, if anything was committed meanwhile, the
        matches appended to since the last poll are yielded (a datagram lost costs
        latency, never an event). ``on_listening`` is awaited once subscribed.
        """
        from chukker.store.notify import POLL_S

        notifier = self.notifier
        if notifier is None:
            raise StoreError("this SQLite store is not shared by workers (attach first)")
        version = await asyncio.to_thread(self.data_version)
        rowid, _ = await asyncio.to_thread(self.appended_since, 1 << 62)
        trowid, _ = await asyncio.to_thread(self.tournaments_appended_since, 1 << 62)
        self._listening = True
        try:
            if on_listening is not None:
                await on_listening()
            # the polls fall on the process's grid (chukker.ticks): with its other
            # housekeeping, one wake-up
            loop = asyncio.get_running_loop()
            next_poll = ticks.deadline(POLL_S, loop.time())
            while True:
                for told in await notifier.receive(next_poll):
                    yield told
                if loop.time() < next_poll - ticks.NEAR_S:
                    continue
                next_poll = ticks.deadline(POLL_S, loop.time())
                now = await asyncio.to_thread(self.data_version)
                if now == version:
                    continue
                version = now
                rowid, found = await asyncio.to_thread(self.appended_since, rowid)
                for told in found:
                    yield told
                trowid, found = await asyncio.to_thread(self.tournaments_appended_since, trowid)
                for told in found:
                    yield told
        finally:
            self._listening = False

    def _tell(self, match_id: str, seq: int, stored: StoredEvent | None = None) -> None:
        notifier = self.notifier
        if notifier is None:
            return
        carry = getattr(notifier, "tell_event", None) if stored is not None else None
        if carry is not None:
            carry(match_id, stored)  # the other workers need not read it (issue 43)
        else:
            notifier.tell(match_id, seq)

    def told_events(self, match_id: str, after_seq: int, upto: int) -> list[StoredEvent] | None:
        """Events ``after_seq + 1 .. upto`` as another worker's datagrams carried them (see
        :mod:`chukker.store.notify`), without reading the file; None: read it."""
        take = getattr(self.notifier, "take", None)
        return take(match_id, after_seq, upto) if take is not None else None

    @contextlib.contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        """The writer connection, one writer at a time. A failed write is rolled back
        (only if a transaction is still open: SQLite ends some itself, e.g. on
        SQLITE_FULL); a full disk becomes :class:`StorageFull`."""
        with self._lock:
            db = self._db
            try:
                yield db
            except BaseException as e:
                if db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                if isinstance(e, sqlite3.Error | OSError) and is_disk_full(e):
                    self._full = str(e) or "disk full"
                    self._storage_seen = (-1e9, None)  # check again at once
                    raise StorageFull(self._full) from None
                raise
            if self._full is not None:
                self._full = None
                self._storage_seen = (-1e9, None)

    def storage_problem(self) -> str | None:
        """Why a write would not fit now, or None: the free space on the database's
        disk, the room under its size limit (``PRAGMA max_page_count``), and whether
        the last write failed for want of space (cleared once there is room again).
        Answered from the last second's check while no write has failed since."""
        seen_at, seen = self._storage_seen
        now = time.monotonic()
        if now - seen_at < STORAGE_CHECK_S and (seen is not None or self._full is None):
            return seen
        answer = self._storage_problem()
        self._storage_seen = (now, answer)
        return answer

    def _storage_problem(self) -> str | None:
        try:
            st = os.statvfs(os.path.dirname(os.path.abspath(self.path)) or ".")
        except OSError:
            return None
        free = st.f_bavail * st.f_frsize
        if free < MIN_FREE_BYTES:
            return f"the disk holding the database has {free // 1024} KiB free"
        if self._lock.acquire(timeout=0.5):
            try:
                db = self._db
                size = db.execute("PRAGMA page_size").fetchone()[0]
                count = db.execute("PRAGMA page_count").fetchone()[0]
                unused = db.execute("PRAGMA freelist_count").fetchone()[0]
                limit = db.execute("PRAGMA max_page_count").fetchone()[0]
            except sqlite3.Error:
                return None
            finally:
                self._lock.release()
            room = (limit - count + unused) * size
            if room < MIN_FREE_BYTES:
                return (f"the database has reached its size limit ({room // 1024} KiB "
                        "left under max_page_count)")
        if self._full is not None:
            self._full = None  # room again: the next write will tell
        return None

    def _reader(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            if self._closed:
                raise sqlite3.ProgrammingError("the store is closed")
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                 timeout=30.0)
            db.execute("PRAGMA query_only=ON")
            self._local.db = db
            with self._readers_lock:
                self._readers.append(db)
        return db

    def ping(self) -> None:
        """Raise unless the database answers (readiness checks; never served from a cache)."""
        self._reader().execute("SELECT 1").fetchone()

    def close(self) -> None:
        self._closed = True
        with self._readers_lock:
            for db in self._readers:
                db.close()
            self._readers.clear()
        with self._watch_lock:
            if self._watch is not None:
                self._watch.close()
        with self._lock:
            self._db.close()

    def create_match(
        self, match_id: str, header: dict[str, Any], created_ms: int,
        timekeeper_hash: str, committee_hash: str,
    ) -> MatchRow:
        with self._writing():
            self._db.execute(
                f"INSERT INTO matches ({MATCH_COLS}) VALUES (?, ?, ?, NULL, ?, ?)",
                (match_id, header_json(header), created_ms, timekeeper_hash, committee_hash),
            )
            self._recent_gen += 1
            self._recent = None
        return MatchRow(match_id, header, created_ms, None, timekeeper_hash, committee_hash)

    def get_match(self, match_id: str) -> MatchRow:
        r = self._reader().execute(
            f"SELECT {MATCH_COLS} FROM matches WHERE id = ?", (match_id,)
        ).fetchone()
        if r is None:
            raise UnknownMatch(match_id)
        return match_row(r)

    def list_matches(self, limit: int = 100,
                     before: tuple[int, str] | None = None) -> list[MatchRow]:
        """Newest first, ``limit`` at most, those strictly before the ``(created_ms, id)``
        cursor; on a reader connection of its own (WAL), never behind an append."""
        version = self.data_version() if self._watch is not None else -1
        if before is None and limit <= RECENT:
            recent = self._recent
            if recent is not None and version == self._recent_version:
                return recent[:limit]
        db = self._reader()
        if before is None:
            gen = self._recent_gen
            rows = db.execute(
                f"SELECT {MATCH_COLS} FROM matches ORDER BY created_ms DESC, id DESC LIMIT ?",
                (max(limit, RECENT),),
            ).fetchall()
            found = [match_row(r) for r in rows]
            with self._lock:
                if gen == self._recent_gen:
                    self._recent = found
                    self._recent_version = version
            return found[:limit]
        else:
            rows = db.execute(
                f"SELECT {MATCH_COLS} FROM matches WHERE (created_ms, id) < (?, ?) "
                "ORDER BY created_ms DESC, id DESC LIMIT ?",
                (before[0], before[1], limit),
            ).fetchall()
        return [match_row(r) for r in rows]

    def append(self, match_id: str, event: StoredEvent, start_ms: int) -> None:
        with self._writing() as db:
            db.execute("BEGIN IMMEDIATE")
            if db.execute("SELECT 1 FROM matches WHERE id = ?", (match_id,)).fetchone() is None:
                raise UnknownMatch(match_id)
            dup = db.execute(
                f"SELECT {EVENT_COLS} FROM events WHERE match_id = ? AND command_id = ?",
                (match_id, event.command_id),
            ).fetchone()
            if dup is not None:
                raise CommandExists(event_row(dup))
            last = db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM events WHERE match_id = ?", (match_id,)
            ).fetchone()[0]
            if last != event.seq - 1:
                raise SeqTaken(match_id, event.seq)
            db.execute(
                f"INSERT INTO events (match_id, {EVENT_COLS}) VALUES (?, ?, ?, ?, ?, ?)",
                (match_id, event.seq, event.command_id, event.body(), event.recorded_ms,
                 event.actor),
            )
            if event.seq == 1:
                db.execute(
                    "UPDATE matches SET start_ms = ? WHERE id = ? AND start_ms IS NULL",
                    (start_ms, match_id),
                )
            db.execute("COMMIT")
            if event.seq == 1:
                self._recent_gen += 1
                self._recent = None
        self._tell(match_id, event.seq, event)

    def import_matches(self, batch: list[MatchImport]) -> None:
        """Write an import in one transaction (a kill leaves the database as it was)."""
        with self._writing() as db:
            db.execute("BEGIN IMMEDIATE")
            for m in batch:
                r = m.row
                if m.new:
                    db.execute(
                        f"INSERT INTO matches ({MATCH_COLS}) VALUES (?, ?, ?, ?, ?, ?)",
                        (r.id, header_json(r.header), r.created_ms, r.start_ms,
                         r.timekeeper_hash, r.committee_hash))
                elif r.start_ms is not None:
                    db.execute("UPDATE matches SET start_ms = ? WHERE id = ? "
                               "AND start_ms IS NULL", (r.start_ms, r.id))
                db.executemany(
                    f"INSERT INTO events (match_id, {EVENT_COLS}) VALUES (?, ?, ?, ?, ?, ?)",
                    [(r.id, e.seq, e.command_id, e.body(), e.recorded_ms, e.actor)
                     for e in m.events])
                db.executemany(
                    "INSERT OR IGNORE INTO horns (match_id, at_ms, period, kind, sounded_ms) "
                    "VALUES (?, ?, ?, ?, ?)",
                    [(r.id, h.at_ms, h.period, h.kind, h.sounded_ms) for h in m.horns])
                if m.archived_ms is not None:
                    db.execute("INSERT OR IGNORE INTO archived (match_id, archived_ms) "
                               "VALUES (?, ?)", (r.id, m.archived_ms))
            db.execute("COMMIT")
            self._recent_gen += 1
            self._recent = None
        for m in batch:
            if m.events:
                self._tell(m.row.id, m.events[-1].seq)

    def events(self, match_id: str, after_seq: int = 0) -> list[StoredEvent]:
        rows = self._reader().execute(
            f"SELECT {EVENT_COLS} FROM events WHERE match_id = ? AND seq > ? ORDER BY seq",
            (match_id, after_seq),
        ).fetchall()
        return [event_row(r) for r in rows]

    def record_horn(self, match_id: str, horn: HornRow) -> bool:
        with self._writing():
            cur = self._db.execute(
                "INSERT OR IGNORE INTO horns (match_id, at_ms, period, kind, sounded_ms) "
                "VALUES (?, ?, ?, ?, ?)",
                (match_id, horn.at_ms, horn.period, horn.kind, horn.sounded_ms),
            )
            return cur.rowcount == 1

    def set_archived(self, match_id: str, archived: bool, at_ms: int) -> None:
        """The committee files a match away (or brings it back); its record is untouched."""
        with self._writing():
            if archived:
                self._db.execute("INSERT OR IGNORE INTO archived (match_id, archived_ms) "
                                 "VALUES (?, ?)", (match_id, at_ms))
            else:
                self._db.execute("DELETE FROM archived WHERE match_id = ?", (match_id,))

    def archived(self) -> set[str]:
        """The ids of the archived matches."""
        return {r[0] for r in self._reader().execute("SELECT match_id FROM archived")}

    def horns(self, match_id: str) -> list[HornRow]:
        rows = self._reader().execute(
            "SELECT at_ms, period, kind, sounded_ms FROM horns WHERE match_id = ? "
            "ORDER BY at_ms, kind",
            (match_id,),
        ).fetchall()
        return [HornRow(*r) for r in rows]

    # ------------------------------------------------------------- tournaments
    def append_tournament(self, tournament_id: str, write: TournamentWrite) -> None:
        """Append a tournament's event with its live matches and archive flags, in one
        transaction (``BEGIN IMMEDIATE``: one writer of any process at a time)."""
        e = write.event
        with self._writing() as db:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT 1 FROM tournaments WHERE id = ?",
                             (tournament_id,)).fetchone()
            if e.seq == 1:
                if row is not None:
                    raise TournamentSeqTaken(tournament_id, 1)
                db.execute("INSERT INTO tournaments (id, created_ms) VALUES (?, ?)",
                           (tournament_id, e.recorded_ms))
            else:
                if row is None:
                    raise UnknownTournament(tournament_id)
                last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM tournament_events "
                                  "WHERE tournament_id = ?", (tournament_id,)).fetchone()[0]
                if last != e.seq - 1:
                    raise TournamentSeqTaken(tournament_id, e.seq)
            db.execute(
                f"INSERT INTO tournament_events (tournament_id, {TOURNAMENT_EVENT_COLS}) "
                "VALUES (?, ?, ?, ?, ?)", (tournament_id, e.seq, e.kind, e.text(), e.recorded_ms))
            for m in write.matches:
                db.execute(
                    f"INSERT INTO matches ({MATCH_COLS}) VALUES (?, ?, ?, NULL, ?, ?)",
                    (m.id, header_json(m.header), m.created_ms, m.timekeeper_hash,
                     m.committee_hash))
            for mid in write.archive:
                db.execute("INSERT OR IGNORE INTO archived (match_id, archived_ms) "
                           "SELECT id, ? FROM matches WHERE id = ?", (e.recorded_ms, mid))
            db.execute("COMMIT")
            if write.matches:
                self._recent_gen += 1
                self._recent = None
        self._tell(tournament_key(tournament_id), e.seq)

    def tournament_events(self, tournament_id: str,
                          after_seq: int = 0) -> list[TournamentEvent]:
        rows = self._reader().execute(
            f"SELECT {TOURNAMENT_EVENT_COLS} FROM tournament_events "
            "WHERE tournament_id = ? AND seq > ? ORDER BY seq", (tournament_id, after_seq),
        ).fetchall()
        return [tournament_event_row(r) for r in rows]

    def tournaments(self) -> list[tuple[str, int]]:
        rows = self._reader().execute(
            "SELECT t.id, COALESCE(MAX(e.seq), 0) FROM tournaments t "
            "LEFT JOIN tournament_events e ON e.tournament_id = t.id "
            "GROUP BY t.id ORDER BY t.created_ms, t.id").fetchall()
        return [(str(r[0]), int(r[1])) for r in rows]

    def import_tournaments(self, batch: list[tuple[str, list[TournamentEvent]]]) -> int:
        """Each tournament's events after those stored, in one transaction."""
        n = 0
        told: list[tuple[str, int]] = []
        with self._writing() as db:
            db.execute("BEGIN IMMEDIATE")
            for tid, events in batch:
                if not events:
                    continue
                db.execute("INSERT OR IGNORE INTO tournaments (id, created_ms) VALUES (?, ?)",
                           (tid, events[0].recorded_ms))
                last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM tournament_events "
                                  "WHERE tournament_id = ?", (tid,)).fetchone()[0]
                new = [e for e in events if e.seq > last]
                db.executemany(
                    f"INSERT INTO tournament_events (tournament_id, {TOURNAMENT_EVENT_COLS}) "
                    "VALUES (?, ?, ?, ?, ?)",
                    [(tid, e.seq, e.kind, e.text(), e.recorded_ms) for e in new])
                n += len(new)
                if new:
                    told.append((tournament_key(tid), new[-1].seq))
            db.execute("COMMIT")
        for key, seq in told:
            self._tell(key, seq)
        return n
