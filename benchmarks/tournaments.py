"""Tournaments in the store (issue 40): upload on one port and read on the other, a
result on the tournament page's stream, and a 64-team upload, on ``chukker serve``.

    python benchmarks/tournaments.py [--viewers 1000] [--reads 30] [--results 20]
                                     [--public-workers 1] [--procs 2]

Starts ``chukker serve`` (the officials' port and ``--public-workers`` public workers) on
a fresh SQLite file, organiser token from the environment. All on 127.0.0.1, bounded in
count and time; prints one JSON document, then each figure against its baseline (measured
in the same run) and its target.

* Upload on one port, read on the other: ``--reads`` four-team tournaments (new names)
  uploaded on the officials' port; the time from sending the upload until an anonymous
  ``GET /tournaments/<id>`` on the public port answers 200 (asked every 5 ms). Then the
  same for a change of one (a committee move on the officials' port, until the public
  port's anonymous ``results.json`` shows it). Baseline: the same upload and read, both on
  the public port (one process; the read right after the answer). Target p99 <= 1 s.
* A result reaches the page's viewers: ``--viewers`` streams of one tournament's page
  (``/tournaments/<id>/stream``) on the public port, in ``--procs`` processes of their own
  (plain asyncio sockets, as ``benchmarks/live.py`` does); ``--results`` goals and forfeits
  posted on the officials' port to the pool's live matches, one every ``--gap-ms``; for
  each, the time from sending the POST until each viewer has the ``standings`` message it
  caused (the version the harness's own viewer sees next). Baseline: the round trip of a
  trivial request (``GET /api/time``) to the public port after each result, as
  ``benchmarks/live.py``. Target p99 <= 200 ms.
* A 64-team upload: 16 pools of 4 (96 matches on 4 arenas, a live match made for each in
  the upload's transaction) and a knock-out of 32 (31 matches), built here, written as
  TOML and passed through ``chukker tournament check`` first; uploaded ``--big`` times
  (new names). Baselines: the four-team upload of the same run, and parsing and checking
  the same file in this process (what the server does before it writes). Target <= 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import multiprocessing
import os
import re
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
sys.path.insert(0, str(ROOT))

from chukker.tournament.check import check  # noqa: E402
from chukker.tournament.model import dumps, from_dict, loads  # noqa: E402
from chukker.tournament.schedule import bracket, plan_round_robins  # noqa: E402
from live import free_port, pct  # noqa: E402

READ_TARGET_S = 1.0
FANOUT_TARGET_MS = 200.0
BIG_TARGET_S = 1.0
ORGANISER = "organiser-bench-" + "t" * 20
_VERSION = re.compile(rb'event: standings\ndata: \{"version": (\d+)')


# ------------------------------------------------------------------ the tournaments
def four_team(name: str) -> str:
    """The tests' four-team tournament (a pool and a final) under another name."""
    from tests.tournament.web_helpers import four_team_toml

    return four_team_toml().replace('name = "Four Cup"', f'name = "{name}"')


def sixty_four(name: str = "Sixty-Four Cup") -> str:
    """64 teams: 16 round-robin pools of 4 on 4 arenas, then a knock-out of the first two
    of each pool (32 entrants)."""
    players, teams = [], []
    for i in range(64):
        ids = [f"p{i}-{k}" for k in (1, 2, 3)]
        teams.append({"id": f"t{i}", "name": f"Team {i}", "players": ids, "captain": ids[0]})
        for k, pid in enumerate(ids):
            players.append({"id": pid, "name": f"P{i}.{k}", "registered": [2026],
                            "handicaps": [{"from": dt.date(2026, 1, 1), "value": (i + k) % 3}]})
    pools = [f"pool-{chr(97 + p)}" for p in range(16)]
    t = from_dict({
        "format": "chukker-tournament/1", "name": name, "venue": "Bench Park",
        "match_options": {"tiebreak": "shootout"}, "players": players, "teams": teams,
        "stages": [{"id": pool, "kind": "round-robin",
                    "teams": [f"t{4 * p + j}" for j in range(4)]}
                   for p, pool in enumerate(pools)],
    })
    arenas = [f"Arena {k}" for k in range(1, 5)]
    for m in plan_round_robins(t, dt.datetime(2026, 12, 5, 9), arenas):
        t.matches[m.id] = m
    stage, ms = bracket("ko", pools, 2, dt.datetime(2026, 12, 9, 9), arenas, 65)
    t.stages[stage.id] = stage
    for m in ms:
        t.matches[m.id] = m
    return dumps(t)


