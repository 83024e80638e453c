"""Edges on NATS JetStream against one process: missing deliveries and operator-to-last-viewer.

    python benchmarks/edges.py [--viewers 3000] [--edges 3] [--events 40] [--gap-ms 200]

Everything on 127.0.0.1, bounded (``--timeout``), stopping by itself. Starts its own
``nats-server -js`` (a temporary store), one ``chukker serve --public-workers 0``
publishing to it (the officials and the crowd in one process, as before the two planes),
every port reserved together, and in the same run:

1. **baseline**: ``--viewers`` Server-Sent-Events viewers of one match on that one
   process (one process serving the crowd, as without edges);
2. **edges**: ``--edges`` ``chukker edge`` processes, each with ``--viewers`` viewers of
   another match, fed by JetStream alone.

In each phase the timekeeper posts ``--events`` goals, one every ``--gap-ms``; for each
goal the time from sending the POST to its arrival at the *last* viewer (of all
viewers of the phase) is taken. Prints the p50/p99 of each phase, the ratio of the
edges' p99 to the baseline's (target <= 1.5x), and the missing deliveries (each viewer
must receive every goal: target 0). The viewers are ``benchmarks/live.py``'s (plain
asyncio sockets, in processes of their own at ``--client-nice``).

Everything shares this machine's cores (officials, NATS, the edges, the viewers): on
one machine the edges cannot beat one process by spreading the work; what this shows
is that NATS's hop costs little and nothing is lost. ``--same-total`` gives the baseline
process as many viewers as all the edges together (the same fan-out work on the same
cores). ``docs/scale.md`` has the runs.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchports import pick_ports  # noqa: E402

from chukker.web.demo import DEMO_HEADER  # noqa: E402
from live import client_process, cpu_s, pct  # noqa: E402

ORGANISER = "bench-organiser-token-0123456789"
TARGET_RATIO = 1.5


def nats_server(tmp: Path, port: int) -> tuple[subprocess.Popen[bytes], str]:
    binary = shutil.which("nats-server") or "/usr/sbin/nats-server"
    p = subprocess.Popen([binary, "-a", "127.0.0.1", "-p", str(port), "-js", "-sd",
                          str(tmp / "nats")], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    return p, f"nats://127.0.0.1:{port}"


def env_for(url: str, viewers: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    env.update(PYTHONPATH=str(ROOT / "src"), CHUKKER_NATS_URL=url,
               CHUKKER_NATS_OFFICIALS_URL="http://127.0.0.1", CHUKKER_ORGANISER_TOKEN=ORGANISER,
               CHUKKER_LIMITS_MAX_STREAMS_PER_ADDRESS=str(viewers + 100),
               CHUKKER_LIMITS_MAX_STREAMS=str(2 * viewers + 100), CHUKKER_LOG_LEVEL="warning")
    return env


def distinct_ports(n: int) -> list[int]:
    """``n`` distinct free ports outside the machine's range for outgoing connections, each
    checked by binding it (:func:`benchports.pick_ports`): the viewers' thousands of
    sockets cannot take one first."""
    return pick_ports(n)


async def wait_ready(base: str, timeout: float,
                     proc: subprocess.Popen[bytes] | None = None) -> None:
    end = time.monotonic() + timeout
    async with httpx.AsyncClient(base_url=base, timeout=5) as c:
        while time.monotonic() < end:
            if proc is not None and proc.poll() is not None:
                raise RuntimeError(f"{base}: {proc.args!r} ended with "
                                   f"{proc.returncode} before it was ready")
            try:
                if (await c.get("/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
    raise TimeoutError(f"{base} did not start")


async def phase(http: httpx.AsyncClient, ports: list[int], viewers: int, args: Any,
                ctx: Any, pids: list[int]) -> dict[str, Any]:
    """One match, ``viewers`` viewers on each of ``ports``; the goals; the figures."""
    created = (await http.post("/api/matches", json=copy.deepcopy(DEMO_HEADER),
                               headers={"authorization": "Bearer " + ORGANISER})).json()
    mid, auth = created["match_id"], {"authorization": "Bearer " + created["timekeeper_token"]}
    (await http.post(f"/api/matches/{mid}/events", headers=auth,
                     json={"command_id": "start", "event": {"type": "bowl_in"}})
     ).raise_for_status()
    for port in ports:  # the match has reached each edge
        end = time.monotonic() + args.timeout
        async with httpx.AsyncClient(timeout=5) as c:
            while (await c.get(f"http://127.0.0.1:{port}/api/matches/{mid}")).status_code != 200:
                if time.monotonic() > end:
                    raise TimeoutError(f"match {mid} never reached port {port}")
                await asyncio.sleep(0.1)
    ready_q, stop_ev, out_q = ctx.Queue(), ctx.Event(), ctx.Queue()
    procs = []
    per = max(1, args.procs_per_port)
    for port in ports:
        for k in range(per):
            share = viewers // per + (1 if k < viewers % per else 0)
            p = ctx.Process(target=client_process,
                            args=(port, mid, share, ready_q, stop_ev, out_q, args.client_nice))
            p.start()
            procs.append(p)
    try:
        for _ in procs:
            await asyncio.to_thread(ready_q.get, True, args.timeout)
        sent: dict[str, float] = {}
        cpu0 = [cpu_s(p) for p in pids]
        for i in range(args.events):
            t0 = time.time() * 1000
            r = await http.post(f"/api/matches/{mid}/events", headers=auth, json={
                "command_id": f"g{i}",
                "event": {"type": "goal", "team": "AB"[i % 2], "player": 1 + i % 3}})
            r.raise_for_status()
            sent[str(r.json()["seq"])] = t0
            await asyncio.sleep(args.gap_ms / 1000)
        await asyncio.sleep(args.settle_s)
        cpu = [cpu_s(p) - c for p, c in zip(pids, cpu0, strict=True)]
        stop_ev.set()
        arrivals: list[dict[str, float]] = []
        for _ in procs:
            arrivals.extend(await asyncio.to_thread(out_q.get, True, args.timeout))
    finally:
        stop_ev.set()
        for p in procs:
            p.join(10)
            if p.is_alive():
                p.kill()
    missing = sum(1 for a in arrivals for s in sent if s not in a)
    last = [max(a[s] for a in arrivals if s in a) - t0 for s, t0 in sent.items()
            if any(s in a for a in arrivals)]
    # CPU per viewer per message of each serving process (an upper bound: the idle
    # keep-alives and, on the officials' process, the POSTs are in it)
    per_msg = [c / (args.events * viewers) * 1e6 for c in cpu]
    return {"viewers": len(arrivals), "missing": missing, "p50": pct(last, 50),
            "p99": pct(last, 99), "cpu_us": per_msg, "cpu_s": cpu}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="chukker-edges-"))
    procs: list[subprocess.Popen[bytes]] = []
    try:
        nats_port, off_port, *edge_ports = distinct_ports(2 + args.edges)
        nats, url = nats_server(tmp, nats_port)
        procs.append(nats)
        env = env_for(url, args.viewers * (args.edges if args.same_total else 1))
        # the baseline is one process serving the officials and the crowd on one port
        # (--public-workers 0, as before the two planes); it publishes to JetStream too
        officials = subprocess.Popen(
            [sys.executable, "-m", "chukker.cli", "serve", "--port", str(off_port),
             "--public-workers", "0", "--db", str(tmp / "officials.sqlite3")], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(officials)
        edge_procs = []
        for i, port in enumerate(edge_ports):
            edge_procs.append(subprocess.Popen(
                [sys.executable, "-m", "chukker.cli", "edge", "--port", str(port),
                 "--replica", str(tmp / f"edge{i}.sqlite3")], env=env,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        procs.extend(edge_procs)
        base = f"http://127.0.0.1:{off_port}"
        for port, proc in zip([off_port, *edge_ports], [officials, *edge_procs], strict=True):
            await wait_ready(f"http://127.0.0.1:{port}", args.timeout, proc)
        ctx = multiprocessing.get_context("spawn")
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            base_viewers = args.viewers * (args.edges if args.same_total else 1)
            one = await phase(http, [off_port], base_viewers, args, ctx, [officials.pid])
            edges = await phase(http, edge_ports, args.viewers, args, ctx,
                                [officials.pid, nats.pid, *(p.pid for p in edge_procs)])
        return {"one": one, "edges": edges}
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--viewers", type=int, default=3000, help="viewers per process")
    ap.add_argument("--edges", type=int, default=3)
    ap.add_argument("--events", type=int, default=40)
    ap.add_argument("--gap-ms", type=float, default=200)
    ap.add_argument("--procs-per-port", type=int, default=1, help="viewer processes per port")
    ap.add_argument("--client-nice", type=int, default=5)
    ap.add_argument("--same-total", action="store_true",
                    help="the baseline process gets edges x viewers viewers (the same work "
                    "as the edges' phase: a fair comparison when everything shares one machine)")
    ap.add_argument("--settle-s", type=float, default=3.0)
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    t0 = time.time()
    load = os.getloadavg()[0]
    out = asyncio.run(asyncio.wait_for(run(args), args.timeout * 3))
    one, edges = out["one"], out["edges"]
    from chukker.engine import NATIVE

    print(f"engine: {'compiled' if NATIVE else 'pure'}; load average {load:.2f} at start; "
          f"{time.time() - t0:.0f} s in all")
    print(f"one process : {one['viewers']:>6} viewers  operator-to-last-viewer p50 "
          f"{one['p50']:7.1f} ms  p99 {one['p99']:7.1f} ms  missing {one['missing']}")
    print(f"{args.edges} edges     : {edges['viewers']:>6} viewers  operator-to-last-viewer p50 "
          f"{edges['p50']:7.1f} ms  p99 {edges['p99']:7.1f} ms  missing {edges['missing']}")
    print(f"CPU per viewer per message: one process {one['cpu_us'][0]:.1f} us; each edge "
          + ", ".join(f"{x:.1f}" for x in edges["cpu_us"][2:]) + " us")
    off_ms, nats_ms = (edges["cpu_s"][k] / args.events * 1000 for k in (0, 1))
    print(f"CPU per message during the edges' phase: officials {off_ms:.2f} ms, "
          f"nats-server {nats_ms:.2f} ms")
    ratio = edges["p99"] / one["p99"] if one["p99"] else float("nan")
    print(f"ratio edges/one p99: {ratio:.2f}x  (target <= {TARGET_RATIO}x); missing "
          f"deliveries: {one['missing'] + edges['missing']} (target 0)")


if __name__ == "__main__":
    main()
