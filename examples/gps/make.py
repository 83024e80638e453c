"""Make the example GPS session from shipped scenarios (run from the project root).

    python examples/gps/make.py

Five shipped plays with the same four riders are strung together, with eight
seconds of riding between them, and logged as GPS units would log them: 10 Hz,
each unit starting at its own instant (up to 0.2 s apart), 0.5 m RMS error,
5 % of fixes lost, latitude and longitude on the arena of the contract example.
Seeded: the same files every time.

It also writes ``devices/``: the same riders as their own devices would have recorded
them, one file per unit (GX-104 a Garmin watch's FIT, GX-117 a phone app's GPX, GX-221
older Garmin software's TCX, GX-230 a phone GPX with a real device's quirks: 1 Hz, a
40-second gap, a clock 2 s ahead that the session corrects with ``offset_s = -2``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from chukker.plays import Tracking, load_shipped
from chukker.plays.device_writers import write_device_session
from chukker.plays.devices import DeviceKind
from chukker.plays.gps import (
    Degrade,
    analyse,
    example_projection,
    fixes_from_tracking,
    read_session,
    write_session,
)

HERE = Path(__file__).parent
PLAYS = (
    "13b-wide-zigzag",
    "13f-two-on-one",
    "13g-ride-at-striker",
    "13i-head-into-opponent",
    "13b-zigzag",
)
GAP_S = 8.0
RATE = 25.0


def strung() -> tuple[Tracking, list[tuple[str, float]]]:
    """The plays one after the other on one 25 Hz clock, and when each starts."""
    parts = [load_shipped(p).tracking() for p in PLAYS]
    players = parts[0].players
    ts, pos, starts = [], [], []
    t0 = 0.0
    for k, tr in enumerate(parts):
        assert tr.players == players, PLAYS[k]
        starts.append((PLAYS[k], t0))
        ts.append(tr.t + t0)
        pos.append(tr.pos)
        t0 += float(tr.t[-1])
        if k + 1 < len(parts):  # ride slowly from where this play ends to where the next starts
            n = round(GAP_S * RATE)
            w = (np.arange(1, n) / n)[:, None, None]
            ts.append(t0 + np.arange(1, n) / RATE)
            pos.append(tr.pos[-1] * (1 - w) + parts[k + 1].pos[0] * w)
            t0 += GAP_S
    return Tracking(np.concatenate(ts), players, np.concatenate(pos), None), starts


def main() -> None:
    tr, starts = strung()
    units = {"GX-104": tr.players[0], "GX-117": tr.players[1], "GX-221": tr.players[2],
             "GX-230": tr.players[3]}  # fmt: skip
    late = (("GX-117", 0.05), ("GX-221", 0.2), ("GX-230", 0.13))
    deg = Degrade(rate_hz=10.0, noise_m=0.5, drop=0.05, offsets_s=late)
    t, u, lat, lon = fixes_from_tracking(tr, example_projection(), units, deg, seed=2026)
    path = write_session(HERE / "session.toml", t, u, lat, lon, units)
    out = {
        "plays": [{"id": p, "start": round(s, 2)} for p, s in starts],
        "candidates": [c.to_json() for c in analyse(read_session(path))],
    }
    (HERE / "expected.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(path, len(t), "fixes")
    devices(tr, units, t, u, lat, lon)


def devices(tr: Tracking, units: dict[str, object], t: np.ndarray, u: list[str],
            lat: np.ndarray, lon: np.ndarray) -> None:
    """The device files of the same ride, and the quirky unit."""
    quirky = "GX-230"
    keep = np.ones(t.size, bool)
    rows = np.flatnonzero(np.asarray(u) == quirky)
    tq = t[rows]
    one_hz = np.zeros(rows.size, bool)
    one_hz[np.unique(np.searchsorted(tq, np.arange(tq[0], tq[-1], 1.0)))] = True
    gap = (tq > tq[0] + 2.0) & (tq < tq[0] + 42.0)
    keep[rows[~one_hz | gap]] = False
    kinds = {"GX-104": DeviceKind.FIT, "GX-117": DeviceKind.GPX, "GX-221": DeviceKind.TCX,
             quirky: DeviceKind.GPX}
    out = HERE / "devices"
    out.mkdir(exist_ok=True)
    path = write_device_session(out / "session.toml", t[keep], [x for x, k in zip(
        u, keep, strict=True) if k], lat[keep], lon[keep], units, kinds,  # type: ignore[arg-type]
        offsets_s={quirky: -2.0})
    print(path, int(keep.sum()), "fixes in", len(kinds), "device files")


if __name__ == "__main__":
    main()
