"""Device files written with the formats' own libraries, for examples and tests: the
synthetic plays as a phone app (GPX, gpxpy), a Garmin watch (FIT, fit-tool) or older
Garmin software (TCX) would have recorded them, one file per unit.

``fit-tool`` is a test tool (the ``dev`` extra); GPX and TCX need only what chukker
installs.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from chukker.plays.devices import DeviceKind
from chukker.plays.gps import CORNERS, EXAMPLE_CORNERS, FORMAT
from chukker.plays.tracking import F64, PlayerId

_TCX = "http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"


def write_gpx(path: Path, t: F64, lat: F64, lon: F64, creator: str = "chukker") -> None:
    """A GPX 1.1 track: one segment, times in UTC with milliseconds."""
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


def write_tcx(path: Path, t: F64, lat: F64, lon: F64) -> None:
    """A TCX activity with one lap of trackpoints (the standard library's writer)."""
    ET.register_namespace("", _TCX)
    root = ET.Element(f"{{{_TCX}}}TrainingCenterDatabase")
    act = ET.SubElement(ET.SubElement(root, f"{{{_TCX}}}Activities"), f"{{{_TCX}}}Activity",
                        Sport="Other")
    first = datetime.fromtimestamp(float(t[0]), UTC).isoformat(timespec="milliseconds")
    ET.SubElement(act, f"{{{_TCX}}}Id").text = first.replace("+00:00", "Z")
    lap = ET.SubElement(act, f"{{{_TCX}}}Lap", StartTime=first.replace("+00:00", "Z"))
    track = ET.SubElement(lap, f"{{{_TCX}}}Track")
    for ti, a, o in zip(t.tolist(), lat.tolist(), lon.tolist(), strict=True):
        tp = ET.SubElement(track, f"{{{_TCX}}}Trackpoint")
        when = datetime.fromtimestamp(round(ti, 3), UTC).isoformat(timespec="milliseconds")
        ET.SubElement(tp, f"{{{_TCX}}}Time").text = when.replace("+00:00", "Z")
        pos = ET.SubElement(tp, f"{{{_TCX}}}Position")
        ET.SubElement(pos, f"{{{_TCX}}}LatitudeDegrees").text = f"{a:.7f}"
        ET.SubElement(pos, f"{{{_TCX}}}LongitudeDegrees").text = f"{o:.7f}"
    ET.ElementTree(root).write(path, encoding="UTF-8", xml_declaration=True)


def write_fit(path: Path, t: F64, lat: F64, lon: F64) -> None:
    """A FIT activity file of ``record`` messages (fit-tool's builder). FIT records carry
    whole seconds, as a device writes them: each time is floored to its second."""
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
    fid.type = FileType.ACTIVITY
    fid.manufacturer = Manufacturer.DEVELOPMENT.value
    fid.product = 0
    fid.serial_number = 1
    fid.time_created = math.floor(float(t[0])) * 1000
    b.add(fid)
    for ti, a, o in zip(t.tolist(), lat.tolist(), lon.tolist(), strict=True):
        r = RecordMessage()
        r.timestamp = math.floor(ti) * 1000
        r.position_lat = a
        r.position_long = o
        b.add(r)
    path.write_bytes(b.build().to_bytes())


WRITERS = {DeviceKind.GPX: write_gpx, DeviceKind.FIT: write_fit, DeviceKind.TCX: write_tcx}


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
