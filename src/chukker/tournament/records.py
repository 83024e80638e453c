"""Match records made from the tournament: the header of a scheduled match.

The rosters and handicaps are the register's on the match's date, the
options and edition the tournament's, so a record started this way always
agrees with ``chukker tournament check``. Team A is the first team of the
match, team B the second.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from chukker.errors import ChukkerError
from chukker.tournament.model import MatchSpec, Team, Tournament

TEAM_KEYS = ("A", "B")


class NotReady(ChukkerError):
    """The match's teams are not known yet (a place or a winner still to be decided)."""

    code = "teams_not_ready"


def match_day(t: Tournament, m: MatchSpec) -> dt.date:
    """The date whose register applies to ``m`` (its start; today when unscheduled)."""
    return m.start.date() if m.start is not None else dt.date.today()


def roster(t: Tournament, team: Team, day: dt.date) -> dict[str, Any]:
    """A record's ``teams.X`` entry for ``team`` on ``day``."""

    def entry(no: int, pid: str) -> dict[str, Any]:
        p = t.players.get(pid)
        h = p.handicap_on(day) if p is not None else None
        return {"no": no, "name": p.name if p else pid, "handicap": h if h is not None else 0}

    players = [entry(i, pid) for i, pid in enumerate(team.players, start=1)]
    captain = team.players.index(team.captain) + 1 if team.captain in team.players else 1
    out: dict[str, Any] = {"name": team.name, "captain": captain, "players": players}
    if team.alternates:
        n = len(team.players)
        out["alternates"] = [entry(n + i, pid) for i, pid in enumerate(team.alternates, 1)]
    if team.mounts:
        out["mounts"] = [m.to_dict() for m in team.mounts]  # the team's string (issue 25)
    return out


def header(t: Tournament, m: MatchSpec, teams: tuple[str | None, str | None]) -> dict[str, Any]:
    """The match record (no events yet) of ``m`` between the resolved ``teams``."""
    if teams[0] is None or teams[1] is None:
        raise NotReady(
            f"match {m.id}: the teams are not known yet "
            f"({m.teams[0].describe()} v {m.teams[1].describe()})"
        )
    day = match_day(t, m)
    club = {"edition": t.extra["edition"]} if t.rules == "club" and "edition" in t.extra else {}
    return {
        "format": "chukker-match/1",
        "rules": t.rules,
        **club,
        "options": dict(t.match_options),
        "teams": {
            "A": roster(t, t.teams[teams[0]], day),
            "B": roster(t, t.teams[teams[1]], day),
        },
        "events": [],
    }


def scripted_events(
    goals: tuple[int, int],
    periods: int = 4,
    length_s: float = 450.0,
    intervals_s: tuple[float, ...] = (240.0, 600.0, 240.0),
    keys: tuple[str, str] = TEAM_KEYS,
) -> list[dict[str, Any]]:
    """Operator events of a match played without stoppages in which teams A and B score
    ``goals`` field goals (spread over the periods). For examples, tests and benchmarks."""
    events: list[dict[str, Any]] = []
    t = 0.0
    per: list[list[str]] = [[] for _ in range(periods)]
    seq = ["A"] * goals[0] + ["B"] * goals[1]
    # interleave the two teams' goals so the score moves as in a match
    seq = (
        [x for pair in zip(seq[: goals[0]], seq[goals[0] :], strict=False) for x in pair]
        + ["A"] * max(goals[0] - goals[1], 0)
        + ["B"] * max(goals[1] - goals[0], 0)
    )
    for i, team in enumerate(seq):
        per[i % periods].append(team)
    for p in range(periods):
        events.append({"at": round(t, 3), "type": "bowl_in"})
        n = len(per[p])
        for k, team in enumerate(per[p]):
            at = t + length_s * (k + 1) / (n + 1)
            key = keys[0] if team == "A" else keys[1]
            events.append({"at": round(at, 3), "type": "goal", "team": key, "player": 1 + k % 3})
        t += length_s
        if p < periods - 1:
            t += intervals_s[p] if p < len(intervals_s) else 240.0
    return events
