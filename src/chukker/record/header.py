"""The record's header, typed (issue 46): frozen msgspec ``Struct``s that accept exactly
the headers :func:`chukker.record.definitions.validate_header_doc` accepts, for its quick
yes (as :func:`chukker.record.events.clean_events` is the events').

The detailed check (the tables ``HEADER``, ``OPTIONS``, ``PRACTICE``, ``TEAM_DOC``,
``PLAYER_DOC``, ``MOUNT_DOC`` and ``MATCH_INFO`` of :mod:`chukker.record.definitions`)
stays the one that words a refusal and normalises a value; these classes only say, at
once, that there is nothing to word and nothing to normalise. What they cannot say is
asked beside them, by :func:`chukker.record.definitions.validate_header_doc`: that every
value is of its exact JSON type (msgspec also takes a tuple for a list, a ``str``
subclass for a ``str``), every string plain ASCII (and so already in NFC), ``meta`` and a
club's ``edition`` as the detailed check would keep them, and a mount on one team's list
only, a plan naming its own team's mounts. ``tests/record/test_header_quick.py`` holds
the two to the same answers, field by field.

An optional field may be absent (``UNSET``) or null (``None``), as the record allows; a
required one may be neither.

>>> conforms({"teams": {"A": {"captain": 1, "players": [{"no": 1}]},
...                     "B": {"captain": 1, "players": []}}})
True
>>> conforms({"teams": {"A": {"captain": 1.0, "players": []}, "B": {"captain": 1,
...                                                               "players": []}}})
False
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from msgspec import UNSET, Meta, UnsetType

from chukker.engine.types import End, PeriodsOption, ShootoutPlayers, Tiebreak, TwoPointLine
from chukker.record.events import ID_MAX, MOUNT_ID_RE, PLAYER_MAX, TEAM_ID_MAX
from chukker.rules.editions import EDITIONS

NAME_MAX = 60
HANDICAP_MIN, HANDICAP_MAX = -2, 10  # USPA arena handicaps
MOUNTS_MAX = 64
#: the players (or alternates) a team's list may hold, as the record reads it (how many
#: Rule 3 wants is the set-up's check)
ROSTER_MAX = 12
#: a plan's key: a player's number, "1" to "99" (record 1.3)
PLAN_KEY_RE = re.compile(r"^[1-9][0-9]?$")
FORMAT = "chukker-match/1"
CLUB = "club"

Name = Annotated[str, Meta(max_length=NAME_MAX)]
PlayerNo = Annotated[int, Meta(ge=1, le=PLAYER_MAX)]
Handicap = Annotated[int, Meta(ge=HANDICAP_MIN, le=HANDICAP_MAX)]
MountId = Annotated[str, Meta(pattern=MOUNT_ID_RE.pattern)]
Seconds = Annotated[float, Meta(ge=0, le=3600)]
if TYPE_CHECKING:
    FormatId = str
    RulesId = str
    PeriodsId = str
    TiebreakId = str
    ShootoutId = str
    LineId = str
    EndId = str
else:
    from typing import Literal

    def _one_of(values: Any) -> Any:
        return Literal[tuple(str(v) for v in values)]

    FormatId = _one_of((FORMAT,))
    RulesId = _one_of((*EDITIONS, CLUB))
    PeriodsId = _one_of(PeriodsOption)
    TiebreakId = _one_of(Tiebreak)
    ShootoutId = _one_of(ShootoutPlayers)
    LineId = _one_of(TwoPointLine)
    EndId = _one_of(End)


class _Doc(msgspec.Struct, forbid_unknown_fields=True, frozen=True, gc=False, kw_only=True):
    """An object of the header: no field but its own."""


class PlayerDoc(_Doc, kw_only=True, frozen=True):
    """A player (or an alternate) on a team's sheet."""

    no: PlayerNo
    name: Name | UnsetType | None = UNSET
    handicap: Handicap | UnsetType | None = UNSET


class MountDoc(_Doc, kw_only=True, frozen=True):
    """A mount on a team's string (record 1.2)."""

    id: MountId
    name: Name | UnsetType | None = UNSET
    owner: Name | UnsetType | None = UNSET


