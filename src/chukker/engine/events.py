"""The operator events, one typed definition each (issue 46): a frozen msgspec ``Struct``
per event type, tagged by ``type``, with its fields and their bounds, the version of the
record's contract that added it, and the rule it records.

The fold matches on these classes (:mod:`chukker.engine.fold`); everything else about an
event is derived from them: the field tables of :mod:`chukker.record.definitions` (and
through them the record's detailed check and its error codes, ``chukker schema``'s JSON
Schema and the API's event bodies), and the record's quick yes
(:func:`chukker.record.events.clean_events`).

Each field's annotation carries, beside msgspec's bounds, ``extra["kind"]``: how the
detailed check reads it (``int``, ``number``, ``string``, ``bool``, ``enum``, ``penalty``,
``spot``, ``order``, ``int_or_bool``, ``mount_id``). An optional field absent from the
record, or null, reads ``None``: the engine never needs to tell the two apart, and the
store keeps the event as it came.

A Struct built by msgspec (``decode``, ``convert``) holds what its annotations say. The
engine also folds events that no one checked (``replay(strict=False)``, a ``Match`` fed
dicts): such an event is built field by field, unchecked (:func:`chukker.engine.fold.typed`),
and the handlers refuse a bad value with the engine's own code, as they always did. So
the handlers read an event's fields as values still to be checked (``Any``).

>>> Goal(at=61.25, team="A", player=2).player
2
>>> msgspec.convert({"at": 1, "type": "whistle"}, Whistle)
Whistle(at=1.0, reason=None, spot=None, source=None)
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final

import msgspec
from msgspec import Meta

from chukker.engine.types import MountOutReason, Penalty, ShotResult, WhistleSource

REASON_MAX = 200
ID_MAX = 64
TEAM_ID_MAX = 16
PLAYER_MAX = 99
AT_MAX = 10**9  # seconds
EVENTS_MAX = 100_000
#: a mount's id (record 1.2): 1-32 characters of ``[a-z0-9-]``
MOUNT_ID_RE = re.compile(r"^[a-z0-9-]{1,32}$")

TEAM_D = "a team's key"
PLAYER_D = "a player's number on the team's sheet"
SPOT_D = "[x, y] in yards; x from the west wall (0-100), y across (0-50)"


def _m(kind: str, d: str = "", *, since: str = "", lo: int | None = None,
       hi: int | None = None, **bounds: Any) -> Meta:
    """msgspec's bounds, with the detailed check's kind, the schema's description, the
    contract's version that added the field (``since``, when later than its type's) and
    bounds msgspec holds deeper in the type (``lo``, ``hi``)."""
    extra: dict[str, Any] = {"kind": kind, "description": d}
    if since:
        extra["since"] = since
    if lo is not None or hi is not None:
        extra.update(lo=lo, hi=hi)
    return Meta(**bounds, extra=extra)


At = Annotated[float, _m("number", "seconds since the record started (ms)", ge=0, le=AT_MAX)]
Team = Annotated[str, _m("string", TEAM_D, min_length=1, max_length=TEAM_ID_MAX)]
Player = Annotated[int, _m("int", PLAYER_D, ge=1, le=PLAYER_MAX)]
Reason = Annotated[str, _m("string", max_length=REASON_MAX)]
Said = Annotated[str, _m("string", min_length=1, max_length=REASON_MAX)]
Ident = Annotated[str, _m("string", max_length=ID_MAX)]
Flag = Annotated[bool, _m("bool")]
MountId = Annotated[str, _m("mount_id", "a mount's id on the team's list ([a-z0-9-], 1-32)",
                            pattern=MOUNT_ID_RE.pattern)]
Consent = Annotated[bool, _m("bool", "Rule 5: a shootout mount replaced for injury or fatigue")]
Swap = Annotated[bool, _m("bool", "Rule 5: the teammate riding the mount takes the player's "
                          "own, at once", since="1.3")]
if TYPE_CHECKING:
    Spot = tuple[float, float]
    Order = dict[str, list[int]]
    PenaltyId = str
    ShotResultId = str
    SourceId = str
    MountOutId = str
    PlayerOrFlag = int | bool
else:
    Spot = Annotated[
        tuple[Annotated[float, Meta(ge=0, le=100)], Annotated[float, Meta(ge=0, le=50)]],
        _m("spot", SPOT_D),
    ]
    Order = Annotated[
        dict[Annotated[str, Meta(min_length=1, max_length=TEAM_ID_MAX)],
             Annotated[list[Annotated[int, Meta(ge=1, le=PLAYER_MAX)]], Meta(max_length=20)]],
        _m("order", min_length=2, max_length=2),
    ]

    def _one_of(kind: str, values: Any, d: str = "", since: str = "") -> Any:
        from typing import Literal

        return Annotated[Literal[tuple(str(v) for v in values)], _m(kind, d, since=since)]

    PenaltyId = _one_of("penalty", Penalty)
    ShotResultId = _one_of("enum", ShotResult)
    SourceId = _one_of("enum", WhistleSource, "audio: heard by the console's microphone, "
                       "stamped at its onset (record 1.3); absent: a key press", "1.3")
    MountOutId = _one_of("enum", MountOutReason,
                         "Rule 2 (vice, blood), Rule 16 (runaway), injury, other")
    PlayerOrFlag = Annotated[bool | Annotated[int, Meta(ge=1, le=PLAYER_MAX)],
                             _m("int_or_bool", lo=1, hi=PLAYER_MAX)]


class Event(msgspec.Struct, tag_field="type", forbid_unknown_fields=True, frozen=True,
            gc=False, kw_only=True):
    """An operator event: ``at``, seconds since the record started (ms precision)."""

    #: the version of the record's contract that added the type
    version: ClassVar[str] = "1.0"
    at: At


class BowlIn(Event, tag="bowl_in", kw_only=True, frozen=True):
    """The umpire bowls the ball in: play starts or restarts (Rule 8)."""


class Whistle(Event, tag="whistle", kw_only=True, frozen=True):
    """The whistle stops play and the clock (Rule 5); ``source`` (record 1.3): heard by
    the console's microphone."""

    reason: Reason | None = None
    spot: Spot | None = None
    source: SourceId | None = None


