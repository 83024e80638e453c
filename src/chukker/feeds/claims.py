"""Exactly one server sounds each horn: a claim per horn, the first claimer wins.

Every server that has a match loaded runs its horn scheduler and tells its
listeners of each horn. The MQTT feed of each server then *claims* the horn
(match, kind, instant) before it publishes the horn and drives the relays; the
claim succeeds for one server only:

* :class:`LocalClaims`: in this process (SQLite allows one server per file);
* :class:`PostgresClaims`: an ``INSERT ... ON CONFLICT DO NOTHING`` into
  ``<schema>.feed_horn_claims`` on the servers' shared database, so across
  servers, reconnects and restarts the relay hears each horn once.

If the database cannot be asked, the claim is granted (and counted): two
``ON`` commands within milliseconds sound as one horn, while no horn at all
is what players and umpires cannot work with.

>>> c = LocalClaims()
>>> c.claim("m1", "end", 450_000), c.claim("m1", "end", 450_000), c.claim("m1", "split", 225_000)
(True, False, True)
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from typing import Protocol


class HornClaims(Protocol):
    def claim(self, match_id: str, kind: str, at_ms: int) -> bool:
        """True for the first caller for this horn (may block: called in a worker thread)."""
        ...

    def close(self) -> None: ...


class LocalClaims:
    """Claims of this process (the newest ``limit`` horns are remembered)."""

    def __init__(self, limit: int = 100_000) -> None:
        self._seen: OrderedDict[tuple[str, str, int], None] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def claim(self, match_id: str, kind: str, at_ms: int) -> bool:
        key = (match_id, kind, at_ms)
        with self._lock:
            if key in self._seen:
                return False
            self._seen[key] = None
            if len(self._seen) > self._limit:
                self._seen.popitem(last=False)
            return True

    def close(self) -> None:
        pass


class PostgresClaims:
    """Claims in the servers' PostgreSQL database (table ``<schema>.feed_horn_claims``)."""

    def __init__(self, url: str, schema: str, server: str) -> None:
        import psycopg

        self._psycopg = psycopg
        self.url, self.schema, self.server = url, schema, server
        self._lock = threading.Lock()
        self._db: psycopg.Connection[tuple[object, ...]] | None = None
        #: claims granted because the database could not be asked
        self.errors = 0
        self._connect()

    def _connect(self) -> None:
        db = self._psycopg.connect(self.url, autocommit=True, connect_timeout=2)
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (self.schema + ".feed",))
            db.execute(
                f"CREATE TABLE IF NOT EXISTS {self.schema}.feed_horn_claims ("
                "match_id TEXT NOT NULL, kind TEXT NOT NULL, at_ms BIGINT NOT NULL, "
                "server TEXT NOT NULL, claimed_ms BIGINT NOT NULL, "
                "PRIMARY KEY (match_id, kind, at_ms))".encode())
        self._db = db

    def claim(self, match_id: str, kind: str, at_ms: int) -> bool:
        with self._lock:
            for attempt in (1, 2):
                try:
                    if self._db is None or self._db.closed:
                        self._connect()
                    assert self._db is not None
                    cur = self._db.execute(
                        f"INSERT INTO {self.schema}.feed_horn_claims "
                        "(match_id, kind, at_ms, server, claimed_ms) VALUES (%s, %s, %s, %s, "
                        "(extract(epoch from clock_timestamp()) * 1000)::bigint) "
                        "ON CONFLICT DO NOTHING".encode(),
                        (match_id, kind, at_ms, self.server))
                    return cur.rowcount == 1
                except self._psycopg.Error:
                    self._close()
                    if attempt == 2:
                        self.errors += 1
                        return True
            return True  # pragma: no cover - the loop returns

    def winner(self, match_id: str, kind: str, at_ms: int) -> str | None:
        """The server that claimed a horn (audits and tests)."""
        with self._lock:
            if self._db is None or self._db.closed:
                self._connect()
            assert self._db is not None
            r = self._db.execute(
                f"SELECT server FROM {self.schema}.feed_horn_claims "
                "WHERE match_id = %s AND kind = %s AND at_ms = %s".encode(),
                (match_id, kind, at_ms)).fetchone()
            return None if r is None else str(r[0])

    def _close(self) -> None:
        if self._db is not None:
            with contextlib.suppress(Exception):  # already gone
                self._db.close()
            self._db = None

    def close(self) -> None:
        with self._lock:
            self._close()
