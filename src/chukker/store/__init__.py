"""Event store of the live service: SQLite by default, PostgreSQL via psycopg 3.

>>> import tempfile, os
>>> s = open_store(os.path.join(tempfile.mkdtemp(), "x.sqlite3"))
>>> s.backend.value
'sqlite'
>>> s.close()
"""

from __future__ import annotations

from pathlib import Path

from chukker.store.base import (
    Backend,
    CommandExists,
    EventStore,
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
    tournament_key,
    tournament_of,
)

__all__ = [
    "Backend",
    "CommandExists",
    "EventStore",
    "HornRow",
    "MatchImport",
    "MatchRow",
    "SeqTaken",
    "StorageFull",
    "StoreError",
    "StoreUnavailable",
    "StoredEvent",
    "TournamentEvent",
    "TournamentSeqTaken",
    "TournamentWrite",
    "UnknownMatch",
    "UnknownTournament",
    "is_postgres_url",
    "open_store",
    "tournament_key",
    "tournament_of",
]


def is_postgres_url(target: str) -> bool:
    """>>> is_postgres_url("postgresql://u@h/db"), is_postgres_url("./chukker.sqlite3")
    (True, False)
    """
    return target.startswith(("postgresql://", "postgres://"))


def open_store(target: str | Path, *, pg_schema: str = "chukker",
               application_name: str | None = None) -> EventStore:
    """A store for ``target``: a ``postgresql://`` URL, ``sqlite:///path`` or a file path.

    ``application_name``: how PostgreSQL lists this store's connections
    (``pg_stat_activity``); default ``chukker <schema> <pid>``.
    """
    text = str(target)
    if is_postgres_url(text):
        from chukker.store.postgres import PostgresStore

        return PostgresStore(text, schema=pg_schema, application_name=application_name)
    from chukker.store.sqlite import SQLiteStore

    if text.startswith("sqlite:///"):
        text = text[len("sqlite:///") :]
    return SQLiteStore(text)
