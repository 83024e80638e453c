"""The JSON Schema of the match record, version 1 (``chukker schema``)."""

from __future__ import annotations

from typing import Any

from chukker.engine.types import (
    End,
    EventType,
    Penalty,
    PeriodsOption,
    ShootoutPlayers,
    ShotResult,
    Tiebreak,
    TwoPointLine,
)
from chukker.rules.editions import EDITIONS


def _enum(e: Any) -> list[str]:
    return [str(m) for m in e]


def _event(type_: EventType, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "at": {"$ref": "#/$defs/at"},
            "type": {"const": str(type_)},
            **props,
        },
        "required": ["at", "type", *required],
    }


def schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``chukker-match/1``.

    >>> s = schema()
    >>> s["properties"]["format"]["const"]
    'chukker-match/1'
    """
    team_ref = {"type": "string", "minLength": 1, "maxLength": 16}
    player = {"type": "integer", "minimum": 1, "maximum": 3}
    spot = {
        "type": "array",
        "items": {"type": "number"},
        "minItems": 2,
        "maxItems": 2,
        "description": "[x, y] in yards; x from the west wall (0-100), y across (0-50)",
    }
    events = [
        _event(EventType.BOWL_IN, {}, []),
        _event(EventType.WHISTLE, {"reason": {"type": "string"}, "spot": spot}, []),
        _event(
            EventType.GOAL,
            {"team": team_ref, "player": player, "two_point": {"type": "boolean"}},
            ["team"],
        ),
        _event(
            EventType.FOUL,
            {
                "team": team_ref,
                "player": player,
                "clause": {"type": "string"},
                "penalty": {
                    "anyOf": [
                        {"enum": _enum(Penalty)},
                        {"type": "integer", "minimum": 1, "maximum": 10},
                    ]
                },
                "card": {"type": "string"},
                "spot": spot,
                "disabled": player,
                "removed": player,
                "substitute": {"type": "boolean"},
                "equipment": {"type": "boolean"},
            },
            ["team", "penalty"],
        ),
        _event(EventType.FREE_HIT, {}, []),
        _event(
            EventType.TIMEOUT,
            {
                "reason": {"type": "string", "minLength": 1},
                "team": team_ref,
                "player": player,
                "spot": spot,
            },
            ["reason"],
        ),
        _event(EventType.FORFEIT, {"team": team_ref}, ["team"]),
        _event(
            EventType.SHOOTOUT_ORDER,
            {
                "first": team_ref,
                "order": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "array",
                        "items": player,
                        "minItems": 1,
                        "maxItems": 3,
                    },
                },
            },
            ["first", "order"],
        ),
        _event(
            EventType.SHOT,
            {
                "team": team_ref,
                "player": player,
                "result": {"enum": _enum(ShotResult)},
                "reached_end_wall": {"type": "boolean"},
            },
            ["team", "player", "result"],
        ),
        _event(EventType.MOVE_TO_15, {}, []),
        _event(EventType.UNDO, {"event": {"type": "integer", "minimum": 1}}, ["event"]),
    ]
    team = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "captain": player,
            "players": {
                "type": "array",
                "minItems": 3,
                "maxItems": 3,
                "items": {
                    "type": "object",
                    "properties": {
                        "no": player,
                        "name": {"type": "string"},
                        "handicap": {"type": "integer"},
                    },
                    "required": ["no"],
                },
            },
        },
        "required": ["captain", "players"],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://chukker.invalid/schema/chukker-match-1.json",
        "title": "chukker match record, version 1",
        "type": "object",
        "$defs": {
            "at": {
                "type": "number",
                "minimum": 0,
                "description": "seconds since the record started, up to millisecond precision",
            },
        },
        "properties": {
            "format": {"const": "chukker-match/1"},
            "rules": {"enum": list(EDITIONS)},
            "options": {
                "type": "object",
                "properties": {
                    "periods": {"enum": _enum(PeriodsOption)},
                    "split_periods": {"type": "boolean"},
                    "tiebreak": {"enum": _enum(Tiebreak)},
                    "shootout_players": {"enum": _enum(ShootoutPlayers)},
                    "handicap": {"type": "boolean"},
                    "warning_horn": {"type": "boolean"},
                    "two_point_line": {"enum": _enum(TwoPointLine)},
                    "first_defends": {
                        "type": "object",
                        "additionalProperties": {"enum": _enum(End)},
                        "minProperties": 2,
                        "maxProperties": 2,
                    },
                },
            },
            "teams": {
                "type": "object",
                "minProperties": 2,
                "maxProperties": 2,
                "additionalProperties": team,
            },
            "events": {"type": "array", "items": {"oneOf": events}},
        },
        "required": ["teams"],
    }
