"""The PostgreSQL event store (psycopg 3), for several ``chukker serve`` on one database.

Appends to a match are serialised by a row lock on the match; each append
sends ``NOTIFY`` on the store's channel with ``<match id>:<seq>`` in the same
transaction, so every process listening (:meth:`PostgresStore.notifications`)
hears of it once it is committed and pushes it to its own clients. Before it goes
the event itself, signed with the schema's key (:mod:`chukker.store.pgnotify`), so
that a listener need not read it again (:meth:`PostgresStore.told_events`).

All tables live in one schema (``chukker`` unless told), which lets test runs
use a throw-away schema each.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import re
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from chukker.store import pgnotify
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
    StoreUnavailable,
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
from chukker.store.notify import keep, take

_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,40}$")
log = logging.getLogger("chukker.store")
T = TypeVar("T")

#: seconds a call waits for a connection (while PostgreSQL is away) before it is refused
CONNECT_WAIT_S = 5.0
#: the LISTEN connection's reconnect backoff: first wait, then doubling up to the last
BACKOFF_S = (0.05, 5.0)
#: seconds without a notification after which the LISTEN connection is checked
LISTEN_CHECK_S = 10.0
#: PostgreSQL's SQLSTATE for "disk full"
DISK_FULL = "53100"


def _schema_sql(schema: str) -> str:
    return f"""
