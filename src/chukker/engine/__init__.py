"""The match engine: USPA arena rules as a pure fold over operator events.

Public surface: :class:`Match` (``verify``/``can``/``apply`` for an event, reports),
:class:`Setup`, :func:`replay`, :func:`check`, the wire identifiers (:mod:`.types`) and the
errors (:class:`EngineError`, :class:`SetupError`). Nothing here does I/O or
reads a clock: time is integer milliseconds, given by the caller.
:data:`NATIVE` says whether the mypyc-compiled fold runs (:mod:`.native`).
"""

# first: chooses the compiled or the pure fold before any of its modules is imported
from chukker.engine.native import NATIVE

# isort: split
from chukker.engine.allowed import ACTIONS
from chukker.engine.errors import MESSAGES, NOTICES, EngineError, SetupError, fmt_s
from chukker.engine.match import Event, Match, check, replay
from chukker.engine.options import Options
from chukker.engine.setup import FORMAT, Player, Setup, Team
from chukker.engine.types import (
    DecidedBy,
    End,
    EventType,
    HornKind,
    IntervalKind,
    Penalty,
    PeriodsOption,
    RestartKind,
    ShootoutPlayers,
    ShotResult,
    Status,
    Tiebreak,
    TwoPointLine,
    WhistleSource,
)

__all__ = [
    "ACTIONS",
    "FORMAT",
    "MESSAGES",
    "NATIVE",
    "NOTICES",
    "DecidedBy",
    "End",
    "EngineError",
    "Event",
    "EventType",
    "HornKind",
    "IntervalKind",
    "Match",
    "Options",
    "Penalty",
    "PeriodsOption",
    "Player",
    "RestartKind",
    "Setup",
    "SetupError",
    "ShootoutPlayers",
    "ShotResult",
    "Status",
    "Team",
    "Tiebreak",
    "TwoPointLine",
    "WhistleSource",
    "check",
    "fmt_s",
    "replay",
]
