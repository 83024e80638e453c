"""The match set-up: edition, committee options and rosters (Rule 3, Rule 5, Rule 17).

>>> s = Setup.from_dict({"teams": {
...     "A": {"name": "Blue", "captain": 2, "players": [
...         {"no": 1, "name": "Ann", "handicap": 2}, {"no": 2, "name": "Bea", "handicap": 3},
...         {"no": 3, "name": "Cat", "handicap": 1}]},
...     "B": {"name": "White", "captain": 1, "players": [
...         {"no": 1, "name": "Dee", "handicap": 4}, {"no": 2, "name": "Eve", "handicap": 3},
...         {"no": 3, "name": "Fay", "handicap": 1}]}}})
>>> s.team_ids, s.handicap_goals()
(('A', 'B'), {'A': 2, 'B': 0})
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from chukker.engine.errors import SetupError, show
from chukker.engine.options import (
    Options,
    by_fields,
    read_options,
    remember,
)
from chukker.engine.plan import Plan, check_plan, plan_dict, read_plan
from chukker.engine.types import End, ShootoutPlayers
from chukker.rules.club import CLUB, ClubError, club_edition
from chukker.rules.editions import EDITIONS, Edition, PeriodPlan, edition, introduced_in

FORMAT = "chukker-match/1"
DEFAULT_RULES = "uspa-arena-2026"
_TEAM_ID = re.compile(r"^[A-Za-z0-9_-]{1,16}$")
#: a mount's id (record 1.2): 1-32 characters of ``[a-z0-9-]``
MOUNT_ID = re.compile(r"^[a-z0-9-]{1,32}$")
MOUNTS_MAX = 64
#: Rule 3: the alternates a team may list
ALTERNATES_MAX = 12
_MOUNT_KEYS = frozenset({"id", "name", "owner"})
_TEAM_KEYS = frozenset({"name", "captain", "players", "alternates", "mounts", "plan"})


@dataclass(frozen=True, slots=True)
class Player:
    no: int
    name: str = ""
    handicap: int = 0

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)

    def to_dict(self) -> dict[str, Any]:
        return {"no": self.no, "name": self.name, "handicap": self.handicap}


@dataclass(frozen=True, slots=True)
class Mount:
    """A horse on a team's list (record 1.2, ``teams.X.mounts``)."""

    id: str
    name: str = ""
    owner: str | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "name": self.name}
        if self.owner is not None:
            out["owner"] = self.owner
        return out


@dataclass(frozen=True, slots=True)
class Team:
    id: str
    name: str
    captain: int
    players: tuple[Player, ...]
    extra: tuple[tuple[str, Any], ...] = ()
    #: players who may come in (Rule 3; Penalty 7; Rule 16), numbers unique in the team
    alternates: tuple[Player, ...] = ()
    #: the team's string of mounts (record 1.2); empty: mounts are not kept
    mounts: tuple[Mount, ...] = ()
    #: the grooms' plan (record 1.3): (player, (mount id, ...)), by player number
    plan: Plan = ()

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)

    @property
    def handicap(self) -> int:
        """Rule 17: the aggregate of the players' handicaps."""
        return sum(p.handicap for p in self.players)

    def player(self, no: int) -> Player:
        for p in self.players + self.alternates:
            if p.no == no:
                return p
        raise KeyError(no)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "captain": self.captain,
            "players": [p.to_dict() for p in self.players],
        }
        if self.alternates:
            out["alternates"] = [p.to_dict() for p in self.alternates]
        if self.mounts:
            out["mounts"] = [m.to_dict() for m in self.mounts]
        if self.plan:
            out["plan"] = plan_dict(self.plan)
        out.update(self.extra)
        return out


