"""The one place the store and the service import the engine and the record format from.

Switching engines (or faking one in a test) touches only this module.
"""

from __future__ import annotations

from chukker.engine import EngineError, EventType, Match, Setup, SetupError
from chukker.engine.events import Event as TypedEvent
from chukker.engine.fold import typed
from chukker.record import RecordError, dumps, loads
from chukker.record.definitions import typed_event

__all__ = [
    "EngineError", "EventType", "Match", "RecordError", "Setup", "SetupError", "TypedEvent",
    "dumps", "loads", "typed", "typed_event",
]
