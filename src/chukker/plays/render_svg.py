"""One self-contained animated SVG per scenario (SMIL ``<animate>`` with ``keyTimes``).

Players and ball move with ``calcMode="linear"`` between the scenario keyframes;
the line of the ball, the right-of-way corridor and the foul marker change with
``calcMode="discrete"``. No external references: the file opens anywhere, and a
page can drive it with ``svg.pauseAnimations()`` and ``svg.setCurrentTime(t)``.

>>> from chukker.plays.scenario import load_shipped
>>> svg = render_svg(load_shipped("13b-zigzag"))
>>> svg.startswith("<svg") and "keyTimes=" in svg and "href" not in svg
True
"""

from __future__ import annotations

import itertools
from xml.sax.saxutils import escape, quoteattr

from chukker.plays.scenario import Scenario
from chukker.plays.scene import Scene, build, ui

W = 1000.0
ARENA_W = 640.0
HEADER = 44.0
TIMELINE_H = 150.0
SIDE_X = 664.0


class Layout:
    """Yards to pixels for one scene."""

    def __init__(self, scene: Scene) -> None:
        x0, y0, x1, y1 = scene.scenario.render.view
        self.x0, self.y0 = x0, y0
        self.s = ARENA_W / (x1 - x0)
        self.h = (y1 - y0) * self.s
        self.ox, self.oy = 12.0, HEADER
        self.height = max(self.oy + self.h, 470.0) + TIMELINE_H

    def x(self, x: float) -> float:
        return round(self.ox + (x - self.x0) * self.s, 2)

    def y(self, y: float) -> float:
        return round(self.oy + (y - self.y0) * self.s, 2)

    def d(self, yards: float) -> float:
        return round(yards * self.s, 2)


def _kt(times: list[float], dur: float) -> str:
    return ";".join(f"{min(1.0, max(0.0, t / dur)):.4f}" for t in times)


def _anim(attr: str, values: list[str], times: list[float], dur: float, mode: str) -> str:
    return (
        f'<animate attributeName="{attr}" dur="{dur:g}s" begin="0s" repeatCount="indefinite"'
        f' calcMode="{mode}" keyTimes="{_kt(times, dur)}" values="{";".join(values)}"/>'
    )


def _discrete(attr: str, seq: list[tuple[float, str]], dur: float) -> str:
    """Discrete animation from ``(t, value)`` changes; the first one must be at t = 0."""
    collapsed: list[tuple[float, str]] = []
    for t, v in seq:
        if collapsed and collapsed[-1][0] == t:
            collapsed.pop()
        if not collapsed or collapsed[-1][1] != v:
            collapsed.append((t, v))
    if len(collapsed) == 1:
        collapsed.append((dur, collapsed[0][1]))
    return _anim(attr, [v for _, v in collapsed], [t for t, _ in collapsed], dur, "discrete")


def _key_series(
    keys: tuple[tuple[float, float, float], ...], dur: float
) -> list[tuple[float, float, float]]:
    ks = [k for k in keys if 0.0 <= k[0] <= dur]
    if not ks or ks[0][0] > 0:
        ks.insert(0, (0.0, *_interp(keys, 0.0)))
    if ks[-1][0] < dur:
        ks.append((dur, *_interp(keys, dur)))
    return ks


Series = tuple[list[float], list[str], list[str]]


def _series(keys: tuple[tuple[float, float, float], ...], dur: float, L: Layout) -> Series:
    """Key times and screen x and y of a keyframed entity over the whole play."""
    ks = _key_series(keys, dur)
    return [k[0] for k in ks], [str(L.x(k[1])) for k in ks], [str(L.y(k[2])) for k in ks]


def _move(series: Series, dur: float, ax: str, ay: str) -> str:
    """The two linear ``<animate>``s that move attributes ``ax`` and ``ay`` along ``series``."""
    times, xs, ys = series
    return _anim(ax, xs, times, dur, "linear") + _anim(ay, ys, times, dur, "linear")


def _interp(keys: tuple[tuple[float, float, float], ...], t: float) -> tuple[float, float]:
    if t <= keys[0][0]:
        return keys[0][1], keys[0][2]
    for a, b in itertools.pairwise(keys):
        if a[0] <= t <= b[0]:
            r = (t - a[0]) / (b[0] - a[0])
            return a[1] + r * (b[1] - a[1]), a[2] + r * (b[2] - a[2])
    return keys[-1][1], keys[-1][2]


