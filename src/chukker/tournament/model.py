"""The tournament file, version 1 (``chukker-tournament/1``): TOML, or the same data as JSON.

Loading is lenient: a field of the wrong shape becomes a :class:`Problem` and
the rest of the file is still read, so ``chukker tournament check`` can list
every problem at once. Only text that cannot be parsed at all raises
:class:`TournamentError` (with its line and column).

>>> t = loads('''
... format = "chukker-tournament/1"
... name = "Cup"
... [[players]]
... id = "ann"
... name = "Ann"
... registered = [2026]
... handicaps = [{ from = 2026-01-01, value = 2 }]
... ''', "toml")
>>> t.name, t.players["ann"].handicap_on(dt.date(2026, 5, 1))
('Cup', 2)
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from chukker import limits
from chukker.engine.setup import MOUNT_ID, MOUNTS_MAX, Mount
from chukker.errors import ChukkerError
from chukker.record.io import RecordError
from chukker.record.io import parse as _parse_text
from chukker.tournament.problems import Problem, Subject, near, show
from chukker.tournament.refusals import MESSAGES as TOURNAMENT_REFUSALS

FORMAT = "chukker-tournament/1"
DEFAULT_CRITERIA: tuple[str, ...] = ("wins", "head_to_head", "net_goals", "goals_for", "lot")
CRITERIA: tuple[str, ...] = (
    "wins",
    "head_to_head",
    "net_goals",
    "goals_for",
    "goals_against",
    "lot",
    "shootout",
)
DECIDERS: tuple[str, ...] = ("lot", "shootout")
STAGE_KINDS: tuple[str, ...] = ("round-robin", "single-elimination")
HANDICAP_RANGE = (-2, 10)  # arena handicaps


class TournamentError(ChukkerError):
    """A tournament file that cannot be read at all (with line and column when known).

    ``code`` and ``params`` say why, as a refusal of the record's or the tournament's
    (:mod:`chukker.record.errors`, :mod:`chukker.tournament.refusals`): by default
    ``not_well_formed`` with the reader's own English as its ``detail``. :attr:`cause`
    is the same as a nested refusal, after the line and column when known.

    >>> e = TournamentError("Invalid value", 1, 7)
    >>> str(e)
    'line 1, column 7: Invalid value'
    >>> e.cause["code"], e.cause["params"]["cause"]
    ('at_line', {'code': 'not_well_formed', 'params': {'detail': 'Invalid value'}})
    """

    def __init__(self, message: str, line: int | None = None, column: int | None = None,
                 *, code: str = "not_well_formed", **params: Any) -> None:
        self.line = line
        self.column = column
        self.code = code
        if code == "not_well_formed":
            params.setdefault("detail", message)
        self.params: dict[str, Any] = params
        where = f"line {line}, column {column}: " if line is not None else ""
        super().__init__(f"{where}{message}")

    @property
    def cause(self) -> dict[str, Any]:
        """Why, as a nested refusal ``{"code": ..., "params": ...}`` (``at_line`` around
        it when the line is known)."""
        reason = {"code": self.code, "params": dict(self.params)}
        if self.line is None:
            return reason
        return {"code": "at_line",
                "params": {"line": self.line, "column": self.column, "cause": reason}}


@dataclass(frozen=True, slots=True)
class HandicapChange:
    start: dt.date
    value: int


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    name: str
    registered: tuple[int, ...] = ()
    handicaps: tuple[HandicapChange, ...] = ()

    def handicap_on(self, day: dt.date) -> int | None:
        """The handicap in force on ``day``: the latest change from on or before it."""
        best: HandicapChange | None = None
        for h in self.handicaps:
            if h.start <= day and (best is None or h.start >= best.start):
                best = h
        return None if best is None else best.value

    def registered_for(self, year: int) -> bool:
        return year in self.registered

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "registered": list(self.registered),
            "handicaps": [{"from": h.start, "value": h.value} for h in self.handicaps],
        }


@dataclass(frozen=True, slots=True)
class Team:
    id: str
    name: str
    players: tuple[str, ...]
    alternates: tuple[str, ...] = ()
    captain: str | None = None
    #: the team's string for the event (issue 25; the match record's ``teams.X.mounts``)
    mounts: tuple[Mount, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name, "players": list(self.players)}
        if self.alternates:
            out["alternates"] = list(self.alternates)
        if self.captain is not None:
            out["captain"] = self.captain
        if self.mounts:
            out["mounts"] = [m.to_dict() for m in self.mounts]
        return out


@dataclass(frozen=True, slots=True)
class Stage:
    id: str
    kind: str
    teams: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind}
        if self.teams:
            out["teams"] = list(self.teams)
        return out


@dataclass(frozen=True, slots=True)
class TeamRef:
    """One side of a match: a team id, a place of a stage, or a match's winner or loser."""

    team: str | None = None
    stage: str | None = None
    place: int | None = None
    winner_of: str | None = None
    loser_of: str | None = None

    def to_value(self) -> str | dict[str, Any]:
        if self.team is not None:
            return self.team
        if self.stage is not None:
            return {"from": self.stage, "place": self.place}
        if self.winner_of is not None:
            return {"winner": self.winner_of}
        return {"loser": self.loser_of}

    def describe(self) -> str:
        if self.team is not None:
            return self.team
        if self.stage is not None:
            return f"{self.stage} #{self.place}"
        if self.winner_of is not None:
            return f"winner {self.winner_of}"
        return f"loser {self.loser_of}"


