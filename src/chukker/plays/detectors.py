"""Vectorised detectors: NumPy over player-major arrays shaped ``(players, frames)``.

The model (documented in ``docs/plays.md``) in short:

* kinematics: velocity is the backward difference of positions (the first frame
  copies the second); a player has a heading when faster than ``moving_speed``.
* live: the ball is dead after a ``whistle`` event until the next ``hit`` or
  ``bowl_in`` (Rule 7); a frame at the whistle instant is still live.
* line of the ball (Rule 11): a new line when the ball starts moving or turns by
  more than ``line_turn_deg`` between frames; a ``miss`` event sets a line through
  the ball along the striker's heading; a stationary ball keeps its last line.
* right of way (Rule 12): among players riding near the ball at no more than
  ``row_max_angle`` to the line, the entitled one is the one that would be nearest
  the line after riding ``row_lookahead`` yards; the corridor is a rectangle ahead
  of that player, ``row_length`` long and ``2 * row_half_width`` wide (schematic).

Each detector is one rule check per frame (after the RoboCup auto-referee) and
each candidate carries its evidence. :mod:`chukker.plays.reference` computes the
same candidates with plain per-frame Python.

How the work is kept small: the kinematics (velocity, speed, heading) are computed
once, player-major so that every row is contiguous; the opponent pairs' distances
and contacts once (:class:`Pairs`) and shared by 12/13d, 13b, 13a, 13f and 13j;
each detector first cuts the work to the few frames (or pair-frames) that can
matter (right of way settled, a player galloping with an opponent within reach,
mounts in contact, the ball at a walk in someone's reach) and only there computes
angles and offsets; runs are found from boolean edges, and evidence is gathered for
all candidates of a detector in one array pass.

>>> from chukker.plays.scenario import load_shipped
>>> [c.clause for c in detect(load_shipped("13b-zigzag").tracking())]
[<Clause.R13B: '13b'>]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from chukker.plays.candidates import Candidate, Clause, Evidence, angle_deg, finalize
from chukker.plays.params import DEFAULT_PARAMS, Params
from chukker.plays.tracking import F64, EventKind, Side, Tracking

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
    col, s_, e_ = _runs(contact)
    if col.size > 1 and p.contact_gap_s.value > 0:
        # a contact broken for less than contact_gap_s of live play is one contact
        dead = np.concatenate([[0], np.cumsum(~fr.live)])
        t = fr.t
        gap = (col[1:] == col[:-1]) & (t[s_[1:]] - t[e_[:-1]] <= p.contact_gap_s.value + 1e-9)
        gap &= dead[s_[1:]] == dead[e_[:-1] + 1]
        for r in np.flatnonzero(gap).tolist():
            contact[col[r], e_[r] + 1 : s_[r + 1]] = True
        if gap.any():
            col, s_, e_ = _runs(contact)
    return Pairs(PI, PJ, index, d2, contact, col, s_, e_)


def _segments(col: I64, f: I64) -> tuple[I64, I64]:
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


def _runs(mask: B) -> tuple[I64, I64, I64]:
    """Runs of True in a ``(columns, frames)`` mask: (column, first frame, last frame)."""
    F = mask.shape[1]
    flat = np.flatnonzero(mask)
    col = flat // max(F, 1)
    f = flat - col * F
    first, last = _segments(col, f)
    return col[first], f[first], f[last]


def _name(tr: Tracking, j: int) -> str:
    return str(tr.players[j])


def _at(a: F64, rows: I64, frames_: I64) -> F64:
    """``a[rows, frames_]`` for a contiguous ``(rows, frames)`` array (flat gather)."""
    out: F64 = a.take(rows * a.shape[1] + frames_)
    return out


# --------------------------------------------------------------------------- detectors


def detect_row(tr: Tracking, fr: Frames, p: Params, pr: Pairs | None = None) -> list[Candidate]:
    """12 (entering the right of way at an unsafe distance) and 13d (riding someone into it).

    Only frames where the right of way is settled, unchanged, live and protected can
    hold an entry, and only opponents of the holder within reach of his corridor
    (the shared pair distances): the corridor geometry is computed for those.
    """
    N, F = fr.x.shape
    if F < 2 or N < 2:
        return []
    pr = pr if pr is not None else pairs(fr, p)
    ok = ~fr.change & fr.settled & fr.live & fr.protected
    Q = np.flatnonzero(ok)  # never frame 0: it is always a change
    if Q.size == 0:
        return []
    front, length, hw = p.row_front_yd.value, p.row_length_yd.value, p.row_half_width_yd.value
    reach = (length * length + hw * hw) * (1.0 + 1e-9) + 1e-9
    kk = pr.index[fr.holder[Q]]  # (frames, players): pair of holder and player, -1 if none
    e_idx = np.flatnonzero(kk >= 0)  # frame-major, as the reference
    q = e_idx // N
    j = e_idx - q * N
    k = kk.ravel().take(e_idx)
    f = Q.take(q)
    near = np.flatnonzero(pr.d2.take(k * F + f) <= reach)
    if near.size == 0:
        return []
    j, f = j[near], f[near]
    h = fr.holder.take(f)
    X, Y, UX, UY = fr.x, fr.y, fr.ux, fr.uy

    def corridor(g: I64) -> tuple[F64, F64, F64, F64, B]:
        ih, ij = h * F + g, j * F + g
        ux, uy = UX.take(ih), UY.take(ih)
        rx = X.take(ij) - X.take(ih)
        ry = Y.take(ij) - Y.take(ih)
        a = ux * rx + uy * ry
        lat = ux * ry - uy * rx
        inside = (a > front) & (a <= length) & (np.abs(lat) <= hw)
        return ux, uy, a, lat, inside

    ux, uy, a, _, inside = corridor(f)
    # the holder is the same at the frame before (no change), with his heading then
    _, _, _, lat_p, inside_p = corridor(f - 1)
    vx, vy = fr.vel_at(j, f)
    w = ux * vy - uy * vx
    unsafe_at = np.maximum(p.row_min_gap_yd.value, fr.s.take(h * F + f) * p.row_headway_s.value)
    entry = np.flatnonzero(
        inside
        & ~inside_p
        & (w * lat_p < 0)
        & (np.abs(w) >= p.row_entry_lateral_speed_yd_s.value)
        & (a < unsafe_at)
    )
    if entry.size == 0:
        return []
    S = fr.s
    c2 = p.contact_yd.value * p.contact_yd.value
    m = p.ride_min_speed_yd_s.value
    out: list[Candidate] = []
    for r in entry.tolist():
        fe, je, hh = int(f[r]), int(j[r]), int(h[r])
        e = _row_end(fr, p, fe, je, hh)
        k_best, d_best = -1, math.inf
        if S[je, fe] >= m:
            for o in range(N):
                if o in (hh, je) or fr.team_code[o] == fr.team_code[je] or S[o, fe] < m:
                    continue
                dx = X[je, fe] - X[o, fe]
                dy = Y[je, fe] - Y[o, fe]
                d2 = float(dx * dx + dy * dy)
                if fr.live[fe] and d2 <= c2 and d2 < d_best:
                    k_best, d_best = o, d2
        out.append(_row_candidate(tr, fr, fe, e, je, hh, k_best, d_best, float(a[r]), float(w[r])))
    return out


def _row_end(fr: Frames, p: Params, f: int, j: int, h: int) -> int:
    """Last frame of the stay in the corridor entered at ``f`` (windows of growing size)."""
    F = fr.t.shape[0]
    front, length, hw = p.row_front_yd.value, p.row_length_yd.value, p.row_half_width_yd.value
    e, step = f, 16
    while e + 1 < F:
        sl = slice(e + 1, min(F, e + 1 + step))
        ux, uy = fr.ux[h, sl], fr.uy[h, sl]
        rx = fr.x[j, sl] - fr.x[h, sl]
        ry = fr.y[j, sl] - fr.y[h, sl]
        a = ux * rx + uy * ry
        lat = ux * ry - uy * rx
        stay = (a > front) & (a <= length) & (np.abs(lat) <= hw) & fr.live[sl] & ~fr.change[sl]
        gone = np.flatnonzero(~stay)
        if gone.size:
            return e + int(gone[0])
        e, step = sl.stop - 1, step * 4
    return e


def _row_candidate(
    tr: Tracking,
    fr: Frames,
    f: int,
    e: int,
    j: int,
    h: int,
    k: int,
    d2k: float,
    dist: float,
    w: float,
) -> Candidate:
    S, UX, UY = fr.s, fr.ux, fr.uy
    ev: dict[str, Evidence] = {
        "holder": _name(tr, h),
        "distance_yd": dist,
        "holder_speed_yd_s": float(S[h, f]),
        "entering_speed_yd_s": float(S[j, f]),
        "lateral_speed_yd_s": abs(w),
        "angle_deg": angle_deg(float(UX[j, f]), float(UY[j, f]), float(UX[h, f]), float(UY[h, f]))
        if fr.moving[j, f]
        else None,
        "entries": 1,
    }
    culprit, clause = j, Clause.R12
    if k >= 0:
        culprit, clause = k, Clause.R13D
        ev["pushed"] = _name(tr, j)
        ev["contact_distance_yd"] = math.sqrt(d2k)
    pl = tr.players[culprit]
    return Candidate(clause, pl.team, pl.number, float(fr.t[f]), float(fr.t[e]), ev)


def detect_zigzag(tr: Tracking, fr: Frames, p: Params, pr: Pairs | None = None) -> list[Candidate]:
    """13b: crossing and re-crossing the line of a galloping opponent, ahead of him.

    His line is his heading. For an opponent ahead of him (``0 < ahead <= zig_front``,
    up to ``zig_reach`` either side), the side of the line is known once the
    opponent is ``zig_margin`` from it and kept until he is that far on the other
    side: that change is a crossing, counted when the opponent himself moves across
    (lateral speed at least ``zig_lateral_speed``). However wide the swerves, a
    zigzag is ``zig_min_crossings`` or more crossings, each within ``zig_window``
    of the previous one, while he stays in front.

    Only the (pair, frame) entries where one player gallops with the other within
    reach of the zone in front of him are looked at (the shared pair distances).
    """
    N, F = fr.x.shape
    if F < 2 or N < 2:
        return []
    pr = pr if pr is not None else pairs(fr, p)
    G = np.concatenate([pr.i, pr.j])
    J = np.concatenate([pr.j, pr.i])
    order = np.lexsort((J, G))  # (galloping, other) in player order, as the reference
    G, J = G[order], J[order]
    if G.size == 0:
        return []
    front, reach_w = p.zig_front_yd.value, p.zig_reach_yd.value
    reach = (front * front + reach_w * reach_w) * (1.0 + 1e-9) + 1e-9
    gal = fr.live & (fr.s >= p.gallop_speed_yd_s.value)
    near = pr.d2 <= reach
    column = {(g, j): c for c, (g, j) in enumerate(zip(G.tolist(), J.tolist(), strict=True))}
    parts: list[tuple[int, I64, F64, F64, F64, F64]] = []
    for kp, (i, j) in enumerate(zip(pr.i.tolist(), pr.j.tolist(), strict=True)):
        fk = np.flatnonzero(near[kp] & (gal[i] | gal[j]))
        if fk.size == 0:
            continue
        dx = fr.x[j].take(fk) - fr.x[i].take(fk)
        dy = fr.y[j].take(fk) - fr.y[i].take(fk)
        for g, o, sign in ((i, j, 1.0), (j, i, -1.0)):
            sel = np.flatnonzero(gal[g].take(fk))
            if sel.size == 0:
                continue
            fg = fk.take(sel)
            rx, ry = dx.take(sel), dy.take(sel)
            if sign < 0:
                np.negative(rx, out=rx)
                np.negative(ry, out=ry)
            ux, uy = fr.ux[g].take(fg), fr.uy[g].take(fg)
            a = ux * rx + uy * ry
            lat = ux * ry - uy * rx
            keep = np.flatnonzero((a > 0) & (a <= front) & (np.abs(lat) <= reach_w))
            if keep.size:
                parts.append(
                    (
                        column[g, o],
                        fg.take(keep),
                        a.take(keep),
                        lat.take(keep),
                        ux.take(keep),
                        uy.take(keep),
                    )
                )
    if not parts:
        return []
    parts.sort(key=lambda x: x[0])  # pair-major, as the reference
    ci = np.concatenate([np.full(x[1].size, x[0], dtype=np.int64) for x in parts])
    fi = np.concatenate([x[1] for x in parts])
    a_k = np.concatenate([x[2] for x in parts])
    lat_k = np.concatenate([x[3] for x in parts])
    ux = np.concatenate([x[4] for x in parts])
    uy = np.concatenate([x[5] for x in parts])
    gi, ji = G[ci], J[ci]
    m = p.zig_margin_yd.value
    sgn = np.where(lat_k >= m, 1, np.where(lat_k <= -m, -1, 0)).astype(np.int8)
    n = ci.size
    k = np.arange(n)
    seg_first_idx, _ = _segments(ci, fi)
    seg_start = np.zeros(n, dtype=bool)
    seg_start[seg_first_idx] = True
    seg_first = np.maximum.accumulate(np.where(seg_start, k, 0))
    seg_id = np.cumsum(seg_start) - 1
    last_signed = np.maximum.accumulate(np.where(sgn != 0, k, -1))
    prev = np.full(n, -1)
    prev[1:] = last_signed[:-1]
    valid = prev >= seg_first
    psgn = sgn[np.maximum(prev, 0)]
    X = np.flatnonzero((sgn != 0) & valid & (psgn != sgn))  # side changes
    if X.size == 0:
        return []
    vx, vy = fr.vel_at(ji.take(X), fi.take(X))
    w = ux.take(X) * vy - uy.take(X) * vx  # the opponent's own speed across the line
    moved = w * sgn.take(X) >= p.zig_lateral_speed_yd_s.value
    X, w = X[moved], w[moved]
    need = int(p.zig_min_crossings.value)
    if X.size < need:
        return []
    t = fr.t
    tx = t[fi[X]]
    sx = seg_id[X]
    link = np.zeros(X.size, dtype=bool)  # crossing r continues the chain of r - 1
    link[1:] = (sx[1:] == sx[:-1]) & (tx[1:] - tx[:-1] <= p.zig_window_s.value)
    starts = np.flatnonzero(~link)
    ends = np.append(starts[1:], X.size) - 1
    S = fr.s
    out: list[Candidate] = []
    for r0, r1 in zip(starts.tolist(), ends.tolist(), strict=True):
        if r1 - r0 + 1 < need:
            continue
        e0, e1 = int(X[r0]), int(X[r1])
        g, j = int(gi[e0]), int(ji[e0])
        s_f, e_f = int(fi[e0]), int(fi[e1])
        at = X[r0 : r1 + 1]
        ev: dict[str, Evidence] = {
            "against": _name(tr, g),
            "crossings": r1 - r0 + 1,
            "span_s": float(t[e_f] - t[s_f]),
            "min_ahead_yd": float(np.min(a_k[at])),
            "max_ahead_yd": float(np.max(a_k[at])),
            "max_swing_yd": float(np.max(np.abs(lat_k[e0 : e1 + 1]))),
            "galloping_speed_yd_s": float(np.min(S[g, s_f : e_f + 1])),
            "speed_yd_s": float(S[j, s_f]),
            "max_lateral_speed_yd_s": float(np.max(np.abs(w[r0 : r1 + 1]))),
        }
        pl = tr.players[j]
        out.append(Candidate(Clause.R13B, pl.team, pl.number, float(t[s_f]), float(t[e_f]), ev))
    return out


def detect_rides(tr: Tracking, fr: Frames, p: Params, pr: Pairs | None = None) -> list[Candidate]:
    """13a (ride-off at unequal speed or steep angle), 13f (two on one), 13j (into the wall)."""
    N, F = fr.x.shape
    if F < 2 or N < 2:
        return []
    pr = pr if pr is not None else pairs(fr, p)
    if pr.run_pair.size == 0:
        return []
    return _ride_onsets(tr, fr, p, pr) + _two_on_one(tr, fr, p, pr) + _into_wall(tr, fr, p, pr)


def _ride_onsets(tr: Tracking, fr: Frames, p: Params, pr: Pairs) -> list[Candidate]:
    """13a at the first frame of each contact (a contact already there at frame 0 has none)."""
    sel = pr.run_start >= 1
    col, f, e = pr.run_pair[sel], pr.run_start[sel], pr.run_end[sel]
    i_, j_ = pr.i[col], pr.j[col]
    S, UX, UY = fr.s, fr.ux, fr.uy
    si, sj = _at(S, i_, f), _at(S, j_, f)
    uxi, uyi, uxj, uyj = _at(UX, i_, f), _at(UY, i_, f), _at(UX, j_, f), _at(UY, j_, f)
    cos = uxi * uxj + uyi * uyj
    smax = np.maximum(si, sj)
    diff = np.abs(si - sj)
    fast = smax >= p.gallop_speed_yd_s.value
    lim_fast, lim_slow = p.ride_angle_fast_deg.value, p.ride_angle_slow_deg.value
    steep = cos < np.where(fast, math.cos(math.radians(lim_fast)), math.cos(math.radians(lim_slow)))
    unequal = (diff > p.ride_speed_diff_yd_s.value) & (diff > p.ride_speed_ratio.value * smax)
    r = np.flatnonzero(steep | unequal)
    if r.size == 0:
        return []
    i_, j_, f, e = i_[r], j_[r], f[r], e[r]
    dx = _at(fr.x, j_, f) - _at(fr.x, i_, f)
    dy = _at(fr.y, j_, f) - _at(fr.y, i_, f)
    d = np.sqrt(dx * dx + dy * dy)
    pos = d > 0
    safe = np.where(pos, d, 1.0)
    vxi, vyi = fr.vel_at(i_, f)
    vxj, vyj = fr.vel_at(j_, f)
    ci = np.where(pos, (vxi * dx + vyi * dy) / safe, 0.0)
    cj = np.where(pos, -(vxj * dx + vyj * dy) / safe, 0.0)
    first = ci >= cj
    cul = np.where(first, i_, j_)
    opp = np.where(first, j_, i_)
    t = fr.t
    out: list[Candidate] = []
    for cu, op, st_, un, fa, ax, ay, bx, by, s_cu, s_op, df, cl, dd, ts, te in zip(
        cul.tolist(),
        opp.tolist(),
        steep[r].tolist(),
        unequal[r].tolist(),
        fast[r].tolist(),
        uxi[r].tolist(),
        uyi[r].tolist(),
        uxj[r].tolist(),
        uyj[r].tolist(),
        _at(S, cul, f).tolist(),
        _at(S, opp, f).tolist(),
        diff[r].tolist(),
        np.maximum(ci, cj).tolist(),
        d.tolist(),
        t[f].tolist(),
        t[e].tolist(),
        strict=True,
    ):
        reason = (
            "steep angle and unequal speed"
            if st_ and un
            else ("steep angle" if st_ else "unequal speed")
        )
        ev: dict[str, Evidence] = {
            "opponent": _name(tr, op),
            "reason": reason,
            "angle_deg": angle_deg(ax, ay, bx, by),
            "max_safe_angle_deg": lim_fast if fa else lim_slow,
            "speed_yd_s": s_cu,
            "opponent_speed_yd_s": s_op,
            "speed_diff_yd_s": df,
            "closing_speed_yd_s": cl,
            "distance_yd": dd,
        }
        pl = tr.players[cu]
        out.append(Candidate(Clause.R13A, pl.team, pl.number, ts, te, ev))
    return out


def _two_on_one(tr: Tracking, fr: Frames, p: Params, pr: Pairs) -> list[Candidate]:
    """13f: two of one team in contact with one opponent (only frames with two contacts)."""
    n, F = fr.x.shape
    vic, x1, x2 = [], [], []
    for b in range(n):
        for i in range(n):
            for k in range(i + 1, n):
                if fr.team_code[i] == fr.team_code[k] != fr.team_code[b]:
                    vic.append(b)
                    x1.append(i)
                    x2.append(k)
    if not vic:
        return []
    # frames with at least two contacts: the only ones where one player can have two
    count = np.zeros(F, dtype=np.int8)
    for c in range(pr.i.size):
        count += pr.contact[c]
    fq = np.flatnonzero(count >= 2)
    if fq.size == 0:
        return []
    vb, vi, vk = np.array(vic), np.array(x1), np.array(x2)
    ci, ck = pr.index[vb, vi], pr.index[vb, vk]
    sub = pr.contact[:, fq]
    both = sub[ci] & sub[ck]
    flat = np.flatnonzero(both)
    if flat.size == 0:
        return []
    col = flat // fq.size
    f = fq[flat - col * fq.size]
    first, last = _segments(col, f)
    t = fr.t
    long_ = t[f[last]] - t[f[first]] >= p.two_on_one_min_s.value
    first, last = first[long_], last[long_]
    if first.size == 0:
        return []
    col, s, e = col[first], f[first], f[last]
    # when each of the two contacts began: the contact run containing frame s
    key = pr.run_pair * F + pr.run_start
    oi = pr.run_start[np.searchsorted(key, ci[col] * F + s, side="right") - 1]
    ok_ = pr.run_start[np.searchsorted(key, ck[col] * F + s, side="right") - 1]
    second = oi > ok_
    cul = np.where(second, vi[col], vk[col])
    mate = np.where(second, vk[col], vi[col])
    b = vb[col]
    X, Y = fr.x, fr.y

    def dist(u: I64, v: I64) -> list[float]:
        dx = _at(X, u, s) - _at(X, v, s)
        dy = _at(Y, u, s) - _at(Y, v, s)
        out_: list[float] = np.sqrt(dx * dx + dy * dy).tolist()
        return out_

    out: list[Candidate] = []
    for cu, mt, bb, ts, te, d1, d2, s_cu, s_b in zip(
        cul.tolist(),
        mate.tolist(),
        b.tolist(),
        t[s].tolist(),
        t[e].tolist(),
        dist(cul, b),
        dist(mate, b),
        _at(fr.s, cul, s).tolist(),
        _at(fr.s, b, s).tolist(),
        strict=True,
    ):
        ev: dict[str, Evidence] = {
            "victim": _name(tr, bb),
            "teammate": _name(tr, mt),
            "duration_s": te - ts,
            "distance_yd": d1,
            "teammate_distance_yd": d2,
            "speed_yd_s": s_cu,
            "victim_speed_yd_s": s_b,
        }
        pl = tr.players[cu]
        out.append(Candidate(Clause.R13F, pl.team, pl.number, ts, te, ev))
    return out


def _into_wall(tr: Tracking, fr: Frames, p: Params, pr: Pairs) -> list[Candidate]:
    """13j: opponent ridden into the wall (only pair-frames in contact are looked at)."""
    F = fr.t.shape[0]
    flat = np.flatnonzero(pr.contact)
    K = pr.i.size
    c1 = flat // F
    f1 = flat - c1 * F
    # both directions: (a rides b) for a, b = i, j and j, i
    cc = np.concatenate([c1, c1 + K])
    cf = np.concatenate([f1, f1])
    A = np.concatenate([pr.i, pr.j])[cc]
    Bv = np.concatenate([pr.j, pr.i])[cc]
    L, W = tr.length, tr.width
    ib, ia = Bv * F + cf, A * F + cf
    xb, yb = fr.x.take(ib), fr.y.take(ib)
    walls_b = np.stack([xb, L - xb, yb, W - yb], axis=1)
    wk = np.argmin(walls_b, axis=1)
    rows = np.arange(cf.size)
    wd = walls_b[rows, wk]
    xa, ya = fr.x.take(ia), fr.y.take(ia)
    ad = np.stack([xa, L - xa, ya, W - ya], axis=1)[rows, wk]
    vx, vy = fr.vel_at(Bv, cf)
    tow = np.stack([-vx, vx, -vy, vy], axis=1)[rows, wk]
    q = np.flatnonzero(
        (wd <= p.wall_margin_yd.value) & (ad > wd) & (tow >= p.wall_approach_speed_yd_s.value)
    )
    if q.size == 0:
        return []
    first, last = _segments(cc[q], cf[q])
    t = fr.t
    out: list[Candidate] = []
    for r0, r1 in zip(first.tolist(), last.tolist(), strict=True):
        s_f, e_f = int(cf[q[r0]]), int(cf[q[r1]])
        if t[e_f] - t[s_f] < p.wall_min_s.value:
            continue
        a_, b = int(A[q[r0]]), int(Bv[q[r0]])
        sel = q[r0 : r1 + 1]
        ev: dict[str, Evidence] = {
            "opponent": _name(tr, b),
            "wall": WALLS[int(wk[q[r0]])],
            "wall_distance_yd": float(np.min(wd[sel])),
            "approach_speed_yd_s": float(np.max(tow[sel])),
            "speed_yd_s": float(fr.s[a_, s_f]),
            "opponent_speed_yd_s": float(fr.s[b, s_f]),
        }
        pl = tr.players[a_]
        out.append(Candidate(Clause.R13J, pl.team, pl.number, float(t[s_f]), float(t[e_f]), ev))
    return out


def detect_head_on(tr: Tracking, fr: Frames, p: Params, pr: Pairs | None = None) -> list[Candidate]:
    """13i: the mount's head driven into an opponent.

    At the first frame of a contact (as 13a), a player whose heading points at the
    opponent (within ``head_aim_deg`` of the line between them) while closing on him
    at ``head_closing_speed`` or more. A shoulder-to-shoulder ride-off has the
    opponent beside the heading (near 90 degrees), so it is no candidate.
    """
    N, F = fr.x.shape
    if F < 2 or N < 2:
        return []
    pr = pr if pr is not None else pairs(fr, p)
    sel = pr.run_start >= 1
    col, f, e = pr.run_pair[sel], pr.run_start[sel], pr.run_end[sel]
    if col.size == 0:
        return []
    cos_aim = math.cos(math.radians(p.head_aim_deg.value))
    t = fr.t
    # the approach: from the frame head_window_s before the contact to the contact
    f0 = np.searchsorted(t, t[f] - p.head_window_s.value - 1e-9, side="left")
    f0 = np.minimum(f0, f - 1)
    span = t[f] - t[f0]
    found: list[Candidate] = []
    for A_, B_ in ((pr.i[col], pr.j[col]), (pr.j[col], pr.i[col])):
        dx = _at(fr.x, B_, f) - _at(fr.x, A_, f)
        dy = _at(fr.y, B_, f) - _at(fr.y, A_, f)
        d = np.sqrt(dx * dx + dy * dy)
        mx = _at(fr.x, A_, f) - _at(fr.x, A_, f0)  # his own way over the approach
        my = _at(fr.y, A_, f) - _at(fr.y, A_, f0)
        m = np.sqrt(mx * mx + my * my)
        dx0 = _at(fr.x, B_, f0) - _at(fr.x, A_, f0)
        dy0 = _at(fr.y, B_, f0) - _at(fr.y, A_, f0)
        d0 = np.sqrt(dx0 * dx0 + dy0 * dy0)
        # aim: his way over the approach against the line to the opponent at its start
        ok = (d0 > 0) & (m / span >= p.moving_speed_yd_s.value)
        aim = np.where(ok, (mx * dx0 + my * dy0) / np.where(ok, d0 * m, 1.0), -1.0)
        closing = (d0 - d) / span
        hit = np.flatnonzero(ok & (aim >= cos_aim) & (closing >= p.head_closing_speed_yd_s.value))
        for r in hit.tolist():
            a_, b_ = int(A_[r]), int(B_[r])
            ev: dict[str, Evidence] = {
                "opponent": _name(tr, b_),
                "aim_deg": math.degrees(math.acos(max(-1.0, min(1.0, float(aim[r]))))),
                "closing_speed_yd_s": float(closing[r]),
                "speed_yd_s": float(fr.s[a_, f[r]]),
                "opponent_speed_yd_s": float(fr.s[b_, f[r]]),
                "distance_yd": float(d[r]),
            }
            pl = tr.players[a_]
            found.append(
                Candidate(Clause.R13I, pl.team, pl.number, float(t[f[r]]), float(t[e[r]]), ev)
            )
    return _straighter(found)


def _straighter(found: list[Candidate]) -> list[Candidate]:
    """Of two players aiming at each other at once, the one aiming straighter."""
    out = []
    for c in found:
        rivals = [
            o
            for o in found
            if o.who == c.evidence["opponent"]
            and o.evidence["opponent"] == c.who
            and o.start <= c.end
            and c.start <= o.end
        ]
        if all(_f(c.evidence["aim_deg"]) < _f(o.evidence["aim_deg"]) for o in rivals):
            out.append(c)
    return out


def detect_intimidation(
    tr: Tracking, fr: Frames, p: Params, pr: Pairs | None = None
) -> list[Candidate]:
    """13g: riding at an opponent to intimidate: a fast charge, he pulls out, no contact.

    A charge is a run of frames where a player rides at an opponent (at least
    ``intim_min_speed``, heading within ``intim_aim_deg`` of the line to him, his own
    speed towards him at least ``intim_closing_speed``, the distance shrinking at
    ``intim_gain_speed`` or more, across the opponent's way (headings at least
    ``intim_cross_deg`` apart: following him is not riding at him), within
    ``intim_range``; breaks shorter than ``contact_gap_s`` do not end it). It is a
    candidate when it comes within ``intim_near`` yet never into contact (up to
    ``intim_window`` after the closest approach), and
    the opponent pulls out in that time: turns by ``intim_pull_deg`` or loses
    ``intim_pull_slow`` of his speed, against his heading and speed at the start.
    """
    N, F = fr.x.shape
    if F < 2 or N < 2:
        return []
    pr = pr if pr is not None else pairs(fr, p)
    rng2 = p.intim_range_yd.value**2
    cos_aim = math.cos(math.radians(p.intim_aim_deg.value))
    cos_pull = math.cos(math.radians(p.intim_pull_deg.value))
    cos_cross = math.cos(math.radians(p.intim_cross_deg.value))
    c2 = p.contact_yd.value**2
    near2 = p.intim_near_yd.value**2
    win = p.intim_window_s.value
    t = fr.t
    out: list[Candidate] = []
    for kp in range(pr.i.size):
        found: list[Candidate] = []
        fk = np.flatnonzero((pr.d2[kp] <= rng2) & fr.live)
        if fk.size == 0:
            continue
        for a_, b_ in ((int(pr.i[kp]), int(pr.j[kp])), (int(pr.j[kp]), int(pr.i[kp]))):
            g = fk[fr.s[a_, fk] >= p.intim_min_speed_yd_s.value]
            if g.size == 0:
                continue
            # across his way first (cheap), then the aim and speeds on what is left
            uxa, uya = fr.ux[a_].take(g), fr.uy[a_].take(g)
            uxb, uyb = fr.ux[b_].take(g), fr.uy[b_].take(g)
            keep = np.flatnonzero(uxa * uxb + uya * uyb <= cos_cross)
            if keep.size == 0:
                continue
            g, uxa, uya, uxb, uyb = g[keep], uxa[keep], uya[keep], uxb[keep], uyb[keep]
            dx = fr.x[b_].take(g) - fr.x[a_].take(g)
            dy = fr.y[b_].take(g) - fr.y[a_].take(g)
            d = np.sqrt(dx * dx + dy * dy)
            safe = np.where(d > 0, d, 1.0)
            aim = (uxa * dx + uya * dy) / safe
            closing = fr.s[a_].take(g) * aim  # his own speed towards the opponent
            away = fr.s[b_].take(g) * (uxb * dx + uyb * dy) / safe
            gaining = closing - away  # the distance shrinks this fast
            q = np.flatnonzero(
                (aim >= cos_aim)
                & (closing >= p.intim_closing_speed_yd_s.value)
                & (gaining >= p.intim_gain_speed_yd_s.value)
            )
            if q.size == 0:
                continue
            fq = g[q]
            # runs of charging frames; a break shorter than contact_gap_s is one charge
            brk = np.flatnonzero(t[fq[1:]] - t[fq[:-1]] > p.contact_gap_s.value + 1e-9)
            first = np.concatenate([[0], brk + 1])
            last = np.concatenate([brk, [fq.size - 1]])
            for r0, r1 in zip(first.tolist(), last.tolist(), strict=True):
                s_f, e_f = int(fq[r0]), int(fq[r1])
                if fr.s[b_, s_f] < p.intim_target_speed_yd_s.value:
                    continue
                hi = int(np.searchsorted(t, t[e_f] + win, side="right"))
                span = slice(s_f, max(hi, e_f + 1))
                d2 = pr.d2[kp, span]
                if float(np.min(d2)) <= c2 or float(np.min(d2)) > near2:
                    continue
                close_f = s_f + int(np.argmin(d2))
                stop = int(np.searchsorted(t, t[close_f] + win, side="right"))
                after = slice(s_f, max(stop, close_f + 1))
                turn = fr.ux[b_, after] * fr.ux[b_, s_f] + fr.uy[b_, after] * fr.uy[b_, s_f]
                moving = fr.moving[b_, after]
                turned = moving & (turn <= cos_pull)
                s0 = float(fr.s[b_, s_f])
                slowed = fr.s[b_, after] <= (1.0 - p.intim_pull_slow.value) * s0
                if not (turned.any() or slowed.any()):
                    continue
                mt = float(np.min(np.where(moving, turn, 1.0)))
                ev: dict[str, Evidence] = {
                    "opponent": _name(tr, b_),
                    "closing_speed_yd_s": float(np.max(closing[q[r0] : q[r1] + 1])),
                    "aim_deg": math.degrees(
                        math.acos(max(-1.0, min(1.0, float(np.mean(aim[q[r0] : q[r1] + 1])))))
                    ),
                    "min_distance_yd": math.sqrt(float(pr.d2[kp, close_f])),
                    "pull_out": "turned" if turned.any() else "slowed",
                    "turn_deg": math.degrees(math.acos(max(-1.0, min(1.0, mt)))),
                    "speed_drop": 1.0 - float(np.min(fr.s[b_, after])) / s0,
                    "speed_yd_s": float(fr.s[a_, s_f]),
                }
                pl = tr.players[a_]
                found.append(
                    Candidate(Clause.R13G, pl.team, pl.number, float(t[s_f]), float(t[close_f]), ev)
                )
        out += _straighter(found)  # riding at each other: the one aiming straighter
    return out


def _f(v: Evidence) -> float:
    return float(v) if isinstance(v, int | float) else math.inf


def walk_speed(fr: Frames, p: Params, j: I64, f: I64) -> F64:
    """Mean speed of players ``j`` over the ``walk_window_s`` before frames ``f``.

    A walk is judged over a second, not frame by frame (GPS noise makes a walking
    horse look faster for a frame). Within the first window of the data the mean
    is taken over that first window.
    """
    t = fr.t
    w = p.walk_window_s.value
    f0 = np.searchsorted(t, t[f] - w - 1e-9, side="left")
    f1 = np.maximum(f, min(int(np.searchsorted(t, t[0] + w - 1e-9, side="left")), t.size - 1))
    f1 = np.where(t[f] - t[0] < w, f1, f)
    dt = t[f1] - t[f0]
    dx = _at(fr.x, j, f1) - _at(fr.x, j, f0)
    dy = _at(fr.y, j, f1) - _at(fr.y, j, f0)
    pos = dt > 0
    out: F64 = np.where(pos, np.sqrt(dx * dx + dy * dy) / np.where(pos, dt, 1.0), _at(fr.s, j, f))
    return out


def detect_delay(tr: Tracking, fr: Frames, p: Params) -> list[Candidate]:
    """13k: the team in possession, marked within 2 horse lengths, at a walk for over 5 s.

    The carrier (nearest player within reach of the ball) is found for every frame;
    the marker only on the frames where the carrier walks.
    """
    N, F = fr.x.shape
    if tr.ball is None or fr.ball_d2 is None or F < 2 or N < 2:
        return []
    t, X, Y, S = fr.t, fr.x, fr.y, fr.s
    d2b = fr.ball_d2
    r = p.possession_yd.value
    c = np.full(F, -1, dtype=np.int64)
    best = np.full(F, np.inf)
    for j in range(N):  # nearest within reach, ties to the first
        better = (d2b[j] <= r * r) & (d2b[j] < best)
        c[better] = j
        np.copyto(best, d2b[j], where=better)
    fc = np.flatnonzero((c >= 0) & fr.live)
    cc = c[fc]
    fc = fc[walk_speed(fr, p, cc, fc) <= p.walk_speed_yd_s.value]
    if fc.size == 0:
        return []
    cc = c[fc]
    cx, cy = _at(X, cc, fc), _at(Y, cc, fc)
    tcc = fr.team_code[cc]
    marker = np.full(fc.size, -1, dtype=np.int64)
    md = np.full(fc.size, np.inf)
    for o in range(N):  # nearest opponent of the carrier, ties to the first
        dx = X[o, fc] - cx
        dy = Y[o, fc] - cy
        d2 = dx * dx + dy * dy
        better = (fr.team_code[o] != tcc) & (d2 < md)
        marker[better] = o
        np.copyto(md, d2, where=better)
    mk = p.mark_distance_yd.value
    fq = fc[md <= mk * mk]
    if fq.size == 0:
        return []
    cond = np.zeros(F, dtype=bool)
    cond[fq] = True
    tc = fr.team_code[np.maximum(c, 0)]
    link = np.zeros(F, dtype=bool)  # frame f continues the run of frame f - 1
    link[1:] = cond[1:] & cond[:-1] & (tc[1:] == tc[:-1])
    starts = np.flatnonzero(cond & ~link)
    nxt = np.zeros(F, dtype=bool)
    nxt[:-1] = link[1:]
    ends = np.flatnonzero(cond & ~nxt)
    limit = p.delay_limit_s.value
    out: list[Candidate] = []
    for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
        if not t[e] - t[s] > limit:
            continue
        fx = s + int(np.flatnonzero(t[s : e + 1] - t[s] > limit)[0])
        k = int(np.searchsorted(fc, fx))
        cx_ = int(c[fx])
        pl = tr.players[cx_]
        side = tr.side_of(pl.team)
        x = float(X[cx_, fx])
        own: bool | None = None
        if side is Side.LEFT:
            own = x < tr.length / 2
        elif side is Side.RIGHT:
            own = x > tr.length / 2
        span = np.arange(s, e + 1)
        ev: dict[str, Evidence] = {
            "duration_s": float(t[e] - t[s]),
            "carrier_max_speed_yd_s": float(np.max(_at(S, c[span], span))),
            "marker": _name(tr, int(marker[k])),
            "marking_distance_yd": math.sqrt(float(md[k])),
            "own_half": own,
            "penalty": "5b" if own else None,
        }
        out.append(Candidate(Clause.R13K, pl.team, pl.number, float(t[s]), float(t[e]), ev))
    return out


def stroke_windows(tr: Tracking, p: Params) -> list[tuple[int, float, float]]:
    """(player index, start, end) of each ``stroke`` event: until the player's next hit or miss."""
    index = {pl: i for i, pl in enumerate(tr.players)}
    out = []
    for e in tr.events:
        if e.kind is EventKind.STROKE and e.player in index:
            ends = [
                x.t
                for x in tr.events
                if x.kind in (EventKind.HIT, EventKind.MISS) and x.player == e.player and x.t >= e.t
            ]
            out.append((index[e.player], e.t, min(ends) if ends else e.t + p.stroke_max_s.value))
    return out


