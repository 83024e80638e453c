"""The problems of a tournament file: a stable code, its params, the English template.

Every problem the parser (:mod:`chukker.tournament.model`), the checker
(:mod:`chukker.tournament.check`) and the mounts (:mod:`chukker.tournament.mounts`)
find is a :class:`Problem`: what it concerns (a :class:`Subject`, itself a code and
an id: ``team reds``, ``match a1``), a :class:`ProblemCode` and its :class:`Params`
(plain ``str``/``int``). The English sentence is the template here filled from the
params, so ``chukker tournament check`` prints what it always printed; the web says
the same in Spanish and Italian from the catalogues
``web/locales/{es,it}/LC_MESSAGES/tournament-problems.po`` (msgid = the template) with
:meth:`Problem.said`.

Templates are ``str.format`` templates. A param named in :data:`PARTS` (``line``,
``near``) is optional: when given it is said by its own template (``line 4: ``,
`` (did you mean `venue`?)``), when left out it says nothing.

A problem may carry the engine's refusal it comes from (its :class:`Cause`: the
:class:`~chukker.engine.SetupError`'s code and params, for ``match_options``): where the
engine has a sentence of its own for that code (:data:`chukker.engine.errors.MESSAGES`,
translated in ``refusals.po``; :func:`chukker.engine.errors.setup_sentence`), the
problem's ``{detail}`` is that sentence in the caller's language; the generic
``setup_invalid`` (the fallback, which the engine's set-up no longer raises) has none, and
``detail`` (the engine's English) is said as it is.

>>> p = Problem.of(Subject.of("team", "reds"), "unknown_player", player="zed")
>>> str(p)
'team reds: player zed is not in the register'
>>> str(p.code), p.params.as_dict()
('unknown_player', {'player': 'zed'})
>>> str(Problem.of(Subject.of("tournament"), "unknown_key", key="vneue", line=4, near="venue"))
'tournament: line 4: unknown key `vneue` (did you mean `venue`?)'
"""

from __future__ import annotations

import difflib
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from chukker.errors import ChukkerError


class SubjectCode(StrEnum):
    """What a problem concerns: a part of the file, named by its id."""

    TOURNAMENT = "tournament"
    PLAYER = "player"
    TEAM = "team"
    STAGE = "stage"
    MATCH = "match"
    MOUNT = "mount"
    #: a key or an entry of the file as written: ``team_handicap``, ``decided[0]``
    PATH = "path"


#: the English of each subject (msgids of ``tournament-problems.po``)
SUBJECTS: dict[SubjectCode, str] = {
    SubjectCode.TOURNAMENT: "tournament",
    SubjectCode.PLAYER: "player {id}",
    SubjectCode.TEAM: "team {id}",
    SubjectCode.STAGE: "stage {id}",
    SubjectCode.MATCH: "match {id}",
    SubjectCode.MOUNT: "mount {id}",
    SubjectCode.PATH: "{id}",
}


