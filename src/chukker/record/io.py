"""The match record, version 1: JSON (canonical) and TOML (for hand-writing).

``loads`` and ``dumps`` round-trip exactly: ``loads(dumps(r)) == r`` for every
valid record and ``dumps(loads(s)) == s`` for canonical JSON text.

>>> text = dumps({"format": "chukker-match/1", "rules": "uspa-arena-2026", "teams": {
...     "A": {"name": "Blue", "captain": 1, "players": [{"no": n} for n in (1, 2, 3)]},
...     "B": {"name": "White", "captain": 1, "players": [{"no": n} for n in (1, 2, 3)]}},
...     "events": [{"at": 0.0, "type": "bowl_in"}]})
>>> loads(dumps(loads(text), "toml"), "toml") == loads(text)
True
>>> try:
...     loads('{"format": "chukker-match/1",\\n "teams": 3,}')
... except RecordError as e:
...     print(e.code, e.params["line"], e.params["column"])
not_well_formed 2 13
"""

from __future__ import annotations

import json
import marshal
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Literal

import msgspec
import tomli_w

from chukker.engine import SetupError
from chukker.engine.events import NOT_CONVERTED, AnyEvent, convert_events
from chukker.engine.fold import typed_all
from chukker.engine.setup import Setup
from chukker.record.definitions import (
    checked_header_doc,
    first_unclean,
    is_clean_event,
    plain_ascii,
    validate_event,
)
from chukker.record.errors import RecordError as RecordError
from chukker.record.events import EVENTS_MAX

Format = Literal["json", "toml"]
_HEAD = ("format", "rules", "options", "teams", "events")


def format_of(path: str | Path) -> Format:
    """``toml`` for ``*.toml`` files, else ``json``."""
    return "toml" if str(path).lower().endswith(".toml") else "json"


def parse(text: str, fmt: Format = "json") -> dict[str, Any]:
    """Parse text into a record dict without validating it."""
    if fmt == "toml":
        try:
            doc: Any = tomllib.loads(text)
        except RecursionError:
            raise RecordError(code="too_deep", path="record") from None
        except tomllib.TOMLDecodeError as e:
            msg = str(e)
            m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
            if m:
                base = msg[: m.start()].strip()
                raise RecordError(base, int(m.group(1)), int(m.group(2))) from None
            m = re.search(r"\(at end of document\)", msg)
            lines = text.splitlines() or [""]
            if m:
                raise RecordError(
                    msg[: m.start()].strip(), len(lines), len(lines[-1]) + 1
                ) from None
            raise RecordError(msg) from None
    else:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as e:
            raise RecordError(e.msg, e.lineno, e.colno) from None
        except RecursionError:
            raise RecordError(code="too_deep", path="record") from None
        except ValueError as e:  # e.g. an integer of more than 4,300 digits
            raise RecordError(str(e)) from None
    if not isinstance(doc, dict):
        raise RecordError(code="record_not_an_object")
    return doc


def validate_header(doc: Any) -> dict[str, Any]:
    """A normalised copy of a record's header (without its events), checked against the
    record's definitions and the rules (Rule 3: rosters; editions: options);
    :class:`RecordError` naming the field."""
    return header_and_setup(doc)[0]


def header_and_setup(doc: Any) -> tuple[dict[str, Any], Setup]:
    """:func:`validate_header` and the :class:`~chukker.engine.Setup` it describes.

    A header with the quick yes (exact JSON types, plain ASCII) and no field beyond the
    set-up's own has its set-up kept (:func:`known_setup`), keyed by its canonical JSON."""
    clean, quick = _checked_header(doc)
    if quick and clean.keys() <= _SETUP_FIELDS:
        # exact types: equal keys are equal headers (1, 1.0 and true differ; no float of
        # these fields may be NaN, the Structs' bounds refuse it)
        return clean, known_setup(_CANONICAL.encode(clean), clean)
    return clean, setup_of(clean)


def record_setup(doc: Any) -> Setup:
    """``header_and_setup(doc)[1]`` without the header's copy, for a replay: a record whose
    header was read before, as the same Python values of the same types (its ``marshal``,
    key order included), has the set-up kept for it (:func:`known_setup`), neither checked
    nor built again; the events' own limit is checked each time. A record without an
    events list, or with a value ``marshal`` cannot write, is read by
    :func:`header_and_setup`.

    Equal keys are equal headers: ``marshal`` (version 4) writes each value's type (``1``,
    ``1.0`` and ``True``, a tuple and a list differ), a float's bits, and refuses any
    subclass (a ``str`` of another class, an ``IntEnum``), which is then read afresh. Its
    bytes also say which objects the header shares, and whether a string is interned: the
    same values shared otherwise are another key, a miss that builds the same set-up
    again, never another header's hit (``docs/engine.md``, "Keyed by its marshal").
    """
    if type(doc) is dict:
        events = doc.get("events")
        if type(events) is list and len(events) <= EVENTS_MAX:
            header = doc.copy()  # one copy of the table, cheaper than a comprehension
            del header["events"]
            try:
                key = marshal.dumps(header, 4)
            except Exception:  # noqa: BLE001 (not a value marshal writes: read it afresh)
                return header_and_setup(doc)[1]
            # marshal's dict starts with "{" (or 0xfb) then a type code, never '"' or "}":
            # never a canonical JSON key (``known_setup``), nor a text's (a field's name)
            setup = _SETUPS.get(key)
            if setup is None:  # checked and built once, kept by this key alone
                setup = _keep(key, setup_of(_checked_header(doc)[0]))
            return setup
    return header_and_setup(doc)[1]


