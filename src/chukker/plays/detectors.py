"""Vectorised detectors: NumPy over arrays shaped ``(frames, players, 2)``.

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
    """Per-frame quantities shared by the detectors (and drawn by the renderers)."""

    t: F64
    pos: F64
    vel: F64
    speed: F64
    head: F64
    moving: B
    live: B
    teams: tuple[str, ...]
    team_code: I64
    line_id: I64
    line_origin: F64
    line_dir: F64
    holder: I64
    protected: B
    change: B
    settled: B


def _velocity(t: F64, p: F64) -> F64:
    v = np.zeros_like(p)
    if t.shape[0] > 1:
        dt = t[1:] - t[:-1]
        shape = (-1,) + (1,) * (p.ndim - 1)
        v[1:] = (p[1:] - p[:-1]) / dt.reshape(shape)
        v[0] = v[1]
    return v


def _speed(v: F64) -> F64:
    out: F64 = np.sqrt(v[..., 0] * v[..., 0] + v[..., 1] * v[..., 1])
    return out


def _heading(v: F64, s: F64, moving: B) -> F64:
    safe = np.where(moving, s, 1.0)
    return np.where(moving[..., None], v / safe[..., None], 0.0)


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
    """Kinematics, liveness, line of the ball and right of way for every frame."""
    t, P = tr.t, tr.pos
    F, N = P.shape[0], P.shape[1]
    ar = np.arange(F)
    V = _velocity(t, P)
    S = _speed(V)
    mov = p.moving_speed_yd_s.value <= S
    U = _heading(V, S, mov)
    live = live_mask(tr)
    teams = tuple(sorted({pl.team for pl in tr.players}))
    team_code = np.array([teams.index(pl.team) for pl in tr.players], dtype=np.int64)
    index = {pl: i for i, pl in enumerate(tr.players)}

    # Rule 11: line of the ball
    line_id = np.full(F, -1, dtype=np.int64)
    origin = np.zeros((F, 2))
    direction = np.zeros((F, 2))
    if tr.ball is not None and F > 0:
        Bp = tr.ball
        VB = _velocity(t, Bp)
        SB = _speed(VB)
        bm = p.ball_moving_speed_yd_s.value <= SB
        UB = _heading(VB, SB, bm)
        new = bm.copy()
        if F > 1:
            cos_turn = math.cos(math.radians(p.line_turn_deg.value))
            dot = UB[1:, 0] * UB[:-1, 0] + UB[1:, 1] * UB[:-1, 1]
            new[1:] &= ~(bm[:-1] & (dot >= cos_turn))
        dirs = UB.copy()
        for e in tr.events:
            if e.kind is EventKind.MISS and e.player in index:
                f = event_frame(t, e.t)
                j = index[e.player]
                if f < F and mov[f, j]:
                    new[f] = True
                    dirs[f] = U[f, j]
        line_id = np.maximum.accumulate(np.where(new, ar, -1))
        li = np.maximum(line_id, 0)
        origin = Bp[li]
        direction = dirs[li]
    has_line = line_id >= 0

    # Rule 12: who is entitled
    holder = np.full(F, -1, dtype=np.int64)
    if tr.ball is not None and N > 0:
        Bp = tr.ball
        dxb = P[..., 0] - Bp[:, None, 0]
        dyb = P[..., 1] - Bp[:, None, 1]
        prox = p.row_proximity_yd.value
        cosl = U[..., 0] * direction[:, None, 0] + U[..., 1] * direction[:, None, 1]
        elig = (
            has_line[:, None]
            & live[:, None]
            & mov
            & (p.row_min_speed_yd_s.value <= S)
            & (dxb * dxb + dyb * dyb <= prox * prox)
            & (np.abs(cosl) >= math.cos(math.radians(p.row_max_angle_deg.value)))
        )
        lat = direction[:, None, 0] * (P[..., 1] - origin[:, None, 1]) - direction[:, None, 1] * (
            P[..., 0] - origin[:, None, 0]
        )
        cr = direction[:, None, 0] * U[..., 1] - direction[:, None, 1] * U[..., 0]
        key = np.where(elig, np.abs(lat + p.row_lookahead_yd.value * cr), np.inf)
        best = np.argmin(key, axis=1)
        holder = np.where(np.isfinite(key[ar, best]), best, -1).astype(np.int64)

    suspended = np.zeros((F, max(N, 1)), dtype=bool)
    for e in tr.events:
        if e.kind is EventKind.HOOK and e.on in index:
            win = (t >= e.t - 1e-9) & (t < e.t + p.hook_grace_s.value)
            suspended[win, index[e.on]] = True
    protected = (holder >= 0) & ~suspended[ar, np.maximum(holder, 0)]
    change = np.ones(F, dtype=bool)
    change[1:] = (holder[1:] != holder[:-1]) | (line_id[1:] != line_id[:-1])
    last = np.maximum.accumulate(np.where(change, ar, 0))
    settled = (t - t[last]) >= p.row_clear_s.value
    return Frames(
        t,
        P,
        V,
        S,
        U,
        mov,
        live,
        teams,
        team_code,
        line_id,
        origin,
        direction,
        holder,
        protected,
        change,
        settled,
    )


# --------------------------------------------------------------------------- helpers


def _run_end(mask: B) -> I64:
    """For each frame, the last index of the run of True starting there (``f - 1`` if False)."""
    F = mask.shape[0]
    idx = np.arange(F).reshape((-1,) + (1,) * (mask.ndim - 1))
    nxt = np.where(mask, F, idx)
    nxt = np.minimum.accumulate(nxt[::-1], axis=0)[::-1]
    out: I64 = nxt - 1
    return out


def _runs(mask: B) -> tuple[I64, I64, I64]:
    """Runs of True in a ``(frames, columns)`` mask: (column, start, end) arrays."""
    F, K = mask.shape
    pad = np.zeros((F + 2, K), dtype=np.int8)
    pad[1:-1] = mask
    d = np.diff(pad, axis=0)
    sf, sc = np.nonzero(d.T == 1)
    _, ec = np.nonzero(d.T == -1)
    return sf.astype(np.int64), sc.astype(np.int64), (ec - 1).astype(np.int64)


def _pairs(fr: Frames, ordered: bool) -> tuple[I64, I64]:
    n = fr.team_code.shape[0]
    a, b = [], []
    for i in range(n):
        for j in range(n):
            if fr.team_code[i] != fr.team_code[j] and (ordered or i < j):
                a.append(i)
                b.append(j)
    return np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)


def _name(tr: Tracking, j: int) -> str:
    return str(tr.players[j])


def _contact(fr: Frames, p: Params, PI: I64, PJ: I64) -> tuple[B, F64]:
    P, S = fr.pos, fr.speed
    dx = P[:, PJ, 0] - P[:, PI, 0]
    dy = P[:, PJ, 1] - P[:, PI, 1]
    d2 = dx * dx + dy * dy
    c = p.contact_yd.value
    m = p.ride_min_speed_yd_s.value
    contact = fr.live[:, None] & (d2 <= c * c) & (S[:, PI] >= m) & (S[:, PJ] >= m)
    return contact, d2


# --------------------------------------------------------------------------- detectors


def detect_row(tr: Tracking, fr: Frames, p: Params) -> list[Candidate]:
    """12 (entering the right of way at an unsafe distance) and 13d (riding someone into it)."""
    F, N = fr.pos.shape[0], fr.pos.shape[1]
    if F < 2 or N < 2:
        return []
    ar = np.arange(F)
    h = np.maximum(fr.holder, 0)
    hasH = fr.holder >= 0
    P, V, S = fr.pos, fr.vel, fr.speed
    Ph, Uh, Sh = P[ar, h], fr.head[ar, h], S[ar, h]
    rx = P[..., 0] - Ph[:, None, 0]
    ry = P[..., 1] - Ph[:, None, 1]
    a = Uh[:, None, 0] * rx + Uh[:, None, 1] * ry
    lat = Uh[:, None, 0] * ry - Uh[:, None, 1] * rx
    w = Uh[:, None, 0] * V[..., 1] - Uh[:, None, 1] * V[..., 0]
    hw = p.row_half_width_yd.value
    opp = fr.team_code[None, :] != fr.team_code[h][:, None]
    inside = (
        hasH[:, None]
        & opp
        & (a > p.row_front_yd.value)
        & (a <= p.row_length_yd.value)
        & (np.abs(lat) <= hw)
    )
    ok = ~fr.change & fr.settled & fr.live & fr.protected
    unsafe_at = np.maximum(p.row_min_gap_yd.value, Sh * p.row_headway_s.value)
    entry = np.zeros((F, N), dtype=bool)
    entry[1:] = (
        inside[1:]
        & ok[1:, None]
        & ~inside[:-1]
        & (w[1:] * lat[:-1] < 0)
        & (np.abs(w[1:]) >= p.row_entry_lateral_speed_yd_s.value)
        & (a[1:] < unsafe_at[1:, None])
    )
    fs, js = np.nonzero(entry)
    if fs.size == 0:
        return []
    stay = inside & fr.live[:, None] & ~fr.change[:, None]
    ends = _run_end(stay)
    c2 = p.contact_yd.value * p.contact_yd.value
    m = p.ride_min_speed_yd_s.value
    out: list[Candidate] = []
    for f, j in zip(fs.tolist(), js.tolist(), strict=True):
        hh = int(h[f])
        e = int(ends[f, j])
        k_best, d_best = -1, math.inf
        if S[f, j] >= m:
            for k in range(N):
                if k in (hh, j) or fr.team_code[k] == fr.team_code[j] or S[f, k] < m:
                    continue
                dx = P[f, j, 0] - P[f, k, 0]
                dy = P[f, j, 1] - P[f, k, 1]
                d2 = float(dx * dx + dy * dy)
                if fr.live[f] and d2 <= c2 and d2 < d_best:
                    k_best, d_best = k, d2
        out.append(
            _row_candidate(tr, fr, f, e, j, hh, k_best, d_best, float(a[f, j]), float(w[f, j]))
        )
    return out


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
    S, U = fr.speed, fr.head
    ev: dict[str, Evidence] = {
        "holder": _name(tr, h),
        "distance_yd": dist,
        "holder_speed_yd_s": float(S[f, h]),
        "entering_speed_yd_s": float(S[f, j]),
        "lateral_speed_yd_s": abs(w),
        "angle_deg": angle_deg(
            float(U[f, j, 0]), float(U[f, j, 1]), float(U[f, h, 0]), float(U[f, h, 1])
        )
        if fr.moving[f, j]
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


def detect_zigzag(tr: Tracking, fr: Frames, p: Params) -> list[Candidate]:
    """13b: repeated swerves across the path of a galloping opponent, in front of him.

    Only the (pair, frame) entries where one player gallops with the other in front
    are kept (compressed), then sideways reversals are found within each run.
    """
    F = fr.t.shape[0]
    G, PJ = _pairs(fr, ordered=True)
    if F < 2 or G.size == 0:
        return []
    P, U, V, S, t = fr.pos, fr.head, fr.vel, fr.speed, fr.t
    # per pair, only the frames where the first player gallops (few): compressed entries
    gal = fr.live[:, None] & (S[:, G] >= p.gallop_speed_yd_s.value)
    ci, fi = np.nonzero(gal.T)  # column-major: runs of frames per pair
    if ci.size == 0:
        return []
    gi0, ji0 = G[ci], PJ[ci]
    ux, uy = U[fi, gi0, 0], U[fi, gi0, 1]
    rx = P[fi, ji0, 0] - P[fi, gi0, 0]
    ry = P[fi, ji0, 1] - P[fi, gi0, 1]
    a_all = ux * rx + uy * ry
    lat = ux * ry - uy * rx
    keep = (
        (a_all > 0) & (a_all <= p.zig_front_yd.value) & (np.abs(lat) <= p.zig_half_width_yd.value)
    )
    ci, fi, a_k, ux, uy = ci[keep], fi[keep], a_all[keep], ux[keep], uy[keep]
    if ci.size == 0:
        return []
    gi, ji = G[ci], PJ[ci]
    w = ux * V[fi, ji, 1] - uy * V[fi, ji, 0]
    zl = p.zig_lateral_speed_yd_s.value
    sgn = np.where(w >= zl, 1, np.where(w <= -zl, -1, 0)).astype(np.int8)
    n = ci.size
    k = np.arange(n)
    seg_start = np.ones(n, dtype=bool)
    seg_start[1:] = (ci[1:] != ci[:-1]) | (fi[1:] != fi[:-1] + 1)
    seg_first = np.maximum.accumulate(np.where(seg_start, k, 0))
    seg_id = np.cumsum(seg_start) - 1
    last_signed = np.maximum.accumulate(np.where(sgn != 0, k, -1))
    prev = np.full(n, -1)
    prev[1:] = last_signed[:-1]
    valid = prev >= seg_first
    psgn = sgn[np.maximum(prev, 0)]
    R = np.flatnonzero((sgn != 0) & valid & (psgn != sgn))
    need = int(p.zig_min_reversals.value)
    if R.size < need:
        return []
    window = p.zig_window_s.value
    last = R[need - 1 :]
    first = R[: R.size - need + 1]
    ok = (seg_id[last] == seg_id[first]) & (t[fi[last]] - t[fi[first]] <= window)
    if not ok.any():
        return []
    segs, idx = np.unique(seg_id[last[ok]], return_index=True)
    starts = first[ok][idx]
    seg_ends = np.flatnonzero(np.append(seg_start[1:], True))  # last entry of each segment
    out: list[Candidate] = []
    for sg, s_entry in zip(segs.tolist(), starts.tolist(), strict=True):
        e_entry = int(seg_ends[sg])
        sl = slice(s_entry, e_entry + 1)
        g, j = int(gi[s_entry]), int(ji[s_entry])
        s_f, e_f = int(fi[s_entry]), int(fi[e_entry])
        n_rev = int(np.searchsorted(R, e_entry, side="right") - np.searchsorted(R, s_entry))
        frs = fi[sl]
        ev: dict[str, Evidence] = {
            "against": _name(tr, g),
            "reversals": n_rev,
            "min_distance_yd": float(np.min(a_k[sl])),
            "galloping_speed_yd_s": float(np.min(S[frs, g])),
            "speed_yd_s": float(S[s_f, j]),
            "max_lateral_speed_yd_s": float(np.max(np.abs(w[sl]))),
        }
        pl = tr.players[j]
        out.append(Candidate(Clause.R13B, pl.team, pl.number, float(t[s_f]), float(t[e_f]), ev))
    return out


def detect_rides(tr: Tracking, fr: Frames, p: Params) -> list[Candidate]:
    """13a (ride-off at unequal speed or steep angle), 13f (two on one), 13j (into the wall)."""
    F = fr.t.shape[0]
    PI, PJ = _pairs(fr, ordered=False)
    if F < 2 or PI.size == 0:
        return []
    t, P, V, S = fr.t, fr.pos, fr.vel, fr.speed
    contact, d2 = _contact(fr, p, PI, PJ)
    out: list[Candidate] = []
    ends = _run_end(contact)
    # 13a: at the onset of each contact; a vectorised pre-check, then the scalar evidence
    onset = np.zeros_like(contact)
    onset[1:] = contact[1:] & ~contact[:-1]
    of, oc = np.nonzero(onset)
    if of.size:
        i_, j_ = PI[oc], PJ[oc]
        si, sj = S[of, i_], S[of, j_]
        U = fr.head
        cos = U[of, i_, 0] * U[of, j_, 0] + U[of, i_, 1] * U[of, j_, 1]
        smax = np.maximum(si, sj)
        diff = np.abs(si - sj)
        lim_cos = np.where(
            smax >= p.gallop_speed_yd_s.value,
            math.cos(math.radians(p.ride_angle_fast_deg.value)),
            math.cos(math.radians(p.ride_angle_slow_deg.value)),
        )
        risky = (cos < lim_cos) | (
            (diff > p.ride_speed_diff_yd_s.value) & (diff > p.ride_speed_ratio.value * smax)
        )
        for f, col in zip(of[risky].tolist(), oc[risky].tolist(), strict=True):
            c = _ride_onset(tr, fr, p, f, int(ends[f, col]), int(PI[col]), int(PJ[col]))
            if c is not None:
                out.append(c)
    # pair lookup
    n = len(tr.players)
    col_of = np.full((n, n), -1, dtype=np.int64)
    col_of[PI, PJ] = np.arange(PI.size)
    col_of[PJ, PI] = np.arange(PI.size)
    starts = np.maximum.accumulate(
        np.where(
            contact & ~np.vstack([np.zeros((1, PI.size), bool), contact[:-1]]),
            np.arange(F)[:, None],
            0,
        ),
        axis=0,
    )
    # 13f: two of one team in contact with one opponent
    vic, x1, x2 = [], [], []
    for b in range(n):
        for i in range(n):
            for k in range(i + 1, n):
                tb = fr.team_code[b]
                if fr.team_code[i] == fr.team_code[k] != tb:
                    vic.append(b)
                    x1.append(i)
                    x2.append(k)
    if vic:
        vb, vi, vk = np.array(vic), np.array(x1), np.array(x2)
        ci, ck = col_of[vb, vi], col_of[vb, vk]
        both = contact[:, ci] & contact[:, ck]
        rcol, rs, re = _runs(both)
        for col, s, e in zip(rcol.tolist(), rs.tolist(), re.tolist(), strict=True):
            if t[e] - t[s] < p.two_on_one_min_s.value:
                continue
            b, i, k = int(vb[col]), int(vi[col]), int(vk[col])
            oi, ok_ = int(starts[s, ci[col]]), int(starts[s, ck[col]])
            cul, mate = (i, k) if oi > ok_ else (k, i)
            out.append(_two_on_one(tr, fr, s, e, b, cul, mate))
    # 13j: opponent ridden into the wall (only frames in contact are looked at)
    L, W = tr.length, tr.width
    A = np.concatenate([PI, PJ])
    Bv = np.concatenate([PJ, PI])
    cc, cf = np.nonzero(np.concatenate([contact, contact], axis=1).T)
    if cf.size:
        a_i, b_i = A[cc], Bv[cc]
        xb, yb = P[cf, b_i, 0], P[cf, b_i, 1]
        walls_b = np.stack([xb, L - xb, yb, W - yb], axis=1)
        wk = np.argmin(walls_b, axis=1)
        wd = walls_b[np.arange(cf.size), wk]
        xa, ya = P[cf, a_i, 0], P[cf, a_i, 1]
        walls_a = np.stack([xa, L - xa, ya, W - ya], axis=1)
        ad = walls_a[np.arange(cf.size), wk]
        vx, vy = V[cf, b_i, 0], V[cf, b_i, 1]
        tow = np.stack([-vx, vx, -vy, vy], axis=1)[np.arange(cf.size), wk]
        flag = (
            (wd <= p.wall_margin_yd.value) & (ad > wd) & (tow >= p.wall_approach_speed_yd_s.value)
        )
        q = np.flatnonzero(flag)
        if q.size:
            fc, ff = cc[q], cf[q]
            new = np.ones(q.size, dtype=bool)
            new[1:] = (fc[1:] != fc[:-1]) | (ff[1:] != ff[:-1] + 1)
            rs = np.flatnonzero(new)
            re = np.append(rs[1:] - 1, q.size - 1)
            for r0, r1 in zip(rs.tolist(), re.tolist(), strict=True):
                s_f, e_f = int(ff[r0]), int(ff[r1])
                if t[e_f] - t[s_f] < p.wall_min_s.value:
                    continue
                a_, b = int(a_i[q[r0]]), int(b_i[q[r0]])
                sel = q[r0 : r1 + 1]
                ev: dict[str, Evidence] = {
                    "opponent": _name(tr, b),
                    "wall": WALLS[int(wk[q[r0]])],
                    "wall_distance_yd": float(np.min(wd[sel])),
                    "approach_speed_yd_s": float(np.max(tow[sel])),
                    "speed_yd_s": float(S[s_f, a_]),
                    "opponent_speed_yd_s": float(S[s_f, b]),
                }
                pl = tr.players[a_]
                out.append(
                    Candidate(Clause.R13J, pl.team, pl.number, float(t[s_f]), float(t[e_f]), ev)
                )
    del d2
    return out


def _ride_onset(
    tr: Tracking, fr: Frames, p: Params, f: int, e: int, i: int, j: int
) -> Candidate | None:
    """13a check at the first frame of a contact between ``i`` and ``j`` (plain scalars)."""
    P, V, S, U = fr.pos, fr.vel, fr.speed, fr.head
    si, sj = float(S[f, i]), float(S[f, j])
    cos = float(U[f, i, 0] * U[f, j, 0] + U[f, i, 1] * U[f, j, 1])
    smax = max(si, sj)
    diff = abs(si - sj)
    lim = (
        p.ride_angle_fast_deg.value
        if smax >= p.gallop_speed_yd_s.value
        else p.ride_angle_slow_deg.value
    )
    steep = cos < math.cos(math.radians(lim))
    unequal = diff > p.ride_speed_diff_yd_s.value and diff > p.ride_speed_ratio.value * smax
    if not (steep or unequal):
        return None
    dx = float(P[f, j, 0] - P[f, i, 0])
    dy = float(P[f, j, 1] - P[f, i, 1])
    d = math.sqrt(dx * dx + dy * dy)
    ci = (float(V[f, i, 0]) * dx + float(V[f, i, 1]) * dy) / d if d > 0 else 0.0
    cj = -(float(V[f, j, 0]) * dx + float(V[f, j, 1]) * dy) / d if d > 0 else 0.0
    cul, opp = (i, j) if ci >= cj else (j, i)
    reason = " and ".join(x for x, y in (("steep angle", steep), ("unequal speed", unequal)) if y)
    ev: dict[str, Evidence] = {
        "opponent": _name(tr, opp),
        "reason": reason,
        "angle_deg": angle_deg(
            float(U[f, i, 0]), float(U[f, i, 1]), float(U[f, j, 0]), float(U[f, j, 1])
        ),
        "max_safe_angle_deg": lim,
        "speed_yd_s": float(S[f, cul]),
        "opponent_speed_yd_s": float(S[f, opp]),
        "speed_diff_yd_s": diff,
        "closing_speed_yd_s": max(ci, cj),
        "distance_yd": d,
    }
    pl = tr.players[cul]
    return Candidate(Clause.R13A, pl.team, pl.number, float(fr.t[f]), float(fr.t[e]), ev)


def _two_on_one(tr: Tracking, fr: Frames, s: int, e: int, b: int, cul: int, mate: int) -> Candidate:
    P, S = fr.pos, fr.speed

    def dist(x: int, y: int) -> float:
        dx = float(P[s, x, 0] - P[s, y, 0])
        dy = float(P[s, x, 1] - P[s, y, 1])
        return math.sqrt(dx * dx + dy * dy)

    ev: dict[str, Evidence] = {
        "victim": _name(tr, b),
        "teammate": _name(tr, mate),
        "duration_s": float(fr.t[e] - fr.t[s]),
        "distance_yd": dist(cul, b),
        "teammate_distance_yd": dist(mate, b),
        "speed_yd_s": float(S[s, cul]),
        "victim_speed_yd_s": float(S[s, b]),
    }
    pl = tr.players[cul]
    return Candidate(Clause.R13F, pl.team, pl.number, float(fr.t[s]), float(fr.t[e]), ev)


def detect_delay(tr: Tracking, fr: Frames, p: Params) -> list[Candidate]:
    """13k: the team in possession, marked within 2 horse lengths, at a walk for over 5 s."""
    F, N = fr.pos.shape[0], fr.pos.shape[1]
    if tr.ball is None or F < 2 or N < 2:
        return []
    t, P, S = fr.t, fr.pos, fr.speed
    ar = np.arange(F)
    dx = P[..., 0] - tr.ball[:, None, 0]
    dy = P[..., 1] - tr.ball[:, None, 1]
    d2 = dx * dx + dy * dy
    r = p.possession_yd.value
    key = np.where(d2 <= r * r, d2, np.inf)
    c = np.argmin(key, axis=1)
    has = np.isfinite(key[ar, c])
    Pc = P[ar, c]
    mx = P[..., 0] - Pc[:, None, 0]
    my = P[..., 1] - Pc[:, None, 1]
    md = np.where(fr.team_code[None, :] != fr.team_code[c][:, None], mx * mx + my * my, np.inf)
    marker = np.argmin(md, axis=1)
    mk = p.mark_distance_yd.value
    cond = fr.live & has & (S[ar, c] <= p.walk_speed_yd_s.value) & (md[ar, marker] <= mk * mk)
    tc = fr.team_code[c]
    start = cond.copy()
    start[1:] &= ~(cond[:-1] & (tc[1:] == tc[:-1]))
    same = np.zeros(F, dtype=bool)
    same[1:] = tc[1:] == tc[:-1]
    cont = cond & np.concatenate([[False], same[1:] & cond[:-1]])
    out: list[Candidate] = []
    limit = p.delay_limit_s.value
    ends = _run_end(cont)
    for s in np.flatnonzero(start).tolist():
        e = max(s, int(ends[s + 1]) if s + 1 < F else s)
        if not t[e] - t[s] > limit:
            continue
        fx = s + int(np.flatnonzero(t[s : e + 1] - t[s] > limit)[0])
        out.append(_delay_candidate(tr, fr, p, s, e, fx, c, marker, md))
    return out


def _delay_candidate(
    tr: Tracking,
    fr: Frames,
    p: Params,
    s: int,
    e: int,
    fx: int,
    carrier: I64,
    marker: I64,
    md: F64,
) -> Candidate:
    cx = int(carrier[fx])
    pl = tr.players[cx]
    side = tr.side_of(pl.team)
    x = float(fr.pos[fx, cx, 0])
    own: bool | None = None
    if side is Side.LEFT:
        own = x < tr.length / 2
    elif side is Side.RIGHT:
        own = x > tr.length / 2
    sp = fr.speed[np.arange(s, e + 1), carrier[s : e + 1]]
    ev: dict[str, Evidence] = {
        "duration_s": float(fr.t[e] - fr.t[s]),
        "carrier_max_speed_yd_s": float(np.max(sp)),
        "marker": _name(tr, int(marker[fx])),
        "marking_distance_yd": math.sqrt(float(md[fx, int(marker[fx])])),
        "own_half": own,
        "penalty": "5b" if own else None,
    }
    return Candidate(Clause.R13K, pl.team, pl.number, float(fr.t[s]), float(fr.t[e]), ev)


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
    t, P, S = fr.t, fr.pos, fr.speed
    c2 = p.contact_yd.value * p.contact_yd.value
    m = p.ride_min_speed_yd_s.value
    out: list[Candidate] = []
    for si, ts, te in stroke_windows(tr, p):
        f0 = event_frame(t, ts)
        f1 = int(np.searchsorted(t, te + 1e-9, side="right")) - 1
        if f0 > f1:
            continue
        for o in range(len(tr.players)):
            if fr.team_code[o] == fr.team_code[si]:
                continue
            dx = P[f0 : f1 + 1, o, 0] - P[f0 : f1 + 1, si, 0]
            dy = P[f0 : f1 + 1, o, 1] - P[f0 : f1 + 1, si, 1]
            d2 = dx * dx + dy * dy
            con = (
                fr.live[f0 : f1 + 1]
                & (d2 <= c2)
                & (S[f0 : f1 + 1, o] >= m)
                & (S[f0 : f1 + 1, si] >= m)
            )
            hits = np.flatnonzero(con)
            if hits.size == 0:
                continue
            s = int(hits[0])
            e = int(_run_end(con)[s])
            ev: dict[str, Evidence] = {
                "striker": _name(tr, si),
                "phase": "stroke",
                "distance_yd": math.sqrt(float(d2[s])),
                "speed_yd_s": float(S[f0 + s, o]),
            }
            pl = tr.players[o]
            out.append(
                Candidate(Clause.R13H, pl.team, pl.number, float(t[f0 + s]), float(t[f0 + e]), ev)
            )
    return out


def detect(tr: Tracking, params: Params = DEFAULT_PARAMS) -> list[Candidate]:
    """All candidate fouls of a play, sorted by start time (vectorised path)."""
    fr = frames(tr, params)
    cands = (
        detect_row(tr, fr, params)
        + detect_zigzag(tr, fr, params)
        + detect_rides(tr, fr, params)
        + detect_delay(tr, fr, params)
        + detect_into_stroke(tr, fr, params)
    )
    return finalize(cands, params)
