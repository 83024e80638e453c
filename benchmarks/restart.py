"""How long the horn keeper's start-up takes with many finished matches (issue 40), as a
ratio to the old start-up measured in the same run.

    python benchmarks/restart.py [--matches 3000]

A SQLite file holds ``--matches`` finished demo matches (one played by the engine,
copied) and, created before all of them, one match in play. Measured:

* ``LiveService.start()`` now: every started match read a page at a time, folded, and
  only those with a horn to come loaded (the match in play);
* the baseline, the old start-up: ``load()`` of each of the newest 1,000 matches
  (which kept them in memory and never saw the match in play).
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from chukker.live import LiveService, hash_token
from chukker.store import StoredEvent, open_store
from chukker.web.demo import DEMO_HEADER, seed_finished_match


def build(path: Path, matches: int) -> None:
    store = open_store(path)
    now = int(time.time() * 1000)
    store.create_match("running", DEMO_HEADER, now - 7_200_000, hash_token("t"),
                       hash_token("c"))
    store.append("running", StoredEvent(1, "b", {"type": "bowl_in", "at": 0.0}, now - 60_000,
                                        "timekeeper"), now - 60_000)
    model = seed_finished_match(store, now - 3_600_000)
    store.close()
    db = sqlite3.connect(path)
    for k in range(matches - 1):
        db.execute("INSERT INTO matches SELECT ?, header, created_ms + ?, start_ms, "
                   "timekeeper_hash, committee_hash FROM matches WHERE id = ?",
                   (f"f{k:06d}", k + 1, model))
        db.execute("INSERT INTO events SELECT ?, seq, command_id, body, recorded_ms, actor "
                   "FROM events WHERE match_id = ?", (f"f{k:06d}", model))
    db.commit()
    db.close()


async def new_start(path: Path) -> tuple[float, list[str]]:
    svc = LiveService(open_store(path))
    t = time.perf_counter()
    await svc.start()
    took = time.perf_counter() - t
    loaded = [lm.id for lm in svc.loaded_matches() if lm.timer is not None]
    await svc.stop()
    svc.store.close()
    return took, loaded


async def old_start(path: Path) -> tuple[float, int]:
    svc = LiveService(open_store(path))
    t = time.perf_counter()
    for row in await asyncio.to_thread(svc.store.list_matches, 1000):
        if row.start_ms is not None:
            await svc.load(row.id)
    took = time.perf_counter() - t
    kept = len(svc.loaded_matches())
    await svc.stop()
    svc.store.close()
    return took, kept


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--matches", type=int, default=3000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "restart.sqlite3"
        build(path, a.matches)
        took, loaded = asyncio.run(new_start(path))
        base, kept = asyncio.run(old_start(path))
    print(f"start-up with {a.matches:,} finished matches and one in play: {took:.2f} s "
          f"({1000 * took / a.matches:.2f} ms a match); loaded with a horn to come: {loaded}")
    print(f"old start-up (the newest 1,000 loaded, {kept} kept in memory, the match in play "
          f"missed): {base:.2f} s; ratio {took / base:.2f}x "
          f"(per match {took / a.matches / (base / 1000):.2f}x)")


if __name__ == "__main__":
    main()
