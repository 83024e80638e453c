"""The event store contract, on SQLite and on PostgreSQL."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from chukker.store import (
    CommandExists,
    EventStore,
    HornRow,
    SeqTaken,
    StoredEvent,
    UnknownMatch,
    open_store,
)

HEADER = {"format": "chukker-match/1", "teams": {}}


def ev(seq: int, cmd: str, type_: str = "whistle", at: float = 1.0) -> StoredEvent:
    return StoredEvent(seq, cmd, {"type": type_, "at": at}, 1000 + seq, "timekeeper")


def test_create_and_get_match(store: EventStore) -> None:
    store.create_match("m1", HEADER, 5, "th", "ch")
    row = store.get_match("m1")
    assert (row.id, row.header, row.start_ms, row.timekeeper_hash) == ("m1", HEADER, None, "th")
    assert [r.id for r in store.list_matches()] == ["m1"]
    with pytest.raises(UnknownMatch, match="no match with id m2"):
        store.get_match("m2")


def test_append_sets_the_record_start_with_the_first_event(store: EventStore) -> None:
    store.create_match("m1", HEADER, 5, "th", "ch")
    store.append("m1", ev(1, "a", "bowl_in", 0.0), start_ms=777)
    store.append("m1", ev(2, "b"), start_ms=999)
    assert store.get_match("m1").start_ms == 777
    assert [(e.seq, e.command_id, e.event["type"]) for e in store.events("m1")] == [
        (1, "a", "bowl_in"), (2, "b", "whistle")]
    assert [e.seq for e in store.events("m1", after_seq=1)] == [2]


def test_one_sequence_per_match(store: EventStore) -> None:
    store.create_match("m1", HEADER, 5, "th", "ch")
    store.create_match("m2", HEADER, 6, "th", "ch")
    store.append("m1", ev(1, "a"), 0)
    store.append("m2", ev(1, "a"), 0)  # same seq and command_id, other match
    with pytest.raises(SeqTaken):
        store.append("m1", ev(1, "z"), 0)
    with pytest.raises(SeqTaken):
        store.append("m1", ev(3, "z"), 0)  # no gaps either
    assert [e.seq for e in store.events("m1")] == [1]


def test_command_id_unique_for_the_whole_match(store: EventStore) -> None:
    store.create_match("m1", HEADER, 5, "th", "ch")
    store.append("m1", ev(1, "a"), 0)
    store.append("m1", ev(2, "b"), 0)
    with pytest.raises(CommandExists) as info:
        store.append("m1", ev(3, "a"), 0)
    assert info.value.existing.seq == 1
    assert len(store.events("m1")) == 2


def test_append_to_unknown_match_refused(store: EventStore) -> None:
    with pytest.raises(UnknownMatch):
        store.append("nope", ev(1, "a"), 0)


def test_concurrent_appends_same_seq_only_one_wins(store: EventStore) -> None:
    store.create_match("m1", HEADER, 5, "th", "ch")
    outcomes: list[str] = []
    barrier = threading.Barrier(6)

    def write(i: int) -> None:
        barrier.wait()
        try:
            store.append("m1", ev(1, f"c{i}"), 0)
            outcomes.append("ok")
        except SeqTaken:
            outcomes.append("taken")

    ts = [threading.Thread(target=write, args=(i,)) for i in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert sorted(outcomes) == ["ok"] + ["taken"] * 5


def test_horns_recorded_once(store: EventStore) -> None:
    store.create_match("m1", HEADER, 5, "th", "ch")
    h = HornRow(450_000, 1, "end", 123)
    assert store.record_horn("m1", h) is True
    assert store.record_horn("m1", HornRow(450_000, 1, "end", 124)) is False
    assert store.horns("m1") == [h]


def test_event_body_keeps_key_order(store: EventStore) -> None:
    store.create_match("m1", HEADER, 5, "th", "ch")
    body = {"type": "goal", "team": "A", "player": 2, "at": 3.5}
    store.append("m1", StoredEvent(1, "x", body, 1, "committee"), 0)
    got = store.events("m1")[0]
    assert list(got.event) == ["type", "team", "player", "at"] and got.actor == "committee"


def test_sqlite_events_are_append_only_and_durable(tmp_path: Path) -> None:
    path = tmp_path / "a.sqlite3"
    s = open_store(path)
    s.create_match("m1", HEADER, 5, "th", "ch")
    s.append("m1", ev(1, "a"), 0)
    s.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("UPDATE events SET body = '{}'")
    with pytest.raises(sqlite3.DatabaseError, match="append-only"):
        db.execute("DELETE FROM events")
    db.close()
    s = open_store(f"sqlite:///{path}")
    assert [e.command_id for e in s.events("m1")] == ["a"]
    s.close()


@pytest.mark.postgres
def test_postgres_notifies_every_append(pg_url: str, pg_schema: str) -> None:
    import asyncio

    from chukker.store.postgres import PostgresStore

    writer = PostgresStore(pg_url, schema=pg_schema)
    listener = PostgresStore(pg_url, schema=pg_schema)
    writer.create_match("m1", HEADER, 5, "th", "ch")

    async def main() -> list[tuple[str, int]]:
        got: list[tuple[str, int]] = []
        ready = asyncio.Event()

        async def listen() -> None:
            agen = listener.notifications()
            first = asyncio.ensure_future(agen.__anext__())
            await asyncio.sleep(0.3)  # LISTEN is issued before the first wait
            ready.set()
            got.append(await first)
            got.append(await agen.__anext__())
            await agen.aclose()

        task = asyncio.create_task(listen())
        await ready.wait()
        await asyncio.to_thread(writer.append, "m1", ev(1, "a"), 0)
        await asyncio.to_thread(writer.append, "m1", ev(2, "b"), 0)
        await asyncio.wait_for(task, 10)
        return got

    try:
        assert asyncio.run(main()) == [("m1", 1), ("m1", 2)]
    finally:
        writer.close()
        listener.close()


def test_postgres_schema_name_checked() -> None:
    from chukker.store import StoreError
    from chukker.store.postgres import PostgresStore

    with pytest.raises(StoreError, match="schema"):
        PostgresStore("postgresql://nowhere.invalid/x", schema="bad; drop table")




def test_match_lists_are_newest_first_paginated_and_see_every_change(store: EventStore) -> None:
    for i in range(5):
        store.create_match(f"m{i}", HEADER, 100 + i, "th", "ch")
    assert [r.id for r in store.list_matches(3)] == ["m4", "m3", "m2"]
    assert [r.id for r in store.list_matches(3, before=(102, "m2"))] == ["m1", "m0"]
    store.create_match("m5", HEADER, 200, "th", "ch")  # seen at once (the list is cached)
    assert store.list_matches(1)[0].id == "m5"
    assert store.list_matches(1)[0].start_ms is None
    store.append("m5", ev(1, "a", "bowl_in", 0.0), start_ms=777)
    assert store.list_matches(1)[0].start_ms == 777


def test_reads_do_not_wait_for_a_write_in_progress(tmp_path: Path) -> None:
    s = open_store(tmp_path / "r.sqlite3")
    s.create_match("m1", HEADER, 1, "th", "ch")
    lock = getattr(s, "_lock")  # noqa: B009 - the writer's lock, held as by a slow append
    with lock:
        done = threading.Event()

        def read() -> None:
            s.list_matches(10, before=(10, "z"))
            s.get_match("m1")
            s.events("m1")
            done.set()

        t = threading.Thread(target=read)
        t.start()
        assert done.wait(10)
        t.join()
    s.close()