# ------------------------------------------------------------------ the viewers
class _Viewer(asyncio.Protocol):
    """One stream of the tournament's page: the arrival of each version it is sent."""

    def __init__(self, path: str, closed: asyncio.Future[None], ready: asyncio.Event) -> None:
        self.path, self.closed, self.ready = path, closed, ready
        self.buf = b""
        self.arrivals: dict[int, float] = {}

    def connection_made(self, transport: Any) -> None:
        transport.write(f"GET {self.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        "Accept: text/event-stream\r\n\r\n".encode())

    def data_received(self, data: bytes) -> None:
        now = time.time() * 1000
        buf = self.buf + data
        for m in _VERSION.finditer(buf):
            self.arrivals.setdefault(int(m.group(1)), now)
            self.ready.set()
        self.buf = buf[-200:]  # a message's head cut in two is whole next time

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


def _same(v: _Viewer) -> Any:
    return lambda: v


async def _viewers(port: int, path: str, n: int) -> list[_Viewer]:
    loop = asyncio.get_running_loop()
    out: list[_Viewer] = []
    for i in range(0, n, 100):
        batch = []
        for _ in range(min(100, n - i)):
            ready = asyncio.Event()
            v = _Viewer(path, loop.create_future(), ready)
            await loop.create_connection(_same(v), "127.0.0.1", port)
            batch.append(v)
        await asyncio.wait_for(asyncio.gather(*(v.ready.wait() for v in batch)), 120)
        out.extend(batch)
    return out


def viewer_process(port: int, path: str, n: int, ready: Any, stop: Any, out: Any) -> None:
    """``n`` viewers in a process of their own; hands back their arrivals."""

    async def run() -> None:
        vs = await _viewers(port, path, n)
        ready.put(len(vs))
        while not stop.is_set():
            await asyncio.sleep(0.05)
        out.put([v.arrivals for v in vs])

    try:
        import uvloop

        uvloop.run(run())
    except ImportError:
        asyncio.run(run())


# ------------------------------------------------------------------ the server
async def _until_up(base: str, worker_count: int) -> None:
    seen: set[int] = set()
    for _ in range(2400):
        try:
            async with httpx.AsyncClient(base_url=base, timeout=5) as probe:
                r = await probe.get("/readyz")
                if r.status_code == 200:
                    seen.add(int(r.json().get("worker", {}).get("index", 0)))
                    if len(seen) >= worker_count:
                        return
        except httpx.TransportError:
            pass
        await asyncio.sleep(0.05)
    raise SystemExit(f"{base} did not come up")


async def _upload(c: httpx.AsyncClient, text: str) -> dict[str, Any]:
    r = await c.post("/tournaments/api", json={"text": text},
                     headers={"authorization": "Bearer " + ORGANISER})
    if r.status_code not in (200, 201):
        raise SystemExit(f"upload refused: {r.status_code} {r.text[:500]}")
    body: dict[str, Any] = r.json()
    return body


async def _poll(c: httpx.AsyncClient, path: str, ok: Any, limit_s: float = 30.0) -> None:
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        r = await c.get(path)
        if r.status_code == 200 and ok(r):
            return
        await asyncio.sleep(0.005)
    raise SystemExit(f"{path}: not seen within {limit_s} s")


async def reads(off: httpx.AsyncClient, pub: httpx.AsyncClient, n: int, run: int
                ) -> dict[str, list[float]]:
    """Upload on the officials' port, read on the public port; a move, the same; the
    baseline both on the public port."""
    out: dict[str, list[float]] = {"upload": [], "move": [], "same_port": []}
    for k in range(n):
        t0 = time.perf_counter()
        up = await _upload(off, four_team(f"Read Cup {run}-{k}"))
        tid = up["tournament_id"]
        await _poll(pub, f"/tournaments/{tid}", lambda r: True)
        out["upload"].append(time.perf_counter() - t0)
        when = f"2026-12-05T16:{k % 60:02d}"
        t0 = time.perf_counter()
        r = await off.post(f"/tournaments/{tid}/api/matches/m2", json={"start": when},
                           headers={"authorization": "Bearer " + up["committee_token"]})
        r.raise_for_status()
        await _poll(pub, f"/tournaments/{tid}/results.json",
                    lambda r, when=when: any(m["id"] == "m2" and m["start"] == when + ":00"
                                             for m in r.json()["matches"]))
        out["move"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        up = await _upload(pub, four_team(f"Same Cup {run}-{k}"))
        await _poll(pub, f"/tournaments/{up['tournament_id']}", lambda r: True)
        out["same_port"].append(time.perf_counter() - t0)
    return out


async def fanout(a: argparse.Namespace, port: int, off: httpx.AsyncClient,
                 pub: httpx.AsyncClient) -> dict[str, Any]:
    up = await _upload(off, four_team("Viewers Cup"))
    tid, tokens = up["tournament_id"], {k: v["token"] for k, v in up["arenas"].items()}
    doc = (await pub.get(f"/tournaments/{tid}/results.json")).json()
    arena = {m["id"]: m["arena"] for m in doc["matches"]}
    path = f"/tournaments/{tid}/stream"
    ctx = multiprocessing.get_context("spawn")
    ready, stop, out = ctx.Queue(), ctx.Event(), ctx.Queue()
    procs = []
    for k in range(a.procs):
        share = a.viewers // a.procs + (1 if k < a.viewers % a.procs else 0)
        p = ctx.Process(target=viewer_process, args=(port, path, share, ready, stop, out))
        p.start()
        procs.append(p)
    for _ in procs:
        await asyncio.to_thread(ready.get, True, a.timeout)
    own = (await _viewers(port, path, 1))[0]  # which version each result made
    sent: dict[int, float] = {}
    rtt: list[float] = []
    lives = [(mid, up["matches"][mid]) for mid in sorted(up["matches"])]
    started: set[str] = set()
    for i in range(a.results):
        mid, live = lives[i % len(lives)]
        auth = {"authorization": "Bearer " + tokens[arena[mid]]}
        if live not in started:  # its bowl-in first (a state change too, not measured)
            before = max(own.arrivals)
            (await off.post(f"/api/matches/{live}/events", headers=auth, json={
                "command_id": f"b{i}", "event": {"type": "bowl_in"}})).raise_for_status()
            started.add(live)
            await _until(lambda before=before: max(own.arrivals) > before, a.timeout)
            await asyncio.sleep(a.gap_ms / 1000)
        last = i >= a.results - len(lives)  # the last round: each match's forfeit
        ev = {"type": "forfeit", "team": "B"} if last else {"type": "goal", "team": "AB"[i % 2]}
        before = max(own.arrivals)
        t0 = time.time() * 1000
        (await off.post(f"/api/matches/{live}/events", headers=auth, json={
            "command_id": f"r{i}", "event": ev})).raise_for_status()
        await _until(lambda before=before: max(own.arrivals) > before, a.timeout)
        sent[min(v for v in own.arrivals if v > before)] = t0
        await asyncio.sleep(a.gap_ms / 2000)
        t1 = time.perf_counter()
        (await pub.get("/api/time")).raise_for_status()
        rtt.append((time.perf_counter() - t1) * 1000)
        await asyncio.sleep(a.gap_ms / 2000)
    await asyncio.sleep(1.0)
    stop.set()
    arrivals: list[dict[int, float]] = []
    for _ in procs:
        arrivals.extend(await asyncio.to_thread(out.get, True, a.timeout))
    for p in procs:
        p.join(30)
    each, last_viewer, missing = [], [], 0
    for version, t0 in sent.items():
        got = [v[version] - t0 for v in arrivals if version in v]
        missing += len(arrivals) - len(got)
        each.extend(got)
        if got:
            last_viewer.append(max(got))
    return {"viewers": len(arrivals), "results": len(sent), "missing": missing,
            "each_p50_ms": round(pct(each, 50), 1), "each_p99_ms": round(pct(each, 99), 1),
            "last_p50_ms": round(pct(last_viewer, 50), 1),
            "last_p99_ms": round(pct(last_viewer, 99), 1),
            "rtt_p99_ms": round(pct(rtt, 99), 1)}


async def _until(cond: Any, limit_s: float) -> None:
    end = time.monotonic() + limit_s
    while not cond():
        if time.monotonic() > end:
            raise SystemExit("the tournament's stream said nothing of a result")
        await asyncio.sleep(0.002)


async def big(off: httpx.AsyncClient, text: str, n: int) -> dict[str, Any]:
    small, large = [], []
    for k in range(n):
        t0 = time.perf_counter()
        await _upload(off, four_team(f"Small Cup {k}"))
        small.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        up = await _upload(off, text.replace("Sixty-Four Cup", f"Sixty-Four Cup {k}"))
        large.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    t = loads(text)
    problems = [p for p in check(t, {}) if p.code != "pair_missing"]
    parse_check = time.perf_counter() - t0
    return {"big_bytes": len(text.encode()), "big_live_matches": len(up["matches"]),
            "big_problems": len(problems),
            "big_upload_max_s": round(max(large), 3),
            "big_upload_p50_s": round(pct(large, 50), 3),
            "small_upload_p50_s": round(pct(small, 50), 3),
            "parse_check_s": round(parse_check, 3)}


async def bench(a: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="chukker-tournaments-"))
    text = sixty_four()
    big_file = tmp / "sixty-four.toml"
    big_file.write_text(text)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    checked = subprocess.run([sys.executable, "-m", "chukker.cli", "tournament", "check",
                              str(big_file)], env=env, capture_output=True, text=True,
                             timeout=120, check=False)
    out: dict[str, Any] = {"viewers": a.viewers, "public_workers": a.public_workers,
                           "check_exit": checked.returncode,
                           "check_says": (checked.stdout + checked.stderr).strip()[-300:]}
    env["CHUKKER_ORGANISER_TOKEN"] = ORGANISER
    env["CHUKKER_TOURNAMENTS_DIR"] = str(tmp / "none")
    env["CHUKKER_MAX_STREAMS_PER_ADDRESS"] = str(a.viewers + 100)
    env["CHUKKER_MAX_STREAMS"] = str(2 * a.viewers + 100)
    env["CHUKKER_LIMITS_VISITOR_RATE"] = "100000"  # the harness polls from one address
    port, officials = free_port(), free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "chukker.cli", "serve", "--db", str(tmp / "t.sqlite3"),
         "--port", str(port), "--officials-port", str(officials), "--no-demo",
         "--public-workers", str(a.public_workers)], cwd=tmp, env=env,
        stdout=subprocess.DEVNULL, stderr=None if a.verbose else subprocess.DEVNULL)
    try:
        pub_base, off_base = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{officials}"
        await _until_up(off_base, 1)
        await _until_up(pub_base, a.public_workers)
        async with httpx.AsyncClient(base_url=off_base, timeout=30) as off, \
                httpx.AsyncClient(base_url=pub_base, timeout=30) as pub:
            out |= await big(off, text, a.big)
            lat = await reads(off, pub, a.reads, 0)
            for k, v in lat.items():
                out[f"read_{k}_p50_ms"] = round(pct(v, 50) * 1000, 1)
                out[f"read_{k}_p99_ms"] = round(pct(v, 99) * 1000, 1)
            out["fanout"] = await fanout(a, port, off, pub)
    finally:
        server.terminate()
        server.wait(30)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--viewers", type=int, default=1000)
    p.add_argument("--reads", type=int, default=30)
    p.add_argument("--results", type=int, default=20)
    p.add_argument("--big", type=int, default=3)
    p.add_argument("--gap-ms", type=int, default=300)
    p.add_argument("--public-workers", type=int, default=1)
    p.add_argument("--procs", type=int, default=2)
    p.add_argument("--timeout", type=float, default=120.0)
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args()
    for n, lo, hi in ((a.viewers, 1, 10_000), (a.reads, 1, 500), (a.results, 6, 200),
                      (a.big, 1, 20), (a.public_workers, 1, 8), (a.procs, 1, 8)):
        if not lo <= n <= hi:
            p.error(f"{n} is out of range {lo}..{hi}")
    out = asyncio.run(bench(a))
    print(json.dumps(out, indent=1))
    f = out["fanout"]
    print(f"upload on the officials' port, read on the public port: p99 "
          f"{out['read_upload_p99_ms']} ms ({out['read_upload_p99_ms'] / 1000 / READ_TARGET_S:.2f}"
          f"x the 1 s target; {out['read_upload_p99_ms'] / out['read_same_port_p99_ms']:.2f}x "
          f"both on the public port, {out['read_same_port_p99_ms']} ms); a move: p99 "
          f"{out['read_move_p99_ms']} ms ({out['read_move_p99_ms'] / 1000:.2f}x the target)")
    print(f"a result to {f['viewers']} viewers of the page: p99 {f['each_p99_ms']} ms, the last "
          f"viewer p99 {f['last_p99_ms']} ms ({f['last_p99_ms'] / FANOUT_TARGET_MS:.2f}x the "
          f"200 ms target; {f['last_p99_ms'] / f['rtt_p99_ms']:.1f}x a trivial round trip, "
          f"{f['rtt_p99_ms']} ms); {f['missing']} missing")
    print(f"64-team upload ({out['big_bytes']} bytes, {out['big_live_matches']} live matches, "
          f"check exit {out['check_exit']}): max {out['big_upload_max_s']} s "
          f"({out['big_upload_max_s'] / BIG_TARGET_S:.2f}x the 1 s target; "
          f"{out['big_upload_p50_s'] / out['small_upload_p50_s']:.1f}x a four-team upload, "
          f"{out['big_upload_p50_s'] / out['parse_check_s']:.1f}x parsing and checking it here)")


if __name__ == "__main__":
    main()
