"""What the store's resilience costs and how fast it comes back, as ratios to baselines
measured in the same run.

    python benchmarks/store.py [--appends 2000] [--matches 200] [--pg URL]

* Appends: ``PostgresStore.append`` (pooled connection checked before use, one retry
  on a lost connection) against the same transaction on one bare psycopg connection;
  ``SQLiteStore.append`` (with the disk-full handling) against the same statements on a
  bare sqlite3 connection. p50 and p99 per append.
* Reconnect: after ``pg_terminate_backend`` on every connection of the store, the time
  to the next successful append (connect, check, write), against a normal append.
* Import: ``import_matches`` of an export (one transaction) in events per second,
  against ``read_export`` of the same folder (hashes, JSON, replay of every match).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import psycopg

from chukker.store import StoredEvent, open_store
from chukker.store.backup import export_store, plan_import, read_export
from chukker.store.postgres import PostgresStore
from chukker.store.sqlite import SQLiteStore
from chukker.web.demo import DEMO_HEADER

HEADER = DEMO_HEADER


def pct(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def ev(seq: int) -> StoredEvent:
    kind = "bowl_in" if seq % 2 else "whistle"
    return StoredEvent(seq, f"c{seq}", {"type": kind, "at": seq / 10}, 1000 + seq, "timekeeper")


def line(name: str, xs: list[float], base: list[float]) -> None:
    p50, p99, b50, b99 = (pct(xs, 0.5), pct(xs, 0.99), pct(base, 0.5), pct(base, 0.99))
    print(f"{name:<34} p50 {p50 * 1e3:7.3f} ms  p99 {p99 * 1e3:7.3f} ms   "
          f"baseline p50 {b50 * 1e3:7.3f} ms  p99 {b99 * 1e3:7.3f} ms   "
          f"ratio p50 {p50 / b50:4.2f}x  p99 {p99 / b99:4.2f}x")


def bare_pg_append(db: psycopg.Connection[Any], schema: str, mid: str, e: StoredEvent) -> None:
    with db.transaction():
        db.execute(f"SELECT 1 FROM {schema}.matches WHERE id = %s FOR UPDATE".encode(), (mid,))
        db.execute(f"SELECT seq FROM {schema}.events WHERE match_id = %s AND command_id = %s"
                   .encode(), (mid, e.command_id))
        db.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {schema}.events WHERE match_id = %s"
                   .encode(), (mid,))
        db.execute(f"INSERT INTO {schema}.events (match_id, seq, command_id, body, recorded_ms, "
                   "actor) VALUES (%s, %s, %s, %s, %s, %s)".encode(),
                   (mid, e.seq, e.command_id, e.body(), e.recorded_ms, e.actor))
        db.execute("SELECT pg_notify(%s, %s)", (f"{schema}_events", f"{mid}:{e.seq}"))


def bench_pg(url: str, n: int) -> None:
    schema = "chukker_bench_" + uuid.uuid4().hex[:8]
    name = "chukker-bench-" + uuid.uuid4().hex[:6]
    s = PostgresStore(url, schema=schema, application_name=name)
    bare = psycopg.connect(url, autocommit=True)
    try:
        s.create_match("a", HEADER, 1, "t", "c")
        s.create_match("b", HEADER, 1, "t", "c")
        mine: list[float] = []
        base: list[float] = []
        for i in range(1, n + 1):  # interleaved, so both see the same machine
            t0 = time.perf_counter()
            s.append("a", ev(i), 1000)
            mine.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            bare_pg_append(bare, schema, "b", ev(i))
            base.append(time.perf_counter() - t0)
        line("PostgreSQL append (pool, checked)", mine, base)
        back: list[float] = []
        for i in range(n + 1, n + 21):
            with psycopg.connect(url, autocommit=True) as db:
                db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE application_name = %s", (name,))
            t0 = time.perf_counter()
            s.append("a", ev(i), 1000)
            back.append(time.perf_counter() - t0)
        line("PostgreSQL append after terminate", back, mine)
    finally:
        bare.close()
        s.drop_schema()
        s.close()


def bench_sqlite(folder: Path, n: int) -> None:
    s = SQLiteStore(folder / "a.sqlite3")
    s.create_match("a", HEADER, 1, "t", "c")
    bare_store = SQLiteStore(folder / "b.sqlite3")  # same schema and pragmas
    bare_store.create_match("b", HEADER, 1, "t", "c")
    bare_store.close()
    bare = sqlite3.connect(folder / "b.sqlite3", isolation_level=None)
    bare.execute("PRAGMA journal_mode=WAL")
    bare.execute("PRAGMA synchronous=FULL")
    mine: list[float] = []
    base: list[float] = []
    for i in range(1, n + 1):
        t0 = time.perf_counter()
        s.append("a", ev(i), 1000)
        mine.append(time.perf_counter() - t0)
        e = ev(i)
        t0 = time.perf_counter()
        bare.execute("BEGIN IMMEDIATE")
        bare.execute("SELECT 1 FROM matches WHERE id = ?", ("b",)).fetchone()
        bare.execute("SELECT seq FROM events WHERE match_id = ? AND command_id = ?",
                     ("b", e.command_id)).fetchone()
        bare.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE match_id = ?",
                     ("b",)).fetchone()
        bare.execute("INSERT INTO events (match_id, seq, command_id, body, recorded_ms, actor) "
                     "VALUES (?, ?, ?, ?, ?, ?)",
                     ("b", e.seq, e.command_id, e.body(), e.recorded_ms, e.actor))
        bare.execute("COMMIT")
        base.append(time.perf_counter() - t0)
    line("SQLite append (disk-full aware)", mine, base)
    s.close()
    bare.close()


def bench_import(folder: Path, matches: int) -> None:
    src = open_store(folder / "src.sqlite3")
    for k in range(matches):
        mid = f"m{k}"
        src.create_match(mid, HEADER, k, "t", "c")
        for i in range(1, 61):
            src.append(mid, ev(i), 1000)
    export_store(src, folder / "export")
    src.close()
    t0 = time.perf_counter()
    loaded, _ = read_export(folder / "export")
    t_read = time.perf_counter() - t0
    dest = open_store(folder / "dest.sqlite3")
    t0 = time.perf_counter()
    plan = plan_import(dest, loaded)
    dest.import_matches(plan.batch)
    t_write = time.perf_counter() - t0
    dest.close()
    n = plan.events
    print(f"import {matches} matches, {n} events: written in one transaction at "
          f"{n / t_write:,.0f} events/s ({t_write:.2f} s); checking the export "
          f"(read_export) {n / t_read:,.0f} events/s ({t_read:.2f} s); "
          f"ratio write/check {t_write / t_read:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--appends", type=int, default=2000)
    ap.add_argument("--matches", type=int, default=200)
    ap.add_argument("--pg", default=os.environ.get("CHUKKER_TEST_POSTGRES_URL",
                                                  "postgresql://postgres@127.0.0.1:5432/test"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        bench_sqlite(Path(d), a.appends // 4)
        bench_import(Path(d), a.matches)
    try:
        psycopg.connect(a.pg, connect_timeout=3).close()
    except psycopg.Error as e:
        print(f"PostgreSQL not reachable ({e}); its part skipped")
        return
    bench_pg(a.pg, a.appends)


if __name__ == "__main__":
    main()
