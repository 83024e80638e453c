"""For coaches: distance covered, time at a gallop and a heat map per player, per period.

Tracking carries no game clock, so a period is a slice of ``period_s`` seconds
from the first frame (default 7:30, the usual arena period); the last one may
be shorter. Distance is the length of the path on the frames (after the GPS
filter for a GPS session); time at a gallop counts the frames at
``gallop_speed_yd_s`` or more (the 13b threshold). The heat map counts the time
spent in each cell of a grid of ``cell_yd`` yards over the arena, drawn as an SVG.

>>> from chukker.plays.scenario import load_shipped
>>> tr = load_shipped("13b-wide-zigzag").tracking()
>>> (p,) = periods(tr)
>>> s = p.stats[0]
>>> str(s.player), round(s.distance_yd), round(s.gallop_s, 1)
('blue:1', 62, 4.4)
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from chukker.plays.params import DEFAULT_PARAMS, Params
from chukker.plays.tracking import F64, PlayerId, Tracking

PERIOD_S = 450.0
CELL_YD = 5.0


@dataclass(frozen=True, slots=True)
class PlayerStats:
    player: PlayerId
    distance_yd: float
    gallop_s: float
    max_speed_yd_s: float
    heat: F64  # seconds per cell, (cells across the width, cells along the length)


@dataclass(frozen=True, slots=True)
class Period:
    number: int
    start: float
    end: float
    stats: tuple[PlayerStats, ...]


def periods(
    tr: Tracking,
    period_s: float = PERIOD_S,
    cell_yd: float = CELL_YD,
    params: Params = DEFAULT_PARAMS,
) -> list[Period]:
    """Each period's statistics for every player."""
    t = tr.t
    if t.size < 2:
        return []
    dt = np.diff(t)
    step = tr.pos[1:] - tr.pos[:-1]
    dist = np.hypot(step[..., 0], step[..., 1])  # (frames - 1, players)
    speed = dist / dt[:, None]
    gallop = speed >= params.gallop_speed_yd_s.value
    nx = max(1, int(np.ceil(tr.length / cell_yd)))
    ny = max(1, int(np.ceil(tr.width / cell_yd)))
    cx = np.clip((tr.pos[1:, :, 0] / cell_yd).astype(np.int64), 0, nx - 1)
    cy = np.clip((tr.pos[1:, :, 1] / cell_yd).astype(np.int64), 0, ny - 1)
    out = []
    t0 = float(t[0])
    k = 0
    while t0 + k * period_s < float(t[-1]) - 1e-9:
        a, b = t0 + k * period_s, min(float(t[-1]), t0 + (k + 1) * period_s)
        sel = np.flatnonzero((t[1:] > a + 1e-9) & (t[1:] <= b + 1e-9))
        stats = []
        for j, pl in enumerate(tr.players):
            heat = np.zeros((ny, nx))
            np.add.at(heat, (cy[sel, j], cx[sel, j]), dt[sel])
            stats.append(
                PlayerStats(
                    pl,
                    float(dist[sel, j].sum()),
                    float(dt[sel][gallop[sel, j]].sum()),
                    float(speed[sel, j].max()) if sel.size else 0.0,
                    heat,
                )
            )
        out.append(Period(k + 1, a - t0, b - t0, tuple(stats)))
        k += 1
    return out


def heat_svg(
    s: PlayerStats, title: str, length: float = 100.0, width: float = 50.0, scale: float = 3.0
) -> str:
    """The arena with the time spent in each cell, darker where the player was longer."""
    ny, nx = s.heat.shape
    cw, ch = length / nx, width / ny
    W, H = length * scale, width * scale
    peak = float(s.heat.max()) or 1.0
    cells = []
    for iy in range(ny):
        for ix in range(nx):
            v = float(s.heat[iy, ix])
            if v <= 0:
                continue
            x = ix * cw * scale
            y = H - (iy + 1) * ch * scale  # y up, as the diagrams
            alpha = 0.08 + 0.85 * v / peak
            cells.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{cw * scale:.1f}" '
                f'height="{ch * scale:.1f}" fill="#b03a2e" fill-opacity="{alpha:.2f}">'
                f"<title>{v:.1f} s</title></rect>"
            )
    mid = W / 2
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="heat" viewBox="0 0 {W:g} {H:g}" '
        f'width="{W:g}" height="{H:g}" role="img" aria-label={quoteattr(title)}>'
        f"<title>{escape(title)}</title>"
        f'<rect width="{W:g}" height="{H:g}" fill="#e9dcc0" stroke="#555"/>'
        f'<line x1="{mid:g}" y1="0" x2="{mid:g}" y2="{H:g}" stroke="#fff" stroke-width="1.5"/>'
        + "".join(cells)
        + "</svg>"
    )
