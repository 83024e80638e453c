"""The pony line (issue 25): for a team's grooms, its next match and when it will really
start, and what each player's horses did so far today.

The estimate follows each arena's live progress: matches in an arena are played in
the order of their scheduled starts. A match in play ends after the play time it has
left (the clock, the periods and intervals still to come, from the engine's report);
one not started yet starts at its scheduled time, or, when the arena runs late, as
soon as the match before it has ended plus the changeover the schedule leaves between
them. Pure: the caller passes the instant ``now`` (the live service's clock; tests a
virtual one).

>>> import datetime as dt
>>> from chukker.rules.editions import edition
>>> plan = edition("uspa-arena-2026").regulation
>>> rep = {"status": "in_play", "period": 2, "clock": {"remaining_ms": 100_000}}
>>> remaining_ms(rep, plan) // 1000  # 100 s, then 10 + 4 min of intervals, two periods
1840
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chukker.rules.editions import PeriodPlan, edition
from chukker.tournament.model import MatchSpec, Tournament
from chukker.tournament.mounts import ridden_by_day
from chukker.tournament.standings import Played, Standings

#: what an extra period or a shootout still to play is reckoned at
_TIEBREAK_MS = 8 * 60_000


def match_ms(plan: PeriodPlan) -> int:
    """A match's play time without stoppages: its periods and the intervals between."""
    return plan.count * plan.length_ms + sum(plan.intervals_ms)


def remaining_ms(report: Mapping[str, Any] | None, plan: PeriodPlan) -> int:
    """The play time a match has left, from its report (``None``: not started)."""
    if report is None:
        return match_ms(plan)
    st = report.get("status")
    if st == "final":
        return 0
    if st in (None, "pre_match"):
        return match_ms(plan)
    p = int(report.get("period") or 0)
    n = plan.count
    if p > n or st == "shootout":
        return _TIEBREAK_MS
    if st == "interval":
        iv = report.get("interval") or {}
        left = int(iv.get("remaining_ms") or 0)
        if p >= n:  # before an extra period or the shootout
            return left + _TIEBREAK_MS
        return left + (n - p) * plan.length_ms + sum(plan.intervals_ms[p:])
    clock = int((report.get("clock") or {}).get("remaining_ms") or 0)
    return max(clock, 0) + (n - p) * plan.length_ms + sum(plan.intervals_ms[p - 1:])


def changeover(ms: list[MatchSpec], length: dt.timedelta) -> dt.timedelta:
    """The changeover the schedule leaves between two matches of one arena on one day
    (the shortest; 5 minutes where the schedule shows none)."""
    gaps = [
        b.start - a.start - length
        for a, b in itertools.pairwise(ms)
        if a.start is not None and b.start is not None and a.start.date() == b.start.date()
    ]
    return max(min(gaps, default=dt.timedelta(minutes=5)), dt.timedelta(0))


def _started(report: Mapping[str, Any] | None) -> bool:
    return report is not None and report.get("status") not in (None, "pre_match")


def estimate_starts(
    t: Tournament, reports: Mapping[str, Mapping[str, Any]], now: dt.datetime
) -> dict[str, dt.datetime]:
    """The estimated start of every scheduled match not started yet, per arena in order."""
    plan = edition(t.rules).plan(str(t.match_options.get("periods", "regulation")))
    length = dt.timedelta(milliseconds=match_ms(plan))
    by_arena: dict[str, list[MatchSpec]] = {}
    for m in t.matches.values():
        if m.start is not None:
            by_arena.setdefault(m.arena or "", []).append(m)
    out: dict[str, dt.datetime] = {}
    for ms in by_arena.values():
        ms.sort(key=lambda m: (m.start or dt.datetime.max, m.id))
        turnaround = changeover(ms, length)
        free: dt.datetime | None = None  # when the arena is free of the match before
        for m in ms:
            assert m.start is not None
            rep = reports.get(m.id)
            if rep is not None and rep.get("status") == "final":
                free = now  # it ended (at the latest now)
                continue
            if _started(rep):
                free = now + dt.timedelta(milliseconds=remaining_ms(rep, plan))
                continue
            start = m.start if free is None else max(m.start, free + turnaround)
            if free is not None and free <= now and start < now:
                start = max(m.start, now)  # the arena is free: it may start now
            out[m.id] = start
            free = start + length
    return out


