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
from dataclasses import replace
from itertools import combinations
from typing import Any

from chukker.tournament.model import DECIDERS, MatchSpec, Tournament
from chukker.tournament.mounts import mount_problems
from chukker.tournament.problems import Cause, Problem, Subject, show
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

    def bad(subject: Subject, code: str, **params: str | int) -> None:
        out.append(Problem.of(subject, code, **params))

    from chukker.rules.editions import EDITIONS

    if t.rules not in EDITIONS and t.rules != "club":  # club: its edition is checked below
        bad(Subject.of("tournament"), "unknown_rules", value=show(t.rules),
            known=", ".join(EDITIONS))
    out.extend(_check_options(t))
    if t.team_min is not None and t.team_max is not None and t.team_min > t.team_max:
        bad(Subject.path("team_handicap"), "team_limits_crossed", min=t.team_min, max=t.team_max)

    # teams and the register
    on_team: dict[str, list[str]] = {}
    for tm in t.teams.values():
        subj = Subject.of("team", tm.id)
        if len(tm.players) != 3:
            bad(subj, "team_size", count=len(tm.players))
        seen = Counter(tm.players + tm.alternates)
        for pid, n in seen.items():
            if n > 1:
                bad(subj, "player_repeated", player=pid, count=n)
        for pid in tm.players + tm.alternates:
            if pid not in t.players:
                bad(subj, "unknown_player", player=pid)
            on_team.setdefault(pid, [])
            if tm.id not in on_team[pid]:
                on_team[pid].append(tm.id)
        if tm.captain is not None and tm.captain not in tm.players:
            bad(subj, "captain_not_player", player=tm.captain)
    for pid, tms in on_team.items():
        if len(tms) > 1:
            bad(Subject.of("player", pid), "two_teams", teams=", ".join(tms))

    # stages
    for st in t.stages.values():
        for x in st.teams:
            if x not in t.teams:
                bad(Subject.of("stage", st.id), "unknown_team", team=x)
        if len(set(st.teams)) != len(st.teams):
            bad(Subject.of("stage", st.id), "team_repeated")
    for i, d in enumerate(t.decided):
        subj = Subject.path("decided", i)
        if d.stage not in t.stages:
            bad(subj, "unknown_stage", stage=d.stage)
            continue
        if d.by not in t.criteria:
            bad(subj, "not_a_criterion", criterion=d.by)
        for x in d.order:
            if x not in t.teams:
                bad(subj, "unknown_team", team=x)
        if len(set(d.order)) != len(d.order):
            bad(subj, "order_repeated")
    if not any(c in DECIDERS for c in t.criteria) and t.criteria:
        pass  # shared places are allowed by the contract

    # matches: ids and references
    for m in t.matches.values():
        subj = Subject.of("match", m.id)
        mst = t.stages.get(m.stage)
        if mst is None:
            bad(subj, "unknown_stage", stage=show(m.stage))
        for ref in m.teams:
            if ref.team is not None:
                if ref.team not in t.teams:
                    bad(subj, "unknown_team", team=ref.team)
                elif (
                    mst is not None
                    and mst.kind == "round-robin"
                    and mst.teams
                    and ref.team not in mst.teams
                ):
                    bad(subj, "team_not_in_stage", team=ref.team, stage=mst.id)
            elif ref.stage is not None:
                src = t.stages.get(ref.stage)
                if src is None:
                    bad(subj, "unknown_stage", stage=ref.stage)
                elif src.kind != "round-robin":
                    bad(subj, "not_round_robin", stage=ref.stage)
                elif ref.place is not None and src.teams and ref.place > len(src.teams):
                    bad(subj, "no_such_place", stage=ref.stage, place=ref.place)
            else:
                mid = ref.winner_of or ref.loser_of
                if mid not in t.matches:
                    bad(subj, "unknown_match", match=str(mid))
                elif mid == m.id:
                    bad(subj, "refers_to_itself")
        a, b = m.teams
        if a.team is not None and a.team == b.team:
            bad(subj, "plays_itself", team=a.team)

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
                bad(Subject.of("stage", est.id), "bracket_enters_twice", team=who,
                    matches=", ".join(where))
        for from_id, where in goes_on.items():
            if len(where) > 1:
                bad(Subject.of("stage", est.id), "bracket_goes_on_twice", match=from_id,
                    matches=", ".join(where))

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
                bad(Subject.of("stage", st.id), "pair_missing", a=x, b=y)
            elif n > 1:
                bad(Subject.of("stage", st.id), "pair_twice", a=x, b=y, count=n)

    # results, eligibility and rosters
    p = replay_all(t) if played is None else played
    try:
        s: Standings | None = standings(t, p)
    except ValueError as e:  # a result that cannot be placed: reported, never a traceback
        bad(Subject.of("tournament"), "standings_failed", detail=str(e))
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
    subj = Subject.of("match", m.id)
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
                who: dict[str, str] = {"player": pid, "name": pl.name, "team": x}
                if not pl.registered_for(day.year):
                    bad(subj, "not_registered", **who, year=day.year)
                if pl.handicap_on(day) is None:
                    bad(subj, "no_handicap", **who, day=day.isoformat())
            total = team_handicap(tm, t.players, day)
            if total is not None:
                if t.team_min is not None and total < t.team_min:
                    bad(subj, "team_below_min", team=x, total=total, day=day.isoformat(),
                        min=t.team_min)
                if t.team_max is not None and total > t.team_max:
                    bad(subj, "team_above_max", team=x, total=total, day=day.isoformat(),
                        max=t.team_max)
    if played is None:
        return
    if isinstance(played, str):
        bad(subj, "record_refused", record=str(m.record), detail=played)
        return
    if played.practice:
        bad(subj, "record_practice", record=str(m.record))
    path = t.record_path(m)
    if path is None:
        return
    try:
        from chukker.record import load_path

        rec = load_path(path)
    except ValueError as e:  # pragma: no cover - it replayed a moment ago
        bad(subj, "record_unreadable", record=str(m.record), detail=str(e))
        return
    if rec.get("rules", "uspa-arena-2026") != t.rules or (
            t.rules == "club" and rec.get("edition") != t.extra.get("edition")):
        bad(subj, "record_rules", record_rules=show(rec.get("rules")), rules=show(t.rules))
    opts = rec.get("options", {})
    for k, v in t.match_options.items():
        if opts.get(k) != v:
            bad(subj, "record_options", option=k, record_value=show(opts.get(k)), value=show(v))
    if day is None:
        bad(subj, "no_date")
        return
    for key, x in record_teams(played.keys, teams).items():
        if x is None or x not in t.teams:
            continue
        _check_roster(t, subj, key, x, rec["teams"][key], day, bad)


