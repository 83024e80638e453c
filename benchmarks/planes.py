"""The officials' plane under the crowd (issue 35): the timekeeper's POST on the
officials' port and horn lateness, idle and under a flood of the public port.

    python benchmarks/planes.py [--streams 2000] [--pages 8] [--heavy 12] [--churn 2000]
                                [--seconds 8] [--public-workers 1]

All on 127.0.0.1, bounded in count and time. Starts ``chukker serve --open`` (two planes)
on a fresh SQLite file with horn matches stored beforehand, back-dated so that an end
horn falls due every 250 ms for the whole run (the officials' audit gives lateness; a
horn counts in the phase its due time falls in).

* idle: the timekeeper alternates whistle / bowl_in on the officials' port, one POST
  every 50 ms; nothing else runs.
* flood, attackers at nice 19, then flood, attackers without nice: the same, while one
  attacking process (on the public port) holds ``--streams`` idle streams, runs
  ``--pages`` loops of anonymous pages (``/``, ``/rules/``, ``/openapi.json``, a sheet and
  its ``sheet.json``, ``/tournaments/``, ``feed.json`` with a random ``?lang=``),
  ``--heavy`` loops downloading ``sheet.pdf`` (a heavy door), and ``--churn`` loops that
  open a stream, read its first state and close it.

Prints p50/p99 of each figure and the ratios to idle; targets (issue 35): POST p99
<= 2x idle with the attackers at nice 19, <= 3x without; horn lateness p99 <= 10 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from hostile import (  # noqa: E402
    free_port,
    horn_lateness,
    pct,
    prepare,
    streams,
    timekeeper,
    until_up,
)

from chukker.live import Clock  # noqa: E402
from chukker.web.demo import DEMO_HEADER  # noqa: E402

HORN_EVERY_MS = 250
CONNECT_BUDGET_MS = 20_000  # the crowd's time to connect before its phase begins


async def _pages(base: str, mid: str, stop: asyncio.Event) -> int:
    paths = ["/", "/rules/", "/openapi.json", f"/m/{mid}/sheet", f"/m/{mid}/sheet.json",
             "/tournaments/"]
    n = 0
    async with httpx.AsyncClient(base_url=base, timeout=30) as c:
        while not stop.is_set():
            for p in paths:
                await c.get(p)
            lang = random.choice(["en", "es", "it", "xx", "de", "fr"])
            await c.get(f"/api/matches/{mid}/feed.json", params={"lang": lang})
            n += len(paths) + 1
    return n


async def _heavy(base: str, mid: str, stop: asyncio.Event) -> int:
    n = 0
    async with httpx.AsyncClient(base_url=base, timeout=60) as c:
        while not stop.is_set():
            r = await c.get(f"/m/{mid}/sheet.pdf")
            n += 1
            if r.status_code == 503:  # the heavy pool is full: as told
                await asyncio.sleep(float(r.headers.get("retry-after", "1")) / 4)
    return n


async def _churn(port: int, mid: str, stop: asyncio.Event) -> int:
    n = 0
    while not stop.is_set():
        try:
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(f"GET /api/matches/{mid}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            await asyncio.wait_for(r.readuntil(b"event: state"), 30)
            w.close()
            n += 1
        except (TimeoutError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            await asyncio.sleep(0.5)
    return n


def crowd(base: str, port: int, mid: str, args: dict[str, Any], nice: int, ready: Any,
          stop: Any, result: Any) -> None:
    """The attackers, in a process of their own (at ``nice``)."""
    if nice:
        os.nice(nice)

    async def run() -> None:
        writers = await streams(port, mid, args["streams"])
        halt = asyncio.Event()
        jobs = ([asyncio.create_task(_pages(base, mid, halt)) for _ in range(args["pages"])]
                + [asyncio.create_task(_heavy(base, mid, halt)) for _ in range(args["heavy"])])
        churn = [asyncio.create_task(_churn(port, mid, halt)) for _ in range(args["churn"])]
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.05)
        halt.set()
        done = await asyncio.wait_for(asyncio.gather(*jobs, *churn), 120)
        for w in writers:
            w.close()
        result.put((sum(done[:len(jobs)]), sum(done[len(jobs):])))

    asyncio.run(run())


async def bench(a: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="chukker-planes-"))
    db = tmp / "p.sqlite3"
    phase_ms = round(a.seconds * 1000)
    lead = 8_000
    t0 = Clock().now_ms() + lead
    window = lead + 3 * phase_ms + 2 * CONNECT_BUDGET_MS + 10_000
    due = [t0 + HORN_EVERY_MS * i for i in range(window // HORN_EVERY_MS)]
    ids, _ = prepare(db, due)
    port, officials = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    # every attacker is 127.0.0.1: room for the held streams and the churn from one address
    env["CHUKKER_MAX_STREAMS_PER_ADDRESS"] = str(a.streams + a.churn + 100)
    env["CHUKKER_MAX_STREAMS"] = str(2 * (a.streams + a.churn) + 100)
    server = subprocess.Popen(
        [sys.executable, "-m", "chukker.web", "--db", str(db), "--port", str(port),
         "--officials-port", str(officials), "--public-workers", str(a.public_workers),
         "--no-demo", "--open"], env=env, stdout=subprocess.DEVNULL,
        stderr=None if a.verbose else subprocess.DEVNULL)
    pub, off = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{officials}"
    out: dict[str, Any] = {"streams": a.streams, "pages": a.pages, "heavy": a.heavy,
                           "churn": a.churn, "seconds": a.seconds,
                           "public_workers": a.public_workers}
    phases: dict[str, tuple[int, int]] = {}
    try:
        async with httpx.AsyncClient(base_url=off, timeout=30) as http, \
                httpx.AsyncClient(base_url=pub, timeout=30) as public:
            await until_up(http)
            await until_up(public)
            m = (await http.post("/api/matches", json=DEMO_HEADER)).json()
            mid, tk = m["match_id"], m["timekeeper_token"]
            await asyncio.sleep(max(0, (t0 - Clock().now_ms()) / 1000))
            start = Clock().now_ms()
            lat = {"idle": await timekeeper(http, mid, tk, a.seconds, "whistle")}
            phases["idle"] = (start, Clock().now_ms())
            ctx = multiprocessing.get_context("spawn")
            spec = {"streams": a.streams, "pages": a.pages, "heavy": a.heavy,
                    "churn": a.churn}
            for name, nice in (("nice19", 19), ("no_nice", 0)):
                ready, stop, result = ctx.Event(), ctx.Event(), ctx.Queue()
                proc = ctx.Process(target=crowd, args=(pub, port, ids[0], spec, nice, ready,
                                                       stop, result))
                began = time.monotonic()
                proc.start()
                while not ready.is_set() and time.monotonic() - began < CONNECT_BUDGET_MS / 1000:
                    await asyncio.sleep(0.05)
                out[f"{name}_connect_s"] = round(time.monotonic() - began, 1)
                start = Clock().now_ms()
                lat[name] = await timekeeper(http, mid, tk, a.seconds, "whistle")
                phases[name] = (start, Clock().now_ms())
                stop.set()
                pages, churned = await asyncio.to_thread(result.get, True, 180)
                proc.join(30)
                out[f"{name}_requests"], out[f"{name}_streams_churned"] = pages, churned
            await asyncio.sleep(1.0)
            late = dict(zip(ids, [await horn_lateness(http, [i]) for i in ids], strict=True))
    finally:
        server.terminate()
        server.wait(30)
    for name, (begin, end) in phases.items():
        horns = [x for mid_, d in zip(ids, due, strict=True) if begin <= d <= end
                 for x in late[mid_]]
        out[f"{name}_post_p50_ms"] = round(pct(lat[name], 50), 1)
        out[f"{name}_post_p99_ms"] = round(pct(lat[name], 99), 1)
        out[f"{name}_horn_p99_ms"] = round(pct(horns, 99), 1) if horns else None
        out[f"{name}_horns"] = len(horns)
    for name in ("nice19", "no_nice"):
        out[f"{name}_post_p99_over_idle"] = round(
            out[f"{name}_post_p99_ms"] / out["idle_post_p99_ms"], 2)
    # a match's later horns (the interval's) count too, in the phase of its first one
    out["horns_audited"] = sum(len(v) for v in late.values())
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--streams", type=int, default=2000)
    p.add_argument("--pages", type=int, default=8)
    p.add_argument("--heavy", type=int, default=12)
    p.add_argument("--churn", type=int, default=2000)
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--public-workers", type=int, default=1)
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args()
    for n, hi in ((a.streams, 10_000), (a.pages, 64), (a.heavy, 64), (a.churn, 5_000)):
        if not 0 <= n <= hi:
            p.error(f"{n} is out of range 0..{hi}")
    if not 1 <= a.seconds <= 60:
        p.error("--seconds is 1..60")
    out = asyncio.run(bench(a))
    print(json.dumps(out, indent=1))
    print(f"POST p99: nice 19 {out['nice19_post_p99_over_idle']}x idle (target <= 2), "
          f"without nice {out['no_nice_post_p99_over_idle']}x idle (target <= 3); "
          f"horn p99: {out['nice19_horn_p99_ms']} / {out['no_nice_horn_p99_ms']} ms "
          "(target <= 10)")


if __name__ == "__main__":
    main()