class Goal(Event, tag="goal", kw_only=True, frozen=True):
    """A goal (Rule 6); ``two_point`` beyond the line of a club's edition."""

    team: Team
    player: Player | None = None
    two_point: Flag | None = None


class Foul(Event, tag="foul", kw_only=True, frozen=True):
    """A foul and its penalty (Rules 9, 10), with what the umpires ordered: a spot, a
    disabled or removed player, a substitute, a card."""

    team: Team
    player: Player | None = None
    penalty: PenaltyId
    clause: Ident | None = None
    card: Ident | None = None
    spot: Spot | None = None
    disabled: Player | None = None
    removed: Player | None = None
    substitute: PlayerOrFlag | None = None
    equipment: Flag | None = None
    mount: Flag | None = None
    for_periods: Annotated[int, _m("int", ge=1, le=99)] | None = None


class FreeHit(Event, tag="free_hit", kw_only=True, frozen=True):
    """The free hit a penalty awarded is taken (Rule 9)."""


class Timeout(Event, tag="timeout", kw_only=True, frozen=True):
    """A time-out (Rule 16): for equipment, or an injury of a player or a mount."""

    reason: Said
    team: Team | None = None
    player: Player | None = None
    spot: Spot | None = None


class Forfeit(Event, tag="forfeit", kw_only=True, frozen=True):
    """A team forfeits the match (Penalty 9)."""

    team: Team


class ShootoutOrder(Event, tag="shootout_order", kw_only=True, frozen=True):
    """The shootout's order of shooters and the team hitting first, by lot (Rule 5)."""

    first: Team
    order: Order


class Shot(Event, tag="shot", kw_only=True, frozen=True):
    """A shootout shot and its result (Rule 5)."""

    team: Team
    player: Player
    result: ShotResultId
    reached_end_wall: Flag | None = None


class MoveTo15(Event, tag="move_to_15", kw_only=True, frozen=True):
    """The umpires move the shootout ball to the 15-yard line (Rule 5)."""


class Undo(Event, tag="undo", kw_only=True, frozen=True):
    """Cancels an earlier event (the record's correction, not a rule)."""

    event: Annotated[int, _m("int", "position of the cancelled event", ge=1, le=EVENTS_MAX)]


