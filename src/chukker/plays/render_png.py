"""A still of any instant of a scenario, drawn with Pillow (for print).

>>> from chukker.plays.scenario import load_shipped
>>> im = render_png(load_shipped("13b-zigzag"), 2.6)
>>> im.size
(1000, 620)
"""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from chukker.plays.render_svg import ARENA_W, HEADER, SIDE_X, TIMELINE_H, Layout, W
from chukker.plays.scenario import Scenario
from chukker.plays.scene import Scene, build, ui


def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    names = ["DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"]
    for n in names:
        try:
            return ImageFont.truetype(n, size)
        except OSError:
            pass
    return ImageFont.load_default(size=size)


def _hex(c: str) -> tuple[int, int, int]:
    h = c.lstrip("#")
    if len(h) == 3:
        h = "".join(x * 2 for x in h)
    try:
        return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))
    except ValueError:
        return (136, 136, 136)


def render_png(sc: Scenario, t: float, lang: str = "en", scale: float = 1.0) -> Image.Image:
    """The diagram at time ``t`` seconds as an RGB image (``scale`` 2 for print)."""
    scene = build(sc, lang)
    return draw_scene(scene, t, scale)


def draw_scene(scene: Scene, t: float, scale: float = 1.0) -> Image.Image:
    sc = scene.scenario
    L = Layout(scene)
    u = ui(scene.lang)
    t = max(0.0, min(t, sc.duration))
    k = scale
    img = Image.new("RGB", (int(W * k), int(L.height * k)), (251, 250, 246))
    d = ImageDraw.Draw(img)

    def P(x: float, y: float) -> tuple[float, float]:
        return (L.x(x) * k, L.y(y) * k)

    title = dict(sc.title).get(scene.lang) or dict(sc.title)["en"]
    d.text((12 * k, 14 * k), title, fill=(34, 34, 34), font=_font(int(20 * k), True))
    d.text(
        ((W - 12) * k, 16 * k),
        f"{sc.clause} · {sc.edition} · t = {t:.2f} s",
        fill=(85, 85, 85),
        font=_font(int(14 * k)),
        anchor="ra",
    )
    # arena in its own layer, clipped to the view
    view = Image.new("RGB", img.size, (107, 90, 69))
    v = ImageDraw.Draw(view)
    a = scene.arena
    v.rectangle(
        [*P(0, 0), *P(a.length, a.width)],
        fill=(233, 220, 192),
        outline=(90, 70, 48),
        width=max(3, int(L.d(0.4) * k)),
    )
    for lx in a.lines:
        v.line([*P(lx, 0), *P(lx, a.width)], fill=(255, 255, 255), width=int(2 * k))
    g0, g1 = a.goal_y
    for gx in (0.0, a.length):
        v.line([*P(gx, g0), *P(gx, g1)], fill=(192, 57, 43), width=max(5, int(L.d(0.7) * k)))
    f = scene.frame_at(t)
    c = scene.corridor(f) if sc.render.show_row else None
    if c:
        over = Image.new("RGBA", img.size, (0, 0, 0, 0))
        ImageDraw.Draw(over).polygon(
            [P(x, y) for x, y in c], fill=(241, 196, 15, 100), outline=(183, 149, 11, 255)
        )
        view.paste(over, (0, 0), over)
        v = ImageDraw.Draw(view)
    ln = scene.line(f) if sc.render.show_line else None
    if ln:
        (ax, ay), (bx, by) = ln
        _dashed(v, P(ax, ay), P(bx, by), (26, 82, 118), int(2 * k) or 1, 10 * k, 5 * k)
    r = max(7.0, L.d(0.9)) * k
    for pid, track in sc.players:
        x, y = P(*track.at(t))
        col = _hex(sc.team(pid.team).colour)
        v.ellipse(
            [x - r, y - r, x + r, y + r], fill=col, outline=(34, 34, 34), width=max(1, int(1.5 * k))
        )
        light = 0.299 * col[0] + 0.587 * col[1] + 0.114 * col[2] > 150
        v.text(
            (x, y),
            str(pid.number),
            fill=(17, 17, 17) if light else (255, 255, 255),
            font=_font(int(r * 1.2), True),
            anchor="mm",
        )
    if sc.ball is not None:
        x, y = P(*sc.ball.at(t))
        br = max(3.5, L.d(0.35)) * k
        v.ellipse([x - br, y - br, x + br, y + br], fill=(255, 255, 255), outline=(0, 0, 0))
    if scene.foul_at is not None and t >= scene.foul_at[0]:
        _, fx, fy = scene.foul_at
        x, y = P(fx, fy)
        v.ellipse(
            [x - 2 * r, y - 2 * r, x + 2 * r, y + 2 * r], outline=(224, 22, 27), width=int(4 * k)
        )
        v.text(
            (x, y - 2.4 * r),
            u["foul"],
            fill=(224, 22, 27),
            font=_font(int(16 * k), True),
            anchor="mb",
        )
    box = (int(L.ox * k), int(L.oy * k), int((L.ox + ARENA_W) * k), int((L.oy + L.h) * k))
    img.paste(view.crop(box), box[:2])
    d.rectangle(box, outline=(51, 51, 51))
    # legend
    x0, y0 = SIDE_X * k, (HEADER + 8) * k
    f13, f11 = _font(int(13 * k)), _font(int(11 * k))
    _dashed(
        d,
        (x0, y0 + 6 * k),
        (x0 + 34 * k, y0 + 6 * k),
        (26, 82, 118),
        int(2 * k) or 1,
        10 * k,
        5 * k,
    )
    d.text((x0 + 44 * k, y0), u["line"], fill=(34, 34, 34), font=f13)
    y0 += 22 * k
    d.rectangle([x0, y0, x0 + 34 * k, y0 + 12 * k], fill=(248, 231, 160), outline=(183, 149, 11))
    d.text((x0 + 44 * k, y0), u["row"], fill=(34, 34, 34), font=f13)
    d.text((x0 + 44 * k, y0 + 16 * k), f"({u['row_note']})", fill=(102, 102, 102), font=f11)
    y0 += 38 * k
    d.ellipse(
        [x0 + 13 * k, y0 + 2 * k, x0 + 21 * k, y0 + 10 * k], fill=(255, 255, 255), outline=(0, 0, 0)
    )
    d.text((x0 + 44 * k, y0), u["ball"], fill=(34, 34, 34), font=f13)
    y0 += 22 * k
    d.ellipse(
        [x0 + 9 * k, y0 - 2 * k, x0 + 25 * k, y0 + 14 * k], outline=(224, 22, 27), width=int(3 * k)
    )
    d.text((x0 + 44 * k, y0), u["foul"], fill=(34, 34, 34), font=f13)
    for team in sc.teams:
        y0 += 22 * k
        d.ellipse(
            [x0 + 9 * k, y0 - 2 * k, x0 + 25 * k, y0 + 14 * k],
            fill=_hex(team.colour),
            outline=(34, 34, 34),
        )
        names = ", ".join(str(p.number) for p, _ in sc.players if p.team == team.name)
        label = dict(team.label).get(scene.lang) or team.name
        d.text((x0 + 44 * k, y0), f"{label} {names}", fill=(34, 34, 34), font=f13)
    # verdict
    vy = (HEADER + 200) * k
    foul = scene.foul_at is not None
    colour = (176, 58, 46) if foul else (30, 132, 73)
    h = (44 + 17 * len(scene.verdict_lines)) * k
    d.rounded_rectangle(
        [x0 - 6 * k, vy, (W - 12) * k, vy + h],
        radius=int(6 * k),
        fill=(255, 255, 255),
        outline=colour,
        width=int(2 * k),
    )
    d.text((x0 + 4 * k, vy + 6 * k), u["verdict"], fill=(102, 102, 102), font=_font(int(12 * k)))
    d.text(
        (x0 + 4 * k, vy + 20 * k), scene.verdict_title, fill=colour, font=_font(int(16 * k), True)
    )
    for i, line in enumerate(scene.verdict_lines):
        d.text((x0 + 4 * k, vy + (44 + 17 * i) * k), line, fill=(34, 34, 34), font=f13)
    # timeline
    ty = (L.height - TIMELINE_H + 14) * k
    d.text((12 * k, ty - 10 * k), u["timeline"], fill=(34, 34, 34), font=_font(int(13 * k), True))
    by = ty + 14 * k
    bx0, bx1 = 12 * k, (W - 12) * k
    d.rounded_rectangle([bx0, by, bx1, by + 8 * k], radius=int(4 * k), fill=(221, 221, 221))
    px = bx0 + (bx1 - bx0) * t / sc.duration
    d.rounded_rectangle(
        [bx0, by, max(bx0 + 1, px), by + 8 * k], radius=int(4 * k), fill=(46, 134, 193)
    )
    for et, _ in scene.timeline:
        ex = bx0 + (bx1 - bx0) * min(1.0, et / sc.duration)
        d.line([ex, by - 4 * k, ex, by + 12 * k], fill=(51, 51, 51), width=int(2 * k))
    for i, (et, text) in enumerate(scene.timeline[:6]):
        col = (34, 34, 34) if et <= t else (170, 170, 170)
        d.text((bx0, by + (20 + 17 * i) * k), f"{i + 1}. {text}", fill=col, font=f13)
    return img


def _dashed(
    d: ImageDraw.ImageDraw,
    a: tuple[float, float],
    b: tuple[float, float],
    fill: tuple[int, int, int],
    width: int,
    on: float,
    off: float,
) -> None:
    (ax, ay), (bx, by) = a, b
    length = ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5
    if length == 0:
        return
    ux, uy = (bx - ax) / length, (by - ay) / length
    s = 0.0
    while s < length:
        e = min(length, s + on)
        d.line([ax + ux * s, ay + uy * s, ax + ux * e, ay + uy * e], fill=fill, width=width)
        s = e + off
