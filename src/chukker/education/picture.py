"""A play question's picture: the players and the ball at the instant the play stops.

The plays' own diagrams show the verdict, the foul marker and the right of way,
which is what the question asks; this picture shows only the arena, the players
(numbered, in their team colours) and the ball, the paths they took up to that
instant, and a legend of the teams.

>>> png = play_picture("13b-zigzag", 2.6, "es")
>>> png[:4]
b'\\x89PNG'
"""

from __future__ import annotations

import io

from PIL import Image, ImageDraw, ImageFont

from chukker.plays import load_shipped
from chukker.plays.scenario import text_in

WIDTH = 720


def _hex(c: str) -> tuple[int, int, int]:
    c = c.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    return (int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16))


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in ("DejaVuSans-Bold.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def _frame(scenario_id: str) -> tuple[float, float, float, int, int]:
    """The view's origin, the scale (pixels per yard), the arena height and legend height."""
    sc = load_shipped(scenario_id)
    x0, y0, x1, y1 = sc.render.view
    scale = WIDTH / (x1 - x0)
    return x0, y0, scale, round((y1 - y0) * scale), 34


def player_spots(scenario_id: str, t: float) -> dict[str, tuple[float, float, float]]:
    """Where each player is on the picture at ``t``: ``(left %, top %, diameter %)`` of
    the picture's width and height, by player id (``team:number``), so that a page can
    lay a clickable spot over each player.

    >>> spots = player_spots("13b-zigzag", 2.6)
    >>> sorted(spots)
    ['blue:1', 'blue:2', 'white:1', 'white:2']
    """
    sc = load_shipped(scenario_id)
    t = max(0.0, min(t, sc.duration))
    x0, y0, scale, h, legend = _frame(scenario_id)
    r = max(8.0, 0.9 * scale)
    out = {}
    for pid, track in sc.players:
        x, y = track.at(t)
        out[str(pid)] = (
            round(100 * (x - x0) * scale / WIDTH, 2),
            round(100 * (y - y0) * scale / (h + legend), 2),
            round(100 * 2.6 * r / WIDTH, 2),
        )
    return out


def play_picture(scenario_id: str, t: float, lang: str = "en") -> bytes:
    """PNG bytes of scenario ``scenario_id`` at ``t`` seconds (no verdict shown)."""
    sc = load_shipped(scenario_id)
    t = max(0.0, min(t, sc.duration))
    x0, y0, x1, y1 = sc.render.view
    scale = WIDTH / (x1 - x0)
    legend_h = 34
    h = round((y1 - y0) * scale)
    img = Image.new("RGB", (WIDTH, h + legend_h), (251, 250, 246))
    d = ImageDraw.Draw(img)

    def P(x: float, y: float) -> tuple[float, float]:
        return ((x - x0) * scale, (y - y0) * scale)

    d.rectangle([0, 0, WIDTH - 1, h - 1], fill=(233, 220, 192), outline=(90, 70, 48), width=3)
    for lx in (0.0, 15.0, 25.0, 50.0, 75.0, 85.0, 100.0):
        if x0 <= lx <= x1:
            d.line([P(lx, y0), P(lx, y1)], fill=(255, 255, 255), width=2)
    # where everyone came from: the paths up to the instant
    steps = [t * k / 40 for k in range(41)]
    for pid, track in sc.players:
        col = _hex(sc.team(pid.team).colour)
        d.line([P(*track.at(s)) for s in steps], fill=(110, 96, 80), width=4, joint="curve")
        d.line([P(*track.at(s)) for s in steps], fill=col, width=2, joint="curve")
    if sc.ball is not None:
        d.line([P(*sc.ball.at(s)) for s in steps], fill=(150, 150, 150), width=1)
    r = max(8.0, 0.9 * scale)
    font = _font(int(r * 1.2))
    for pid, track in sc.players:
        x, y = P(*track.at(t))
        col = _hex(sc.team(pid.team).colour)
        d.ellipse([x - r, y - r, x + r, y + r], fill=col, outline=(34, 34, 34), width=2)
        light = 0.299 * col[0] + 0.587 * col[1] + 0.114 * col[2] > 150
        d.text((x, y), str(pid.number), fill=(17, 17, 17) if light else (255, 255, 255),
               font=font, anchor="mm")
    if sc.ball is not None:
        x, y = P(*sc.ball.at(t))
        br = max(4.0, 0.35 * scale)
        d.ellipse([x - br, y - br, x + br, y + br], fill=(255, 255, 255), outline=(0, 0, 0))
    lx = 10.0
    small = _font(13)
    for team in sc.teams:
        nums = sorted(p.number for p, _ in sc.players if p.team == team.name)
        d.ellipse([lx, h + 10, lx + 14, h + 24], fill=_hex(team.colour), outline=(34, 34, 34))
        label = f"{text_in(team.label, lang)} {', '.join(map(str, nums))}"
        d.text((lx + 20, h + 17), label, fill=(34, 34, 34), font=small, anchor="lm")
        lx += 40 + d.textlength(label, font=small)
    d.text((WIDTH - 10, h + 17), f"t = {t:g} s", fill=(85, 85, 85), font=small, anchor="rm")
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()