Roster = Annotated[list[PlayerDoc], Meta(max_length=ROSTER_MAX)]
#: the grooms' plan (record 1.3): player number -> mount ids (the team's own: asked beside)
Plan = dict[Annotated[str, Meta(pattern=PLAN_KEY_RE.pattern)],
            Annotated[list[str], Meta(max_length=MOUNTS_MAX)]]


class TeamDoc(_Doc, kw_only=True, frozen=True):
    """A team: its sheet, and its string of mounts and the grooms' plan."""

    name: Name | UnsetType | None = UNSET
    captain: PlayerNo
    players: Roster
    alternates: Roster | UnsetType | None = UNSET
    mounts: Annotated[list[MountDoc], Meta(max_length=MOUNTS_MAX)] | UnsetType | None = UNSET
    plan: Plan | UnsetType | None = UNSET


class PracticeDoc(_Doc, kw_only=True, frozen=True):
    """A practice's lengths, in seconds."""

    period_s: Annotated[float, Meta(ge=10, le=3600)]
    interval_s: Seconds


FirstDefends = Annotated[dict[Annotated[str, Meta(max_length=ID_MAX)], EndId],
                         Meta(min_length=2, max_length=2)]


class OptionsDoc(_Doc, kw_only=True, frozen=True):
    """The committee's options."""

    periods: PeriodsId | UnsetType | None = UNSET
    split_periods: bool | UnsetType | None = UNSET
    tiebreak: TiebreakId | UnsetType | None = UNSET
    shootout_players: ShootoutId | UnsetType | None = UNSET
    handicap: bool | UnsetType | None = UNSET
    warning_horn: bool | UnsetType | None = UNSET
    two_point_line: LineId | UnsetType | None = UNSET
    first_defends: FirstDefends | UnsetType | None = UNSET
    practice: PracticeDoc | UnsetType | None = UNSET


class MatchInfoDoc(_Doc, kw_only=True, frozen=True):
    """The score sheet's details of the match."""

    event: Annotated[str, Meta(max_length=120)] | UnsetType | None = UNSET
    venue: Name | UnsetType | None = UNSET
    date: Name | UnsetType | None = UNSET
    arena: Name | UnsetType | None = UNSET
    umpire_1: Name | UnsetType | None = UNSET
    umpire_2: Name | UnsetType | None = UNSET
    referee: Name | UnsetType | None = UNSET
    timekeeper: Name | UnsetType | None = UNSET
    scorer: Name | UnsetType | None = UNSET


Teams = Annotated[dict[Annotated[str, Meta(min_length=1, max_length=TEAM_ID_MAX)], TeamDoc],
                  Meta(min_length=2, max_length=2)]


class HeaderDoc(_Doc, kw_only=True, frozen=True):
    """A record's header. ``edition``, ``events`` and ``meta`` are asked beside (their
    values are free notes, or checked elsewhere: each event by the events' own Structs)."""

    format: FormatId | UnsetType | None = UNSET
    rules: RulesId | UnsetType | None = UNSET
    edition: Any = UNSET
    options: OptionsDoc | UnsetType | None = UNSET
    teams: Teams
    events: Any = UNSET
    meta: Any = UNSET
    match_info: MatchInfoDoc | UnsetType | None = UNSET


#: every object of the header with the table of the detailed check it mirrors
STRUCTS: dict[str, type[_Doc]] = {
    "HEADER": HeaderDoc,
    "OPTIONS": OptionsDoc,
    "PRACTICE": PracticeDoc,
    "TEAM_DOC": TeamDoc,
    "PLAYER_DOC": PlayerDoc,
    "MOUNT_DOC": MountDoc,
    "MATCH_INFO": MatchInfoDoc,
}


def conforms(doc: Any) -> bool:
    """Whether the Structs accept ``doc`` (see the module's note for what they leave)."""
    try:
        msgspec.convert(doc, HeaderDoc)
    except (ValueError, TypeError, RecursionError):  # msgspec.ValidationError is a ValueError
        return False
    return True
