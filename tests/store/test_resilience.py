"""The store survives what a real night brings: PostgreSQL restarting under it (its
connections terminated) and a disk that fills up, then frees."""

from __future__ import annotations

import asyncio
import sqlite3
import time
import uuid
from pathlib import Path

import psycopg
import pytest

from chukker.store import StorageFull, StoredEvent, open_store
from chukker.store.sqlite import SQLiteStore

HEADER = {"format": "chukker-match/1", "rules": "uspa-arena-2026", "teams": {}}


def ev(seq: int, cid: str, kind: str = "whistle") -> StoredEvent:
    return StoredEvent(seq, cid, {"type": kind, "at": float(seq)}, 1000 + seq, "timekeeper")


def terminate(url: str, application_name: str) -> int:
    """What a PostgreSQL restart does to a server: every one of its connections ends."""
    with psycopg.connect(url, autocommit=True) as db:
        rows = db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = %s AND pid <> pg_backend_pid()",
            (application_name,)).fetchall()
    return len(rows)


@pytest.mark.postgres
def test_postgres_store_reconnects_after_its_connections_are_terminated(
        pg_url: str, pg_schema: str) -> None:
    from chukker.store.postgres import PostgresStore

    name = "chukker-test-" + uuid.uuid4().hex[:8]
    s = PostgresStore(pg_url, schema=pg_schema, application_name=name)
    try:
        s.create_match("m1", HEADER, 5, "th", "ch")
        s.append("m1", ev(1, "a", "bowl_in"), 1000)
        s.ping()
        assert terminate(pg_url, name) >= 2  # the write and the read connections
        s.append("m1", ev(2, "b"), 1000)  # the very next write succeeds
        s.ping()
        assert [e.command_id for e in s.events("m1")] == ["a", "b"]
        assert terminate(pg_url, name) >= 1
        assert s.get_match("m1").start_ms == 1000
        assert s.record_horn("m1", __import__("chukker.store", fromlist=["HornRow"]).HornRow(
            1, 1, "end_of_period", 9))
    finally:
        s.close()


@pytest.mark.postgres
def test_postgres_listener_subscribes_again_and_says_so(pg_url: str, pg_schema: str) -> None:
    from chukker.store.postgres import PostgresStore

    name = "chukker-test-" + uuid.uuid4().hex[:8]
    writer = PostgresStore(pg_url, schema=pg_schema)
    listener = PostgresStore(pg_url, schema=pg_schema, application_name=name)
    writer.create_match("m1", HEADER, 5, "th", "ch")

    async def main() -> tuple[list[tuple[str, int]], int]:
        got: list[tuple[str, int]] = []
        subscribed = asyncio.Queue[int]()
        count = 0

        async def on_listening() -> None:
            nonlocal count
            count += 1
            subscribed.put_nowait(count)

        async def listen() -> None:
            async for n in listener.notifications(on_listening):
                got.append(n)
                if len(got) == 2:
                    return

        task = asyncio.create_task(listen())
        assert await asyncio.wait_for(subscribed.get(), 10) == 1
        await asyncio.to_thread(writer.append, "m1", ev(1, "a", "bowl_in"), 0)
        while not got:
            await asyncio.sleep(0.02)
        assert await asyncio.to_thread(terminate, pg_url, name) >= 1
        assert await asyncio.wait_for(subscribed.get(), 10) == 2  # LISTEN again
        assert listener.listening
        await asyncio.to_thread(writer.append, "m1", ev(2, "b"), 0)
        await asyncio.wait_for(task, 10)
        return got, count

    try:
        got, count = asyncio.run(main())
        assert got == [("m1", 1), ("m1", 2)] and count == 2
    finally:
        writer.close()
        listener.close()


def fill_up(s: SQLiteStore) -> int:
    """Make the SQLite "disk" full: the database may not grow past its size now."""
    with s._lock:
        pages = s._db.execute("PRAGMA page_count").fetchone()[0]
        s._db.execute(f"PRAGMA max_page_count = {pages}")
    return int(pages)


def free_up(s: SQLiteStore) -> None:
    with s._lock:
        s._db.execute("PRAGMA max_page_count = 1000000")


def test_sqlite_full_disk_is_a_state_the_store_recovers_from(tmp_path: Path) -> None:
    s = SQLiteStore(tmp_path / "full.sqlite3")
    try:
        s.create_match("m1", HEADER, 5, "th", "ch")
        s.append("m1", ev(1, "c1", "bowl_in"), 1000)
        assert s.storage_problem() is None
        fill_up(s)
        seq, failed = 1, None
        big = {"type": "whistle", "note": "x" * 3000}
        for i in range(2, 200):
            try:
                s.append("m1", StoredEvent(i, f"c{i}", {**big, "at": float(i)}, 1, "timekeeper"),
                         1000)
                seq = i
            except StorageFull as e:
                failed = e
                break
        assert failed is not None and "full" in failed.reason
        assert s.storage_problem() is not None  # /readyz says so
        with pytest.raises(StorageFull):
            s.create_match("m2", {**HEADER, "pad": "x" * 5000}, 6, "th", "ch")
        assert s._db.in_transaction is False  # rolled back, and only once
        acknowledged = [e.command_id for e in s.events("m1")]
        assert len(acknowledged) == seq  # nothing acknowledged is lost
        free_up(s)
        time.sleep(1.1)  # a check's answer is reused for a second (a /readyz flood)
        assert s.storage_problem() is None
        s.append("m1", StoredEvent(seq + 1, "after", {"type": "whistle", "at": 999.0}, 1,
                                   "timekeeper"), 1000)
        assert [e.command_id for e in s.events("m1")] == [*acknowledged, "after"]
    finally:
        s.close()


def test_sqlite_full_disk_codes_are_recognised() -> None:
    from chukker.store.sqlite import is_disk_full

    e = sqlite3.OperationalError("database or disk is full")
    e.sqlite_errorcode = sqlite3.SQLITE_FULL  # type: ignore[attr-defined]
    assert is_disk_full(e)
    assert not is_disk_full(sqlite3.IntegrityError("UNIQUE constraint failed"))


def test_postgres_disk_full_sqlstate_is_recognised() -> None:
    from chukker.store.postgres import is_disk_full

    assert is_disk_full(psycopg.errors.DiskFull("could not extend file: No space left"))
    assert not is_disk_full(psycopg.errors.UniqueViolation("duplicate key"))


def test_open_store_names_its_postgres_connections(pg_url: str, pg_schema: str) -> None:
    s = open_store(pg_url, pg_schema=pg_schema, application_name="chukker-x")
    try:
        assert getattr(s, "application_name") == "chukker-x"  # noqa: B009
    finally:
        s.close()
