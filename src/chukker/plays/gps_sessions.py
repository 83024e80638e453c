"""Writing ``chukker-gps/1`` sessions: the ``[arena]`` table read (as ``chukker plays
arena`` prints it), a session for device files alone, the contract's example arena, and
synthetic GPS units logging a play (seeded; for the tests, examples and benchmarks).
Reading a session into tracking is :mod:`chukker.plays.gps`'s."""

from __future__ import annotations

import json
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from chukker.plays.gps import (
    CORNERS,
    FORMAT,
    ArenaProjection,
    GPSError,
    corner_pair,
)
from chukker.plays.tracking import F64, PlayerId, Tracking

#: the arena of the contract's example (Florida), used by the examples and tests
EXAMPLE_CORNERS = {
    "sw": (26.61500, -80.20000),
    "nw": (26.61541, -80.20000),
    "ne": (26.61541, -80.19909),
    "se": (26.61500, -80.19909),
}


@dataclass(frozen=True, slots=True)
class Degrade:
    """How a synthetic GPS unit differs from the clean track (seeded)."""

    rate_hz: float = 10.0
    noise_m: float = 0.5  # root mean square of the horizontal error (per axis: / sqrt 2)
    drop: float = 0.05  # fraction of fixes lost
    offsets_s: tuple[tuple[str, float], ...] = ()  # unit -> first fix later by this much
    jitter_s: float = 0.0

    def offset(self, unit: str) -> float:
        return dict(self.offsets_s).get(unit, 0.0)


def fixes_from_tracking(
    tr: Tracking,
    proj: ArenaProjection,
    units: Mapping[str, PlayerId],
    degrade: Degrade,
    seed: int,
    start_epoch_s: float = 1_796_464_800.0,  # 2026-12-05T10:00:00Z
) -> tuple[F64, list[str], F64, F64]:
    """Fixes of each unit sampled from ``tr`` (clean, in yards) as a GPS unit would log them.

    Each unit logs at ``rate_hz`` from its own start (``offsets_s``), with Gaussian
    horizontal error of ``noise_m`` metres root mean square, and loses a fraction
    ``drop`` of its fixes.
    """
    rng = np.random.default_rng(seed)
    index = {pl: j for j, pl in enumerate(tr.players)}
    ts, us, las, los = [], [], [], []
    end = float(tr.t[-1])
    for u, pl in units.items():
        j = index[pl]
        off = degrade.offset(u)
        k = np.arange(0, math.floor((end - off) * degrade.rate_hz + 1e-9) + 1)
        tu = off + k / degrade.rate_hz
        if degrade.jitter_s:
            tu = tu + rng.uniform(-degrade.jitter_s, degrade.jitter_s, tu.size)
            tu = np.clip(tu, 0.0, end)
        keep = rng.random(tu.size) >= degrade.drop
        keep[0] = keep[-1] = True
        tu = tu[keep]
        x = np.interp(tu, tr.t, tr.pos[:, j, 0])
        y = np.interp(tu, tr.t, tr.pos[:, j, 1])
        lat, lon = proj.to_latlon(x, y)
        m_lat = 111_320.0  # metres per degree, near enough for noise
        m_lon = m_lat * math.cos(math.radians(proj.lat0))
        sd = degrade.noise_m / math.sqrt(2.0)
        lat = lat + rng.normal(0.0, sd, tu.size) / m_lat
        lon = lon + rng.normal(0.0, sd, tu.size) / m_lon
        ts.append(tu + start_epoch_s)
        us += [u] * tu.size
        las.append(lat)
        los.append(lon)
    t = np.concatenate(ts)
    order = np.argsort(t, kind="stable")
    ua = np.array(us, dtype=object)[order]
    return t[order], [str(x) for x in ua], np.concatenate(las)[order], np.concatenate(los)[order]


def unit_names(tr: Tracking) -> dict[str, PlayerId]:
    """Synthetic unit ids ``GX-101``... for the players of ``tr``."""
    return {f"GX-{101 + j}": pl for j, pl in enumerate(tr.players)}


def example_projection() -> ArenaProjection:
    c = EXAMPLE_CORNERS
    return ArenaProjection.from_corners(c["sw"], c["nw"], c["ne"], c["se"])