@dataclass(frozen=True, slots=True)
class MatchSpec:
    id: str
    stage: str
    teams: tuple[TeamRef, TeamRef]
    arena: str | None = None
    start: dt.datetime | None = None
    record: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "stage": self.stage}
        if self.arena is not None:
            out["arena"] = self.arena
        if self.start is not None:
            out["start"] = self.start
        out["teams"] = [r.to_value() for r in self.teams]
        if self.record is not None:
            out["record"] = self.record
        return out


@dataclass(frozen=True, slots=True)
class Decided:
    stage: str
    by: str
    order: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"stage": self.stage, "by": self.by, "order": list(self.order)}


@dataclass(slots=True)
class Tournament:
    """A tournament file, read. ``problems`` are those found while reading it."""

    name: str = ""
    rules: str = "uspa-arena-2026"
    venue: str = ""
    team_min: int | None = None
    team_max: int | None = None
    match_options: dict[str, Any] = field(default_factory=dict)
    criteria: tuple[str, ...] = DEFAULT_CRITERIA
    players: dict[str, Player] = field(default_factory=dict)
    teams: dict[str, Team] = field(default_factory=dict)
    stages: dict[str, Stage] = field(default_factory=dict)
    matches: dict[str, MatchSpec] = field(default_factory=dict)
    decided: list[Decided] = field(default_factory=list)
    base: Path | None = None
    problems: list[Problem] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)

    def match(self, match_id: str) -> MatchSpec:
        return self.matches[match_id]

    def record_path(self, m: MatchSpec) -> Path | None:
        if m.record is None:
            return None
        p = Path(m.record)
        if not p.is_absolute() and self.base is not None:
            p = self.base / p
        return p

    def team_name(self, team_id: str | None) -> str:
        if team_id is None:
            return "?"
        t = self.teams.get(team_id)
        return t.name if t and t.name else team_id

    def to_dict(self) -> dict[str, Any]:
        """The file's data (TOML-ready: dates stay dates)."""
        out: dict[str, Any] = {"format": FORMAT, "name": self.name, "rules": self.rules}
        if self.venue:
            out["venue"] = self.venue
        lim: dict[str, int] = {}
        if self.team_min is not None:
            lim["min"] = self.team_min
        if self.team_max is not None:
            lim["max"] = self.team_max
        if lim:
            out["team_handicap"] = lim
        out.update(self.extra)
        if self.match_options:
            out["match_options"] = dict(self.match_options)
        out["order_of_finish"] = {"criteria": list(self.criteria)}
        out["players"] = [p.to_dict() for p in self.players.values()]
        out["teams"] = [t.to_dict() for t in self.teams.values()]
        out["stages"] = [s.to_dict() for s in self.stages.values()]
        out["matches"] = [m.to_dict() for m in self.matches.values()]
        if self.decided:
            out["decided"] = [d.to_dict() for d in self.decided]
        return out


# ---------------------------------------------------------------------------- reading

