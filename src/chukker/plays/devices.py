"""Tracks from the devices riders wear: GPX (phone apps), FIT (Garmin watches and bike
computers) and TCX (older Garmin software), one file per unit.

The format comes from the file's content, never its name: a FIT file says ``.FIT`` in
its header, a GPX file's root element is ``gpx``, a TCX file's is
``TrainingCenterDatabase``. Compressed files are refused (a small archive can inflate
to gigabytes). The readers are the maintained ones:

* GPX 1.0 and 1.1: ``gpxpy`` (the Python ecosystem's GPX library; reads ``speed`` and
  ``course`` where the file has them);
* FIT: ``fitdecode`` (a maintained, pure-Python reader of the FIT protocol, with CRC
  checks and the Garmin profile: positions in semicircles, ``speed`` and
  ``enhanced_speed`` scaled to m/s);
* TCX: the standard library's ElementTree behind ``defusedxml``.

Every XML file is first checked by ``defusedxml`` (no DTD, so no entity expansion) and
for its nesting depth; every file is capped in bytes and in points. A malformed file
gets one line naming the file, the point and what is wrong.

Times are UTC, from the file (GPX and TCX times carry their zone, FIT times are UTC by
the protocol). FIT ``record`` messages carry whole seconds; several records in one
second (a 10 Hz unit) are spread evenly over that second, in file order (chukker's
reading: FIT has no sub-second time in its record message).

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.gpx").write_text('<?xml version="1.0"?><gpx version="1.1" creator="t" '
...     'xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>'
...     '<trkpt lat="26.6152" lon="-80.1999"><time>2026-12-05T10:00:00Z</time></trkpt>'
...     '<trkpt lat="26.6153" lon="-80.1998"><time>2026-12-05T10:00:01.500Z</time></trkpt>'
...     '</trkseg></trk></gpx>')
>>> tr = read_device(d / "a.gpx")
>>> tr.kind.value, tr.t.size, round(float(tr.t[1] - tr.t[0]), 3)
('gpx', 2, 1.5)
>>> _ = (d / "b.gpx").write_bytes(b"BZh91AY&SY")
>>> read_device(d / "b.gpx")
Traceback (most recent call last):
...
chukker.plays.devices.DeviceError: b.gpx: a compressed file (bzip2); send the track itself
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np

from chukker.plays.tracking import F64, TrackingError

#: a device file larger than this is refused (a day of 10 Hz GPX is about 40 MB)
MAX_DEVICE_BYTES = 64 * 1024 * 1024
#: points in one device file (a day at 10 Hz is 864,000)
MAX_POINTS = 1_000_000
#: elements nested deeper than this are refused (GPX and TCX need 6 to 8)
MAX_XML_DEPTH = 32

_SEMICIRCLE_DEG = 180.0 / 2**31
_FIT_EPOCH = 631065600  # 1989-12-31T00:00:00Z, the FIT protocol's time zero
_COMPRESSED = (
    (b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"PK\x03\x04", "zip"),
    (b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstandard"), (b"7z\xbc\xaf", "7z"),
)
_TCX_NS = "{http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2}"


class DeviceError(TrackingError):
    """A device file that cannot be read; the message names the file and the point."""


class DeviceKind(StrEnum):
    GPX = "gpx"
    FIT = "fit"
    TCX = "tcx"


@dataclass(frozen=True, slots=True, eq=False)
class DeviceTrack:
    """One device's fixes: epoch seconds (UTC), degrees, and m/s and degrees from north
    where the file has them (NaN where a point has none)."""

    kind: DeviceKind
    t: F64
    lat: F64
    lon: F64
    speed: F64 | None = None
    heading: F64 | None = None


def kind_of(data: bytes, name: str) -> DeviceKind:
    """The device format of ``data``, from its content (``name`` is for the message)."""
    for magic, what in _COMPRESSED:
        if data.startswith(magic):
            raise DeviceError(f"{name}: a compressed file ({what}); send the track itself")
    if len(data) >= 12 and data[8:12] == b".FIT" and data[0] in (12, 14):
        return DeviceKind.FIT
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if head.startswith(b"<"):
        # skip the XML declaration, comments and processing instructions
        i = 0
        while head.startswith((b"<?", b"<!--"), i):
            end = head.find(b"?>" if head.startswith(b"<?", i) else b"-->", i)
            if end < 0:
                break
            i = end + (2 if head.startswith(b"?>", end) else 3)
            while i < len(head) and head[i : i + 1] in b" \t\r\n":
                i += 1
        if head.startswith(b"<!doctype", i):
            raise DeviceError(f"{name}: declares a DTD or entities, which a track never needs")
        root = head[i + 1 : i + 64]
        if root.startswith(b"gpx"):
            return DeviceKind.GPX
        if root.startswith(b"trainingcenterdatabase"):
            return DeviceKind.TCX
    raise DeviceError(f"{name}: not a GPX, FIT or TCX track (by its content)")


def read_device(path: str | Path, name: str | None = None) -> DeviceTrack:
    """The fixes of one device file (GPX, FIT or TCX, told by its content)."""
    p = Path(path)
    label = name or p.name
    try:
        size = p.stat().st_size
        if size > MAX_DEVICE_BYTES:
            raise DeviceError(f"{label}: {size} bytes; a device file may have at most "
                              f"{MAX_DEVICE_BYTES} bytes")
        data = p.read_bytes()
    except FileNotFoundError:
        raise DeviceError(f"{label}: no such device file") from None
    except OSError as exc:
        raise DeviceError(f"{label}: cannot be read ({exc.strerror or exc})") from None
    return parse_device(data, label)


def parse_device(data: bytes, name: str) -> DeviceTrack:
    """The fixes of a device file's bytes."""
    if len(data) > MAX_DEVICE_BYTES:
        raise DeviceError(f"{name}: a device file may have at most {MAX_DEVICE_BYTES} bytes")
    kind = kind_of(data, name)
    if kind is DeviceKind.FIT:
        return _read_fit(data, name)
    _check_xml(data, name)
    return _read_gpx(data, name) if kind is DeviceKind.GPX else _read_tcx(data, name)


