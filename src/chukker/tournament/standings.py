"""Results from the match records, round-robin tables and the order of finish.

Everything here is derived: each match's result comes from replaying its
record (or from a report the live service already has), the tables from the
results, the order of finish from the tables and the criteria in the
tournament's ``order_of_finish``, in turn:

* teams equal on every criterion so far form a **group**; the next criterion
  orders the group; teams still equal go on to the following criterion;
* ``head_to_head`` counts wins only in the matches between the teams of the
  group being ordered;
* ``lot``/``shootout`` take the order recorded in ``decided`` for the stage;
  until one is recorded the teams stay tied and are reported as waiting;
* teams equal after the last criterion share a place (the next team's place
  counts the teams above it: 1, 2, 2, 4).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chukker.tournament.model import DECIDERS, MatchSpec, Stage, TeamRef, Tournament

#: criterion -> (label, higher is better)
_NUMERIC: dict[str, tuple[str, bool]] = {
    "wins": ("won", True),
    "net_goals": ("net_goals", True),
    "goals_for": ("goals_for", True),
    "goals_against": ("goals_against", False),
}


@dataclass(frozen=True, slots=True)
class Played:
    """A match record, replayed: its report and its record's two team keys (A, B)."""

    keys: tuple[str, str]
    report: Mapping[str, Any]
    practice: bool = False


@dataclass(slots=True)
class MatchResult:
    id: str
    stage: str
    status: str
    teams: tuple[str | None, str | None]
    score: tuple[int, int] | None = None
    winner: str | None = None
    decided_by: str | None = None
    forfeited: tuple[str, ...] = ()
    error: str | None = None
    report: Mapping[str, Any] | None = None

    @property
    def final(self) -> bool:
        """A result that counts: a final record (a practice record never counts)."""
        return self.status == "final" and None not in self.teams

    @property
    def loser(self) -> str | None:
        if not self.final or self.winner is None:
            return None
        a, b = self.teams
        return b if self.winner == a else a

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "teams": list(self.teams),
            "score": list(self.score) if self.score is not None else None,
            "winner": self.winner,
        }


@dataclass(slots=True)
class Row:
    team: str
    played: int = 0
    won: int = 0
    lost: int = 0
    goals_for: int = 0
    goals_against: int = 0
    place: int = 0
    decided_by: str | None = None

    @property
    def net_goals(self) -> int:
        return self.goals_for - self.goals_against

    def value(self, name: str) -> int:
        v: int = getattr(self, name)
        return v

    def to_json(self) -> dict[str, Any]:
        return {
            "place": self.place,
            "team": self.team,
            "played": self.played,
            "won": self.won,
            "lost": self.lost,
            "goals_for": self.goals_for,
            "goals_against": self.goals_against,
            "net_goals": self.net_goals,
            "decided_by": self.decided_by,
        }


@dataclass(frozen=True, slots=True)
class Reason:
    """Why ``above`` is placed above ``below``: the criterion and the values compared."""

    above: str
    below: str
    criterion: str
    values: tuple[int, int] | None = None
    among: tuple[str, ...] = ()

    def text(self, name: Callable[[str], str] = str) -> str:
        a, b = name(self.above), name(self.below)
        if self.criterion == "head_to_head" and self.values is not None:
            group = ", ".join(name(x) for x in self.among)
            return (
                f"{a} above {b}: head-to-head wins among {group}, "
                f"{self.values[0]} to {self.values[1]}"
            )
        if self.criterion in DECIDERS:
            return f"{a} above {b}: {self.criterion.replace('_', ' ')} (as decided)"
        label = self.criterion.replace("_", " ")
        assert self.values is not None
        return f"{a} above {b}: {label} {self.values[0]} to {self.values[1]}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "above": self.above,
            "below": self.below,
            "criterion": self.criterion,
            "values": list(self.values) if self.values is not None else None,
        }
        if self.among:
            out["among"] = list(self.among)
        return out


