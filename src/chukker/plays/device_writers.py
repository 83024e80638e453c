"""Device files written with the formats' own libraries, for examples and tests: the
synthetic plays as a phone app (GPX, gpxpy), a Garmin watch (FIT, fit-tool) or older
Garmin software (TCX) would have recorded them, one file per unit.

**Real-shaped recordings** (issue 34): :func:`recording` makes the track of a unit
switched on in the horse lines, ridden into the arena and round it, with pauses, at a
watch's 1 Hz or a GPS vest's 10 Hz; :class:`Glitches` puts in it what real units write
(a time 1 s back, a point with no time or no position, a position off the Earth, a
point written twice). NaN in ``t``, ``lat`` or ``lon`` is written as the field left
out, as devices do. :func:`chain_fit` and :func:`bad_crc` make the FIT oddities (a
second file chained after the first, a CRC that does not match).

``fit-tool`` is a test tool (the ``dev`` extra); GPX and TCX need only what chukker
installs.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from chukker.plays.devices import DeviceKind
from chukker.plays.gps import CORNERS, FORMAT
from chukker.plays.gps_sessions import EXAMPLE_CORNERS
from chukker.plays.tracking import F64, PlayerId

_TCX = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"


def _iso(ti: float) -> str:
    when = datetime.fromtimestamp(round(ti, 3), UTC).isoformat(timespec="milliseconds")
    return when.replace("+00:00", "Z")


def write_gpx(path: Path, t: F64, lat: F64, lon: F64, creator: str = "chukker",
              segments: list[int] | None = None) -> None:
    """A GPX 1.1 track: one segment, times in UTC with milliseconds (gpxpy's writer). With
    NaNs (a point with no time or no position) or ``segments`` (the indices where a new
    ``<trkseg>`` starts: a paused recording), the standard library's writer, leaving out
    what a point has not, as a device does."""
    import numpy as np

    if segments or bool(np.isnan(t).any() | np.isnan(lat).any() | np.isnan(lon).any()):
        _write_gpx_raw(path, t, lat, lon, creator, set(segments or ()))
        return
    import gpxpy.gpx

    doc = gpxpy.gpx.GPX()
    doc.creator = creator
    trk = gpxpy.gpx.GPXTrack()
    seg = gpxpy.gpx.GPXTrackSegment()
    for ti, a, o in zip(t.tolist(), lat.tolist(), lon.tolist(), strict=True):
        seg.points.append(gpxpy.gpx.GPXTrackPoint(
            a, o, time=datetime.fromtimestamp(round(ti, 3), UTC)))
    trk.segments.append(seg)
    doc.tracks.append(trk)
    path.write_text(doc.to_xml(version="1.1"), encoding="utf-8")


def _write_gpx_raw(path: Path, t: F64, lat: F64, lon: F64, creator: str,
                   segments: set[int]) -> None:
    ns = "http://www.topografix.com/GPX/1/1"
    ET.register_namespace("", ns)
    root = ET.Element(f"{{{ns}}}gpx", version="1.1", creator=creator)
    trk = ET.SubElement(root, f"{{{ns}}}trk")
    seg = ET.SubElement(trk, f"{{{ns}}}trkseg")
    for i, (ti, a, o) in enumerate(zip(t.tolist(), lat.tolist(), lon.tolist(), strict=True)):
        if i in segments and len(seg):
            seg = ET.SubElement(trk, f"{{{ns}}}trkseg")
        pt = ET.SubElement(seg, f"{{{ns}}}trkpt")
        if not (math.isnan(a) or math.isnan(o)):
            pt.set("lat", f"{a:.7f}")
            pt.set("lon", f"{o:.7f}")
        if not math.isnan(ti):
            ET.SubElement(pt, f"{{{ns}}}time").text = _iso(ti)
    ET.ElementTree(root).write(path, encoding="UTF-8", xml_declaration=True)


def write_tcx(path: Path, t: F64, lat: F64, lon: F64) -> None:
    """A TCX activity with one lap of trackpoints (the standard library's writer)."""
    ET.register_namespace("", _TCX)
    root = ET.Element(f"{{{_TCX}}}TrainingCenterDatabase")
    act = ET.SubElement(ET.SubElement(root, f"{{{_TCX}}}Activities"), f"{{{_TCX}}}Activity",
                        Sport="Other")
    first = _iso(float(min(v for v in t.tolist() if not math.isnan(v))))
    ET.SubElement(act, f"{{{_TCX}}}Id").text = first
    lap = ET.SubElement(act, f"{{{_TCX}}}Lap", StartTime=first)
    track = ET.SubElement(lap, f"{{{_TCX}}}Track")
    for ti, a, o in zip(t.tolist(), lat.tolist(), lon.tolist(), strict=True):
        tp = ET.SubElement(track, f"{{{_TCX}}}Trackpoint")
        if not math.isnan(ti):
            ET.SubElement(tp, f"{{{_TCX}}}Time").text = _iso(ti)
        if math.isnan(a) or math.isnan(o):
            ET.SubElement(tp, f"{{{_TCX}}}HeartRateBpm")  # a point with no fix
            continue
        pos = ET.SubElement(tp, f"{{{_TCX}}}Position")
        ET.SubElement(pos, f"{{{_TCX}}}LatitudeDegrees").text = f"{a:.7f}"
        ET.SubElement(pos, f"{{{_TCX}}}LongitudeDegrees").text = f"{o:.7f}"
    ET.ElementTree(root).write(path, encoding="UTF-8", xml_declaration=True)


def write_fit(path: Path, t: F64, lat: F64, lon: F64, file_type: str = "ACTIVITY") -> None:
    """A FIT activity file of ``record`` messages (fit-tool's builder). FIT records carry
    whole seconds, as a device writes them: each time is floored to its second; NaN is
    a field left out."""
    path.write_bytes(fit_bytes(t, lat, lon, file_type))


def fit_bytes(t: F64, lat: F64, lon: F64, file_type: str = "ACTIVITY") -> bytes:
    """The bytes :func:`write_fit` writes."""
    from fit_tool.fit_file_builder import FitFileBuilder  # type: ignore[import-untyped]
    from fit_tool.profile.messages.file_id_message import (  # type: ignore[import-untyped]
        FileIdMessage,
    )
    from fit_tool.profile.messages.record_message import (  # type: ignore[import-untyped]
        RecordMessage,
    )
    from fit_tool.profile.profile_type import (  # type: ignore[import-untyped]
        FileType,
        Manufacturer,
    )

    b = FitFileBuilder(auto_define=True, min_string_size=50)
    fid = FileIdMessage()
    fid.type = FileType[file_type]
    fid.manufacturer = Manufacturer.DEVELOPMENT.value
    fid.product = 0
    fid.serial_number = 1
    known = [v for v in t.tolist() if not math.isnan(v)]
    fid.time_created = math.floor(float(known[0] if known else 1e9)) * 1000
    b.add(fid)
    for ti, a, o in zip(t.tolist(), lat.tolist(), lon.tolist(), strict=True):
        r = RecordMessage()
        if not math.isnan(ti):
            r.timestamp = math.floor(ti) * 1000
        if not (math.isnan(a) or math.isnan(o)):
            r.position_lat = a
            r.position_long = o
        b.add(r)
    data: bytes = b.build().to_bytes()
    return data


def chain_fit(first: bytes, second: bytes) -> bytes:
    """Two FIT files one after the other, as a device writes an activity and a settings
    file into one."""
    return first + second


def bad_crc(data: bytes) -> bytes:
    """A FIT file whose file CRC does not match its bytes (the messages untouched)."""
    crc = int.from_bytes(data[-2:], "little") ^ 0x5A5A
    return data[:-2] + crc.to_bytes(2, "little")


@dataclass(frozen=True, slots=True)
class Glitches:
    """What real units write into a recording, by point index (after the pauses)."""

    backwards: tuple[int, ...] = ()  #: a time 1 s before the previous point's
    no_time: tuple[int, ...] = ()
    no_position: tuple[int, ...] = ()
    off_earth: tuple[int, ...] = ()  #: latitude beyond 90 degrees
    twice: tuple[int, ...] = ()  #: the point written again right after itself


def recording(rate_hz: float = 1.0, ride_s: float = 120.0, lines_s: float = 30.0,
              pauses: tuple[tuple[float, float], ...] = ((60.0, 20.0),), seed: int = 1,
              glitches: Glitches = Glitches(),
              corners: Mapping[str, tuple[float, float]] = EXAMPLE_CORNERS,
              start: float = 1_796_464_800.0) -> tuple[F64, F64, F64, list[int]]:
    """A unit's recording: ``lines_s`` standing in the horse lines 60 m west of the
    arena (switched on there), a walk in, then ``ride_s`` of riding round the arena at a
    canter with GPS noise; ``pauses`` (start in the ride, length, seconds) record
    nothing. Returns times, latitudes, longitudes and the indices where the recording
    resumes after a pause (a GPX's new ``<trkseg>``).

    >>> t, la, lo, seg = recording(rate_hz=10, ride_s=20, lines_s=5, pauses=((10, 6),))
    >>> t.size, seg, round(float(t[seg[0]] - t[seg[0] - 1]), 1)
    (290, [250], 6.1)
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    sw, ne = np.array(corners["sw"]), np.array(corners["ne"])
    mid = (sw + ne) / 2
    half = (ne - sw) / 2
    m_lon = 111_320.0 * math.cos(math.radians(float(mid[0])))
    lines = np.array([mid[0], sw[1] - 60.0 / m_lon])
    walk_s = 10.0
    dt = 1.0 / rate_hz
    tt = np.arange(0.0, lines_s + walk_s + ride_s, dt)
    pos = np.empty((tt.size, 2))
    stand = tt < lines_s
    pos[stand] = lines
    w = (tt >= lines_s) & (tt < lines_s + walk_s)
    f = ((tt[w] - lines_s) / walk_s)[:, None]
    entry = np.array([mid[0], sw[1] + 0.1 * half[1] * 2])
    pos[w] = lines + f * (entry - lines)
    r = tt >= lines_s + walk_s
    ph = (tt[r] - lines_s - walk_s) / 25.0 * 2 * math.pi  # a lap of the arena in 25 s
    pos[r, 0] = mid[0] + 0.7 * half[0] * np.sin(2 * ph)
    pos[r, 1] = mid[1] - 0.8 * half[1] * np.cos(ph)
    pos += rng.normal(0, 1.5 / 111_320.0, pos.shape)  # 1.5 m of GPS noise
    keep = np.ones(tt.size, bool)
    for at, length in pauses:
        a = lines_s + walk_s + at
        keep &= ~((tt >= a) & (tt < a + length))
    tt, pos = tt[keep], pos[keep]
    segs = [int(i) + 1 for i in np.flatnonzero(np.diff(tt) > 1.5 * dt)]
    t, lat, lon = tt + start, pos[:, 0].copy(), pos[:, 1].copy()
    for i in glitches.backwards:
        t[i] = t[i - 1] - 1.0
    for i in glitches.no_time:
        t[i] = np.nan
    for i in glitches.no_position:
        lat[i] = lon[i] = np.nan
    for i in glitches.off_earth:
        lat[i] = 95.0
    if glitches.twice:
        idx = np.sort(np.r_[np.arange(t.size), np.asarray(glitches.twice)])
        segs = [s + int(np.count_nonzero(np.asarray(glitches.twice) < s)) for s in segs]
        t, lat, lon = t[idx], lat[idx], lon[idx]
    return t, lat, lon, segs


WRITERS: dict[DeviceKind, Callable[[Path, F64, F64, F64], None]] = {
    DeviceKind.GPX: write_gpx, DeviceKind.FIT: write_fit, DeviceKind.TCX: write_tcx}


def write_device_session(
    path: str | Path,
    t: F64,
    unit: list[str],
    lat: F64,
    lon: F64,
    units: Mapping[str, PlayerId],
    kinds: Mapping[str, DeviceKind],
    offsets_s: Mapping[str, float] | None = None,
    corners: Mapping[str, tuple[float, float]] = EXAMPLE_CORNERS,
) -> Path:
    """``SESSION.toml`` and one device file per unit beside it (``kinds``: unit -> format).

    ``offsets_s``: a unit whose device clock runs ahead by ``d`` seconds is written with
    its times ``d`` late, and its ``offset_s = -d`` in the session puts it right."""
    import numpy as np

    p = Path(path)
    offsets_s = offsets_s or {}
    codes = np.asarray(unit)
    lines = [f'format = "{FORMAT}"', "", "[arena]"]
    lines += [f"{c} = [{corners[c][0]:.6f}, {corners[c][1]:.6f}]" for c in CORNERS]
    lines += ["", "[units]"]
    for u, pl in units.items():
        kind = kinds[u]
        name = f"{p.stem}-{u}.{kind.value}"
        rows = np.flatnonzero(codes == u)
        off = float(offsets_s.get(u, 0.0))
        WRITERS[kind](p.with_name(name), t[rows] - off, lat[rows], lon[rows])
        extra = f", offset_s = {off:g}" if off else ""
        lines.append(f'"{u}" = {{ entity = "{pl}", file = "{name}"{extra} }}')
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p