def _check_roster(
    t: Tournament,
    subj: Subject,
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
            bad(subj, "roster_differs", key=key, team=team_id, no=str(e.get("no")),
                name=show(name))
            continue
        h = pl.handicap_on(day)
        if e.get("handicap", 0) != h:
            bad(subj, "handicap_differs", key=key, team=team_id, player=pl.id, name=pl.name,
                record_handicap=str(e.get("handicap", 0)), handicap=str(h), day=day.isoformat())


def _check_options(t: Tournament) -> list[Problem]:
    """``match_options`` must be options the engine accepts in a match record: the
    engine's refusal is the problem's cause (said from its code where it has a sentence)."""
    from chukker.engine import SetupError
    from chukker.engine.setup import Setup

    team = {"captain": 1, "players": [{"no": n} for n in (1, 2, 3)]}
    doc: dict[str, Any] = {"options": t.match_options, "teams": {"A": team, "B": team}}
    if t.rules == "club":  # a club's edition for all the matches (issue 33)
        doc.update(rules="club", edition=t.extra.get("edition"))
    try:
        Setup.from_dict(doc)
    except SetupError as e:
        path = str(e.params.get("path", "options"))
        detail = str(e).removeprefix(f"{path}: ")
        key = "edition" if path.startswith("edition") else "match_options"
        found = Problem.of(Subject.path(key), "match_options", path=path, detail=detail)
        return [replace(found, cause=Cause.of(e.code, e.params))]
    return []