CREATE SCHEMA IF NOT EXISTS {schema};
CREATE TABLE IF NOT EXISTS {schema}.matches (
    id TEXT PRIMARY KEY,
    header TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    start_ms BIGINT,
    timekeeper_hash TEXT NOT NULL,
    committee_hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS matches_newest ON {schema}.matches(created_ms DESC, id DESC);
CREATE TABLE IF NOT EXISTS {schema}.events (
    match_id TEXT NOT NULL REFERENCES {schema}.matches(id),
    seq INTEGER NOT NULL,
    command_id TEXT NOT NULL,
    body TEXT NOT NULL,
    recorded_ms BIGINT NOT NULL,
    actor TEXT NOT NULL,
    PRIMARY KEY (match_id, seq),
    UNIQUE (match_id, command_id)
);
CREATE TABLE IF NOT EXISTS {schema}.horns (
    match_id TEXT NOT NULL REFERENCES {schema}.matches(id),
    at_ms BIGINT NOT NULL,
    period INTEGER NOT NULL,
    kind TEXT NOT NULL,
    sounded_ms BIGINT NOT NULL,
    PRIMARY KEY (match_id, at_ms, kind)
);
CREATE TABLE IF NOT EXISTS {schema}.archived (
    match_id TEXT PRIMARY KEY REFERENCES {schema}.matches(id),
    archived_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS {schema}.tournaments (
    id TEXT PRIMARY KEY,
    created_ms BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS {schema}.tournament_events (
    tournament_id TEXT NOT NULL REFERENCES {schema}.tournaments(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    recorded_ms BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);
CREATE TABLE IF NOT EXISTS {schema}.probe (
    id INTEGER PRIMARY KEY,
    at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS {schema}.notify_key (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    key BYTEA NOT NULL
);
REVOKE ALL ON {schema}.notify_key FROM PUBLIC;
"""


def is_disk_full(e: BaseException) -> bool:
    """PostgreSQL's out-of-space error (SQLSTATE 53100).

    >>> is_disk_full(psycopg.errors.DiskFull("could not extend file"))
    True
    >>> is_disk_full(psycopg.errors.AdminShutdown("terminating connection"))
    False
    """
    return isinstance(e, psycopg.Error) and (
        isinstance(e, psycopg.errors.DiskFull) or getattr(e, "sqlstate", None) == DISK_FULL)


def _lost(e: BaseException) -> bool:
    """A failure of the connection (not of the statement): worth one retry on a new one."""
    if isinstance(e, psycopg.errors.DiskFull):
        return False
    return isinstance(e, psycopg.OperationalError | psycopg.InterfaceError)






class PostgresStore:
    """An :class:`~chukker.store.base.EventStore` in a PostgreSQL schema.

    Writes go through a pool of one connection (appends are serialised anyway by
    the match's row lock), reads through a pool of their own, so a listing never
    waits for an append. Both pools (psycopg_pool) check a connection before
    handing it out and replace a lost one, reconnecting with backoff; a call whose
    connection is lost on the way is tried once more on a new one (appends are
    idempotent by ``command_id``, so a retry never stores an event twice). While
    PostgreSQL is away, calls are refused with :class:`StoreUnavailable` after
    :data:`CONNECT_WAIT_S`.
    """

    backend = Backend.POSTGRES

    def __init__(self, url: str, schema: str = "chukker", *,
                 application_name: str | None = None,
                 connect_wait_s: float = CONNECT_WAIT_S) -> None:
        if not _IDENT.match(schema):
            raise StoreError(f"schema {schema!r}: use lower-case letters, digits and _")
        self.url = url
        self.schema = schema
        self.channel = f"{schema}_events"
        #: how PostgreSQL lists this store's connections (pg_stat_activity)
        self.application_name = (application_name or f"chukker {schema} {os.getpid()}")[:63]
        self.connect_wait_s = connect_wait_s
        #: True while the LISTEN connection is subscribed (see :meth:`notifications`)
        self.listening = False
        #: an append's NOTIFY carries the event, signed (issue 43; False: ``<id>:<seq>``)
        self.carry = True
        #: a carried NOTIFY is followed by the plain ``<id>:<seq>``, for the listeners of
        #: older versions (a mixed rollout); this version skips it
        self.tell_plain = True
        #: notifications heard carrying an event, until :meth:`told_events` takes them
        #: (their signature is checked then)
        self.kept: dict[tuple[str, int], pgnotify.Heard] = {}
        #: carried events taken and not believed (a bad or missing signature, or not an
        #: event): the store was read instead
        self.forged = 0
        #: signs and checks with the schema's key (None: this role may not read it;
        #: nothing is carried or believed)
        self._signer: pgnotify.Signer | None = None
        self._full: str | None = None
        kwargs: dict[str, Any] = {"autocommit": True, "connect_timeout": 5,
                                  "application_name": self.application_name}
        self._wpool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url, kwargs=kwargs, min_size=1, max_size=1, open=False, num_workers=1,
            check=ConnectionPool.check_connection, timeout=connect_wait_s,
            name=f"{schema}-write")
        self._rpool: ConnectionPool[psycopg.Connection[Any]] = ConnectionPool(
            url, kwargs=kwargs, min_size=1, max_size=4, open=False, num_workers=1,
            check=ConnectionPool.check_connection, timeout=connect_wait_s,
            name=f"{schema}-read")
        try:
            self._wpool.open(wait=True, timeout=10.0)
            self._rpool.open(wait=True, timeout=10.0)
        except PoolTimeout as e:
            self._wpool.close()
            self._rpool.close()
            raise StoreUnavailable(f"no connection to PostgreSQL within 10 s ({e})") from None

        def create(db: psycopg.Connection[Any]) -> None:
            with db.transaction():
                # one creator at a time: concurrent CREATE ... IF NOT EXISTS can still collide
                db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (schema,))
                db.execute(_schema_sql(schema).encode())
                db.execute(f"INSERT INTO {schema}.notify_key (id, key) VALUES (1, %s) "
                           "ON CONFLICT (id) DO NOTHING".encode(),
                           (secrets.token_bytes(pgnotify.KEY_BYTES),))

        self._write(create)
        key = self._read(self._read_key)
        self._signer = pgnotify.Signer(key) if key is not None else None

    def _read_key(self, db: psycopg.Connection[Any]) -> bytes | None:
        try:
            row = db.execute(
                f"SELECT key FROM {self.schema}.notify_key WHERE id = 1".encode()).fetchone()
        except psycopg.errors.InsufficientPrivilege:
            log.warning("no SELECT on %s.notify_key: appends are told without their event, "
                        "and every event told is read from the database", self.schema)
            return None
        return bytes(row[0]) if row is not None else None

    # ------------------------------------------------------------ connections
    def _call(self, pool: ConnectionPool[psycopg.Connection[Any]],
              fn: Callable[[psycopg.Connection[Any]], T], *, writing: bool,
              wait_s: float | None = None, retry: bool = True) -> T:
        for attempt in (1, 2):
            try:
                with pool.connection(timeout=wait_s) as db:
                    out = fn(db)
            except PoolTimeout:
                raise StoreUnavailable(
                    f"no connection to PostgreSQL within {wait_s or self.connect_wait_s} s"
                ) from None
            except (psycopg.Error, OSError) as e:
                if is_disk_full(e):
                    self._full = str(e).strip().splitlines()[0][:200] or "disk full"
                    raise StorageFull(self._full) from None
                if _lost(e):
                    if attempt == 1 and retry:
                        log.warning("PostgreSQL connection lost (%s); trying again on a new one",
                                    type(e).__name__)
                        continue
                    raise StoreUnavailable(f"{type(e).__name__}: {e}"[:200]) from None
                raise
            if writing:
                self._full = None
            return out
        raise AssertionError("unreachable")  # pragma: no cover

    def _write(self, fn: Callable[[psycopg.Connection[Any]], T]) -> T:
        return self._call(self._wpool, fn, writing=True)

    def _read(self, fn: Callable[[psycopg.Connection[Any]], T]) -> T:
        return self._call(self._rpool, fn, writing=False)

    def ping(self) -> None:
        """Raise unless the database answers (readiness checks); a lost connection
        is replaced on the way, so this answers again as soon as PostgreSQL is back."""
        self._call(self._rpool, lambda db: db.execute("SELECT 1").fetchone(), writing=False,
                   wait_s=1.5)

    def storage_problem(self) -> str | None:
        """Why writes fail for want of space, or None. After a disk-full error, a small
        write is tried: once it succeeds the state clears by itself."""
        if self._full is None:
            return None
        reason = self._full
        try:
            self._call(self._wpool, lambda db: db.execute(
                f"INSERT INTO {self.schema}.probe (id, at) VALUES (1, 0) "
                "ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at + 1".encode()),
                writing=True, wait_s=1.5)
        except StorageFull as e:
            return e.reason
        except StoreError:
            return reason
        return None

    def close(self) -> None:
        self._rpool.close()
        self._wpool.close()

    def drop_schema(self) -> None:
        """Remove every table of this store (tests use it to clean up)."""
        self._write(lambda db: db.execute(
            f"DROP SCHEMA IF EXISTS {self.schema} CASCADE".encode()))

    # ----------------------------------------------------------------- writes
    def create_match(
        self, match_id: str, header: dict[str, Any], created_ms: int,
        timekeeper_hash: str, committee_hash: str,
    ) -> MatchRow:
        row = MatchRow(match_id, header, created_ms, None, timekeeper_hash, committee_hash)

        def insert(db: psycopg.Connection[Any]) -> int:
            # ON CONFLICT: a retry after a lost connection finds its own row
            return db.execute(
                f"INSERT INTO {self.schema}.matches ({MATCH_COLS}) "
                "VALUES (%s, %s, %s, NULL, %s, %s) ON CONFLICT (id) DO NOTHING".encode(),
                (match_id, header_json(header), created_ms, timekeeper_hash, committee_hash),
            ).rowcount

        if self._write(insert) == 0:
            have = self.get_match(match_id)
            if (have.timekeeper_hash, have.committee_hash) != (timekeeper_hash, committee_hash):
                raise StoreError(f"match {match_id} exists already")
        return row

    def append(self, match_id: str, event: StoredEvent, start_ms: int) -> None:
        s = self.schema
        tries = 0
        body = event.body()  # once: stored, and carried by the NOTIFY

        def write(db: psycopg.Connection[Any]) -> None:
            nonlocal tries
            tries += 1
            with db.transaction():
                if db.execute(
                    f"SELECT 1 FROM {s}.matches WHERE id = %s FOR UPDATE".encode(), (match_id,)
                ).fetchone() is None:
                    raise UnknownMatch(match_id)
                dup = db.execute(
                    f"SELECT {EVENT_COLS} FROM {s}.events "
                    "WHERE match_id = %s AND command_id = %s".encode(),
                    (match_id, event.command_id),
                ).fetchone()
                if dup is not None:
                    found = event_row(dup)
                    if tries > 1 and found.seq == event.seq and found.body() == body:
                        return  # the lost attempt had committed: this is that event
                    raise CommandExists(found)
                row = db.execute(
                    f"SELECT COALESCE(MAX(seq), 0) FROM {s}.events WHERE match_id = %s".encode(),
                    (match_id,),
                ).fetchone()
                if row is None or row[0] != event.seq - 1:
                    raise SeqTaken(match_id, event.seq)
                db.execute(
                    f"INSERT INTO {s}.events (match_id, {EVENT_COLS}) "
                    "VALUES (%s, %s, %s, %s, %s, %s)".encode(),
                    (match_id, event.seq, event.command_id, body, event.recorded_ms,
                     event.actor),
                )
                if event.seq == 1:
                    db.execute(
                        f"UPDATE {s}.matches SET start_ms = %s "
                        "WHERE id = %s AND start_ms IS NULL".encode(),
                        (start_ms, match_id),
                    )
                self._notify(db, match_id, event, body)

        self._write(write)

    def _notify(self, db: psycopg.Connection[Any], match_id: str, event: StoredEvent,
                body: str) -> None:
        """Tell every listener of the append, in its transaction: the event itself, signed,
        when it fits (and :attr:`carry`); then (:attr:`tell_plain`), or instead,
        ``<id>:<seq>``."""
        plain = pgnotify.plain(match_id, event.seq)
        signer = self._signer
        carried = (signer.signed(match_id, event, body)
                   if signer is not None and self.carry else None)
        if carried is None:
            db.execute("SELECT pg_notify(%s, %s)", (self.channel, plain))
        elif self.tell_plain:  # in this order: a listener of this version skips the twin
            db.execute("SELECT pg_notify(%s, %s), pg_notify(%s, %s)",
                       (self.channel, carried, self.channel, plain))
        else:
            db.execute("SELECT pg_notify(%s, %s)", (self.channel, carried))

    def import_matches(self, batch: list[MatchImport]) -> None:
        """Write an import in one transaction (a failure or a kill leaves nothing)."""
        s = self.schema

        def write(db: psycopg.Connection[Any]) -> None:
            with db.transaction(), db.cursor() as cur:
                for m in batch:
                    r = m.row
                    if m.new:
                        cur.execute(
                            f"INSERT INTO {s}.matches ({MATCH_COLS}) "
                            "VALUES (%s, %s, %s, %s, %s, %s)".encode(),
                            (r.id, header_json(r.header), r.created_ms, r.start_ms,
                             r.timekeeper_hash, r.committee_hash))
                    elif r.start_ms is not None:
                        cur.execute(f"UPDATE {s}.matches SET start_ms = %s WHERE id = %s "
                                    "AND start_ms IS NULL".encode(), (r.start_ms, r.id))
                    if m.events:
                        cur.executemany(
                            f"INSERT INTO {s}.events (match_id, {EVENT_COLS}) "
                            "VALUES (%s, %s, %s, %s, %s, %s)".encode(),
                            [(r.id, e.seq, e.command_id, e.body(), e.recorded_ms, e.actor)
                             for e in m.events])
                    if m.horns:
                        cur.executemany(
                            f"INSERT INTO {s}.horns (match_id, at_ms, period, kind, sounded_ms) "
                            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING".encode(),
                            [(r.id, h.at_ms, h.period, h.kind, h.sounded_ms) for h in m.horns])
                    if m.archived_ms is not None:
                        cur.execute(f"INSERT INTO {s}.archived (match_id, archived_ms) "
                                    "VALUES (%s, %s) ON CONFLICT DO NOTHING".encode(),
                                    (r.id, m.archived_ms))
                    if m.events:
                        cur.execute("SELECT pg_notify(%s, %s)",
                                    (self.channel, f"{r.id}:{m.events[-1].seq}"))

        # never retried by itself: after a lost connection nobody knows whether it
        # committed; running the same import again tells (it is idempotent)
        self._call(self._wpool, write, writing=True, retry=False)

    def record_horn(self, match_id: str, horn: HornRow) -> bool:
        return self._write(lambda db: db.execute(
            f"INSERT INTO {self.schema}.horns (match_id, at_ms, period, kind, sounded_ms) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING".encode(),
            (match_id, horn.at_ms, horn.period, horn.kind, horn.sounded_ms),
        ).rowcount == 1)

    def set_archived(self, match_id: str, archived: bool, at_ms: int) -> None:
        """The committee files a match away (or brings it back); its record is untouched."""
        if archived:
            self._write(lambda db: db.execute(
                f"INSERT INTO {self.schema}.archived (match_id, archived_ms) "
                "VALUES (%s, %s) ON CONFLICT DO NOTHING".encode(), (match_id, at_ms)))
        else:
            self._write(lambda db: db.execute(
                f"DELETE FROM {self.schema}.archived WHERE match_id = %s".encode(),
                (match_id,)))

    # ------------------------------------------------------------- tournaments
    def append_tournament(self, tournament_id: str, write: TournamentWrite) -> None:
        """Append a tournament's event with its live matches and archive flags, in one
        transaction; the tournament's row lock serialises its writers across servers,
        and NOTIFY ``t.<id>:<seq>`` tells every process once it is committed."""
        s, e = self.schema, write.event
        tries = 0

        def write_(db: psycopg.Connection[Any]) -> None:
            nonlocal tries
            tries += 1
            with db.transaction():
                if e.seq == 1:
                    made = db.execute(
                        f"INSERT INTO {s}.tournaments (id, created_ms) VALUES (%s, %s) "
                        "ON CONFLICT (id) DO NOTHING".encode(),
                        (tournament_id, e.recorded_ms)).rowcount
                    if made == 0:
                        if tries > 1 and self._same_event(db, tournament_id, e):
                            return  # the lost attempt had committed: this is that event
                        raise TournamentSeqTaken(tournament_id, 1)
                else:
                    if db.execute(f"SELECT 1 FROM {s}.tournaments WHERE id = %s "
                                  "FOR UPDATE".encode(), (tournament_id,)).fetchone() is None:
                        raise UnknownTournament(tournament_id)
                    row = db.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {s}.tournament_events "
                                     "WHERE tournament_id = %s".encode(),
                                     (tournament_id,)).fetchone()
                    if row is None or row[0] != e.seq - 1:
                        if tries > 1 and self._same_event(db, tournament_id, e):
                            return
                        raise TournamentSeqTaken(tournament_id, e.seq)
                db.execute(
                    f"INSERT INTO {s}.tournament_events (tournament_id, {TOURNAMENT_EVENT_COLS}) "
                    "VALUES (%s, %s, %s, %s, %s)".encode(),
                    (tournament_id, e.seq, e.kind, e.text(), e.recorded_ms))
                for m in write.matches:
                    db.execute(
                        f"INSERT INTO {s}.matches ({MATCH_COLS}) "
                        "VALUES (%s, %s, %s, NULL, %s, %s)".encode(),
                        (m.id, header_json(m.header), m.created_ms, m.timekeeper_hash,
                         m.committee_hash))
                for mid in write.archive:
                    db.execute(
                        f"INSERT INTO {s}.archived (match_id, archived_ms) SELECT id, %s "
                        f"FROM {s}.matches WHERE id = %s ON CONFLICT DO NOTHING".encode(),
                        (e.recorded_ms, mid))
                db.execute("SELECT pg_notify(%s, %s)",
                           (self.channel, f"{tournament_key(tournament_id)}:{e.seq}"))

        self._write(write_)

    def _same_event(self, db: psycopg.Connection[Any], tournament_id: str,
                    e: TournamentEvent) -> bool:
        row = db.execute(
            f"SELECT {TOURNAMENT_EVENT_COLS} FROM {self.schema}.tournament_events "
            "WHERE tournament_id = %s AND seq = %s".encode(), (tournament_id, e.seq)).fetchone()
        return row is not None and tournament_event_row(row).text() == e.text()

    def tournament_events(self, tournament_id: str,
                          after_seq: int = 0) -> list[TournamentEvent]:
        rows = self._read(lambda db: db.execute(
            f"SELECT {TOURNAMENT_EVENT_COLS} FROM {self.schema}.tournament_events "
            "WHERE tournament_id = %s AND seq > %s ORDER BY seq".encode(),
            (tournament_id, after_seq)).fetchall())
        return [tournament_event_row(r) for r in rows]

    def tournaments(self) -> list[tuple[str, int]]:
        s = self.schema
        rows = self._read(lambda db: db.execute(
            f"SELECT t.id, COALESCE(MAX(e.seq), 0) FROM {s}.tournaments t "
            f"LEFT JOIN {s}.tournament_events e ON e.tournament_id = t.id "
            "GROUP BY t.id ORDER BY MIN(t.created_ms), t.id".encode()).fetchall())
        return [(str(r[0]), int(r[1])) for r in rows]

    def import_tournaments(self, batch: list[tuple[str, list[TournamentEvent]]]) -> int:
        """Each tournament's events after those stored, in one transaction."""
        s = self.schema

        def write(db: psycopg.Connection[Any]) -> int:
            n = 0
            with db.transaction():
                for tid, events in batch:
                    if not events:
                        continue
                    db.execute(f"INSERT INTO {s}.tournaments (id, created_ms) VALUES (%s, %s) "
                               "ON CONFLICT (id) DO NOTHING".encode(),
                               (tid, events[0].recorded_ms))
                    db.execute(f"SELECT 1 FROM {s}.tournaments WHERE id = %s FOR UPDATE".encode(),
                               (tid,))
                    row = db.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {s}.tournament_events "
                                     "WHERE tournament_id = %s".encode(), (tid,)).fetchone()
                    last = row[0] if row else 0
                    new = [e for e in events if e.seq > last]
                    with db.cursor() as cur:
                        if new:
                            cur.executemany(
                                f"INSERT INTO {s}.tournament_events (tournament_id, "
                                f"{TOURNAMENT_EVENT_COLS}) VALUES (%s, %s, %s, %s, %s)".encode(),
                                [(tid, e.seq, e.kind, e.text(), e.recorded_ms) for e in new])
                    if new:
                        db.execute("SELECT pg_notify(%s, %s)",
                                   (self.channel, f"{tournament_key(tid)}:{new[-1].seq}"))
                    n += len(new)
            return n

        return self._call(self._wpool, write, writing=True, retry=False)

    # ------------------------------------------------------------------ reads
    def get_match(self, match_id: str) -> MatchRow:
        r = self._read(lambda db: db.execute(
            f"SELECT {MATCH_COLS} FROM {self.schema}.matches WHERE id = %s".encode(),
            (match_id,),
        ).fetchone())
        if r is None:
            raise UnknownMatch(match_id)
        return match_row(r)

    def list_matches(self, limit: int = 100,
                     before: tuple[int, str] | None = None) -> list[MatchRow]:
        """Newest first, strictly before the ``(created_ms, id)`` cursor if given."""
        s = self.schema
        if before is None:
            rows = self._read(lambda db: db.execute(
                f"SELECT {MATCH_COLS} FROM {s}.matches "
                "ORDER BY created_ms DESC, id DESC LIMIT %s".encode(),
                (limit,),
            ).fetchall())
        else:
            rows = self._read(lambda db: db.execute(
                f"SELECT {MATCH_COLS} FROM {s}.matches WHERE (created_ms, id) < (%s, %s) "
                "ORDER BY created_ms DESC, id DESC LIMIT %s".encode(),
                (before[0], before[1], limit),
            ).fetchall())
        return [match_row(r) for r in rows]

    def events(self, match_id: str, after_seq: int = 0) -> list[StoredEvent]:
        rows = self._read(lambda db: db.execute(
            f"SELECT {EVENT_COLS} FROM {self.schema}.events "
            "WHERE match_id = %s AND seq > %s ORDER BY seq".encode(),
            (match_id, after_seq),
        ).fetchall())
        return [event_row(r) for r in rows]

    def archived(self) -> set[str]:
        """The ids of the archived matches."""
        rows = self._read(lambda db: db.execute(
            f"SELECT match_id FROM {self.schema}.archived".encode()).fetchall())
        return {r[0] for r in rows}

    def horns(self, match_id: str) -> list[HornRow]:
        rows = self._read(lambda db: db.execute(
            f"SELECT at_ms, period, kind, sounded_ms FROM {self.schema}.horns "
            "WHERE match_id = %s ORDER BY at_ms, kind".encode(),
            (match_id,),
        ).fetchall())
        return [HornRow(*r) for r in rows]

    # ----------------------------------------------------------------- listen
    def told_events(self, match_id: str, after_seq: int, upto: int) -> list[StoredEvent] | None:
        """Events ``after_seq + 1 .. upto`` as their signed notifications carried them
        (:mod:`chukker.store.pgnotify`), without reading the database; None: read it
        (one of them was not carried, or is not believed)."""
        heard = take(self.kept, match_id, after_seq, upto)
        signer = self._signer
        if heard is None or signer is None:  # no key: said once at start
            return None
        out: list[StoredEvent] = []
        for told in heard:
            e = signer.believe(told)
            if e is None:
                self._not_believed(told)
                return None
            out.append(e)
        return out

    def _not_believed(self, told: pgnotify.Heard) -> None:
        self.forged += 1
        if self.forged == 1:  # once: a flood of them must not flood the log
            log.warning("a notification on %s carried an event without a valid signature "
                        "(match %s, event %d): not believed, read from the database "
                        "instead; further ones are counted (forged), not logged",
                        self.channel, told.key, told.seq)

    async def notifications(
        self, on_listening: Callable[[], Awaitable[object]] | None = None,
    ) -> AsyncIterator[tuple[str, int]]:
        """Yield ``(match_id, seq)`` for every append committed by any process.

        Never ends by itself: a lost connection is re-established with backoff
        (:data:`BACKOFF_S`, with jitter) and LISTEN issued again; after every
        (re)subscription ``on_listening`` is awaited, so the caller can catch up
        with whatever was appended while it was not listening. :attr:`listening`
        tells whether it is subscribed now. An event a notification carried is kept
        for :meth:`told_events` (which checks its signature); the plain notification
        sent after it is not yielded again.
        """
        delay = BACKOFF_S[0]
        while True:
            conn: psycopg.AsyncConnection[Any] | None = None
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.url, autocommit=True, connect_timeout=5,
                    application_name=self.application_name)
                await conn.execute(f"LISTEN {self.channel}".encode())
                self.listening = True
                delay = BACKOFF_S[0]
                self.kept.clear()  # what was missed is read by the catch-up
                if on_listening is not None:
                    await on_listening()
                twin: tuple[str, int] | None = None
                while True:
                    got = False
                    async for n in conn.notifies(timeout=LISTEN_CHECK_S):
                        got = True
                        told = pgnotify.heard(n.payload)
                        if told is None:
                            continue
                        at = (told.key, told.seq)
                        if told.carried:
                            keep(self.kept, at, told)
                            twin = at
                        elif at == twin:
                            twin = None  # the plain twin of the carried one just yielded
                            continue
                        else:
                            twin = None
                        yield at
                    if not got:  # quiet for a while: is the connection still there?
                        await conn.execute(b"SELECT 1")
            except (psycopg.Error, OSError) as e:
                self.listening = False
                log.warning("LISTEN connection lost (%s); reconnecting in %.2f s",
                            f"{type(e).__name__}: {e}".strip()[:200], delay)
            finally:
                self.listening = False
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.close()
            await asyncio.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, BACKOFF_S[1])
