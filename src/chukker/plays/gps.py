"""GPS sessions (contract ``chukker-gps/1``): fixes in latitude/longitude to arena tracking.

A session is a TOML file (arena corners, unit -> entity) and a CSV or Parquet of
fixes ``time,unit,lat,lon``. The path from fixes to :class:`Tracking`:

1. **Projection.** Latitude/longitude go to metres on a transverse Mercator
   plane centred on the arena (``pyproj``, WGS84 ellipsoid), then to arena yards
   by the plane projective map (homography) that sends the four corners exactly to
   ``(0, 0)``, ``(0, 50)``, ``(100, 50)``, ``(100, 0)``: the arena need not face
   north, and a slightly skewed survey still maps its corners exactly.
2. **Outside.** A fix more than 20 yd outside the arena is dropped and counted.
3. **Dropouts.** Each unit gets its own regular clock at its median interval,
   from its first to its last fix; positions there are interpolated linearly
   between fixes, and a clock instant with no fix within half an interval is
   counted as *filled*.
4. **Smoothing.** A zero-phase low-pass filter on each coordinate of the unit's
   regular track: Butterworth of order 2, cut-off ``CUTOFF_HZ`` (1.3 Hz), run
   forwards and backwards (``scipy.signal.butter`` + ``filtfilt``). Frame-to-frame
   GPS noise would otherwise become metres a second of false speed; a horse's
   swerves (a second or more each way) pass.
5. **Common clock.** Units are not synchronised: every track is interpolated
   linearly onto one 25 Hz clock (as scenarios), starting at the first fix of the
   session. Before a unit's first fix and after its last its position is held.

>>> proj = ArenaProjection.from_corners(
...     sw=(26.615, -80.2), nw=(26.61541, -80.2), ne=(26.61541, -80.19909), se=(26.615, -80.19909))
>>> [round(float(v), 6) for v in proj.to_arena([26.61541], [-80.19909])[0].tolist() +
...  proj.to_arena([26.61541], [-80.19909])[1].tolist()]
[100.0, 50.0]
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from chukker.plays.device_track import GAP_S
from chukker.plays.tracking import (
    F64,
    Event,
    PlayerId,
    Side,
    Tracking,
    TrackingError,
    read_tracking,
)

FORMAT = "chukker-gps/1"
CORNERS = ("sw", "nw", "ne", "se")
OUTSIDE_YD = 20.0
CUTOFF_HZ = 1.3
SMOOTH_ORDER = 2
CLOCK_S = 0.04  # the common clock: 25 Hz, as scenarios
#: positions (frames x units) a session's common clock may hold: the cap of a tracking
#: file's rows (:data:`chukker.limits.MAX_ROWS`: 3.7 hours of six units at 25 Hz)
MAX_FRAMES = 2_000_000
YD_PER_M = 1.0 / 0.9144


class GPSError(TrackingError):
    """A GPS session or its fixes are malformed; the message names the file, row and unit."""


# --------------------------------------------------------------------------- projection


def _homography(src: F64, dst: F64) -> F64:
    """The 3x3 projective map sending four points ``src`` exactly to ``dst``."""
    rows = []
    rhs = []
    for (x, y), (u, v) in zip(src.tolist(), dst.tolist(), strict=True):
        rows.append([x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y])
        rows.append([0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y])
        rhs += [u, v]
    h = np.linalg.solve(np.array(rows), np.array(rhs))
    out: F64 = np.append(h, 1.0).reshape(3, 3)
    return out


def _apply(h: F64, x: F64, y: F64) -> tuple[F64, F64]:
    w = h[2, 0] * x + h[2, 1] * y + h[2, 2]
    u = (h[0, 0] * x + h[0, 1] * y + h[0, 2]) / w
    v = (h[1, 0] * x + h[1, 1] * y + h[1, 2]) / w
    return u, v


@dataclass(frozen=True, slots=True, eq=False)
class ArenaProjection:
    """WGS84 latitude/longitude <-> arena yards, exact at the four corners."""

    lat0: float
    lon0: float
    to_yd: F64  # homography: local metres -> arena yards
    from_yd: F64
    length: float = 100.0
    width: float = 50.0

    @classmethod
    def from_corners(
        cls,
        sw: tuple[float, float],
        nw: tuple[float, float],
        ne: tuple[float, float],
        se: tuple[float, float],
        length: float = 100.0,
        width: float = 50.0,
    ) -> ArenaProjection:
        lats = [sw[0], nw[0], ne[0], se[0]]
        lons = [sw[1], nw[1], ne[1], se[1]]
        lat0, lon0 = sum(lats) / 4, sum(lons) / 4
        ex, ny = _local(lat0, lon0, np.array(lats), np.array(lons), inverse=False)
        src = np.stack([ex, ny], axis=1)
        dst = np.array([[0.0, 0.0], [0.0, width], [length, width], [length, 0.0]])
        try:
            h = _homography(src, dst)
            hi: F64 = np.asarray(np.linalg.inv(h), dtype=np.float64)
        except np.linalg.LinAlgError:
            raise GPSError("arena: the four corners do not make a quadrilateral") from None
        return cls(lat0, lon0, h, hi, length, width)

    def to_arena(self, lat: Any, lon: Any) -> tuple[F64, F64]:
        """Arena yards ``(x, y)`` of WGS84 degrees."""
        ex, ny = _local(self.lat0, self.lon0, np.asarray(lat, float), np.asarray(lon, float), False)
        return _apply(self.to_yd, ex, ny)

    def to_latlon(self, x: Any, y: Any) -> tuple[F64, F64]:
        """WGS84 degrees ``(lat, lon)`` of arena yards (to write synthetic sessions)."""
        ex, ny = _apply(self.from_yd, np.asarray(x, float), np.asarray(y, float))
        return _local(self.lat0, self.lon0, ex, ny, inverse=True)


def _local(lat0: float, lon0: float, a: F64, b: F64, inverse: bool) -> tuple[F64, F64]:
    """Transverse Mercator plane (metres east, north) about ``lat0, lon0`` with pyproj."""
    tf = _transformer(round(lat0, 9), round(lon0, 9))
    if inverse:  # (east, north) -> (lat, lon)
        lon, lat = tf.transform(a, b, direction="INVERSE")
        return np.asarray(lat, float), np.asarray(lon, float)
    e, n = tf.transform(b, a)
    return np.asarray(e, float), np.asarray(n, float)


_TF: dict[tuple[float, float], Any] = {}


def _transformer(lat0: float, lon0: float) -> Any:
    from pyproj import Transformer

    key = (lat0, lon0)
    if key not in _TF:
        _TF[key] = Transformer.from_crs(
            "EPSG:4326",
            f"+proj=tmerc +lat_0={lat0} +lon_0={lon0} +datum=WGS84 +units=m",
            always_xy=True,
        )
    return _TF[key]


# --------------------------------------------------------------------------- session


@dataclass(frozen=True, slots=True)
class UnitReport:
    """What happened to one unit's fixes."""

    unit: str
    entity: str
    read: int
    dropped: int
    filled: int
    median_interval_s: float | None
    #: for a unit with its own device file: its format, the first and last fix used
    #: (epoch s) and the fixes cut before, after and between them (outside the arena)
    device: str | None = None
    first_used: float | None = None
    last_used: float | None = None
    cut_before: int = 0
    cut_after: int = 0
    #: pauses longer than :data:`chukker.plays.devices.GAP_S` between the fixes used, in
    #: seconds from the session's start: reported, and no candidate of the unit's rider
    #: is kept across one (the track there is interpolated, not seen)
    gaps: tuple[tuple[float, float], ...] = ()
    #: for a unit with its own device file: what the reader kept, dropped (by reason),
    #: merged and noted (:func:`chukker.plays.devices.summary`'s counts)
    file: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "entity": self.entity,
            "read": self.read,
            "dropped": self.dropped,
            "filled": self.filled,
            "median_interval_s": None
            if self.median_interval_s is None
            else round(self.median_interval_s, 4),
            "gaps": [{"from": round(a, 3), "to": round(b, 3), "s": round(b - a, 3)}
                     for a, b in self.gaps],
        }
        if self.file is not None:
            out["file"] = dict(self.file)
        if self.device is not None:
            out["device"] = self.device
            out["trim"] = {
                "first_used": iso(self.first_used),
                "last_used": iso(self.last_used),
                "cut_before": self.cut_before,
                "cut_after": self.cut_after,
                "cut_between": self.dropped - self.cut_before - self.cut_after,
            }
        return out