#: the keys each table of the file may have (anything else is reported as unknown, with
#: its line and the nearest known key)
KEYS: dict[str, frozenset[str]] = {
    "tournament": frozenset(
        {
            "format", "name", "rules", "venue", "team_handicap", "match_options",
            "order_of_finish", "players", "teams", "stages", "matches", "decided", "mount_limits",
            "edition", "venue_hours",
        }
    ),
    "team_handicap": frozenset({"min", "max"}),
    "order_of_finish": frozenset({"criteria"}),
    "player": frozenset({"id", "name", "registered", "handicaps"}),
    "handicap": frozenset({"from", "value"}),
    "team": frozenset({"id", "name", "players", "alternates", "captain", "mounts"}),
    "stage": frozenset({"id", "kind", "teams"}),
    "match": frozenset({"id", "stage", "arena", "start", "teams", "record"}),
    "decided": frozenset({"stage", "by", "order"}),
}  # fmt: skip


#: known top-level tables that their own modules read from ``Tournament.extra``
EXTENSIONS = frozenset({"mount_limits", "edition", "venue_hours"})


def _option_keys() -> frozenset[str]:
    from chukker.record.definitions import OPTIONS

    return frozenset(OPTIONS)


class KeyLines:
    """Where each key is written in the text (for "line N: unknown key"): the lines of
    ``key =`` (TOML, bare or quoted, inline tables too) or ``"key":`` (JSON), in order.
    The text is scanned only when a key is looked up (a sound file is never scanned)."""

    def __init__(self, text: str = "", fmt: str = "toml") -> None:
        self.text, self.fmt = text, fmt
        self._lines: dict[str, list[int]] | None = None
        self.used: dict[str, int] = {}

    @property
    def lines(self) -> dict[str, list[int]]:
        if self._lines is None:
            import re

            if self.fmt == "json":
                pat = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:')
            else:
                pat = re.compile(
                    r'(?:^|[{,])\s*(?:"([^"]*)"|\'([^\']*)\'|([A-Za-z0-9_-]+))\s*='
                )
            found: dict[str, list[int]] = {}
            for n, line in enumerate(self.text.splitlines(), 1):
                for mt in pat.finditer(line):
                    key = next((g for g in mt.groups() if g is not None), "")
                    found.setdefault(key, []).append(n)
            self._lines = found
        return self._lines

    def take(self, key: str) -> int | None:
        """The line of the next not yet reported occurrence of ``key``."""
        found = self.lines.get(key, [])
        i = self.used.get(key, 0)
        self.used[key] = i + 1
        return found[i] if i < len(found) else (found[-1] if found else None)


class _Reader:
    def __init__(self, t: Tournament, lines: KeyLines | None = None) -> None:
        self.t = t
        self.lines = lines or KeyLines()

    def unknown_keys(self, subject: Subject, d: Mapping[str, Any], known: frozenset[str]) -> None:
        """One problem per unknown key: ``line 11: unknown key `tiebrake` (did you mean
        `tiebreak`?)``."""
        for k in d:
            if not isinstance(k, str) or k in known:
                continue
            line = self.lines.take(k)
            where: dict[str, int] = {"line": line} if line is not None else {}
            self.bad(subject, "unknown_key", **where, key=k, **near(k, known))

    def bad(self, subject: Subject, code: str, **params: str | int) -> None:
        self.t.problems.append(Problem.of(subject, code, **params))

    def string(
        self, subject: Subject, d: Mapping[str, Any], key: str, required: bool = True
    ) -> str:
        v = d.get(key)
        if v is None:
            if required:
                self.bad(subject, "missing_field", field=key)
            return ""
        if not isinstance(v, str):
            self.bad(subject, "not_a_string", field=key, value=show(v))
            return str(v)
        return v

    def int_(self, subject: Subject, v: Any, what: str, code: str = "not_whole") -> int | None:
        """``v`` if a whole number; else the problem ``code`` (``what`` is its field)."""
        if isinstance(v, bool) or not isinstance(v, int):
            named: dict[str, str] = {"field": what} if code == "not_whole" else {}
            self.bad(subject, code, **named, value=show(v))
            return None
        return v

    def id_list(self, subject: Subject, d: Mapping[str, Any], key: str) -> tuple[str, ...]:
        v = d.get(key, [])
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            self.bad(subject, "not_id_list", field=key)
            return ()
        return tuple(v)

    def table_list(self, doc: Mapping[str, Any], key: str) -> list[tuple[int, Mapping[str, Any]]]:
        v = doc.get(key, [])
        if not isinstance(v, list):
            self.bad(Subject.path(key), "not_table_list")
            return []
        out = []
        for i, x in enumerate(v):
            if not isinstance(x, Mapping):
                self.bad(Subject.path(key, i), "not_a_table")
                continue
            out.append((i, x))
        return out