def write_session(
    path: str | Path,
    t: F64,
    unit: list[str],
    lat: F64,
    lon: F64,
    units: Mapping[str, PlayerId],
    corners: Mapping[str, tuple[float, float]] = EXAMPLE_CORNERS,
    iso: bool = True,
    ball: str | None = None,
) -> Path:
    """Write ``SESSION.toml`` and its ``fixes.csv`` beside it (times ISO 8601 in UTC)."""
    p = Path(path)
    fixes = p.with_name(p.stem + "-fixes.csv")
    lines = ["time,unit,lat,lon"]
    for ti, u, a, o in zip(t.tolist(), unit, lat.tolist(), lon.tolist(), strict=True):
        if iso:
            stamp = datetime.fromtimestamp(round(ti, 3), UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")
            stamp = stamp[:-3] + "Z"
        else:
            stamp = f"{ti:.3f}"
        lines.append(f"{stamp},{u},{a:.7f},{o:.7f}")
    fixes.write_text("\n".join(lines) + "\n", encoding="utf-8")
    doc = [f'format = "{FORMAT}"', f'fixes = "{fixes.name}"']
    if ball:
        doc.append(f'ball = "{ball}"')
    doc += ["", "[arena]"]
    doc += [f"{c} = [{corners[c][0]:.6f}, {corners[c][1]:.6f}]" for c in CORNERS]
    doc += ["", "[units]"]
    doc += [f'"{u}" = "{pl}"' for u, pl in units.items()]
    p.write_text("\n".join(doc) + "\n", encoding="utf-8")
    return p


def parse_corners(text: str, where: str = "corners") -> dict[str, tuple[float, float]]:
    """The four corners of an ``[arena]`` table as ``chukker plays arena`` prints it.

    >>> parse_corners("[arena]\\nsw = [26.615, -80.2]\\nnw = [26.6154, -80.2]\\n"
    ...               "ne = [26.6154, -80.1991]\\nse = [26.615, -80.1991]")["ne"]
    (26.6154, -80.1991)
    """
    body = text.strip()
    if not body.startswith("[arena]"):
        body = "[arena]\n" + body
    try:
        arena = tomllib.loads(body).get("arena")
    except tomllib.TOMLDecodeError as exc:
        raise GPSError(f"{where}: not the [arena] table of 'chukker plays arena': {exc}") from None
    if not isinstance(arena, Mapping):
        raise GPSError(f"{where}: expected the [arena] table (sw, nw, ne, se)")
    out: dict[str, tuple[float, float]] = {}
    for c in CORNERS:
        if c not in arena:
            raise GPSError(f"{where}: corner {c!r} missing (sw, nw, ne, se)")
        out[c] = corner_pair(arena[c], f"{where}: {c}")
    return out


def device_session_text(
    units: Mapping[str, tuple[str, float]], corners: Mapping[str, tuple[float, float]]
) -> str:
    """A ``chukker-gps/1`` session for device files alone: ``units`` maps each file's
    name to its entity (``"blue:1"``) and clock offset in seconds. The unit ids are
    the files' names without their extension.

    >>> print(device_session_text({"a.fit": ("blue:1", 0.0)}, {c: (1.0, 2.0) for c in CORNERS}))
    ... # doctest: +NORMALIZE_WHITESPACE
    format = "chukker-gps/1"
    <BLANKLINE>
    [arena]
    sw = [1.0000000, 2.0000000]
    nw = [1.0000000, 2.0000000]
    ne = [1.0000000, 2.0000000]
    se = [1.0000000, 2.0000000]
    <BLANKLINE>
    [units]
    "a" = { entity = "blue:1", file = "a.fit" }
    """
    doc = [f'format = "{FORMAT}"', "", "[arena]"]
    doc += [f"{c} = [{corners[c][0]:.7f}, {corners[c][1]:.7f}]" for c in CORNERS]
    doc += ["", "[units]"]
    seen: set[str] = set()
    for name, (ent, offset) in units.items():
        PlayerId.parse(ent, f"units: {name}")
        uid = Path(name).stem or name
        while uid in seen:
            uid += "+"
        seen.add(uid)
        off = f", offset_s = {offset:g}" if offset else ""
        doc.append(f'{json.dumps(uid)} = {{ entity = "{ent}", file = {json.dumps(name)}{off} }}')
    return "\n".join(doc) + "\n"
