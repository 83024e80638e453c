"""The one place the store and the service import the engine and the record format from.

Switching engines (or faking one in a test) touches only this module.
"""

from __future__ import annotations

from chukker.engine import EngineError, EventType, Match, Setup, SetupError
from chukker.record import RecordError, dumps, loads

__all__ = [
    "EngineError", "EventType", "Match", "RecordError", "Setup", "SetupError", "dumps", "loads",
]