def to_date(v: Any) -> dt.date | None:
    """A TOML date or an ISO ``YYYY-MM-DD`` string (JSON form); ``None`` if neither."""
    if isinstance(v, dt.datetime):
        return v.date()
    if isinstance(v, dt.date):
        return v
    if isinstance(v, str):
        try:
            return dt.date.fromisoformat(v[:10]) if len(v) >= 10 else None
        except ValueError:
            return None
    return None


def to_datetime(v: Any) -> dt.datetime | None:
    """A TOML local date-time or an ISO string (JSON form); venue-local, no time zone."""
    if isinstance(v, dt.datetime):
        return v.replace(tzinfo=None)
    if isinstance(v, dt.date):
        return dt.datetime.combine(v, dt.time())
    if isinstance(v, str):
        try:
            return dt.datetime.fromisoformat(v).replace(tzinfo=None)
        except ValueError:
            return None
    return None


def _team_ref(r: _Reader, subject: Subject, v: Any) -> TeamRef:
    if isinstance(v, str):
        return TeamRef(team=v)
    if isinstance(v, Mapping):
        if "from" in v:
            stage, place = v.get("from"), v.get("place")
            if not isinstance(stage, str):
                r.bad(subject, "from_not_a_stage", value=show(stage))
                return TeamRef(stage="?", place=0)
            p = r.int_(subject, place, "place")
            if p is not None and p < 1:
                r.bad(subject, "place_below_one", place=p)
            return TeamRef(stage=stage, place=p if p is not None else 0)
        if "winner" in v and isinstance(v["winner"], str):
            return TeamRef(winner_of=v["winner"])
        if "loser" in v and isinstance(v["loser"], str):
            return TeamRef(loser_of=v["loser"])
    r.bad(subject, "bad_team_ref", value=show(v))
    return TeamRef(team="?")


def _mounts(r: _Reader, subject: Subject, v: Any) -> tuple[Mount, ...]:
    """``teams[].mounts``: a list of ``{id, name, owner?}`` (ids as in the match record)."""
    if v is None:
        return ()
    if not isinstance(v, list) or len(v) > MOUNTS_MAX:
        r.bad(subject, "mounts_not_list", max=MOUNTS_MAX)
        return ()
    out: list[Mount] = []
    for k, m in enumerate(v):
        mid = m.get("id") if isinstance(m, Mapping) else None
        if not isinstance(mid, str) or not MOUNT_ID.match(mid):
            r.bad(subject, "mount_id", index=k)
            continue
        if any(x.id == mid for x in out):
            r.bad(subject, "mount_twice", mount=mid)
            continue
        name, owner = m.get("name", ""), m.get("owner")
        if not isinstance(name, str) or not (owner is None or isinstance(owner, str)):
            r.bad(subject, "mount_fields", mount=mid)
            continue
        out.append(Mount(mid, name, owner))
    return tuple(out)