@dataclass(frozen=True, slots=True)
class Setup:
    """Everything about a match but its events."""

    rules: str
    edition: Edition
    options: Options
    teams: tuple[Team, Team]
    extra: tuple[tuple[str, Any], ...] = field(default=())

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)

    @property
    def team_ids(self) -> tuple[str, str]:
        return (self.teams[0].id, self.teams[1].id)

    @property
    def plan(self) -> PeriodPlan:
        plan = self.edition.plan(str(self.options.periods))
        if self.options.practice is None:
            return plan
        period, interval = self.options.practice
        return PeriodPlan(plan.count, period, (interval,) * (plan.count - 1), "practice")

    def interval_ms(self, value: int) -> int:
        """An interval of the edition (extra periods, shootout), shortened in practice."""
        return value if self.options.practice is None else self.options.practice[1]

    def team(self, team_id: str) -> Team:
        for t in self.teams:
            if t.id == team_id:
                return t
        raise KeyError(team_id)

    def other(self, team_id: str) -> str:
        a, b = self.team_ids
        return b if team_id == a else a

    def defends(self, period: int) -> dict[str, End]:
        """Rule 8: the goal each team defends in ``period`` (ends change every period)."""
        a, b = self.team_ids
        fd = dict(self.options.first_defends or ((a, End.WEST), (b, End.EAST)))
        if period % 2 == 0:
            return {t: e.other() for t, e in fd.items()}
        return fd

    def handicap_goals(self) -> dict[str, int]:
        """Rule 17: goals awarded to the team with the lower handicap.

        In a match of other than four periods each team's handicap is divided by
        four, multiplied by the number of periods and rounded half up, then the
        difference is taken.
        """
        a, b = self.teams
        if not self.options.handicap:
            return {a.id: 0, b.id: 0}
        n = self.edition.plan(str(self.options.periods)).count  # practice keeps the count
        base = self.edition.handicap_base_periods.value

        def scaled(h: int) -> int:
            if n == base:
                return h
            # floor(h * n / base + 1/2), exactly, in integers
            return (2 * h * n + base) // (2 * base)

        ha, hb = scaled(a.handicap), scaled(b.handicap)
        return {a.id: max(hb - ha, 0), b.id: max(ha - hb, 0)}

    def rules_report(self) -> dict[str, Any]:
        """The report's ``rules``: the edition, and a club edition's name, base and the
        parameters it changed (record 1.3)."""
        club = self.edition.club
        if club is None:
            return {"edition": str(self.edition.id), "title": self.edition.title}
        return {"edition": CLUB, "title": club.name, "name": club.name, "base": club.base,
                "changed": list(club.changed), "without": list(club.without),
                "clause": club.clause}

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "rules": self.rules,
            "options": self.options.to_dict(),
            "teams": {t.id: t.to_dict() for t in self.teams},
        }
        out.update(self.extra)
        return out

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any]) -> Setup:
        """Validate a record's header; raise :class:`SetupError` naming the field."""
        if type(doc) is not dict and not isinstance(doc, Mapping):
            raise SetupError("record", "must be an object", "setup_not_an_object")
        fmt = doc.get("format", FORMAT)
        if fmt != FORMAT:
            raise SetupError("format", f"unsupported format {fmt!r} (expected {FORMAT!r})",
                             "setup_format", value=show(fmt), expected=show(FORMAT))
        rules = doc.get("rules", DEFAULT_RULES)
        if not isinstance(rules, str):
            raise SetupError("rules", "must be a string", "setup_not_a_string")
        if rules == CLUB:
            try:
                ed = club_edition(doc.get("edition"))
            except ClubError as e:
                raise SetupError(e.path, e.reason, e.code, **{
                    k: v for k, v in e.params.items() if k != "path"}) from None
        else:
            try:
                ed = edition(rules)
            except ValueError as e:
                raise SetupError("rules", str(e).removeprefix("rules: "),
                                 "setup_unknown_edition", value=show(rules),
                                 known=list(EDITIONS)) from None
            if "edition" in doc:
                raise SetupError("edition", "an edition object goes with \"rules\": \"club\"",
                                 "club_edition_without_club")
        teams_doc = doc.get("teams")
        if type(teams_doc) is not dict and not isinstance(teams_doc, Mapping):
            raise SetupError("teams", "missing: a record has exactly two teams",
                             "setup_teams_missing")
        if len(teams_doc) != 2:
            raise SetupError("teams", f"a match has exactly two teams, got {len(teams_doc)}",
                             "setup_teams_count", got=len(teams_doc))
        (ka, va), (kb, vb) = teams_doc.items()
        teams = (_team(str(ka), va, ed), _team(str(kb), vb, ed))
        if teams[0].mounts and teams[1].mounts:
            _one_team_per_mount(teams[0], teams[1])
        for t, o in ((teams[0], teams[1]), (teams[1], teams[0])):
            if t.plan:
                check_plan(t.id, t.plan, [p.no for p in t.players + t.alternates],
                           [m.id for m in t.mounts], o.id, [m.id for m in o.mounts],
                           team_name=t.name, names=[m.name for m in t.mounts])
        options = read_options(doc.get("options", {}), (teams[0].id, teams[1].id))
        _edition_has(ed, options)
        _club_fits(ed, options)
        extra = () if doc.keys() <= _KNOWN else tuple(
            (k, v) for k, v in doc.items() if k not in _KNOWN)
        return cls(rules, ed, options, teams, extra)


#: the header's fields the set-up reads (any other is kept in ``extra``, in order)
_KNOWN: Final = frozenset({"format", "rules", "options", "teams", "events"})