def _check_xml(data: bytes, name: str) -> None:
    """No DTD (so no entity expansion), no nesting deeper than :data:`MAX_XML_DEPTH`."""
    import defusedxml.ElementTree as SafeET  # type: ignore[import-untyped]
    from defusedxml import DefusedXmlException

    depth = 0
    try:
        for ev, _el in SafeET.iterparse(io.BytesIO(data), events=("start", "end"),
                                        forbid_dtd=True):
            depth += 1 if ev == "start" else -1
            if depth > MAX_XML_DEPTH:
                raise DeviceError(f"{name}: elements nested deeper than {MAX_XML_DEPTH}")
    except DefusedXmlException:
        raise DeviceError(f"{name}: declares a DTD or entities, which a track never needs"
                          ) from None
    except SafeET.ParseError as exc:
        line, col = getattr(exc, "position", (0, 0))
        raise DeviceError(f"{name}: line {line}, column {col}: not well-formed XML") from None


def _finish(kind: DeviceKind, name: str, t: Any, lat: Any, lon: Any,
            speed: Any | None, heading: Any | None) -> DeviceTrack:
    if len(t) == 0:
        raise DeviceError(f"{name}: no track points with a time and a position")

    def arr(v: Any | None) -> F64 | None:
        if v is None:
            return None
        a: F64 = np.asarray(v, dtype=np.float64)
        return None if bool(np.isnan(a).all()) else a

    tt, la, lo = (np.asarray(v, dtype=np.float64) for v in (t, lat, lon))
    bad = np.flatnonzero((np.abs(la) > 90) | (np.abs(lo) > 180) | ~np.isfinite(la + lo))
    if bad.size:
        i = int(bad[0])
        raise DeviceError(f"{name}: point {i + 1}: position {la[i]}, {lo[i]} is not on Earth")
    back = np.flatnonzero(np.diff(tt) < 0)
    if back.size:
        raise DeviceError(f"{name}: point {int(back[0]) + 2}: time goes backwards")
    return DeviceTrack(kind, tt, la, lo, arr(speed), arr(heading))


def _too_many(name: str) -> DeviceError:
    return DeviceError(f"{name}: more than {MAX_POINTS} points in one device file")


