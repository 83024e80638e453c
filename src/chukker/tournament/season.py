"""A club's season: every match of the tournaments it holds, and what follows from them.

Everything is derived from the match records (or the live service's reports), never
typed: each match's result and rosters with the handicaps of the day, a roll of honour
per tournament (winner, runner-up, third), goals per player, and penalties per player
and per clause. :func:`season_csv` writes one line per match as an association's
results database takes it; :func:`read_season_csv` reads it back (a round trip).

>>> from pathlib import Path
>>> example = Path(__file__).parents[3] / "examples" / "tournament" / "fall-classic.toml"
>>> s = load_season([example])
>>> len(s.rows), s.honours[0].winner
(15, 'Giles Farm')
>>> read_season_csv(season_csv(s.rows)) == s.rows
True
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from chukker import csvsafe
from chukker.tournament.model import Tournament, load_path
from chukker.tournament.records import NotReady, header
from chukker.tournament.standings import (
    MatchResult,
    Played,
    Standings,
    played_from_record,
    record_teams,
    standings,
)

#: players per team in the export (arena: three)
PLAYERS = 3


@dataclass(frozen=True, slots=True)
class RosterEntry:
    no: int
    name: str
    handicap: int


@dataclass(frozen=True, slots=True)
class SeasonRow:
    """One match of the season, as the results database takes it."""

    tournament: str
    venue: str
    match: str
    stage: str
    date: str  # YYYY-MM-DD, venue-local; "" when not scheduled
    time: str  # HH:MM
    arena: str
    team_a: str
    team_b: str
    roster_a: tuple[RosterEntry, ...]
    roster_b: tuple[RosterEntry, ...]
    status: str
    score_a: int | None
    score_b: int | None
    winner: str  # team name, "" when none
    decided_by: str  # regulation, overtime, shootout, forfeit... ("" when not final)
    forfeited: str  # "", "A", "B" or "both"

    @property
    def handicap_a(self) -> int:
        return sum(p.handicap for p in self.roster_a)

    @property
    def handicap_b(self) -> int:
        return sum(p.handicap for p in self.roster_b)


@dataclass(frozen=True, slots=True)
class Honour:
    """A tournament's roll of honour: the winner, runner-up and third (names, or ``None``
    while not decided)."""

    tournament: str
    winner: str | None
    runner_up: str | None
    third: str | None


@dataclass(frozen=True, slots=True)
class PlayerGoals:
    player: str
    team: str
    goals: int
    points: int
    matches: int


@dataclass(frozen=True, slots=True)
class PlayerPenalties:
    player: str
    team: str
    fouls: int
    by_penalty: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class ClausePenalties:
    clause: str
    fouls: int
    by_penalty: tuple[tuple[str, int], ...]


@dataclass(slots=True)
class SeasonTournament:
    """One tournament of the season: the file read, its standings, each match's record
    header (rosters as played) and the key of each record's teams."""

    id: str
    t: Tournament
    standings: Standings
    headers: dict[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(slots=True)
class Season:
    tournaments: list[SeasonTournament]
    rows: list[SeasonRow]
    honours: list[Honour]
    goals: list[PlayerGoals]
    penalties: list[PlayerPenalties]
    clauses: list[ClausePenalties]


# ------------------------------------------------------------------------ building


def _roster(doc: Mapping[str, Any] | None) -> tuple[RosterEntry, ...]:
    if not isinstance(doc, Mapping):
        return ()
    out = []
    for p in doc.get("players", []) or []:
        if isinstance(p, Mapping):
            out.append(RosterEntry(int(p.get("no", 0)), str(p.get("name", "")),
                                   int(p.get("handicap", 0))))  # fmt: skip
    return tuple(out)


def _names_by_no(doc: Mapping[str, Any] | None) -> dict[int, str]:
    if not isinstance(doc, Mapping):
        return {}
    out: dict[int, str] = {}
    for p in list(doc.get("players", []) or []) + list(doc.get("alternates", []) or []):
        if isinstance(p, Mapping) and "no" in p:
            out[int(p["no"])] = str(p.get("name", ""))
    return out


def _keys(st: SeasonTournament, r: MatchResult) -> dict[str, str | None]:
    """The record's team keys -> tournament team ids."""
    h = st.headers.get(r.id)
    ks = list(h.get("teams", {})) if h else ["A", "B"]
    keys = (str(ks[0]), str(ks[1])) if len(ks) == 2 else ("A", "B")
    return record_teams(keys, r.teams)


def _rosters(st: SeasonTournament, r: MatchResult) -> tuple[tuple[RosterEntry, ...], ...]:
    h = st.headers.get(r.id)
    if not h:
        return (), ()
    by_team = {v: k for k, v in _keys(st, r).items()}
    teams = h.get("teams", {})
    return tuple(_roster(teams.get(by_team.get(x, ""))) if x else () for x in r.teams)


def rows_of(st: SeasonTournament) -> list[SeasonRow]:
    """One row per match of the tournament, in the order of the file."""
    t = st.t
    out = []
    for r in st.standings.matches:
        m = t.matches[r.id]
        ra, rb = _rosters(st, r)
        final = r.status == "final"
        forf = set(r.forfeited)
        forfeited = (
            "both"
            if len(forf) >= 2
            else "A"
            if r.teams[0] in forf
            else "B"
            if r.teams[1] in forf
            else ""
        )
        out.append(
            SeasonRow(
                tournament=t.name,
                venue=t.venue,
                match=r.id,
                stage=r.stage,
                date=m.start.date().isoformat() if m.start else "",
                time=m.start.strftime("%H:%M") if m.start else "",
                arena=m.arena or "",
                team_a=t.team_name(r.teams[0]) if r.teams[0] else "",
                team_b=t.team_name(r.teams[1]) if r.teams[1] else "",
                roster_a=ra,
                roster_b=rb,
                status=r.status,
                score_a=r.score[0] if r.score is not None else None,
                score_b=r.score[1] if r.score is not None else None,
                winner=t.team_name(r.winner) if final and r.winner else "",
                decided_by=(r.decided_by or "") if final else "",
                forfeited=forfeited if final else "",
            )
        )
    return out


def honours_of(st: SeasonTournament) -> Honour:
    """Winner and runner-up of the final (the elimination match whose winner goes nowhere,
    of a stage not made of earlier losers), third from a third-place match; without a
    bracket, the first three of the last round robin once its order is complete."""
    t, s = st.t, st.standings
    referenced = {r.winner_of or r.loser_of for m in t.matches.values() for r in m.teams}
    se = [m for m in t.matches.values()
          if t.stages.get(m.stage) is not None
          and t.stages[m.stage].kind == "single-elimination"]  # fmt: skip
    own = {m.id for m in se}

    def consolation(stage: str) -> bool:
        entries = [r for m in se if m.stage == stage for r in m.teams if r.winner_of not in own]
        return bool(entries) and all(r.loser_of is not None for r in entries)

    final = next(
        (m for m in reversed(se)
         if m.id not in referenced and not all(r.loser_of in own for r in m.teams)
         and not consolation(m.stage)),
        None,
    )  # fmt: skip
    if final is not None:
        r = s.match(final.id)
        third_m = next(
            (m for m in se
             if m.stage == final.stage and m.id != final.id and m.id not in referenced
             and all(x.loser_of in own for x in m.teams)),
            None,
        )  # fmt: skip
        third = s.match(third_m.id).winner if third_m is not None else None
        return Honour(
            t.name,
            t.team_name(r.winner) if r.winner else None,
            t.team_name(r.loser) if r.loser else None,
            t.team_name(third) if third else None,
        )
    pools = [x for x in s.stages if x.kind == "round-robin"]
    if pools and len(pools) == 1:
        p = pools[0]
        got = [p.team_at(k) for k in (1, 2, 3)]
        return Honour(t.name, *(t.team_name(x) if x else None for x in got))
    return Honour(t.name, None, None, None)


def _stats(
    tournaments: Sequence[SeasonTournament],
) -> tuple[list[PlayerGoals], list[PlayerPenalties], list[ClausePenalties]]:
    goals: dict[tuple[str, str], list[int]] = {}
    played_in: dict[tuple[str, str], set[tuple[str, str]]] = {}
    pen: dict[tuple[str, str], dict[str, int]] = {}
    clause: dict[str, dict[str, int]] = {}
    for st in tournaments:
        for r in st.standings.matches:
            rep = r.report
            if rep is None or r.status in ("practice", "refused", "scheduled"):
                continue
            keys = _keys(st, r)
            h = st.headers.get(r.id) or {}
            teams_doc = h.get("teams", {})
            by_no: dict[str, dict[int, str]] = {}
            for key, team_id in keys.items():
                by_no[key] = _names_by_no(teams_doc.get(key))
                if team_id is None:
                    continue
                for name in by_no[key].values():
                    played_in.setdefault((name, st.t.team_name(team_id)), set()).add((st.id, r.id))

            def who(
                key: Any, no: Any, keys: Any = keys, by_no: Any = by_no, t: Any = st.t
            ) -> tuple[str, str] | None:
                team_id = keys.get(str(key))
                if team_id is None or no is None:
                    return None
                return by_no[str(key)].get(int(no), f"No. {no}"), t.team_name(team_id)

            for g in rep.get("goals", []) or []:
                p = who(g.get("team"), g.get("player"))
                if p is None:
                    continue
                acc = goals.setdefault(p, [0, 0])
                acc[0] += 1
                acc[1] += int(g.get("points", 1))
            for f in rep.get("fouls", []) or []:
                penalty = str(f.get("penalty") or "")
                c = str(f.get("clause") or "")
                if c:
                    d = clause.setdefault(c, {})
                    d[penalty] = d.get(penalty, 0) + 1
                p = who(f.get("team"), f.get("player"))
                if p is not None:
                    d = pen.setdefault(p, {})
                    d[penalty] = d.get(penalty, 0) + 1
    g_out = [
        PlayerGoals(n, tm, v[0], v[1], len(played_in.get((n, tm), ())))
        for (n, tm), v in goals.items()
    ]
    g_out.sort(key=lambda x: (-x.goals, -x.points, x.player, x.team))
    p_out = [
        PlayerPenalties(n, tm, sum(d.values()), tuple(sorted(d.items(), key=_pen_key)))
        for (n, tm), d in pen.items()
    ]
    p_out.sort(key=lambda x: (-x.fouls, x.player, x.team))
    c_out = [
        ClausePenalties(c, sum(d.values()), tuple(sorted(d.items(), key=_pen_key)))
        for c, d in clause.items()
    ]
    c_out.sort(key=lambda x: _clause_key(x.clause))
    return g_out, p_out, c_out


def _pen_key(item: tuple[str, int]) -> tuple[int, str]:
    k = item[0]
    digits = "".join(ch for ch in k if ch.isdigit())
    return (int(digits) if digits else 99, k)


def _clause_key(c: str) -> tuple[int, str]:
    digits = ""
    for ch in c:
        if not ch.isdigit():
            break
        digits += ch
    return (int(digits) if digits else 999, c)


def season(tournaments: Sequence[SeasonTournament]) -> Season:
    """The season of these tournaments: rows, roll of honour, goals and penalties."""
    rows = [row for st in tournaments for row in rows_of(st)]
    honours = [honours_of(st) for st in tournaments]
    g, p, c = _stats(tournaments)
    return Season(list(tournaments), rows, honours, g, p, c)


def from_file(path: str | Path, tid: str | None = None) -> SeasonTournament:
    """A tournament file and its records (each read and replayed once); a record that does
    not replay counts as refused, as in the standings."""
    from chukker.engine import EngineError
    from chukker.record import RecordError, replay
    from chukker.record import load_path as load_record

    t = load_path(path)
    played: dict[str, Played | str] = {}
    headers: dict[str, Mapping[str, Any]] = {}
    for m in t.matches.values():
        rp = t.record_path(m)
        if rp is None:
            continue
        try:
            rec = load_record(rp)
            played[m.id] = played_from_record(rec, replay(rec, strict=False))
            headers[m.id] = rec
        except (RecordError, EngineError, OSError) as e:
            played[m.id] = str(e)
    s = standings(t, played)
    add_headers(t, s, headers)
    return SeasonTournament(tid or Path(path).stem, t, s, headers)


def add_headers(t: Tournament, s: Standings, headers: dict[str, Mapping[str, Any]]) -> None:
    """The register's rosters of the day for matches with no record (teams known)."""
    for r in s.matches:
        if r.id in headers:
            continue
        try:
            headers[r.id] = header(t, t.matches[r.id], r.teams)
        except (NotReady, KeyError):
            continue


def load_season(paths: Iterable[str | Path]) -> Season:
    """The season of the tournament files at ``paths``."""
    return season([from_file(p) for p in paths])


# ------------------------------------------------------------------------ CSV


def columns() -> list[str]:
    """The export's columns: one line per match."""
    cols = ["tournament", "venue", "match", "stage", "date", "time", "arena", "team_a", "team_b"]
    for side in ("a", "b"):
        for k in range(1, PLAYERS + 1):
            cols += [f"{side}{k}_name", f"{side}{k}_handicap"]
        cols.append(f"handicap_{side}")
    cols += ["status", "score_a", "score_b", "winner", "decided_by", "forfeited"]
    return cols


def season_csv(rows: Iterable[SeasonRow]) -> str:
    """CSV, one line per match, UTF-8, the columns of :func:`columns` (a roster beyond
    three players keeps its first three, No. 1-3)."""
    out = io.StringIO()
    w = csvsafe.writer(out, lineterminator="\n")
    w.writerow(columns())
    for r in rows:
        line: list[Any] = [r.tournament, r.venue, r.match, r.stage, r.date, r.time, r.arena,
                           r.team_a, r.team_b]  # fmt: skip
        for roster, total in ((r.roster_a, r.handicap_a), (r.roster_b, r.handicap_b)):
            for k in range(PLAYERS):
                p = roster[k] if k < len(roster) else None
                line += [p.name, p.handicap] if p is not None else ["", ""]
            line.append(total if roster else "")
        line += [
            r.status,
            "" if r.score_a is None else r.score_a,
            "" if r.score_b is None else r.score_b,
            r.winner,
            r.decided_by,
            r.forfeited,
        ]
        w.writerow(line)
    return out.getvalue()


def read_season_csv(text: str) -> list[SeasonRow]:
    """The rows of :func:`season_csv` (players numbered 1-3 in their order)."""
    rd = csv.DictReader(io.StringIO(text))
    missing = set(columns()) - set(rd.fieldnames or [])
    if missing:
        raise ValueError(f"season CSV: missing columns {', '.join(sorted(missing))}")
    out = []
    for raw in rd:
        d = {k: csvsafe.uncell(v or "") for k, v in raw.items()}

        def roster(side: str, d: Mapping[str, str] = d) -> tuple[RosterEntry, ...]:
            ps = []
            for k in range(1, PLAYERS + 1):
                name = d[f"{side}{k}_name"]
                hc = d[f"{side}{k}_handicap"]
                if name or hc:
                    ps.append(RosterEntry(k, name, int(hc or 0)))
            return tuple(ps)

        def num(v: str) -> int | None:
            return int(v) if v != "" else None

        out.append(
            SeasonRow(
                **{
                    f.name: d[f.name]
                    for f in fields(SeasonRow)
                    if f.name not in ("roster_a", "roster_b", "score_a", "score_b")
                },
                roster_a=roster("a"),
                roster_b=roster("b"),
                score_a=num(d["score_a"]),
                score_b=num(d["score_b"]),
            )
        )
    return out