def _one_team_per_mount(a: Team, b: Team) -> None:
    """Rule 2: "No mount may be played by more than one team": the same id on both lists."""
    ids = {m.id for m in a.mounts}
    for i, m in enumerate(b.mounts):
        if m.id in ids:
            raise SetupError(
                f"teams.{b.id}.mounts[{i}].id",
                f"Rule 2: no mount may be played by more than one team; {m.id} is listed "
                f"by {a.id} and {b.id}",
                "mount_two_teams",
                mount=m.id,
                a=a.id,
                b=b.id,
            )


def _mounts(path: str, doc: Any) -> tuple[Mount, ...]:
    if not isinstance(doc, list) or len(doc) > MOUNTS_MAX:
        raise SetupError(path, f"must be a list of at most {MOUNTS_MAX} mounts",
                         "setup_mounts_list", max=MOUNTS_MAX)
    out: list[Mount] = []
    seen: set[str] = set()
    match = MOUNT_ID.match
    for i, m in enumerate(doc):
        if type(m) is dict and m.keys() <= _MOUNT_KEYS:
            # the common, clean case (the record's loader has checked the text already)
            mid, name, owner = m.get("id"), m.get("name", ""), m.get("owner")
            if (type(mid) is str and match(mid) and mid not in seen and type(name) is str
                    and (owner is None or type(owner) is str)):
                seen.add(mid)
                out.append(Mount(mid, name, owner))
                continue
        mpath = f"{path}[{i}]"
        if not isinstance(m, Mapping) or set(m) - {"id", "name", "owner"}:
            raise SetupError(mpath, "must be an object with id, name and owner",
                             "setup_mount_not_an_object")
        mid = m.get("id")
        if not isinstance(mid, str) or not MOUNT_ID.match(mid):
            raise SetupError(
                f"{mpath}.id", "a mount's id is 1-32 characters of a-z, 0-9 and -", "mount_id"
            )
        if mid in seen:
            raise SetupError(
                f"{mpath}.id", f"mount {mid} is listed twice", "mount_listed_twice", mount=mid
            )
        seen.add(mid)
        name = m.get("name", "")
        owner = m.get("owner")
        if not isinstance(name, str):
            raise SetupError(f"{mpath}.name", "must be a string", "setup_not_a_string")
        if owner is not None and not isinstance(owner, str):
            raise SetupError(f"{mpath}.owner", "must be a string", "setup_not_a_string")
        out.append(Mount(mid, name, owner))
    return tuple(out)


def _club_fits(ed: Edition, options: Options) -> None:
    """A club's values that each are in range but cannot be played with these options:
    a split or a warning horn that would come at or after the period's end."""
    if ed.club is None:
        return
    length = ed.plan(str(options.periods)).length_ms
    for on, param, key in ((options.split_periods, ed.split_after_ms, "split_after_s"),
                           (options.warning_horn, ed.warning_at_ms, "warning_at_s")):
        if on and param.value >= length:
            raise SetupError(f"edition.{key}", "must be shorter than the period it falls in",
                             "club_past_period_end", value_ms=param.value, length_ms=length)


def _edition_has(ed: Edition, options: Options) -> None:
    """Refuse an option the edition's text does not have, naming the edition that has it."""
    wanted = []
    if options.split_periods:
        wanted.append(("options.split_periods", "split_periods"))
    if options.shootout_players is ShootoutPlayers.ONE:
        wanted.append(("options.shootout_players", "shootout_players_one"))
    for path, feature in wanted:
        if not ed.has(feature):
            first = introduced_in(feature)
            raise SetupError(
                path,
                f"{feature} is not in the {ed.id} rules; it comes with {first}",
                "not_in_edition",
                feature=feature,
                edition=str(ed.id),
                introduced_in=first,
            )


#: the players made, by (number, name, handicap), each checked (see :func:`_player`)
_PLAYERS: dict[tuple[int, str, int], Player] = {}


def _player(no: int, name: str, handicap: int) -> Player:
    """``Player(no, name, handicap)`` (each of its exact type: ``True`` is not ``1`` here),
    the one made before for the same three values."""
    key = (no, name, handicap)
    p = _PLAYERS.get(key)
    if p is None:
        p = Player(no, name, handicap)
        remember(_PLAYERS, key, p)
    return p