def detect_into_stroke(tr: Tracking, fr: Frames, p: Params) -> list[Candidate]:
    """13h (needs ``stroke`` events): an opponent's mount in contact during a stroke.

    A ``backswing`` is not part of the stroke (13b(9) interpretation), so a bump then
    is no candidate.
    """
    t, X, Y, S = fr.t, fr.x, fr.y, fr.s
    c2 = p.contact_yd.value * p.contact_yd.value
    m = p.ride_min_speed_yd_s.value
    out: list[Candidate] = []
    for si, ts, te in stroke_windows(tr, p):
        f0 = event_frame(t, ts)
        f1 = int(np.searchsorted(t, te + 1e-9, side="right")) - 1
        if f0 > f1:
            continue
        w = slice(f0, f1 + 1)
        for o in range(len(tr.players)):
            if fr.team_code[o] == fr.team_code[si]:
                continue
            dx = X[o, w] - X[si, w]
            dy = Y[o, w] - Y[si, w]
            d2 = dx * dx + dy * dy
            con = fr.live[w] & (d2 <= c2) & (S[o, w] >= m) & (S[si, w] >= m)
            hits = np.flatnonzero(con)
            if hits.size == 0:
                continue
            s = int(hits[0])
            gone = np.flatnonzero(~con[s:])
            e = s + int(gone[0]) - 1 if gone.size else con.size - 1
            ev: dict[str, Evidence] = {
                "striker": _name(tr, si),
                "phase": "stroke",
                "distance_yd": math.sqrt(float(d2[s])),
                "speed_yd_s": float(S[o, f0 + s]),
            }
            pl = tr.players[o]
            out.append(
                Candidate(Clause.R13H, pl.team, pl.number, float(t[f0 + s]), float(t[f0 + e]), ev)
            )
    return out


def detect(tr: Tracking, params: Params = DEFAULT_PARAMS) -> list[Candidate]:
    """All candidate fouls of a play, sorted by start time (vectorised path)."""
    fr = frames(tr, params)
    pr = pairs(fr, params)
    cands = (
        detect_row(tr, fr, params, pr)
        + detect_zigzag(tr, fr, params, pr)
        + detect_rides(tr, fr, params, pr)
        + detect_head_on(tr, fr, params, pr)
        + detect_intimidation(tr, fr, params, pr)
        + detect_delay(tr, fr, params)
        + detect_into_stroke(tr, fr, params)
    )
    return finalize(cands, params)