class Substitute(Event, tag="substitute", kw_only=True, frozen=True):
    """An alternate takes a player's place (Rule 3)."""

    team: Team
    out: Player
    in_: Player = msgspec.field(name="in")


class Designate(Event, tag="designate", kw_only=True, frozen=True):
    """The player a team designates to leave the field for Penalty 7."""

    team: Team
    player: Player


class Return(Event, tag="return", kw_only=True, frozen=True):
    """A player back on the field after leaving it to repair equipment (Rule 16)."""

    team: Team
    player: Player


class Clock(Event, tag="clock", kw_only=True, frozen=True):
    """The timekeeper corrects the stopped clock (a late whistle: the record's correction,
    not a rule): ``remaining`` seconds."""

    remaining: Annotated[float, _m("number", "seconds, ms precision", ge=0, le=3600)]
    reason: Said


class Mount(Event, tag="mount", kw_only=True, frozen=True):
    """A player mounts a pony of the team's string (Rules 2, 5); ``swap`` (record 1.3):
    with the teammate riding it."""

    version: ClassVar[str] = "1.2"
    team: Team
    player: Player
    mount: MountId
    umpire_consent: Consent | None = None
    swap: Swap | None = None


class MountOut(Event, tag="mount_out", kw_only=True, frozen=True):
    """A mount leaves the game (Rule 2: vice, blood; Rule 16: runaway)."""

    version: ClassVar[str] = "1.2"
    team: Team
    mount: MountId
    reason: MountOutId


#: every event type's class, in the contract's order
CLASSES: Final[tuple[type[Event], ...]] = (
    BowlIn, Whistle, Goal, Foul, FreeHit, Timeout, Forfeit, ShootoutOrder, Shot, MoveTo15,
    Undo, Substitute, Designate, Return, Clock, Mount, MountOut,
)
if TYPE_CHECKING:
    AnyEvent = Event
else:
    from typing import Union

    AnyEvent = Union[CLASSES]  # noqa: UP007



#: each event type's class, by its ``type``
BY_TAG: Final[dict[str, type[Event]]] = {str(c.__struct_config__.tag): c for c in CLASSES}
#: each class's fields beside ``at``: (the name in the record, the attribute)
WIRE_FIELDS: Final[dict[type[Event], tuple[tuple[str, str], ...]]] = {
    c: tuple((f.encode_name, f.name) for f in msgspec.structs.fields(c) if f.name != "at")
    for c in CLASSES
}


class Events(msgspec.Struct, frozen=True):
    """A list of events, as msgspec converts it in one call (to ``list[...]`` it would work
    the union out again at every call)."""

    events: list[AnyEvent]


#: what msgspec raises for a value it does not convert (a lone surrogate, a nesting too
#: deep, a type it cannot read are not ``ValidationError``)
NOT_CONVERTED: Final = (msgspec.ValidationError, TypeError, ValueError, RecursionError)
_POS: Final = re.compile(r"\$\.events\[(\d+)\]")


def convert_events(events: list[Any]) -> tuple[list[Event], int]:
    """``events`` as their classes, converted by msgspec in one call, and how many it took
    as they are: ``len(events)`` and the whole list, or the position (0-based) of the
    first it refuses and no list.

    >>> convert_events([{"at": 0, "type": "bowl_in"}, {"at": 1, "type": "goal"}])
    ([], 1)
    """
    try:
        return msgspec.convert({"events": events}, Events).events, len(events)
    except msgspec.ValidationError as e:
        m = _POS.search(str(e))
        return [], int(m.group(1)) if m else 0
    except NOT_CONVERTED:
        return [], 0


def tag_of(ev: Event) -> str:
    """The event's ``type``.

    >>> tag_of(BowlIn(at=0))
    'bowl_in'
    """
    return str(ev.__struct_config__.tag)


def to_wire(ev: Event) -> dict[str, Any]:
    """The event as a record's dict: ``at``, ``type``, then the fields that are set, in
    their definition's order (what the engine's probes looked like as dicts).

    >>> to_wire(Goal(at=12.5, team="A"))
    {'at': 12.5, 'type': 'goal', 'team': 'A'}
    """
    out: dict[str, Any] = {"at": ev.at, "type": tag_of(ev)}
    for wire, attr in WIRE_FIELDS[type(ev)]:
        v = getattr(ev, attr)
        if v is not None:
            out[wire] = v
    return out
