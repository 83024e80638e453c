"""How a public worker learns of an append: the event its notification carried, or a store read.

    python benchmarks/notify_read.py [--events 300] [--history 200] [--rounds 6]
    python benchmarks/notify_read.py --postgres postgresql://postgres@127.0.0.1:5432/test

Two stores on one SQLite file, each with its worker's datagram socket (as ``chukker
serve`` has them: the officials' process appends, a public worker hears it). The
public side has the match loaded (``--history`` events already in it) and, for each
append, takes what it was told in one of two ways, alternately by rounds:

* **carried**: the event as the datagram carried it (``SQLiteStore.told_events``);
* **read**: the datagram names the seq and the store is read (``asyncio.to_thread`` of
  ``events(match, after)``, as before issue 43).

With ``--postgres URL``, two PostgreSQL stores on a throw-away schema instead (two
``chukker serve`` on one database, or the officials' process and a public worker): the
public side LISTENs (``PostgresStore.notifications``) and, alternately by rounds,

* **carried**: the append's NOTIFY carries the event, signed with the schema's key,
  and the listener keeps it (``PostgresStore.told_events``);
* **read**: the NOTIFY says ``<id>:<seq>`` only (``carry`` off: as before issue 43) and
  the store is read (``asyncio.to_thread`` of ``events(match, after)``).

There *learning it* includes hearing the notification: the parse of the head of every
payload the listener got for the append (the signed one and its plain twin, or the
plain one), in CPU and in wall time, then ``told_events`` (the HMAC and the JSON).
The officials' side is printed too: the append's CPU (its thread) and wall time,
transaction and NOTIFY, carried or plain alternately append by append, and the CPU of
making the signed payload alone.

Prints, for each way, the CPU (this process, every thread) and the wall time per event
of learning it and of the whole ``_sync`` (learn, fold, report), median over the
rounds, and the ratio carried / read (same run, same machine).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from chukker.live import LiveService, Role  # noqa: E402
from chukker.store import StoredEvent, open_store, pgnotify  # noqa: E402
from chukker.store.notify import LocalNotifier  # noqa: E402
from chukker.web.demo import DEMO_HEADER  # noqa: E402


def goal(i: int) -> dict[str, Any]:
    return {"type": "goal", "team": "AB"[i % 2], "player": 1 + i % 3}


async def match_with_history(writer: LiveService, reader: LiveService, history: int
                             ) -> tuple[Any, Any]:
    """A match the officials (``writer``) bowled in with ``history`` goals, and the same
    match loaded by the public process (``reader``)."""
    created = await writer.create_match(copy.deepcopy(DEMO_HEADER))
    lm = await writer.load(created.match_id)
    await writer.submit(lm, Role.TIMEKEEPER, "b", {"type": "bowl_in"})
    for i in range(history):
        await writer.submit(lm, Role.TIMEKEEPER, f"h{i}", goal(i))
    return lm, await reader.load(lm.id)


async def bench(a: argparse.Namespace, tmp: Path) -> dict[str, dict[str, list[float]]]:
    run = tmp / "run"
    run.mkdir(mode=0o700)
    db = tmp / "n.sqlite3"
    officials, public = open_store(db), open_store(db)
    officials.attach(LocalNotifier(str(run), 0, 2))  # type: ignore[attr-defined]
    public.attach(LocalNotifier(str(run), 1, 2))  # type: ignore[attr-defined]
    notifier: Any = public.notifier  # type: ignore[attr-defined]
    writer, reader = LiveService(officials), LiveService(public)
    lm, seen = await match_with_history(writer, reader, a.history)
    notifier.pending()
    notifier.kept.clear()
    out: dict[str, dict[str, list[float]]] = {
        way: {"learn_cpu_us": [], "learn_wall_us": [], "sync_cpu_us": [], "sync_wall_us": []}
        for way in ("carried", "read")}
    n = 0
    start = lm.row.start_ms or 0
    for r in range(2 * a.rounds):
        way = "carried" if r % 2 == 0 else "read"
        learn_cpu = learn_wall = sync_cpu = sync_wall = 0.0
        for _ in range(a.events):
            n += 1
            seq = lm.seq + 1
            e = StoredEvent(seq, f"e{n}", {**goal(n), "at": 1.0}, start, "timekeeper")
            officials.append(lm.id, e, start)
            lm.stored.append(e)  # the writer's own copy (not folded: not needed here)
            while not (told := notifier.pending()):
                await asyncio.sleep(0)
            if way == "read":
                notifier.kept.clear()
            c0, w0 = time.process_time(), time.perf_counter()
            got = public.told_events(lm.id, seen.seq, told[-1][1])  # type: ignore[attr-defined]
            if got is None:
                got = await asyncio.to_thread(public.events, lm.id, seen.seq)
            learn_cpu += time.process_time() - c0
            learn_wall += time.perf_counter() - w0
            assert [x.seq for x in got] == [seq]
            if way == "carried":
                notifier.kept[(lm.id, seq)] = got[0]  # again, for the whole _sync below
            else:
                notifier.kept.clear()
            c0, w0 = time.process_time(), time.perf_counter()
            async with seen.lock:
                await reader._sync(seen, told=seq)
            sync_cpu += time.process_time() - c0
            sync_wall += time.perf_counter() - w0
            assert seen.seq == seq
        o = out[way]
        o["learn_cpu_us"].append(learn_cpu * 1e6 / a.events)
        o["learn_wall_us"].append(learn_wall * 1e6 / a.events)
        o["sync_cpu_us"].append(sync_cpu * 1e6 / a.events)
        o["sync_wall_us"].append(sync_wall * 1e6 / a.events)
    for s in (officials, public):
        s.notifier.close()  # type: ignore[attr-defined]
        s.close()
    return out


async def bench_pg(a: argparse.Namespace) -> dict[str, dict[str, list[float]]]:
    from chukker.store.postgres import PostgresStore

    schema = "chukker_bench_" + uuid.uuid4().hex[:10]
    officials = PostgresStore(a.postgres, schema)
    public = PostgresStore(a.postgres, schema, application_name=f"notify-read {os.getpid()}")
    heard_cpu, heard_wall = [0.0], [0.0]
    real_heard = pgnotify.heard

    def timed_heard(payload: str) -> pgnotify.Heard | None:
        c0, w0 = time.process_time(), time.perf_counter()
        try:
            return real_heard(payload)
        finally:
            heard_cpu[0] += time.process_time() - c0
            heard_wall[0] += time.perf_counter() - w0

    pgnotify.heard = timed_heard  # type: ignore[assignment]  # the listener's parse, timed
    told: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
    subscribed = asyncio.Event()

    async def on_listening() -> None:
        subscribed.set()

    async def listen() -> None:
        async for n in public.notifications(on_listening):
            told.put_nowait(n)

    listener = asyncio.create_task(listen())
    out: dict[str, dict[str, list[float]]] = {
        way: {"learn_cpu_us": [], "learn_wall_us": [], "sync_cpu_us": [], "sync_wall_us": [],
              "append_wall_us": [], "sign_cpu_us": []}
        for way in ("carried", "read")}
    try:
        await asyncio.wait_for(subscribed.wait(), 30)
        writer, reader = LiveService(officials), LiveService(public)
        lm, seen = await match_with_history(writer, reader, a.history)
        while seen.seq < lm.seq or not told.empty():  # what was told before it loaded
            await asyncio.wait_for(told.get(), 30)
        public.kept.clear()
        n = 0
        start = lm.row.start_ms or 0
        key = schema_key(officials)
        for r in range(2 * a.rounds):
            way = "carried" if r % 2 == 0 else "read"
            officials.carry = way == "carried"
            learn_cpu = learn_wall = sync_cpu = sync_wall = 0.0
            for _ in range(a.events):
                n += 1
                seq = lm.seq + 1
                e = StoredEvent(seq, f"e{n}", {**goal(n), "at": 1.0}, start, "timekeeper")
                await asyncio.to_thread(officials.append, lm.id, e, start)
                lm.stored.append(e)  # the writer's own copy (not folded: not needed here)
                heard_cpu[0] = heard_wall[0] = 0.0
                got_seq = 0
                while got_seq < seq:
                    got_seq = (await asyncio.wait_for(told.get(), 30))[1]
                await asyncio.sleep(0)  # the listener's turn: the carried one's plain twin
                heard, heard_w = heard_cpu[0], heard_wall[0]
                kept = public.kept.get((lm.id, seq))
                c0, w1 = time.process_time(), time.perf_counter()
                got = public.told_events(lm.id, seen.seq, seq)
                if got is None:
                    got = await asyncio.to_thread(public.events, lm.id, seen.seq)
                learn_cpu += time.process_time() - c0 + heard
                learn_wall += time.perf_counter() - w1 + heard_w
                assert [x.seq for x in got] == [seq], (way, got)
                if kept is not None:
                    public.kept[(lm.id, seq)] = kept  # again, for the whole _sync below
                c0, w0 = time.process_time(), time.perf_counter()
                async with seen.lock:
                    await reader._sync(seen, told=seq)
                sync_cpu += time.process_time() - c0 + heard
                sync_wall += time.perf_counter() - w0 + heard_w
                assert seen.seq == seq
            o = out[way]
            for k, v in (("learn_cpu_us", learn_cpu), ("learn_wall_us", learn_wall),
                         ("sync_cpu_us", sync_cpu), ("sync_wall_us", sync_wall)):
                o[k].append(v * 1e6 / a.events)
            # what the append adds in the officials' process: the signed payload, timed alone
            signer = pgnotify.Signer(key)
            c0 = time.process_time()
            for e in lm.stored[-a.events:]:
                signer.signed(lm.id, e)
            o["sign_cpu_us"].append((time.process_time() - c0) * 1e6 / a.events)
        assert public.forged == 0

        # the officials' append itself, carried or plain, alternately append by append:
        # the CPU of its thread (the store's part of a POST) and its wall time
        def timed_append(e: StoredEvent) -> tuple[float, float]:
            c0, w0 = time.thread_time(), time.perf_counter()
            officials.append(lm.id, e, start)
            return time.thread_time() - c0, time.perf_counter() - w0

        appends: dict[str, list[tuple[float, float]]] = {"carried": [], "read": []}
        for i in range(a.events * a.rounds):
            way = "carried" if i % 2 == 0 else "read"
            officials.carry = way == "carried"
            n += 1
            e = StoredEvent(lm.seq + 1, f"e{n}", {**goal(n), "at": 1.0}, start, "timekeeper")
            appends[way].append(await asyncio.to_thread(timed_append, e))
            lm.stored.append(e)
            while not told.empty():
                told.get_nowait()
        for way, got_ in appends.items():
            out[way]["append_cpu_us"] = [statistics.median(c for c, _ in got_) * 1e6]
            out[way]["append_wall_us"] = [statistics.median(w for _, w in got_) * 1e6]
    finally:
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await listener
        pgnotify.heard = real_heard  # type: ignore[assignment]
        officials.drop_schema()
        officials.close()
        public.close()
    return out


def schema_key(store: Any) -> bytes:
    """The schema's signing key, as the store's own role reads it."""
    import psycopg

    with psycopg.connect(store.url, autocommit=True) as db:
        row = db.execute(f"SELECT key FROM {store.schema}.notify_key".encode()).fetchone()
    assert row is not None
    return bytes(row[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--events", type=int, default=300, help="appends per round")
    ap.add_argument("--history", type=int, default=200, help="events already in the match")
    ap.add_argument("--rounds", type=int, default=6, help="rounds of each way, alternately")
    ap.add_argument("--postgres", metavar="URL",
                    help="two PostgreSQL stores (a throw-away schema) instead of SQLite")
    a = ap.parse_args()
    if a.postgres:
        out = asyncio.run(bench_pg(a))
        where = "PostgreSQL LISTEN/NOTIFY"
    else:
        tmp = Path(tempfile.mkdtemp(prefix="chukker-notify-"))
        try:
            out = asyncio.run(bench(a, tmp))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        where = "SQLite workers' datagrams"
    print(f"learning of an append in a public worker, {where} ({a.events} appends x "
          f"{a.rounds} rounds each way, match at {a.history}+ events; "
          f"load {os.getloadavg()[0]:.2f}):")
    med = {w: {k: statistics.median(v) for k, v in o.items()} for w, o in out.items()}
    for key, what in (("learn", "learning it"), ("sync", "learning, folding, reporting")):
        c, r = med["carried"], med["read"]
        print(f"  {what}: carried {c[key + '_cpu_us']:.0f} us CPU / {c[key + '_wall_us']:.0f} "
              f"us wall; read {r[key + '_cpu_us']:.0f} us CPU / {r[key + '_wall_us']:.0f} us "
              f"wall; carried / read = {c[key + '_cpu_us'] / r[key + '_cpu_us']:.2f}x CPU, "
              f"{c[key + '_wall_us'] / r[key + '_wall_us']:.2f}x wall")
    if a.postgres:
        c, r = med["carried"], med["read"]
        print(f"  the officials' append (transaction and NOTIFY; {a.events * a.rounds} "
              f"appends, alternately, medians): carried {c['append_cpu_us']:.0f} us CPU / "
              f"{c['append_wall_us']:.0f} us wall; plain {r['append_cpu_us']:.0f} us CPU / "
              f"{r['append_wall_us']:.0f} us wall; carried / plain = "
              f"{c['append_cpu_us'] / r['append_cpu_us']:.2f}x CPU, "
              f"{c['append_wall_us'] / r['append_wall_us']:.2f}x wall; making the signed "
              f"payload alone {c['sign_cpu_us']:.1f} us CPU (warm)")


if __name__ == "__main__":
    main()
