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

import numpy as np

from chukker.plays.candidates import Candidate, Clause, Evidence, angle_deg, finalize
from chukker.plays.detect_rides import detect_rides
from chukker.plays.frames import (
    I64,
    B,
    Frames,
    Pairs,
    event_frame,
    frames,
    gather,
    pairs,
    player_of,
    segments,
)
from chukker.plays.params import DEFAULT_PARAMS, Params
from chukker.plays.tracking import F64, EventKind, Side, Tracking

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
        "holder": player_of(tr, h),
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
        ev["pushed"] = player_of(tr, j)
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
    seg_first_idx, _ = segments(ci, fi)
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
            "against": player_of(tr, g),
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
        dx = gather(fr.x, B_, f) - gather(fr.x, A_, f)
        dy = gather(fr.y, B_, f) - gather(fr.y, A_, f)
        d = np.sqrt(dx * dx + dy * dy)
        mx = gather(fr.x, A_, f) - gather(fr.x, A_, f0)  # his own way over the approach
        my = gather(fr.y, A_, f) - gather(fr.y, A_, f0)
        m = np.sqrt(mx * mx + my * my)
        dx0 = gather(fr.x, B_, f0) - gather(fr.x, A_, f0)
        dy0 = gather(fr.y, B_, f0) - gather(fr.y, A_, f0)
        d0 = np.sqrt(dx0 * dx0 + dy0 * dy0)
        # aim: his way over the approach against the line to the opponent at its start
        ok = (d0 > 0) & (m / span >= p.moving_speed_yd_s.value)
        aim = np.where(ok, (mx * dx0 + my * dy0) / np.where(ok, d0 * m, 1.0), -1.0)
        closing = (d0 - d) / span
        hit = np.flatnonzero(ok & (aim >= cos_aim) & (closing >= p.head_closing_speed_yd_s.value))
        for r in hit.tolist():
            a_, b_ = int(A_[r]), int(B_[r])
            ev: dict[str, Evidence] = {
                "opponent": player_of(tr, b_),
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
                    "opponent": player_of(tr, b_),
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
    dx = gather(fr.x, j, f1) - gather(fr.x, j, f0)
    dy = gather(fr.y, j, f1) - gather(fr.y, j, f0)
    pos = dt > 0
    out: F64 = np.where(pos, np.sqrt(dx * dx + dy * dy) / np.where(pos, dt, 1.0),
                        gather(fr.s, j, f))
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
    cx, cy = gather(X, cc, fc), gather(Y, cc, fc)
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
            "carrier_max_speed_yd_s": float(np.max(gather(S, c[span], span))),
            "marker": player_of(tr, int(marker[k])),
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
                "striker": player_of(tr, si),
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
