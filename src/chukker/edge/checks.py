"""What an edge checks of each NATS message before it stores anything (issue 41).

In order, each cheaper than the next: its size; the officials' signature
(:func:`chukker.feeds.nats.verified_seq`: an HMAC over subject, seq and body with the
shared ``nats.signing_key``); how deep its JSON nests, counted on the bytes before any
parse (:func:`too_deep`); its shape (the subject names what the body is, every number
in range); then the record's definitions (a header as :func:`chukker.record.validate_header`,
an event as :func:`chukker.record.validate_event`). The engine's acceptance of an event
is the replica's own last check (it folds the match). A message refused is counted,
logged once and passed: never stored, never read again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from chukker.config import NatsSettings
from chukker.errors import ChukkerError
from chukker.feeds.nats import KINDS, Unsigned, verified_seq
from chukker.record import RecordError, validate_event, validate_header
from chukker.store.base import MATCH_ID

#: a message nests its JSON at most this deep (a tournament's upload: about 8)
MAX_DEPTH = 32
#: epoch milliseconds before this (the year 2286) are times; anything later is not
MAX_EPOCH_MS = 10**13
#: a record's milliseconds (a match lasts hours, not years)
MAX_RECORD_MS = 10**9
#: a tournament event's kinds (chukker.live.tournaments.Kind)
TOURNAMENT_KINDS = frozenset({"uploaded", "updated", "moved", "live_made", "result"})
#: archived matches one message may name
MAX_ARCHIVED = 1_000_000


class Refused(ChukkerError):
    """A message an edge does not store: ``reason`` is the counter it goes to (and the
    code: ``edge_<reason>``)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        self.reason = reason
        super().__init__(f"{reason}: {detail}" if detail else reason, code=f"edge_{reason}",
                         params={"reason": reason, "detail": detail})


