"""The kinematics the detectors share, computed once: :class:`Frames` (positions,
velocity, speed, heading, live play, the line of the ball and the right of way,
player-major ``(players, frames)``) and :class:`Pairs` (opponents' distances and
contacts), with the run helpers the detectors cut their work with.

>>> from chukker.plays.scenario import load_shipped
>>> fr = frames(load_shipped("13b-zigzag").tracking())
>>> fr.x.shape[0] == fr.s.shape[0]
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from chukker.plays.params import DEFAULT_PARAMS, Params
from chukker.plays.tracking import F64, EventKind, Tracking

B = npt.NDArray[np.bool_]
I64 = npt.NDArray[np.int64]

WALLS = ("end", "end", "side", "side")  # x = 0, x = length, y = 0, y = width


@dataclass(frozen=True, slots=True, eq=False)
class Frames:
    """Per-frame quantities shared by the detectors (and drawn by the renderers).

    Player quantities are player-major, shaped ``(players, frames)`` (each row
    contiguous): positions ``x``, ``y``, speed ``s``, unit heading ``ux``, ``uy``
    (zero when not moving). Velocities are not kept: :meth:`vel_at` recomputes them,
    bit for bit, where a detector needs them. ``pos``, ``speed``, ``vel`` and
    ``head`` give frame-major arrays.
    """

    t: F64
    dt: F64
    pos: F64
    x: F64
    y: F64
    s: F64
    ux: F64
    uy: F64
    moving: B
    live: B
    teams: tuple[str, ...]
    team_code: I64
    line_id: I64
    line_ox: F64
    line_oy: F64
    line_dx: F64
    line_dy: F64
    holder: I64
    protected: B
    change: B
    settled: B
    ball_d2: F64 | None  # squared distance of each player to the ball, (players, frames)

    @property
    def line_origin(self) -> F64:
        """Point of the line of the ball, ``(frames, 2)``."""
        return np.stack([self.line_ox, self.line_oy], axis=1)

    @property
    def line_dir(self) -> F64:
        """Unit direction of the line of the ball, ``(frames, 2)``."""
        return np.stack([self.line_dx, self.line_dy], axis=1)

    @property
    def speed(self) -> F64:
        """Speeds, ``(frames, players)``."""
        return self.s.T

    @property
    def head(self) -> F64:
        """Unit headings (zero when not moving), ``(frames, players, 2)``."""
        return np.stack([self.ux.T, self.uy.T], axis=-1)

    @property
    def vel(self) -> F64:
        """Velocities, ``(frames, players, 2)``."""
        n, F = self.x.shape
        j = np.repeat(np.arange(n), F)
        f = np.tile(np.arange(F), n)
        vx, vy = self.vel_at(j, f)
        return np.stack([vx.reshape(n, F).T, vy.reshape(n, F).T], axis=-1)

    def vel_at(self, j: I64, f: I64) -> tuple[F64, F64]:
        """Velocity of players ``j`` at frames ``f`` (arrays of one shape).

        The backward difference ``(p[f] - p[f - 1]) / (t[f] - t[f - 1])``; frame 0
        copies frame 1; zero when there is a single frame.
        """
        F = self.x.shape[1]
        if F < 2:
            z = np.zeros(np.shape(f))
            return z, z.copy()
        g = np.maximum(f, 1)
        i1 = j * F + g
        i0 = i1 - 1
        d = self.dt.take(g - 1)
        vx: F64 = (self.x.take(i1) - self.x.take(i0)) / d
        vy: F64 = (self.y.take(i1) - self.y.take(i0)) / d
        return vx, vy


def _player_major(P: F64, block: int = 4096) -> F64:
    """``(frames, players, 2)`` to ``(2, players, frames)``, transposed in cache-sized blocks.

    A whole-array transpose walks memory with a large stride (slow); block by block
    both sides stay in cache.
    """
    F, N = P.shape[0], P.shape[1]
    out = np.empty((2, N, F))
    for s in range(0, F, block):
        out[:, :, s : s + block] = P[s : s + block].transpose(2, 1, 0)
    return out


BLOCK = 8192  # frames per block of the per-player work in :func:`frames`


def _velocity_block(dt: F64, x: F64, s: int, e: int, out: F64) -> None:
    """Backward difference of ``x[..., s:e]`` (frames last) into ``out``; frame 0 copies frame 1."""
    F = x.shape[-1]
    if F < 2:
        out.fill(0.0)
        return
    lo = max(s, 1)
    o = out[..., lo - s :]
    np.subtract(x[..., lo:e], x[..., lo - 1 : e - 1], out=o)
    o /= dt[lo - 1 : e - 1]
    if s == 0:
        out[..., 0] = out[..., 1]


def event_frame(t: F64, at: float) -> int:
    """The first frame at or after ``at`` (``len(t)`` if none)."""
    return int(np.searchsorted(t, at - 1e-9, side="left"))


def live_mask(tr: Tracking) -> B:
    toggles = sorted(
        (
            (e.t, e.kind is EventKind.WHISTLE)
            for e in tr.events
            if e.kind in (EventKind.WHISTLE, EventKind.HIT, EventKind.BOWL_IN)
        ),
        key=lambda x: x[0],
    )
    if not toggles:
        return np.ones(tr.frames, dtype=bool)
    times = np.array([x[0] for x in toggles])
    dead = np.array([x[1] for x in toggles])
    idx = np.searchsorted(times, tr.t, side="left") - 1
    out: B = (idx < 0) | ~dead[np.maximum(idx, 0)]
    return out


def frames(tr: Tracking, p: Params = DEFAULT_PARAMS) -> Frames:
    """Kinematics, liveness, line of the ball and right of way for every frame.

    The per-player work runs over blocks of ``BLOCK`` frames with a few small
    scratch arrays, so that it stays in cache and allocates no fresh full-size
    temporaries (fresh memory costs as much as the arithmetic here).
    """
    t, P = tr.t, tr.pos
    F, N = P.shape[0], P.shape[1]
    ar = np.arange(F)
    dt = np.diff(t)
    XY = _player_major(P)
    X, Y = XY[0], XY[1]
    S = np.empty((N, F))
    UX = np.empty((N, F))
    UY = np.empty((N, F))
    mov = np.empty((N, F), dtype=bool)
    ms = p.moving_speed_yd_s.value
    nb = min(BLOCK, F)
    t1_, t2_, t3_ = np.empty((N, nb)), np.empty((N, nb)), np.empty((N, nb))
    for s in range(0, F, BLOCK):
        e = min(F, s + BLOCK)
        vx, vy, t3 = t1_[:, : e - s], t2_[:, : e - s], t3_[:, : e - s]
        _velocity_block(dt, X, s, e, vx)
        _velocity_block(dt, Y, s, e, vy)
        sb = np.multiply(vx, vx, out=S[:, s:e])
        sb += np.multiply(vy, vy, out=t3)
        np.sqrt(sb, out=sb)
        mb = np.less_equal(ms, sb, out=mov[:, s:e])
        den = t3  # heading: v / s when moving, else v / inf = 0
        den.fill(np.inf)
        np.copyto(den, sb, where=mb)
        for v, u in ((vx, UX[:, s:e]), (vy, UY[:, s:e])):
            np.divide(v, den, out=u)
            u += 0.0  # -0.0 to 0.0
    live = live_mask(tr)
    teams = tuple(sorted({pl.team for pl in tr.players}))
    team_code = np.array([teams.index(pl.team) for pl in tr.players], dtype=np.int64)
    index = {pl: i for i, pl in enumerate(tr.players)}

    # Rule 11: line of the ball
    line_id = np.full(F, -1, dtype=np.int64)
    ox = oy = ldx = ldy = np.zeros(F)
    ball_d2: F64 | None = None
    holder = np.full(F, -1, dtype=np.int64)
    if tr.ball is not None and F > 0:
        bx = np.ascontiguousarray(tr.ball[:, 0])
        by = np.ascontiguousarray(tr.ball[:, 1])
        bvx = np.empty(F)
        bvy = np.empty(F)
        _velocity_block(dt, bx, 0, F, bvx)
        _velocity_block(dt, by, 0, F, bvy)
        bs = np.sqrt(bvx * bvx + bvy * bvy)
        bm = p.ball_moving_speed_yd_s.value <= bs
        bux = np.divide(bvx, bs, out=np.zeros(F), where=bm)
        buy = np.divide(bvy, bs, out=np.zeros(F), where=bm)
        new = bm.copy()
        if F > 1:
            cos_turn = math.cos(math.radians(p.line_turn_deg.value))
            dot = bux[1:] * bux[:-1]
            dot += buy[1:] * buy[:-1]
            new[1:] &= ~(bm[:-1] & (dot >= cos_turn))
        for ev in tr.events:
            if ev.kind is EventKind.MISS and ev.player in index:
                f = event_frame(t, ev.t)
                j = index[ev.player]
                if f < F and mov[j, f]:
                    new[f] = True
                    bux[f], buy[f] = UX[j, f], UY[j, f]
        line_id = np.maximum.accumulate(np.where(new, ar, -1))
        li = np.maximum(line_id, 0)
        ox, oy, ldx, ldy = bx.take(li), by.take(li), bux.take(li), buy.take(li)
        line_live = (line_id >= 0) & live

        # Rule 12: who is entitled (smallest offset from the line after the lookahead)
        ball_d2 = np.empty((N, F))
        prox2 = p.row_proximity_yd.value**2
        rmin = p.row_min_speed_yd_s.value
        cos_row = math.cos(math.radians(p.row_max_angle_deg.value))
        look = p.row_lookahead_yd.value
        el_ = np.empty((N, nb), dtype=bool)
        best_ = np.empty(nb)
        for s in range(0, F, BLOCK):
            e = min(F, s + BLOCK)
            n = e - s
            t1, t2, t3, el, best = t1_[:, :n], t2_[:, :n], t3_[:, :n], el_[:, :n], best_[:n]
            xb, yb, uxb, uyb = X[:, s:e], Y[:, s:e], UX[:, s:e], UY[:, s:e]
            d2 = ball_d2[:, s:e]
            np.subtract(xb, bx[s:e], out=t1)
            t1 *= t1
            np.subtract(yb, by[s:e], out=d2)
            d2 *= d2
            d2 += t1
            np.less_equal(rmin, S[:, s:e], out=el)
            el &= mov[:, s:e]
            el &= d2 <= prox2
            el &= line_live[s:e]
            lx, ly = ldx[s:e], ldy[s:e]
            np.multiply(uxb, lx, out=t1)  # |cos| to the line
            t1 += np.multiply(uyb, ly, out=t2)
            np.abs(t1, out=t1)
            el &= t1 >= cos_row
            np.subtract(yb, oy[s:e], out=t1)  # lat = dx (y - oy) - dy (x - ox)
            t1 *= lx
            np.subtract(xb, ox[s:e], out=t2)
            t2 *= ly
            t1 -= t2
            np.multiply(uyb, lx, out=t2)  # cr = dx uy - dy ux
            t2 -= np.multiply(uxb, ly, out=t3)
            t2 *= look
            t1 += t2  # key = |lat + lookahead * cr|
            np.abs(t1, out=t1)
            best.fill(np.inf)
            hb = holder[s:e]
            for j in range(N):  # argmin over the eligible players, ties to the first
                better = t1[j] < best
                better &= el[j]
                hb[better] = j
                np.copyto(best, t1[j], where=better)

    suspended = None
    for e in tr.events:
        if e.kind is EventKind.HOOK and e.on in index:
            if suspended is None:
                suspended = np.zeros((N, F), dtype=bool)
            win = (t >= e.t - 1e-9) & (t < e.t + p.hook_grace_s.value)
            suspended[index[e.on], win] = True
    protected = holder >= 0
    if suspended is not None:
        protected &= ~suspended[np.maximum(holder, 0), ar]
    change = np.ones(F, dtype=bool)
    change[1:] = (holder[1:] != holder[:-1]) | (line_id[1:] != line_id[:-1])
    last = np.maximum.accumulate(np.where(change, ar, 0))
    settled = (t - t[last]) >= p.row_clear_s.value
    return Frames(
        t,
        dt,
        P,
        X,
        Y,
        S,
        UX,
        UY,
        mov,
        live,
        teams,
        team_code,
        line_id,
        ox,
        oy,
        ldx,
        ldy,
        holder,
        protected,
        change,
        settled,
        ball_d2,
    )


# --------------------------------------------------------------------------- helpers


@dataclass(frozen=True, slots=True, eq=False)
class Pairs:
    """Opponent pairs ``i < j``: squared distance and contact, ``(pairs, frames)``.

    ``run_*`` are the contact runs (pair, first frame, last frame), pair-major.
    """

    i: I64
    j: I64
    index: I64  # (players, players) -> pair, -1 for teammates and oneself
    d2: F64
    contact: B
    run_pair: I64
    run_start: I64
    run_end: I64


def pairs(fr: Frames, p: Params) -> Pairs:
    """Distances and contacts of every opponent pair, once for all detectors."""
    n, F = fr.x.shape
    a, b = [], []
    for i in range(n):
        for j in range(i + 1, n):
            if fr.team_code[i] != fr.team_code[j]:
                a.append(i)
                b.append(j)
    PI, PJ = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
    K = PI.size
    index = np.full((n, n), -1, dtype=np.int64)
    index[PI, PJ] = np.arange(K)
    index[PJ, PI] = np.arange(K)
    d2 = np.empty((K, F))
    t1, t2 = np.empty(F), np.empty(F)
    for k, (i, j) in enumerate(zip(a, b, strict=True)):  # row by row: no gathered copies
        np.subtract(fr.x[j], fr.x[i], out=t1)
        t1 *= t1
        np.subtract(fr.y[j], fr.y[i], out=t2)
        t2 *= t2
        np.add(t1, t2, out=d2[k])
    c = p.contact_yd.value
    mv = fr.s >= p.ride_min_speed_yd_s.value
    contact = d2 <= c * c
    contact &= mv[PI]
    contact &= mv[PJ]
    contact &= fr.live
    col, s_, e_ = runs(contact)
    if col.size > 1 and p.contact_gap_s.value > 0:
        # a contact broken for less than contact_gap_s of live play is one contact
        dead = np.concatenate([[0], np.cumsum(~fr.live)])
        t = fr.t
        gap = (col[1:] == col[:-1]) & (t[s_[1:]] - t[e_[:-1]] <= p.contact_gap_s.value + 1e-9)
        gap &= dead[s_[1:]] == dead[e_[:-1] + 1]
        for r in np.flatnonzero(gap).tolist():
            contact[col[r], e_[r] + 1 : s_[r + 1]] = True
        if gap.any():
            col, s_, e_ = runs(contact)
    return Pairs(PI, PJ, index, d2, contact, col, s_, e_)


def segments(col: I64, f: I64) -> tuple[I64, I64]:
    """Entries sorted by (column, frame): first and last entry of each run of frames."""
    n = col.size
    new = np.ones(n, dtype=bool)
    np.not_equal(col[1:], col[:-1], out=new[1:])
    new[1:] |= f[1:] != f[:-1] + 1
    first = np.flatnonzero(new)
    last = np.empty_like(first)
    last[:-1] = first[1:] - 1
    if n:
        last[-1] = n - 1
    return first, last


def runs(mask: B) -> tuple[I64, I64, I64]:
    """Runs of True in a ``(columns, frames)`` mask: (column, first frame, last frame)."""
    F = mask.shape[1]
    flat = np.flatnonzero(mask)
    col = flat // max(F, 1)
    f = flat - col * F
    first, last = segments(col, f)
    return col[first], f[first], f[last]


def player_of(tr: Tracking, j: int) -> str:
    return str(tr.players[j])


def gather(a: F64, rows: I64, frames_: I64) -> F64:
    """``a[rows, frames_]`` for a contiguous ``(rows, frames)`` array (flat gather)."""
    out: F64 = a.take(rows * a.shape[1] + frames_)
    return out