@dataclass(frozen=True, slots=True)
class NextMatch:
    match: str
    opponent: str | None
    arena: str
    scheduled: dt.datetime | None
    estimated: dt.datetime | None
    playing: bool


def next_match(
    t: Tournament, s: Standings, reports: Mapping[str, Mapping[str, Any]], team: str,
    now: dt.datetime,
) -> NextMatch | None:
    """The team's match in play, or its next one, with its estimated start."""
    est = estimate_starts(t, reports, now)
    ms = sorted(t.matches.values(), key=lambda m: (m.start or dt.datetime.max, m.id))
    for m in ms:
        teams = s.match(m.id).teams
        if team not in teams:
            continue
        rep = reports.get(m.id)
        if rep is not None and rep.get("status") == "final":
            continue
        other = teams[1] if teams[0] == team else teams[0]
        return NextMatch(m.id, other, m.arena or "", m.start, est.get(m.id), _started(rep))
    return None


def pony_line(
    t: Tournament, s: Standings, played: Mapping[str, Played | str], team: str,
    day: dt.date,
) -> list[dict[str, Any]]:
    """Per player of ``team``: the mounts ridden so far on ``day``, each with its matches
    and periods, and whether it is out; then the string's mounts not ridden yet."""
    tm = t.teams[team]
    roster = [*tm.players, *tm.alternates]
    names = {k: (t.players[p].name if p in t.players else p) for k, p in enumerate(roster, 1)}
    per: dict[int | None, list[dict[str, Any]]] = {}
    ridden = ridden_by_day(t, played, s)
    listed = {m.id: m for m in tm.mounts}
    used = set()
    for (tid, mid, d), r in ridden.items():
        if tid != team or d != day or not (r.periods or r.out):
            continue  # a horse on the string not ridden yet is listed below (issue 30)
        used.add(mid)
        by_rider: dict[int | None, list[tuple[str, int]]] = {}
        for match, period, rider in r.periods:
            by_rider.setdefault(rider, []).append((match, period))
        for rider, periods in by_rider.items():
            per.setdefault(rider, []).append({
                "mount": mid,
                "name": listed[mid].name if mid in listed else mid,
                "periods": [{"match": a, "period": b} for a, b in periods],
                "count": r.count,
                "out": r.out,
                "reason": OUT_WORDS.get(r.reason or "", r.reason),
            })
    out = [{"no": k, "name": names[k], "mounts": sorted(per.get(k, []),
                                                          key=lambda x: str(x["mount"]))}
           for k in sorted(names)]
    spare = [{"mount": m.id, "name": m.name} for m in tm.mounts if m.id not in used]
    if spare:
        out.append({"no": None, "name": None, "mounts": spare})
    return out


# ------------------------------------------------------------ the groom's string (issue 30)
#: how a horse that left the game is said (the words are the pages' msgids)
OUT_WORDS = {"vice": "vice", "blood": "blood", "runaway": "runaway", "injury": "injury",
             "other": "other reason", "penalty_8": "Penalty 8",
             "equipment": "Penalty 8, equipment"}


def next_period_ms(report: Mapping[str, Any], plan: PeriodPlan) -> int | None:
    """The play time until the next period starts, from a report (``None``: before the
    match, when the start is the schedule's, or when no period follows)."""
    st = report.get("status")
    p = int(report.get("period") or 0)
    if st == "interval":
        return int((report.get("interval") or {}).get("remaining_ms") or 0)
    if st in ("in_play", "stopped"):
        clock = max(int((report.get("clock") or {}).get("remaining_ms") or 0), 0)
        ivs = plan.intervals_ms
        gap = ivs[p - 1] if 0 < p <= len(ivs) else (ivs[-1] if ivs else 0)
        return clock + gap
    return None


