"""Every problem of a tournament, each naming the match, player, team or stage it concerns.

Rule 3 (players registered and handicapped in the year of play), the
event's team handicap limits, ids that name nothing, round robins where a
pair does not meet exactly once, and records that do not replay or whose
rosters, edition or options differ from the tournament's.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping
from itertools import combinations
from typing import Any

from chukker.tournament.model import DECIDERS, MatchSpec, Problem, Tournament
from chukker.tournament.mounts import mount_problems
from chukker.tournament.register import team_handicap
from chukker.tournament.standings import (
    Played,
    Standings,
    record_teams,
    replay_all,
    standings,
)


def check(t: Tournament, played: Mapping[str, Played | str] | None = None) -> list[Problem]:
    """Every problem found (``[]`` when the tournament is sound)."""
    out = list(t.problems)

    def bad(subject: str, message: str, code: str = "invalid") -> None:
        out.append(Problem(subject, message, code))

    try:
        from chukker.rules.editions import edition

        edition(t.rules)
    except ValueError as e:
        bad("tournament", str(e))
    _check_options(t, bad)
    if t.team_min is not None and t.team_max is not None and t.team_min > t.team_max:
        bad("team_handicap", f"min {t.team_min} is above max {t.team_max}")

    # teams and the register
    on_team: dict[str, list[str]] = {}
    for tm in t.teams.values():
        subj = f"team {tm.id}"
        if len(tm.players) != 3:
            bad(
                subj,
                f"Rule 3: an arena team has 3 players (No. 1-3), got {len(tm.players)}",
                "team_size",
            )
        seen = Counter(tm.players + tm.alternates)
        for pid, n in seen.items():
            if n > 1:
                bad(subj, f"player {pid} is listed {n} times")
        for pid in tm.players + tm.alternates:
            if pid not in t.players:
                bad(subj, f"player {pid} is not in the register", "unknown_player")
            on_team.setdefault(pid, [])
            if tm.id not in on_team[pid]:
                on_team[pid].append(tm.id)
        if tm.captain is not None and tm.captain not in tm.players:
            bad(subj, f"captain {tm.captain} is not one of the team's players", "unknown_player")
    for pid, tms in on_team.items():
        if len(tms) > 1:
            bad(f"player {pid}", f"plays for more than one team: {', '.join(tms)}", "two_teams")

    # stages
    for st in t.stages.values():
        for x in st.teams:
            if x not in t.teams:
                bad(f"stage {st.id}", f"team {x} is not defined", "unknown_team")
        if len(set(st.teams)) != len(st.teams):
            bad(f"stage {st.id}", "a team is listed twice")
    for i, d in enumerate(t.decided):
        subj = f"decided[{i}]"
        if d.stage not in t.stages:
            bad(subj, f"stage {d.stage} is not defined", "unknown_stage")
            continue
        if d.by not in t.criteria:
            bad(subj, f"{d.by} is not a criterion of the order of finish")
        for x in d.order:
            if x not in t.teams:
                bad(subj, f"team {x} is not defined", "unknown_team")
        if len(set(d.order)) != len(d.order):
            bad(subj, "a team is listed twice in the order")
    if not any(c in DECIDERS for c in t.criteria) and t.criteria:
        pass  # shared places are allowed by the contract

    # matches: ids and references
    for m in t.matches.values():
        subj = f"match {m.id}"
        mst = t.stages.get(m.stage)
        if mst is None:
            bad(subj, f"stage {m.stage!r} is not defined", "unknown_stage")
        for ref in m.teams:
            if ref.team is not None:
                if ref.team not in t.teams:
                    bad(subj, f"team {ref.team} is not defined", "unknown_team")
                elif (
                    mst is not None
                    and mst.kind == "round-robin"
                    and mst.teams
                    and ref.team not in mst.teams
                ):
                    bad(subj, f"team {ref.team} is not in stage {mst.id}", "team_not_in_stage")
            elif ref.stage is not None:
                src = t.stages.get(ref.stage)
                if src is None:
                    bad(subj, f"stage {ref.stage} is not defined", "unknown_stage")
                elif src.kind != "round-robin":
                    bad(subj, f"stage {ref.stage} has no order of finish (not a round robin)")
                elif ref.place is not None and src.teams and ref.place > len(src.teams):
                    bad(subj, f"stage {ref.stage} has no place {ref.place}")
            else:
                mid = ref.winner_of or ref.loser_of
                if mid not in t.matches:
                    bad(subj, f"match {mid} is not defined", "unknown_match")
                elif mid == m.id:
                    bad(subj, "refers to itself")
        a, b = m.teams
        if a.team is not None and a.team == b.team:
            bad(subj, f"team {a.team} cannot play itself")

    # elimination stages: each entrant enters once, each winner goes on once
    for est in t.stages.values():
        if est.kind != "single-elimination":
            continue
        own = [m for m in t.matches.values() if m.stage == est.id]
        ids = {m.id for m in own}
        entered: dict[str, list[str]] = {}
        goes_on: dict[str, list[str]] = {}
        for m in own:
            for ref in m.teams:
                if ref.winner_of in ids:
                    goes_on.setdefault(ref.winner_of, []).append(m.id)
                elif ref.loser_of not in ids:
                    entered.setdefault(ref.describe(), []).append(m.id)
        for who, where in entered.items():
            if len(where) > 1 and who != "?":
                bad(
                    f"stage {est.id}",
                    f"team {who} enters the bracket twice (matches {', '.join(where)})",
                    "bracket_twice",
                )
        for from_id, where in goes_on.items():
            if len(where) > 1:
                bad(
                    f"stage {est.id}",
                    f"the winner of {from_id} goes on twice (matches {', '.join(where)})",
                    "bracket_twice",
                )

    # round robins: every pair once
    for st in t.stages.values():
        if st.kind != "round-robin":
            continue
        pairs: Counter[frozenset[str]] = Counter()
        for m in t.matches.values():
            if m.stage == st.id and m.teams[0].team and m.teams[1].team:
                pairs[frozenset((m.teams[0].team, m.teams[1].team))] += 1
        for x, y in combinations(st.teams, 2):
            n = pairs.get(frozenset((x, y)), 0)
            if n == 0:
                bad(
                    f"stage {st.id}",
                    f"{x} and {y} do not meet (a round robin: every pair once)",
                    "pair_missing",
                )
            elif n > 1:
                bad(f"stage {st.id}", f"{x} and {y} meet {n} times (every pair once)", "pair_twice")

    # results, eligibility and rosters
    p = replay_all(t) if played is None else played
    try:
        s: Standings | None = standings(t, p)
    except ValueError as e:  # a result that cannot be placed: reported, never a traceback
        bad("tournament", f"standings could not be computed: {e}")
        s = None
    for m in t.matches.values():
        teams = s.match(m.id).teams if s is not None else (None, None)
        _check_match(t, m, teams, p.get(m.id), bad)
    out += mount_problems(t, p, s)  # Rule 2 across the strings; the welfare limit (issue 25)
    return out


def _check_match(
    t: Tournament,
    m: MatchSpec,
    teams: tuple[str | None, str | None],
    played: Played | str | None,
    bad: Any,
) -> None:
    subj = f"match {m.id}"
    day = m.start.date() if m.start is not None else None
    if day is not None:
        for x in teams:
            if x is None or x not in t.teams:
                continue
            tm = t.teams[x]
            for pid in tm.players + tm.alternates:
                pl = t.players.get(pid)
                if pl is None:
                    continue
                if not pl.registered_for(day.year):
                    bad(
                        subj,
                        f"player {pid} ({pl.name}, {x}) is not registered for {day.year} (Rule 3)",
                        "not_registered",
                    )
                if pl.handicap_on(day) is None:
                    bad(
                        subj,
                        f"player {pid} ({pl.name}, {x}) has no handicap in force on {day} (Rule 3)",
                        "no_handicap",
                    )
            total = team_handicap(tm, t.players, day)
            if total is not None:
                if t.team_min is not None and total < t.team_min:
                    bad(
                        subj,
                        f"team {x} totals {total} on {day}, below the minimum {t.team_min}",
                        "team_below_min",
                    )
                if t.team_max is not None and total > t.team_max:
                    bad(
                        subj,
                        f"team {x} totals {total} on {day}, above the maximum {t.team_max}",
                        "team_above_max",
                    )
    if played is None:
        return
    if isinstance(played, str):
        bad(subj, f"record {m.record} does not replay: {played}", "record_refused")
        return
    if played.practice:
        bad(
            subj,
            f"record {m.record} is a practice match: never a tournament result",
            "record_practice",
        )
    path = t.record_path(m)
    if path is None:
        return
    try:
        from chukker.record import load_path

        rec = load_path(path)
    except ValueError as e:  # pragma: no cover - it replayed a moment ago
        bad(subj, str(e), "record_refused")
        return
    if rec.get("rules", "uspa-arena-2026") != t.rules:
        bad(
            subj,
            f"record is played under {rec.get('rules')!r}, the tournament under {t.rules!r}",
            "record_rules",
        )
    opts = rec.get("options", {})
    for k, v in t.match_options.items():
        if opts.get(k) != v:
            bad(
                subj,
                f"record option {k} is {opts.get(k)!r}, the tournament's is {v!r}",
                "record_options",
            )
    if day is None:
        bad(subj, "no start date: the record's rosters cannot be checked", "no_date")
        return
    for key, x in record_teams(played.keys, teams).items():
        if x is None or x not in t.teams:
            continue
        _check_roster(t, subj, key, x, rec["teams"][key], day, bad)


def _check_roster(
    t: Tournament,
    subj: str,
    key: str,
    team_id: str,
    doc: Mapping[str, Any],
    day: dt.date,
    bad: Any,
) -> None:
    tm = t.teams[team_id]
    by_name = {}
    for pid in tm.players + tm.alternates:
        pl = t.players.get(pid)
        if pl is not None:
            by_name[pl.name] = pl
    entries = list(doc.get("players", [])) + list(doc.get("alternates", []) or [])
    for e in entries:
        if not isinstance(e, Mapping):
            continue
        name = e.get("name", "")
        pl = by_name.get(name)
        if pl is None:
            bad(
                subj,
                f"record team {key} ({team_id}): No. {e.get('no')} {name!r} is not a "
                f"player of {team_id} in the register",
                "roster_differs",
            )
            continue
        h = pl.handicap_on(day)
        if e.get("handicap", 0) != h:
            bad(
                subj,
                f"record team {key} ({team_id}): player {pl.id} ({pl.name}) has handicap "
                f"{e.get('handicap', 0)} in the record, {h} in the register on {day}",
                "handicap_differs",
            )


def _check_options(t: Tournament, bad: Any) -> None:
    """``match_options`` must be options the engine accepts in a match record."""
    from chukker.engine import SetupError
    from chukker.engine.setup import Setup

    team = {"captain": 1, "players": [{"no": n} for n in (1, 2, 3)]}
    try:
        Setup.from_dict({"options": t.match_options, "teams": {"A": team, "B": team}})
    except SetupError as e:
        bad("match_options", str(e), "match_options")
