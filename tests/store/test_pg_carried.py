"""Issue 43 on PostgreSQL: an append's NOTIFY carries the stored event, signed with the
schema's key, and a public process applies it without reading it again.

The guard questions, answered by the tests named after them: who may send such a
payload (a role that can read the schema's key; any other role's is not believed),
how big it can be (under PostgreSQL's 8,000 bytes, checked before any work), that no
server path is named by it (a match id and a number), and that it cannot delay a
horn (its parse is bounded: one HMAC and two ``json.loads`` of at most that size).
"""

from __future__ import annotations

import asyncio
import copy
import hmac
import json
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
import pytest
from tests.store_reads import count_reads

from chukker.live import LiveService, Role
from chukker.store import StoredEvent, pgnotify
from chukker.store.postgres import PostgresStore
from chukker.web.demo import DEMO_HEADER

pytestmark = pytest.mark.postgres

HEADER = {"format": "chukker-match/1", "rules": "uspa-arena-2026", "teams": {}}


def ev(seq: int, cid: str, kind: str = "whistle", **more: Any) -> StoredEvent:
    return StoredEvent(seq, cid, {"type": kind, "at": float(seq), **more}, 1000 + seq,
                       "timekeeper")


@pytest.fixture
def stores(pg_url: str, pg_schema: str) -> Iterator[tuple[PostgresStore, PostgresStore]]:
    """The officials' store and a public process's store on one schema."""
    name = "chukker-test-" + uuid.uuid4().hex[:8]
    writer = PostgresStore(pg_url, schema=pg_schema)
    reader = PostgresStore(pg_url, schema=pg_schema, application_name=name)
    yield writer, reader
    writer.close()
    reader.close()


def notify(url: str, channel: str, payload: str, role: str | None = None) -> None:
    """What any role that can connect may do: NOTIFY on the store's channel."""
    with psycopg.connect(url, autocommit=True) as db:
        if role is not None:
            db.execute(f"SET ROLE {role}".encode())
        db.execute("SELECT pg_notify(%s, %s)", (channel, payload))


def schema_key(url: str, schema: str) -> bytes:
    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute(f"SELECT key FROM {schema}.notify_key".encode()).fetchone()
    assert row is not None
    return bytes(row[0])


async def until(check: Callable[[], bool], what: str) -> None:
    async with asyncio.timeout(15):
        while not check():
            await asyncio.sleep(0.01)
    assert check(), what


@asynccontextmanager
async def listening(store: PostgresStore) -> AsyncIterator[list[tuple[str, int]]]:
    """What ``store`` yields, as it yields it, while the block runs."""
    got: list[tuple[str, int]] = []
    subscribed = asyncio.Event()

    async def on_listening() -> None:
        subscribed.set()

    async def run() -> None:
        async for told in store.notifications(on_listening):
            got.append(told)

    task = asyncio.create_task(run())
    try:
        await asyncio.wait_for(subscribed.wait(), 15)
        yield got
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


@asynccontextmanager
async def raw_listen(url: str, channel: str) -> AsyncIterator[list[str]]:
    """The payloads on the channel, as PostgreSQL delivers them."""
    got: list[str] = []
    conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
    await conn.execute(f"LISTEN {channel}".encode())

    async def run() -> None:
        async for n in conn.notifies():
            got.append(n.payload)

    task = asyncio.create_task(run())
    try:
        yield got
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await conn.close()


def old_parse(payload: str) -> tuple[str, int] | None:
    """How a process of the version before issue 43 read a notification."""
    match_id, _, seq = payload.rpartition(":")
    return (match_id, int(seq)) if match_id and seq.isdigit() else None


