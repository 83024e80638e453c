"""How a public worker learns of an append: the event its datagram carried, or a store read.

    python benchmarks/notify_read.py [--events 300] [--history 200] [--rounds 6]

Two stores on one SQLite file, each with its worker's datagram socket (as ``chukker
serve`` has them: the officials' process appends, a public worker hears it). The
public side has the match loaded (``--history`` events already in it) and, for each
append, takes what it was told in one of two ways, alternately by rounds:

* **carried**: the event as the datagram carried it (``SQLiteStore.told_events``);
* **read**: the datagram names the seq and the store is read (``asyncio.to_thread`` of
  ``events(match, after)``, as before issue 43).

Prints, for each way, the CPU (this process, every thread) and the wall time per event
of learning it and of the whole ``_sync`` (learn, fold, report), median over the
rounds, and the ratio carried / read (same run, same machine).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from chukker.live import LiveService, Role  # noqa: E402
from chukker.store import StoredEvent, open_store  # noqa: E402
from chukker.store.notify import LocalNotifier  # noqa: E402
from chukker.web.demo import DEMO_HEADER  # noqa: E402


def goal(i: int) -> dict[str, Any]:
    return {"type": "goal", "team": "AB"[i % 2], "player": 1 + i % 3}


async def bench(a: argparse.Namespace, tmp: Path) -> dict[str, dict[str, list[float]]]:
    run = tmp / "run"
    run.mkdir(mode=0o700)
    db = tmp / "n.sqlite3"
    officials, public = open_store(db), open_store(db)
    officials.attach(LocalNotifier(str(run), 0, 2))  # type: ignore[attr-defined]
    public.attach(LocalNotifier(str(run), 1, 2))  # type: ignore[attr-defined]
    notifier: Any = public.notifier  # type: ignore[attr-defined]
    writer, reader = LiveService(officials), LiveService(public)
    created = await writer.create_match(copy.deepcopy(DEMO_HEADER))
    lm = await writer.load(created.match_id)
    await writer.submit(lm, Role.TIMEKEEPER, "b", {"type": "bowl_in"})
    for i in range(a.history):
        await writer.submit(lm, Role.TIMEKEEPER, f"h{i}", goal(i))
    seen = await reader.load(lm.id)
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--events", type=int, default=300, help="appends per round")
    ap.add_argument("--history", type=int, default=200, help="events already in the match")
    ap.add_argument("--rounds", type=int, default=6, help="rounds of each way, alternately")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="chukker-notify-"))
    try:
        out = asyncio.run(bench(a, tmp))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"learning of an append in a public worker ({a.events} appends x {a.rounds} rounds "
          f"each way, match at {a.history}+ events; load {os.getloadavg()[0]:.2f}):")
    med = {w: {k: statistics.median(v) for k, v in o.items()} for w, o in out.items()}
    for key, what in (("learn", "learning it"), ("sync", "learning, folding, reporting")):
        c, r = med["carried"], med["read"]
        print(f"  {what}: carried {c[key + '_cpu_us']:.0f} us CPU / {c[key + '_wall_us']:.0f} "
              f"us wall; read {r[key + '_cpu_us']:.0f} us CPU / {r[key + '_wall_us']:.0f} us "
              f"wall; carried / read = {c[key + '_cpu_us'] / r[key + '_cpu_us']:.2f}x CPU, "
              f"{c[key + '_wall_us'] / r[key + '_wall_us']:.2f}x wall")


if __name__ == "__main__":
    main()
