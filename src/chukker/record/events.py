"""The operator events as the record reads them (issue 46): the one typed definition of
each event type is its msgspec ``Struct`` in :mod:`chukker.engine.events` (re-exported
here); this module adds the record's quick yes (:func:`clean_events`: a list of events
the Structs accept, its strings plain ASCII, is one the detailed check would return
unchanged, so only the others are checked field by field, which words the refusal or
normalises the value: :func:`chukker.record.definitions.first_unclean`).

>>> clean_events([{"at": 61.25, "type": "goal", "team": "A", "player": 2}])
1
>>> clean_events([{"at": 1, "type": "bowl_in"}, {"at": 2, "type": "goal", "team": "A",
...               "colour": "red"}])
1
"""

from __future__ import annotations

from typing import Any

from chukker.engine.events import (
    AT_MAX,
    BY_TAG,
    CLASSES,
    EVENTS_MAX,
    ID_MAX,
    MOUNT_ID_RE,
    PLAYER_MAX,
    REASON_MAX,
    TEAM_ID_MAX,
    AnyEvent,
    BowlIn,
    Clock,
    Designate,
    Event,
    Events,
    Forfeit,
    Foul,
    FreeHit,
    Goal,
    Mount,
    MountOut,
    MoveTo15,
    Return,
    ShootoutOrder,
    Shot,
    Substitute,
    Timeout,
    Undo,
    Whistle,
    convert_events,
)

__all__ = [
    "AT_MAX", "BY_TAG", "CLASSES", "EVENTS_MAX", "ID_MAX", "MOUNT_ID_RE", "PLAYER_MAX",
    "REASON_MAX", "TEAM_ID_MAX", "AnyEvent", "BowlIn", "Clock", "Designate", "Event",
    "Events", "Forfeit", "Foul", "FreeHit", "Goal", "Mount", "MountOut", "MoveTo15",
    "Return", "ShootoutOrder", "Shot", "Substitute", "Timeout", "Undo", "Whistle",
    "clean_events",
]


def clean_events(events: list[Any]) -> int:
    """The position (0-based) of the first event the Structs do not accept as it is, or
    ``len(events)`` (a string is accepted whatever its characters: whether it is plain
    ASCII, and so already in NFC, is :func:`~chukker.record.definitions.first_unclean`'s
    question, asked natively)."""
    return convert_events(events)[1]
