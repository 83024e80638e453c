"""The match record: JSON (canonical) and TOML forms, validation, replay and check.

>>> rec = {"teams": {t: {"captain": 1, "players": [{"no": n} for n in (1, 2, 3)]}
...                  for t in ("A", "B")},
...        "events": [{"at": 0, "type": "bowl_in"}, {"at": 61.25, "type": "goal", "team": "A"}]}
>>> r = replay(rec, at_ms=70_000)
>>> r["status"], r["score"], r["clock"]
('in_play', {'A': 1, 'B': 0}, {'remaining_ms': 380000, 'running': True})
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chukker.engine import EngineError
from chukker.engine import check as _check
from chukker.engine import replay as _replay
from chukker.record.io import (
    Format,
    RecordError,
    dumps,
    format_of,
    load_path,
    loads,
    parse,
    validate_header,
)
from chukker.record.schema import schema


def replay(record: Mapping[str, Any], at_ms: int | None = None) -> dict[str, Any]:
    """Replay a whole record; raises :class:`RecordError` or the first :class:`EngineError`."""
    setup = validate_header(record)
    return _replay(setup, record.get("events", []), at_ms)


def check(record: Mapping[str, Any]) -> list[ValueError]:
    """Every problem of a record: a header error, or each refused event (lenient mode)."""
    try:
        setup = validate_header(record)
    except RecordError as e:
        return [e]
    return list(_check(setup, record.get("events", [])))


__all__ = [
    "EngineError",
    "Format",
    "RecordError",
    "check",
    "dumps",
    "format_of",
    "load_path",
    "loads",
    "parse",
    "replay",
    "schema",
    "validate_header",
]