def iso(epoch_s: float | None, timespec: str = "milliseconds") -> str | None:
    if epoch_s is None:
        return None
    try:
        return datetime.fromtimestamp(epoch_s, UTC).isoformat(timespec=timespec)
    except (OverflowError, ValueError, OSError):  # seconds beyond datetime's years
        return None


#: clause -> why it is not run on a GPS session (without a ball track)
NOT_RUN_WITHOUT_BALL = {
    "12": "needs the line of the ball: the session names no ball track",
    "13d": "needs the line of the ball: the session names no ball track",
    "13k": "needs the ball (possession): the session names no ball track",
}
#: clauses never run on GPS sessions, and why
NOT_RUN_ON_GPS = {
    "13a": "judges angle and speeds at the first instant of contact, finer than GPS error",
    "13j": "needs the ridden player within 2 yd of the wall, within GPS error",
    "13h": "needs stroke events, which a GPS session does not have",
}


@dataclass(frozen=True, slots=True, eq=False)
class GPSSession:
    """A GPS session read into tracking, with what was read, dropped and filled."""

    tracking: Tracking
    units: tuple[UnitReport, ...]
    interval_s: float
    start_epoch_s: float
    projection: ArenaProjection
    not_run: dict[str, str] = field(default_factory=dict)
    #: each rider's gaps (seconds from the start), from the units' reports
    gaps: dict[PlayerId, tuple[tuple[float, float], ...]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "units": {u.unit: u.to_json() for u in self.units},
            "clock_interval_s": round(self.interval_s, 4),
            "start": iso(self.start_epoch_s, "auto"),
            "not_run": [{"clause": c, "reason": r} for c, r in sorted(self.not_run.items())],
        }

    def runs(self, clause: str) -> bool:
        return clause not in self.not_run

    def keeps(self, cand: Any) -> bool:
        """A candidate is kept when its clause runs and its rider's unit saw him all
        along: a candidate overlapping one of his unit's gaps is not (issue 34: a gap
        is reported, not interpolated over)."""
        if not self.runs(str(cand.clause)):
            return False
        gaps = self.gaps.get(PlayerId(cand.team, cand.player), ())
        return not any(cand.start < b and cand.end > a for a, b in gaps)