@dataclass(frozen=True, slots=True)
class Waiting:
    teams: tuple[str, ...]
    by: str

    def to_json(self) -> dict[str, Any]:
        return {"teams": list(self.teams), "for": self.by}


@dataclass(slots=True)
class StageStandings:
    id: str
    kind: str
    #: every match of the stage is final (its order may still wait for a lot)
    complete: bool
    table: list[Row] = field(default_factory=list)
    waiting: list[Waiting] = field(default_factory=list)
    reasons: list[Reason] = field(default_factory=list)
    matches: list[str] = field(default_factory=list)
    #: elimination stages: the entrants with a bye (``match``, ``team`` once known, ``slot``)
    byes: list[dict[str, Any]] = field(default_factory=list)

    def team_at(self, place: int) -> str | None:
        """The team alone in ``place`` once the stage's order is complete (every match
        final, nothing waiting for a lot or a shootout), else ``None``."""
        if not self.complete or self.waiting:
            return None
        found = [r.team for r in self.table if r.place == place]
        return found[0] if len(found) == 1 else None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "complete": self.complete,
            "table": [r.to_json() for r in self.table],
            "waiting": [w.to_json() for w in self.waiting],
            "reasons": [r.to_json() for r in self.reasons],
        } | ({"byes": self.byes} if self.kind == "single-elimination" else {})


@dataclass(slots=True)
class Standings:
    name: str
    stages: list[StageStandings]
    matches: list[MatchResult]

    def stage(self, stage_id: str) -> StageStandings:
        for s in self.stages:
            if s.id == stage_id:
                return s
        raise KeyError(stage_id)

    def match(self, match_id: str) -> MatchResult:
        for m in self.matches:
            if m.id == match_id:
                return m
        raise KeyError(match_id)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "stages": [s.to_json() for s in self.stages],
            "matches": [m.to_json() for m in self.matches],
        }


# ---------------------------------------------------------------------------- replaying


def replay_record(path: Path) -> Played:
    """Replay one record file; raises ``RecordError``/``EngineError`` (or ``OSError``)."""
    from chukker.record import load_path, replay

    rec = load_path(path)
    return played_from_record(rec, replay(rec, strict=False))  # load_path checked it


def played_from_record(record: Mapping[str, Any], report: Mapping[str, Any]) -> Played:
    keys = list(record.get("teams", {}))
    opts = record.get("options")
    practice = isinstance(opts, Mapping) and bool(opts.get("practice"))
    return Played((str(keys[0]), str(keys[1])), report, practice)


def replay_all(t: Tournament) -> dict[str, Played | str]:
    """Each match's replayed record, or the reason it could not be replayed."""
    from chukker.engine import EngineError
    from chukker.record import RecordError

    out: dict[str, Played | str] = {}
    for m in t.matches.values():
        path = t.record_path(m)
        if path is None:
            continue
        try:
            out[m.id] = replay_record(path)
        except (RecordError, EngineError) as e:
            out[m.id] = str(e)
    return out


# ---------------------------------------------------------------------------- results


