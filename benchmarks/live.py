"""Live service benchmark: horn lateness and fan-out with 1,000 SSE clients on loopback.

    python benchmarks/live.py [--clients 1000] [--events 100] [--horns 40] [--workers N]
    python benchmarks/live.py --matrix        # 1,000 and 10,000 viewers, 1 and 2 workers
    python benchmarks/live.py --clients 10000 --procs 4 --public-workers 2   # issue 35
    python benchmarks/live.py --baseline 358a7f7 --events 40 --horns 0 --depth-posts 0
    python benchmarks/live.py --revision 358a7f7 --profile /tmp/prof     # issue 43

``--baseline REV`` (issue 43) runs this tree (``--public-workers 1`` unless given) and
revision ``REV`` (``git archive REV src``, in a temporary folder: pure Python engine
on both sides unless this tree was built; each run says which) interleaved, A B B A,
``--rounds`` times at each of ``--sizes`` (1,000 and 3,000 viewers), and prints the
medians and the ratios: CPU per viewer per message summed over every server process,
operator to last viewer, RSS per 1,000 idle viewers. ``--revision REV`` runs REV alone;
``--profile DIR`` records every server process with py-spy over the goals and prints
its CPU per event split into reading, folding, framing and writing
(``benchmarks/profile_split.py``). Ports come from outside the machine's range for
outgoing connections, each checked by binding it (``benchmarks/benchports.py``); the
temporary folders go at the end.

``--workers N`` starts ``chukker serve --workers N`` (N processes behind the one
port); ``--matrix`` runs the benchmark for 1,000 and 10,000 viewers with 1 and 2
workers in one run and prints each figure with the ratio of 2 workers to 1.

Starts ``chukker serve`` (``python -m chukker.web``) on 127.0.0.1 with a fresh
SQLite file in a temporary folder, then in this process opens ``--clients``
Server-Sent Events connections to one match (plus five to each horn match),
with plain asyncio sockets so that the client side costs little.

* Fan-out: posts ``--events`` goals to that match, one every ``--gap-ms`` (200); for each
  it takes the time from sending the POST (so including the durable commit)
  until the event has arrived at every client, and at each client.
* Horns: the horn matches are stored before the server starts with their
  first period started long ago (the event store's own records, back-dated),
  so that their 30-second warning horns fall due one every 250 ms while the
  clients are connected. Lateness = when the server published the horn minus
  its deadline (the server's own audit, ``/api/matches/{id}/horns``), and when
  the clients received it minus the deadline.

Baselines measured in the same run, on the same loaded machine: for horns,
the lateness of a bare asyncio timer in this (client) process firing at the
same cadence; for fan-out, the round trip of a trivial request
(``GET /api/time``) to the same server, sent after each goal.

* CPU: the server's CPU time (``/proc/<pid>/stat``, every process of it: supervisor,
  officials, public workers) over the posting loop, divided by events x fan-out viewers:
  CPU per viewer per message (an upper bound: the POSTs and round trips themselves are
  in it), and each process's user and system time; the same for the viewers idling
  (``--idle-s``) before the goals.
* Memory: the server's RSS (every process) before the viewers connect and with them
  idle: what 1,000 idle viewers cost. ``--matrix`` also prints the marginal
  figure, what one more viewer costs: the slope of CPU per message from the smallest
  to the largest number of viewers, from which the POSTs and round trips (the same
  for both) fall out.
* POST at depth: two matches stored before the server starts, one with 100 events
  and one with 10,000 (the clock started 150 s ago), five viewers each; POSTs
  alternate between them; the ratio of the p50 at event 10,000 to the p50 at event
  100 (same run, same load).

Prints p50/p99 of each, the ratio to its baseline and to the targets (horn p99
20 ms, fan-out p99 250 ms). Bounded: gives up after ``--timeout`` seconds.
Server and clients share this machine's cores, so the figures are an upper
bound for a laptop serving remote screens.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
#: the sources the matches are prepared with (``--prepare`` runs with the server's own)
sys.path.insert(0, os.environ.get("CHUKKER_BENCH_SRC") or str(ROOT / "src"))

from benchports import compiled, descendants, pick_ports, revision_tree, stop  # noqa: E402

from chukker.live import Clock, hash_token  # noqa: E402
from chukker.store import StoredEvent, open_store  # noqa: E402
from chukker.web.demo import DEMO_HEADER  # noqa: E402

HORN_TARGET_MS = 20.0
FANOUT_TARGET_MS = 250.0
_DEADLINE = re.compile(rb'"deadline":(\d+)')
_MESSAGE = re.compile(rb"id: (\d+)\nevent: (\w+)\ndata: ([^\n]*)\n\n")


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))
    return s[k]


def free_port() -> int:
    """A port outside the machine's range for outgoing connections, free now (bound to check
    it): the thousands of viewers' sockets cannot take it first (:mod:`benchports`)."""
    return pick_ports(1)[0]


def server_command(src: Path) -> tuple[list[str], bool]:
    """How the server of the sources ``src`` starts, and whether it has two planes (issue
    35: ``--officials-port``); a revision before them serves both on one port."""
    cli = (src / "chukker" / "web" / "cli.py").read_text(encoding="utf-8")
    return [sys.executable, "-m", "chukker.web"], "--officials-port" in cli


