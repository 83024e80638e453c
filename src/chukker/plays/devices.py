"""Tracks from the devices riders wear: GPX (phone apps), FIT (Garmin watches and bike
computers) and TCX (older Garmin software), one file per unit.

The format comes from the file's content, never its name: a FIT file says ``.FIT`` in
its header, a GPX file's root element is ``gpx``, a TCX file's is
``TrainingCenterDatabase``. Compressed files are refused (a small archive can inflate
to gigabytes). The readers:

* GPX 1.0 and 1.1 and TCX: one streaming pass of ``defusedxml``'s ``iterparse`` (no DTD,
  so no entity expansion), which counts elements as it goes: nesting deeper than
  :data:`MAX_XML_DEPTH`, or more than :data:`XML_BASE_ELEMENTS` elements plus
  :data:`XML_ELEMENTS_PER_POINT` per track point (five million empty segments), is
  refused at once. A point with no position is counted, not a refusal of the file;
* FIT: a vectorised reader of the protocol (:mod:`chukker.plays.fit`), and ``fitdecode``
  (maintained, pure Python, with the Garmin profile) where the file uses what the fast
  reader leaves to it and as its reference in the tests: both give one answer per file.

**Keep what is good, drop and count what is not** (issue 34). A point with no time, no
position, a position off the Earth, or a time earlier than the last kept point's is
dropped and counted by its reason (:class:`Drop`). A GPX or TCX point that repeats the
previous point's time and position is one point (counted as *merged*, not dropped).
When more than :data:`MAX_DROPPED` (5%) of a file's points are dropped, the file is
refused with the counts ("358 of 871 points have no time"). A pause longer than
:data:`GAP_S` between kept points is reported as a gap.

Times are UTC, from the file (GPX and TCX times carry their zone, one without is taken
as UTC; FIT times are UTC by the protocol). FIT ``record`` messages carry whole
seconds; several records in one second (a 10 Hz unit) are spread evenly over that
second, in file order (chukker's reading: FIT has no sub-second time in its record
message). A GPX or TCX file of whole seconds with several points in one second is
spread the same way; with finer times, a second point at the same instant somewhere
else is dropped (``same_time``).
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
chukker.plays.device_track.DeviceError: b.gpx: a compressed file (bzip2); send the track itself
"""

from __future__ import annotations

import io
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from chukker.plays.device_track import (
    DROP_WORDS,
    GAP_S,
    MAX_DROPPED,
    MAX_POINTS,
    DeviceError,
    DeviceKind,
    DeviceTrack,
    Drop,
    finish,
    spread_seconds,
)

__all__ = [
    "DROP_WORDS",
    "GAP_S",
    "MAX_DROPPED",
    "MAX_POINTS",
    "DeviceError",
    "DeviceKind",
    "DeviceTrack",
    "Drop",
    "corners_from_walk",
    "finish",
    "kind_of",
    "parse_device",
    "read_device",
    "spread_seconds",
]

#: a device file larger than this is refused (a day of 10 Hz GPX is about 40 MB)
MAX_DEVICE_BYTES = 64 * 1024 * 1024
#: elements nested deeper than this are refused (GPX and TCX need 6 to 8)
MAX_XML_DEPTH = 32
#: an XML track may have this many elements besides its points' ...
XML_BASE_ELEMENTS = 10_000
#: ... and this many per point (a Garmin TCX trackpoint has about 14)
XML_ELEMENTS_PER_POINT = 32

_COMPRESSED = (
    (b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"PK\x03\x04", "zip"),
    (b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstandard"), (b"7z\xbc\xaf", "7z"),
)


def kind_of(data: bytes, name: str) -> DeviceKind:
    """The device format of ``data``, from its content (``name`` is for the message)."""
    if not data:
        raise DeviceError(f"{name}: an empty file (0 bytes)")
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
        from chukker.plays.fit import read_fit

        return read_fit(data, name)
    return _read_xml(data, name, kind)


def _too_many(name: str) -> DeviceError:
    return DeviceError(f"{name}: more than {MAX_POINTS} points in one device file")


def _num(text: str | None) -> float:
    if text is None:
        return math.nan
    try:
        v = float(text)
    except ValueError:
        return math.nan
    return v if math.isfinite(v) else math.nan


def _when(text: str | None) -> float:
    """Epoch seconds of an ISO 8601 time (UTC when it has no zone); NaN if none."""
    if not text:
        return math.nan
    try:
        stamp = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=UTC)
        return stamp.timestamp()
    except (ValueError, OverflowError, OSError):  # not a time, or out of datetime's range
        return math.nan