def _text_colour(fill: str) -> str:
    h = fill.lstrip("#")
    if len(h) != 6:
        return "#111"
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return "#111" if (0.299 * r + 0.587 * g + 0.114 * b) > 150 else "#fff"


def render_svg(sc: Scenario, lang: str = "en") -> str:
    """The animated diagram of ``sc`` as an SVG document (a string)."""
    scene = build(sc, lang)
    L = Layout(scene)
    u = ui(lang)
    dur = sc.duration
    a = scene.arena
    out: list[str] = []
    H = L.height
    title = escape(dict(sc.title).get(lang) or dict(sc.title)["en"])
    out.append(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W:g} {H:g}" width="{W:g}" '
        f'height="{H:g}" font-family="Helvetica, Arial, sans-serif" data-duration="{dur:g}" '
        f'role="img" aria-label={quoteattr(dict(sc.title).get(lang, ""))}>'
    )
    out.append(f"<title>{title}</title>")
    out.append(f'<rect width="{W:g}" height="{H:g}" fill="#fbfaf6"/>')
    out.append(f'<text x="12" y="28" font-size="20" font-weight="bold" fill="#222">{title}</text>')
    out.append(
        f'<text x="{W - 12:g}" y="28" font-size="14" text-anchor="end" fill="#555">'
        f"{escape(sc.clause)} · {escape(sc.edition)}</text>"
    )
    # arena, clipped to the view
    out.append(
        f'<defs><clipPath id="view"><rect x="{L.ox:g}" y="{L.oy:g}" width="{ARENA_W:g}" '
        f'height="{L.h:g}"/></clipPath></defs>'
    )
    out.append('<g clip-path="url(#view)">')
    out.append(
        f'<rect x="{L.ox:g}" y="{L.oy:g}" width="{ARENA_W:g}" height="{L.h:g}" fill="#6b5a45"/>'
    )
    out.append(
        f'<rect x="{L.x(0)}" y="{L.y(0)}" width="{L.d(a.length)}" height="{L.d(a.width)}" '
        f'fill="#e9dcc0" stroke="#5a4630" stroke-width="{max(3.0, L.d(0.4))}"/>'
    )
    for lx in a.lines:
        dash = "" if lx == a.length / 2 else ' stroke-dasharray="8 6"'
        out.append(
            f'<line x1="{L.x(lx)}" y1="{L.y(0)}" x2="{L.x(lx)}" y2="{L.y(a.width)}" '
            f'stroke="#fff" stroke-width="2"{dash}/>'
        )
    g0, g1 = a.goal_y
    for gx in (0.0, a.length):
        out.append(
            f'<line x1="{L.x(gx)}" y1="{L.y(g0)}" x2="{L.x(gx)}" y2="{L.y(g1)}" '
            f'stroke="#c0392b" stroke-width="{max(5.0, L.d(0.7))}"/>'
        )
    F = scene.tracking.frames
    ft = scene.tracking.t
    # right of way corridor
    if sc.render.show_row:
        seq: list[tuple[float, str]] = []
        vis: list[tuple[float, str]] = []
        for f in range(F):
            c = scene.corridor(f)
            pts = " ".join(f"{L.x(x)},{L.y(y)}" for x, y in c) if c else None
            if pts:
                seq.append((float(ft[f]), pts))
            vis.append((float(ft[f]), "1" if pts else "0"))
        if seq:
            first = seq[0][1]
            seq = [(0.0, first)] + [s for s in seq if s[0] > 0]
            out.append(
                f'<polygon class="row" points="{first}" fill="#f1c40f" fill-opacity="0.35" '
                f'stroke="#b7950b" stroke-dasharray="4 3" opacity="0">'
                + _discrete("points", seq, dur)
                + _discrete("opacity", vis, dur)
                + "</polygon>"
            )
    # line of the ball
    if sc.render.show_line:
        lseq: list[tuple[float, tuple[str, str, str, str]]] = []
        lvis: list[tuple[float, str]] = []
        for f in range(F):
            ln = scene.line(f)
            if ln is not None:
                (ax, ay), (bx, by) = ln
                lseq.append(
                    (float(ft[f]), (str(L.x(ax)), str(L.y(ay)), str(L.x(bx)), str(L.y(by))))
                )
            lvis.append((float(ft[f]), "1" if ln else "0"))
        if lseq:
            v0 = lseq[0][1]
            lseq = [(0.0, v0)] + [s for s in lseq if s[0] > 0]
            anims = "".join(
                _discrete(attr, [(t, v[i]) for t, v in lseq], dur)
                for i, attr in enumerate(("x1", "y1", "x2", "y2"))
            )
            out.append(
                f'<line class="line-of-ball" x1="{v0[0]}" y1="{v0[1]}" x2="{v0[2]}" y2="{v0[3]}" '
                f'stroke="#1a5276" stroke-width="2" stroke-dasharray="10 5" opacity="0">'
                + anims
                + _discrete("opacity", lvis, dur)
                + "</line>"
            )
    # players
    r = max(7.0, L.d(0.9))
    for pid, track in sc.players:
        team = sc.team(pid.team)
        series = _series(track.keys, dur, L)
        x0, y0 = series[1][0], series[2][0]
        out.append(
            f'<g class="player" data-player="{pid}"><circle cx="{x0}" cy="{y0}" r="{r:g}" '
            f'fill="{escape(team.colour)}" stroke="#222" stroke-width="1.5">'
            + _move(series, dur, "cx", "cy")
            + "</circle>"
        )
        out.append(
            f'<text x="{x0}" y="{y0}" dy="0.35em" text-anchor="middle" '
            f'font-size="{r * 1.2:.1f}" '
            f'font-weight="bold" fill="{_text_colour(team.colour)}">{pid.number}'
            + _move(series, dur, "x", "y")
            + "</text></g>"
        )
    if sc.ball is not None:
        series = _series(sc.ball.keys, dur, L)
        x0, y0 = series[1][0], series[2][0]
        out.append(
            f'<circle class="ball" cx="{x0}" cy="{y0}" r="{max(3.5, L.d(0.35)):g}" '
            f'fill="#fff" '
            f'stroke="#000" stroke-width="1.2">' + _move(series, dur, "cx", "cy") + "</circle>"
        )
    if scene.foul_at is not None:
        t0, fx, fy = scene.foul_at
        out.append(
            f'<g class="foul-marker" opacity="0"><circle cx="{L.x(fx)}" cy="{L.y(fy)}" '
            f'r="{r * 2:g}" '
            f'fill="none" stroke="#e0161b" stroke-width="4"/><text x="{L.x(fx)}" '
            f'y="{L.y(fy) - r * 2.4:g}" '
            f'text-anchor="middle" font-size="16" font-weight="bold" '
            f'fill="#e0161b">{escape(u["foul"])}</text>'
            + _discrete("opacity", [(0.0, "0"), (t0, "1")], dur)
            + "</g>"
        )
    out.append("</g>")
    out.append(
        f'<rect x="{L.ox:g}" y="{L.oy:g}" width="{ARENA_W:g}" height="{L.h:g}" fill="none" '
        f'stroke="#333"/>'
    )
    out.extend(_legend(scene, L))
    out.extend(_verdict(scene))
    out.extend(_timeline(scene, L))
    out.append("</svg>")
    return "\n".join(out)


