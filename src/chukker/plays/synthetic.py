"""Generated plays for the property tests and the benchmark (no I/O).

>>> tr = generated_play(1, seconds=2.0)
>>> tr.frames, len(tr.players)
(51, 6)
"""

from __future__ import annotations

import numpy as np

from chukker.plays.geometry import Transform
from chukker.plays.tracking import Event, EventKind, PlayerId, Side, Tracking

PLAYERS = tuple(PlayerId(team, n) for team in ("blue", "white") for n in (1, 2, 3))


def generated_play(
    seed: int,
    seconds: float = 12.0,
    region: tuple[float, float, float, float] = (30.0, 15.0, 70.0, 35.0),
    rate: float = 25.0,
    events: bool = True,
    mode: str = "melee",
) -> Tracking:
    """Six players and a ball moving between random keyframes in ``region`` (x0, y0, x1, y1).

    Players stay close together, so ride-offs, crossings and zigzags happen.
    ``mode``: ``melee`` (everyone wanders), ``gallop`` (blue 1 follows the ball on
    its line, the others cut across), ``slow`` (a walking carrier, marked: delays),
    ``match`` (smooth play: the ball runs between hits, players follow it at their
    own distance; few candidates, as in a real chukker).
    """
    if mode == "match":
        return _match(seed, seconds, region, rate)
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = region
    n = round(seconds * rate) + 1
    t = np.arange(n) / rate
    step = float(rng.choice([0.3, 0.5, 0.8]))
    kt = np.arange(0.0, seconds + step, step)
    pos = np.empty((n, len(PLAYERS), 2))
    # a common drift (the play moves up or down the arena) plus individual wander
    cx = np.interp(kt, [0, seconds], rng.uniform(x0 + 5, x1 - 5, 2))
    cy = np.interp(kt, [0, seconds], rng.uniform(y0 + 3, y1 - 3, 2))
    spread = float(rng.uniform(1.5, 6.0))
    if mode == "slow":
        cx = np.interp(kt, [0, seconds], rng.uniform(x0 + 5, x1 - 5, 2) * [1.0, 0.0] + 0.0)
        cx = np.full(kt.size, float(rng.uniform(x0 + 5, x1 - 5))) + 0.4 * kt
        spread = float(rng.uniform(0.8, 2.5))
    for j in range(len(PLAYERS)):
        kx = np.clip(cx + rng.normal(0, spread, kt.size), x0, x1)
        ky = np.clip(cy + rng.normal(0, spread * 0.6, kt.size), y0, y1)
        pos[:, j, 0] = np.interp(t, kt, kx)
        pos[:, j, 1] = np.interp(t, kt, ky)
    bk = np.clip(cx + rng.normal(0, spread, kt.size), x0, x1)
    bky = np.clip(cy + rng.normal(0, spread * 0.5, kt.size), y0, y1)
    hold = rng.random(kt.size) < 0.3
    bk[1:][hold[1:]] = bk[:-1][hold[1:]]
    bky[1:][hold[1:]] = bky[:-1][hold[1:]]
    ball = np.stack([np.interp(t, kt, bk), np.interp(t, kt, bky)], axis=1)
    if mode == "slow":
        for j in range(len(PLAYERS)):  # walk: small steps around the drifting centre
            pos[:, j, 0] = np.interp(t, kt, cx + rng.normal(0, 0.15, kt.size) + j % 3)
            pos[:, j, 1] = np.interp(t, kt, cy + rng.normal(0, 0.15, kt.size) + 1.2 * (j // 3))
        ball = pos[:, 0, :] + [1.0, 0.0]
    if mode == "gallop":
        speed = float(rng.uniform(8.0, 14.0))
        ang = float(rng.uniform(0, 2 * np.pi))
        p = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
        pts = [p.copy()]
        for _ in range(kt.size - 1):
            if rng.random() < 0.2:
                ang += float(rng.normal(0, 0.8))
            p = p + step * speed * np.array([np.cos(ang), np.sin(ang)])
            if not (x0 < p[0] < x1 and y0 < p[1] < y1):
                ang += np.pi
                p = np.clip(p, [x0, y0], [x1, y1])
            pts.append(p.copy())
        arr = np.array(pts)
        ball = np.stack([np.interp(t, kt, arr[:, 0]), np.interp(t, kt, arr[:, 1])], axis=1)
        for j in range(1, len(PLAYERS)):
            kx = np.clip(arr[:, 0] + rng.normal(0, spread, kt.size), x0, x1)
            ky = np.clip(arr[:, 1] + rng.normal(0, spread, kt.size), y0, y1)
            pos[:, j, 0] = np.interp(t, kt, kx)
            pos[:, j, 1] = np.interp(t, kt, ky)
        lag = int(rate * 0.4)
        pos[:, 0, :] = np.concatenate([np.repeat(ball[:1], lag, axis=0), ball[:-lag]])
    evs: list[Event] = []
    if events:
        for _ in range(int(rng.integers(0, 6))):
            kind = rng.choice(
                [EventKind.HIT, EventKind.STROKE, EventKind.HOOK, EventKind.MISS,
                 EventKind.WHISTLE, EventKind.BACKSWING]
            )  # fmt: skip
            a, b = rng.choice(len(PLAYERS), 2, replace=False)
            evs.append(
                Event(
                    round(float(rng.uniform(0, seconds)), 2),
                    EventKind(kind),
                    PLAYERS[a],
                    PLAYERS[b],
                )
            )
    evs.sort(key=lambda e: e.t)
    return Tracking(t, PLAYERS, pos, ball, tuple(evs), (("blue", Side.LEFT), ("white", Side.RIGHT)))


def transformed(tr: Tracking, tf: Transform) -> Tracking:
    pos = tr.pos.copy()
    pos[..., 0] = tf.sx * tr.pos[..., 0] + tf.tx
    pos[..., 1] = tf.sy * tr.pos[..., 1] + tf.ty
    ball = None
    if tr.ball is not None:
        ball = tr.ball.copy()
        ball[:, 0] = tf.sx * tr.ball[:, 0] + tf.tx
        ball[:, 1] = tf.sy * tr.ball[:, 1] + tf.ty
    defends = tr.defends
    if tf.swaps_ends:
        flip = {Side.LEFT: Side.RIGHT, Side.RIGHT: Side.LEFT}
        defends = tuple((team, flip[s]) for team, s in defends)
    return Tracking(tr.t, tr.players, pos, ball, tr.events, defends, tr.length, tr.width)


def _match(
    seed: int, seconds: float, region: tuple[float, float, float, float], rate: float
) -> Tracking:
    rng = np.random.default_rng(seed)
    x0, y0, x1, y1 = region
    n = round(seconds * rate) + 1
    t = np.arange(n) / rate
    # the ball: straight runs of 1.5 to 6 s between hits, bouncing off the walls
    ball = np.empty((n, 2))
    p = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    v = np.zeros(2)
    next_hit = 0
    for f in range(n):
        if f == next_hit:
            ang = rng.uniform(0, 2 * np.pi)
            v = rng.uniform(4.0, 14.0) * np.array([np.cos(ang), np.sin(ang)])
            next_hit = f + int(rng.uniform(1.5, 6.0) * rate)
        p = p + v / rate
        for k, (lo, hi) in enumerate(((x0 + 1, x1 - 1), (y0 + 1, y1 - 1))):
            if not lo <= p[k] <= hi:
                v[k] = -v[k]
                p[k] = min(max(p[k], lo), hi)
        v *= 0.995 ** (1 / rate * 25)  # rolling friction
        ball[f] = p
    # the players: each follows the ball at his own lag, holding a place in the play
    # that drifts slowly (3 to 10 yards per component, periods of 20 to 80 s: a rider
    # changes position over many seconds, he does not sway several yards a second)
    pos = np.empty((n, len(PLAYERS), 2))
    for j in range(len(PLAYERS)):
        lag = int(rng.uniform(0.2, 1.5) * rate)
        follow = np.concatenate([np.repeat(ball[:1], lag, axis=0), ball[: n - lag]])
        off = np.zeros((n, 2))
        for _ in range(3):
            period = rng.uniform(20.0, 80.0)
            amp = rng.uniform(3.0, 10.0, 2)
            ph = rng.uniform(0, 2 * np.pi, 2)
            off += amp * np.sin(2 * np.pi * t[:, None] / period + ph)
        pos[:, j, :] = np.clip(follow + off, [x0 + 0.5, y0 + 0.5], [x1 - 0.5, y1 - 0.5])
    return Tracking(t, PLAYERS, pos, ball, (), (("blue", Side.LEFT), ("white", Side.RIGHT)))