def is_session(path: str | Path) -> bool:
    """True when ``path`` is a TOML file with ``format = "chukker-gps/1"``."""
    p = Path(path)
    if p.suffix.lower() != ".toml":
        return False
    from chukker.limits import LimitError, loads_toml

    try:
        doc = loads_toml(p.read_text(encoding="utf-8"), p.name)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError, LimitError):
        return False
    return doc.get("format") == FORMAT


def corner_pair(v: Any, where: str) -> tuple[float, float]:
    if (
        not isinstance(v, list)
        or len(v) != 2
        or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in v)
    ):
        raise GPSError(f"{where}: expected [lat, lon] in degrees")
    lat, lon = float(v[0]), float(v[1])
    if not (-90 <= lat <= 90 and -180 <= lon <= 180):
        raise GPSError(f"{where}: [{lat}, {lon}] is not a latitude and longitude")
    return lat, lon


def session_file(
    p: Path, value: str, key: str, files: Mapping[str, Path] | None = None
) -> Path:
    """The file a session's ``fixes`` or ``ball`` names.

    On the command line (``files`` is ``None``) it is relative to the session's folder.
    For an upload, ``files`` holds the files of the same request by their names, and
    the session may name only those: never a server path (absolute, ``..``, or any
    other), and the refusal neither echoes the name nor tells whether it exists.

    >>> session_file(Path("s.toml"), "/etc/passwd", "fixes", {"f.csv": Path("/tmp/f.csv")})
    Traceback (most recent call last):
    ...
    chukker.limits.LimitError: s.toml: fixes: names a file that is not part of this upload; ...
    """
    if files is None:
        return p.parent / value
    from chukker.limits import LimitError

    found = files.get(value.strip())
    if found is None or "/" in value or "\\" in value:
        raise LimitError("not_in_upload", {"where": f"{p.name}: {key}"})
    return found