def from_dict(
    doc: Mapping[str, Any], base: Path | None = None, lines: KeyLines | None = None
) -> Tournament:
    """A :class:`Tournament` from parsed TOML/JSON data; shape problems in ``.problems``
    (unknown keys too, with their line when ``lines`` says where they are written)."""
    t = Tournament(base=base)
    r = _Reader(t, lines)
    whole = Subject.of("tournament")
    r.unknown_keys(whole, doc, KEYS["tournament"])
    if limits.depth(doc) > limits.MAX_DEPTH:  # before any reader walks it
        r.bad(whole, "too_deep", max=limits.MAX_DEPTH)
        return t
    if not any(k in doc for k in ("teams", "matches", "stages", "players")):
        r.bad(whole, "not_a_tournament")  # read on: every other problem is listed too
    fmt = doc.get("format", FORMAT)
    if fmt != FORMAT:
        r.bad(Subject.path("format"), "unsupported_format", value=show(fmt),
              expected=repr(FORMAT))
    t.name = r.string(whole, doc, "name", required=False)
    t.rules = r.string(whole, doc, "rules", required=False) or "uspa-arena-2026"
    t.venue = r.string(whole, doc, "venue", required=False)
    t.extra = {k: v for k, v in doc.items() if k not in KEYS["tournament"] or k in EXTENSIONS}
    lim = doc.get("team_handicap", {})
    at = Subject.path("team_handicap")
    if not isinstance(lim, Mapping):
        r.bad(at, "team_handicap_not_table")
    else:
        r.unknown_keys(at, lim, KEYS["team_handicap"])
        if "min" in lim:
            t.team_min = r.int_(at, lim["min"], "min")
        if "max" in lim:
            t.team_max = r.int_(at, lim["max"], "max")
    mo = doc.get("match_options", {})
    at = Subject.path("match_options")
    if not isinstance(mo, Mapping):
        r.bad(at, "match_options_not_table")
    else:
        r.unknown_keys(at, mo, _option_keys())
        t.match_options = {k: v for k, v in mo.items() if k in _option_keys()}
    oof = doc.get("order_of_finish", {})
    at = Subject.path("order_of_finish")
    if isinstance(oof, Mapping):
        r.unknown_keys(at, oof, KEYS["order_of_finish"])
    crit = oof.get("criteria") if isinstance(oof, Mapping) else None
    if crit is not None:
        if not isinstance(crit, list) or not all(isinstance(c, str) for c in crit):
            r.bad(at, "criteria_not_list")
        else:
            for c in crit:
                if c not in CRITERIA:
                    r.bad(at, "unknown_criterion", value=show(c), **near(c, CRITERIA),
                          known=", ".join(CRITERIA))
            t.criteria = tuple(c for c in crit if c in CRITERIA)

    for i, p in r.table_list(doc, "players"):
        pid = p.get("id")
        subject = Subject.of("player", pid) if isinstance(pid, str) else Subject.path("players", i)
        if not isinstance(pid, str) or not pid:
            r.bad(subject, "id_missing")
            continue
        r.unknown_keys(subject, p, KEYS["player"])
        if pid in t.players:
            r.bad(subject, "duplicate_player")
            continue
        years: list[int] = []
        reg = p.get("registered", [])
        if not isinstance(reg, list):
            r.bad(subject, "registered_not_list")
            reg = []
        for y in reg:
            yy = r.int_(subject, y, "registered", "year_not_whole")
            if yy is not None:
                years.append(yy)
        changes: list[HandicapChange] = []
        hs = p.get("handicaps", [])
        if not isinstance(hs, list):
            r.bad(subject, "handicaps_not_list")
            hs = []
        for h in hs:
            if not isinstance(h, Mapping):
                r.bad(subject, "handicap_not_table", value=show(h))
                continue
            r.unknown_keys(subject, h, KEYS["handicap"])
            d = to_date(h.get("from"))
            v = r.int_(subject, h.get("value"), "value", "handicap_not_whole")
            if d is None:
                r.bad(subject, "handicap_from_not_date", value=show(h.get("from")))
                continue
            if v is None:
                continue
            lo, hi = HANDICAP_RANGE
            if not lo <= v <= hi:
                r.bad(subject, "handicap_range", value=v, day=d.isoformat(), lo=lo, hi=hi)
            changes.append(HandicapChange(d, v))
        starts = [c.start for c in changes]
        if len(set(starts)) != len(starts):
            r.bad(subject, "handicap_duplicate")
        changes.sort(key=lambda c: c.start)
        name = r.string(subject, p, "name", required=False) or pid
        t.players[pid] = Player(pid, name, tuple(years), tuple(changes))

    for i, tm in r.table_list(doc, "teams"):
        tid = tm.get("id")
        subject = Subject.of("team", tid) if isinstance(tid, str) else Subject.path("teams", i)
        if not isinstance(tid, str) or not tid:
            r.bad(subject, "id_missing")
            continue
        r.unknown_keys(subject, tm, KEYS["team"])
        if tid in t.teams:
            r.bad(subject, "duplicate_id")
            continue
        cap = tm.get("captain")
        if cap is not None and not isinstance(cap, str):
            r.bad(subject, "captain_not_id", value=show(cap))
            cap = None
        t.teams[tid] = Team(
            tid,
            r.string(subject, tm, "name", required=False) or tid,
            r.id_list(subject, tm, "players"),
            r.id_list(subject, tm, "alternates"),
            cap,
            _mounts(r, subject, tm.get("mounts")),
        )

    for i, s in r.table_list(doc, "stages"):
        sid = s.get("id")
        subject = Subject.of("stage", sid) if isinstance(sid, str) else Subject.path("stages", i)
        if not isinstance(sid, str) or not sid:
            r.bad(subject, "id_missing")
            continue
        r.unknown_keys(subject, s, KEYS["stage"])
        if sid in t.stages:
            r.bad(subject, "duplicate_id")
            continue
        kind = s.get("kind")
        if kind not in STAGE_KINDS:
            r.bad(subject, "unknown_stage_kind", kinds=", ".join(STAGE_KINDS), value=show(kind),
                  **(near(kind, STAGE_KINDS) if isinstance(kind, str) else {}))
            kind = "round-robin"
        t.stages[sid] = Stage(sid, str(kind), r.id_list(subject, s, "teams"))

    for i, m in r.table_list(doc, "matches"):
        mid = m.get("id")
        subject = Subject.of("match", mid) if isinstance(mid, str) else Subject.path("matches", i)
        if not isinstance(mid, str) or not mid:
            r.bad(subject, "id_missing")
            continue
        r.unknown_keys(subject, m, KEYS["match"])
        if mid in t.matches:
            r.bad(subject, "duplicate_id")
            continue
        teams_raw = m.get("teams")
        if not isinstance(teams_raw, list) or len(teams_raw) != 2:
            r.bad(subject, "not_two_teams")
            refs = (TeamRef(team="?"), TeamRef(team="?"))
        else:
            refs = (_team_ref(r, subject, teams_raw[0]), _team_ref(r, subject, teams_raw[1]))
        start = None
        if "start" in m:
            start = to_datetime(m["start"])
            if start is None:
                r.bad(subject, "bad_match_start", value=show(m["start"]))
        arena = m.get("arena")
        if arena is not None and not isinstance(arena, str):
            r.bad(subject, "arena_not_name", value=show(arena))
            arena = str(arena)
        rec = m.get("record")
        if rec is not None and not isinstance(rec, str):
            r.bad(subject, "record_not_path", value=show(rec))
            rec = None
        t.matches[mid] = MatchSpec(
            mid, r.string(subject, m, "stage"), (refs[0], refs[1]), arena, start, rec
        )

    for i, dd in r.table_list(doc, "decided"):
        subject = Subject.path("decided", i)
        r.unknown_keys(subject, dd, KEYS["decided"])
        by = dd.get("by")
        if by not in DECIDERS:
            r.bad(subject, "bad_decided_by", value=show(by))
            continue
        t.decided.append(
            Decided(r.string(subject, dd, "stage"), str(by), r.id_list(subject, dd, "order"))
        )
    return t


