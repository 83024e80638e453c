"""Identifiers that travel on the wire (the match record and the report)."""

from __future__ import annotations

from enum import StrEnum


class EventType(StrEnum):
    BOWL_IN = "bowl_in"
    WHISTLE = "whistle"
    GOAL = "goal"
    FOUL = "foul"
    FREE_HIT = "free_hit"
    TIMEOUT = "timeout"
    FORFEIT = "forfeit"
    SHOOTOUT_ORDER = "shootout_order"
    SHOT = "shot"
    MOVE_TO_15 = "move_to_15"
    UNDO = "undo"
    # version 1.1
    SUBSTITUTE = "substitute"
    DESIGNATE = "designate"
    RETURN = "return"
    CLOCK = "clock"
    # version 1.2: mounts
    MOUNT = "mount"
    MOUNT_OUT = "mount_out"


class Status(StrEnum):
    PRE_MATCH = "pre_match"
    IN_PLAY = "in_play"
    STOPPED = "stopped"
    INTERVAL = "interval"
    SHOOTOUT = "shootout"
    FINAL = "final"


class HornKind(StrEnum):
    END = "end"
    SPLIT = "split"
    WARNING = "warning"


class DecidedBy(StrEnum):
    REGULATION = "regulation"
    EXTRA_PERIOD = "extra-period"
    SHOOTOUT = "shootout"
    FORFEIT = "forfeit"
    #: a Penalty 1 goal awarded after the last horn of a tied match
    PENALTY = "penalty"


class PeriodsOption(StrEnum):
    REGULATION = "regulation"
    SIX = "six"


class Tiebreak(StrEnum):
    EXTRA_PERIODS = "extra-periods"
    SHOOTOUT = "shootout"


class ShootoutPlayers(StrEnum):
    ALL = "all"
    ONE = "one"


class TwoPointLine(StrEnum):
    CENTER = "center"
    TWENTY_FIVE_YARD = "25-yard"
    NONE = "none"


class End(StrEnum):
    """The goal a team defends: west at x = 0, east at x = 100 yards."""

    WEST = "west"
    EAST = "east"

    def other(self) -> End:
        return End.EAST if self is End.WEST else End.WEST


class Penalty(StrEnum):
    """Rule 9 penalties; 5 alone lets the spot decide between 5a and 5b."""

    P1 = "1"
    P2 = "2"
    P3 = "3"
    P4 = "4"
    P5 = "5"
    P5A = "5a"
    P5B = "5b"
    P6 = "6"
    P7 = "7"
    P8 = "8"
    P9 = "9"
    P10 = "10"


class ShotResult(StrEnum):
    GOAL = "goal"
    MISS = "miss"
    FORFEIT = "forfeit"


class RestartKind(StrEnum):
    BOWL_IN = "bowl_in"
    FREE_HIT = "free_hit"
    SHOT = "shot"


class IntervalKind(StrEnum):
    REGULAR = "regular"
    EXTRA = "extra"
    SHOOTOUT = "shootout"
    SHOOTOUT_ROUND = "shootout-round"


class MountOutReason(StrEnum):
    """Why a mount leaves the game (Rule 2: vice, blood; Rule 16: runaway)."""

    VICE = "vice"
    BLOOD = "blood"
    RUNAWAY = "runaway"
    INJURY = "injury"
    OTHER = "other"


class WhistleSource(StrEnum):
    """Where a ``whistle`` event came from (record 1.3): absent, a key press. The one list
    the engine, the record's definitions, its JSON Schema and the API share (issue 42)."""

    AUDIO = "audio"  # heard by the console's microphone, stamped at the blast's onset


#: the values of :class:`WhistleSource`, for a quick membership test
WHISTLE_SOURCES: frozenset[str] = frozenset(str(s) for s in WhistleSource)


class MountStatus(StrEnum):
    AVAILABLE = "available"
    RIDING = "riding"
    OUT = "out"
    DISQUALIFIED = "disqualified"
