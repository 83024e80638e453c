"""A device's track as chukker keeps it (issue 34): the points kept, those dropped and
counted by reason (:class:`Drop`), the 5% rule and the gaps; shared by the GPX/TCX
reader (:mod:`chukker.plays.devices`) and the FIT readers (:mod:`chukker.plays.fit`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from chukker.plays.tracking import F64, TrackingError

#: points in one device file (a day at 10 Hz is 864,000)
MAX_POINTS = 1_000_000
#: a file of which more than this share of points is dropped is refused
MAX_DROPPED = 0.05
#: a pause longer than this between kept points is reported as a gap (seconds)
GAP_S = 5.0
#: a point further than this from the track's median time is a clock glitch (seconds):
#: a ride is hours long, never days, so the FIT epoch (1989) or a date in 2056 is never
#: resampled across
TIME_WINDOW_S = 12 * 3600.0
#: a time before 1970 or from 2100 on is no time (epoch seconds): no unit records then
EARLIEST_S, LATEST_S = 0.0, 4_102_444_800.0
#: the fastest a horse goes (m/s): a galloping horse does about 20 m/s. A point that
#: would need more, beyond :data:`SPEED_SLACK_M` of GPS error, is a glitch (issue 42)
MAX_SPEED_MPS = 20.0
#: the GPS error allowed on top of :data:`MAX_SPEED_MPS` between two points (metres)
SPEED_SLACK_M = 10.0

class DeviceError(TrackingError):
    """A device file that cannot be read; the message names the file and the point."""


class DeviceKind(StrEnum):
    GPX = "gpx"
    FIT = "fit"
    TCX = "tcx"


class Drop(StrEnum):
    """Why a device point is dropped (the keys of :attr:`DeviceTrack.dropped`)."""

    NO_TIME = "no_time"
    NO_POSITION = "no_position"
    OFF_EARTH = "off_earth"
    BACKWARDS = "backwards"
    SAME_TIME = "same_time"
    FORWARD = "forward"
    TOO_FAST = "too_fast"


#: how a refusal says each reason: "358 of 871 points have no time"
DROP_WORDS = {
    Drop.NO_TIME: "have no time",
    Drop.NO_POSITION: "have no position",
    Drop.OFF_EARTH: "have a position off the Earth",
    Drop.BACKWARDS: "go back in time",
    Drop.SAME_TIME: "repeat a time at another position",
    Drop.FORWARD: "jump ahead in time",
    Drop.TOO_FAST: f"would need a speed no horse has (over {MAX_SPEED_MPS:g} m/s)",
}


@dataclass(frozen=True, slots=True, eq=False)
class DeviceTrack:
    """One device's fixes: epoch seconds (UTC), degrees, and m/s and degrees from north
    where the file has them (NaN where a point has none); with what was read, dropped
    (by :class:`Drop`), merged, the gaps (epoch s, from and to) and notes (a CRC
    mismatch, a chained file)."""

    kind: DeviceKind
    t: F64
    lat: F64
    lon: F64
    speed: F64 | None = None
    heading: F64 | None = None
    read: int = 0
    dropped: Mapping[str, int] = field(default_factory=dict)
    merged: int = 0
    gaps: tuple[tuple[float, float], ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def rate_hz(self) -> float | None:
        """Points a second, from the median interval between kept points."""
        if self.t.size < 2:
            return None
        med = float(np.median(np.diff(self.t)))
        return round(1.0 / med, 3) if med > 0 else None

def finish(kind: DeviceKind, name: str, t: Any, lat: Any, lon: Any,
           speed: Any | None = None, heading: Any | None = None, *,
           whole_seconds: bool = False, notes: tuple[str, ...] = (),
           max_speed_mps: float = MAX_SPEED_MPS) -> DeviceTrack:
    """Keep the good points, drop and count the others, apply the 5% rule, find the
    gaps. ``t`` and the positions are NaN where a point has none; ``whole_seconds``:
    the times are whole seconds of a FIT file, spread over each second once kept.

    >>> tr = finish(DeviceKind.GPX, "a.gpx", [0, 1, 1, 0.5, 2, *range(3, 40)],
    ...             [1.0] * 42, [2.0] * 42)
    >>> tr.read, tr.t.size, dict(tr.dropped), tr.merged
    (42, 40, {'backwards': 1}, 1)

    A time far ahead (a point dated 2056 in a ride of 2026) and a position no horse
    could reach in time are glitches, dropped and counted:

    >>> t = [*range(40)]; t[20] = 2_600_000_000
    >>> la = [1.0 + k * 1e-5 for k in range(40)]; la[30] = 1.01  # a km away for a second
    >>> dict(finish(DeviceKind.GPX, "a.gpx", t, la, [2.0] * 40).dropped)
    {'forward': 1, 'too_fast': 1}
    """
    tt, la, lo = (np.asarray(v, dtype=np.float64) for v in (t, lat, lon))
    n = tt.size
    reason = np.zeros(n, dtype=np.int8)  # 0 kept, else 1 + the index in Drop
    codes = {d: i + 1 for i, d in enumerate(Drop)}
    with np.errstate(invalid="ignore"):
        no_time = ~((tt >= EARLIEST_S) & (tt < LATEST_S))  # NaN, or no date of a ride
    reason[no_time] = codes[Drop.NO_TIME]
    no_pos = ~no_time & ~np.isfinite(la + lo)
    reason[no_pos] = codes[Drop.NO_POSITION]
    with np.errstate(invalid="ignore"):
        off = (reason == 0) & ((np.abs(la) > 90) | (np.abs(lo) > 180))
    reason[off] = codes[Drop.OFF_EARTH]
    ok = np.flatnonzero(reason == 0)
    if ok.size > 1:
        ok = _time_glitches(tt, ok, reason, codes)
    merged = 0
    if kind is not DeviceKind.FIT and ok.size > 1:
        d = np.diff(tt[ok]) == 0
        dup = np.r_[False, d & (np.diff(la[ok]) == 0) & (np.diff(lo[ok]) == 0)]
        merged = int(dup.sum())
        ok = ok[~dup]
        same = np.r_[False, np.diff(tt[ok]) == 0]
        if same.any():
            whole = bool(np.all(tt[ok] == np.floor(tt[ok])))
            if whole:
                whole_seconds = True
            else:
                reason[ok[same]] = codes[Drop.SAME_TIME]
                ok = ok[~same]
    tk = tt[ok]
    if whole_seconds and ok.size:
        tk = np.asarray(spread_seconds(tk.astype(np.int64).tolist()), dtype=np.float64)
    if ok.size > 1:
        fast = too_fast(tk, la[ok], lo[ok], max_speed_mps)
        if fast.any():
            reason[ok[fast]] = codes[Drop.TOO_FAST]
            ok, tk = ok[~fast], tk[~fast]
    dropped = {d.value: int(np.count_nonzero(reason == c)) for d, c in codes.items()}
    dropped = {k: v for k, v in dropped.items() if v}
    lost = sum(dropped.values())
    if ok.size == 0:
        words = "; ".join(f"{v} of {n} points {DROP_WORDS[Drop(k)]}"
                          for k, v in dropped.items())
        raise DeviceError(f"{name}: no track points with a time and a position"
                          + (f" ({words})" if words else ""))
    # a FIT record or TCX trackpoint with no position at all is a sensor's sample (heart
    # rate before the GPS has a fix, a swim leg): counted, but not a track point for the
    # 5% rule; a GPX <trkpt> must have one. A point faster than a horse is not held
    # against the file either: a unit switched on at home moves at a lorry's speed
    sensor = dropped.get(Drop.NO_POSITION.value, 0) if kind is not DeviceKind.GPX else 0
    fast_n = dropped.get(Drop.TOO_FAST.value, 0)
    base, lost = n - sensor - fast_n, lost - sensor - fast_n
    if lost > MAX_DROPPED * base:
        words = "; ".join(f"{v} of {base} points {DROP_WORDS[Drop(k)]}"
                          for k, v in sorted(dropped.items(), key=lambda kv: -kv[1])
                          if not (sensor and k == Drop.NO_POSITION.value)
                          and k != Drop.TOO_FAST.value)
        raise DeviceError(f"{name}: {words}: more than {MAX_DROPPED:.0%} of the points "
                          "are unusable; the file is refused (export the recording again, "
                          "or send the watch's own FIT file)")

    def arr(v: Any | None) -> F64 | None:
        if v is None:
            return None
        a: F64 = np.asarray(v, dtype=np.float64)[ok]
        return None if bool(np.isnan(a).all()) else a

    jumps = np.flatnonzero(np.diff(tk) > GAP_S)
    gaps = tuple((float(tk[i]), float(tk[i + 1])) for i in jumps)
    return DeviceTrack(kind, tk, la[ok], lo[ok], arr(speed), arr(heading), n, dropped,
                       merged, gaps, notes)


def _time_glitches(tt: F64, ok: Any, reason: Any, codes: Mapping[Drop, int]) -> Any:
    """The points of ``ok`` whose times are in order; the others get their reason.

    * more than :data:`TIME_WINDOW_S` from the median time: ``forward`` (later) or
      ``backwards`` (earlier), so no clock glitch stretches the track over years;
    * later than a point that follows it by more than :data:`GAP_S`: ``forward`` (a
      jump ahead and back: the jump is the glitch, not every point after it);
    * earlier than the last point kept: ``backwards``.
    """
    tk = tt[ok]
    mid = float(np.median(tk))
    late, early = tk > mid + TIME_WINDOW_S, tk < mid - TIME_WINDOW_S
    reason[ok[late]] = codes[Drop.FORWARD]
    reason[ok[early]] = codes[Drop.BACKWARDS]
    ok = ok[~(late | early)]
    tk = tt[ok]
    if tk.size > 1:
        after = np.r_[np.minimum.accumulate(tk[::-1])[::-1][1:], np.inf]
        ahead = tk - after > GAP_S
        reason[ok[ahead]] = codes[Drop.FORWARD]
        ok, tk = ok[~ahead], tk[~ahead]
    if tk.size > 1:
        before = np.maximum.accumulate(tk)
        back = np.r_[False, tk[1:] < before[:-1]]  # earlier than the last kept point
        reason[ok[back]] = codes[Drop.BACKWARDS]
        ok = ok[~back]
    return ok


def too_fast(t: F64, lat: F64, lon: F64, max_speed_mps: float = MAX_SPEED_MPS,
             slack_m: float = SPEED_SLACK_M) -> Any:
    """Which points (times in order, degrees) no horse could have reached: further from
    their neighbour than ``max_speed_mps`` allows in the time between, beyond ``slack_m``
    of GPS error. First, a point whose steps in and out are both too fast (a spike, or a
    lorry on the road); then whatever is still too fast from the last point kept, read
    forwards and backwards, whichever drops fewer (a first point that is the glitch).

    >>> t = np.arange(6.0); la = np.full(6, 26.6); lo = np.full(6, -80.2)
    >>> la[2] = 26.7  # 11 km away for one second
    >>> too_fast(t, la, lo).tolist()
    [False, False, True, False, False, False]
    >>> la[2] = 26.6; la[0] = 26.7  # the first point
    >>> too_fast(t, la, lo).tolist()
    [True, False, False, False, False, False]
    """
    m = 111_320.0
    lat0 = float(np.median(lat))
    y = (lat - lat0) * m
    x = (lon - float(np.median(lon))) * m * max(0.01, math.cos(math.radians(lat0)))
    n = t.size
    step = np.hypot(np.diff(x), np.diff(y)) > max_speed_mps * np.diff(t) + slack_m
    out = np.zeros(n, dtype=bool)
    if not step.any():
        return out
    out = np.r_[False, step] & np.r_[step, False]  # interior points: spikes, a road
    keep = np.flatnonzero(~out)
    if keep.size == 0:
        return out
    rest = _anchored(t[keep], x[keep], y[keep], max_speed_mps, slack_m)
    out[keep[rest]] = True
    return out


def _anchored(t: F64, x: F64, y: F64, v: float, slack: float) -> Any:
    """Points too fast from the last point kept, read forwards and read backwards: the
    reading that drops fewer."""
    best = None
    for sign in (1, -1):
        tl, xl, yl = (a[::sign].tolist() for a in (t, x, y))
        drop = [False] * len(tl)
        j = 0
        for i in range(1, len(tl)):
            if math.hypot(xl[i] - xl[j], yl[i] - yl[j]) > v * abs(tl[i] - tl[j]) + slack:
                drop[i] = True
            else:
                j = i
        mask = np.asarray(drop[::sign], dtype=bool)
        if best is None or int(mask.sum()) < int(best.sum()):
            best = mask
    assert best is not None
    return best


def spread_seconds(secs: list[int]) -> list[float]:
    """Whole seconds, with the records of one second spread evenly over it at the unit's
    rate (the most records any one second has). A first second with fewer
    records (the unit started mid-second) ends at the rate; the others start at it.

    >>> spread_seconds([10, 10, 11, 11, 11, 11, 12])
    [10.5, 10.75, 11.0, 11.25, 11.5, 11.75, 12.0]
    """
    if not secs:
        return []
    s = np.asarray(secs, dtype=np.float64)
    starts = np.flatnonzero(np.r_[True, np.diff(s) != 0])
    counts = np.diff(np.r_[starts, s.size])
    rate = int(counts.max())
    per = np.full(counts.size, rate)
    within = (np.arange(s.size) - np.repeat(starts, counts)).astype(np.float64)
    within[: counts[0]] += per[0] - counts[0]  # a partial first second ends at the rate
    out: F64 = s + within / np.repeat(per, counts)
    return [float(x) for x in out]


