"""The live service under a hostile crowd: timekeeper POST latency and horn lateness,
idle vs under a flood, and the cost of an event late in a long match.

    python benchmarks/hostile.py [--streams 1000] [--seconds 8]
    python benchmarks/hostile.py --doors [--parts gps,pdf,rules,tournament,rulebook] [--seconds 8]

All on 127.0.0.1, bounded in count and time. Starts ``chukker serve --open`` on a
fresh SQLite file. Horn matches are stored beforehand, back-dated so that an end
horn falls due every 200 ms during each phase (the server's audit gives lateness).

* idle: the timekeeper alternates whistle / bowl_in, one POST every 50 ms.
* flood: the same, while ``--streams`` idle SSE connections are held, 4 clients
  reload ``/`` and ``/api/matches`` without pause and one client creates matches as
  fast as the open mode's rate limit lets it (refusals included).
* event 10,000 vs 100: a match whose store holds 9,900 events (written directly),
  vs a fresh one; POST latency of whistle / bowl_in at each, in the same server.

``--doors``: one part per heavy door, each after an idle phase of the same run:
the GPS upload (three anonymous loops: the 49 KB ``.csv.bz2`` bomb of 6 M rows, an
8 KB gzip of 1 M rows, a real 10 MB session), the PDF (12 loops downloading
``sheet.pdf``), rules search and rule pages on a 10,000-clause (18 MB) rulebook
(4 loops), tournament uploads (``POST /tournaments/api``, 2 loops), and the rulebook
importer: ``chukker rules import`` of the same 18 MB page into a scratch database, run
alongside the server (1 loop; a command, it has no web door). Each prints the
timekeeper's POST p50/p99, its ratio to idle, horn lateness and the server's RSS growth.

Prints p50/p99 of each figure, flood/idle ratios and the targets
(flood POST p99 < 50 ms, horn p99 < 20 ms, event 10,000 / event 100 <= 1.5x).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import multiprocessing
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from chukker.live import Clock, hash_token  # noqa: E402
from chukker.store import StoredEvent, open_store  # noqa: E402
from chukker.web.demo import DEMO_HEADER  # noqa: E402

PERIOD_MS = 450_000


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def free_port() -> int:
    """A free port outside the machine's range for outgoing connections (checked by binding
    it; :func:`benchports.pick_ports`)."""
    from benchports import pick_ports

    return pick_ports(1)[0]


def prepare(db: Path, horns_at: list[int]) -> tuple[list[str], str]:
    """Horn matches (end horn at each wall ms of ``horns_at``) and a 9,900-event match."""
    store = open_store(db)
    ids = []
    for i, due in enumerate(horns_at):
        mid = f"horn{i:04d}"
        start = due - PERIOD_MS
        store.create_match(mid, copy.deepcopy(DEMO_HEADER), start, hash_token("x"), hash_token("y"))
        store.append(mid, StoredEvent(1, "b", {"type": "bowl_in", "at": 0.0}, start, "timekeeper"),
                     start)
        ids.append(mid)
    store.close()
    now = Clock().now_ms()
    long_id = "long0001"
    events = []
    at = 0.0
    for i in range(9_900):
        kind = "bowl_in" if i % 2 == 0 else "whistle"
        events.append((long_id, i + 1, f"c{i}", json.dumps({"type": kind, "at": round(at, 3)}),
                       now, "timekeeper"))
        at += 0.01 if kind == "bowl_in" else 0.001
    start = now - round(at * 1000) - 2_000
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO matches VALUES (?, ?, ?, ?, ?, ?)",
                     (long_id, json.dumps(DEMO_HEADER), start, start, hash_token("tk-long"),
                      hash_token("cm-long")))
        conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)", events)
    return ids, long_id



async def until_up(http: httpx.AsyncClient) -> None:
    """Wait (15 s at most) until the server just started answers."""
    for _ in range(300):
        try:
            await http.get("/api/time")
            return
        except httpx.TransportError:
            await asyncio.sleep(0.05)

async def timekeeper(base: httpx.AsyncClient, mid: str, token: str, seconds: float,
                     first: str, gap: float = 0.05) -> list[float]:
    """Alternate whistle / bowl_in; return each POST's latency in ms (its own connection)."""
    async with httpx.AsyncClient(base_url=base.base_url, timeout=30) as http:
        return await _timekeeper(http, mid, token, seconds, first, gap)