class Client:
    """One SSE connection; records (event kind, id, arrival wall ms, deadline)."""

    def __init__(self, port: int, match_id: str) -> None:
        self.port, self.match_id = port, match_id
        self.arrivals: dict[str, float] = {}
        self.horns: list[tuple[int, float]] = []
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        """Connect and read until the server closes: a protocol's callback per read, no
        task woken per message (the harness shares the server's cores: it must cost
        little)."""
        loop = asyncio.get_running_loop()
        closed: asyncio.Future[None] = loop.create_future()
        transport, _ = await loop.create_connection(
            lambda: _Reader(self, closed), "127.0.0.1", self.port)
        try:
            await closed
        finally:
            transport.close()


class _Reader(asyncio.Protocol):
    """The SSE stream of one :class:`Client`, parsed as it arrives."""

    def __init__(self, client: Client, closed: asyncio.Future[None]) -> None:
        self.client, self.closed, self.buf = client, closed, b""

    def connection_made(self, transport: Any) -> None:
        transport.write(
            f"GET /api/matches/{self.client.match_id}/stream HTTP/1.1\r\n"
            f"Host: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode()
        )

    def data_received(self, data: bytes) -> None:
        now = time.time() * 1000
        buf = self.buf + data if self.buf else data
        c = self.client
        last = 0
        for m in _MESSAGE.finditer(buf):
            last = m.end()
            kind = m.group(2)
            if kind == b"event":
                c.arrivals.setdefault(m.group(1).decode(), now)
            elif kind == b"state":
                c.ready.set()
            elif kind == b"horn":
                d = _DEADLINE.search(m.group(3))
                if d:
                    c.horns.append((int(d.group(1)), now))
        self.buf = buf[last:]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


def client_process(port: int, match_id: str, n: int, ready: Any, stop: Any, out: Any,
                   nice: int = 0) -> None:
    """``n`` fan-out clients in a process of their own; hands back their arrivals.

    ``nice`` lowers the process's priority: the viewers' phones do not share the
    server's cores, here they take only what the server leaves (``--client-nice``)."""
    if nice:
        os.nice(nice)

    async def run() -> None:
        clients: list[Client] = []
        for i in range(0, n, 100):
            batch = [Client(port, match_id) for _ in range(min(100, n - i))]
            for c in batch:
                c.task = asyncio.create_task(c.run())
            await asyncio.wait_for(asyncio.gather(*(c.ready.wait() for c in batch)), 120)
            clients.extend(batch)
        ready.put(len(clients))
        while not stop.is_set():
            await asyncio.sleep(0.05)
        out.put([c.arrivals for c in clients])
        for c in clients:
            if c.task:
                c.task.cancel()

    try:  # the clients' own loop: uvloop where installed (it is with uvicorn[standard])
        import uvloop

        uvloop.run(run())
    except ImportError:
        asyncio.run(run())


