"""The officials' process's CPU for one timekeeper's POST (issue 43: what is paid once a
goal, whatever the crowd), against a trivial request on the same process and port.

Starts ``chukker serve`` (two planes, one public worker, a fresh SQLite database, no
viewer), makes a match, and posts ``--posts`` events in a row (bowl-in and whistle in
turn) then as many ``GET /api/time`` (the baseline: the same HTTP path, no work),
``--rounds`` times; reads the officials' process's CPU from ``/proc`` around each batch.
Also the idle process's CPU over ``--idle-s`` seconds. With ``--profile FILE``, a
``py-spy record`` (raw, 500 Hz) of the officials' process over 1,500 more POSTs.

``--paced`` also sends ``--pairs`` goals at the pace of ``benchmarks/live.py`` (a goal,
half a gap, a ``GET /api/time``, half a gap), for each gap of ``--gaps`` (ms; 0: in a
row), and prints the officials' CPU for each pair less the idle process's over the same
time, read to the nanosecond from ``/proc/<pid>/task/*/schedstat``. The baseline is the
same pair in a row (gap 0) in the same run: what a request costs after a pause, against
the same request on a process kept busy.

    python benchmarks/post_cpu.py [--posts 300] [--rounds 3] [--idle-s 10] [--profile FILE]
    python benchmarks/post_cpu.py --paced [--pairs 40] [--gaps 0,10,50,200]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from benchports import cpu_s, pick_ports, schedstat  # noqa: E402
from planes import plane_pids  # noqa: E402

from chukker.web.demo import DEMO_HEADER  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--posts", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--idle-s", type=float, default=10.0)
    ap.add_argument("--profile", type=Path)
    ap.add_argument("--paced", action="store_true")
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--gaps", default="0,10,50,200")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="chukker-post-cpu-"))
    port, officials = pick_ports(2)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    server = subprocess.Popen(
        [sys.executable, "-m", "chukker.web", "--db", str(tmp / "p.sqlite3"), "--port",
         str(port), "--officials-port", str(officials), "--public-workers", "1", "--no-demo",
         "--open"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        http = httpx.Client(base_url=f"http://127.0.0.1:{officials}", timeout=30)
        for _ in range(300):
            try:
                http.get("/api/time")
                break
            except httpx.TransportError:
                time.sleep(0.1)
        m = http.post("/api/matches", json=DEMO_HEADER).json()
        path = f"/api/matches/{m['match_id']}/events"
        auth = {"authorization": f"Bearer {m['timekeeper_token']}"}
        sent = 0

        def posts(n: int) -> None:
            nonlocal sent
            for _ in range(n):
                body = {"command_id": f"c{sent}",
                        "event": {"type": "bowl_in" if sent % 2 == 0 else "whistle"}}
                r = http.post(path, headers=auth, json=body)
                assert r.status_code == 201, r.text
                sent += 1

        time.sleep(1.0)
        (pid,) = plane_pids(server.pid, officials)
        posts(50)  # warm
        c0 = cpu_s(pid)
        time.sleep(a.idle_s)
        idle = (cpu_s(pid) - c0) / a.idle_s * 1e3
        print(f"officials' process idle: {idle:.1f} ms CPU a second")
        for _ in range(a.rounds):
            c0, t0 = cpu_s(pid), time.perf_counter()
            posts(a.posts)
            c1, t1 = cpu_s(pid), time.perf_counter()
            for _ in range(a.posts):
                http.get("/api/time")
            c2, t2 = cpu_s(pid), time.perf_counter()
            post, get = (c1 - c0) / a.posts * 1e3, (c2 - c1) / a.posts * 1e3
            print(f"POST an event: {post:.2f} ms CPU ({(t1 - t0) / a.posts * 1e3:.2f} ms wall); "
                  f"GET /api/time: {get:.2f} ms CPU ({(t2 - t1) / a.posts * 1e3:.2f} ms wall); "
                  f"ratio {post / get:.1f}x")
        if a.paced:
            paced(http, path, auth, pid, a.pairs, [int(g) for g in a.gaps.split(",")])
        if a.profile:
            spy = subprocess.Popen(
                [str(Path(sys.executable).with_name("py-spy")), "record", "-p", str(pid),
                 "-r", "500", "-f", "raw", "-o", str(a.profile), "-d", "30"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(2.0)
            posts(1500)
            spy.wait()
    finally:
        server.terminate()
        server.wait(30)
        shutil.rmtree(tmp, ignore_errors=True)


def run_ns(pid: int) -> int:
    """The CPU time of every thread of ``pid`` so far, in nanoseconds (schedstat)."""
    return schedstat(pid)[0]


def paced(http: httpx.Client, path: str, auth: dict[str, str], pid: int, pairs: int,
          gaps: list[int]) -> None:
    """A goal and a ``GET /api/time`` ``pairs`` times at each gap; the officials' CPU a
    pair less its idle rate, against the pairs in a row."""
    per: dict[int, float] = {}
    ball_in = {"command_id": "paced-in", "event": {"type": "bowl_in"}}
    assert http.post(path, headers=auth, json=ball_in).status_code in (200, 201, 409)
    for gap in gaps:
        t0, c0 = time.monotonic(), run_ns(pid)
        time.sleep(max(1.0, pairs * gap / 1000))
        idle_rate = (run_ns(pid) - c0) / (time.monotonic() - t0)
        t0, c0 = time.monotonic(), run_ns(pid)
        for i in range(pairs):
            body = {"command_id": f"paced-{gap}-{i}",
                    "event": {"type": "goal", "team": "AB"[i % 2], "player": 1 + i % 3}}
            assert http.post(path, headers=auth, json=body).status_code == 201
            time.sleep(gap / 2000)
            http.get("/api/time")
            time.sleep(gap / 2000)
        spent = run_ns(pid) - c0 - idle_rate * (time.monotonic() - t0)
        per[gap] = spent / pairs / 1e6
        base = per.get(gaps[0], per[gap])
        print(f"a goal and a GET /api/time every {gap} ms: {per[gap]:.2f} ms of the officials' "
              f"CPU a pair, idle ({idle_rate / 1e6:.1f} ms a second) taken out; "
              f"{per[gap] / base:.2f}x the pair at a gap of {gaps[0]} ms")


if __name__ == "__main__":
    main()