def format_of(path: str | Path) -> Literal["json", "toml"]:
    return "json" if str(path).lower().endswith(".json") else "toml"


def loads(text: str, fmt: Literal["json", "toml"] = "toml", base: Path | None = None) -> Tournament:
    """Parse the text; :class:`TournamentError` with line and column if malformed."""
    try:
        doc = _parse_text(text, fmt)
    except RecordError as e:
        msg = str(e)
        if e.line is not None:
            msg = msg.split(": ", 1)[1] if ": " in msg else msg
        code = e.code
        params = {k: v for k, v in e.params.items() if k not in ("line", "column")}
        if code == "record_not_an_object":
            code = "tournament_not_a_table"
            msg = TOURNAMENT_REFUSALS[code]
        raise TournamentError(msg, e.line, e.column, code=code, **params) from None
    return from_dict(doc, base, KeyLines(text, fmt))


def load_path(path: str | Path) -> Tournament:
    """Read a tournament file (``.json`` is JSON, anything else TOML)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        detail = str(e.strerror or e)
        raise TournamentError(f"cannot read {p}: {detail}", code="unreadable", path=str(p),
                              detail=detail) from None
    except UnicodeDecodeError:
        raise TournamentError(f"{p} is not UTF-8 text", code="not_utf8", path=str(p)) from None
    return loads(text, format_of(p), p.parent)


def _json_default(v: Any) -> Any:
    if isinstance(v, dt.date | dt.datetime):
        return v.isoformat()
    raise TypeError(type(v).__name__)


def dumps(t: Tournament, fmt: Literal["json", "toml"] = "toml") -> str:
    """The tournament as TOML (or JSON, dates as ISO strings)."""
    doc = t.to_dict()
    if fmt == "json":
        return json.dumps(doc, indent=2, ensure_ascii=False, default=_json_default) + "\n"
    import tomli_w

    return tomli_w.dumps(_no_nulls(doc))


def _no_nulls(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {k: _no_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, Sequence) and not isinstance(v, str):
        return [_no_nulls(x) for x in v]
    return v
