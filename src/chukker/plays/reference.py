"""Plain per-frame Python reference of :mod:`chukker.plays.detectors`.

No NumPy in the loops: lists, one frame at a time, one rule check per frame and
pair. It exists to check the vectorised path (the tests compare both on
generated plays) and as the baseline of ``benchmarks/plays.py``. The final
merge (:func:`chukker.plays.candidates.finalize`) is shared.

>>> from chukker.plays.scenario import load_shipped
>>> [c.clause for c in detect_reference(load_shipped("13b-zigzag").tracking())]
[<Clause.R13B: '13b'>]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from chukker.plays.candidates import Candidate, Clause, Evidence, angle_deg, finalize
from chukker.plays.detectors import stroke_windows
from chukker.plays.frames import WALLS
from chukker.plays.params import DEFAULT_PARAMS, Params
from chukker.plays.tracking import EventKind, Side, Tracking

Vec = list[float]


def _first_frame_at(t: list[float], at: float) -> int:
    for f, tf in enumerate(t):
        if tf >= at - 1e-9:
            return f
    return len(t)


def _kin(
    t: list[float], xs: list[float], ys: list[float], min_speed: float
) -> tuple[Vec, Vec, Vec, Vec, Vec, list[bool]]:
    F = len(t)
    vx = [0.0] * F
    vy = [0.0] * F
    for f in range(1, F):
        dt = t[f] - t[f - 1]
        vx[f] = (xs[f] - xs[f - 1]) / dt
        vy[f] = (ys[f] - ys[f - 1]) / dt
    if F > 1:
        vx[0], vy[0] = vx[1], vy[1]
    s = [math.sqrt(vx[f] * vx[f] + vy[f] * vy[f]) for f in range(F)]
    mov = [s[f] >= min_speed for f in range(F)]
    ux = [vx[f] / s[f] if mov[f] else 0.0 for f in range(F)]
    uy = [vy[f] / s[f] if mov[f] else 0.0 for f in range(F)]
    return vx, vy, s, ux, uy, mov


@dataclass
class _State:
    t: list[float]
    x: list[list[float]]  # [player][frame]
    y: list[list[float]]
    vx: list[Vec]
    vy: list[Vec]
    s: list[Vec]
    ux: list[Vec]
    uy: list[Vec]
    mov: list[list[bool]]
    team: list[int]
    live: list[bool]
    holder: list[int]
    ok: list[bool]  # right of way settled, unchanged since the previous frame, live, protected
    change: list[bool]


def _prepare(tr: Tracking, p: Params) -> _State:
    t = tr.t.tolist()
    F, N = len(t), len(tr.players)
    pos = tr.pos.tolist()
    xs = [[pos[f][j][0] for f in range(F)] for j in range(N)]
    ys = [[pos[f][j][1] for f in range(F)] for j in range(N)]
    kin = [_kin(t, xs[j], ys[j], p.moving_speed_yd_s.value) for j in range(N)]
    teams = sorted({pl.team for pl in tr.players})
    team = [teams.index(pl.team) for pl in tr.players]
    index = {pl: i for i, pl in enumerate(tr.players)}

    toggles = sorted(
        [
            (e.t, e.kind is EventKind.WHISTLE)
            for e in tr.events
            if e.kind in (EventKind.WHISTLE, EventKind.HIT, EventKind.BOWL_IN)
        ],
        key=lambda x: x[0],
    )
    live = []
    for tf in t:
        state = True
        for et, dead in toggles:
            if et < tf:
                state = not dead
        live.append(state)

    holder = [-1] * F
    line_of: list[int] = [-1] * F
    if tr.ball is not None:
        b = tr.ball.tolist()
        bx = [b[f][0] for f in range(F)]
        by = [b[f][1] for f in range(F)]
        _, _, _, bux, buy, bm = _kin(t, bx, by, p.ball_moving_speed_yd_s.value)
        cos_turn = math.cos(math.radians(p.line_turn_deg.value))
        new = []
        dirs = []
        for f in range(F):
            n = bm[f]
            if n and f > 0 and bm[f - 1] and bux[f] * bux[f - 1] + buy[f] * buy[f - 1] >= cos_turn:
                n = False
            new.append(n)
            dirs.append((bux[f], buy[f]))
        for e in tr.events:
            if e.kind is EventKind.MISS and e.player in index:
                f = _first_frame_at(t, e.t)
                j = index[e.player]
                if f < F and kin[j][5][f]:
                    new[f] = True
                    dirs[f] = (kin[j][3][f], kin[j][4][f])
        cur = -1
        prox = p.row_proximity_yd.value
        cos_row = math.cos(math.radians(p.row_max_angle_deg.value))
        look = p.row_lookahead_yd.value
        for f in range(F):
            if new[f]:
                cur = f
            line_of[f] = cur
            if cur < 0 or not live[f]:
                continue
            ox, oy = bx[cur], by[cur]
            dx, dy = dirs[cur]
            best, best_key = -1, math.inf
            for j in range(N):
                _, _, s, ux, uy, mov = kin[j]
                if not mov[f] or s[f] < p.row_min_speed_yd_s.value:
                    continue
                ex, ey = xs[j][f] - bx[f], ys[j][f] - by[f]
                if not ex * ex + ey * ey <= prox * prox:
                    continue
                if not abs(ux[f] * dx + uy[f] * dy) >= cos_row:
                    continue
                lat = dx * (ys[j][f] - oy) - dy * (xs[j][f] - ox)
                cr = dx * uy[f] - dy * ux[f]
                key = abs(lat + look * cr)
                if key < best_key:
                    best, best_key = j, key
            holder[f] = best
    hooks = [(e.t, index[e.on]) for e in tr.events if e.kind is EventKind.HOOK and e.on in index]
    change = [True] * F
    ok = [False] * F
    last = 0
    for f in range(F):
        if f > 0:
            change[f] = holder[f] != holder[f - 1] or line_of[f] != line_of[f - 1]
        if change[f]:
            last = f
        settled = t[f] - t[last] >= p.row_clear_s.value
        h = holder[f]
        protected = h >= 0 and not any(
            ht - 1e-9 <= t[f] < ht + p.hook_grace_s.value and on == h for ht, on in hooks
        )
        ok[f] = (not change[f]) and settled and live[f] and protected
    return _State(
        t,
        xs,
        ys,
        [k[0] for k in kin],
        [k[1] for k in kin],
        [k[2] for k in kin],
        [k[3] for k in kin],
        [k[4] for k in kin],
        [k[5] for k in kin],
        team,
        live,
        holder,
        ok,
        change,
    )


def _row(tr: Tracking, st: _State, p: Params) -> list[Candidate]:
    t, N = st.t, len(tr.players)
    out: list[Candidate] = []
    hw = p.row_half_width_yd.value
    c2 = p.contact_yd.value * p.contact_yd.value
    m = p.ride_min_speed_yd_s.value

    def rel(f: int, h: int, j: int) -> tuple[float, float]:
        rx = st.x[j][f] - st.x[h][f]
        ry = st.y[j][f] - st.y[h][f]
        ux, uy = st.ux[h][f], st.uy[h][f]
        return ux * rx + uy * ry, ux * ry - uy * rx

    def inside(f: int, h: int, j: int) -> bool:
        if h < 0 or st.team[j] == st.team[h]:
            return False
        a, lat = rel(f, h, j)
        return a > p.row_front_yd.value and a <= p.row_length_yd.value and abs(lat) <= hw

    for f in range(1, len(t)):
        h = st.holder[f]
        if not st.ok[f]:
            continue
        sh = st.s[h][f]
        unsafe_at = max(p.row_min_gap_yd.value, sh * p.row_headway_s.value)
        for j in range(N):
            if not inside(f, h, j):
                continue
            a, _ = rel(f, h, j)
            _, lat_prev = rel(f - 1, h, j)
            w = st.ux[h][f] * st.vy[j][f] - st.uy[h][f] * st.vx[j][f]
            if not (
                not inside(f - 1, h, j)
                and w * lat_prev < 0
                and abs(w) >= p.row_entry_lateral_speed_yd_s.value
                and a < unsafe_at
            ):
                continue
            e = f
            while (
                e + 1 < len(t)
                and inside(e + 1, st.holder[e + 1], j)
                and st.live[e + 1]
                and not st.change[e + 1]
            ):
                e += 1
            k_best, d_best = -1, math.inf
            if st.s[j][f] >= m:
                for k in range(N):
                    if k in (h, j) or st.team[k] == st.team[j] or st.s[k][f] < m:
                        continue
                    dx = st.x[j][f] - st.x[k][f]
                    dy = st.y[j][f] - st.y[k][f]
                    d2 = dx * dx + dy * dy
                    if st.live[f] and d2 <= c2 and d2 < d_best:
                        k_best, d_best = k, d2
            ev: dict[str, Evidence] = {
                "holder": str(tr.players[h]),
                "distance_yd": a,
                "holder_speed_yd_s": sh,
                "entering_speed_yd_s": st.s[j][f],
                "lateral_speed_yd_s": abs(w),
                "angle_deg": angle_deg(st.ux[j][f], st.uy[j][f], st.ux[h][f], st.uy[h][f])
                if st.mov[j][f]
                else None,
                "entries": 1,
            }
            culprit, clause = j, Clause.R12
            if k_best >= 0:
                culprit, clause = k_best, Clause.R13D
                ev["pushed"] = str(tr.players[j])
                ev["contact_distance_yd"] = math.sqrt(d_best)
            pl = tr.players[culprit]
            out.append(Candidate(clause, pl.team, pl.number, t[f], t[e], ev))
    return out


def _zigzag(tr: Tracking, st: _State, p: Params) -> list[Candidate]:
    t, N = st.t, len(tr.players)
    need = int(p.zig_min_crossings.value)
    zl = p.zig_lateral_speed_yd_s.value
    m = p.zig_margin_yd.value
    out: list[Candidate] = []
    for g in range(N):
        for j in range(N):
            if st.team[g] == st.team[j]:
                continue
            side = 0  # side of his line, 0 while unknown (or out of the zone)
            chain: list[tuple[int, float, float, int]] = []  # (frame, ahead, lateral, swings)
            lats: list[float] = []

            def close(
                chain: list[tuple[int, float, float, int]],
                lats: list[float],
                g: int = g,
                j: int = j,
            ) -> None:
                if len(chain) < need:
                    return
                s_f, e_f = chain[0][0], chain[-1][0]
                ev: dict[str, Evidence] = {
                    "against": str(tr.players[g]),
                    "crossings": len(chain),
                    "span_s": t[e_f] - t[s_f],
                    "min_ahead_yd": min(c[1] for c in chain),
                    "max_ahead_yd": max(c[1] for c in chain),
                    "max_swing_yd": max(lats[: chain[-1][3]]),
                    "galloping_speed_yd_s": min(st.s[g][x] for x in range(s_f, e_f + 1)),
                    "speed_yd_s": st.s[j][s_f],
                    "max_lateral_speed_yd_s": max(abs(c[2]) for c in chain),
                }
                pl = tr.players[j]
                out.append(Candidate(Clause.R13B, pl.team, pl.number, t[s_f], t[e_f], ev))

            for f in range(len(t)):
                ux, uy = st.ux[g][f], st.uy[g][f]
                rx = st.x[j][f] - st.x[g][f]
                ry = st.y[j][f] - st.y[g][f]
                a = ux * rx + uy * ry
                lat = ux * ry - uy * rx
                zone = (
                    st.live[f]
                    and st.s[g][f] >= p.gallop_speed_yd_s.value
                    and 0 < a <= p.zig_front_yd.value
                    and abs(lat) <= p.zig_reach_yd.value
                )
                if not zone:
                    close(chain, lats)
                    side, chain, lats = 0, [], []
                    continue
                if chain:
                    lats.append(abs(lat))
                sgn = 1 if lat >= m else (-1 if lat <= -m else 0)
                if sgn == 0:
                    continue
                if side != 0 and sgn != side:
                    w = ux * st.vy[j][f] - uy * st.vx[j][f]
                    if w * sgn >= zl:
                        if chain and t[f] - t[chain[-1][0]] > p.zig_window_s.value:
                            close(chain, lats)
                            chain, lats = [], []
                        if not chain:
                            lats = [abs(lat)]
                        chain.append((f, a, w, len(lats)))
                side = sgn
            close(chain, lats)
    return out


def _rides(tr: Tracking, st: _State, p: Params) -> list[Candidate]:
    t, N, F = st.t, len(tr.players), len(st.t)
    c2 = p.contact_yd.value * p.contact_yd.value
    m = p.ride_min_speed_yd_s.value
    out: list[Candidate] = []
    contact: dict[tuple[int, int], list[bool]] = {}
    for i in range(N):
        for j in range(i + 1, N):
            if st.team[i] == st.team[j]:
                continue
            row = []
            for f in range(F):
                dx = st.x[j][f] - st.x[i][f]
                dy = st.y[j][f] - st.y[i][f]
                row.append(
                    st.live[f] and dx * dx + dy * dy <= c2 and st.s[i][f] >= m and st.s[j][f] >= m
                )
            last = -1  # last contact frame: fill short breaks of live play
            for f in range(F):
                if not row[f]:
                    continue
                if (
                    0 <= last < f - 1
                    and t[f] - t[last] <= p.contact_gap_s.value + 1e-9
                    and all(st.live[g] for g in range(last + 1, f))
                ):
                    for g in range(last + 1, f):
                        row[g] = True
                last = f
            contact[(i, j)] = contact[(j, i)] = row

    def run_end(row: list[bool], f: int) -> int:
        while f + 1 < F and row[f + 1]:
            f += 1
        return f

    def run_start(row: list[bool], f: int) -> int:
        while f > 0 and row[f - 1]:
            f -= 1
        return f

    # 13a
    for i in range(N):
        for j in range(i + 1, N):
            if st.team[i] == st.team[j]:
                continue
            row = contact[(i, j)]
            for f in range(1, F):
                if row[f] and not row[f - 1]:
                    c = _ride_onset(tr, st, p, f, run_end(row, f), i, j)
                    if c is not None:
                        out.append(c)
    # 13f
    for b in range(N):
        for i in range(N):
            for k in range(i + 1, N):
                if not st.team[i] == st.team[k] != st.team[b]:
                    continue
                ri, rk = contact[(b, i)], contact[(b, k)]
                f = 0
                while f < F:
                    if not (ri[f] and rk[f]):
                        f += 1
                        continue
                    s = f
                    while f + 1 < F and ri[f + 1] and rk[f + 1]:
                        f += 1
                    e = f
                    f += 1
                    if t[e] - t[s] < p.two_on_one_min_s.value:
                        continue
                    oi, ok_ = run_start(ri, s), run_start(rk, s)
                    cul, mate = (i, k) if oi > ok_ else (k, i)

                    def dist(x: int, y: int, s: int = s) -> float:
                        dx = st.x[x][s] - st.x[y][s]
                        dy = st.y[x][s] - st.y[y][s]
                        return math.sqrt(dx * dx + dy * dy)

                    ev: dict[str, Evidence] = {
                        "victim": str(tr.players[b]),
                        "teammate": str(tr.players[mate]),
                        "duration_s": t[e] - t[s],
                        "distance_yd": dist(cul, b),
                        "teammate_distance_yd": dist(mate, b),
                        "speed_yd_s": st.s[cul][s],
                        "victim_speed_yd_s": st.s[b][s],
                    }
                    pl = tr.players[cul]
                    out.append(Candidate(Clause.R13F, pl.team, pl.number, t[s], t[e], ev))
    # 13j
    L, W = tr.length, tr.width
    for a_ in range(N):
        for b in range(N):
            if st.team[a_] == st.team[b]:
                continue
            row = contact[(a_, b)]
            flags: list[tuple[bool, int, float, float]] = []
            for f in range(F):
                xb, yb = st.x[b][f], st.y[b][f]
                walls_b = [xb, L - xb, yb, W - yb]
                k = 0
                for q in range(1, 4):
                    if walls_b[q] < walls_b[k]:
                        k = q
                xa, ya = st.x[a_][f], st.y[a_][f]
                walls_a = [xa, L - xa, ya, W - ya]
                tow = [-st.vx[b][f], st.vx[b][f], -st.vy[b][f], st.vy[b][f]][k]
                flag = (
                    row[f]
                    and walls_b[k] <= p.wall_margin_yd.value
                    and walls_a[k] > walls_b[k]
                    and tow >= p.wall_approach_speed_yd_s.value
                )
                flags.append((flag, k, walls_b[k], tow))
            f = 0
            while f < F:
                if not flags[f][0]:
                    f += 1
                    continue
                s = f
                while f + 1 < F and flags[f + 1][0]:
                    f += 1
                e = f
                f += 1
                if t[e] - t[s] < p.wall_min_s.value:
                    continue
                ev = {
                    "opponent": str(tr.players[b]),
                    "wall": WALLS[flags[s][1]],
                    "wall_distance_yd": min(flags[x][2] for x in range(s, e + 1)),
                    "approach_speed_yd_s": max(flags[x][3] for x in range(s, e + 1)),
                    "speed_yd_s": st.s[a_][s],
                    "opponent_speed_yd_s": st.s[b][s],
                }
                pl = tr.players[a_]
                out.append(Candidate(Clause.R13J, pl.team, pl.number, t[s], t[e], ev))
    return out


def _ride_onset(
    tr: Tracking, st: _State, p: Params, f: int, e: int, i: int, j: int
) -> Candidate | None:
    si, sj = st.s[i][f], st.s[j][f]
    cos = st.ux[i][f] * st.ux[j][f] + st.uy[i][f] * st.uy[j][f]
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
    dx = st.x[j][f] - st.x[i][f]
    dy = st.y[j][f] - st.y[i][f]
    d = math.sqrt(dx * dx + dy * dy)
    ci = (st.vx[i][f] * dx + st.vy[i][f] * dy) / d if d > 0 else 0.0
    cj = -(st.vx[j][f] * dx + st.vy[j][f] * dy) / d if d > 0 else 0.0
    cul, opp = (i, j) if ci >= cj else (j, i)
    reason = " and ".join(x for x, y in (("steep angle", steep), ("unequal speed", unequal)) if y)
    ev: dict[str, Evidence] = {
        "opponent": str(tr.players[opp]),
        "reason": reason,
        "angle_deg": angle_deg(st.ux[i][f], st.uy[i][f], st.ux[j][f], st.uy[j][f]),
        "max_safe_angle_deg": lim,
        "speed_yd_s": st.s[cul][f],
        "opponent_speed_yd_s": st.s[opp][f],
        "speed_diff_yd_s": diff,
        "closing_speed_yd_s": max(ci, cj),
        "distance_yd": d,
    }
    pl = tr.players[cul]
    return Candidate(Clause.R13A, pl.team, pl.number, st.t[f], st.t[e], ev)


def _delay(tr: Tracking, st: _State, p: Params) -> list[Candidate]:
    if tr.ball is None:
        return []
    t, N, F = st.t, len(tr.players), len(st.t)
    b = tr.ball.tolist()
    r2 = p.possession_yd.value * p.possession_yd.value
    mk2 = p.mark_distance_yd.value * p.mark_distance_yd.value
    per: list[tuple[bool, int, int, float]] = []  # cond, carrier, marker, marking d2
    for f in range(F):
        c, cd = -1, math.inf
        for j in range(N):
            dx = st.x[j][f] - b[f][0]
            dy = st.y[j][f] - b[f][1]
            d2 = dx * dx + dy * dy
            if d2 <= r2 and d2 < cd:
                c, cd = j, d2
        if c < 0:
            per.append((False, -1, -1, math.inf))
            continue
        mkr, md = -1, math.inf
        for o in range(N):
            if st.team[o] == st.team[c]:
                continue
            dx = st.x[o][f] - st.x[c][f]
            dy = st.y[o][f] - st.y[c][f]
            d2 = dx * dx + dy * dy
            if d2 < md:
                mkr, md = o, d2
        f0 = _first_frame_at(t, t[f] - p.walk_window_s.value)
        f1 = f
        if t[f] - t[0] < p.walk_window_s.value:  # the first window of the data
            f1 = max(f, min(_first_frame_at(t, t[0] + p.walk_window_s.value), F - 1))
        if t[f1] > t[f0]:
            dx = st.x[c][f1] - st.x[c][f0]
            dy = st.y[c][f1] - st.y[c][f0]
            walk = math.sqrt(dx * dx + dy * dy) / (t[f1] - t[f0])
        else:
            walk = st.s[c][f]
        cond = st.live[f] and walk <= p.walk_speed_yd_s.value and md <= mk2
        per.append((cond, c, mkr, md))
    out: list[Candidate] = []
    f = 0
    limit = p.delay_limit_s.value
    while f < F:
        if not per[f][0]:
            f += 1
            continue
        s = f
        team = st.team[per[f][1]]
        while f + 1 < F and per[f + 1][0] and st.team[per[f + 1][1]] == team:
            f += 1
        e = f
        f += 1
        if not t[e] - t[s] > limit:
            continue
        fx = next(x for x in range(s, e + 1) if t[x] - t[s] > limit)
        cx, mkr, md = per[fx][1], per[fx][2], per[fx][3]
        pl = tr.players[cx]
        side = tr.side_of(pl.team)
        own: bool | None = None
        if side is Side.LEFT:
            own = st.x[cx][fx] < tr.length / 2
        elif side is Side.RIGHT:
            own = st.x[cx][fx] > tr.length / 2
        ev: dict[str, Evidence] = {
            "duration_s": t[e] - t[s],
            "carrier_max_speed_yd_s": max(st.s[per[x][1]][x] for x in range(s, e + 1)),
            "marker": str(tr.players[mkr]),
            "marking_distance_yd": math.sqrt(md),
            "own_half": own,
            "penalty": "5b" if own else None,
        }
        out.append(Candidate(Clause.R13K, pl.team, pl.number, t[s], t[e], ev))
    return out


def _into_stroke(tr: Tracking, st: _State, p: Params) -> list[Candidate]:
    t, N, F = st.t, len(tr.players), len(st.t)
    c2 = p.contact_yd.value * p.contact_yd.value
    m = p.ride_min_speed_yd_s.value
    out: list[Candidate] = []
    for si, ts, te in stroke_windows(tr, p):
        frames_ = [f for f in range(F) if t[f] >= ts - 1e-9 and t[f] <= te + 1e-9]
        for o in range(N):
            if st.team[o] == st.team[si]:
                continue

            def con(f: int, o: int = o, si: int = si) -> tuple[bool, float]:
                dx = st.x[o][f] - st.x[si][f]
                dy = st.y[o][f] - st.y[si][f]
                d2 = dx * dx + dy * dy
                return (st.live[f] and d2 <= c2 and st.s[o][f] >= m and st.s[si][f] >= m), d2

            hit = next((f for f in frames_ if con(f)[0]), None)
            if hit is None:
                continue
            e = hit
            while e + 1 in frames_ and con(e + 1)[0]:
                e += 1
            ev: dict[str, Evidence] = {
                "striker": str(tr.players[si]),
                "phase": "stroke",
                "distance_yd": math.sqrt(con(hit)[1]),
                "speed_yd_s": st.s[o][hit],
            }
            pl = tr.players[o]
            out.append(Candidate(Clause.R13H, pl.team, pl.number, t[hit], t[e], ev))
    return out


def detect_reference(tr: Tracking, params: Params = DEFAULT_PARAMS) -> list[Candidate]:
    """The same candidates as :func:`chukker.plays.detectors.detect`, frame by frame."""
    from chukker.plays.detectors import detect_head_on, detect_intimidation
    from chukker.plays.frames import frames, pairs

    st = _prepare(tr, params)
    fr = frames(tr, params)
    pr = pairs(fr, params)
    cands = (
        detect_head_on(tr, fr, params, pr)  # 13i, 13g: one implementation (docs/plays.md)
        + detect_intimidation(tr, fr, params, pr)
        + _row(tr, st, params)
        + _zigzag(tr, st, params)
        + _rides(tr, st, params)
        + _delay(tr, st, params)
        + _into_stroke(tr, st, params)
    )
    return finalize(cands, params)
