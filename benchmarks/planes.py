"""The officials' plane under the crowd (issue 35): the timekeeper's POST on the
officials' port and horn lateness, idle and under a flood of the public port.

    python benchmarks/planes.py [--streams 2000] [--pages 8] [--heavy 12] [--churn 2000]
                                [--officials-churn 0] [--seconds 8] [--public-workers 1]
                                [--heads 0] [--clock-samples 0]

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

* issue 41: ``--officials-churn`` loops aimed at the **officials'** port that connect, ask
  for a stream (anonymous) and read the answer (a ``307`` to the public port, ``429``
  once the address is over its cap, or a reset / no answer once the door shuts the
  address out, web/gate.py) and close. They connect from :data:`ATTACKER_HOST`
  (127.0.0.2, another loopback address; all of 127.0.0.0/8 is loopback on Linux) while
  the timekeeper stays on 127.0.0.1: in an arena the crowd never shares the
  timekeeper's address, and a door that keys on the address must see them apart. A
  connect not answered within 5 s (its SYNs dropped) is given up and tried again;
* ``--heads N``: after the phases, N requests with a 1 MB header to each plane (answered
  431 before parsing, web/limits.py), and the growth of each plane's RSS;
* ``--clock-samples N``: the clock offset ``live.js`` measures (``/api/time``, the
  midpoint of the round trip), N times on each plane: on one machine the truth is 0.

Prints p50/p99 of each figure and the ratios to idle; targets (issue 35): POST p99
<= 2x idle with the attackers at nice 19, <= 3x without; horn lateness p99 <= 10 ms
(issue 41: <= 20 ms with the officials' churn; 431 with RSS growth < 50 MB; clock
offset p99 <= 50 ms).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import random
import shutil
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

from benchports import descendants  # noqa: E402
from hostile import (  # noqa: E402
    free_port,
    horn_lateness,
    pct,
    prepare,
    rss_mb,
    streams,
    timekeeper,
    until_up,
)

from chukker.live import Clock  # noqa: E402
from chukker.web.demo import DEMO_HEADER  # noqa: E402

HORN_EVERY_MS = 250
CONNECT_BUDGET_MS = 20_000  # the crowd's time to connect before its phase begins
#: the address the officials' churn connects from (the timekeeper's is 127.0.0.1)
ATTACKER_HOST = "127.0.0.2"


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


async def _officials_churn(port: int, mid: str, stop: asyncio.Event) -> int:
    """Connect to the officials' port, ask for a stream anonymously, read the answer's
    status line (307, or 429 when the address is over its cap), close; again."""
    n = 0
    ask = f"GET /api/matches/{mid}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    while not stop.is_set():
        try:
            # bounded: a door that drops an address's SYNs leaves connect waiting
            r, w = await asyncio.wait_for(asyncio.open_connection(
                "127.0.0.1", port, local_addr=(ATTACKER_HOST, 0)), 5)
            w.write(ask)
            await asyncio.wait_for(r.readline(), 30)
            w.close()
            n += 1
        except (TimeoutError, OSError, asyncio.IncompleteReadError):
            await asyncio.sleep(0.05)
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
          stop: Any, result: Any, officials: int = 0) -> None:
    """The attackers, in a process of their own (at ``nice``)."""
    if nice:
        os.nice(nice)

    async def run() -> None:
        writers = await streams(port, mid, args["streams"])
        halt = asyncio.Event()
        jobs = ([asyncio.create_task(_pages(base, mid, halt)) for _ in range(args["pages"])]
                + [asyncio.create_task(_heavy(base, mid, halt)) for _ in range(args["heavy"])])
        churn = [asyncio.create_task(_churn(port, mid, halt)) for _ in range(args["churn"])]
        churn += [asyncio.create_task(_officials_churn(officials, mid, halt))
                  for _ in range(args.get("officials_churn", 0))]
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
                    "churn": a.churn, "officials_churn": a.officials_churn}
            for name, nice in (("nice19", 19), ("no_nice", 0)):
                ready, stop, result = ctx.Event(), ctx.Event(), ctx.Queue()
                proc = ctx.Process(target=crowd, args=(pub, port, ids[0], spec, nice, ready,
                                                       stop, result, officials))
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
            # the audit is read with the organiser's token (the officials' port caps an
            # anonymous address; web/gate.py)
            token = Path(str(db) + ".organiser-token").read_text().strip()
            http.headers["authorization"] = f"Bearer {token}"
            late = dict(zip(ids, [await horn_lateness(http, [i]) for i in ids], strict=True))
            if a.clock_samples:
                await asyncio.sleep(3.0)  # the address's anonymous bucket fills again
                for name, base in (("officials", off), ("public", pub)):
                    async with httpx.AsyncClient(base_url=base, timeout=30) as anonymous:
                        offs = await clock_offsets(anonymous, a.clock_samples)
                    out[f"{name}_clock_offset_p50_ms"] = round(pct(offs, 50), 1)
                    out[f"{name}_clock_offset_p99_ms"] = round(pct(offs, 99), 1)
            if a.heads:
                for name, p in (("officials", officials), ("public", port)):
                    pids = plane_pids(server.pid, p)
                    before = sum(rss_mb(x) for x in pids)
                    statuses = await huge_heads(p, a.heads)
                    out[f"{name}_heads_431"] = statuses.get(431, 0)
                    out[f"{name}_heads_other"] = {k: v for k, v in statuses.items() if k != 431}
                    out[f"{name}_heads_rss_growth_mb"] = round(
                        sum(rss_mb(x) for x in pids) - before, 1)
    finally:
        server.terminate()
        server.wait(30)
        shutil.rmtree(tmp, ignore_errors=True)
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


async def clock_offsets(http: httpx.AsyncClient, n: int) -> list[float]:
    """|offset| (ms) as live.js measures it: the server's time minus the midpoint of the
    round trip, one ``/api/time`` at a time (the truth is 0 on one machine)."""
    out = []
    for _ in range(n):
        t0 = time.time() * 1000
        r = await http.get("/api/time", headers={"cache-control": "no-store"})
        t1 = time.time() * 1000
        out.append(abs(r.json()["server_time"] - (t0 + t1) / 2))
        await asyncio.sleep(0.06)  # about live.js's pace, within an address's rate
    return out


async def huge_heads(port: int, n: int, size: int = 1 << 20, at_once: int = 20
                     ) -> dict[int, int]:
    """``n`` requests with a ``size``-byte header, ``at_once`` at a time; the statuses."""
    head = (b"GET / HTTP/1.1\r\nHost: x\r\nCookie: chukker_lang=" + b"e" * size
            + b"\r\nAccept-Language: es\r\n\r\n")
    got: dict[int, int] = {}
    gate = asyncio.Semaphore(at_once)

    async def one() -> None:
        async with gate:
            status = 0
            try:
                r, w = await asyncio.open_connection("127.0.0.1", port)
                w.write(head)
                with contextlib.suppress(OSError, TimeoutError):
                    await asyncio.wait_for(w.drain(), 10)
                line = await asyncio.wait_for(r.readline(), 10)
                status = int(line.split()[1]) if line.startswith(b"HTTP/") else 0
                w.close()
            except (OSError, TimeoutError, ValueError, IndexError):
                status = 0
            got[status] = got.get(status, 0) + 1

    await asyncio.gather(*(one() for _ in range(n)))
    return got


def plane_pids(server: int, port: int) -> list[int]:
    """The server's processes listening on ``port`` (/proc: their sockets): its children,
    or on Linux its fork server's (``chukker.web.workers.start_method``)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] == "0A" and int(f[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f[9])
    pids = []
    for pid in descendants(server)[1:]:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        links = set()
        for fd in fds:
            with contextlib.suppress(OSError):
                links.add(os.readlink(fd))
        if any(f"socket:[{i}]" in links for i in inodes):
            pids.append(pid)
    return pids


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--streams", type=int, default=2000)
    p.add_argument("--pages", type=int, default=8)
    p.add_argument("--heavy", type=int, default=12)
    p.add_argument("--churn", type=int, default=2000)
    p.add_argument("--officials-churn", type=int, default=0)
    p.add_argument("--heads", type=int, default=0)
    p.add_argument("--clock-samples", type=int, default=0)
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--public-workers", type=int, default=1)
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args()
    for n, hi in ((a.streams, 10_000), (a.pages, 64), (a.heavy, 64), (a.churn, 5_000),
                  (a.officials_churn, 5_000), (a.heads, 5_000), (a.clock_samples, 5_000)):
        if not 0 <= n <= hi:
            p.error(f"{n} is out of range 0..{hi}")
    if not 1 <= a.seconds <= 60:
        p.error("--seconds is 1..60")
    out = asyncio.run(bench(a))
    print(json.dumps(out, indent=1))
    print(f"POST p99: nice 19 {out['nice19_post_p99_over_idle']}x idle (target <= 2), "
          f"without nice {out['no_nice_post_p99_over_idle']}x idle (target <= 3); "
          f"horn p99: {out['nice19_horn_p99_ms']} / {out['no_nice_horn_p99_ms']} ms "
          "(target <= 10; <= 20 with the officials' churn)")
    if a.heads:
        print(f"1 MB heads: officials {out['officials_heads_431']}/{a.heads} answered 431, "
              f"RSS +{out['officials_heads_rss_growth_mb']} MB; public "
              f"{out['public_heads_431']}/{a.heads}, RSS +{out['public_heads_rss_growth_mb']} MB "
              "(target: all 431, < 50 MB)")
    if a.clock_samples:
        print(f"clock offset p99: officials {out['officials_clock_offset_p99_ms']} ms, public "
              f"{out['public_clock_offset_p99_ms']} ms (target <= 50)")


if __name__ == "__main__":
    main()
