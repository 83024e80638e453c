"""Horns while a crowd of viewers leaves at once (a venue's network drops, the last
whistle of a final).

    python benchmarks/leave.py [--viewers 10000] [--horns 80] [--every-ms 50]

Starts ``chukker serve`` on a fresh SQLite file with ``--horns`` matches whose warning
horns fall due ``--every-ms`` apart, connects ``--viewers`` live streams from two
processes, then closes all of them at once in the middle of the horns. Prints the
horns' lateness (the server's audit: sounded - deadline) in the second before the
crowd leaves (baseline, the same run) and in the second after, and the ratio.

Before the streams ended in turns (``chukker.live.fanout.Turns``; connections closed
``FANOUT_SLICE`` per loop iteration, ``web.limits.GuardedHttp.eof_received``), 5,000
viewers leaving made a horn 182 ms late, 10,000 viewers 654 ms (2026-12-02).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from live import ROOT, free_port, pct, prepare_horn_matches


def viewers(port: int, n: int, ready: Any, stop: Any) -> None:
    """``n`` live streams of the first horn match, closed together on ``stop``."""
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /api/matches/horn000/stream HTTP/1.1\r\nHost: x\r\n\r\n")
        socks.append(s)
    for s in socks:
        s.settimeout(30)
        s.recv(65536)
    ready.set()
    stop.wait()
    for s in socks:
        s.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--viewers", type=int, default=10_000)
    ap.add_argument("--horns", type=int, default=80)
    ap.add_argument("--every-ms", type=int, default=50)
    ap.add_argument("--lead-ms", type=int, default=60_000, help="time to connect the crowd")
    args = ap.parse_args()
    db = Path(tempfile.mkdtemp(prefix="chukker-leave-")) / "bench.sqlite3"
    ids = prepare_horn_matches(db, args.horns, args.lead_ms, args.every_ms)
    first = time.time() + args.lead_ms / 1000
    window = args.horns * args.every_ms / 1000
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"),
           "CHUKKER_MAX_STREAMS_PER_ADDRESS": str(args.viewers + 100),
           "CHUKKER_MAX_STREAMS": str(2 * args.viewers + 100)}
    env.pop("CHUKKER_DATABASE_URL", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "chukker.web", "--db", str(db), "--port", str(port),
         "--no-demo", "--open"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{base}/readyz").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        stop = multiprocessing.Event()
        procs, ready = [], []
        for k in range(2):
            ev = multiprocessing.Event()
            n = args.viewers // 2 + (args.viewers % 2 if k == 0 else 0)
            p = multiprocessing.Process(target=viewers, args=(port, n, ev, stop))
            p.start()
            procs.append(p)
            ready.append(ev)
        for ev in ready:
            if not ev.wait(args.lead_ms / 1000):
                sys.exit("the viewers did not connect before the first horn: raise --lead-ms")
        leave = first + window / 2
        time.sleep(max(0.0, leave - time.time()))
        stop.set()
        for p in procs:
            p.join(60)
        time.sleep(max(0.0, first + window + 1 - time.time()))
        late: list[tuple[float, float]] = []
        for h in ids:
            for r in httpx.get(f"{base}/api/matches/{h}/horns").json():
                late.append((r["deadline"] / 1000 - leave, float(r["late_ms"])))
    finally:
        server.terminate()
        server.wait(30)
    before = [ms for t, ms in late if -1.0 <= t < 0]
    after = [ms for t, ms in late if 0 <= t < 1.0]
    print(f"chukker leave benchmark: {args.viewers} viewers leave at once; "
          f"{len(late)}/{args.horns} horns recorded")
    print(f"  horns in the second before (baseline): p50 {pct(before, 50):.0f} ms, "
          f"p99 {pct(before, 99):.0f} ms, max {max(before, default=0):.0f} ms")
    print(f"  horns in the second after the crowd left: p50 {pct(after, 50):.0f} ms, "
          f"p99 {pct(after, 99):.0f} ms, max {max(after, default=0):.0f} ms")
    print(f"  max after / target 20 ms = {max(after, default=0) / 20:.2f}x; "
          f"p99 after - p99 before = {pct(after, 99) - pct(before, 99):.0f} ms")


if __name__ == "__main__":
    main()