#: the elements a point's values are read from, by format: local name -> key
_GPX_VALUES = {"time": "time", "speed": "speed", "course": "course"}
_TCX_VALUES = {"Time": "time", "LatitudeDegrees": "lat", "LongitudeDegrees": "lon",
               "Speed": "speed"}
_POINTISH = {"trkpt", "rtept", "wpt", "Trackpoint"}
#: the containers of points: at most one for each point (and XML_BASE_ELEMENTS besides)
_CONTAINERS = {"trk", "trkseg", "rte", "Lap", "Track", "Activity"}


def _read_xml(data: bytes, name: str, kind: DeviceKind) -> DeviceTrack:
    """GPX or TCX track points in one streaming pass (see the module's docstring). Each
    element is let go of at its end, so memory stays that of one point."""
    import xml.etree.ElementTree as ET

    import defusedxml.ElementTree as SafeET  # type: ignore[import-untyped]
    from defusedxml import DefusedXmlException

    gpx = kind is DeviceKind.GPX
    point_tag, values = ("trkpt", _GPX_VALUES) if gpx else ("Trackpoint", _TCX_VALUES)
    # before parsing, one scan in C: segments opened against the most points the bytes
    # can hold (the shortest point, <trkpt lat="1" lon="2"/>, is 24 bytes)
    segs, most = data.count(b"<trkseg"), len(data) // 24
    if segs > XML_BASE_ELEMENTS + most:
        raise DeviceError(f"{name}: about {segs} track segments in {len(data)} bytes, room "
                          f"for at most {most} track points; a track file has at most one "
                          "a point: refused")
    cols: dict[str, list[float]] = {k: [] for k in ("t", "lat", "lon", "speed", "course")}
    stack: list[ET.Element] = []
    cur: dict[str, Any] | None = None
    elements = points = pointish = containers = 0
    try:
        for ev, el in SafeET.iterparse(io.BytesIO(data), events=("start", "end"),
                                       forbid_dtd=True):
            tag = el.tag.rpartition("}")[2]
            if ev == "start":
                stack.append(el)
                elements += 1
                if len(stack) > MAX_XML_DEPTH:
                    raise DeviceError(f"{name}: elements nested deeper than {MAX_XML_DEPTH}")
                if tag in _POINTISH:
                    pointish += 1
                elif tag in _CONTAINERS:
                    containers += 1
                    if containers > XML_BASE_ELEMENTS + pointish:
                        raise DeviceError(
                            f"{name}: {containers} tracks, segments or laps for {points} "
                            "track points; a track file has at most one a point: refused")
                if elements > XML_BASE_ELEMENTS + XML_ELEMENTS_PER_POINT * pointish:
                    raise DeviceError(
                        f"{name}: {elements} elements for {points} track points; a track "
                        f"file has at most {XML_ELEMENTS_PER_POINT} a point (and "
                        f"{XML_BASE_ELEMENTS} besides): refused")
                if tag == point_tag:
                    points += 1
                    if points > MAX_POINTS:
                        raise _too_many(name)
                    cur = {"lat": el.get("lat"), "lon": el.get("lon")} if gpx else {}
                continue
            stack.pop()
            if cur is not None:
                if tag == point_tag:
                    cols["t"].append(_when(cur.get("time")))
                    cols["lat"].append(_num(cur.get("lat")))
                    cols["lon"].append(_num(cur.get("lon")))
                    cols["speed"].append(_num(cur.get("speed")))
                    cols["course"].append(_num(cur.get("course")))
                    cur = None
                elif tag in values:
                    cur.setdefault(values[tag], el.text)
            if stack:
                del stack[-1][-1]  # the element just ended is its parent's last child
    except DefusedXmlException:
        raise DeviceError(f"{name}: declares a DTD or entities, which a track never needs"
                          ) from None
    except SafeET.ParseError as exc:
        line, col = getattr(exc, "position", (0, 0))
        raise DeviceError(f"{name}: line {line}, column {col}: not well-formed XML") from None
    return finish(kind, name, cols["t"], cols["lat"], cols["lon"], cols["speed"],
                  cols["course"] if gpx else None)


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


