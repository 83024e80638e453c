"""The MQTT feed: horn to relay, the timekeeper's POST with the broker up, down and
flapping, and 100 matches publishing through one broker.

    python benchmarks/feeds.py [--horns 100] [--seconds 6] [--matches 100] [--tick 0.1]

Starts its own Mosquitto on a free port (``mosquitto`` must be installed) and
``chukker serve`` processes on fresh SQLite files, all on 127.0.0.1:

* **horn to relay**: ``--horns`` matches stored back-dated so that an end horn
  falls due every 150 ms; the server (MQTT on, a Tasmota relay and a ``topic``
  relay) sounds them. The figure is the relay command's arrival at a subscriber
  minus the horn's instant in the server's audit (``/horns`` ``deadline``),
  beside the same figure for a browser stream (the SSE ``horn`` message on a
  stream of each match) in the same run. Target: relay p99 < 50 ms.
* **timekeeper POST** p50/p99 (whistle / bowl_in every 50 ms) on a server with
  MQTT and the broker connected, stopped, and flapping (down and up every 2 s),
  against a server without MQTT in the same run (measured before and after).
  Both servers hold ``--matches`` matches whose clocks run (one state per second
  each). Target: within 1.2x.
* **100 matches through one broker**: a server whose ``--matches`` running matches
  publish their state every ``--tick`` s; state messages a second at a subscriber
  and the server's CPU per message, against the server without MQTT holding the
  same matches (the difference of their CPU times over the same window), and
  against building and encoding the same payload in this process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import copy
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import aiomqtt  # noqa: E402
from benchports import cpu_s  # noqa: E402

from chukker.feeds.payloads import public_state  # noqa: E402
from chukker.live import hash_token  # noqa: E402
from chukker.store import StoredEvent, open_store  # noqa: E402
from chukker.web.demo import DEMO_HEADER  # noqa: E402

PERIOD_MS = 450_000
TK = "bench-timekeeper-token"


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Broker:
    def __init__(self, exe: str, folder: Path) -> None:
        self.exe, self.port = exe, free_port()
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
                             "persistence false\nmax_queued_messages 100000\n")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen([self.exe, "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.1).close()
                return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("mosquitto did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


def prepare(db: Path, horns_due: list[int], running: int) -> tuple[list[str], list[str]]:
    """Horn matches (an end horn at each wall ms of ``horns_due``) and matches whose
    clock runs for the whole run; a timekeeper match with a known token."""
    store = open_store(db)
    horn_ids, run_ids = [], []
    for i, due in enumerate(horns_due):
        mid, start = f"horn{i:04d}", due - PERIOD_MS
        store.create_match(mid, copy.deepcopy(DEMO_HEADER), start, hash_token("x"),
                           hash_token("y"))
        store.append(mid, StoredEvent(1, "b", {"type": "bowl_in", "at": 0.0}, start,
                                      "timekeeper"), start)
        horn_ids.append(mid)
    now = wall_ms()
    for i in range(running):
        mid, start = f"run{i:04d}", now - 5_000
        store.create_match(mid, copy.deepcopy(DEMO_HEADER), start, hash_token("x"),
                           hash_token("y"))
        store.append(mid, StoredEvent(1, "b", {"type": "bowl_in", "at": 0.0}, start,
                                      "timekeeper"), start)
        run_ids.append(mid)
    store.create_match("tk0001", copy.deepcopy(DEMO_HEADER), now, hash_token(TK),
                       hash_token("cm"))
    store.close()
    return horn_ids, run_ids


class Server:
    def __init__(self, db: Path, env: dict[str, str], verbose: bool) -> None:
        self.port = free_port()
        full = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
        full.update(env, PYTHONPATH=str(ROOT / "src"), CHUKKER_LOG_ACCESS="0",
                    CHUKKER_ORGANISER_TOKEN="bench-organiser-token-0000",
                    CHUKKER_METRICS_TOKEN="bench-metrics-token-000000")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "chukker.cli", "serve", "--db", str(db), "--port",
             str(self.port), "--no-demo"], env=full, stdout=subprocess.DEVNULL,
            stderr=None if verbose else subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"

    async def ready(self) -> None:
        async with httpx.AsyncClient(base_url=self.base, timeout=5) as http:
            for _ in range(600):
                try:
                    if (await http.get("/readyz")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.05)
        raise RuntimeError("the server did not start")

    def cpu(self) -> float:
        return cpu_s(self.proc.pid)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Subscriber:
    """Records (topic, payload, arrival wall ms) of ``topics``; reconnects by itself."""

    def __init__(self, port: int, topics: list[str]) -> None:
        self.port, self.topics = port, topics
        self.got: list[tuple[str, bytes, int]] = []
        self.ready = asyncio.Event()
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> None:
        while True:
            try:
                async with aiomqtt.Client("127.0.0.1", self.port,
                                          max_queued_incoming_messages=0) as c:
                    for t in self.topics:
                        await c.subscribe(t, qos=1)
                    self.ready.set()
                    async for m in c.messages:
                        body = m.payload if isinstance(m.payload, bytes) else b""
                        self.got.append((str(m.topic), body, wall_ms()))
            except aiomqtt.MqttError:
                await asyncio.sleep(0.1)

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task


async def sse_horns(port: int, mid: str, out: list[tuple[int, int]],
                    stop: asyncio.Event) -> None:
    """A browser-like stream of ``mid``: (deadline, arrival) of every horn message."""
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(f"GET /api/matches/{mid}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    try:
        kind = ""
        while not stop.is_set():
            try:
                line = await asyncio.wait_for(r.readline(), 0.5)
            except TimeoutError:
                continue
            if not line:
                return
            if line.startswith(b"event: "):
                kind = line[7:].strip().decode()
            elif line.startswith(b"data: ") and kind == "horn":
                out.append((int(json.loads(line[6:])["deadline"]), wall_ms()))
    finally:
        w.close()


async def timekeeper(base: str, seconds: float, gap: float = 0.05) -> list[float]:
    lat: list[float] = []
    kinds = ["bowl_in", "whistle"]
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        end = time.monotonic() + seconds
        i = 0
        while time.monotonic() < end:
            t0 = time.perf_counter()
            r = await http.post("/api/matches/tk0001/events", headers={
                "authorization": f"Bearer {TK}"}, json={
                "command_id": f"c{time.time_ns()}", "event": {"type": kinds[i % 2]}})
            lat.append((time.perf_counter() - t0) * 1000)
            if r.status_code not in (200, 201):
                raise RuntimeError(f"POST answered {r.status_code}: {r.text}")
            i += 1
            await asyncio.sleep(gap)
    return lat[3:]


def encode_cost(samples: int = 2000) -> float:
    """µs to build and encode one state payload in this process (the floor)."""
    from chukker.engine import Match, Setup

    m = Match(Setup.from_dict(DEMO_HEADER), [{"type": "bowl_in", "at": 0.0}])
    rep = dict(m.report(10_000))
    rep.update(match_id="m", seq=1, at=10.0, server_time=wall_ms())
    t0 = time.perf_counter()
    for _ in range(samples):
        json.dumps(public_state(DEMO_HEADER, rep, wall_ms()), separators=(",", ":")).encode()
    return (time.perf_counter() - t0) / samples * 1e6


async def horn_phase(args: argparse.Namespace, tmp: Path, broker: Broker) -> dict[str, Any]:
    db = tmp / "horns.sqlite3"
    relays = [{"kind": "tasmota", "topic": "bench-horn", "pulse_ms": 100},
              {"kind": "topic", "topic": "bench/horn-topic", "pulse_ms": 100}]
    srv = Server(db, {"CHUKKER_MQTT_URL": f"mqtt://127.0.0.1:{broker.port}",
                      "CHUKKER_MQTT_PREFIX": "bench", "CHUKKER_HORN_RELAYS": json.dumps(relays)},
                 args.verbose)
    sub = Subscriber(broker.port, ["cmnd/bench-horn/POWER", "bench/horn-topic"])
    stop = asyncio.Event()
    sse: list[tuple[int, int]] = []
    header = copy.deepcopy(DEMO_HEADER)
    header["options"]["practice"] = {"period_s": 10, "interval_s": 10}
    try:
        await srv.ready()
        await sub.ready.wait()
        async with httpx.AsyncClient(base_url=srv.base, timeout=30) as http:
            made = []
            for _ in range(args.horns):  # practice matches: a horn 10 s after the bowl-in
                r = await http.post("/api/matches", json=header, headers={
                    "authorization": "Bearer bench-organiser-token-0000"})
                made.append(r.json())
            horn_ids = [m["match_id"] for m in made]
            streams = [asyncio.create_task(sse_horns(srv.port, mid, sse, stop))
                       for mid in horn_ids]
            await asyncio.sleep(1.0)
            for m in made:  # one bowl-in every 150 ms: a horn every 150 ms, 10 s later
                await http.post(f"/api/matches/{m['match_id']}/events", headers={
                    "authorization": f"Bearer {m['timekeeper_token']}"},
                    json={"command_id": "b1", "event": {"type": "bowl_in"}})
                await asyncio.sleep(0.15)
            await asyncio.sleep(11.5)
            stop.set()
            await asyncio.gather(*streams, return_exceptions=True)
            audit: list[int] = []
            for mid in horn_ids:
                rows = (await http.get(f"/api/matches/{mid}/horns")).json()
                audit += [h["deadline"] for h in rows]
            audit.sort()
            text = (await http.get("/metrics", headers={
                "authorization": "Bearer bench-metrics-token-000000"})).text
            server_side = {line.split(" ")[0]: float(line.split(" ")[1])
                           for line in text.splitlines()
                           if line.startswith("chukker_mqtt_horn_to_relay_seconds_")
                           or line.startswith("chukker_horn_lateness_seconds_")}
    finally:
        srv.stop()
        await sub.close()
    ons = sorted(at for t, p, at in sub.got if t.endswith("/POWER") and p == b"ON")
    topic = [(int(json.loads(p)["at"]), at) for t, p, at in sub.got if t == "bench/horn-topic"]
    if len(ons) != len(audit):
        print(f"warning: {len(ons)} relay ON for {len(audit)} horns in the audit")
    tasmota = [on - d for on, d in zip(ons, audit, strict=False)]
    n = max(server_side.get("chukker_mqtt_horn_to_relay_seconds_count", 0), 1)
    return {"horns": len(audit), "relay_on": len(ons),
            "server_ack_mean_ms": server_side.get(
                "chukker_mqtt_horn_to_relay_seconds_sum", 0) / n * 1000,
            "relay_p50_ms": pct(tasmota, 50), "relay_p99_ms": pct(tasmota, 99),
            "topic_p99_ms": pct([a - d for d, a in topic], 99),
            "sse_p50_ms": pct([a - d for d, a in sse], 50),
            "sse_p99_ms": pct([a - d for d, a in sse], 99), "sse_horns": len(sse)}


async def post_phases(args: argparse.Namespace, tmp: Path, broker: Broker) -> dict[str, Any]:
    db_a, db_b = tmp / "plain.sqlite3", tmp / "mqtt.sqlite3"
    # horns due every 300 ms through the three phases, the same on both servers (with
    # a relay on the MQTT one): their lateness in the audit, MQTT against none
    first = wall_ms() + 12_000
    due = [first + 300 * i for i in range(round((3 * args.seconds + 6) / 0.3))]
    horns_a, _ = prepare(db_a, due, args.matches)
    horns_b, _ = prepare(db_b, due, args.matches)
    plain = Server(db_a, {}, args.verbose)
    relays = json.dumps([{"kind": "tasmota", "topic": "bench-post-horn", "pulse_ms": 100}])
    mqtt = Server(db_b, {"CHUKKER_MQTT_URL": f"mqtt://127.0.0.1:{broker.port}",
                         "CHUKKER_MQTT_PREFIX": "bench", "CHUKKER_HORN_RELAYS": relays},
                  args.verbose)
    out: dict[str, Any] = {}
    try:
        await plain.ready()
        await mqtt.ready()
        ready_ms = wall_ms() + 1_000  # horns due before both servers were up are not counted
        await asyncio.sleep(max(1.0, (first - wall_ms()) / 1000))
        lat: dict[str, tuple[list[float], list[float]]] = {}

        async def side_by_side(name: str) -> None:  # both servers at once: the same machine
            a, b = await asyncio.gather(timekeeper(plain.base, args.seconds),
                                        timekeeper(mqtt.base, args.seconds))
            lat[name] = (a, b)

        await side_by_side("connected")
        broker.stop()
        await side_by_side("stopped")
        broker.start()
        flapping = True

        async def flap() -> None:
            while flapping:
                await asyncio.sleep(2.0)
                if broker.proc is not None:
                    broker.stop()
                else:
                    broker.start()

        fl = asyncio.create_task(flap())
        await side_by_side("flapping")
        flapping = False
        await fl
        if broker.proc is None:
            broker.start()
        for srv, ids, key in ((plain, horns_a, "no_mqtt"), (mqtt, horns_b, "mqtt")):
            late: list[float] = []
            async with httpx.AsyncClient(base_url=srv.base, timeout=10) as http:
                for mid in ids:
                    rows = (await http.get(f"/api/matches/{mid}/horns")).json()
                    late += [float(h["late_ms"]) for h in rows
                             if max(first, ready_ms) <= h["deadline"] <= wall_ms()]
            out[f"horn_late_{key}_p99_ms"] = pct(late, 99)
            out[f"horn_late_{key}_n"] = len(late)
        async with httpx.AsyncClient(base_url=mqtt.base, timeout=10) as http:
            text = (await http.get("/metrics", headers={
                "authorization": "Bearer bench-metrics-token-000000"})).text
        out["mqtt_metrics"] = {line.split(" ")[0]: line.split(" ")[1] for line in text.splitlines()
                               if line.startswith(("chukker_mqtt_dropped_total{",
                                                   "chukker_mqtt_reconnects_total ",
                                                   "chukker_mqtt_published_total{"))}
    finally:
        plain.stop()
        mqtt.stop()
    for name, (a, b) in lat.items():
        out[f"post_{name}_base_p50_ms"], out[f"post_{name}_base_p99_ms"] = pct(a, 50), pct(a, 99)
        out[f"post_{name}_p50_ms"], out[f"post_{name}_p99_ms"] = pct(b, 50), pct(b, 99)
        out[f"post_{name}_p50_ratio"] = pct(b, 50) / pct(a, 50)
        out[f"post_{name}_p99_ratio"] = pct(b, 99) / pct(a, 99)
    return out


async def throughput(args: argparse.Namespace, tmp: Path, broker: Broker) -> dict[str, Any]:
    db_a, db_b = tmp / "tp-plain.sqlite3", tmp / "tp-mqtt.sqlite3"
    prepare(db_a, [], args.matches)
    prepare(db_b, [], args.matches)
    plain = Server(db_a, {}, args.verbose)
    mqtt = Server(db_b, {"CHUKKER_MQTT_URL": f"mqtt://127.0.0.1:{broker.port}",
                         "CHUKKER_MQTT_PREFIX": "tp", "CHUKKER_MQTT_TICK_S": str(args.tick)},
                  args.verbose)
    sub = Subscriber(broker.port, ["tp/match/+/state"])
    try:
        await plain.ready()
        await mqtt.ready()
        await sub.ready.wait()
        await asyncio.sleep(2.0)
        n0, c0, p0, w0 = len(sub.got), mqtt.cpu(), plain.cpu(), time.monotonic()
        await asyncio.sleep(args.seconds)
        n1, c1, p1, w1 = len(sub.got), mqtt.cpu(), plain.cpu(), time.monotonic()
    finally:
        plain.stop()
        mqtt.stop()
        await sub.close()
    msgs = n1 - n0
    extra = (c1 - c0) - (p1 - p0)
    floor = encode_cost()
    per_msg = extra / max(msgs, 1) * 1e6
    return {"matches": args.matches, "tick_s": args.tick, "states_per_s": msgs / (w1 - w0),
            "wanted_per_s": args.matches / args.tick,
            "server_cpu_us_per_msg": per_msg, "server_cpu_s": c1 - c0,
            "plain_server_cpu_s": p1 - p0, "encode_us_per_msg": floor,
            "cpu_per_msg_over_encode": per_msg / floor}


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not os.path.exists(exe):
        raise SystemExit("benchmarks/feeds.py needs mosquitto (apt-get install mosquitto)")
    tmp = Path(tempfile.mkdtemp(prefix="chukker-feeds-"))
    broker = Broker(exe, tmp)
    broker.start()
    out: dict[str, Any] = {}
    try:
        out["horn"] = await horn_phase(args, tmp, broker)
        if not args.horn_only:
            out["post"] = await post_phases(args, tmp, broker)
            out["throughput"] = await throughput(args, tmp, broker)
    finally:
        broker.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def report(r: dict[str, Any]) -> None:
    h = r["horn"]
    say: Callable[[str], None] = print
    say(f"horn to relay ({h['horns']} horns, {h['relay_on']} relay ON): p50 "
        f"{h['relay_p50_ms']:.1f} ms, p99 {h['relay_p99_ms']:.1f} ms (topic relay p99 "
        f"{h['topic_p99_ms']:.1f} ms); browser stream p50 {h['sse_p50_ms']:.1f} ms, p99 "
        f"{h['sse_p99_ms']:.1f} ms; relay/stream p99 "
        f"{h['relay_p99_ms'] / max(h['sse_p99_ms'], 0.1):.2f}x (target relay p99 < 50 ms); "
        f"the server's own horn-to-ack mean {h['server_ack_mean_ms']:.1f} ms")
    if "post" not in r:
        return
    p, t = r["post"], r["throughput"]
    say("timekeeper POST, MQTT server beside a server without MQTT (same load, same time):")
    for name in ("connected", "stopped", "flapping"):
        say(f"  broker {name:9s}: p50 {p[f'post_{name}_p50_ms']:.1f} ms vs "
            f"{p[f'post_{name}_base_p50_ms']:.1f} ({p[f'post_{name}_p50_ratio']:.2f}x), "
            f"p99 {p[f'post_{name}_p99_ms']:.1f} ms vs {p[f'post_{name}_base_p99_ms']:.1f} "
            f"({p[f'post_{name}_p99_ratio']:.2f}x)  (target <= 1.2x)")
    say(f"horn lateness through the three phases (audit): p99 {p['horn_late_mqtt_p99_ms']:.0f} ms "
        f"with MQTT and a relay ({p['horn_late_mqtt_n']} horns), "
        f"{p['horn_late_no_mqtt_p99_ms']:.0f} ms without ({p['horn_late_no_mqtt_n']})")
    say(f"{t['matches']} matches through one broker (a state every {t['tick_s']} s each): "
        f"{t['states_per_s']:.0f} state messages/s (of {t['wanted_per_s']:.0f} wanted); server "
        f"CPU {t['server_cpu_us_per_msg']:.0f} us per message beyond the same server without "
        f"MQTT = {t['cpu_per_msg_over_encode']:.1f}x building and encoding the payload "
        f"({t['encode_us_per_msg']:.0f} us)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--horns", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--matches", type=int, default=100)
    ap.add_argument("--tick", type=float, default=0.1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--horn-only", action="store_true")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    r = asyncio.run(bench(args))
    if args.json:
        print(json.dumps(r, indent=2))
    report(r)


if __name__ == "__main__":
    main()