def too_deep(data: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether the JSON text ``data`` opens more than ``limit`` arrays or objects inside
    each other (strings skipped), read byte by byte: nothing is parsed.

    >>> too_deep(b'{"a":[1,{"b":"[[[["}]}', 3), too_deep(b"[" * 33), too_deep(b"[" * 32)
    (False, True, False)
    """
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    depth = 0
    in_str = escaped = False
    for b in data:
        if in_str:
            if escaped:
                escaped = False
            elif b == 0x5C:  # backslash
                escaped = True
            elif b == 0x22:  # quote
                in_str = False
        elif b == 0x22:
            in_str = True
        elif b in (0x5B, 0x7B):
            depth += 1
            if depth > limit:
                return True
        elif b in (0x5D, 0x7D):
            depth -= 1
    return False


def epoch_ms(v: Any, what: str, top: int = MAX_EPOCH_MS) -> int:
    """``v`` as milliseconds from 0 to ``top`` (not a bool, not a float)."""
    if type(v) is not int or not 0 <= v < top:
        raise Refused("out_of_range", f"{what} is not a time in milliseconds")
    return v


def text(v: Any, what: str, max_len: int) -> str:
    if not isinstance(v, str) or not 0 < len(v) <= max_len:
        raise Refused("malformed", f"{what} is not text of 1 to {max_len} characters")
    return v


def message(settings: NatsSettings, subj: str, headers: Mapping[str, str] | None,
            data: bytes) -> dict[str, Any]:
    """The message's body if it may be applied; :class:`Refused` with the reason."""
    if len(data) > settings.max_message_bytes:
        raise Refused("too_large", f"{len(data)} bytes")
    try:
        seq = verified_seq(settings.signing_key, subj, headers, data)
    except Unsigned as e:
        raise Refused("unsigned" if str(e) == "unsigned" else "bad_signature") from None
    except ValueError:
        seq = None  # no key on this edge: the body's seq alone
    if too_deep(data):
        raise Refused("too_deep", f"JSON nested deeper than {MAX_DEPTH}")
    try:
        m = json.loads(data)
    except (ValueError, RecursionError) as e:
        raise Refused("malformed", f"not JSON: {str(e)[:100]}") from None
    if not isinstance(m, dict) or m.get("kind") not in KINDS or type(m.get("seq")) is not int:
        raise Refused("malformed", "not a chukker message")
    if seq is not None and m["seq"] != seq:
        raise Refused("malformed", "the body's seq is not the signed one")
    if not 0 <= m["seq"] < 10**9:
        raise Refused("out_of_range", "seq")
    _subject_names_it(settings.prefix, subj, m)
    return m


def _subject_names_it(prefix: str, subj: str, m: dict[str, Any]) -> None:
    """The subject and the body name the same thing (a signed message moved to another
    match's subject is refused)."""
    kind = m["kind"]
    rest = subj[len(prefix) + 1:] if subj.startswith(prefix + ".") else ""
    what, _, ident = rest.partition(".")
    expected = {"header": "match", "event": "match", "horn": "audit",
                "tournament": "tournament", "archive": "archive"}[kind]
    if what != expected:
        raise Refused("malformed", f"a {kind} message on {subj[:100]}")
    if kind == "archive":
        return
    key = "tournament_id" if kind == "tournament" else "match_id"
    ident_in_body = m.get(key)
    if not isinstance(ident_in_body, str) or ident_in_body != ident or \
            not MATCH_ID.match(ident):
        raise Refused("malformed", f"{key} is not the subject's")


def header(m: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """A match's header (checked against the record's definitions) and its creation."""
    h = m.get("header")
    if not isinstance(h, dict):
        raise Refused("malformed", "a header that is not an object")
    created = epoch_ms(m.get("created_ms"), "created_ms")
    try:
        validate_header(h)
    except (RecordError, ValueError, TypeError) as e:
        raise Refused("definitions", str(e)[:200]) from None
    return h, created


def event(m: dict[str, Any]) -> tuple[dict[str, Any], str, int, str, int | None]:
    """An event (checked against the record's definitions), its command id, when it
    was recorded, who sent it and the record's start."""
    ev = m.get("event")
    if not isinstance(ev, dict):
        raise Refused("malformed", "an event that is not an object")
    try:
        validate_event(ev, require_at=True)
    except (RecordError, ValueError, TypeError) as e:
        raise Refused("definitions", str(e)[:200]) from None
    start = m.get("start_ms")
    return (ev, text(m.get("command_id"), "command_id", 256),
            epoch_ms(m.get("recorded_ms"), "recorded_ms"), text(m.get("actor"), "actor", 32),
            None if start is None else epoch_ms(start, "start_ms"))


def horn(m: dict[str, Any]) -> tuple[int, int, str, int]:
    period = m.get("period")
    if type(period) is not int or not 0 <= period <= 1000:
        raise Refused("out_of_range", "period")
    return (epoch_ms(m.get("at_ms"), "at_ms", MAX_RECORD_MS), period,
            text(m.get("horn_kind"), "horn_kind", 32),
            epoch_ms(m.get("sounded_ms"), "sounded_ms"))


def tournament(m: dict[str, Any]) -> tuple[str, dict[str, Any], int]:
    kind = m.get("event_kind")
    if kind not in TOURNAMENT_KINDS:
        raise Refused("definitions", "not a tournament event's kind")
    body = m.get("body")
    if not isinstance(body, dict):
        raise Refused("malformed", "a tournament event that is not an object")
    if m["seq"] < 1:
        raise Refused("out_of_range", "seq")
    return str(kind), body, epoch_ms(m.get("recorded_ms"), "recorded_ms")


def archive(m: dict[str, Any]) -> tuple[list[str], int]:
    ids = m.get("archived")
    if not isinstance(ids, list) or len(ids) > MAX_ARCHIVED or \
            not all(isinstance(x, str) and MATCH_ID.match(x) for x in ids):
        raise Refused("malformed", "archive flags that are not a list of match ids")
    return ids, epoch_ms(m.get("at_ms"), "at_ms")