def _read_gpx(data: bytes, name: str) -> DeviceTrack:
    import gpxpy
    import gpxpy.gpx

    try:
        doc = gpxpy.parse(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise DeviceError(f"{name}: byte {exc.start}: not UTF-8 text") from None
    except gpxpy.gpx.GPXException as exc:
        raise DeviceError(f"{name}: not a GPX track: {str(exc)[:200]}") from None
    t: list[float] = []
    lat: list[float] = []
    lon: list[float] = []
    speed: list[float] = []
    heading: list[float] = []
    n = 0
    for trk in doc.tracks:
        for seg in trk.segments:
            for pt in seg.points:
                n += 1
                if n > MAX_POINTS:
                    raise _too_many(name)
                if pt.time is None:
                    raise DeviceError(f"{name}: point {n}: no <time>")
                when = pt.time if pt.time.tzinfo else pt.time.replace(tzinfo=UTC)
                t.append(when.timestamp())
                lat.append(float(pt.latitude))
                lon.append(float(pt.longitude))
                speed.append(float("nan") if pt.speed is None else float(pt.speed))
                course = getattr(pt, "course", None)
                heading.append(float("nan") if course is None else float(course))
    return _finish(DeviceKind.GPX, name, t, lat, lon, speed, heading)


def _read_tcx(data: bytes, name: str) -> DeviceTrack:
    import defusedxml.ElementTree as SafeET

    root = SafeET.fromstring(data, forbid_dtd=True)
    t: list[float] = []
    lat: list[float] = []
    lon: list[float] = []
    speed: list[float] = []
    for n, tp in enumerate(root.iter(f"{_TCX_NS}Trackpoint"), start=1):
        if n > MAX_POINTS:
            raise _too_many(name)
        when = tp.findtext(f"{_TCX_NS}Time")
        pos = tp.find(f"{_TCX_NS}Position")
        if pos is None:
            continue  # a point with heart rate only: no position to place
        try:
            la = float(pos.findtext(f"{_TCX_NS}LatitudeDegrees") or "nan")
            lo = float(pos.findtext(f"{_TCX_NS}LongitudeDegrees") or "nan")
        except ValueError:
            raise DeviceError(f"{name}: point {n}: position is not a number") from None
        if not when:
            raise DeviceError(f"{name}: point {n}: no <Time>")
        try:
            stamp = datetime.fromisoformat(when.strip().replace("Z", "+00:00"))
        except ValueError:
            raise DeviceError(f"{name}: point {n}: time {when[:40]!r} is not ISO 8601"
                              ) from None
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=UTC)
        sp = next((el.text for el in tp.iter() if el.tag.endswith("}Speed")), None)
        t.append(stamp.timestamp())
        lat.append(la)
        lon.append(lo)
        try:
            speed.append(float(sp) if sp else float("nan"))
        except ValueError:
            speed.append(float("nan"))
    return _finish(DeviceKind.TCX, name, t, lat, lon, speed, None)


def _read_fit_decode(data: bytes, name: str) -> DeviceTrack:
    import fitdecode  # type: ignore[import-untyped]

    secs: list[int] = []
    lat: list[float] = []
    lon: list[float] = []
    speed: list[float] = []
    heading: list[float] = []
    n = 0
    try:
        with fitdecode.FitReader(io.BytesIO(data), check_crc=fitdecode.CrcCheck.ENABLED,
                                 keep_raw_chunks=False) as fit:
            for frame in fit:
                if frame.frame_type != fitdecode.FIT_FRAME_DATA or frame.name != "record":
                    continue
                n += 1
                if n > MAX_POINTS:
                    raise _too_many(name)
                v = _fit_values(frame)
                la, lo, ts = v.get("position_lat"), v.get("position_long"), v.get("timestamp")
                if la is None or lo is None or ts is None:
                    continue  # a record with no fix (heart rate only, or the fix lost)
                secs.append(_fit_seconds(ts))
                lat.append(la * _SEMICIRCLE_DEG)
                lon.append(lo * _SEMICIRCLE_DEG)
                s = v.get("enhanced_speed", v.get("speed"))
                speed.append(float("nan") if s is None else float(s))
                h = v.get("heading")
                heading.append(float("nan") if h is None else float(h))
    except fitdecode.FitError as exc:
        raise DeviceError(f"{name}: record {n + 1}: not a readable FIT file: "
                          f"{str(exc)[:160]}") from None
    return _finish(DeviceKind.FIT, name, _spread_seconds(secs), lat, lon, speed, heading)


def _fit_values(frame: Any) -> dict[str, Any]:
    return {f.name: f.value for f in frame.fields if f.value is not None}


def _fit_seconds(ts: Any) -> int:
    if isinstance(ts, datetime):
        return int(ts.replace(tzinfo=ts.tzinfo or UTC).timestamp())
    return int(ts) + _FIT_EPOCH