def test_an_append_on_postgres_is_told_with_the_event_it_stored(
        stores: tuple[PostgresStore, PostgresStore], pg_url: str) -> None:
    writer, reader = stores
    writer.create_match("m1", HEADER, 5, "th", "ch")

    async def body() -> None:
        async with listening(reader) as got, raw_listen(pg_url, reader.channel) as raw:
            await asyncio.to_thread(writer.append, "m1", ev(1, "a", "bowl_in"), 1000)
            await asyncio.to_thread(writer.append, "m1",
                                    ev(2, "b", "goal", team="A", player=2, name="Zoë"), 1000)
            await until(lambda: len(got) == 2 and len(raw) == 4, "both told")
        # each append: the signed event, then the plain twin (which this version skips)
        assert got == [("m1", 1), ("m1", 2)]
        assert [p.split("\n")[0].count(":") for p in raw] == [2, 1, 2, 1]
        assert raw[1] == "m1:1" and raw[3] == "m1:2"
        stored = reader.events("m1")
        assert reader.told_events("m1", 0, 2) == stored  # equal to what the store holds
        assert stored[1].event["name"] == "Zoë"
        assert reader.told_events("m1", 0, 2) is None  # taken once
        assert reader.forged == 0

    asyncio.run(body())


def test_a_public_process_on_postgres_applies_the_carried_event_without_reading_the_store(
        stores: tuple[PostgresStore, PostgresStore], monkeypatch: pytest.MonkeyPatch) -> None:
    writer_store, reader_store = stores

    async def body() -> None:
        writer, reader = LiveService(writer_store), LiveService(reader_store)
        await reader.start()
        try:
            created = await writer.create_match(copy.deepcopy(DEMO_HEADER))
            lm = await writer.load(created.match_id)
            await writer.submit(lm, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
            seen = await reader.load(created.match_id)
            await until(lambda: seen.seq == 1, "loaded")
            reads = count_reads(monkeypatch, reader_store)
            await writer.submit(lm, Role.TIMEKEEPER, "c2",
                                {"type": "goal", "team": "A", "player": 2})
            await writer.submit(lm, Role.TIMEKEEPER, "c3", {"type": "whistle"})
            await until(lambda: seen.seq == 3, "applied")
            assert reads == []  # nothing read again
            assert seen.stored == lm.stored
            assert reader.report(seen, 0) == writer.report(lm, 0)
        finally:
            await reader.stop()

    asyncio.run(body())


def test_a_forged_notification_is_not_applied_and_the_store_is_read_instead(
        stores: tuple[PostgresStore, PostgresStore], pg_url: str,
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    writer_store, reader_store = stores

    async def body() -> None:
        writer, reader = LiveService(writer_store), LiveService(reader_store)
        await reader.start()
        try:
            created = await writer.create_match(copy.deepcopy(DEMO_HEADER))
            lm = await writer.load(created.match_id)
            await writer.submit(lm, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
            seen = await reader.load(created.match_id)
            reads = count_reads(monkeypatch, reader_store)
            # the real event 2 is stored, told by nobody yet
            monkeypatch.setattr(writer_store, "_notify", lambda *a: None)
            await writer.submit(lm, Role.TIMEKEEPER, "c2",
                                {"type": "goal", "team": "A", "player": 2})
            # another role tells of event 2 with a goal for B, signed with a guessed key
            fake = StoredEvent(2, "c2", {"type": "goal", "team": "B", "player": 1, "at": 1.0},
                               lm.stored[-1].recorded_ms, "timekeeper")
            forged = pgnotify.signed(b"guessed" * 5, lm.id, fake)
            assert forged is not None
            with caplog.at_level(logging.WARNING, "chukker.store"):
                await asyncio.to_thread(notify, pg_url, reader_store.channel, forged)
                await until(lambda: seen.seq == 2, "read instead")
                assert reads == [(lm.id, 1)]  # the store was read
                assert seen.stored == lm.stored  # the stored goal for A, not B's
                assert reader.report(seen, 0) == writer.report(lm, 0)
                # an unsigned one is not believed either; logged once, counted
                await writer.submit(lm, Role.TIMEKEEPER, "c3", {"type": "whistle"})
                fake3 = StoredEvent(3, "c3", {"type": "bowl_in", "at": 2.0}, 1, "timekeeper")
                unsigned = pgnotify.signed(b"k", lm.id, fake3)
                assert unsigned is not None
                head, _, rest = unsigned.partition("\n")
                await asyncio.to_thread(notify, pg_url, reader_store.channel,
                                        head.rpartition(":")[0] + "\n" + rest)
                await until(lambda: seen.seq == 3, "read instead again")
            assert seen.stored == lm.stored and len(reads) == 2
            assert reader_store.forged == 2
            warned = [r for r in caplog.records if "without a valid signature" in r.message]
            assert len(warned) == 1
        finally:
            await reader.stop()

    asyncio.run(body())


def test_an_event_too_big_to_carry_is_told_by_its_seq_and_read(
        stores: tuple[PostgresStore, PostgresStore], pg_url: str) -> None:
    writer, reader = stores
    writer.create_match("m1", HEADER, 5, "th", "ch")
    big = ev(2, "b", "note", text="x" * pgnotify.MAX_PAYLOAD)
    assert pgnotify.signed(b"k" * 32, "m1", big) is None

    async def body() -> None:
        async with listening(reader) as got, raw_listen(pg_url, reader.channel) as raw:
            await asyncio.to_thread(writer.append, "m1", ev(1, "a", "bowl_in"), 1000)
            await asyncio.to_thread(writer.append, "m1", big, 1000)
            await until(lambda: len(got) == 2 and len(raw) == 3, "told")
        assert got == [("m1", 1), ("m1", 2)]
        assert raw[2] == "m1:2"  # the plain payload alone
        assert reader.told_events("m1", 1, 2) is None  # read it
        assert reader.events("m1", 1) == [big]

    asyncio.run(body())


def test_an_old_processes_plain_notification_still_works_and_an_old_process_hears_the_new(
        stores: tuple[PostgresStore, PostgresStore], pg_url: str) -> None:
    writer, reader = stores
    writer.create_match("m1", HEADER, 5, "th", "ch")
    writer.carry = False  # as a process of the version before: "<id>:<seq>" only

    async def body() -> None:
        async with listening(reader) as got, raw_listen(pg_url, reader.channel) as raw:
            await asyncio.to_thread(writer.append, "m1", ev(1, "a", "bowl_in"), 1000)
            await until(lambda: got == [("m1", 1)] and len(raw) == 1, "heard the old payload")
            assert raw == ["m1:1"] and reader.told_events("m1", 0, 1) is None  # read
            writer.carry = True
            await asyncio.to_thread(writer.append, "m1", ev(2, "b"), 1000)
            await until(lambda: len(got) == 2 and len(raw) == 3, "heard")
        assert got == [("m1", 1), ("m1", 2)] and reader.forged == 0
        # a process of the version before reads the plain twin and ignores the signed one
        assert [old_parse(p) for p in raw[1:]] == [None, ("m1", 2)]

    asyncio.run(body())


def test_a_restart_of_the_listen_connection_loses_nothing(
        stores: tuple[PostgresStore, PostgresStore], pg_url: str) -> None:
    writer_store, reader_store = stores

    def terminate() -> int:
        with psycopg.connect(pg_url, autocommit=True) as db:
            return len(db.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = %s AND pid <> pg_backend_pid()",
                (reader_store.application_name,)).fetchall())

    async def body() -> None:
        writer, reader = LiveService(writer_store), LiveService(reader_store)
        await reader.start()
        try:
            created = await writer.create_match(copy.deepcopy(DEMO_HEADER))
            lm = await writer.load(created.match_id)
            await writer.submit(lm, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
            seen = await reader.load(created.match_id)
            await until(lambda: reader_store.listening, "listening")
            assert await asyncio.to_thread(terminate) >= 1
            # appended while the LISTEN connection is down or coming back
            await writer.submit(lm, Role.TIMEKEEPER, "c2",
                                {"type": "goal", "team": "A", "player": 2})
            await writer.submit(lm, Role.TIMEKEEPER, "c3", {"type": "whistle"})
            await until(lambda: seen.seq == 3, "caught up")
            await until(lambda: reader_store.listening, "listening again")
            await writer.submit(lm, Role.TIMEKEEPER, "c4", {"type": "bowl_in"})
            await until(lambda: seen.seq == 4, "heard after the restart")
            assert seen.stored == lm.stored
            assert reader.report(seen, 0) == writer.report(lm, 0)
        finally:
            await reader.stop()

    asyncio.run(body())


# ------------------------------------------------------------------ the guard questions
def test_who_may_send_a_carried_event_only_a_role_that_can_read_the_schemas_key(
        stores: tuple[PostgresStore, PostgresStore], pg_url: str, pg_schema: str) -> None:
    writer, reader = stores
    writer.create_match("m1", HEADER, 5, "th", "ch")
    role = "chukker_t_nokey_" + uuid.uuid4().hex[:8]
    with psycopg.connect(pg_url, autocommit=True) as db:
        db.execute(f"CREATE ROLE {role} NOLOGIN".encode())
        db.execute(f"GRANT USAGE ON SCHEMA {pg_schema} TO {role}".encode())
        db.execute(f"GRANT SELECT ON {pg_schema}.events TO {role}".encode())
    try:
        with psycopg.connect(pg_url, autocommit=True) as db:
            db.execute(f"SET ROLE {role}".encode())
            db.execute(f"SELECT count(*) FROM {pg_schema}.events".encode())  # it reads events
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                db.execute(f"SELECT key FROM {pg_schema}.notify_key".encode())

        async def body() -> None:
            async with listening(reader) as got:
                await asyncio.to_thread(writer.append, "m1", ev(1, "a", "bowl_in"), 1000)
                forged = pgnotify.signed(b"\0" * 32, "m1", ev(2, "x", "goal", team="B"))
                assert forged is not None
                await asyncio.to_thread(notify, pg_url, reader.channel, forged, role)  # it may
                await until(lambda: len(got) == 2, "heard")
            assert got == [("m1", 1), ("m1", 2)]
            assert reader.told_events("m1", 1, 2) is None and reader.forged == 1  # not believed
            assert reader.told_events("m1", 0, 1) == reader.events("m1")  # the signed one is

        asyncio.run(body())
    finally:
        with psycopg.connect(pg_url, autocommit=True) as db:
            db.execute(f"DROP OWNED BY {role}".encode())
            db.execute(f"DROP ROLE {role}".encode())


def test_how_big_a_notification_can_be_under_postgresqls_limit_checked_before_any_work(
        stores: tuple[PostgresStore, PostgresStore], pg_url: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    writer, _ = stores
    key = b"k" * 32
    sizes = {}
    for n in range(pgnotify.MAX_PAYLOAD - 200, pgnotify.MAX_PAYLOAD):
        p = pgnotify.signed(key, "m1", ev(2, "b", "note", text="x" * n))
        if p is not None:
            assert len(p.encode()) <= pgnotify.MAX_PAYLOAD
            sizes[n] = len(p)
    biggest = max(sizes.values())
    assert biggest > pgnotify.MAX_PAYLOAD - 50 and len(sizes) < 200  # some fit, some not
    notify(pg_url, writer.channel, "x" * pgnotify.MAX_PAYLOAD)  # PostgreSQL takes 7,999
    with pytest.raises(psycopg.errors.InvalidParameterValue):
        notify(pg_url, writer.channel, "x" * (pgnotify.MAX_PAYLOAD + 1))  # not 8,000
    # a longer one (no PostgreSQL sends it) is dropped before any HMAC or JSON
    calls: list[str] = []
    real_new, real_loads = pgnotify.Signer.mac, json.loads

    def new(*a: Any, **k: Any) -> Any:
        calls.append("hmac")
        return real_new(*a, **k)

    def loads(*a: Any, **k: Any) -> Any:
        calls.append("json")
        return real_loads(*a, **k)

    monkeypatch.setattr(pgnotify.Signer, "mac", new)
    monkeypatch.setattr(json, "loads", loads)
    p = pgnotify.signed(key, "m1", ev(2, "b"))
    assert p is not None
    calls.clear()
    assert pgnotify.heard(p + " " * pgnotify.MAX_PAYLOAD) is None
    assert calls == []
    told = pgnotify.heard(p)  # heard: its head only; checked when taken
    assert told is not None and calls == []
    assert pgnotify.believe(key, told) == ev(2, "b") and calls.count("hmac") == 1


def test_no_server_path_is_named_by_a_notification_only_a_match_id_and_a_number(
        stores: tuple[PostgresStore, PostgresStore], pg_url: str) -> None:
    writer, reader = stores
    writer.create_match("m1", HEADER, 5, "th", "ch")
    bad = ["../etc/passwd:1", "/var/lib/x:1", "m1/../../x:1", "t.../x:1", "m1;DROP:1",
           "m 1:1", "m1:²", "m1:-1", "m1:1e3", ":1", "m1:", "m1:" + "9" * 13,
           "../x:1:" + "0" * 32 + "\n[]"]

    async def body() -> None:
        async with listening(reader) as got:
            for p in bad:
                await asyncio.to_thread(notify, pg_url, reader.channel, p)
            await asyncio.to_thread(notify, pg_url, reader.channel, "m1:1")
            await until(lambda: bool(got), "heard")
        assert got == [("m1", 1)]  # every other one dropped unread, the listener alive

    asyncio.run(body())
    assert all(pgnotify.heard(p) is None for p in bad)


def sign(key: bytes, head: str, body: str) -> str:
    """A payload signed as :func:`pgnotify.signed` signs, whatever ``body`` holds."""
    text = pgnotify.DOMAIN + (head + "\n" + body).encode()
    mac = hmac.new(key, text, "sha256").hexdigest()[:pgnotify.MAC_HEX]  # as documented
    return f"{head}:{mac}\n{body}"


def test_a_carried_notification_cannot_delay_a_horn_its_parse_is_bounded(
        stores: tuple[PostgresStore, PostgresStore], pg_url: str, pg_schema: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A payload is parsed on the event loop, where the horns' timers run: whatever it
    holds, signed or not, hearing it splits its head, and taking it is at most one HMAC
    and two ``json.loads`` of at most 7,999 bytes; neither raises, and a flood of them
    leaves the listener listening."""
    writer, reader = stores
    key = schema_key(pg_url, pg_schema)  # a role that may read the key can sign
    assert pgnotify.signed(key, "m1", ev(1, "a")) is not None
    writer.create_match("m1", HEADER, 5, "th", "ch")
    deep = "[" * 3900 + "]" * 3900
    bodies = [deep, json.dumps(["c", deep[:7000], 1, "tk"]), json.dumps(["c", "[1]", 1, "tk"]),
              json.dumps(["c", "{}", 1, "tk", "x" * 7800]), "x" * 7950, '{"a":' * 1500]
    hostile = [sign(key, "m1:7", b)[:pgnotify.MAX_PAYLOAD] for b in bodies]
    hostile += [sign(b"guess", "m1:7", b)[:pgnotify.MAX_PAYLOAD] for b in bodies]
    calls: list[str] = []
    real_new, real_loads = pgnotify.Signer.mac, json.loads

    def new(*a: Any, **k: Any) -> Any:
        calls.append("hmac")
        return real_new(*a, **k)

    def loads(*a: Any, **k: Any) -> Any:
        calls.append("json")
        return real_loads(*a, **k)

    with monkeypatch.context() as m:
        m.setattr(pgnotify.Signer, "mac", new)
        m.setattr(json, "loads", loads)
        for p in hostile:
            calls.clear()
            told = pgnotify.heard(p)  # never raises
            assert told is not None and told.carried and calls == []
            assert pgnotify.believe(key, told) is None  # never raises; not an event
            assert calls.count("hmac") == 1 and calls.count("json") <= 2

    async def body() -> None:
        async with listening(reader) as got:
            for p in hostile * 10:
                await asyncio.to_thread(notify, pg_url, reader.channel, p)
            await asyncio.to_thread(writer.append, "m1", ev(1, "a", "bowl_in"), 1000)
            await until(lambda: ("m1", 1) in got, "still listening")
        assert reader.told_events("m1", 0, 1) == reader.events("m1")
        assert reader.told_events("m1", 6, 7) is None and reader.forged == 1  # not believed

    asyncio.run(body())