async def _timekeeper(http: httpx.AsyncClient, mid: str, token: str, seconds: float,
                      first: str, gap: float) -> list[float]:
    lat: list[float] = []
    kinds = ["whistle", "bowl_in"] if first == "whistle" else ["bowl_in", "whistle"]
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        t0 = time.perf_counter()
        r = await http.post(f"/api/matches/{mid}/events", headers={
            "authorization": f"Bearer {token}"}, json={
            "command_id": f"{mid}-{time.time_ns()}", "event": {"type": kinds[i % 2]}})
        lat.append((time.perf_counter() - t0) * 1000)
        if r.status_code not in (200, 201):
            raise RuntimeError(f"timekeeper POST answered {r.status_code}: {r.text}")
        i += 1
        await asyncio.sleep(gap)
    return lat


async def reloader(base: str, stop: asyncio.Event) -> int:
    n = 0
    async with httpx.AsyncClient(base_url=base, timeout=30) as c:
        while not stop.is_set():
            await c.get("/")
            await c.get("/api/matches")
            n += 2
    return n


async def creator(base: str, stop: asyncio.Event) -> tuple[int, int]:
    made = refused = 0
    async with httpx.AsyncClient(base_url=base, timeout=30) as c:
        while not stop.is_set():
            r = await c.post("/api/matches", json=DEMO_HEADER)
            if r.status_code == 201:
                made += 1
            else:
                refused += 1
                await asyncio.sleep(float(r.headers.get("retry-after", "1")) / 4)
    return made, refused


async def streams(port: int, mid: str, n: int) -> list[asyncio.StreamWriter]:
    """``n`` streams that read their first state, then never read again."""
    pairs = []
    for _ in range(n):
        r, w = await asyncio.open_connection("127.0.0.1", port)
        w.write(f"GET /api/matches/{mid}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        pairs.append((r, w))
    for r, _ in pairs:
        await r.readuntil(b"event: state")
    return [w for _, w in pairs]


def flood_process(base: str, port: int, mid: str, n: int, ready: Any, stop: Any,
                  result: Any) -> None:
    """The crowd, in a process of its own: idle streams, 4 page reloaders, one creator."""

    async def run() -> None:
        writers = await streams(port, mid, n)
        halt = asyncio.Event()
        jobs = [asyncio.create_task(reloader(base, halt)) for _ in range(4)]
        maker = asyncio.create_task(creator(base, halt))
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.05)
        halt.set()
        pages = sum(await asyncio.gather(*jobs))
        made, refused = await maker
        for w in writers:
            w.close()
        result.put((pages, made, refused))

    asyncio.run(run())


async def horn_lateness(http: httpx.AsyncClient, ids: list[str]) -> list[float]:
    out: list[float] = []
    for mid in ids:
        out += [float(h["late_ms"]) for h in (await http.get(f"/api/matches/{mid}/horns")).json()]
    return out