def split_when(report: Mapping[str, Any], plan: PeriodPlan, split_after_ms: int
               ) -> dict[str, Any]:
    """When a horse meant for the split comes in (issue 42, ``docs/engine.md``, "The
    groom's split"): ``period`` (the one being played, or the coming one before a period),
    ``into`` ("3:30"), ``now`` once the split horn has sounded and the mount change runs,
    and ``left_ms``: the mount change's time left then, else the play time until the split
    while its period is played (``None`` before it).

    >>> from chukker.rules.editions import edition
    >>> plan = edition("uspa-arena-2026").regulation
    >>> split_when({"status": "pre_match", "period": 0}, plan, 210_000)["period"]
    1
    >>> w = split_when({"status": "stopped", "period": 2, "clock": {"remaining_ms": 200_000},
    ...                 "mount_change": {"remaining_ms": 95_000}}, plan, 210_000)
    >>> (w["period"], w["now"], w["left_ms"])
    (2, True, 95000)
    """
    st = report.get("status")
    playing = st in ("in_play", "stopped")
    period = int(report.get("period") or 0) + (0 if playing else 1)
    s = split_after_ms // 1000
    change = report.get("mount_change")
    left: int | None = None
    if change:
        left = max(int(change.get("remaining_ms") or 0), 0)
    elif playing:
        clock = int((report.get("clock") or {}).get("remaining_ms") or 0)
        left = max(clock - (plan.length_ms - split_after_ms), 0)
    return {"kind": "split", "period": period, "into": f"{s // 60}:{s % 60:02d}",
            "now": bool(change), "left_ms": left}


def string_of(
    report: Mapping[str, Any], team: str, names: Mapping[int, str], plan: PeriodPlan,
    split_after_ms: int, now: dt.datetime | None,
) -> list[dict[str, Any]]:
    """Every horse of ``team``'s string (the report's order) with what it does now:
    ``state`` ``riding`` (``players``: who), ``next`` (``players``, ``when``: ``split``
    with ``period`` and ``into`` ("3:30"), or ``period`` with ``at``, an estimated time),
    ``resting`` (ridden before), ``waiting`` (not ridden yet), ``out`` or ``disqualified``
    (``reason``: the words of :data:`OUT_WORDS`); with its ``name`` and ``periods``.

    >>> from chukker.rules.editions import edition
    >>> rep = {"status": "in_play", "period": 2, "clock": {"remaining_ms": 300_000},
    ...   "mounts": {"A": {"bay": {"name": "Bay", "status": "riding", "rider": 1,
    ...                            "periods": [1, 2]},
    ...                    "dora": {"name": "Dora", "status": "available", "periods": []}}},
    ...   "roster": {"A": {"players": {"1": {"next_mount": {"mount": "dora",
    ...                                                     "from": "split"}}}}}}
    >>> [(h["name"], h["state"]) for h in string_of(rep, "A", {1: "Ann"},
    ...   edition("uspa-arena-2026").regulation, 210_000, None)]
    [('Bay', 'riding'), ('Dora', 'next')]
    """
    string = (report.get("mounts") or {}).get(team) or {}
    players = ((report.get("roster") or {}).get(team) or {}).get("players") or {}
    nexts: dict[str, list[tuple[int, str]]] = {}
    for no, p in players.items():
        n = p.get("next_mount")
        if n:
            nexts.setdefault(str(n["mount"]), []).append((int(no), str(n["from"])))
    ahead = next_period_ms(report, plan)
    at = None if ahead is None or now is None else now + dt.timedelta(milliseconds=ahead)
    out = []
    for mid, m in string.items():
        row: dict[str, Any] = {"mount": mid, "name": m.get("name") or mid,
                               "periods": list(m.get("periods") or ()), "players": []}
        st = m.get("status")
        if st in ("out", "disqualified"):
            row["state"] = st
            row["reason"] = OUT_WORDS.get(str(m.get("reason")), str(m.get("reason")))
            row["players"] = [{"no": m.get("last_rider"),
                               "name": names.get(m.get("last_rider") or 0, "")}]
        elif st == "riding":
            row["state"] = "riding"
            row["players"] = [{"no": m.get("rider"), "name": names.get(m.get("rider") or 0, "")}]
        elif mid in nexts:
            row["state"] = "next"
            row["players"] = [{"no": no, "name": names.get(no, "")} for no, _ in nexts[mid]]
            when = nexts[mid][0][1]
            if when == "split":
                row["when"] = split_when(report, plan, split_after_ms)
            else:
                row["when"] = {"kind": "period", "period": int(when.split()[-1]),
                               "at": at}
        else:
            row["state"] = "resting" if row["periods"] else "waiting"
        out.append(row)
    return out
