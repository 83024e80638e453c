"""The officials' process's CPU for one timekeeper's POST (issue 43: what is paid once a
goal, whatever the crowd), against a trivial request on the same process and port.

Starts ``chukker serve`` (two planes, one public worker, a fresh SQLite database, no
viewer), makes a match, and posts ``--posts`` events in a row (bowl-in and whistle in
turn) then as many ``GET /api/time`` (the baseline: the same HTTP path, no work),
``--rounds`` times; reads the officials' process's CPU from ``/proc`` around each batch.
Also the idle process's CPU over ``--idle-s`` seconds. With ``--profile FILE``, a
``py-spy record`` (raw, 500 Hz) of the officials' process over 1,500 more POSTs.

    python benchmarks/post_cpu.py [--posts 300] [--rounds 3] [--idle-s 10] [--profile FILE]
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

from benchports import cpu_s, pick_ports  # noqa: E402
from planes import plane_pids  # noqa: E402

from chukker.web.demo import DEMO_HEADER  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--posts", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--idle-s", type=float, default=10.0)
    ap.add_argument("--profile", type=Path)
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


if __name__ == "__main__":
    main()
