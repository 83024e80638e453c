"""How long ``chukker serve`` takes to answer, and a killed worker to be back: workers
forked from the fork server (``chukker.web.workers.PRELOAD``) against spawned workers
(``CHUKKER_WORKER_START=spawn``, as before), interleaved in the same run.

Each round starts ``chukker serve`` (two planes, ``--public-workers 1``, a new SQLite
file) once each way, in turn, and measures:

* the time from the command's start until both ports answer ``GET /api/time``;
* the CPU seconds of every process of the server by then (``/proc``: the supervisor,
  the fork server and its helper, the workers);
* after ``kill -9`` of the public worker, the time until a new worker listens on the
  public port and it answers (the supervisor waits 0.2 s before starting it again).

    python benchmarks/startup.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from benchports import cpu_s, descendants, pick_ports, stop  # noqa: E402
from planes import plane_pids  # noqa: E402

CHUKKER = str(Path(sys.executable).with_name("chukker"))


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=0.5).status_code == 200
    except httpx.HTTPError:
        return False


def one(method: str, folder: Path) -> dict[str, float]:
    public, officials = pick_ports(2)
    env = dict(os.environ)
    env.pop("CHUKKER_WORKER_START", None)
    if method == "spawn":
        env["CHUKKER_WORKER_START"] = "spawn"
    db = folder / f"{method}-{public}.sqlite3"
    t0 = time.perf_counter()
    proc = subprocess.Popen([CHUKKER, "serve", "--port", str(public), "--officials-port",
                             str(officials), "--db", str(db)], env=env, cwd=folder,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        urls = [f"http://127.0.0.1:{p}" for p in (officials, public)]
        while not all(_answers(u + "/api/time") for u in urls):
            if time.perf_counter() - t0 > 60:
                raise RuntimeError(f"{method}: the server did not answer in 60 s")
            time.sleep(0.005)
        ready = time.perf_counter() - t0
        cpu = sum(cpu_s(p) for p in descendants(proc.pid) if Path(f"/proc/{p}").exists())
        (old,) = plane_pids(proc.pid, public)
        time.sleep(0.5)
        t1 = time.perf_counter()
        os.kill(old, signal.SIGKILL)
        while plane_pids(proc.pid, public) in ([], [old]) or not _answers(
                urls[1] + "/api/time"):
            if time.perf_counter() - t1 > 60:
                raise RuntimeError(f"{method}: no new worker in 60 s")
            time.sleep(0.005)
        back = time.perf_counter() - t1
    finally:
        stop(proc, 20)
    return {"ready_s": ready, "cpu_s": cpu, "back_s": back}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    got: dict[str, list[dict[str, float]]] = {"forkserver": [], "spawn": []}
    with tempfile.TemporaryDirectory(prefix="chukker-startup-") as tmp:
        for r in range(a.rounds):
            order = ("forkserver", "spawn") if r % 2 == 0 else ("spawn", "forkserver")
            for method in order:
                m = one(method, Path(tmp))
                got[method].append(m)
                print(f"  round {r + 1}, {method}: ready {m['ready_s']:.2f} s, CPU "
                      f"{m['cpu_s']:.2f} s, a killed public worker back in "
                      f"{m['back_s']:.2f} s", flush=True)
    print(f"medians of {a.rounds} interleaved rounds (load {os.getloadavg()[0]:.2f}); "
          "ratio = fork server / spawned:")
    for key, words in (("ready_s", "both ports answer after the start (s)"),
                       ("cpu_s", "CPU of every process of the server by then (s)"),
                       ("back_s", "a killed public worker answers again (s)")):
        f = statistics.median(m[key] for m in got["forkserver"])
        s = statistics.median(m[key] for m in got["spawn"])
        print(f"  {words}: {f:.2f} against {s:.2f} = {f / s:.2f}x")


if __name__ == "__main__":
    main()