def _checked_header(doc: Any) -> tuple[dict[str, Any], bool]:
    """The header's checked copy without its events, and whether it had the quick yes."""
    clean, quick = checked_header_doc(doc)
    clean.pop("events", None)
    return clean, quick


#: the set-ups of headers read before (issue 46), by the header's text: a set-up is frozen
#: and a function of its header alone, so a header seen again (the same match replayed, a
#: generator's records of one pair of teams) is not checked and built again. Only
#: accepted headers are kept; at most ``SETUPS_MAX``, emptied when full.
_SETUPS: dict[bytes, Setup] = {}
SETUPS_MAX: Final = 1024
#: the header's fields a set-up reads (a club's ``edition``, ``meta`` and any other field
#: are not keyed: their set-ups are built each time)
_SETUP_FIELDS: Final = frozenset({"format", "rules", "options", "teams"})
_CANONICAL: Final = msgspec.json.Encoder()


def known_setup(key: bytes, clean: Mapping[str, Any]) -> Setup:
    """The set-up of the checked header ``clean``, whose text (or canonical JSON) is
    ``key``: the one kept for ``key``, or :func:`setup_of` ``clean``, kept."""
    setup = _SETUPS.get(key)
    return _keep(key, setup_of(clean)) if setup is None else setup  # refused: raises


def _keep(key: bytes, setup: Setup) -> Setup:
    if len(_SETUPS) >= SETUPS_MAX:
        _SETUPS.clear()
    _SETUPS[key] = setup
    return setup


def setup_of(doc: Mapping[str, Any]) -> Setup:
    """The :class:`~chukker.engine.Setup` of a header; :class:`RecordError` if invalid."""
    try:
        return Setup.from_dict(doc)
    except SetupError as e:
        raise RecordError(code=e.code, **e.params) from None


def checked_events(events: Any) -> tuple[list[Any], tuple[int, RecordError] | None]:
    """The events as the definitions normalise them (an event with a quick yes is kept as
    it is, the others are :func:`validate_event`'s copies: strings in NFC, ``2.0`` as
    ``2``), up to the first that breaks them, and that one (0-based) with its error, or
    ``None``. Not a list: ``([], None)`` (the header's check says so)."""
    if not isinstance(events, list):
        return [], None
    start = first_unclean(events)
    if start == len(events):
        return events, None
    out = events[:start]
    for k in range(start, len(events)):
        ev = events[k]
        if is_clean_event(ev):
            out.append(ev)
            continue
        try:
            out.append(validate_event(ev, f"event {k + 1}", require_at=True))
        except RecordError as e:
            return out, (k, e)
    return out, None


def typed_events(events: Any) -> tuple[list[Any], tuple[int, RecordError] | None]:
    """:func:`checked_events`, each event typed as its class (issue 46): checked and typed
    in one msgspec call when the events are as the definitions would leave them (the
    common case), else normalised one by one and then typed.

    >>> typed_events([{"at": 0, "type": "bowl_in"}])
    ([BowlIn(at=0.0)], None)
    """
    if not isinstance(events, list):
        return [], None
    typed, k = convert_events(events)
    if k == len(events) and plain_ascii(events):
        return typed, None
    checked, bad = checked_events(events)
    return typed_all(checked), bad


#: a JSON record's top level, each value left as its text (the events are read typed)
_TOP: Final = msgspec.json.Decoder(dict[str, msgspec.Raw])
_TYPED: Final = msgspec.json.Decoder(list[AnyEvent])
_ANY: Final = msgspec.json.Decoder()
#: what msgspec says of a text it does not read as the fast path needs
_NOT_READ: Final = (msgspec.DecodeError, *NOT_CONVERTED)


def read_typed(text: str) -> tuple[dict[str, Any], Setup, list[Any]] | None:
    """A JSON record read once, its events decoded straight into their classes (issue 46):
    the normalised header, its :class:`~chukker.engine.Setup` and the typed events.

    This is the common case's path: a text of plain ASCII without ``\\u`` escapes (so
    every string is in NFC already), each event as its definition says. ``None`` when it
    is not that case: :func:`parse` and :func:`normalised` read it, and word what is
    wrong. A header the definitions refuse raises :class:`RecordError` here as there.

    >>> head, setup, events = read_typed(
    ...     '{"teams": {"A": {"captain": 1, "players": [{"no": 1}, {"no": 2}, {"no": 3}]},'
    ...     ' "B": {"captain": 1, "players": [{"no": 1}, {"no": 2}, {"no": 3}]}},'
    ...     ' "events": [{"at": 0, "type": "bowl_in"}]}')
    >>> events
    [BowlIn(at=0.0)]
    """
    got = _read_top(text)
    doc = None if got is None else _header_doc(*got)
    if got is None or doc is None:
        return None
    header, setup = header_and_setup(doc)
    return header, setup, got[1]