def read_session(
    path: str | Path, cutoff_hz: float = CUTOFF_HZ, files: Mapping[str, Path] | None = None
) -> GPSSession:
    """Read a ``chukker-gps/1`` session TOML and its fixes into tracking.

    ``files``: for an upload, the other files of the request by name (see
    :func:`session_file`); ``None`` on the command line."""
    from chukker.limits import loads_toml

    p = Path(path)
    try:
        doc = loads_toml(p.read_text(encoding="utf-8"), p.name)
    except OSError as exc:
        raise GPSError(f"{p}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise GPSError(f"{p}: not TOML: {exc}") from None
    if doc.get("format") != FORMAT:
        raise GPSError(f"{p}: format: expected {FORMAT!r}, found {doc.get('format')!r}")
    arena = doc.get("arena")
    if not isinstance(arena, Mapping):
        raise GPSError(f"{p}: [arena]: missing (the four corners sw, nw, ne, se)")
    corners: dict[str, tuple[float, float]] = {}
    for c in CORNERS:
        if c not in arena:
            raise GPSError(f"{p}: [arena]: corner {c!r} missing")
        corners[c] = corner_pair(arena[c], f"{p}: [arena] {c}")
    units = doc.get("units")
    if not isinstance(units, Mapping) or not units:
        raise GPSError(f'{p}: [units]: missing (unit id = "TEAM:NO")')
    entity: dict[str, PlayerId] = {}
    own: dict[str, tuple[str, float]] = {}  # unit -> (its device file, offset_s)
    for u, e in units.items():
        if isinstance(e, Mapping):
            own[str(u)] = _unit_file(e, f"{p.name}: [units] {u!r}")
            e = e.get("entity")
        if not isinstance(e, str):
            raise GPSError(f'{p}: [units] {u!r}: expected an entity such as "blue:1"')
        try:
            entity[str(u)] = PlayerId.parse(e, f"{p}: [units] {u!r}")
        except TrackingError as exc:
            raise GPSError(str(exc)) from None
    if len(set(entity.values())) != len(entity):
        raise GPSError(f"{p}: [units]: two units name the same player")
    fixes = doc.get("fixes")
    if not isinstance(fixes, str) and not (own and fixes is None and len(own) == len(entity)):
        raise GPSError(f"{p}: fixes: expected the path of the CSV or Parquet of fixes "
                       "(or a file for every unit in [units])")
    proj = ArenaProjection.from_corners(corners["sw"], corners["nw"], corners["ne"], corners["se"])
    if isinstance(fixes, str):
        t, unit, lat, lon = read_fixes(session_file(p, fixes, "fixes", files))
    else:
        t, unit, lat, lon = np.empty(0), [], np.empty(0), np.empty(0)
    devices: dict[str, str] = {}
    reads: dict[str, Any] = {}
    if own:
        from chukker.plays.devices import read_device

        parts_t, parts_la, parts_lo = [t], [lat], [lon]
        for u, (name, offset) in own.items():
            if u in unit:
                raise GPSError(f"{p.name}: [units] {u!r}: has its own file and rows in {fixes}")
            tr = read_device(session_file(p, name, "units", files), name)
            devices[u] = tr.kind.value
            reads[u] = tr
            parts_t.append(tr.t + offset)
            parts_la.append(tr.lat)
            parts_lo.append(tr.lon)
            unit = unit + [u] * tr.t.size
        t, lat, lon = (np.concatenate(v) for v in (parts_t, parts_la, parts_lo))
    ball = None
    ball_file = doc.get("ball")
    if ball_file is not None:
        if not isinstance(ball_file, str):
            raise GPSError(f"{p}: ball: expected the path of a tracking CSV in arena yards")
        btr = read_tracking(session_file(p, ball_file, "ball", files))
        if btr.ball is None:
            raise GPSError(f"{p}: ball: {ball_file} has no 'ball' rows")
        ball = (btr.t, btr.ball)
    defends: list[tuple[str, Side]] = []
    for team, side in (doc.get("defends") or {}).items():
        try:
            defends.append((str(team).lower(), Side(str(side).lower())))
        except ValueError:
            raise GPSError(f"{p}: [defends] {team}: expected 'left' or 'right'") from None
    events: tuple[Event, ...] = ()
    ses = session_from_fixes(
        t,
        unit,
        lat,
        lon,
        entity,
        proj,
        where=(fixes if files is not None else str(p.parent / fixes))
        if isinstance(fixes, str) else p.name,
        cutoff_hz=cutoff_hz,
        ball=ball,
        defends=tuple(defends),
        events=events,
        devices=devices,
    )
    if not reads:
        return ses
    from dataclasses import replace

    units_ = tuple(replace(r, file=_file_report(reads[r.unit])) if r.unit in reads else r
                   for r in ses.units)
    return replace(ses, units=units_)


def _file_report(tr: Any) -> dict[str, Any]:
    """What a unit's device file gave: points in the file, kept, dropped by reason."""
    return {"kind": tr.kind.value, "points": tr.read, "kept": int(tr.t.size),
            "dropped": dict(tr.dropped), "merged": tr.merged, "rate_hz": tr.rate_hz,
            "notes": list(tr.notes)}


def _unit_file(e: Mapping[str, Any], where: str) -> tuple[str, float]:
    """A unit's own device file and clock offset: ``{entity, file, offset_s?}``."""
    unknown = sorted(set(e) - {"entity", "file", "offset_s"})
    if unknown:
        raise GPSError(f"{where}: unknown key {unknown[0]!r} (entity, file, offset_s)")
    name = e.get("file")
    if not isinstance(name, str) or not name.strip():
        raise GPSError(f"{where}: file: expected the name of the unit's GPX, FIT or TCX file")
    offset = e.get("offset_s", 0.0)
    if isinstance(offset, bool) or not isinstance(offset, int | float) \
            or not math.isfinite(offset) or abs(offset) > 86_400:
        raise GPSError(f"{where}: offset_s: expected seconds (at most a day either way)")
    return name, float(offset)


def _parse_times(values: list[Any], units: list[str], where: str) -> F64:
    """Seconds since the Unix epoch of ISO 8601 texts (with a zone) or numbers."""
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.compute as pc  # type: ignore[import-untyped]

    arr = pa.array(values)
    if pa.types.is_floating(arr.type) or pa.types.is_integer(arr.type):
        out = np.asarray(arr.to_numpy(zero_copy_only=False), dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(out))
        if bad.size:
            i = int(bad[0])
            raise GPSError(f"{where}: row {i + 1} (unit {units[i]}): time is empty")
        return out
    if pa.types.is_timestamp(arr.type):
        ns = pc.cast(arr, pa.int64()).to_numpy(zero_copy_only=False)
        return (
            np.asarray(ns, dtype=np.float64)
            / {"s": 1, "ms": 1e3, "us": 1e6, "ns": 1e9}[arr.type.unit]
        )
    try:
        num = pc.cast(arr, pa.float64())
        return np.asarray(num.to_numpy(zero_copy_only=False), dtype=np.float64)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    try:
        ts = pc.cast(arr, pa.timestamp("ns", tz="UTC"))
        return np.asarray(pc.cast(ts, pa.int64()).to_numpy(zero_copy_only=False), float) / 1e9
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    for i, v in enumerate(values):  # find the row at fault
        try:
            float(v)
            continue
        except (TypeError, ValueError):
            pass
        try:
            d = datetime.fromisoformat(str(v))
        except ValueError:
            raise GPSError(
                f"{where}: row {i + 1} (unit {units[i]}): time {v!r} is not ISO 8601 "
                "or seconds since the Unix epoch"
            ) from None
        if d.tzinfo is None:
            raise GPSError(
                f"{where}: row {i + 1} (unit {units[i]}): time {v!r} has no zone (add Z or +hh:mm)"
            )
    raise GPSError(f"{where}: column time mixes numbers and dates")


def read_fixes(path: str | Path) -> tuple[F64, list[str], F64, F64]:
    """Columns ``time`` (epoch seconds), ``unit``, ``lat``, ``lon`` of a CSV or Parquet file."""
    import pyarrow as pa
    import pyarrow.csv as pacsv  # type: ignore[import-untyped]

    from chukker.limits import LimitError
    from chukker.plays.files import kind_of, read_table

    p = Path(path)
    try:
        table = read_table(
            p,
            kind_of(p),
            pacsv.ConvertOptions(
                column_types={"time": pa.string(), "unit": pa.string()},
                strings_can_be_null=True,
            ),
        )
    except FileNotFoundError:
        raise GPSError(f"{p}: no such file of fixes") from None
    except LimitError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow raises its own types
        raise GPSError(f"{p.name}: cannot read the fixes: {exc}") from None
    missing = [c for c in ("time", "unit", "lat", "lon") if c not in table.column_names]
    if missing:
        raise GPSError(f"{p}: missing column(s) {', '.join(missing)} (need time,unit,lat,lon)")
    units = table.column("unit").to_pylist()
    for i, u in enumerate(units):
        if u is None or not str(u).strip():
            raise GPSError(f"{p}: row {i + 1}: unit is empty")
    units = [str(u).strip() for u in units]
    times = table.column("time").to_pylist()
    for i, v in enumerate(times) if table.column("time").null_count else ():
        if v is None:
            raise GPSError(f"{p}: row {i + 1} (unit {units[i]}): time is empty")
    t = _parse_times(times, units, str(p))
    cols = []
    for name, lim in (("lat", 90.0), ("lon", 180.0)):
        col = table.column(name)
        try:
            a = np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64)
        except (ValueError, TypeError, pa.ArrowInvalid):
            a = np.array([_num(v) for v in col.to_pylist()], dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(a) | (np.abs(a) > lim))
        if bad.size:
            i = int(bad[0])
            raise GPSError(
                f"{p}: row {i + 1} (unit {units[i]}): {name} {col[i].as_py()!r} is not "
                f"a number of degrees within ±{lim:g}"
            )
        cols.append(a)
    return t, units, cols[0], cols[1]


