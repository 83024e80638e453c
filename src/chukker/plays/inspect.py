"""``chukker plays inspect``: what chukker reads from each device file, before any
session is written (issue 34): the kind, the points kept, dropped by reason, first and
last time (UTC), the rate, the bounding box, the gaps and notes, and whether the track
ever enters a given arena. The review page's "device files alone" form shows the same.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "a.gpx").write_text('<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">'
...     '<trk><trkseg><trkpt lat="26.6152" lon="-80.1999"><time>2026-12-05T10:00:00Z</time>'
...     '</trkpt><trkpt lat="26.6153" lon="-80.1998"><time>2026-12-05T10:00:01Z</time>'
...     '</trkpt></trkseg></trk></gpx>')
>>> _ = (d / "b.gpx").write_bytes(b"")
>>> [sorted(r) for r in inspect_files([d / "a.gpx", d / "b.gpx"])][1]
['file', 'refused']
>>> inspect_files([d / "a.gpx"])[0]["rate_hz"]
1.0
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from chukker.plays.devices import DeviceTrack, read_device
from chukker.plays.gps import ArenaProjection

#: the fields of one file's summary that ``--json`` gives (issue 34), then ours
FIELDS = ("file", "kind", "points", "dropped", "first", "last", "rate_hz")


def summary(track: DeviceTrack, name: str,
            corners: Mapping[str, tuple[float, float]] | None = None) -> dict[str, Any]:
    """What chukker reads from one device file (``chukker plays inspect --json``): the
    kind, the points kept, dropped by reason, first and last time (UTC), the rate, and
    beyond the issue's fields the points merged, the bounding box, the gaps, the notes
    and, given an arena's corners, whether the track ever enters it."""
    def iso(v: float) -> str:
        return datetime.fromtimestamp(v, UTC).isoformat(timespec="milliseconds").replace(
            "+00:00", "Z")

    out: dict[str, Any] = {
        "file": name, "kind": track.kind.value, "points": int(track.t.size),
        "dropped": dict(track.dropped), "first": iso(float(track.t[0])),
        "last": iso(float(track.t[-1])), "rate_hz": track.rate_hz,
        "read": track.read, "merged": track.merged,
        "bbox": {"south": float(track.lat.min()), "west": float(track.lon.min()),
                 "north": float(track.lat.max()), "east": float(track.lon.max())},
        "gaps": [{"from": iso(a), "to": iso(b), "s": round(b - a, 3)} for a, b in track.gaps],
        "notes": list(track.notes),
    }
    if corners is not None:
        proj = ArenaProjection.from_corners(corners["sw"], corners["nw"], corners["ne"],
                                            corners["se"])
        x, y = proj.to_arena(track.lat, track.lon)
        inside = (x >= 0) & (x <= proj.length) & (y >= 0) & (y <= proj.width)
        out["in_arena"] = int(np.count_nonzero(inside))
        out["enters_arena"] = bool(inside.any())
    return out


def inspect_files(paths: Sequence[Path], corners: Mapping[str, tuple[float, float]] | None = None,
                  names: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """One summary per file, in order; a refused file gives ``{"file", "refused"}`` and
    never stops the others. ``names``: what to call each file (an upload's own name)."""
    out: list[dict[str, Any]] = []
    for i, p in enumerate(paths):
        name = names[i] if names is not None else Path(p).name
        try:
            out.append(summary(read_device(p, name), name, corners))
        except ValueError as exc:  # TrackingError, LimitError: one line naming the file
            msg = str(exc)
            out.append({"file": name, "refused": msg if msg.startswith(name) else
                        f"{name}: {msg}"})
    return out
