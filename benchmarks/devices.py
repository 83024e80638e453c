"""Benchmark: device files from real-shaped recordings (issue 34).

1. ``chukker plays inspect`` on a 24,235-point multisport FIT (two timestamps 1 s back
   at the transitions): the whole command in a fresh process (start-up included) and
   the reading and summary alone, in this process.
2. A six-unit session of FIT files (10 Hz, ``--minutes`` each): the fast reader against
   ``fitdecode`` on the same files, in the same run, and their ratio.
3. Bad input, each refused: a truncated FIT, a zero-length file, a GPX with five million
   empty segments, a FIT whose header lies about its size.

    python benchmarks/devices.py [--minutes 10] [--repeat 3]

The files are written once with fit-tool into a temporary folder (slow: fit-tool is
pure Python) and removed at the end. Times are wall clock, best of ``--repeat``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from chukker.plays.device_writers import Glitches, fit_bytes, recording
from chukker.plays.devices import DeviceError, parse_device


def best_of(n: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def multisport(n: int = 24_235) -> bytes:
    """Three legs at 1 Hz, 2 s per record, two records 1 s back at the transitions."""
    ride = n / 1.0 - 40.0
    t, la, lo, _ = recording(rate_hz=1.0, ride_s=ride, lines_s=30.0, pauses=(), seed=7)
    t, la, lo = t[:n], la[:n], lo[:n]
    for i in (n // 3, 2 * n // 3):
        t[i] = t[i - 1] - 1.0
    return fit_bytes(t, la, lo)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from chukker.plays import fit
    from chukker.plays.inspect import inspect_files

    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores (shared: noisy)")
    with tempfile.TemporaryDirectory(prefix="chukker-bench-") as tmp:
        d = Path(tmp)
        big = d / "multisport.fit"
        big.write_bytes(multisport())
        tr = fit.read_fit(big.read_bytes(), big.name)
        print(f"multisport FIT: {big.stat().st_size} bytes, {tr.read} records, {tr.t.size} "
              f"kept, dropped {dict(tr.dropped)}")
        alone = best_of(args.repeat, lambda: inspect_files([big]))
        env = dict(os.environ)
        cmd = [sys.executable, "-m", "chukker.cli", "plays", "inspect", "--json", str(big)]
        cpu = []

        def command() -> None:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)

        whole = best_of(args.repeat, command)
        print(f"1. plays inspect, 24,235-point FIT: {whole:.3f} s wall, {min(cpu):.3f} s CPU "
              f"the whole command, start-up included (target < 0.5 s); "
              f"{alone * 1000:.1f} ms reading and summary alone")

        files = []
        for k in range(6):
            t, la, lo, _ = recording(rate_hz=10.0, ride_s=args.minutes * 60, lines_s=30.0,
                                     seed=k + 1, glitches=Glitches(backwards=(500,)))
            files.append(fit_bytes(t, la, lo))
        pts = sum(fit.read_fit(b, "u").read for b in files)
        fast = best_of(args.repeat, lambda: [fit.read_fit_fast(b, "u") for b in files])
        ref = best_of(1, lambda: [fit.read_fit_decode(b, "u") for b in files])
        print(f"2. six-unit session ({pts} records): fast {fast * 1000:.1f} ms, fitdecode "
              f"{ref * 1000:.0f} ms: {ref / fast:.1f}x (target >= 10x)")

        ok = files[0]
        bad = {
            "truncated FIT": ok[: len(ok) // 2],
            "zero-length file": b"",
            "GPX, 5 million empty segments": b'<?xml version="1.0"?><gpx version="1.1"><trk>'
            + b"<trkseg/>" * 5_000_000 + b"</trk></gpx>",
            "GPX, 150,000 points then 5 million empty segments":
            b'<gpx version="1.1"><trk><trkseg>' + b'<trkpt lat="1" lon="2"/>' * 150_000
            + b"</trkseg>" + b"<trkseg/>" * 5_000_000 + b"</trk></gpx>",
            "FIT header lies about its size": ok[:4] + (2**30).to_bytes(4, "little") + ok[8:],
        }
        print("3. bad input, each refused:")
        for what, data in bad.items():
            def refuse(data: bytes = data, what: str = what) -> None:
                try:
                    parse_device(data, "rider.bin")
                except DeviceError:
                    return
                raise SystemExit(f"{what}: not refused")
            print(f"   {what} ({len(data)} bytes): {best_of(args.repeat, refuse) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
