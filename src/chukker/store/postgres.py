"""The PostgreSQL event store (psycopg 3), for several ``chukker serve`` on one database.

Appends to a match are serialised by a row lock on the match; each append
sends ``NOTIFY`` on the store's channel with ``<match id>:<seq>`` in the same
transaction, so every process listening (:meth:`PostgresStore.notifications`)
hears of it once it is committed and pushes it to its own clients.

All tables live in one schema (``chukker`` unless told), which lets test runs
use a throw-away schema each.
"""

from __future__ import annotations

import re
import threading
from collections.abc import AsyncIterator
from typing import Any

import psycopg

from chukker.store.base import (
    EVENT_COLS,
    MATCH_COLS,
    Backend,
    CommandExists,
    HornRow,
    MatchRow,
    SeqTaken,
    StoredEvent,
    StoreError,
    UnknownMatch,
    event_row,
    header_json,
    match_row,
)

_IDENT = re.compile(r"^[a-z_][a-z0-9_]{0,40}$")


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
"""






class PostgresStore:
    """An :class:`~chukker.store.base.EventStore` in a PostgreSQL schema."""

    backend = Backend.POSTGRES

    def __init__(self, url: str, schema: str = "chukker") -> None:
        if not _IDENT.match(schema):
            raise StoreError(f"schema {schema!r}: use lower-case letters, digits and _")
        self.url = url
        self.schema = schema
        self.channel = f"{schema}_events"
        self._lock = threading.Lock()
        self._db = psycopg.connect(url, autocommit=True)
        # reads on a connection of their own: a listing never waits for an append
        self._rlock = threading.Lock()
        self._rdb = psycopg.connect(url, autocommit=True)
        with self._lock, self._db.transaction():
            # one creator at a time: concurrent CREATE ... IF NOT EXISTS can still collide
            self._db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (schema,))
            self._db.execute(_schema_sql(schema).encode())

    def ping(self) -> None:
        """Raise unless the database answers (readiness checks)."""
        with self._rlock:
            self._rdb.execute("SELECT 1").fetchone()

    def close(self) -> None:
        with self._rlock:
            self._rdb.close()
        with self._lock:
            self._db.close()

    def drop_schema(self) -> None:
        """Remove every table of this store (tests use it to clean up)."""
        with self._lock:
            self._db.execute(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE".encode())

    def create_match(
        self, match_id: str, header: dict[str, Any], created_ms: int,
        timekeeper_hash: str, committee_hash: str,
    ) -> MatchRow:
        with self._lock:
            self._db.execute(
                f"INSERT INTO {self.schema}.matches ({MATCH_COLS}) "
                "VALUES (%s, %s, %s, NULL, %s, %s)".encode(),
                (match_id, header_json(header), created_ms, timekeeper_hash, committee_hash),
            )
        return MatchRow(match_id, header, created_ms, None, timekeeper_hash, committee_hash)

    def get_match(self, match_id: str) -> MatchRow:
        with self._rlock:
            r = self._rdb.execute(
                f"SELECT {MATCH_COLS} FROM {self.schema}.matches WHERE id = %s".encode(),
                (match_id,),
            ).fetchone()
        if r is None:
            raise UnknownMatch(match_id)
        return match_row(r)

    def list_matches(self, limit: int = 100,
                     before: tuple[int, str] | None = None) -> list[MatchRow]:
        """Newest first, strictly before the ``(created_ms, id)`` cursor if given."""
        s = self.schema
        with self._rlock:
            if before is None:
                rows = self._rdb.execute(
                    f"SELECT {MATCH_COLS} FROM {s}.matches "
                    "ORDER BY created_ms DESC, id DESC LIMIT %s".encode(),
                    (limit,),
                ).fetchall()
            else:
                rows = self._rdb.execute(
                    f"SELECT {MATCH_COLS} FROM {s}.matches WHERE (created_ms, id) < (%s, %s) "
                    "ORDER BY created_ms DESC, id DESC LIMIT %s".encode(),
                    (before[0], before[1], limit),
                ).fetchall()
        return [match_row(r) for r in rows]

    def append(self, match_id: str, event: StoredEvent, start_ms: int) -> None:
        s = self.schema
        with self._lock, self._db.transaction():
            db = self._db
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
                raise CommandExists(event_row(dup))
            row = db.execute(
                f"SELECT COALESCE(MAX(seq), 0) FROM {s}.events WHERE match_id = %s".encode(),
                (match_id,),
            ).fetchone()
            if row is None or row[0] != event.seq - 1:
                raise SeqTaken(match_id, event.seq)
            db.execute(
                f"INSERT INTO {s}.events (match_id, {EVENT_COLS}) "
                "VALUES (%s, %s, %s, %s, %s, %s)".encode(),
                (match_id, event.seq, event.command_id, event.body(), event.recorded_ms,
                 event.actor),
            )
            if event.seq == 1:
                db.execute(
                    f"UPDATE {s}.matches SET start_ms = %s "
                    "WHERE id = %s AND start_ms IS NULL".encode(),
                    (start_ms, match_id),
                )
            db.execute("SELECT pg_notify(%s, %s)", (self.channel, f"{match_id}:{event.seq}"))

    def events(self, match_id: str, after_seq: int = 0) -> list[StoredEvent]:
        with self._rlock:
            rows = self._rdb.execute(
                f"SELECT {EVENT_COLS} FROM {self.schema}.events "
                "WHERE match_id = %s AND seq > %s ORDER BY seq".encode(),
                (match_id, after_seq),
            ).fetchall()
        return [event_row(r) for r in rows]

    def record_horn(self, match_id: str, horn: HornRow) -> bool:
        with self._lock:
            cur = self._db.execute(
                f"INSERT INTO {self.schema}.horns (match_id, at_ms, period, kind, sounded_ms) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING".encode(),
                (match_id, horn.at_ms, horn.period, horn.kind, horn.sounded_ms),
            )
            return cur.rowcount == 1

    def horns(self, match_id: str) -> list[HornRow]:
        with self._rlock:
            rows = self._rdb.execute(
                f"SELECT at_ms, period, kind, sounded_ms FROM {self.schema}.horns "
                "WHERE match_id = %s ORDER BY at_ms, kind".encode(),
                (match_id,),
            ).fetchall()
        return [HornRow(*r) for r in rows]

    async def notifications(self) -> AsyncIterator[tuple[str, int]]:
        """Yield ``(match_id, seq)`` for every append committed by any process."""
        conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
        try:
            await conn.execute(f"LISTEN {self.channel}".encode())
            async for n in conn.notifies():
                match_id, _, seq = n.payload.rpartition(":")
                if match_id and seq.isdigit():
                    yield match_id, int(seq)
        finally:
            await conn.close()