class _Resolver:
    def __init__(self, t: Tournament, played: Mapping[str, Played | str]) -> None:
        self.t = t
        self.played = played
        self.results: dict[str, MatchResult] = {}
        self.stage_cache: dict[str, StageStandings] = {}
        self.busy: set[str] = set()

    def team(self, ref: TeamRef) -> str | None:
        if ref.team is not None:
            return ref.team if ref.team in self.t.teams else None
        key = ref.describe()
        if key in self.busy:
            return None  # a cycle; ``check`` reports it
        self.busy.add(key)
        try:
            if ref.stage is not None:
                if ref.stage not in self.t.stages or ref.place is None:
                    return None
                return self.stage(ref.stage).team_at(ref.place)
            mid = ref.winner_of or ref.loser_of
            if mid is None or mid not in self.t.matches:
                return None
            r = self.result(mid)
            return r.winner if ref.winner_of is not None else r.loser
        finally:
            self.busy.discard(key)

    def result(self, mid: str) -> MatchResult:
        if mid in self.results:
            return self.results[mid]
        m = self.t.matches[mid]
        teams = (self.team(m.teams[0]), self.team(m.teams[1]))
        res = _result(m, teams, self.played.get(mid))
        self.results[mid] = res
        return res

    def stage(self, sid: str) -> StageStandings:
        if sid not in self.stage_cache:
            st = self.t.stages[sid]
            ms = [self.result(m.id) for m in self.t.matches.values() if m.stage == sid]
            if st.kind == "round-robin":
                self.stage_cache[sid] = round_robin(self.t, st, ms)
            else:
                from chukker.tournament.bracket import byes

                done = bool(ms) and all(r.final and r.winner is not None for r in ms)
                self.stage_cache[sid] = StageStandings(
                    st.id, st.kind, done, matches=[r.id for r in ms]
                )
                self.stage_cache[sid].byes = [
                    {"match": b.match, "team": self.team(b.ref), "slot": b.ref.describe()}
                    for b in byes(self.t, sid)
                ]
        return self.stage_cache[sid]


def record_teams(
    keys: tuple[str, str], teams: tuple[str | None, str | None]
) -> dict[str, str | None]:
    """The tournament team of each of a record's two team keys: by position (the
    record's first team is the match's first), unless the keys are the teams' ids."""
    if set(keys) == set(teams) and None not in teams:
        return {k: k for k in keys}
    return {keys[0]: teams[0], keys[1]: teams[1]}


def _result(
    m: MatchSpec, teams: tuple[str | None, str | None], p: Played | str | None
) -> MatchResult:
    if p is None:
        return MatchResult(m.id, m.stage, "scheduled", teams)
    if isinstance(p, str):
        return MatchResult(m.id, m.stage, "refused", teams, error=p)
    rep = p.report
    a, b = p.keys
    status = str(rep.get("status", "pre_match"))
    if p.practice:
        status = "practice"
    score_d = rep.get("score", {})
    by_key = record_teams(p.keys, teams)
    if by_key[a] == teams[1] and by_key[b] == teams[0] and teams[0] != teams[1]:
        a, b = b, a  # the score in the match's order of teams
    score = (int(score_d.get(a, 0)), int(score_d.get(b, 0)))
    win = rep.get("winner")
    winner = by_key.get(win) if isinstance(win, str) else None
    forf = tuple(x for k in rep.get("forfeited", []) if (x := by_key.get(k)) is not None)
    if status != "final":
        winner = None
    return MatchResult(
        m.id, m.stage, status, teams, score, winner, rep.get("decided_by"), forf, report=rep
    )