def render_legend_svg(sc: Scenario, lang: str = "en") -> str:
    """The diagram's legend alone, as a small SVG: the same drawing as in
    :func:`render_svg`, for a page to show at a readable size where the whole diagram
    is drawn small (a phone)."""
    scene = build(sc, lang)
    L = Layout(scene)
    h = 8 + 22 + 38 + 22 + 22 * len(sc.teams) + 22
    x0, w = SIDE_X - 6, W - SIDE_X + 6
    u = ui(lang)
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" class="legend-only" '
            f'viewBox="{x0:g} {HEADER:g} {w:g} {h:g}" width="{w:g}" height="{h:g}" '
            f'font-family="Helvetica, Arial, sans-serif" role="img" '
            f"aria-label={quoteattr(u['legend'])}>",
            *_legend(scene, L),
            "</svg>",
        ]
    )


def _legend(scene: Scene, L: Layout) -> list[str]:
    u = ui(scene.lang)
    sc = scene.scenario
    x, y = SIDE_X, HEADER + 8
    o = ['<g class="legend" font-size="13" fill="#222">']
    o.append(
        f'<line x1="{x}" y1="{y + 6}" x2="{x + 34}" y2="{y + 6}" stroke="#1a5276" '
        f'stroke-width="2" stroke-dasharray="10 5"/>'
    )
    o.append(f'<text x="{x + 44}" y="{y + 10}">{escape(u["line"])}</text>')
    y += 22
    o.append(
        f'<rect x="{x}" y="{y}" width="34" height="12" fill="#f1c40f" fill-opacity="0.35" '
        f'stroke="#b7950b" stroke-dasharray="4 3"/>'
    )
    o.append(f'<text x="{x + 44}" y="{y + 10}">{escape(u["row"])}</text>')
    o.append(
        f'<text x="{x + 44}" y="{y + 25}" font-size="11" '
        f'fill="#666">({escape(u["row_note"])})</text>'
    )
    y += 38
    o.append(f'<circle cx="{x + 17}" cy="{y + 6}" r="4" fill="#fff" stroke="#000"/>')
    o.append(f'<text x="{x + 44}" y="{y + 10}">{escape(u["ball"])}</text>')
    y += 22
    o.append(
        f'<circle cx="{x + 17}" cy="{y + 6}" r="8" fill="none" stroke="#e0161b" stroke-width="3"/>'
    )
    o.append(f'<text x="{x + 44}" y="{y + 10}">{escape(u["foul"])}</text>')
    for team in sc.teams:
        y += 22
        o.append(
            f'<circle cx="{x + 17}" cy="{y + 6}" r="8" fill="{escape(team.colour)}" stroke="#222"/>'
        )
        names = [str(p.number) for p, _ in sc.players if p.team == team.name]
        label = dict(team.label).get(scene.lang) or team.name
        o.append(f'<text x="{x + 44}" y="{y + 10}">{escape(label)} {", ".join(names)}</text>')
    o.append("</g>")
    return o


