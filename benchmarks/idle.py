"""What an idle server costs: CPU a second and wake-ups a second of each of its processes.

    python benchmarks/idle.py [--baseline fd8b2e8] [--rounds 3] [--seconds 10]

Starts ``chukker serve`` (``python -m chukker.web``: the supervisor, the fork server, the
officials' process and ``--public-workers 1``) on a fresh SQLite file, waits until both
planes answer ``/readyz`` and ``--settle`` seconds more, then reads every thread's
``/proc/<pid>/task/*/schedstat`` over ``--seconds``: the CPU to the nanosecond, and the
number of times a thread was put on a core (a wake-up). The same for revision
``--baseline`` (``git archive REV src``, :mod:`benchports`), alternated A B B A over
``--rounds``; it prints each process's median and the ratio of this tree to the baseline.

An idle server's CPU is also part of what ``benchmarks/live.py`` charges each viewer
(its CPU over the goals is every process's, idle ticks included), and on a virtual
machine each wake-up of an idle core costs about 0.1-0.2 ms (caches gone cold), far more
than the few lines the tick runs (issue 43; ``docs/live.md``, *An idle server wakes once
a second*).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from benchports import ROOT, descendants, parent_of, pick_ports, revision_tree, schedstat, stop


def role(root: int, pid: int, pids: list[int]) -> str:
    """``supervisor``, ``tracker``, ``fork server``, ``public`` (niced) or ``officials``."""
    if pid == root:
        return "supervisor"
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return "gone"
    if b"resource_tracker" in cmd:
        return "tracker"
    kids = [p for p in pids if p != pid and parent_of(p) == pid]
    if kids:
        return "fork server"
    return "public" if int(stat[16]) > 0 else "officials"


def measure(src: Path, seconds: float, settle: float) -> dict[str, tuple[float, float]]:
    """Start the server of ``src``, let it idle, return {role: (ms CPU/s, wake-ups/s)}."""
    tmp = Path(tempfile.mkdtemp(prefix="chukker-idle-"))
    port, officials = pick_ports(2)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    env["PYTHONPATH"] = str(src)
    server = subprocess.Popen(
        [sys.executable, "-m", "chukker.web", "--db", str(tmp / "idle.sqlite3"), "--port",
         str(port), "--officials-port", str(officials), "--public-workers", "1", "--no-demo",
         "--open"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            try:
                if all(httpx.get(f"http://127.0.0.1:{p}/readyz", timeout=2).status_code == 200
                       for p in (port, officials)):
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        else:
            raise RuntimeError("the server did not become ready")
        time.sleep(settle)
        pids = descendants(server.pid)
        roles = {p: role(server.pid, p, pids) for p in pids}
        a = {p: schedstat(p) for p in pids}
        t0 = time.monotonic()
        time.sleep(seconds)
        b = {p: schedstat(p) for p in pids}
        span = time.monotonic() - t0
        out: dict[str, tuple[float, float]] = {}
        for p in pids:
            cpu, wakes = out.get(roles[p], (0.0, 0.0))
            out[roles[p]] = (cpu + (b[p][0] - a[p][0]) / 1e6 / span,
                             wakes + (b[p][1] - a[p][1]) / span)
        return out
    finally:
        stop(server, 10)
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", default="fd8b2e8", help="the revision compared (git)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--settle", type=float, default=3.0)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="chukker-idle-rev-"))
    try:
        trees = {"this tree": ROOT / "src", args.baseline: revision_tree(args.baseline, tmp)}
        runs: dict[str, list[dict[str, tuple[float, float]]]] = {k: [] for k in trees}
        for r in range(args.rounds):
            order = list(trees) if r % 2 == 0 else list(trees)[::-1]
            for name in order:
                got = measure(trees[name], args.seconds, args.settle)
                runs[name].append(got)
                print(f"round {r + 1}, {name}: " + "; ".join(
                    f"{k} {v[0]:.2f} ms/s, {v[1]:.1f} wake-ups/s" for k, v in sorted(got.items())),
                    flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load = os.getloadavg()[0]
    print(f"\nidle server, {args.rounds} rounds of {args.seconds:.0f} s (load {load:.2f}); "
          f"medians, this tree / {args.baseline}:")
    names = list(trees)
    roles = sorted({k for runs_ in runs.values() for got in runs_ for k in got})
    for k in [*roles, "every process"]:
        cells = []
        for name in names:
            if k == "every process":
                vals = [(sum(v[0] for v in g.values()), sum(v[1] for v in g.values()))
                        for g in runs[name]]
            else:
                vals = [g.get(k, (0.0, 0.0)) for g in runs[name]]
            cells.append((statistics.median(v[0] for v in vals),
                          statistics.median(v[1] for v in vals)))
        (c0, w0), (c1, w1) = cells
        ratio = f"{c0 / c1:.2f}x" if c1 > 0 else "-"
        print(f"  {k:13s} CPU {c0:6.2f} / {c1:6.2f} ms a second ({ratio}); "
              f"wake-ups {w0:6.1f} / {w1:6.1f} a second")


if __name__ == "__main__":
    main()