def round_robin(t: Tournament, st: Stage, results: Sequence[MatchResult]) -> StageStandings:
    """The stage's table and order of finish from its matches' results."""
    team_ids = list(st.teams)
    for r in results:
        for x in r.teams:
            if x is not None and x not in team_ids:
                team_ids.append(x)
    rows = {x: Row(x) for x in team_ids}
    finals = [r for r in results if r.final]
    for r in finals:
        a, b = r.teams
        assert a is not None and b is not None
        ra, rb = rows[a], rows[b]
        ra.played += 1
        rb.played += 1
        if r.forfeited:
            # a forfeit: a win for the team that did not forfeit, goals left out;
            # both forfeiting: both lose
            for x, row in ((a, ra), (b, rb)):
                if x in r.forfeited:
                    row.lost += 1
                else:
                    row.won += 1
            continue
        assert r.score is not None
        ra.goals_for += r.score[0]
        ra.goals_against += r.score[1]
        rb.goals_for += r.score[1]
        rb.goals_against += r.score[0]
        if r.winner == a:
            ra.won += 1
            rb.lost += 1
        elif r.winner == b:
            rb.won += 1
            ra.lost += 1

    def h2h(group: Sequence[str]) -> dict[str, int]:
        g = set(group)
        wins = dict.fromkeys(group, 0)
        for r in finals:
            if r.teams[0] in g and r.teams[1] in g and r.winner in g:
                wins[r.winner] += 1
        return wins

    decided = [d for d in t.decided if d.stage == st.id]
    tiers, reasons, waiting = order_of_finish(sorted(team_ids), t.criteria, rows, h2h, decided)
    table: list[Row] = []
    above = 0
    for i, tier in enumerate(tiers):
        for j, x in enumerate(tier):
            row = rows[x]
            row.place = above + 1
            last = j == len(tier) - 1
            row.decided_by = reasons[i].criterion if last and i < len(reasons) else None
            table.append(row)
        above += len(tier)
    # ``complete``: every match of the stage is final (as in the contract's example, a
    # complete stage may still wait for a lot); its order is complete once nothing waits
    complete = bool(results) and all(r.final for r in results)
    return StageStandings(
        st.id, st.kind, complete, table, waiting, reasons, [r.id for r in results]
    )


def order_of_finish(
    teams: Sequence[str],
    criteria: Sequence[str],
    rows: Mapping[str, Row],
    h2h: Callable[[Sequence[str]], Mapping[str, int]],
    decided: Sequence[Any],
) -> tuple[list[list[str]], list[Reason], list[Waiting]]:
    """Tiers of equal teams (best first), the reason between each tier and the next, and
    the groups waiting for a lot or a shootout."""
    tiers: list[list[str]] = []
    reasons: list[Reason] = []
    waiting: list[Waiting] = []

    def emit(group: list[str]) -> None:
        tiers.append(group)

    def split(group: list[str], ci: int) -> None:
        if len(group) == 1 or ci >= len(criteria):
            emit(group)
            return
        c = criteria[ci]
        values: dict[str, int]
        if c in DECIDERS:
            chosen = None
            for d in decided:
                if d.by == c and set(group) <= set(d.order):
                    chosen = d
            if chosen is None:
                waiting.append(Waiting(tuple(group), c))
                emit(group)
                return
            pos = {x: i for i, x in enumerate(chosen.order)}
            values = {x: -pos[x] for x in group}
        elif c == "head_to_head":
            values = dict(h2h(group))
        else:
            attr, higher = _NUMERIC[c]
            values = {
                x: rows[x].value(attr) if attr != "net_goals" else rows[x].net_goals for x in group
            }
            if not higher:
                values = {x: -v for x, v in values.items()}
        levels = sorted(set(values.values()), reverse=True)
        subgroups = [[x for x in group if values[x] == v] for v in levels]
        for k, sub in enumerate(subgroups):
            split(sub, ci + 1)
            if k + 1 < len(subgroups):
                # the boundary after the last tier emitted so far
                bounds.append((len(tiers) - 1, c, values, tuple(group)))

    bounds: list[tuple[int, str, dict[str, int], tuple[str, ...]]] = []
    split(list(teams), 0)
    for i, c, values, group in sorted(bounds, key=lambda b: b[0]):
        above, below = tiers[i][-1], tiers[i + 1][0]
        shown: tuple[int, int] | None = None
        if c not in DECIDERS:
            sign = -1 if c == "goals_against" else 1
            shown = (sign * values[above], sign * values[below])
        reasons.append(Reason(above, below, c, shown, group if c == "head_to_head" else ()))
    return tiers, reasons, waiting


def standings(t: Tournament, played: Mapping[str, Played | str] | None = None) -> Standings:
    """The tournament's standings: every stage's order and every match's result."""
    res = _Resolver(t, replay_all(t) if played is None else played)
    stages = [res.stage(s) for s in t.stages]
    matches = [res.result(m) for m in t.matches]
    return Standings(t.name, stages, matches)


