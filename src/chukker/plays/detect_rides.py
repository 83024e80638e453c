"""The ride-off detectors (Rule 13d, 13e, 13g): a ride begun at an angle or too fast, two
riding one, and a rider put into the wall; one pass over the contact runs of
:class:`~chukker.plays.frames.Pairs`."""

from __future__ import annotations

import math

import numpy as np

from chukker.plays.candidates import Candidate, Clause, Evidence, angle_deg
from chukker.plays.frames import I64, WALLS, Frames, Pairs, gather, pairs, player_of, segments
from chukker.plays.params import Params
from chukker.plays.tracking import Tracking


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
    si, sj = gather(S, i_, f), gather(S, j_, f)
    uxi, uyi, uxj, uyj = gather(UX, i_, f), gather(UY, i_, f), gather(UX, j_, f), gather(UY, j_, f)
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
    dx = gather(fr.x, j_, f) - gather(fr.x, i_, f)
    dy = gather(fr.y, j_, f) - gather(fr.y, i_, f)
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
        gather(S, cul, f).tolist(),
        gather(S, opp, f).tolist(),
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
            "opponent": player_of(tr, op),
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
    first, last = segments(col, f)
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
        dx = gather(X, u, s) - gather(X, v, s)
        dy = gather(Y, u, s) - gather(Y, v, s)
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
        gather(fr.s, cul, s).tolist(),
        gather(fr.s, b, s).tolist(),
        strict=True,
    ):
        ev: dict[str, Evidence] = {
            "victim": player_of(tr, bb),
            "teammate": player_of(tr, mt),
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
    first, last = segments(cc[q], cf[q])
    t = fr.t
    out: list[Candidate] = []
    for r0, r1 in zip(first.tolist(), last.tolist(), strict=True):
        s_f, e_f = int(cf[q[r0]]), int(cf[q[r1]])
        if t[e_f] - t[s_f] < p.wall_min_s.value:
            continue
        a_, b = int(A[q[r0]]), int(Bv[q[r0]])
        sel = q[r0 : r1 + 1]
        ev: dict[str, Evidence] = {
            "opponent": player_of(tr, b),
            "wall": WALLS[int(wk[q[r0]])],
            "wall_distance_yd": float(np.min(wd[sel])),
            "approach_speed_yd_s": float(np.max(tow[sel])),
            "speed_yd_s": float(fr.s[a_, s_f]),
            "opponent_speed_yd_s": float(fr.s[b, s_f]),
        }
        pl = tr.players[a_]
        out.append(Candidate(Clause.R13J, pl.team, pl.number, float(t[s_f]), float(t[e_f]), ev))
    return out
