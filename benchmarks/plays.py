"""Benchmark: candidate fouls over one hour of 25 Hz tracking (six players and the ball).

Prints entity-frames per second of the vectorised NumPy path and of the plain
per-frame Python reference, and their ratio, measured in the same run. The
reference runs on a slice (``--reference-seconds``, default 120 s of the same
hour) and its rate is scaled by entity-frames, not extrapolated in time. Both
are timed best-of-``--repeat`` in CPU time of this process (``--clock wall`` for
wall time), which is steadier on a machine shared with other work.

    python benchmarks/plays.py [--seconds 3600] [--reference-seconds 120] [--mode gallop]

The GPS path (``--gps``, on by default): the same hour of six riders logged by GPS
units at 10 Hz (0.5 m RMS error, 5 % of fixes lost, units up to 0.2 s apart) and
analysed from latitude/longitude: projection, dropout filling, low-pass filter,
resampling to the common 25 Hz clock, and the detectors that run on a GPS
session. Its rate is GPS samples (fixes) per second, and it is reported as a
ratio to the detectors alone on the resampled tracking of the same session
(also in GPS samples per second), timed in the same run.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from chukker.plays import Tracking, detect, detect_reference
from chukker.plays.synthetic import generated_play


def _slice(tr: Tracking, frames: int) -> Tracking:
    ball = tr.ball[:frames] if tr.ball is not None else None
    return Tracking(tr.t[:frames], tr.players, tr.pos[:frames], ball, (), tr.defends)


def best_of(n: int, fn: object, clock: str = "process") -> float:
    assert callable(fn)
    now = time.process_time if clock == "process" else time.perf_counter
    best = float("inf")
    for _ in range(n):
        t0 = now()
        fn()
        best = min(best, now() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--seconds", type=float, default=3600.0)
    ap.add_argument("--reference-seconds", type=float, default=120.0)
    ap.add_argument("--mode", default="match", choices=["match", "gallop", "melee", "slow"])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--clock", default="process", choices=["process", "wall"])
    ap.add_argument("--no-gps", dest="gps", action="store_false", help="skip the GPS path")
    args = ap.parse_args()
    if args.gps:
        gps_path(args)

    tr = generated_play(7, seconds=args.seconds, region=(0.0, 0.0, 100.0, 50.0), mode=args.mode)
    tr = Tracking(tr.t, tr.players, tr.pos, tr.ball, (), tr.defends)
    ef = tr.entity_frames
    ref = _slice(tr, int(args.reference_seconds * 25) + 1)
    cands = detect(tr)
    t_np = best_of(args.repeat, lambda: detect(tr), args.clock)
    t_ref = best_of(max(1, args.repeat // 2), lambda: detect_reference(ref), args.clock)
    # both paths agree on the slice
    assert [c.to_json() for c in detect(ref)] == [c.to_json() for c in detect_reference(ref)]
    rate_np = ef / t_np
    rate_ref = ref.entity_frames / t_ref
    print(
        f"tracking: {args.seconds:g} s at 25 Hz, {len(tr.players)} players + ball, mode {args.mode}"
    )
    per = Counter(str(c.clause) for c in cands)
    print(
        f"entity-frames: {ef:,}; candidates: {len(cands):,} "
        f"({len(cands) / (args.seconds / 60):.1f} a minute: "
        + ", ".join(f"{k} {v}" for k, v in sorted(per.items()))
        + ")"
    )
    print(f"numpy:     {t_np:8.3f} s  {rate_np / 1e6:8.2f} M entity-frames/s")
    print(
        f"reference: {t_ref:8.3f} s  {rate_ref / 1e6:8.3f} M entity-frames/s "
        f"(on {ref.entity_frames:,} entity-frames, scaled by entity-frames)"
    )
    print(f"ratio numpy / reference: {rate_np / rate_ref:,.0f}x ({args.clock} time, best of runs)")


def gps_path(args: argparse.Namespace) -> None:
    from chukker.plays import gps, gps_sessions

    tr = generated_play(7, seconds=args.seconds, region=(0.0, 0.0, 100.0, 50.0), mode=args.mode)
    riders = Tracking(tr.t, tr.players, tr.pos, None, (), tr.defends)
    proj = gps_sessions.example_projection()
    units = gps_sessions.unit_names(riders)
    late = tuple((u, 0.04 * k) for k, u in enumerate(units))
    deg = gps_sessions.Degrade(rate_hz=10.0, noise_m=0.5, drop=0.05, offsets_s=late)
    t, u, lat, lon = gps_sessions.fixes_from_tracking(riders, proj, units, deg, seed=7)
    n = t.size

    def whole() -> list[object]:
        ses = gps.session_from_fixes(t, u, lat, lon, units, proj)
        return list(gps.analyse(ses))

    ses = gps.session_from_fixes(t, u, lat, lon, units, proj)
    cands = gps.analyse(ses)
    t_proj = best_of(args.repeat, lambda: proj.to_arena(lat, lon), args.clock)
    t_all = best_of(args.repeat, whole, args.clock)
    t_det = best_of(args.repeat, lambda: gps.analyse(ses), args.clock)
    per = Counter(str(c.clause) for c in cands)
    print(
        f"gps: {args.seconds:g} s, {len(units)} riders at 10 Hz: {n:,} fixes "
        f"(filled {sum(r.filled for r in ses.units):,}), resampled to "
        f"{ses.tracking.frames:,} frames at 25 Hz; candidates: {len(cands):,} ("
        + ", ".join(f"{k} {v}" for k, v in sorted(per.items()))
        + ")"
    )
    print(f"gps whole path:  {t_all:8.3f} s  {n / t_all / 1e6:8.2f} M GPS samples/s")
    print(
        f"  projection:    {t_proj:8.3f} s; fill, filter, resample: "
        f"{max(0.0, t_all - t_det - t_proj):.3f} s; detectors: {t_det:.3f} s"
    )
    print(f"detectors only:  {t_det:8.3f} s  {n / t_det / 1e6:8.2f} M GPS samples/s")
    print(
        f"ratio whole path / detectors only: {t_det / t_all:.2f} ({args.clock} time, best of runs)"
    )
    devices_path(args, t, u, lat, lon, units, proj, n)


def devices_path(args: argparse.Namespace, t: object, u: list[str], lat: object, lon: object,
                 units: dict[str, object], proj: object, n: int) -> None:
    """The same hour as six FIT files (one per rider, fit-tool's writer): reading them
    against reading the same fixes from one CSV, and the whole path to candidates."""
    import tempfile
    from pathlib import Path

    from chukker.plays import gps, gps_sessions
    from chukker.plays.device_writers import write_device_session
    from chukker.plays.devices import DeviceKind, read_device

    with tempfile.TemporaryDirectory() as d:
        csv = gps_sessions.write_session(Path(d) / "csv.toml", t, u, lat, lon, units)  # type: ignore[arg-type]
        fit = write_device_session(Path(d) / "fit.toml", t, u, lat, lon,  # type: ignore[arg-type]
                                   units, dict.fromkeys(units, DeviceKind.FIT))  # type: ignore[arg-type]
        files = sorted(Path(d).glob("fit-*.fit"))
        t_fit = best_of(args.repeat, lambda: [read_device(f) for f in files], args.clock)
        t_csv = best_of(args.repeat, lambda: gps.read_fixes(Path(d) / "csv-fixes.csv"),
                        args.clock)
        t_fit_all = best_of(args.repeat, lambda: gps.analyse(gps.read_session(fit)), args.clock)
        t_csv_all = best_of(args.repeat, lambda: gps.analyse(gps.read_session(csv)), args.clock)
    print(f"six FIT files:   {t_fit:8.3f} s  {n / t_fit / 1e6:8.2f} M fixes/s read; "
          f"one CSV of the same fixes {t_csv:.3f} s ({n / t_csv / 1e6:.2f} M/s): "
          f"ratio FIT / CSV {t_fit / t_csv:.2f}x")
    print(f"six FIT files to candidates: {t_fit_all:8.3f} s  {n / t_fit_all / 1e6:8.2f} M fixes/s "
          f"(the CSV session {t_csv_all:.3f} s: {t_fit_all / t_csv_all:.2f}x)")


if __name__ == "__main__":
    main()