class ProblemCode(StrEnum):
    """Every kind of problem; the wire id is the value."""

    # reading the file (model.py)
    UNKNOWN_KEY = "unknown_key"
    TOO_DEEP = "too_deep"
    NOT_A_TOURNAMENT = "not_a_tournament"
    UNSUPPORTED_FORMAT = "unsupported_format"
    MISSING_FIELD = "missing_field"
    NOT_A_STRING = "not_a_string"
    NOT_WHOLE = "not_whole"
    YEAR_NOT_WHOLE = "year_not_whole"
    HANDICAP_NOT_WHOLE = "handicap_not_whole"
    NOT_ID_LIST = "not_id_list"
    NOT_TABLE_LIST = "not_table_list"
    NOT_A_TABLE = "not_a_table"
    FROM_NOT_A_STAGE = "from_not_a_stage"
    PLACE_BELOW_ONE = "place_below_one"
    BAD_TEAM_REF = "bad_team_ref"
    MOUNTS_NOT_LIST = "mounts_not_list"
    MOUNT_ID = "mount_id"
    MOUNT_TWICE = "mount_twice"
    MOUNT_FIELDS = "mount_fields"
    TEAM_HANDICAP_NOT_TABLE = "team_handicap_not_table"
    MATCH_OPTIONS_NOT_TABLE = "match_options_not_table"
    CRITERIA_NOT_LIST = "criteria_not_list"
    UNKNOWN_CRITERION = "unknown_criterion"
    ID_MISSING = "id_missing"
    DUPLICATE_PLAYER = "duplicate_player"
    DUPLICATE_ID = "duplicate_id"
    REGISTERED_NOT_LIST = "registered_not_list"
    HANDICAPS_NOT_LIST = "handicaps_not_list"
    HANDICAP_NOT_TABLE = "handicap_not_table"
    HANDICAP_FROM_NOT_DATE = "handicap_from_not_date"
    HANDICAP_RANGE = "handicap_range"
    HANDICAP_DUPLICATE = "handicap_duplicate"
    CAPTAIN_NOT_ID = "captain_not_id"
    UNKNOWN_STAGE_KIND = "unknown_stage_kind"
    NOT_TWO_TEAMS = "not_two_teams"
    BAD_MATCH_START = "bad_match_start"
    ARENA_NOT_NAME = "arena_not_name"
    RECORD_NOT_PATH = "record_not_path"
    BAD_DECIDED_BY = "bad_decided_by"
    # checking it (check.py)
    UNKNOWN_RULES = "unknown_rules"
    MATCH_OPTIONS = "match_options"
    TEAM_LIMITS_CROSSED = "team_limits_crossed"
    TEAM_SIZE = "team_size"
    PLAYER_REPEATED = "player_repeated"
    UNKNOWN_PLAYER = "unknown_player"
    CAPTAIN_NOT_PLAYER = "captain_not_player"
    TWO_TEAMS = "two_teams"
    UNKNOWN_TEAM = "unknown_team"
    TEAM_REPEATED = "team_repeated"
    UNKNOWN_STAGE = "unknown_stage"
    NOT_A_CRITERION = "not_a_criterion"
    ORDER_REPEATED = "order_repeated"
    TEAM_NOT_IN_STAGE = "team_not_in_stage"
    NOT_ROUND_ROBIN = "not_round_robin"
    NO_SUCH_PLACE = "no_such_place"
    UNKNOWN_MATCH = "unknown_match"
    REFERS_TO_ITSELF = "refers_to_itself"
    PLAYS_ITSELF = "plays_itself"
    BRACKET_ENTERS_TWICE = "bracket_enters_twice"
    BRACKET_GOES_ON_TWICE = "bracket_goes_on_twice"
    PAIR_MISSING = "pair_missing"
    PAIR_TWICE = "pair_twice"
    STANDINGS_FAILED = "standings_failed"
    NOT_REGISTERED = "not_registered"
    NO_HANDICAP = "no_handicap"
    TEAM_BELOW_MIN = "team_below_min"
    TEAM_ABOVE_MAX = "team_above_max"
    RECORD_REFUSED = "record_refused"
    RECORD_UNREADABLE = "record_unreadable"
    RECORD_PRACTICE = "record_practice"
    RECORD_RULES = "record_rules"
    RECORD_OPTIONS = "record_options"
    NO_DATE = "no_date"
    ROSTER_DIFFERS = "roster_differs"
    HANDICAP_DIFFERS = "handicap_differs"
    # mounts (mounts.py)
    MOUNT_LIMITS = "mount_limits"
    MOUNT_TWO_TEAMS = "mount_two_teams"
    MOUNT_PERIODS_PER_DAY = "mount_periods_per_day"
    # a file uploaded again over a tournament being played (web)
    PLAYED_MATCH_LEFT_OUT = "played_match_left_out"
    PLAYED_MATCH_TEAMS = "played_match_teams"
    PLAYED_MATCH_ARENA = "played_match_arena"
    #: the last line of an answer that lists only the first problems of many (web)
    MORE_PROBLEMS = "more_problems"


C = ProblemCode

