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
from chukker.engine.events import convert_events
from chukker.engine.match import collector_waits
from chukker.record.definitions import free_text_plain, plain_ascii, validate_event
from chukker.record.errors import RecordError
from chukker.record.io import (
    Format,
    dumps,
    format_of,
    header_and_setup,
    load_path,
    loads,
    normalised,
    parse,
    read_setup_and_events,
    read_typed,
    record_setup,
    setup_of,
    typed_events,
    validate_header,
    validate_record,
)
from chukker.record.schema import schema


@collector_waits
def replay(
    record: Mapping[str, Any], at_ms: int | None = None, *, strict: bool = True
) -> dict[str, Any]:
    """Replay a whole record; raises :class:`RecordError` (the header, or the first event
    that breaks the record's definitions) or the first :class:`EngineError`, whichever
    event comes first.

    ``strict=False`` leaves the events to the engine alone (which refuses any bad input
    with an :class:`EngineError`, never another exception): for records already checked,
    e.g. by :func:`loads`.

    The collector waits for the whole of it, the events' typing included, as it does
    for the engine's replay (:func:`chukker.engine.match.collector_waits`)."""
    setup = record_setup(record)
    events = record.get("events", [])
    if not strict:
        return _replay(setup, events, at_ms)
    if at_ms is None and type(events) is list:
        # the common case: every event as its class takes it, every free text plain ASCII
        typed, k = convert_events(events)
        if k == len(events) and free_text_plain(typed):
            try:
                return _replay(setup, typed, None)
            except EngineError:
                if plain_ascii(events):
                    raise
            # a string not plain ASCII (a team's, say) that the fold refused: the
            # detailed check below normalises it, or refuses it in its own words
    events, bad = typed_events(events)  # normalised: the engine sees what the API stores
    if bad is None:
        return _replay(setup, events, at_ms)
    _replay(setup, events, at_ms)  # an earlier refusal by the engine comes first
    raise bad[1]


@collector_waits  # the decoding and the fold, one wait
def replay_text(text: str, fmt: Format = "json", at_ms: int | None = None) -> dict[str, Any]:
    """:func:`replay` of a record's text, read once: a JSON record's events decoded
    straight into their classes (:func:`read_typed`, issue 46), any other text parsed
    (:func:`parse`) and replayed as a dict. The same report and the same refusals.

    >>> text = ('{"teams": {"A": {"captain": 1, "players": [{"no": 1}, {"no": 2}, {"no": 3}]},'
    ...         ' "B": {"captain": 1, "players": [{"no": 1}, {"no": 2}, {"no": 3}]}},'
    ...         ' "events": [{"at": 0, "type": "bowl_in"}, {"at": 61.25, "type": "goal",'
    ...         ' "team": "A"}]}')
    >>> replay_text(text, at_ms=70_000)["score"]
    {'A': 1, 'B': 0}
    """
    if fmt == "json":
        got = read_setup_and_events(text)
        if got is not None:
            return _replay(got[0], got[1], at_ms)
    return replay(parse(text, fmt), at_ms)


def check(record: Mapping[str, Any]) -> list[ValueError]:
    """Every problem of a record: a header error, or each event that breaks the record's
    definitions or is refused by the engine (lenient mode), in order."""
    try:
        setup = header_and_setup(record)[1]
    except RecordError as e:
        return [e]
    events = record.get("events", [])
    if not isinstance(events, list):
        return [RecordError(code="field_type", path="record.events", expected="a list")]
    bad: dict[int, RecordError] = {}
    fed = list(events)  # normalised where valid: the engine sees what the API stores
    for k, ev in enumerate(events):
        try:
            fed[k] = validate_event(ev, f"event {k + 1}", require_at=True)
        except RecordError as e:
            bad[k + 1] = e
    problems: list[ValueError] = list(bad.values())
    problems += [e for e in _check(setup, fed) if e.index not in bad]
    return sorted(problems, key=lambda p: getattr(p, "index", 0) or _index(p))


def _index(p: ValueError) -> int:
    path = str(getattr(p, "params", {}).get("path", ""))
    num = path.removeprefix("event ").split(".")[0]
    return int(num) if num.isdigit() else 0


__all__ = [
    "EngineError",
    "Format",
    "RecordError",
    "check",
    "dumps",
    "format_of",
    "load_path",
    "loads",
    "normalised",
    "parse",
    "read_typed",
    "replay",
    "replay_text",
    "schema",
    "setup_of",
    "validate_event",
    "validate_header",
    "validate_record",
]