def _verdict(scene: Scene) -> list[str]:
    u = ui(scene.lang)
    x, y = SIDE_X, HEADER + 200
    foul = scene.foul_at is not None
    colour = "#b03a2e" if foul else "#1e8449"
    h = 44 + 17 * len(scene.verdict_lines)
    o = [
        f'<g class="verdict"><rect x="{x - 6}" y="{y}" width="{W - x - 6:g}" height="{h}" rx="6" '
        f'fill="#fff" stroke="{colour}" stroke-width="2"/>'
    ]
    o.append(
        f'<text x="{x + 4}" y="{y + 18}" font-size="12" fill="#666">{escape(u["verdict"])}</text>'
    )
    o.append(
        f'<text x="{x + 4}" y="{y + 36}" font-size="16" font-weight="bold" '
        f'fill="{colour}">{escape(scene.verdict_title)}</text>'
    )
    for i, line in enumerate(scene.verdict_lines):
        o.append(
            f'<text x="{x + 4}" y="{y + 56 + 17 * i}" font-size="13" '
            f'fill="#222">{escape(line)}</text>'
        )
    o.append("</g>")
    return o


def _timeline(scene: Scene, L: Layout) -> list[str]:
    u = ui(scene.lang)
    dur = scene.duration
    y0 = L.height - TIMELINE_H + 14
    x0, x1 = 12.0, W - 12.0
    o = [
        f'<g class="timeline"><text x="{x0}" y="{y0 + 4}" font-size="13" font-weight="bold" '
        f'fill="#222">{escape(u["timeline"])}</text>'
    ]
    by = y0 + 14
    o.append(f'<rect x="{x0}" y="{by}" width="{x1 - x0:g}" height="8" rx="4" fill="#ddd"/>')
    o.append(
        f'<rect class="progress" x="{x0}" y="{by}" width="0" height="8" rx="4" fill="#2e86c1">'
        + _anim("width", ["0", f"{x1 - x0:g}"], [0.0, dur], dur, "linear")
        + "</rect>"
    )
    for t, _ in scene.timeline:
        tx = x0 + (x1 - x0) * min(1.0, t / dur)
        o.append(
            f'<line x1="{tx:.1f}" y1="{by - 4}" x2="{tx:.1f}" y2="{by + 12}" stroke="#333" '
            f'stroke-width="2"/>'
        )
    for i, (t, text) in enumerate(scene.timeline[:6]):
        ty = by + 32 + 17 * i
        o.append(
            f'<text class="event" x="{x0}" y="{ty}" font-size="13" fill="#222" opacity="0.35">'
            f"{i + 1}. {escape(text)}"
            + _discrete("opacity", [(0.0, "0.35"), (t, "1")], dur)
            + "</text>"
        )
    o.append("</g>")
    return o