def _num(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _smooth(v: F64, step: float, cutoff_hz: float) -> F64:
    """Zero-phase low-pass: Butterworth of order 2 run forwards and backwards (``filtfilt``)."""
    from scipy.signal import butter, filtfilt  # type: ignore[import-untyped]

    nyq = 0.5 / step
    if v.size <= 9 or cutoff_hz >= nyq:
        return v
    b, a = butter(SMOOTH_ORDER, cutoff_hz / nyq)
    out: F64 = filtfilt(b, a, v)
    return out


def session_from_fixes(
    t: F64,
    unit: list[str],
    lat: F64,
    lon: F64,
    entity: Mapping[str, PlayerId],
    proj: ArenaProjection,
    where: str = "fixes",
    cutoff_hz: float = CUTOFF_HZ,
    ball: tuple[F64, F64] | None = None,
    defends: tuple[tuple[str, Side], ...] = (),
    events: tuple[Event, ...] = (),
    devices: Mapping[str, str] | None = None,
) -> GPSSession:
    """Project, drop outliers, fill dropouts, smooth and resample fixes to a common clock.

    ``ball``: an optional ball track ``(t, xy)`` in seconds from the first fix.
    ``devices``: unit -> format, for the units read from their own device files: their
    recordings start in the lorry park and end at the barn, so the session's clock
    starts at the first fix used (inside the arena, by the 20 yd rule), and each such
    unit reports what was cut before, after and between its first and last fix used.
    """
    n = t.size
    if n == 0:
        raise GPSError(f"{where}: no fixes")
    codes = {u: i for i, u in enumerate(dict.fromkeys(unit))}
    unknown = [u for u in codes if u not in entity]
    if unknown:
        row = list(unit).index(unknown[0]) + 1
        raise GPSError(f"{where}: row {row} (unit {unknown[0]}): unit not in the session's [units]")
    code = np.fromiter(map(codes.__getitem__, unit), dtype=np.int64, count=n)
    x, y = proj.to_arena(lat, lon)
    L, W = proj.length, proj.width
    out_d = np.maximum.reduce(
        [-x, x - L, -y, y - W, np.zeros(n)]
    )  # distance outside the arena along the worse axis
    inside = out_d <= OUTSIDE_YD
    devices = devices or {}
    t0 = float(np.min(t[inside])) if devices and inside.any() else float(np.min(t))
    rel = t - t0
    _verify_span(rel, inside, len(codes), where)
    order = np.lexsort((rel, code))
    reports: list[UnitReport] = []
    gap_of: dict[PlayerId, tuple[tuple[float, float], ...]] = {}
    tracks: dict[PlayerId, tuple[F64, F64, F64]] = {}
    names = list(codes)
    bounds = np.searchsorted(code[order], np.arange(len(names) + 1))
    for c, u in enumerate(names):
        rows = order[bounds[c] : bounds[c + 1]]
        tu = rel[rows]
        if tu.size > 1:
            same = np.flatnonzero(np.diff(tu) == 0)
            if same.size:
                r = int(max(rows[same[0]], rows[same[0] + 1])) + 1
                raise GPSError(f"{where}: row {r} (unit {u}): a second fix at the same time")
        keep = rows[inside[rows]]
        dropped = int(rows.size - keep.size)
        tu, xu, yu = rel[keep], x[keep], y[keep]
        med = float(np.median(np.diff(tu))) if tu.size > 1 else None
        jumps = np.flatnonzero(np.diff(tu) > GAP_S)
        gaps = tuple((float(tu[i]), float(tu[i + 1])) for i in jumps)
        if gaps:
            gap_of[entity[u]] = gaps
        filled = 0
        if med is not None and med > 0:
            k = max(1, min(MAX_FRAMES, round((tu[-1] - tu[0]) / med)))
            step = (tu[-1] - tu[0]) / k
            grid = tu[0] + np.arange(k + 1) * step
            near = np.searchsorted(tu, grid)
            lo = np.abs(grid - tu[np.clip(near - 1, 0, tu.size - 1)])
            hi = np.abs(tu[np.clip(near, 0, tu.size - 1)] - grid)
            filled = int(np.count_nonzero(np.minimum(lo, hi) > 0.5 * step))
            gx, gy = np.interp(grid, tu, xu), np.interp(grid, tu, yu)
            if cutoff_hz > 0:
                gx, gy = _smooth(gx, step, cutoff_hz), _smooth(gy, step, cutoff_hz)
            tracks[entity[u]] = (grid, gx, gy)
        elif tu.size:
            tracks[entity[u]] = (tu, xu, yu)
        if u in devices:
            used = np.flatnonzero(inside[rows])
            first = int(used[0]) if used.size else rows.size
            last = int(used[-1]) if used.size else rows.size - 1
            reports.append(UnitReport(
                u, str(entity[u]), int(rows.size), dropped, filled, med, devices[u],
                float(t[rows[first]]) if used.size else None,
                float(t[rows[last]]) if used.size else None,
                first, int(rows.size - 1 - last), gaps))
        else:
            reports.append(UnitReport(u, str(entity[u]), int(rows.size), dropped, filled, med,
                                      gaps=gaps))
    if not tracks:
        raise GPSError(f"{where}: every fix is more than {OUTSIDE_YD:g} yd outside the arena")
    dt = CLOCK_S
    end = max(float(tk[0][-1]) for tk in tracks.values())
    if ball is not None:
        end = max(end, float(ball[0][-1]))
    frames_ = math.floor(end / dt + 1e-9) + 1
    if not math.isfinite(end) or frames_ * max(1, len(tracks)) > MAX_FRAMES:
        raise GPSError(f"{where}: the ball's track runs to {end:.0f} s; "
                       f"{_span_words(len(tracks))}")
    clock: F64 = np.arange(frames_, dtype=np.float64) * dt
    players = tuple(sorted(tracks))
    pos = np.empty((frames_, len(players), 2))
    for j, pl in enumerate(players):
        g, gx, gy = tracks[pl]
        pos[:, j, 0] = np.interp(clock, g, gx)
        pos[:, j, 1] = np.interp(clock, g, gy)
    bxy = None
    not_run = dict(NOT_RUN_ON_GPS)
    if ball is not None:
        bt, bb = ball
        bxy = np.stack([np.interp(clock, bt, bb[:, 0]), np.interp(clock, bt, bb[:, 1])], axis=1)
    else:
        not_run.update(NOT_RUN_WITHOUT_BALL)
    tr = Tracking(clock, players, pos, bxy, events, defends, L, W)
    reports.sort(key=lambda r: r.unit)
    return GPSSession(tr, tuple(reports), dt, t0, proj, not_run, gap_of)


def _span_words(units: int) -> str:
    most = MAX_FRAMES // max(1, units) * CLOCK_S
    return (f"a session of {units} unit(s) may span at most {most / 3600:.1f} h "
            f"({MAX_FRAMES} positions at {1 / CLOCK_S:g} Hz); cut the recording to the play")


def _verify_span(rel: F64, inside: Any, units: int, where: str) -> None:
    """The common clock is built from the fixes used (inside the arena): refused, before
    any array is made, when it would hold more than :data:`MAX_FRAMES` positions. A
    clock glitch in a file of fixes (one row dated 2056) is a refusal, never memory in
    proportion to a timestamp (issue 41)."""
    used = rel[inside]
    if not used.size:
        return
    lo, hi = float(np.min(used)), float(np.max(used))
    if not (math.isfinite(lo) and math.isfinite(hi)) or \
            (hi / CLOCK_S + 1) * max(1, units) > MAX_FRAMES:
        raise GPSError(f"{where}: the fixes span {_duration(hi - lo)} in the arena; "
                       + _span_words(units))


def _duration(s: float) -> str:
    if not math.isfinite(s):
        return "an endless time"
    if s >= 2 * 86_400:
        return f"{s / 86_400:,.0f} days"
    return f"{s / 3600:.1f} h" if s >= 3600 else f"{s:.0f} s"


def analyse(session: GPSSession, params: Any = None) -> list[Any]:
    """The candidates of the detectors that run on this session."""
    from chukker.plays.detectors import detect
    from chukker.plays.params import DEFAULT_PARAMS

    cands = detect(session.tracking, params or DEFAULT_PARAMS)
    return [c for c in cands if session.keeps(c)]