def read_setup_and_events(text: str) -> tuple[Setup, list[Any]] | None:
    """:func:`read_typed` without the header's copy: the set-up and the typed events. A
    header whose text was read before (byte for byte, its key order and spacing too) is
    neither decoded nor checked again: its set-up is the one kept (:func:`known_setup`).
    """
    got = _read_top(text)
    if got is None:
        return None
    top, events = got
    key = None  # too many events: the header's check refuses them, nothing is kept
    setup = None
    if len(events) <= EVENTS_MAX:
        # the text's keys hold a NUL, a canonical JSON never does
        key = b"\0".join(k.encode() + b"\0" + bytes(v) for k, v in top.items()
                         if k != "events")
        setup = _SETUPS.get(key)
    if setup is None:
        doc = _header_doc(top, events)
        if doc is None:
            return None
        setup = header_and_setup(doc)[1]
        if key is not None:
            _keep(key, setup)
    return setup, events


def _read_top(text: str) -> tuple[dict[str, msgspec.Raw], list[Any]] | None:
    """A JSON record's top level, each value as its text, and its events decoded into
    their classes; ``None`` unless the text is plain ASCII without ``\\u`` escapes and
    msgspec reads it so."""
    if not text.isascii() or "\\u" in text:
        return None
    try:
        top = _TOP.decode(text)
        raw = top.get("events")
        return top, [] if raw is None else _TYPED.decode(raw)
    except _NOT_READ:
        return None


def _header_doc(top: dict[str, msgspec.Raw], events: list[Any]) -> dict[str, Any] | None:
    """The record's dict from :func:`_read_top`: the header's values decoded, in the
    text's key order, ``events`` the typed ones; ``None`` if msgspec cannot read one."""
    try:
        return {k: events if k == "events" else _ANY.decode(v) for k, v in top.items()}
    except _NOT_READ:
        return None


def normalised(doc: Any) -> tuple[dict[str, Any], Setup]:
    """The whole record checked against the definitions (header and each event) and
    normalised once, in the document's own key order, with the set-up it describes:
    what the loader returns. :class:`RecordError` for the first problem."""
    header, setup = header_and_setup(doc)
    events, bad = checked_events(doc.get("events", []))
    if bad is not None:
        raise bad[1]
    out = {k: header[k] if k != "events" else None if doc[k] is None else events for k in doc}
    return out, setup


def validate_record(doc: Any) -> Setup:
    """Check a whole record's header and events against the definitions: the loader's
    check and ``chukker check``'s; :class:`RecordError` for the first problem."""
    return normalised(doc)[1]


def loads(text: str, fmt: Format = "json") -> dict[str, Any]:
    """Parse and validate a record (its header and each event against the record's
    definitions; whether the events are legal is for the engine), normalised once: the
    strings in NFC, an integral number where a whole number is required (``10.0``) as
    the int (``10``), so that everything after the loader sees what the API stores."""
    return normalised(parse(text, fmt))[0]


def load_path(path: str | Path) -> dict[str, Any]:
    """Read a record file (``.toml`` or JSON); :class:`RecordError` if unreadable."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise RecordError(code="unreadable", path=str(p), detail=str(e.strerror or e)) from None
    except UnicodeDecodeError:
        raise RecordError(code="not_utf8", path=str(p)) from None
    return loads(text, format_of(p))


def _ordered(record: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: record[k] for k in _HEAD if k in record}
    out.update((k, v) for k, v in record.items() if k not in out)
    if isinstance(out.get("events"), list):
        evs = []
        for e in out["events"]:
            if isinstance(e, Mapping):
                o = {k: e[k] for k in ("at", "type") if k in e}
                o.update((k, v) for k, v in e.items() if k not in o)
                evs.append(o)
            else:
                evs.append(e)
        out["events"] = evs
    return out


def dumps(record: Mapping[str, Any], fmt: Format = "json") -> str:
    """The canonical text of a record.

    JSON: two-space indentation, the contract's key order, one event per line.
    TOML: ``[options]``, ``[teams.X]`` tables and an ``[[events]]`` array.
    """
    doc = _ordered(record)
    if fmt == "toml":
        return tomli_w.dumps(_no_nulls(doc))
    events = doc.pop("events", None)
    body = json.dumps(doc, indent=2, ensure_ascii=False)
    if events is None:
        return body + "\n"
    lines = [json.dumps(e, ensure_ascii=False, separators=(", ", ": ")) for e in events]
    ev_text = "[]" if not lines else "[\n    " + ",\n    ".join(lines) + "\n  ]"
    if body == "{}":
        return '{\n  "events": ' + ev_text + "\n}\n"
    return body[:-2] + ',\n  "events": ' + ev_text + "\n}\n"


def _no_nulls(v: Any) -> Any:
    if isinstance(v, Mapping):
        return {k: _no_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [_no_nulls(x) for x in v]
    return v