def depth_events(n: int) -> list[dict[str, Any]]:
    """``n`` events of one period: the ball in and out, a goal every 50 (the report's
    goal list grows as in a long match)."""
    ev: list[dict[str, Any]] = [{"type": "bowl_in", "at": 0.0}]
    k = 1
    while len(ev) < n:
        at = k * 0.01
        if k % 50 == 1:
            ev.append({"type": "goal", "team": "AB"[k % 4 // 2], "player": 1 + k % 3, "at": at})
        else:
            ev.append({"type": "whistle" if k % 2 else "bowl_in", "at": at})
        k += 1
    if ev[-1]["type"] != "bowl_in":
        ev.append({"type": "bowl_in", "at": k * 0.01})
    return ev


def prepare_depth_matches(db: Path) -> dict[int, str]:
    """A match at event 100 and one at event 10,000, both with the clock running."""
    store = open_store(db)
    start = Clock().now_ms() - 150_000
    ids = {}
    for n in (100, 10_000):
        mid = f"depth{n}"
        store.create_match(mid, DEMO_HEADER, start, hash_token("tk"), hash_token("cm"))
        for i, e in enumerate(depth_events(n)):
            store.append(mid, StoredEvent(i + 1, f"d{i}", e, start, "timekeeper"), start)
        ids[n] = mid
    store.close()
    return ids


def scrape(text: str) -> dict[str, float]:
    """``name{labels}`` -> value of a Prometheus text page (the GC and loop-lag series)."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith(("chukker_gc_pause_seconds", "chukker_loop_lag_seconds",
                            "chukker_fanout_seconds")):
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def stalls(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """Collections (by generation) and loop ticks later than 20 ms between two scrapes."""
    d = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}
    gc_n = {g: d.get(f'chukker_gc_pause_seconds_count{{generation="{g}"}}', 0) for g in "012"}
    gc_s = {g: d.get(f'chukker_gc_pause_seconds_sum{{generation="{g}"}}', 0) for g in "012"}
    ticks = d.get("chukker_loop_lag_seconds_count", 0)
    ok = d.get('chukker_loop_lag_seconds_bucket{le="0.02"}', 0)
    n = d.get("chukker_fanout_seconds_count", 0)
    buckets = sorted((float(k.split('le="')[1].split('"')[0]), v) for k, v in d.items()
                     if k.startswith("chukker_fanout_seconds_bucket") and "+Inf" not in k)
    p99 = next((le for le, v in buckets if n and v >= 0.99 * n), float("inf"))
    return {"gc_count": gc_n, "gc_ms": {g: s * 1000 for g, s in gc_s.items()},
            "loop_ticks": ticks, "loop_ticks_late_20ms": ticks - ok,
            "server_fanouts": n,
            "server_fanout_mean_ms": d.get("chukker_fanout_seconds_sum", 0) * 1000 / max(n, 1),
            "server_fanout_p99_le_ms": p99 * 1000}


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


#: the scraper's token of the benchmark's server (setting metrics_token)
METRICS_TOKEN = "bench-metrics-token-000000"
METRICS_AUTH = {"authorization": "Bearer " + METRICS_TOKEN}


def server_pids(pid: int) -> list[int]:
    """``pid`` and its descendants (the workers of ``serve --workers``)."""
    return descendants(pid)


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` and its workers so far."""
    total = 0
    for p in server_pids(pid):
        try:
            fields = _stat(p)
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def prepare_horn_matches(db: Path, n: int, first_in_ms: int, every_ms: int) -> list[str]:
    """Matches whose warning horn (30 s before the end of period 1) falls due soon."""
    store = open_store(db)
    header = copy.deepcopy(DEMO_HEADER)
    header["options"]["warning_horn"] = True
    now = Clock().now_ms()
    ids = []
    for k in range(n):
        due = now + first_in_ms + k * every_ms  # wall ms of the warning horn
        start = due - 420_000
        mid = f"horn{k:03d}"
        store.create_match(mid, header, start, hash_token("x"), hash_token("y"))
        store.append(
            mid, StoredEvent(1, "b", {"type": "bowl_in", "at": 0.0}, start, "timekeeper"), start
        )
        ids.append(mid)
    store.close()
    return ids


def prepare(db: Path, src: Path, horns: int, horn_lead_ms: int, depth: bool
            ) -> tuple[list[str], dict[int, str]]:
    """The horn and depth matches, stored by the sources ``src`` (the server's own: another
    revision may store them differently), in a process of their own."""
    env = {**os.environ, "CHUKKER_BENCH_SRC": str(src), "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--prepare", str(db), "--horns",
         str(horns), "--horn-lead-ms", str(horn_lead_ms), *([] if depth else ["--no-depth"])],
        env=env, check=True, capture_output=True, text=True).stdout
    got = json.loads(out.strip().splitlines()[-1])
    return got["horns"], {int(k): v for k, v in got["depth"].items()}


def _rss_mb(pid: int) -> float:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf(
            "SC_PAGE_SIZE") / 1e6
    except (OSError, IndexError, ValueError):
        return 0.0


def rss_mb(pid: int) -> float:
    """Resident memory of the server ``pid`` and its workers, summed (MB)."""
    return sum(_rss_mb(p) for p in server_pids(pid))


def role_of(pid: int, p: int, pids: list[int]) -> str:
    """``supervisor`` (the process started, when it has workers), ``tracker``
    (multiprocessing's resource tracker), ``public`` (niced), ``officials`` (the other
    worker) or ``server`` (one process serving both planes)."""
    if p == pid:
        return "supervisor" if len(pids) > 1 else "server"
    try:
        if b"resource_tracker" in Path(f"/proc/{p}/cmdline").read_bytes():
            return "tracker"
        return "public" if int(_stat(p)[16]) > 0 else "officials"
    except OSError:
        return "gone"


def cpu_by_process(pid: int) -> dict[str, tuple[float, float]]:
    """(user, system) CPU seconds so far of each of the server's processes, by
    :func:`role_of` (the figures are summed over every one of them)."""
    out: dict[str, tuple[float, float]] = {}
    pids = server_pids(pid)
    tck = os.sysconf("SC_CLK_TCK")
    for p in pids:
        try:
            f = _stat(p)
        except OSError:
            continue
        role = role_of(pid, p, pids)
        u, s = out.get(role, (0.0, 0.0))
        out[role] = (u + int(f[11]) / tck, s + int(f[12]) / tck)
    return out


def cpu_delta(a: dict[str, tuple[float, float]], b: dict[str, tuple[float, float]]
              ) -> dict[str, dict[str, float]]:
    return {k: {"user_s": round(v[0] - a.get(k, (0.0, 0.0))[0], 3),
                "sys_s": round(v[1] - a.get(k, (0.0, 0.0))[1], 3)} for k, v in b.items()}


def start_profiles(pid: int, args: argparse.Namespace) -> list[tuple[str, Any, Path]]:
    """With ``--profile DIR``: ``py-spy record`` of every server process but the supervisor,
    for the posting loop (``benchmarks/profile_split.py`` splits them)."""
    if not args.profile:
        return []
    folder = Path(args.profile)
    folder.mkdir(parents=True, exist_ok=True)
    seconds = max(1, round(args.events * args.gap_ms / 1000))
    pids = server_pids(pid)
    spies = []
    for p in pids:
        role = role_of(pid, p, pids)
        if role not in ("server", "public", "officials"):
            continue
        label = str(getattr(args, "label", "this tree")).replace(" ", "-")
        out = folder / f"{label}-{args.clients}-{role}-{p}.raw"
        spy = subprocess.Popen(
            [shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy"), "record",
             "-p", str(p), "-d", str(seconds), "-r", "200", "-f", "raw", "-o", str(out),
             "--threads", "--nonblocking"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        spies.append((role, spy, out))
    return spies


def end_profiles(spies: list[tuple[str, Any, Path]], by_process: dict[str, dict[str, float]],
                 events: int, viewers: int) -> dict[str, dict[str, float]]:
    """Each profiled process's CPU split (``profile_split``) in us per event."""
    from profile_split import split

    out: dict[str, dict[str, float]] = {}
    for role, spy, path in spies:
        spy.wait(60)
        if not path.exists():
            continue
        parts = split(str(path))
        busy = sum(v for k, v in parts.items() if k != "idle") or 1
        cpu = by_process.get(role, {})
        cpu_s = cpu.get("user_s", 0.0) + cpu.get("sys_s", 0.0)
        out[role] = {k: round(parts[k] / busy * cpu_s * 1e6 / max(1, events), 1)
                     for k in ("read", "fold", "frame", "writes", "request", "loop")}
        out[role]["cpu_us_per_event"] = round(cpu_s * 1e6 / max(1, events), 1)
        out[role]["sys_share"] = round(cpu.get("sys_s", 0.0) / max(cpu_s, 1e-9), 2)
    return out


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    src = Path(getattr(args, "src", None) or ROOT / "src")
    tmp = Path(tempfile.mkdtemp(prefix="chukker-bench-"))
    try:
        return await _bench(args, src, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


async def _bench(args: argparse.Namespace, src: Path, tmp: Path) -> dict[str, Any]:
    db = tmp / "bench.sqlite3"
    horn_ids, depth_ids = prepare(db, src, args.horns, args.horn_lead_ms, args.depth_posts > 0)
    command, has_planes = server_command(src)
    port, officials = pick_ports(2)
    env = {k: v for k, v in os.environ.items() if k != "CHUKKER_DATABASE_URL"}
    env["PYTHONPATH"] = str(src)
    env["CHUKKER_MAX_STREAMS_PER_ADDRESS"] = str(args.clients + 10 * args.horns + 100)
    env["CHUKKER_METRICS_TOKEN"] = METRICS_TOKEN  # /metrics answers only its scraper
    env["CHUKKER_MAX_STREAMS"] = str(2 * (args.clients + 10 * args.horns) + 100)
    # issue 35: with --public-workers N, the officials' process on a port of its own takes the
    # operator's POSTs and N public workers serve the viewers; --workers N is N processes
    # on one port as before (1: one process serving both planes). A revision before the
    # two planes (e.g. --baseline 358a7f7) is started as it was: --workers N
    planes = args.public_workers is not None and has_planes
    public = args.public_workers if planes else (0 if args.workers == 1 else args.workers)
    how = (["--public-workers", str(public), "--officials-port", str(officials)] if has_planes
           else ["--workers", str(args.workers)])
    server = subprocess.Popen(
        [*command, "--db", str(db), "--port", str(port), "--no-demo", "--open", *how],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{officials if planes else port}"
    viewers_base = f"http://127.0.0.1:{port}"
    clients: list[Client] = []
    procs: list[Any] = []
    try:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            seen: set[int] = set()
            for _ in range(1200):  # every worker ready (a fresh connection each time)
                try:
                    async with httpx.AsyncClient(base_url=viewers_base, timeout=5) as probe:
                        r = await probe.get("/readyz")
                        up = not planes or (await probe.get(base + "/readyz")).status_code == 200
                    if r.status_code == 200 and up:
                        seen.add(int(r.json().get("worker", {}).get("index", 0)))
                        if len(seen) >= max(1, public):
                            break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.05)
            rss_before = rss_mb(server.pid)
            created = (await http.post("/api/matches", json=DEMO_HEADER)).json()
            mid = created["match_id"]
            auth = {"authorization": "Bearer " + created["timekeeper_token"]}
            await http.post(
                f"/api/matches/{mid}/events",
                headers=auth,
                json={"command_id": "start", "event": {"type": "bowl_in"}},
            )
            ctx = multiprocessing.get_context("spawn")
            ready_q, stop_ev, out_q = ctx.Queue(), ctx.Event(), ctx.Queue()
            in_procs = args.clients if args.procs > 1 else 0
            t_connect = time.time()
            for k in range(args.procs if in_procs else 0):
                share = in_procs // args.procs + (1 if k < in_procs % args.procs else 0)
                p = ctx.Process(target=client_process,
                                args=(port, mid, share, ready_q, stop_ev, out_q,
                                      args.client_nice))
                p.start()
                procs.append(p)
            for _ in procs:
                await asyncio.to_thread(ready_q.get, True, args.timeout)
            connect_s = time.time() - t_connect
            targets = [mid] * (args.clients - in_procs) + [
                h for h in [*horn_ids, *depth_ids.values()] for _ in range(5)]
            for i in range(0, len(targets), 100):  # connect in batches
                batch = [Client(port, t) for t in targets[i : i + 100]]
                for c in batch:
                    c.task = asyncio.create_task(c.run())
                await asyncio.wait_for(asyncio.gather(*(c.ready.wait() for c in batch)), 60)
                clients.extend(batch)
            fan = [c for c in clients if c.match_id == mid]
            t_connected = time.time()
            # the viewers idle: what they hold (memory) and what they cost doing nothing
            await asyncio.sleep(1.0)
            rss_idle = rss_mb(server.pid)
            idle0, t_idle = cpu_by_process(server.pid), time.monotonic()
            await asyncio.sleep(args.idle_s)
            idle = cpu_delta(idle0, cpu_by_process(server.pid))
            idle_s = time.monotonic() - t_idle

            sent: dict[str, float] = {}
            rtt: list[float] = []
            cpu0 = cpu_s(server.pid)
            by0, t_post = cpu_by_process(server.pid), time.monotonic()
            spies = start_profiles(server.pid, args)
            m0 = scrape((await http.get("/metrics", headers=METRICS_AUTH)).text)
            for i in range(args.events):
                t0 = time.time() * 1000
                r = await http.post(
                    f"/api/matches/{mid}/events",
                    headers=auth,
                    json={
                        "command_id": f"g{i}",
                        "event": {"type": "goal", "team": "AB"[i % 2], "player": 1 + i % 3},
                    },
                )
                r.raise_for_status()
                sent[str(r.json()["seq"])] = t0
                await asyncio.sleep(args.gap_ms / 2000)
                t1 = time.time() * 1000
                (await http.get("/api/time")).raise_for_status()
                rtt.append(time.time() * 1000 - t1)
                await asyncio.sleep(args.gap_ms / 2000)
            end = time.time() + 10
            while time.time() < end and not all(len(c.arrivals) >= args.events for c in fan):
                await asyncio.sleep(0.05)
            cpu_fanout = cpu_s(server.pid) - cpu0
            by_process = cpu_delta(by0, cpu_by_process(server.pid))
            post_s = time.monotonic() - t_post
            profiles = end_profiles(spies, by_process, len(sent), args.clients)
            stall = stalls(m0, scrape((await http.get("/metrics", headers=METRICS_AUTH)).text))

            depth_ms: dict[int, list[float]] = {100: [], 10_000: []}
            depth_auth = {"authorization": "Bearer tk"}
            cpu1 = cpu_s(server.pid)
            for i in range(args.depth_posts if depth_ids else 0):
                for n, dmid in depth_ids.items():
                    ev = ({"type": "goal", "team": "AB"[i % 4 // 2], "player": 1}
                          if i % 2 == 0 else {"type": "bowl_in"})
                    t0 = time.perf_counter()
                    r = await http.post(f"/api/matches/{dmid}/events", headers=depth_auth,
                                        json={"command_id": f"p{i}", "event": ev})
                    depth_ms[n].append((time.perf_counter() - t0) * 1000)
                    r.raise_for_status()
                await asyncio.sleep(0.02)
            cpu_per_post = (cpu_s(server.pid) - cpu1) / max(1, 2 * args.depth_posts)
            arrivals = [c.arrivals for c in fan]
            if procs:
                await asyncio.sleep(3.0)  # the last deliveries
                stop_ev.set()
                for _ in procs:
                    arrivals.extend(await asyncio.to_thread(out_q.get, True, args.timeout))
                for p in procs:
                    p.join(30)
            per_event, per_client = [], []
            for seq, t0 in sent.items():
                got = [a[seq] - t0 for a in arrivals if seq in a]
                per_client.extend(got)
                if len(got) == len(arrivals):
                    per_event.append(max(got))
            missing = sum(1 for seq in sent for a in arrivals if seq not in a)

            horns_due = (args.horn_lead_ms + 250 * args.horns) / 1000 + 1 if args.horns else 0
            wait = max(0.0, horns_due - (time.time() - t_connected))
            timer_late: list[float] = []
            t_end = time.time() + min(wait, args.timeout)
            while time.time() + 0.25 < t_end:  # baseline: a bare asyncio timer, same cadence
                due = time.time() + 0.25
                await asyncio.sleep(due - time.time())
                timer_late.append((time.time() - due) * 1000)
            await asyncio.sleep(max(0.0, t_end - time.time()))
            server_late: list[float] = []
            audit_count = 0
            for h in horn_ids:
                rows = (await http.get(f"/api/matches/{h}/horns")).json()
                audit_count += len(rows)
                server_late.extend(float(r["late_ms"]) for r in rows)
            client_late = [arr - dl for c in clients for dl, arr in c.horns]
    finally:
        for c in clients:
            if c.task:
                c.task.cancel()
        for p in procs:
            if p.is_alive():
                p.kill()
        stop(server, 30)  # the supervisor stops its workers
    viewers = len(clients) + in_procs
    return {
        "revision": getattr(args, "label", "this tree"),
        "compiled_engine": compiled(src),
        "load_1min": os.getloadavg()[0],
        "workers": args.workers,
        "public_workers": args.public_workers,
        "clients": len(clients) + in_procs,
        "client_processes": max(1, len(procs)),
        "connect_s": connect_s,
        "fanout_clients": args.clients,
        "events": len(sent),
        "missing_deliveries": missing,
        "fanout_all_p50_ms": pct(per_event, 50),
        "fanout_all_p99_ms": pct(per_event, 99),
        "fanout_each_p50_ms": pct(per_client, 50),
        "fanout_each_p99_ms": pct(per_client, 99),
        "horns_sounded": audit_count,
        "horns_expected": args.horns,
        "horn_server_p50_ms": pct(server_late, 50),
        "horn_server_p99_ms": pct(server_late, 99),
        "horn_client_p50_ms": pct(client_late, 50),
        "horn_client_p99_ms": pct(client_late, 99),
        "baseline_timer_p50_ms": pct(timer_late, 50),
        "baseline_timer_p99_ms": pct(timer_late, 99),
        "baseline_rtt_p50_ms": pct(rtt, 50),
        "baseline_rtt_p99_ms": pct(rtt, 99),
        "server_cpu_s_fanout": cpu_fanout,
        "cpu_us_per_viewer_message": cpu_fanout * 1e6 / max(1, len(sent) * args.clients),
        "cpu_ms_per_post": cpu_per_post * 1000,
        "stalls": stall,
        "cpu_us_per_viewer_message_net": (cpu_fanout - 2 * len(sent) * cpu_per_post) * 1e6
        / max(1, len(sent) * args.clients),
        "cpu_by_process_fanout": by_process,
        "profiles": profiles,
        "fanout_window_s": post_s,
        "cpu_by_process_idle": idle,
        "idle_window_s": idle_s,
        "rss_mb_before_viewers": rss_before,
        "rss_mb_idle_viewers": rss_idle,
        "rss_mb_per_1000_idle_viewers": (rss_idle - rss_before) * 1000 / max(1, viewers),
        "post_p50_ms_at_100": pct(depth_ms[100], 50),
        "post_p50_ms_at_10000": pct(depth_ms[10_000], 50),
        "post_p99_ms_at_100": pct(depth_ms[100], 99),
        "post_p99_ms_at_10000": pct(depth_ms[10_000], 99),
    }


def matrix(args: argparse.Namespace) -> None:
    """Fan-out with 1,000 and 10,000 viewers, served by 1 then 2 workers, in one run."""
    rows: dict[tuple[int, int], dict[str, Any]] = {}
    sizes = tuple(int(x) for x in args.matrix_clients.split(","))
    for clients in sizes:
        for workers in (1, 2):
            a = argparse.Namespace(**{**vars(args), "clients": clients, "workers": workers,
                                      "procs": 1 if clients <= 1000 else max(args.procs, 4)})
            res = asyncio.run(asyncio.wait_for(bench(a), args.timeout))
            rows[clients, workers] = res
            print(f"  {clients:>6} viewers, {workers} worker(s): fan-out p50 "
                  f"{res['fanout_all_p50_ms']:.1f} ms, p99 {res['fanout_all_p99_ms']:.1f} ms; "
                  f"per client p99 {res['fanout_each_p99_ms']:.1f} ms; horn p99 "
                  f"{res['horn_server_p99_ms']:.1f} ms ({res['horns_sounded']}/"
                  f"{res['horns_expected']}); missing {res['missing_deliveries']}; server CPU "
                  f"{res['cpu_us_per_viewer_message']:.1f} us/viewer/message; round trip p99 "
                  f"{res['baseline_rtt_p99_ms']:.1f} ms; load {os.getloadavg()[0]:.2f}",
                  flush=True)
    print("chukker live benchmark, workers (fan-out p99, POST sent -> last viewer):")
    for clients in sizes:
        target = 100.0 if clients <= 1000 else FANOUT_TARGET_MS
        one, two = rows[clients, 1], rows[clients, 2]
        p1, p2 = one["fanout_all_p99_ms"], two["fanout_all_p99_ms"]
        print(f"  {clients:>6} viewers: 1 worker {p1:.1f} ms, 2 workers {p2:.1f} ms; "
              f"2 workers / 1 worker = {p2 / max(p1, 0.1):.2f}x; 2 workers / target "
              f"{target:.0f} ms = {p2 / target:.2f}x")
    if len(sizes) >= 2:
        small, big = min(sizes), max(sizes)
        print("server CPU per viewer per message, marginal (what one more viewer costs: the "
              f"slope from {small:,} to {big:,} viewers; the POSTs and round trips, the same "
              "for both, fall out):")
        for workers in (1, 2):
            lo, hi = rows[small, workers], rows[big, workers]
            per_msg = [r["server_cpu_s_fanout"] / max(1, r["events"]) for r in (lo, hi)]
            slope = (per_msg[1] - per_msg[0]) * 1e6 / (big - small)
            gross = lo["cpu_us_per_viewer_message"], hi["cpu_us_per_viewer_message"]
            print(f"  {workers} worker(s): {slope:.1f} us (gross {gross[0]:.1f} us at {small:,}, "
                  f"{gross[1]:.1f} us at {big:,}; "
                  f"target 15 us = {slope / 15:.2f}x)")


def cpu_split(per_goal_s: list[float], sizes: tuple[int, int]) -> tuple[float, float]:
    """The server's CPU a goal at two crowd sizes, as (what a goal costs whatever the
    crowd, what one more viewer costs a message), in microseconds: the line through both.

    >>> cpu_split([0.0130, 0.0290], (1000, 3000))
    (5000.0, 8.0)
    """
    (lo, hi), (n_lo, n_hi) = per_goal_s, sizes
    viewer = (hi - lo) * 1e6 / (n_hi - n_lo)
    return round(lo * 1e6 - viewer * n_lo, 1), round(viewer, 3)


#: the figures --baseline prints, with their units
COMPARED = (
    ("cpu_us_per_viewer_message", "CPU per viewer per message (us, every server process)"),
    ("fanout_all_p99_ms", "operator to last viewer, p99 (ms)"),
    ("fanout_all_p50_ms", "operator to last viewer, p50 (ms)"),
    ("rss_mb_per_1000_idle_viewers", "RSS per 1,000 idle viewers (MB)"),
    ("rss_mb_idle_viewers", "RSS with the viewers idle, every server process (MB)"),
)


def compare(args: argparse.Namespace) -> None:
    """This tree and ``--baseline REV`` in the same run, interleaved (A B B A ...), at each
    of ``--sizes``; prints each figure's median and the ratio this tree / baseline."""
    folder = Path(tempfile.mkdtemp(prefix="chukker-baseline-"))
    try:
        base_src = revision_tree(args.baseline, folder)
        pw_now = 1 if args.public_workers is None else args.public_workers
        sides = {"this tree": (ROOT / "src", pw_now),
                 args.baseline: (base_src, None)}
        print(f"this tree: {ROOT / 'src'} (compiled engine: {compiled(ROOT / 'src')}, "
              f"--public-workers {pw_now}); baseline {args.baseline}: git archive "
              f"(compiled engine: {compiled(base_src)}, --workers 1)", flush=True)
        runs: dict[tuple[int, str], list[dict[str, Any]]] = {}
        for r in range(args.rounds):
            for size in (int(x) for x in args.sizes.split(",")):
                order = list(sides) if r % 2 == 0 else list(sides)[::-1]
                for label in order:
                    src, pw = sides[label]
                    a = argparse.Namespace(**{**vars(args), "clients": size, "src": src,
                                              "label": label, "public_workers": pw,
                                              "workers": 1})
                    res = asyncio.run(asyncio.wait_for(bench(a), args.timeout))
                    runs.setdefault((size, label), []).append(res)
                    print(f"  round {r + 1}, {size:,} viewers, {label}: " + "; ".join(
                        f"{k} {res[k]:.1f}" for k, _ in COMPARED) + f"; cpu by process "
                        f"{res['cpu_by_process_fanout']}; load {res['load_1min']:.2f}; missing "
                        f"{res['missing_deliveries']}", flush=True)
                    if args.json:
                        print(json.dumps(res), flush=True)
        print(f"medians of {args.rounds} interleaved round(s); ratio = this tree / "
              f"{args.baseline}:")
        for size in (int(x) for x in args.sizes.split(",")):
            print(f"  {size:,} viewers:")
            for key, what in COMPARED:
                now = statistics.median(x[key] for x in runs[size, "this tree"])
                base = statistics.median(x[key] for x in runs[size, args.baseline])
                print(f"    {what}: {now:.1f} against {base:.1f} = {now / base:.2f}x")
        sizes = sorted({int(x) for x in args.sizes.split(",")})
        if len(sizes) >= 2:
            print(f"  the CPU split in two (medians, {sizes[0]:,} and {sizes[-1]:,} viewers): "
                  "what each goal costs whatever the crowd, and what one more viewer costs "
                  "a message")
            for label in sides:
                goal_us, viewer_us = cpu_split(
                    [statistics.median(r["server_cpu_s_fanout"] / max(1, r["events"])
                                       for r in runs[n, label]) for n in (sizes[0], sizes[-1])],
                    (sizes[0], sizes[-1]))
                print(f"    {label}: {goal_us / 1000:.2f} ms a goal + {viewer_us:.2f} us a "
                      f"viewer; 10 us a viewer at {sizes[0]:,} viewers would leave "
                      f"{(10 - viewer_us) * sizes[0] / 1000:.2f} ms a goal")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def prepare_main(db: Path, horns: int, horn_lead_ms: int, depth: bool) -> None:
    """``--prepare``: store the horn and depth matches, print their ids (JSON)."""
    horn_ids = prepare_horn_matches(db, horns, horn_lead_ms, 250) if horns else []
    depth_ids = prepare_depth_matches(db) if depth else {}
    if not horns and not depth:  # the file and its tables, as the server expects them
        open_store(db).close()
    print(json.dumps({"horns": horn_ids, "depth": depth_ids}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=1000)
    ap.add_argument("--events", type=int, default=100)
    ap.add_argument("--horns", type=int, default=40)
    ap.add_argument("--gap-ms", type=int, default=200, help="time between two posted events")
    ap.add_argument(
        "--horn-lead-ms",
        type=int,
        default=25_000,
        help="time from preparing the horn matches to the first horn",
    )
    ap.add_argument("--client-nice", type=int, default=0,
                    help="niceness of the client processes (e.g. 10: the viewers take only the "
                         "CPU the server leaves, as remote phones would)")
    ap.add_argument("--procs", type=int, default=1,
                    help="client processes for the fan-out clients (e.g. 4 for 10,000)")
    ap.add_argument("--depth-posts", type=int, default=60,
                    help="POSTs to each of the matches at event 100 and event 10,000")
    ap.add_argument("--workers", type=int, default=1,
                    help="processes of the server on one port, each serving both planes "
                         "(1: chukker serve --public-workers 0)")
    ap.add_argument("--public-workers", type=int, default=None,
                    help="two planes (issue 35): the operator posts on the officials' port, "
                         "the viewers are served by N public workers (e.g. --clients 10000 "
                         "--public-workers 2 --procs 4)")
    ap.add_argument("--matrix", action="store_true",
                    help="1,000 and 10,000 viewers with 1 and 2 workers, with ratios")
    ap.add_argument("--matrix-clients", default="1000,10000",
                    help="the viewer counts of --matrix (comma-separated)")
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--idle-s", type=float, default=2.0,
                    help="seconds the viewers idle before the goals (their CPU is measured)")
    ap.add_argument("--baseline", metavar="REV",
                    help="also run revision REV (git archive of its src/), interleaved with "
                         "this tree, at each of --sizes, and print the ratios (e.g. 358a7f7)")
    ap.add_argument("--sizes", default="1000,3000", help="viewer counts of --baseline")
    ap.add_argument("--rounds", type=int, default=2,
                    help="rounds of --baseline (each runs both sides at every size)")
    ap.add_argument("--revision", metavar="REV",
                    help="run the server of revision REV (git archive of its src/) alone")
    ap.add_argument("--profile", metavar="DIR",
                    help="py-spy every server process over the goals (raw files in DIR) and "
                         "print the CPU per event split by benchmarks/profile_split.py")
    ap.add_argument("--prepare", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--no-depth", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.prepare is not None:
        prepare_main(args.prepare, args.horns, args.horn_lead_ms, not args.no_depth)
        return
    if args.baseline:
        compare(args)
        return
    if args.matrix:
        matrix(args)
        return
    if args.revision:
        folder = Path(tempfile.mkdtemp(prefix="chukker-revision-"))
        try:
            args.src, args.label = revision_tree(args.revision, folder), args.revision
            res = asyncio.run(asyncio.wait_for(bench(args), args.timeout))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    else:
        res = asyncio.run(asyncio.wait_for(bench(args), args.timeout))
    if args.json:
        print(json.dumps(res, indent=2))
        return
    nice = f", nice {args.client_nice}" if args.client_nice else ""
    print(
        f"chukker live benchmark: {res['clients']} SSE clients on 127.0.0.1 "
        f"({res['fanout_clients']} on the fan-out match, in {res['client_processes']} "
        f"client process(es){nice}; connected in {res['connect_s']:.1f} s)"
    )
    print(
        f"  fan-out, POST sent -> arrived at all clients ({res['events']} events): "
        f"p50 {res['fanout_all_p50_ms']:.1f} ms, p99 {res['fanout_all_p99_ms']:.1f} ms "
        f"= {res['fanout_all_p99_ms'] / FANOUT_TARGET_MS:.2f} x target {FANOUT_TARGET_MS:.0f} ms"
        f" (missing deliveries: {res['missing_deliveries']})"
    )
    print(
        f"  fan-out, per client: p50 {res['fanout_each_p50_ms']:.1f} ms, "
        f"p99 {res['fanout_each_p99_ms']:.1f} ms"
    )
    print(
        f"  horns ({res['horns_sounded']}/{res['horns_expected']}), published - deadline: "
        f"p50 {res['horn_server_p50_ms']:.1f} ms, p99 {res['horn_server_p99_ms']:.1f} ms "
        f"= {res['horn_server_p99_ms'] / HORN_TARGET_MS:.2f} x target {HORN_TARGET_MS:.0f} ms"
    )
    print(
        f"  horns, received by clients - deadline: p50 {res['horn_client_p50_ms']:.1f} ms, "
        f"p99 {res['horn_client_p99_ms']:.1f} ms"
    )
    print(
        f"  baseline, bare asyncio timer lateness: p50 {res['baseline_timer_p50_ms']:.1f} ms, "
        f"p99 {res['baseline_timer_p99_ms']:.1f} ms; horn p99 / timer p99 = "
        f"{res['horn_server_p99_ms'] / max(res['baseline_timer_p99_ms'], 0.1):.1f}x"
    )
    print(
        f"  baseline, GET /api/time round trip: p50 {res['baseline_rtt_p50_ms']:.1f} ms, "
        f"p99 {res['baseline_rtt_p99_ms']:.1f} ms; fan-out p99 / round trip p99 = "
        f"{res['fanout_all_p99_ms'] / max(res['baseline_rtt_p99_ms'], 0.1):.1f}x"
    )
    print(
        f"  server CPU over the posting loop: {res['server_cpu_s_fanout']:.2f} s = "
        f"{res['cpu_us_per_viewer_message']:.1f} us per viewer per message; less its POSTs and "
        f"round trips ({res['cpu_ms_per_post']:.2f} ms CPU each, measured on the 5-viewer "
        f"matches): {res['cpu_us_per_viewer_message_net']:.1f} us (target 15)"
    )
    st = res["stalls"]
    print(
        f"  during the fan-out: collections by generation {st['gc_count']} taking "
        f"{ {g: round(ms, 1) for g, ms in st['gc_ms'].items()} } ms; "
        f"{st['loop_ticks_late_20ms']:.0f} of {st['loop_ticks']:.0f} loop ticks (1 s) "
        f"more than 20 ms late"
    )
    print(
        f"  server side, a message written to every stream ({st['server_fanouts']:.0f} fan-outs, "
        f"keep-alives and horns included): mean {st['server_fanout_mean_ms']:.1f} ms, "
        f"p99 <= {st['server_fanout_p99_le_ms']:.0f} ms (histogram bucket)"
    )
    print(
        f"  POST at event 10,000: p50 {res['post_p50_ms_at_10000']:.1f} ms, p99 "
        f"{res['post_p99_ms_at_10000']:.1f} ms; at event 100: p50 {res['post_p50_ms_at_100']:.1f}"
        f" ms, p99 {res['post_p99_ms_at_100']:.1f} ms; ratio p50 "
        f"{res['post_p50_ms_at_10000'] / max(res['post_p50_ms_at_100'], 0.01):.2f}x (target 1.2)"
    )
    print(f"  server CPU by process over the goals: {res['cpu_by_process_fanout']}; idle viewers "
          f"over {res['idle_window_s']:.1f} s: {res['cpu_by_process_idle']}")
    print(f"  RSS: {res['rss_mb_before_viewers']:.0f} MB before the viewers, "
          f"{res['rss_mb_idle_viewers']:.0f} MB with them idle = "
          f"{res['rss_mb_per_1000_idle_viewers']:.1f} MB per 1,000 idle viewers; load "
          f"{res['load_1min']:.2f}; compiled engine: {res['compiled_engine']}")
    for role, split in res["profiles"].items():
        print(f"  profile of the {role} process, us per event: {split}")


if __name__ == "__main__":
    main()
