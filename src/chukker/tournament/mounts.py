"""The tournament's mounts (issue 25): each team's string, Rule 2 across teams, the
committee's welfare limit, and what each team's horses did on a day, from the records.

Rule 2 (2006 summary): "No mount may be played by more than one team." A mount is
the same horse on two strings when its ``id`` is the same, or its ``name`` and
``owner`` are (both given, compared without case). ``[mount_limits] periods_per_day = N``
is an optional condition of the event: every mount ridden in more than N periods on one
day (counted from the match records' ``mounts``) is named.

>>> from chukker.tournament.model import loads
>>> t = loads('''
... [[teams]]
... id = "a"
... players = []
... mounts = [{id = "chico", name = "Chico", owner = "R. Paz"}]
... [[teams]]
... id = "b"
... players = []
... mounts = [{id = "chico-2", name = "chico", owner = "r. paz"}]
... ''')
>>> [p.message.split(": ", 1)[1] for p in string_problems(t)]
['no mount may be played by more than one team: chico (r. paz) is on the strings of a and b']
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from chukker.tournament.model import Tournament
from chukker.tournament.problems import Problem, Subject
from chukker.tournament.records import match_day
from chukker.tournament.standings import Played, Standings


def periods_per_day(t: Tournament) -> tuple[int | None, list[Problem]]:
    """The committee's limit (``[mount_limits] periods_per_day``), and problems reading it."""
    raw = t.extra.get("mount_limits")
    if raw is None:
        return None, []
    bad = [Problem.of(Subject.path("mount_limits"), "mount_limits")]
    if not isinstance(raw, Mapping) or set(raw) - {"periods_per_day"}:
        return None, bad
    n = raw.get("periods_per_day")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        return None, bad
    return n, []


def string_problems(t: Tournament) -> list[Problem]:
    """Rule 2: a mount registered by two teams (the same id, or the same name and owner)."""
    out: list[Problem] = []
    by_id: dict[str, str] = {}
    by_horse: dict[tuple[str, str], tuple[str, str]] = {}
    for tm in t.teams.values():
        for m in tm.mounts:
            other = by_id.get(m.id)
            if other is not None and other != tm.id:
                out.append(Problem.of(Subject.of("mount", m.id), "mount_two_teams",
                                      mount=m.id, a=other, b=tm.id))
            by_id.setdefault(m.id, tm.id)
            if m.name.strip() and m.owner and m.owner.strip():
                key = (m.name.strip().casefold(), m.owner.strip().casefold())
                seen = by_horse.get(key)
                if seen is not None and seen[0] != tm.id and seen[1] != m.id:
                    out.append(Problem.of(Subject.of("mount", m.id), "mount_two_teams",
                                          mount=f"{m.name} ({m.owner})", a=seen[0], b=tm.id))
                by_horse.setdefault(key, (tm.id, m.id))
    return out


@dataclass(slots=True)
class Ridden:
    """What one mount of a team did on one day: the matches and periods it was ridden in."""

    team: str
    mount: str
    day: dt.date
    #: (match id, period, rider's player number or None) in the order played
    periods: list[tuple[str, int, int | None]] = field(default_factory=list)
    out: str | None = None  # the status it ended the day with, when not available
    #: why (the report's ``reason`` code: ``blood``, ``penalty_8``, ...), when ``out``
    reason: str | None = None

    @property
    def count(self) -> int:
        """The periods it was ridden in (two riders in one period count once)."""
        return len({(m, p) for m, p, _ in self.periods})


def ridden_by_day(
    t: Tournament, played: Mapping[str, Played | str], s: Standings | None
) -> dict[tuple[str, str, dt.date], Ridden]:
    """Every (team, mount, day) ridden in the records, with its periods, in match order."""
    out: dict[tuple[str, str, dt.date], Ridden] = {}
    ms = sorted(t.matches.values(), key=lambda m: (m.start or dt.datetime.max, m.id))
    for m in ms:
        p = played.get(m.id)
        if not isinstance(p, Played):
            continue
        teams = s.match(m.id).teams if s is not None else (None, None)
        day = match_day(t, m)
        mounts = p.report.get("mounts") or {}
        for key, team in zip(p.keys, teams, strict=True):
            if team is None:
                continue
            for mid, entry in (mounts.get(key) or {}).items():
                r = out.setdefault((team, mid, day), Ridden(team, mid, day))
                rides = entry.get("rides")
                if rides is not None:
                    r.periods += [(m.id, int(x["period"]), x.get("player")) for x in rides]
                else:
                    rider = entry.get("rider") if entry.get("rider") is not None else entry.get(
                        "last_rider")
                    r.periods += [(m.id, int(n), rider) for n in entry.get("periods", ())]
                if entry.get("status") in ("out", "disqualified"):
                    r.out, r.reason = str(entry["status"]), str(entry.get("reason"))
    return out


def welfare_problems(
    t: Tournament, played: Mapping[str, Played | str], s: Standings | None
) -> list[Problem]:
    """Every mount ridden in more periods on one day than the committee allows."""
    n, out = periods_per_day(t)
    if n is None:
        return out
    for (team, mid, day), r in sorted(ridden_by_day(t, played, s).items(),
                                       key=lambda kv: (kv[0][2], kv[0][0], kv[0][1])):
        if r.count > n:
            matches = ", ".join(dict.fromkeys(x[0] for x in r.periods))
            out.append(Problem.of(Subject.of("mount", mid), "mount_periods_per_day", team=team,
                                  mount=mid, count=r.count, day=day.isoformat(),
                                  matches=matches, limit=n))
    return out


def mount_problems(
    t: Tournament, played: Mapping[str, Played | str], s: Standings | None
) -> list[Problem]:
    """Rule 2 across the strings and the welfare limit: what ``tournament check`` adds."""
    return string_problems(t) + welfare_problems(t, played, s)


def over_limit(
    t: Tournament, played: Mapping[str, Played | str], s: Standings | None, team: str
) -> list[dict[str, Any]]:
    """For the team page: the team's mounts over the limit, each day."""
    n, _ = periods_per_day(t)
    if n is None:
        return []
    names = {m.id: m.name for m in t.teams[team].mounts} if team in t.teams else {}
    return [
        # "mount": the horse's name, for a person to read (issue 30); "id": its id
        {"mount": names.get(mid) or mid, "id": mid, "day": day.isoformat(), "periods": r.count,
         "limit": n}
        for (tm, mid, day), r in sorted(ridden_by_day(t, played, s).items(),
                                        key=lambda kv: (kv[0][2], kv[0][1]))
        if tm == team and r.count > n
    ]