async def service_cost(samples: int = 300) -> tuple[float, float]:
    """Median ms of ``LiveService.submit`` (check, store, apply, publish) at event 100
    and at event 10,000, alternating between the two matches so that both see the same
    machine; in this process, the store on a RAM disk so the disk does not hide it."""
    from chukker.live import LiveService, Role

    shm = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path(tempfile.gettempdir())
    folder = Path(tempfile.mkdtemp(prefix="chukker-cost-", dir=shm))
    db = folder / "c.sqlite3"
    _, long_id = prepare(db, [])
    store = open_store(db)
    svc = LiveService(store)
    await svc.start()
    try:
        created = await svc.create_match(copy.deepcopy(DEMO_HEADER))
        short = await svc.load(created.match_id)
        for i in range(100):
            await svc.submit(short, Role.TIMEKEEPER, f"p{i}",
                             {"type": "bowl_in" if i % 2 == 0 else "whistle"})
        long = await svc.load(long_id)
        times: dict[str, list[float]] = {"short": [], "long": []}
        for i in range(samples):
            for name, lm in (("short", short), ("long", long)):
                kind = "bowl_in" if len(lm.stored) % 2 == 0 else "whistle"
                t0 = time.perf_counter()
                await svc.submit(lm, Role.TIMEKEEPER, f"s{i}", {"type": kind})
                times[name].append((time.perf_counter() - t0) * 1000)
        return pct(times["short"], 50), pct(times["long"], 50)
    finally:
        await svc.stop()
        store.close()


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="chukker-hostile-"))
    db = tmp / "h.sqlite3"
    lead = 6_000  # server start-up
    phase_ms = round(args.seconds * 1000)
    t0 = Clock().now_ms() + lead
    per_phase = max(1, phase_ms // 200 - 2)
    idle_due = [t0 + 500 + 200 * i for i in range(per_phase)]
    flood_start = t0 + phase_ms + 12_000  # time for the crowd to connect
    flood_due = [flood_start + 1_000 + 200 * i for i in range(per_phase)]
    ids, long_id = prepare(db, idle_due + flood_due)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "CHUKKER_DATABASE_URL"}
    env["PYTHONPATH"] = str(ROOT / "src")
    server = subprocess.Popen(
        [sys.executable, "-m", "chukker.web", "--db", str(db), "--port", str(port), "--no-demo",
         "--open"], env=env, stdout=subprocess.DEVNULL,
        stderr=None if args.verbose else subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    out: dict[str, Any] = {}
    out["service_ms_event_100"], out["service_ms_event_10000"] = await service_cost()
    out["service_event_10000_over_100"] = (
        out["service_ms_event_10000"] / out["service_ms_event_100"])
    try:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            await until_up(http)
            m = (await http.post("/api/matches", json=DEMO_HEADER)).json()
            mid, tk = m["match_id"], m["timekeeper_token"]
            # event 100 vs event 10,000
            fresh, long_lat = await asyncio.gather(  # side by side: the same machine
                timekeeper(http, mid, tk, 2.0, "bowl_in", gap=0.02),
                timekeeper(http, long_id, "tk-long", 2.0, "bowl_in", gap=0.02))
            out["event_100_p50_ms"] = pct(fresh[5:], 50)
            out["event_10000_p50_ms"] = pct(long_lat[5:], 50)
            out["event_10000_over_100"] = out["event_10000_p50_ms"] / out["event_100_p50_ms"]
            await asyncio.sleep(max(0, (t0 - Clock().now_ms()) / 1000))
            idle = await timekeeper(http, mid, tk, args.seconds, "whistle")
            ctx = multiprocessing.get_context("spawn")
            ready, stop, result = ctx.Event(), ctx.Event(), ctx.Queue()
            crowd = ctx.Process(target=flood_process, args=(
                base, port, ids[0], args.streams, ready, stop, result))
            crowd_started = Clock().now_ms()
            crowd.start()
            while not ready.is_set():
                await asyncio.sleep(0.05)
            crowd_ready = Clock().now_ms()
            if crowd_ready > flood_start:
                print("warning: the crowd connected after the first flood horn", file=sys.stderr)
            until = max(flood_due[-1] + 500, crowd_ready + phase_ms)
            spy = None
            if args.profile:  # sample the server during the flood (py-spy, from PyPI)
                spy = subprocess.Popen(
                    ["py-spy", "record", "--pid", str(server.pid), "--format", "raw",
                     "--nonblocking", "--rate", "250", "--output", args.profile,
                     "--duration", str(max(1, int((until - crowd_ready) / 1000)))],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            flood = await timekeeper(http, mid, tk, (until - crowd_ready) / 1000, "whistle")
            stop.set()
            if spy is not None:
                spy.wait(60)
            pages, made, refused = await asyncio.to_thread(result.get, True, 60)
            crowd.join(30)
            await asyncio.sleep(1.0)
            http = httpx.AsyncClient(base_url=base, timeout=30)
            idle_h = await horn_lateness(http, ids[:len(idle_due)])
            flood_h = await horn_lateness(http, ids[len(idle_due):])
            out.update(
                idle_post_p50_ms=pct(idle, 50), idle_post_p99_ms=pct(idle, 99),
                flood_post_p50_ms=pct(flood, 50), flood_post_p99_ms=pct(flood, 99),
                idle_horn_p99_ms=pct(idle_h, 99), flood_horn_p99_ms=pct(flood_h, 99),
                horns_recorded=f"{len(idle_h) + len(flood_h)}/{len(ids)}",
                flood_pages=pages, flood_matches_created=made, flood_creations_refused=refused,
                streams=args.streams, crowd_connect_s=(crowd_ready - crowd_started) / 1000)
            out["post_p99_flood_over_idle"] = out["flood_post_p99_ms"] / out["idle_post_p99_ms"]
            out["horn_p99_flood_over_idle"] = (
                out["flood_horn_p99_ms"] / max(out["idle_horn_p99_ms"], 0.1))
    finally:
        server.terminate()
        server.wait(10)
    return out


# ------------------------------------------------------------------ a part per door (issue 19)
PARTS = ("gps", "pdf", "rules", "tournament", "rulebook")


def rulebook_html(clauses: int = 10_000, words: int = 300) -> str:
    """An 18-rule web page of ``clauses`` clauses (lettered, each with 3 numbered ones),
    in made-up words; ~18 MB at the defaults."""
    import random

    rnd = random.Random(19)
    vocab = ["ball", "horse", "mallet", "line", "right", "way", "foul", "penalty", "umpire",
             "goal", "wall", "arena", "period", "bump", "hook", "ride", "cross", "zigzag"]

    def text(n: int) -> str:
        return " ".join(rnd.choice(vocab) for _ in range(n))

    per_rule = max(1, -(-clauses // 72))
    out = ['<html lang="en"><head><title>USPA Arena Rules 2040</title></head><body>']
    for r in range(1, 19):
        out.append(f'<h2>Rule {r}. Title {r}</h2><ol type="a">')
        for _ in range(per_rule):
            subs = "".join(f"<li>{text(words)}</li>" for _ in range(3))
            out.append(f"<li>{text(words)}<ol>{subs}</ol></li>")
        out.append("</ol>")
    out.append("</body></html>")
    return "\n".join(out)


def gps_uploads() -> dict[str, list[tuple[str, tuple[str, bytes]]]]:
    """The attacker's uploads: the 49 KB bzip2 bomb (6 M rows), an 8 KB gzip of 1 M rows,
    and a real 10 MB session (250,000 fixes) that keeps the plays pool busy."""
    import bz2
    import gzip
    from datetime import datetime

    gps = ROOT / "examples" / "gps"
    session = (gps / "session.toml").read_text()
    rows = (gps / "session-fixes.csv").read_text().splitlines()[1:]
    parsed = []
    for line in rows:
        t, unit, lat, lon = line.split(",")
        parsed.append((datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp(), unit, lat,
                       lon))
    span = parsed[-1][0] - parsed[0][0] + 0.1
    big = ["time,unit,lat,lon"]
    k = 0
    while len(big) < 250_000:
        big += [f"{t + k * span:.3f},{u},{la},{lo}" for t, u, la, lo in parsed]
        k += 1
    line = b"1764928800.0,GX-104,26.6152006,-80.1998205\n"
    bomb = bz2.compress(b"time,unit,lat,lon\n" + line * 6_000_000, 9)
    small = gzip.compress(b"time,unit,lat,lon\n" + line * 1_000_000, 9)

    def form(fixes_name: str, data: bytes) -> list[tuple[str, tuple[str, bytes]]]:
        toml = session.replace('fixes = "session-fixes.csv"', f'fixes = "{fixes_name}"')
        return [("file", ("session.toml", toml.encode())), ("fixes", (fixes_name, data))]

    return {"bomb": form("fixes.csv.bz2", bomb), "gzip": form("fixes.csv.gz", small),
            "real": form("fixes.csv", ("\n".join(big) + "\n").encode())}


def door_attacker(base: str, part: str, sheet_mid: str, uploads_file: str, ready: Any,
                  go: Any, stop: Any, result: Any) -> None:
    """One part's anonymous attackers, in a process of their own; puts {status: count}."""
    import pickle
    from collections import Counter

    async def run() -> None:
        codes: Counter[str] = Counter()
        tournament = (ROOT / "examples" / "tournament" / "fall-classic.toml").read_text()
        uploads = pickle.loads(Path(uploads_file).read_bytes()) if part == "gps" else {}
        ready.set()
        while not go.is_set():
            await asyncio.sleep(0.02)

        async def loop(i: int) -> None:
            async with httpx.AsyncClient(base_url=base, timeout=120) as c:
                while not stop.is_set():
                    try:
                        if part == "gps":  # one loop the real session, two the bombs
                            name = ("real", "bomb", "gzip")[i % 3]
                            r = await c.post("/plays/review", files=uploads[name])
                            codes[f"{name}:{r.status_code}"] += 1
                            if name != "real":
                                await asyncio.sleep(0.5)
                        elif part == "pdf":
                            r = await c.get(f"/m/{sheet_mid}/sheet.pdf")
                            codes[str(r.status_code)] += 1
                        elif part == "rules":
                            q = ("foul zigzag", "/rules/uspa-arena-2040/en/13")[i % 2]
                            r = await (c.get(q) if q.startswith("/") else
                                       c.get("/rules/search", params={"q": q}))
                            codes[str(r.status_code)] += 1
                        elif part == "tournament":
                            r = await c.post("/tournaments/api", json={"text": tournament})
                            codes[str(r.status_code)] += 1
                        else:  # rulebook: the importer command, beside the server
                            folder = Path(uploads_file).parent
                            proc = await asyncio.create_subprocess_exec(
                                sys.executable, "-m", "chukker.cli", "rules", "import", "--db",
                                str(folder / f"scratch-rules-{i}.sqlite3"), "--edition",
                                "uspa-arena-2041", "--lang", "en",
                                str(folder / "rulebook-2040.en.html"),
                                stdout=asyncio.subprocess.DEVNULL,
                                stderr=asyncio.subprocess.DEVNULL)
                            codes[f"exit:{await proc.wait()}"] += 1
                            (folder / f"scratch-rules-{i}.sqlite3").unlink(missing_ok=True)
                            continue
                        if r.status_code == 503:
                            await asyncio.sleep(float(r.headers.get("retry-after", "1")) / 4)
                    except httpx.HTTPError as e:
                        codes[type(e).__name__] += 1

        n = {"gps": 3, "pdf": 12, "rules": 4, "tournament": 2, "rulebook": 1}[part]
        jobs = [asyncio.create_task(loop(i)) for i in range(n)]
        await asyncio.gather(*jobs)
        result.put(dict(codes))

    asyncio.run(run())


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def workers_rss_mb(pid: int) -> float:
    """RSS of the server's worker processes (the heavy pools), summed."""
    total = 0.0
    for st in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = st.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            total += rss_mb(int(st.parent.name))
    return total


async def end_horn_lateness(http: httpx.AsyncClient, ids: list[str]) -> list[float]:
    """The lateness of each match's end horn (the one due in its phase)."""
    out: list[float] = []
    for mid in ids:
        horns = (await http.get(f"/api/matches/{mid}/horns")).json()
        out += [float(h["late_ms"]) for h in horns if h.get("kind") == "end"][:1]
    return out


async def doors(args: argparse.Namespace) -> dict[str, Any]:
    """Idle, then each door's part: the timekeeper's POSTs, the horns, the server's RSS."""
    tmp = Path(tempfile.mkdtemp(prefix="chukker-doors-"))
    db = tmp / "d.sqlite3"
    rules_db = tmp / "rules.sqlite3"
    page = tmp / "rulebook-2040.en.html"
    page.write_text(rulebook_html(args.clauses), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "CHUKKER_DATABASE_URL"}
    env["PYTHONPATH"] = str(ROOT / "src")
    env["CHUKKER_RULES_DB"] = str(rules_db)
    env["CHUKKER_TOURNAMENTS_DIR"] = str(tmp / "tournaments")
    t_imp = time.perf_counter()
    subprocess.run([sys.executable, "-m", "chukker.cli", "rules", "import", "--db", str(rules_db),
                    "--edition", "uspa-arena-2040", "--lang", "en", str(page)], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    took = time.perf_counter() - t_imp
    rulebook = f"{page.stat().st_size / 2**20:.0f} MB, imported in {took:.0f} s"
    import pickle

    uploads_file = tmp / "uploads.pickle"
    uploads_file.write_bytes(pickle.dumps(gps_uploads() if "gps" in args.parts else {}))
    phases = ("idle", *args.parts)
    phase_ms = round(args.seconds * 1000)
    gap_ms = 4_000  # attackers connect and leave between phases
    t0 = Clock().now_ms() + 25_000  # server start, the crowds spawned and ready
    windows = {ph: (t0 + i * (phase_ms + gap_ms), t0 + i * (phase_ms + gap_ms) + phase_ms)
               for i, ph in enumerate(phases)}
    dues = {ph: list(range(a + 500, b - 300, 200)) for ph, (a, b) in windows.items()}
    ids, _ = prepare(db, [d for ph in phases for d in dues[ph]])
    by_phase, k = {}, 0
    for ph in phases:
        by_phase[ph] = ids[k:k + len(dues[ph])]
        k += len(dues[ph])
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "chukker.web", "--db", str(db), "--port", str(port), "--no-demo",
         "--open"], env=env, stdout=subprocess.DEVNULL,
        stderr=None if args.verbose else subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    out: dict[str, Any] = {"rulebook": rulebook}
    try:
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            await until_up(http)
            m = (await http.post("/api/matches", json=DEMO_HEADER)).json()
            mid, tk = m["match_id"], m["timekeeper_token"]
            sheet = (await http.post("/api/matches", json=DEMO_HEADER)).json()
            await http.post(f"/api/matches/{sheet['match_id']}/events", headers={
                "authorization": f"Bearer {sheet['timekeeper_token']}"},
                json={"command_id": "s1", "event": {"type": "bowl_in"}})
            rss0 = rss_mb(server.pid)
            ctx = multiprocessing.get_context("spawn")
            crowds: dict[str, Any] = {}
            for ph in args.parts:  # each part's attackers, prepared and waiting for "go"
                ev = (ctx.Event(), ctx.Event(), ctx.Event(), ctx.Queue())
                proc = ctx.Process(target=door_attacker, args=(
                    base, ph, sheet["match_id"], str(uploads_file), *ev))
                proc.start()
                crowds[ph] = (proc, *ev)
            for _proc, ready, _go, _stop, _q in crowds.values():
                while not ready.is_set():
                    await asyncio.sleep(0.05)
            if Clock().now_ms() > t0:
                print("warning: the crowds were ready after the first horn", file=sys.stderr)
            for ph in phases:
                a, b = windows[ph]
                await asyncio.sleep(max(0, (a - Clock().now_ms()) / 1000))
                if ph in crowds:
                    crowds[ph][2].set()  # go
                lat = await timekeeper(http, mid, tk, (b - Clock().now_ms()) / 1000, "whistle")
                peak_workers = workers_rss_mb(server.pid)
                codes: dict[str, int] = {}
                if ph in crowds:
                    proc, _ready, _go, stop, result = crowds[ph]
                    stop.set()
                    codes = await asyncio.to_thread(result.get, True, 180)
                    proc.join(30)
                out[ph] = {"post_p50_ms": pct(lat, 50), "post_p99_ms": pct(lat, 99),
                           "posts": len(lat), "server_rss_growth_mb": rss_mb(server.pid) - rss0,
                           "workers_rss_mb": peak_workers, "answers": codes}
            await asyncio.sleep(1.0)
            for ph in phases:
                late = await end_horn_lateness(http, by_phase[ph])
                out[ph]["horn_p99_ms"] = pct(late, 99)
                out[ph]["horns"] = f"{len(late)}/{len(by_phase[ph])}"
            idle = out["idle"]
            for ph in args.parts:
                out[ph]["post_p99_over_idle"] = out[ph]["post_p99_ms"] / idle["post_p99_ms"]
    finally:
        server.terminate()
        server.wait(10)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--doors", action="store_true",
                    help="run the doors' parts (GPS upload, PDF, rules search, import) "
                         "instead of the flood")
    ap.add_argument("--parts", default=",".join(PARTS),
                    help=f"the doors' parts to run (of {','.join(PARTS)})")
    ap.add_argument("--clauses", type=int, default=10_000,
                    help="clauses of the imported rulebook (doors)")
    ap.add_argument("--streams", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--verbose", action="store_true", help="show the server's errors")
    ap.add_argument("--profile", metavar="FILE",
                    help="py-spy samples of the server during the flood (collapsed stacks); "
                    "needs py-spy (pip install py-spy), not a dependency of chukker")
    args = ap.parse_args()
    if args.doors:
        args.parts = tuple(p for p in args.parts.split(",") if p)
        res = asyncio.run(asyncio.wait_for(doors(args), timeout=900))
        print(f"rulebook: {res.pop('rulebook')}")
        print(f"{'part':8} {'POST p50':>9} {'POST p99':>9} {'p99/idle':>9} {'horn p99':>9} "
              f"{'horns':>7} {'RSS +MB':>8} {'workers MB':>10}  answers")
        for ph, r in res.items():
            print(f"{ph:8} {r['post_p50_ms']:9.1f} {r['post_p99_ms']:9.1f} "
                  f"{r.get('post_p99_over_idle', 1.0):9.2f} {r['horn_p99_ms']:9.1f} "
                  f"{r['horns']:>7} {r['server_rss_growth_mb']:8.0f} {r['workers_rss_mb']:10.0f}  "
                  f"{r['answers']}")
        print("targets: POST p99 <= 3x idle and < 50 ms, horn p99 < 20 ms, RSS growth < 300 MB")
        return
    res = asyncio.run(asyncio.wait_for(bench(args), timeout=180))
    for k, v in res.items():
        print(f"{k:28} {v:.2f}" if isinstance(v, float) else f"{k:28} {v}")
    print("targets: flood POST p99 < 50 ms, horn p99 < 20 ms, event 10,000 / 100 <= 1.5x")


if __name__ == "__main__":
    main()