#: one English template per code (msgids of ``tournament-problems.po``)
TEMPLATES: dict[ProblemCode, str] = {
    C.UNKNOWN_KEY: "{line}unknown key `{key}`{near}",
    C.TOO_DEEP: "nested deeper than {max} levels",
    C.NOT_A_TOURNAMENT: "not a tournament file: it has no players, teams, stages or matches",
    C.UNSUPPORTED_FORMAT: "unsupported format {value} (expected {expected})",
    C.MISSING_FIELD: "{field} is missing",
    C.NOT_A_STRING: "{field} must be a string, got {value}",
    C.NOT_WHOLE: "{field} must be a whole number, got {value}",
    C.YEAR_NOT_WHOLE: "a registered year must be a whole number, got {value}",
    C.HANDICAP_NOT_WHOLE: "handicap value must be a whole number, got {value}",
    C.NOT_ID_LIST: "{field} must be a list of ids",
    C.NOT_TABLE_LIST: "must be a list of tables",
    C.NOT_A_TABLE: "must be a table",
    C.FROM_NOT_A_STAGE: "'from' must name a stage, got {value}",
    C.PLACE_BELOW_ONE: "place must be 1 or more, got {place}",
    C.BAD_TEAM_REF: "a team is a team id, {{from = stage, place = N}}, {{winner = id}} or "
    "{{loser = id}}; got {value}",
    C.MOUNTS_NOT_LIST: "mounts must be a list of at most {max} {{id, name, owner}}",
    C.MOUNT_ID: "mounts[{index}]: id must be 1-32 characters of a-z, 0-9 and -",
    C.MOUNT_TWICE: "mount {mount} is listed twice",
    C.MOUNT_FIELDS: "mount {mount}: name and owner are strings",
    C.TEAM_HANDICAP_NOT_TABLE: "must be a table {{min = N, max = M}}",
    C.MATCH_OPTIONS_NOT_TABLE: "must be a table (the match record's options)",
    C.CRITERIA_NOT_LIST: "criteria must be a list of names",
    C.UNKNOWN_CRITERION: "unknown criterion {value}{near} (one of {known})",
    C.ID_MISSING: "id is missing",
    C.DUPLICATE_PLAYER: "listed twice in the register",
    C.DUPLICATE_ID: "listed twice",
    C.REGISTERED_NOT_LIST: "registered must be a list of years",
    C.HANDICAPS_NOT_LIST: "handicaps must be a list of {{from = date, value = N}}",
    C.HANDICAP_NOT_TABLE: "a handicap is {{from = date, value = N}}, got {value}",
    C.HANDICAP_FROM_NOT_DATE: "handicap 'from' must be a date, got {value}",
    C.HANDICAP_RANGE: "arena handicap {value} from {day} is outside {lo}..{hi}",
    C.HANDICAP_DUPLICATE: "two handicaps take effect on the same date",
    C.CAPTAIN_NOT_ID: "captain must be a player id, got {value}",
    C.UNKNOWN_STAGE_KIND: "kind must be one of {kinds}, got {value}{near}",
    C.NOT_TWO_TEAMS: "teams must list exactly two teams (A and B of the match record)",
    C.BAD_MATCH_START: "start must be a local date-time, got {value}",
    C.ARENA_NOT_NAME: "arena must be a name, got {value}",
    C.RECORD_NOT_PATH: "record must be a path, got {value}",
    C.BAD_DECIDED_BY: "by must be 'lot' or 'shootout', got {value}",
    C.UNKNOWN_RULES: "rules: unknown edition {value} (known: {known})",
    C.MATCH_OPTIONS: "{path}: {detail}",
    C.TEAM_LIMITS_CROSSED: "min {min} is above max {max}",
    C.TEAM_SIZE: "Rule 3: an arena team has 3 players (No. 1-3), got {count}",
    C.PLAYER_REPEATED: "player {player} is listed {count} times",
    C.UNKNOWN_PLAYER: "player {player} is not in the register",
    C.CAPTAIN_NOT_PLAYER: "captain {player} is not one of the team's players",
    C.TWO_TEAMS: "plays for more than one team: {teams}",
    C.UNKNOWN_TEAM: "team {team} is not defined",
    C.TEAM_REPEATED: "a team is listed twice",
    C.UNKNOWN_STAGE: "stage {stage} is not defined",
    C.NOT_A_CRITERION: "{criterion} is not a criterion of the order of finish",
    C.ORDER_REPEATED: "a team is listed twice in the order",
    C.TEAM_NOT_IN_STAGE: "team {team} is not in stage {stage}",
    C.NOT_ROUND_ROBIN: "stage {stage} has no order of finish (not a round robin)",
    C.NO_SUCH_PLACE: "stage {stage} has no place {place}",
    C.UNKNOWN_MATCH: "match {match} is not defined",
    C.REFERS_TO_ITSELF: "refers to itself",
    C.PLAYS_ITSELF: "team {team} cannot play itself",
    C.BRACKET_ENTERS_TWICE: "team {team} enters the bracket twice (matches {matches})",
    C.BRACKET_GOES_ON_TWICE: "the winner of {match} goes on twice (matches {matches})",
    C.PAIR_MISSING: "{a} and {b} do not meet (a round robin: every pair once)",
    C.PAIR_TWICE: "{a} and {b} meet {count} times (every pair once)",
    C.STANDINGS_FAILED: "standings could not be computed: {detail}",
    C.NOT_REGISTERED: "player {player} ({name}, {team}) is not registered for {year} (Rule 3)",
    C.NO_HANDICAP: "player {player} ({name}, {team}) has no handicap in force on {day} (Rule 3)",
    C.TEAM_BELOW_MIN: "team {team} totals {total} on {day}, below the minimum {min}",
    C.TEAM_ABOVE_MAX: "team {team} totals {total} on {day}, above the maximum {max}",
    C.RECORD_REFUSED: "record {record} does not replay: {detail}",
    C.RECORD_UNREADABLE: "record {record} cannot be read: {detail}",
    C.RECORD_PRACTICE: "record {record} is a practice match: never a tournament result",
    C.RECORD_RULES: "record is played under {record_rules}, the tournament under {rules}",
    C.RECORD_OPTIONS: "record option {option} is {record_value}, the tournament's is {value}",
    C.NO_DATE: "no start date: the record's rosters cannot be checked",
    C.ROSTER_DIFFERS: "record team {key} ({team}): No. {no} {name} is not a player of {team} "
    "in the register",
    C.HANDICAP_DIFFERS: "record team {key} ({team}): player {player} ({name}) has handicap "
    "{record_handicap} in the record, {handicap} in the register on {day}",
    C.MOUNT_LIMITS: "must be a table {{periods_per_day = N}}, N a whole number from 1",
    C.MOUNT_TWO_TEAMS: "Rule 2: no mount may be played by more than one team: {mount} is on "
    "the strings of {a} and {b}",
    C.MOUNT_PERIODS_PER_DAY: "{team}'s {mount} was ridden in {count} periods on {day} "
    "({matches}), more than the {limit} of mount_limits.periods_per_day",
    C.PLAYED_MATCH_LEFT_OUT: "has been played; the new file leaves it out",
    C.PLAYED_MATCH_TEAMS: "has been played; the new file changes its teams",
    C.PLAYED_MATCH_ARENA: "has been played; it cannot change arena",
    C.MORE_PROBLEMS: "and {count} more problems (chukker tournament check lists them all)",
}