def _spread_seconds(secs: list[int]) -> list[float]:
    """Whole seconds, with the records of one second spread evenly over it at the unit's
    rate (the most records any one second has). A first second with fewer
    records (the unit started mid-second) ends at the rate; the others start at it.

    >>> _spread_seconds([10, 10, 11, 11, 11, 11, 12])
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


#: a corner is a stop: the device stays within this many metres ...
STOP_RADIUS_M = 4.0
#: ... for at least this long
STOP_MIN_S = 5.0


def corners_from_walk(track: DeviceTrack) -> dict[str, tuple[float, float]]:
    """The arena's corners from one device carried round them: stand still at each corner
    for five seconds or more, in the order sw, nw, ne, se (the end wall at x = 0 first,
    then along the side to its far end). The four longest stops, in time order, are the
    corners; each is the median of its fixes (the first steps away do not move it).

    >>> import numpy as np
    >>> pts = [(26.6150, -80.2000), (26.61541, -80.2000), (26.61541, -80.19909),
    ...        (26.6150, -80.19909)]
    >>> t, la, lo = [], [], []
    >>> for k, (a, o) in enumerate(pts):
    ...     for i in range(10):
    ...         t.append(100.0 * k + i); la.append(a); lo.append(o)
    >>> c = corners_from_walk(DeviceTrack(DeviceKind.GPX, np.array(t), np.array(la),
    ...                                    np.array(lo)))
    >>> c["ne"]
    (26.61541, -80.19909)
    """
    lat0 = float(np.mean(track.lat))
    m_lat = 111_320.0
    m_lon = m_lat * float(np.cos(np.radians(lat0)))
    stops: list[tuple[float, int, int]] = []  # (duration, first, last)
    i, n = 0, track.t.size
    while i < n:
        j = i
        while j + 1 < n and (
            ((track.lat[j + 1] - track.lat[i]) * m_lat) ** 2
            + ((track.lon[j + 1] - track.lon[i]) * m_lon) ** 2 <= STOP_RADIUS_M**2
        ):
            j += 1
        dur = float(track.t[j] - track.t[i])
        if dur >= STOP_MIN_S:
            stops.append((dur, i, j))
            i = j + 1
        else:
            i += 1
    if len(stops) < 4:
        raise DeviceError(
            f"found {len(stops)} stop(s) of {STOP_MIN_S:g} s or more; stand still at each "
            "of the four corners (sw, nw, ne, se, in that order) for five seconds")
    best = sorted(sorted(stops, reverse=True)[:4], key=lambda s: s[1])
    out: dict[str, tuple[float, float]] = {}
    for name, (_d, a, b) in zip(("sw", "nw", "ne", "se"), best, strict=True):
        out[name] = (round(float(np.median(track.lat[a : b + 1])), 7),
                     round(float(np.median(track.lon[a : b + 1])), 7))
    return out


def _read_fit(data: bytes, name: str) -> DeviceTrack:
    """A FIT file's ``record`` fixes: the vectorised reader where it applies (record
    messages with normal headers, the common case), else fitdecode's, which is also its
    reference in the tests."""
    fast = _read_fit_fast(data, name)
    return fast if fast is not None else _read_fit_decode(data, name)


#: FIT record fields the fast reader takes: field number -> name, then type and invalid
_FIT_FIELDS = {253: "timestamp", 0: "position_lat", 1: "position_long", 6: "speed",
               73: "enhanced_speed"}
_FIT_TYPES = {"timestamp": "u4", "position_lat": "i4", "position_long": "i4", "speed": "u2",
              "enhanced_speed": "u4"}
_FIT_INVALID = {"timestamp": 0xFFFFFFFF, "position_lat": 0x7FFFFFFF,
                "position_long": 0x7FFFFFFF, "speed": 0xFFFF, "enhanced_speed": 0xFFFFFFFF}


def _read_fit_fast(data: bytes, name: str) -> DeviceTrack | None:
    """Walk a FIT file's messages by their headers, jumping over each run of one data
    message in a single NumPy comparison, and gather the record fields with NumPy.
    ``None`` where the file uses what this reader leaves to fitdecode (compressed
    timestamp headers, a record field of an unexpected size)."""
    hsize = data[0]
    body_end = hsize + int.from_bytes(data[4:8], "little")
    if body_end + 2 > len(data):
        raise DeviceError(f"{name}: the FIT header promises {body_end - hsize} bytes of "
                          f"messages; the file has {max(0, len(data) - hsize - 2)}")
    buf = np.frombuffer(data, dtype=np.uint8, count=body_end)
    sizes: dict[int, int] = {}  # local type -> data message size (its header byte excluded)
    layouts: dict[int, tuple[bool, tuple[tuple[str, int], ...]] | None] = {}
    starts: dict[tuple[bool, tuple[tuple[str, int], ...]], list[Any]] = {}
    pos, n_records = hsize, 0
    while pos < body_end:
        h = data[pos]
        if h & 0x80:
            return None  # a compressed timestamp header: fitdecode's
        local = h & 0x0F
        if h & 0x40:  # a definition message
            if pos + 6 > body_end:
                raise DeviceError(f"{name}: byte {pos}: a definition runs past the end")
            big = data[pos + 2] == 1
            glob = int.from_bytes(data[pos + 3 : pos + 5], "big" if big else "little")
            nf, q = data[pos + 5], pos + 6
            offs: dict[str, int] = {}
            size = 0
            for k in range(nf):
                num, fsize = data[q + 3 * k], data[q + 3 * k + 1]
                field = _FIT_FIELDS.get(num)
                if glob == 20 and field is not None:
                    if fsize != int(_FIT_TYPES[field][1]):
                        return None
                    offs[field] = size
                size += fsize
            q += 3 * nf
            if h & 0x20:  # developer fields
                nd = data[q]
                size += sum(data[q + 1 + 3 * k + 1] for k in range(nd))
                q += 1 + 3 * nd
            sizes[local] = size
            layouts[local] = (big, tuple(sorted(offs.items()))) if glob == 20 else None
            pos = q
            continue
        if local not in sizes:
            raise DeviceError(f"{name}: byte {pos}: a data message with no definition")
        step = sizes[local] + 1
        heads = buf[pos : body_end - step + 1 : step]  # the headers of whole messages
        other = np.flatnonzero(heads != h)
        run = int(other[0]) if other.size else heads.size
        if run == 0:
            raise DeviceError(f"{name}: byte {pos}: a data message runs past the end")
        lay = layouts[local]
        if lay is not None:
            starts.setdefault(lay, []).append(pos + 1 + np.arange(run) * step)
            n_records += run
            if n_records > MAX_POINTS:
                raise _too_many(name)
        pos += run * step
    if not starts:
        raise DeviceError(f"{name}: no track points with a time and a position")
    cols: dict[str, list[Any]] = {f: [] for f in _FIT_TYPES}
    where: list[Any] = []
    for (big, offs_t), chunks in starts.items():
        at = np.concatenate(chunks)
        where.append(at)
        offs = dict(offs_t)
        for field, typ in _FIT_TYPES.items():
            off = offs.get(field)
            if off is None:
                cols[field].append(np.full(at.size, _FIT_INVALID[field], dtype=np.int64))
                continue
            w = int(typ[1])
            raw = np.ascontiguousarray(buf[(at + off)[:, None] + np.arange(w)])
            v = raw.view((">" if big else "<") + typ).ravel().astype(np.int64)
            cols[field].append(v & 0xFFFFFFFF if typ.startswith("i") else v)
    sort = np.argsort(np.concatenate(where), kind="stable")
    c = {f: np.concatenate(v)[sort] for f, v in cols.items()}
    ok = ((c["timestamp"] != _FIT_INVALID["timestamp"])
          & (c["position_lat"] != _FIT_INVALID["position_lat"])
          & (c["position_long"] != _FIT_INVALID["position_long"]))

    def degrees(v: Any) -> Any:
        return np.where(v >= 2**31, v - 2**32, v).astype(np.float64) * _SEMICIRCLE_DEG

    es, sp = c["enhanced_speed"][ok], c["speed"][ok]
    speed = np.where(es != _FIT_INVALID["enhanced_speed"], es / 1000.0,
                     np.where(sp != _FIT_INVALID["speed"], sp / 1000.0, np.nan))
    secs = (c["timestamp"][ok] + _FIT_EPOCH).tolist()
    return _finish(DeviceKind.FIT, name, _spread_seconds(secs), degrees(c["position_lat"][ok]),
                   degrees(c["position_long"][ok]), speed, None)