def _int(path: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SetupError(path, f"must be a whole number, got {value!r}", "setup_not_whole",
                         value=show(value))
    return value


def _team(team_id: str, doc: Any, ed: Edition) -> Team:
    path = f"teams.{team_id}"
    if not _TEAM_ID.match(team_id):
        raise SetupError(
            path, "a team key is a short identifier (letters, digits, - or _)", "team_key"
        )
    if type(doc) is not dict and not isinstance(doc, Mapping):
        raise SetupError(path, "must be an object with name, captain and players",
                         "setup_team_not_an_object")
    name = doc.get("name", team_id)
    if not isinstance(name, str):
        raise SetupError(f"{path}.name", "must be a string", "setup_not_a_string")
    n = ed.players_per_team.value
    players_doc = doc.get("players")
    if not isinstance(players_doc, list) or len(players_doc) != n:
        got = len(players_doc) if isinstance(players_doc, list) else "none"
        raise SetupError(
            f"{path}.players",
            f"Rule 3: an arena team has {n} players numbered 1-{n}, got {got}",
            "players_count",
            count=n,
            got=got,
        )
    players: list[Player] = []
    for i, p in enumerate(players_doc):
        if type(p) is not dict and not isinstance(p, Mapping):
            raise SetupError(f"{path}.players[{i}]", "must be an object with no, name and handicap",
                             "setup_player_not_an_object")
        no = p.get("no")
        pname = p.get("name", "")
        hcp = p.get("handicap", 0)
        if type(no) is not int or type(pname) is not str or type(hcp) is not int:
            # the path is spelled out only for a refusal
            ppath = f"{path}.players[{i}]"
            no = _int(f"{ppath}.no", no)
            if not isinstance(pname, str):
                raise SetupError(f"{ppath}.name", "must be a string", "setup_not_a_string")
            hcp = _int(f"{ppath}.handicap", hcp)
            players.append(Player(no, pname, hcp))  # an int's subclass kept as it came
        else:
            players.append(_player(no, pname, hcp))
    numbers = [p.no for p in players]
    if numbers != _numbered(n):  # not 1-n in order: sorted, then checked
        numbers.sort()
        players.sort(key=_no)
    if numbers != _numbered(n):
        raise SetupError(
            f"{path}.players",
            f"Rule 3: players are numbered 1-{n}, each once; got {sorted(numbers)}",
            "players_numbering",
            count=n,
            got=sorted(numbers),
        )
    if "captain" not in doc:
        raise SetupError(
            f"{path}.captain", "Rule 3: each team designates one captain", "captain_missing"
        )
    captain = doc.get("captain")
    if type(captain) is not int:
        captain = _int(f"{path}.captain", captain)
    if captain not in numbers:
        raise SetupError(
            f"{path}.captain",
            f"Rule 3: the captain is one of players 1-{n}",
            "captain_not_a_player",
            count=n,
        )
    alternates: list[Player] = []
    alt_doc = doc.get("alternates", [])
    if not isinstance(alt_doc, list) or len(alt_doc) > ALTERNATES_MAX:
        raise SetupError(
            f"{path}.alternates",
            f"must be a list of at most {ALTERNATES_MAX} players",
            "setup_alternates_list",
            max=ALTERNATES_MAX,
        )
    seen = set(numbers)
    for i, p in enumerate(alt_doc):
        ppath = f"{path}.alternates[{i}]"
        if not isinstance(p, Mapping):
            raise SetupError(ppath, "must be an object with no, name and handicap",
                             "setup_player_not_an_object")
        no = _int(f"{ppath}.no", p.get("no"))
        if not 1 <= no <= 99 or no in seen:
            raise SetupError(
                f"{ppath}.no",
                "Rule 3: numbers are 1-99 and unique within the team",
                "alternate_number",
            )
        seen.add(no)
        pname = p.get("name", "")
        if not isinstance(pname, str):
            raise SetupError(f"{ppath}.name", "must be a string", "setup_not_a_string")
        alternates.append(_player(no, pname, _int(f"{ppath}.handicap", p.get("handicap", 0))))
    mounts = _mounts(f"{path}.mounts", doc["mounts"]) if doc.get("mounts") is not None else ()
    plan = read_plan(f"{path}.plan", doc["plan"]) if doc.get("plan") is not None else ()
    extra = () if doc.keys() <= _TEAM_KEYS else tuple(
        (k, v) for k, v in doc.items() if k not in _TEAM_KEYS)
    return Team(team_id, name, captain, tuple(players), extra, tuple(alternates), mounts, plan)


def _no(p: Player) -> int:
    return p.no


#: 1-n, for each team size asked (Rule 3's numbering)
_NUMBERED: dict[int, list[int]] = {}


def _numbered(n: int) -> list[int]:
    """``[1, ..., n]``, made once per ``n`` (never changed by its callers)."""
    got = _NUMBERED.get(n)
    if got is None:
        got = _NUMBERED[n] = list(range(1, n + 1))
    return got