#: optional params, each said by its own template (msgids too) when it is given
PARTS: dict[str, str] = {
    "line": "line {line}: ",
    "near": " (did you mean `{near}`?)",
}

_FORMATTER = string.Formatter()


def fields(template: str) -> frozenset[str]:
    """The params a template names: ``fields("{a} and {b}") == {'a', 'b'}``."""
    return frozenset(f for _, f, _, _ in _FORMATTER.parse(template) if f)


#: the params each code needs, and those it may have (:data:`PARTS`)
NEEDS: dict[ProblemCode, frozenset[str]] = {
    c: fields(t) - frozenset(PARTS) for c, t in TEMPLATES.items()
}
MAY: dict[ProblemCode, frozenset[str]] = {
    c: fields(t) & frozenset(PARTS) for c, t in TEMPLATES.items()
}


def msgids() -> list[str]:
    """Every English template a catalogue translates: subjects, problems, parts."""
    return [*SUBJECTS.values(), *TEMPLATES.values(), *PARTS.values()]


def _identity(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class Params:
    """A problem's params: names to plain ``str``/``int`` values, in a fixed order."""

    items: tuple[tuple[str, str | int], ...] = ()

    def as_dict(self) -> dict[str, str | int]:
        return dict(self.items)


@dataclass(frozen=True, slots=True)
class Subject:
    """What a problem concerns: ``Subject(SubjectCode.TEAM, "reds")`` is ``team reds``."""

    code: SubjectCode
    id: str = ""

    @classmethod
    def of(cls, code: str, id: str | int = "") -> Subject:
        return cls(SubjectCode(code), str(id))

    @classmethod
    def path(cls, key: str, index: int | None = None) -> Subject:
        """A key or an entry of the file: ``path("decided", 0)`` is ``decided[0]``."""
        return cls(SubjectCode.PATH, key if index is None else f"{key}[{index}]")

    def said(self, gettext: Callable[[str], str] = _identity) -> str:
        return gettext(SUBJECTS[self.code]).format(id=self.id)

    def __str__(self) -> str:
        return self.said()

    def to_json(self) -> dict[str, str]:
        return {"code": str(self.code), "id": self.id}


class ProblemParamsError(ChukkerError):
    """A problem made with params its template does not name (a bug of the caller)."""

    code = "problem_params"


@dataclass(frozen=True, slots=True)
class Cause:
    """The engine's refusal a problem comes from: its code and params."""

    code: str
    params: Params = Params()

    @classmethod
    def of(cls, code: str, params: Mapping[str, Any]) -> Cause:
        """Params as plain ``str``/``int`` (a list as its items joined with commas, as the
        engine says it; any other value as its text)."""
        def plain(v: Any) -> str | int:
            if isinstance(v, list | tuple):
                return ", ".join(str(x) for x in v)
            return v if isinstance(v, str | int) and not isinstance(v, bool) else str(v)

        return cls(code, Params(tuple((k, plain(v)) for k, v in params.items())))

    def said(self, gettext: Callable[[str], str] = _identity) -> str | None:
        """The engine's sentence for this refusal in the language of ``gettext``, or
        ``None`` when the engine has none but the English detail."""
        from chukker.engine.errors import setup_sentence

        return setup_sentence(self.code, self.params.as_dict(), gettext)


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of a tournament: what it concerns, its code and its params.

    ``subject`` and ``message`` are the English (``str(p)`` is ``subject: message``,
    the line ``chukker tournament check`` prints); :meth:`said` gives them in another
    language from a ``gettext``."""

    where: Subject
    code: ProblemCode
    params: Params = Params()
    #: the engine's refusal it comes from, said as its ``{detail}`` (see the module)
    cause: Cause | None = None

    def __post_init__(self) -> None:
        given = {k for k, _ in self.params.items}
        code = ProblemCode(self.code)
        missing, extra = NEEDS[code] - given, given - NEEDS[code] - MAY[code]
        if missing or extra:
            raise ProblemParamsError(
                f"problem {code}: params {sorted(given)} given, template "
                f"{TEMPLATES[code]!r} names {sorted(NEEDS[code] | MAY[code])}"
            )
        for k, v in self.params.items:
            if isinstance(v, bool) or not isinstance(v, str | int):
                raise ProblemParamsError(f"problem {code}: param {k} is {type(v).__name__}, "
                                         "not str or int")
        if self.cause is not None and "detail" not in NEEDS[code]:
            raise ProblemParamsError(f"problem {code}: a cause is said as the detail, and "
                                     f"template {TEMPLATES[code]!r} has none")

    @classmethod
    def of(cls, where: Subject, code: str, **params: str | int) -> Problem:
        """``Problem.of(Subject.of("match", "a1"), "unknown_team", team="x")``."""
        return cls(where, ProblemCode(code), Params(tuple(params.items())))

    @property
    def subject(self) -> str:
        """The English subject: ``team reds``."""
        return self.where.said()

    @property
    def message(self) -> str:
        """The English sentence (without the subject)."""
        return self.sentence()

    def sentence(self, gettext: Callable[[str], str] = _identity) -> str:
        """The sentence in the language of ``gettext`` (English by default)."""
        vals: dict[str, Any] = {k: "" for k in MAY[self.code]}
        for k, v in self.params.items:
            vals[k] = gettext(PARTS[k]).format(**{k: v}) if k in PARTS else v
        said = self.cause.said(gettext) if self.cause is not None else None
        if said is not None:  # the engine's sentence, its path left to the problem's own
            path = vals.get("path")
            vals["detail"] = said.removeprefix(f"{path}: ") if path is not None else said
        return gettext(TEMPLATES[self.code]).format(**vals)

    def said(self, gettext: Callable[[str], str] = _identity) -> str:
        """``subject: sentence`` in the language of ``gettext``."""
        return f"{self.where.said(gettext)}: {self.sentence(gettext)}"

    def __str__(self) -> str:
        return self.said()


def show(value: object) -> str:
    """A value read from the file, for a message: its repr, at most 60 characters."""
    from chukker.engine.errors import show as engine_show

    return engine_show(value)


def near(word: str, known: Iterable[str]) -> dict[str, str]:
    """``{"near": k}`` for the nearest of ``known`` (the ``near`` param), or ``{}``."""
    found = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
    return {"near": found[0]} if found else {}
