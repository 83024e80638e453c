"""The match record's fields, defined once: the validators and the JSON Schema come from here.

Every event type and the header are tables of fields (:class:`Field`): type,
range, length, allowed values; each event type's table is read from its class in
:mod:`chukker.record.events` (issue 46: one definition per event type).
:func:`validate_event` and :func:`validate_header_doc` check a value against them
and return a normalised copy (strings in NFC); :func:`json_schema` writes the same tables as JSON
Schema. Unknown fields are refused, strings must be valid Unicode (no lone
surrogates), numbers finite and in range.

>>> validate_event({"at": 61.25, "type": "goal", "team": "A", "player": 2})
{'at': 61.25, 'type': 'goal', 'team': 'A', 'player': 2}
>>> validate_event({"at": 1, "type": "goal", "team": "A", "colour": "red"})
Traceback (most recent call last):
...
chukker.record.errors.RecordError: event.colour: unknown field
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Final, get_args, get_origin

import msgspec

from chukker.engine.errors import show
from chukker.engine.events import (
    BY_TAG,
    NOT_CONVERTED,
    Clock,
    Foul,
    ShootoutOrder,
    Timeout,
    Whistle,
)
from chukker.engine.options import by_fields
from chukker.engine.types import (
    End,
    EventType,
    PeriodsOption,
    ShootoutPlayers,
    Tiebreak,
    TwoPointLine,
)
from chukker.record import events as _events
from chukker.record import header as _header
from chukker.record.errors import RecordError
from chukker.record.events import (
    AT_MAX,
    EVENTS_MAX,
    ID_MAX,
    MOUNT_ID_RE,
    PLAYER_MAX,
    REASON_MAX,
    TEAM_ID_MAX,
)
from chukker.record.header import (
    HANDICAP_MAX,
    HANDICAP_MIN,
    MOUNTS_MAX,
    NAME_MAX,
    PLAN_KEY_RE,
    ROSTER_MAX,
)
from chukker.rules.editions import EDITIONS, FEATURES

#: ``meta``, the free notes: levels, items per list or object, the largest number
META_DEPTH, META_ITEMS, META_NUMBER = 4, 50, 10**15


@dataclass(frozen=True, slots=True)
class Field:
    """One field: ``kind`` is ``int``, ``number``, ``string``, ``bool``, ``enum``,
    ``spot``, ``ints`` (a list of whole numbers), ``order``, ``penalty`` or
    ``int_or_bool``."""

    kind: str
    required: bool = False
    min: float | None = None
    max: float | None = None
    max_len: int | None = None
    values: tuple[str, ...] = ()
    description: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)


def _int(lo: int, hi: int, required: bool = False, d: str = "") -> Field:
    return Field("int", required, lo, hi, description=d)


def _str(max_len: int, required: bool = False, d: str = "", min_len: int = 0) -> Field:
    return Field("string", required, min_len, None, max_len, description=d)


OPT_TEAM = Field("string", False, 1, None, TEAM_ID_MAX, description="a team's key")
PLAYER = _int(1, PLAYER_MAX, True, "a player's number on the team's sheet")
BOOL = Field("bool")
MOUNT = Field("mount_id", True, description="a mount's id on the team's list ([a-z0-9-], 1-32)")

def _meta_of(tp: Any) -> tuple[Any, Any] | None:
    """The annotated type in ``tp`` whose msgspec ``Meta`` names the detailed check's
    kind, and that ``Meta`` (an optional field's type is a union with null and unset)."""
    if get_origin(tp) is Annotated:
        for m in tp.__metadata__:
            if isinstance(m, msgspec.Meta) and m.extra and "kind" in m.extra:
                return tp, m
    for arg in get_args(tp):
        found = _meta_of(arg)
        if found is not None:
            return found
    return None


def _field_of(tp: Any, required: bool) -> Field:
    """The :class:`Field` the detailed check and the JSON Schema read, from a Struct
    field's annotation (:mod:`chukker.record.events`)."""
    found = _meta_of(tp)
    assert found is not None, tp
    base, meta = found
    extra = meta.extra
    kind, d = str(extra["kind"]), str(extra.get("description", ""))
    if kind in ("int", "number"):
        return Field(kind, required, meta.ge, meta.le, description=d)
    if kind == "string":
        return Field(kind, required, meta.min_length or 0, None, meta.max_length, description=d)
    if kind in ("enum", "penalty"):
        return Field(kind, required, values=get_args(get_args(base)[0]), description=d)
    if kind == "int_or_bool":
        return Field(kind, required, extra["lo"], extra["hi"], description=d)
    return Field(kind, required, description=d)


def _table(cls: type[_events.Event]) -> dict[str, Field]:
    return {
        f.encode_name: _field_of(f.type, f.required)
        for f in msgspec.structs.fields(cls)
        if f.encode_name != "at"
    }


#: the fields of each event type, beside ``at`` and ``type``: read from its class
#: (:mod:`chukker.record.events`, the one definition)
EVENTS: dict[str, dict[str, Field]] = {
    EventType(str(c.__struct_config__.tag)): _table(c) for c in _events.CLASSES
}
AT = _field_of(msgspec.structs.fields(_events.Event)[0].type, True)

OPTIONS: dict[str, Field] = {
    "periods": Field("enum", values=tuple(str(v) for v in PeriodsOption)),
    "split_periods": BOOL,
    "tiebreak": Field("enum", values=tuple(str(v) for v in Tiebreak)),
    "shootout_players": Field("enum", values=tuple(str(v) for v in ShootoutPlayers)),
    "handicap": BOOL,
    "warning_horn": BOOL,
    "two_point_line": Field("enum", values=tuple(str(v) for v in TwoPointLine)),
    "first_defends": Field("first_defends"),
    "practice": Field("practice"),
}
#: the set-up refuses a practice length finer than a millisecond
MS = {"multipleOf": 0.001}
PRACTICE: dict[str, Field] = {
    "period_s": Field("number", True, 10, 3600, extra=MS),
    "interval_s": Field("number", True, 0, 3600, extra=MS),
}
PLAYER_DOC: dict[str, Field] = {
    "no": PLAYER,
    "name": _str(NAME_MAX),
    "handicap": _int(HANDICAP_MIN, HANDICAP_MAX, d="USPA arena handicap"),
}
TEAM_DOC: dict[str, Field] = {
    "name": _str(NAME_MAX),
    "captain": PLAYER,
    # how many (Rule 3: three, numbered 1-3) is the set-up's check, in Rule 3's words
    "players": Field("players", True, 0, ROSTER_MAX),
    "alternates": Field("players", False, 0, ROSTER_MAX),
    # version 1.2: the team's string of mounts (Rule 2: no mount plays for two teams)
    "mounts": Field("mounts", False, 0, MOUNTS_MAX),
    # version 1.3: the grooms' plan, player number -> the mounts in the order they go in
    "plan": Field("plan", False, 0, MOUNTS_MAX),
}
MOUNT_DOC: dict[str, Field] = {
    "id": MOUNT,
    "name": _str(NAME_MAX),
    "owner": _str(NAME_MAX),
}
#: the score sheet's details of the match (who, where, when): chukker's addition to the
#: header, shown on the sheet, never read by the engine
MATCH_INFO: dict[str, Field] = {
    k: _str(NAME_MAX if k != "event" else 120)
    for k in ("event", "venue", "date", "arena", "umpire_1", "umpire_2", "referee",
              "timekeeper", "scorer")
}
HEADER: dict[str, Field] = {
    "format": Field("enum", values=("chukker-match/1",)),
    "rules": Field("enum", values=(*EDITIONS, "club")),
    "edition": Field("edition", description="record 1.3: a club's own edition (with "
                     "\"rules\": \"club\"): base, name, the base's parameters in seconds, "
                     "without"),
    "options": Field("options"),
    "teams": Field("teams", True),
    "events": Field("events"),
    "meta": Field("meta", description="free notes (strings, numbers), not read by the engine"),
    "match_info": Field(
        "match_info", description="the score sheet's details: event, venue, date, officials"
    ),
}


# ------------------------------------------------------------------ checks
def _text(v: Any, path: str) -> str:
    if type(v) is not str:
        raise RecordError(code="field_type", path=path, expected="a string")
    if v.isascii():
        return v
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        raise RecordError(code="bad_unicode", path=path) from None
    return unicodedata.normalize("NFC", v)


def _number(v: Any, path: str, f: Field) -> int | float:
    t = type(v)
    if t is not int and t is not float:
        raise RecordError(code="field_type", path=path, expected="a number")
    lo, hi = f.min, f.max
    if t is float and not math.isfinite(v):
        raise RecordError(code="field_type", path=path, expected="a finite number")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise RecordError(code="field_range", path=path, min=_n(lo), max=_n(hi))
    return v  # type: ignore[no-any-return]


def _whole(v: Any, path: str) -> int:
    """An integral JSON number as the int it is: JSON (and JSON Schema's ``integer``) does
    not tell ``10.0`` from ``10``, so neither does the record; ``10.5``, ``true`` or a
    string stay refused (``field_type``, "a whole number")."""
    if type(v) is float and v.is_integer():
        return int(v)
    raise RecordError(code="field_type", path=path, expected="a whole number")


def _n(x: float | None) -> Any:
    return int(x) if x is not None and x == int(x) else x


def check(v: Any, f: Field, path: str) -> Any:
    """``v`` checked against ``f``; a normalised copy."""
    k = f.kind
    if k == "int":
        if type(v) is not int:
            v = _whole(v, path)
        return _number(v, path, f)
    if k == "number":
        return _number(v, path, f)
    if k == "string":
        s = _text(v, path)
        if f.max_len is not None and len(s) > f.max_len:
            raise RecordError(code="field_too_long", path=path, max=f.max_len)
        if f.min and len(s) < f.min:
            raise RecordError(code="field_required", path=path)
        return s
    if k == "bool":
        if type(v) is not bool:
            raise RecordError(code="field_type", path=path, expected="true or false")
        return v
    if k == "enum":
        if type(v) is not str or v not in f.values:
            raise RecordError(code="field_enum", path=path, value=show(v), allowed=list(f.values))
        return v
    if k == "penalty":
        if type(v) is float and v.is_integer():
            v = int(v)
        if type(v) is int and 1 <= v <= 10:
            return str(v)
        if type(v) is str and v.lower() in f.values:
            return v.lower()
        raise RecordError(code="field_enum", path=path, value=show(v), allowed=list(f.values))
    if k == "int_or_bool":
        if type(v) is bool:
            return v
        return check(v, _int(int(f.min or 1), int(f.max or PLAYER_MAX)), path)
    if k == "spot":
        if type(v) is not list or len(v) != 2:
            raise RecordError(code="field_type", path=path, expected="[x, y] in yards")
        return [
            _number(v[0], f"{path}[0]", Field("number", min=0, max=100)),
            _number(v[1], f"{path}[1]", Field("number", min=0, max=50)),
        ]
    if k == "mount_id":
        if type(v) is not str or not MOUNT_ID_RE.match(v):
            raise RecordError(
                code="field_type", path=path, expected="1-32 characters of a-z, 0-9 and -"
            )
        return v
    if k == "order":
        if type(v) is not dict or len(v) != 2:
            raise RecordError(code="field_type", path=path, expected="an object of two teams")
        out: dict[str, Any] = {}
        for team, lst in v.items():
            tp = f"{path}.{_key(team, path)}"
            check(team, OPT_TEAM, tp)
            if type(lst) is not list:
                raise RecordError(code="field_type", path=tp, expected="a list of players")
            if len(lst) > 20:
                raise RecordError(code="too_many_items", path=tp, max=20)
            out[team] = [check(p, PLAYER, f"{tp}[{i}]") for i, p in enumerate(lst)]
        return out
    raise AssertionError(k)  # pragma: no cover


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _key(k: Any, path: str) -> str:
    """A mapping key, checked like a short string (for paths and normalisation)."""
    s = _text(k, f"{path} (a key)")
    if len(s) > ID_MAX:
        raise RecordError(code="field_too_long", path=f"{path} (a key)", max=ID_MAX)
    return s


def _object(
    doc: Any, fields: Mapping[str, Field], path: str, special: Callable[..., Any] | None = None
) -> dict[str, Any]:
    if type(doc) is not dict:
        raise RecordError(code="field_type", path=path, expected="an object")
    for k in doc:
        if k not in fields:
            raise RecordError(code="unknown_field", path=_join(path, _key(k, path)))
    out: dict[str, Any] = dict.fromkeys(doc)  # the document's own order (nulls stay null)
    for k, f, ok in _plan(fields):
        v = doc.get(k)
        if v is None:
            if f.required:
                raise RecordError(code="field_required", path=_join(path, k))
            continue
        if ok is None:
            sub = _join(path, k)
            out[k] = special(v, f, sub) if special else check(v, f, sub)
        else:  # a plain field: the quick yes, else the full check (which says why)
            out[k] = v if ok(v) else check(v, f, _join(path, k))
    return out


_Plan = tuple[tuple[str, Field, Callable[[Any], bool] | None], ...]
_PLANS: dict[int, tuple[Mapping[str, Field], _Plan]] = {}


def _plan(fields: Mapping[str, Field]) -> _Plan:
    """Each field of a table with its quick yes (``None``: a special kind), made once."""
    got = _PLANS.get(id(fields))
    if got is None or got[0] is not fields:
        plan = tuple((k, f, _fast(f) if f.kind in _PLAIN else None) for k, f in fields.items())
        got = _PLANS[id(fields)] = (fields, plan)
    return got[1]


_PLAIN = frozenset({"int", "number", "string", "bool", "enum", "penalty", "int_or_bool", "spot",
                    "order", "mount_id"})
def _int_within(v: int, lo: int | None, hi: int | None) -> bool:
    return (lo is None or v >= lo) and (hi is None or v <= hi)


def _float_within(v: float, lo: float, hi: float) -> bool:
    return lo <= v <= hi


def _fast(f: Field) -> Callable[[Any], bool]:
    """A quick yes for the common, clean value of ``f`` (the slow :func:`check` says why
    not, and normalises)."""
    k = f.kind
    lo = -math.inf if f.min is None else f.min
    hi = math.inf if f.max is None else f.max
    # an int is compared with whole bounds and a float with float ones: never an int
    # made a float (compiled, that would round a huge number, or overflow)
    ilo = None if lo == -math.inf else math.ceil(lo)
    ihi = None if hi == math.inf else math.floor(hi)
    if k == "int":
        return lambda v: type(v) is int and _int_within(v, ilo, ihi)
    if k == "number":
        return lambda v: (_int_within(v, ilo, ihi) if type(v) is int
                          else type(v) is float and _float_within(v, lo, hi))
    if k == "string":
        n = f.max_len or 0
        m = int(f.min or 0)
        return lambda v: type(v) is str and m <= len(v) <= n and v.isascii()
    if k == "bool":
        return lambda v: type(v) is bool
    if k == "mount_id":
        match = MOUNT_ID_RE.match
        return lambda v: type(v) is str and match(v) is not None
    if k == "enum":
        values = frozenset(f.values)
        return lambda v: type(v) is str and v in values
    if k == "penalty":
        values = frozenset(f.values)
        return lambda v: type(v) is str and v in values
    if k == "spot":
        return lambda v: (
            type(v) is list
            and len(v) == 2
            and type(v[0]) in (int, float)
            and type(v[1]) in (int, float)
            and 0 <= v[0] <= 100
            and 0 <= v[1] <= 50
        )
    return lambda v: False


_TYPES = frozenset(EVENTS)
_FAST: dict[str, tuple[frozenset[str], tuple[tuple[str, Field, Callable[[Any], bool]], ...]]] = {
    t: (frozenset({"at", "type", *fs}), tuple((k, f, _fast(f)) for k, f in fs.items()))
    for t, fs in EVENTS.items()
}
_AT_OK = _fast(AT)


def is_clean_event(ev: Any) -> bool:
    """A quick yes for an event that :func:`validate_event` accepts unchanged (``at``
    present; plain ASCII strings); ``False`` means: ask :func:`validate_event`.

    >>> is_clean_event({"at": 61.25, "type": "goal", "team": "A", "player": 2})
    True
    >>> is_clean_event({"at": 61.25, "type": "goal", "team": "A", "colour": "red"})
    False
    """
    return typed_event(ev) is not None


def typed_event(ev: Any) -> Any:
    """A record's event dict as its class when the definitions would take it unchanged
    (msgspec's check of its class, every string plain ASCII): the quick yes, typed in the
    same step. ``None``: ask :func:`validate_event`, which normalises it or words the
    refusal.

    >>> typed_event({"at": 1, "type": "goal", "team": "A"})
    Goal(at=1.0, team='A', player=None, two_point=None)
    >>> typed_event({"at": 1, "type": "goal", "team": "A", "colour": "red"}) is None
    True
    """
    if type(ev) is not dict:
        return None
    typ = ev.get("type")
    cls = BY_TAG.get(typ) if type(typ) is str else None
    if cls is None:
        return None
    try:
        typed = msgspec.convert(ev, cls)
    except NOT_CONVERTED:
        return None
    return typed if _ascii_upto([ev], 1) == 1 else None



def first_unclean(events: list[Any]) -> int:
    """The position (0-based) of the first event without a quick yes, or ``len(events)``:
    the first the Structs refuse (:func:`chukker.record.events.clean_events`) or with a
    string that is not plain ASCII (which the detailed check would put in NFC, or refuse
    for a lone surrogate)."""
    return _ascii_upto(events, _events.clean_events(events))


def plain_ascii(events: list[Any]) -> bool:
    """Whether every string of ``events`` (dicts the Structs accept), and every ``order``
    key, is plain ASCII: so already in NFC, as the detailed check would leave it."""
    return _ascii_upto(events, len(events)) == len(events)


#: each event class's fields of free text (not a team's key, an enum or a mount's id),
#: what :func:`free_text_plain` reads (``tests/record/test_free_text.py`` derives it)
FREE_TEXT: Final[dict[type, tuple[str, ...]]] = {
    Whistle: ("reason",), Timeout: ("reason",), Clock: ("reason",),
    Foul: ("clause", "card"), ShootoutOrder: ("order",),
}
#: the classes of :data:`FREE_TEXT`, read natively in the compiled module (an imported
#: name is a lookup in the module's dict at each use)
_WHISTLE: Final = Whistle
_TIMEOUT: Final = Timeout
_CLOCK: Final = Clock
_FOUL: Final = Foul
_ORDER: Final = ShootoutOrder


def free_text_plain(typed: list[Any]) -> bool:
    """Whether every free text of ``typed`` (events as their classes, as msgspec built
    them) is plain ASCII: a reason, a foul's clause and card, a shootout order's keys.

    A team's key is not read: the header's keys are plain ASCII (``[A-Za-z0-9_-]``) and
    the fold takes a team only if it is one of them, so a team that is not plain ASCII is
    refused there (and the caller then asks :func:`plain_ascii`, the dicts' whole check).
    Enums and mounts' ids are plain ASCII once msgspec took them.

    >>> from chukker.engine.events import Whistle
    >>> free_text_plain([Whistle(at=1, reason="pony lame")])
    True
    >>> free_text_plain([Whistle(at=1, reason="caballo cojo, ¡alto!")])
    False
    """
    for ev in typed:
        c = type(ev)
        e: Any = ev
        if c is _WHISTLE or c is _TIMEOUT or c is _CLOCK:
            if not _plain(e.reason):
                return False
        elif c is _FOUL:
            if not (_plain(e.clause) and _plain(e.card)):
                return False
        elif c is _ORDER:
            order: dict[str, Any] = e.order
            for key in order:
                if not _plain(key):
                    return False
    return True


def _plain(text: str | None) -> bool:
    """Whether an optional free text is absent or plain ASCII."""
    return text is None or text.isascii()


def _ascii_upto(events: list[Any], upto: int) -> int:
    """The first of ``events[:upto]`` (each accepted by the Structs) with a string value,
    or an ``order`` key, that is not plain ASCII; or ``upto``."""
    for k in range(upto):
        ev: dict[str, Any] = events[k]
        for v in ev.values():
            if type(v) is str:
                s: str = v
                if not s.isascii():
                    return k
            elif type(v) is dict:
                for key in v:
                    if type(key) is str and not key.isascii():
                        return k
    return upto


def validate_event(ev: Any, path: str = "event", *, require_at: bool = False) -> dict[str, Any]:
    """A normalised copy of operator event ``ev``; :class:`RecordError` naming the field
    (``path``, e.g. ``event 4``) if it breaks the definitions.

    ``at`` is checked when present; ``require_at`` (the record loader) also refuses an
    event without it. The live API may check a posted event before it stamps the time.
    """
    if type(ev) is not dict:
        raise RecordError(code="field_type", path=path, expected="an object")
    typ = ev.get("type")
    if type(typ) is not str or typ not in _TYPES:
        if typ is None:
            raise RecordError(code="field_required", path=f"{path}.type")
        raise RecordError(
            code="field_enum", path=f"{path}.type", value=show(typ), allowed=sorted(_TYPES)
        )
    allowed, fields = _FAST[typ]
    if not allowed.issuperset(ev):
        for k in ev:
            if k not in allowed:
                raise RecordError(code="unknown_field", path=f"{path}.{_key(k, path)}")
    out: dict[str, Any] = dict.fromkeys(ev)  # the event's own order (nulls stay null)
    out["type"] = typ
    if "at" in ev:
        at = ev["at"]
        if not _AT_OK(at):
            if type(at) in (int, float) and -AT_MAX <= at < 0:
                # reading 3 of issue 25: name the event and its type, as every refusal does
                at_ms = min(round(at * 1000), -1)
                raise RecordError(
                    code="at_before_start", path=f"{path}.at", event=path, type=typ, at_ms=at_ms
                )
            at = _number(at, f"{path}.at", AT)
        out["at"] = at
    elif require_at:
        raise RecordError(code="field_required", path=f"{path}.at")
    for k, f, ok in fields:
        v = ev.get(k)
        if v is None:
            if f.required:
                raise RecordError(code="field_required", path=f"{path}.{k}")
            continue
        out[k] = v if ok(v) else check(v, f, f"{path}.{k}")
    return out


def _players(v: Any, f: Field, path: str) -> list[dict[str, Any]]:
    if type(v) is not list:
        raise RecordError(code="field_type", path=path, expected="a list of players")
    if f.max is not None and len(v) > f.max:
        raise RecordError(code="too_many_items", path=path, max=int(f.max))
    if f.min is not None and len(v) < f.min:
        raise RecordError(code="too_few_items", path=path, min=int(f.min))
    return [_object(p, PLAYER_DOC, f"{path}[{i}]") for i, p in enumerate(v)]


def _meta(v: Any, path: str, depth: int = 0) -> Any:
    if depth > META_DEPTH:
        raise RecordError(code="too_deep", path=path)
    t = type(v)
    if t is dict:
        if len(v) > META_ITEMS:
            raise RecordError(code="too_many_items", path=path, max=META_ITEMS)
        return {_key(k, path): _meta(x, f"{path}.{k}", depth + 1) for k, x in v.items()}
    if t is list:
        if len(v) > META_ITEMS:
            raise RecordError(code="too_many_items", path=path, max=META_ITEMS)
        return [_meta(x, f"{path}[{i}]", depth + 1) for i, x in enumerate(v)]
    if t is str:
        return check(v, _str(REASON_MAX), path)
    if t is int or t is float:
        return _number(v, path, Field("number", min=-META_NUMBER, max=META_NUMBER))
    if v is None or t is bool:
        return v
    raise RecordError(code="field_type", path=path, expected="JSON data")


def _plain_leaf(x: Any) -> bool:
    t = type(x)
    if t is str:
        return len(x) <= NAME_MAX and x.isascii()
    if t is int or t is float:
        return bool(math.isfinite(x) and -META_NUMBER <= x <= META_NUMBER)
    return False


def _plain_edition(v: dict[str, Any]) -> bool:
    """A quick yes for a club's edition :func:`_meta` would keep unchanged: a small object
    of ASCII strings, finite numbers, and lists or objects of them one level down."""
    if len(v) > 20:
        return False
    for k, x in v.items():
        if type(k) is not str or not k.isascii() or len(k) > 40:
            return False
        t = type(x)
        if t is dict:
            if len(x) > 4 or not all(
                    type(kk) is str and (_plain_leaf(xx) or (type(xx) is list and len(xx) <= 12
                                                             and all(map(_plain_leaf, xx))))
                    for kk, xx in x.items()):
                return False
        elif t is list:
            if len(x) > 12 or not all(map(_plain_leaf, x)):
                return False
        elif not _plain_leaf(x):
            return False
    return True


def _header_special(v: Any, f: Field, path: str) -> Any:
    k = f.kind
    if k == "options":
        return _object(v, OPTIONS, path, _header_special)
    if k == "practice":
        return _object(v, PRACTICE, path)
    if k == "first_defends":
        if type(v) is not dict or len(v) != 2:
            raise RecordError(code="field_type", path=path, expected="the end of both teams")
        return {
            _key(t, path): check(e, Field("enum", values=tuple(str(x) for x in End)), f"{path}.{t}")
            for t, e in v.items()
        }
    if k == "teams":
        if type(v) is not dict or len(v) != 2:
            raise RecordError(code="field_type", path=path, expected="an object of two teams")
        out = {}
        for t, doc in v.items():
            key = check(t, OPT_TEAM, f"{path} (a key)")
            out[key] = _object(doc, TEAM_DOC, f"{path}.{key}", _header_special)
        _one_team_per_mount(out, path)
        _plans_listed(out, path)
        return out
    if k == "mounts":
        if type(v) is not list:
            raise RecordError(code="field_type", path=path, expected="a list of mounts")
        if len(v) > MOUNTS_MAX:
            raise RecordError(code="too_many_items", path=path, max=MOUNTS_MAX)
        return [
            dict(m) if _clean_mount(m) else _object(m, MOUNT_DOC, f"{path}[{i}]")
            for i, m in enumerate(v)
        ]
    if k == "plan":
        if type(v) is not dict:
            raise RecordError(code="field_type", path=path,
                              expected="an object of player numbers to lists of mount ids")
        plan: dict[str, list[str]] = {}
        for no, ids in v.items():
            if type(no) is not str or not PLAN_KEY_RE.match(no):
                raise RecordError(code="field_type", path=f"{path}.{show(no)}",
                                  expected="keyed by a player's number, 1-99")
            if type(ids) is not list:
                raise RecordError(code="field_type", path=f"{path}.{no}",
                                  expected="a list of mount ids")
            if len(ids) > MOUNTS_MAX:
                raise RecordError(code="too_many_items", path=f"{path}.{no}", max=MOUNTS_MAX)
            plan[no] = ids.copy()  # each id: _plans_listed (an id on the team's list is clean)
        return plan
    if k == "players":
        return _players(v, f, path)
    if k == "events":
        if type(v) is not list:
            raise RecordError(code="field_type", path=path, expected="a list of events")
        if len(v) > EVENTS_MAX:
            raise RecordError(code="too_many_items", path=path, max=EVENTS_MAX)
        return v  # each event is checked by validate_event, naming it "event N"
    if k == "meta":
        return _meta(v, path)
    if k == "edition":  # bounded here; its values are the set-up's (chukker.rules.club)
        if type(v) is not dict:
            raise RecordError(code="field_type", path=path, expected="an object")
        return v if _plain_edition(v) else _meta(v, path)
    if k == "match_info":
        return _object(v, MATCH_INFO, path)
    raise AssertionError(k)  # pragma: no cover


def _clean_mount(m: Any) -> bool:
    """A quick yes for a mount :func:`_object` would accept unchanged (ASCII, in range)."""
    if type(m) is not dict or not _MOUNT_KEYS.issuperset(m):
        return False
    mid, name, owner = m.get("id"), m.get("name", ""), m.get("owner", "")
    return (
        type(mid) is str
        and MOUNT_ID_RE.match(mid) is not None
        and type(name) is str
        and type(owner) is str
        and len(name) <= NAME_MAX
        and len(owner) <= NAME_MAX
        and name.isascii()
        and owner.isascii()
    )


_MOUNT_KEYS = frozenset(MOUNT_DOC)


def _one_team_per_mount(teams: Mapping[str, Any], path: str) -> None:
    """Rule 2: "No mount may be played by more than one team": the same id on both lists."""
    (a, da), (b, db) = teams.items()
    ids = {m["id"] for m in (da.get("mounts") or [])}
    for i, m in enumerate(db.get("mounts") or []):
        if m["id"] in ids:
            raise RecordError(
                code="mount_two_teams", path=f"{path}.{b}.mounts[{i}].id", mount=m["id"], a=a, b=b
            )


def _plans_listed(teams: Mapping[str, Any], path: str) -> None:
    """Record 1.3: a plan names only mounts on its own team's list (Rule 2 when the id is
    on the other team's)."""
    (a, da), (b, db) = teams.items()
    for t, dt, o, do in ((a, da, b, db), (b, db, a, da)):
        plan = dt.get("plan")
        if not plan:
            continue
        mine = {m["id"] for m in (dt.get("mounts") or [])}
        theirs = {m["id"] for m in (do.get("mounts") or [])}
        for no, ids in plan.items():
            for i, m in enumerate(ids):
                if type(m) is str and m in mine:
                    continue
                where = f"{path}.{t}.plan.{no}[{i}]"
                check(m, MOUNT, where)
                if m in theirs:
                    raise RecordError(code="plan_mount_other_team", path=where, mount=m,
                                      team=t, other=o)
                raise RecordError(code="plan_mount_not_listed", path=where, mount=m, team=t)


def validate_header_doc(doc: Any) -> dict[str, Any]:
    """A normalised copy of a record's header (``events`` are left to
    :func:`validate_event`); :class:`RecordError` naming the field.

    A header with a quick yes (:func:`is_clean_header`) is returned as a shallow copy,
    its values the document's own (the detailed check would copy them unchanged: callers
    do not change a header's values in place); any other is checked field by field, which
    words the refusal or normalises the value."""
    return checked_header_doc(doc)[0]


def checked_header_doc(doc: Any) -> tuple[dict[str, Any], bool]:
    """:func:`validate_header_doc`'s copy, and whether the header had the quick yes (every
    value of its exact JSON type: what :func:`chukker.record.io.header_and_setup` keys a
    kept set-up by)."""
    if type(doc) is not dict:
        raise RecordError(code="record_not_an_object")
    if is_clean_header(doc):
        return dict(doc), True
    return _object(doc, HEADER, "", _header_special), False


def is_clean_header(doc: dict[str, Any]) -> bool:
    """A quick yes for a header :func:`validate_header_doc` accepts unchanged; ``False``
    means: ask the detailed check. The header's Structs (:mod:`chukker.record.header`)
    accept it, and beside them: every value of its exact JSON type and every string plain
    ASCII (so already in NFC), ``events`` a list short enough (each event is
    :func:`validate_event`'s), ``meta`` and a club's ``edition`` as the detailed check
    would keep them, no mount on both teams' lists and a plan naming its own team's."""
    for k, v in doc.items():
        if k == "events":
            if v is not None and (type(v) is not list or len(v) > EVENTS_MAX):
                return False
        elif k == "meta":
            if not _plain_meta(v, 0):
                return False
        elif k == "edition":
            if v is not None and (type(v) is not dict or not _plain_edition(v)):
                return False
        elif not _exact(v, 0):
            return False
    if not _header.conforms(doc):
        return False
    teams: dict[str, Any] = doc["teams"]
    try:
        _one_team_per_mount(teams, "teams")
        _plans_listed(teams, "teams")
    except RecordError:
        return False
    return True


#: the header's objects nest no deeper than this below a top-level field
#: (``teams.A.plan.1[0]``): anything deeper is the detailed check's to refuse
_EXACT_DEPTH = 6


def _exact(v: Any, depth: int) -> bool:
    """Whether ``v`` is made of exact JSON types only (``dict`` with string keys, ``list``,
    ``str``, ``int``, ``float``, ``bool``, ``None``), its strings and keys plain ASCII."""
    t = type(v)
    if t is str:
        s: str = v
        return s.isascii()
    if t is int or t is float or t is bool or v is None:
        return True
    if depth >= _EXACT_DEPTH:
        return False
    if t is dict:
        d: dict[Any, Any] = v
        for k, x in d.items():
            if type(k) is not str:
                return False
            key: str = k
            if not key.isascii() or not _exact(x, depth + 1):
                return False
        return True
    if t is list:
        items: list[Any] = v
        return all(_exact(x, depth + 1) for x in items)
    return False


def _plain_meta(v: Any, depth: int) -> bool:
    """Whether :func:`_meta` keeps ``v`` (at ``depth``) unchanged: exact JSON types within
    its bounds, the strings and keys plain ASCII."""
    if depth > META_DEPTH:
        return False
    t = type(v)
    if t is str:
        s: str = v
        return len(s) <= REASON_MAX and s.isascii()
    if t is int:
        return -META_NUMBER <= v <= META_NUMBER  # type: ignore[no-any-return]
    if t is float:
        return bool(math.isfinite(v) and -META_NUMBER <= v <= META_NUMBER)
    if v is None or t is bool:
        return True
    if t is dict:
        d: dict[Any, Any] = v
        if len(d) > META_ITEMS:
            return False
        for k, x in d.items():
            if type(k) is not str:
                return False
            key: str = k
            if len(key) > ID_MAX or not key.isascii() or not _plain_meta(x, depth + 1):
                return False
        return True
    if t is list:
        items: list[Any] = v
        if len(items) > META_ITEMS:
            return False
        return all(_plain_meta(x, depth + 1) for x in items)
    return False


# ------------------------------------------------------------------ schema
def _schema(f: Field) -> dict[str, Any]:
    k = f.kind
    out: dict[str, Any]
    if k in ("int", "number"):
        out = {"type": "integer" if k == "int" else "number"}
        if f.min is not None:
            out["minimum"] = _n(f.min)
        if f.max is not None:
            out["maximum"] = _n(f.max)
    elif k == "string":
        out = {"type": "string"}
        if f.max_len is not None:
            out["maxLength"] = f.max_len
        if f.min:
            out["minLength"] = _n(f.min)
    elif k == "bool":
        out = {"type": "boolean"}
    elif k == "enum":
        out = {"enum": list(f.values)} if len(f.values) != 1 else {"const": f.values[0]}
    elif k == "penalty":
        out = {"anyOf": [{"enum": list(f.values)}, {"type": "integer", "minimum": 1,
                                                    "maximum": 10}]}
    elif k == "int_or_bool":
        out = {"anyOf": [{"type": "boolean"}, _schema(_int(1, PLAYER_MAX))]}
    elif k == "mount_id":
        out = {"type": "string", "pattern": MOUNT_ID_RE.pattern}
    elif k == "spot":
        out = {"type": "array", "minItems": 2, "maxItems": 2, "items": False, "prefixItems": [
            {"type": "number", "minimum": 0, "maximum": 100},
            {"type": "number", "minimum": 0, "maximum": 50}]}
    elif k == "order":
        out = {
            "type": "object",
            "minProperties": 2,
            "maxProperties": 2,
            "additionalProperties": {"type": "array", "maxItems": 20, "items": _schema(PLAYER)},
        }
    else:  # pragma: no cover
        raise AssertionError(k)
    if f.description:
        out["description"] = f.description
    out.update(f.extra)
    return out


def _obj_schema(fields: Mapping[str, Field], extra: Mapping[str, Any] | None = None) -> Any:
    props = {k: _schema(f) for k, f in fields.items() if f.kind in _PLAIN}
    props.update(extra or {})
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    req = [k for k, f in fields.items() if f.required]
    if req:
        out["required"] = req
    return out


#: Rule 3: a team key (the engine's ``team_key`` refusal): letters, digits, ``-`` and ``_``
TEAM_KEY_RE = re.compile(r"^[A-Za-z0-9_-]{1,16}$")
#: the options an edition's text must have (the set-up's ``not_in_edition``): feature ->
#: (option, the value that needs it)
FEATURE_OPTIONS: dict[str, tuple[str, Any]] = {
    "split_periods": ("split_periods", True),
    "shootout_players_one": ("shootout_players", str(ShootoutPlayers.ONE)),
}

def _meta_schema(depth: int = 0) -> dict[str, Any]:
    """What :func:`_meta` takes at ``depth`` (0: ``meta`` itself, an object): strings of at
    most 200 characters, numbers within 10^15, lists and objects of at most 50 items, keys
    of at most 64 characters, nothing below the 4th level."""
    if depth == 0:
        return {"type": "object", "maxProperties": META_ITEMS,
                "propertyNames": {"maxLength": ID_MAX},
                "additionalProperties": _meta_schema(1)}
    below: Any = _meta_schema(depth + 1) if depth < META_DEPTH else False
    return {"anyOf": [
        {"type": ["null", "boolean"]},
        {"type": "string", "maxLength": REASON_MAX},
        {"type": "number", "minimum": -META_NUMBER, "maximum": META_NUMBER},
        {"type": "array", "maxItems": META_ITEMS, "items": below},
        {"type": "object", "maxProperties": META_ITEMS, "propertyNames": {"maxLength": ID_MAX},
         "additionalProperties": below},
    ]}


def _rosters(n: int) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Rule 3 as JSON Schema: ``players`` numbered 1-n, each once; alternates numbered
    beyond them (n+1 to 99); the captain one of the players."""
    numbered = {"type": "integer", "minimum": 1, "maximum": n,
                "description": f"Rule 3: players are numbered 1-{n}"}
    player = _obj_schema(PLAYER_DOC)
    player["properties"]["no"] = numbered
    players = {
        "type": "array", "minItems": n, "maxItems": n, "items": player,
        "allOf": [{"contains": {"type": "object", "properties": {"no": {"const": i}},
                                "required": ["no"]}} for i in range(1, n + 1)],
        "description": f"Rule 3: {n} players numbered 1-{n}, each once",
    }
    alternate = _obj_schema(PLAYER_DOC)
    alternate["properties"]["no"] = {"type": "integer", "minimum": n + 1, "maximum": PLAYER_MAX}
    alternates = {"type": "array", "maxItems": 12, "items": alternate,
                  "description": "Rule 3: players who may come in, numbers unique within "
                  f"the team ({n + 1}-{PLAYER_MAX}: 1-{n} are the players')"}
    return players, alternates, {**numbered, "description": "Rule 3: one of the players"}


def _editions_schema() -> list[dict[str, Any]]:
    """Each edition's missing features as a condition on ``options`` (``not_in_edition``)."""
    from chukker.engine.setup import DEFAULT_RULES

    out: list[dict[str, Any]] = []
    for eid, ed in EDITIONS.items():
        banned = {opt: {"not": {"const": val}} for feat, (opt, val) in FEATURE_OPTIONS.items()
                  if not ed.has(feat)}
        if not banned:
            continue
        other: dict[str, Any] = {"required": ["rules"],
                                 "properties": {"rules": {"not": {"const": str(eid)}}}}
        if str(eid) != DEFAULT_RULES:  # an absent ``rules`` is the default edition
            other = {"not": {"required": ["rules"], "properties": {"rules": {"const": str(eid)}}}}
        out.append({"anyOf": [other, {"properties": {"options": {"properties": banned}}}],
                    "description": f"options the {eid} rules do not have"})
    return out


def _club_schema() -> dict[str, Any]:
    """A club's edition (record 1.3, :mod:`chukker.rules.club`): what JSON Schema can say
    of its ranges (what it cannot, a period longer than the late-penalty reset and a split
    or warning inside the period, is in the description)."""
    from chukker.rules import club

    def secs(lo: int, hi: int) -> dict[str, Any]:
        return {"type": "number", "minimum": lo, "maximum": hi, **MS}

    def plan() -> dict[str, Any]:
        return {"type": "object", "required": ["count", "length_s", "intervals_s"],
                "additionalProperties": False, "properties": {
                    "count": {"type": "integer", "minimum": club.PLAN_COUNT[0],
                              "maximum": club.PLAN_COUNT[1]},
                    "length_s": secs(*club.PLAN_LENGTH_S),
                    "intervals_s": {"type": "array", "maxItems": club.PLAN_COUNT[1] - 1,
                                    "items": secs(*club.PLAN_INTERVAL_S),
                                    "description": "one fewer than count"}}}

    props: dict[str, Any] = {
        "base": {"enum": list(EDITIONS)},
        "name": {"type": "string", "minLength": 1, "maxLength": club.NAME_MAX,
                 "pattern": "^[^<>&\"'`{}\\\\\\x00-\\x1f\\x7f]*$"},
        "without": {"type": "array", "maxItems": len(FEATURES), "uniqueItems": True,
                    "items": {"enum": list(FEATURES)}},
        **{p: plan() for p in club.PLANS},
        **{k: secs(lo, hi) for k, (_f, lo, hi) in club.SECONDS.items()},
        **{k: {"type": "integer", "minimum": lo, "maximum": hi}
           for k, (_f, lo, hi) in club.COUNTS.items()},
    }
    return {"type": "object", "required": ["base", "name"], "additionalProperties": False,
            "properties": props, "description": HEADER["edition"].description + "; a period "
            "is longer than the late-penalty reset, a split or warning falls inside it"}


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``chukker-match/1``, from the same tables.

    It says what JSON Schema can of the rules the set-up checks (Rule 3's rosters, team
    keys, opposite ends, the edition's options); what it cannot (numbers and mount ids
    unique within a team, a mount on one team only, ``first_defends`` naming the teams)
    is in the descriptions."""
    events = []
    for t, fs in EVENTS.items():
        s = _obj_schema(fs, {"at": {"$ref": "#/$defs/at"}, "type": {"const": str(t)}})
        s["required"] = ["at", "type", *s.get("required", [])]
        events.append(s)
    (n,) = {ed.players_per_team.value for ed in EDITIONS.values()}
    players, alternates, captain = _rosters(int(n))
    team = _obj_schema(
        {k: f for k, f in TEAM_DOC.items() if f.kind in _PLAIN},
        {"players": players,
         "alternates": alternates,
         "mounts": {"type": "array", "maxItems": MOUNTS_MAX, "items": {
             **_obj_schema(MOUNT_DOC), "description": "a mount; ids unique within the team; "
             "Rule 2: the same id on both teams' lists is refused"}},
         "plan": {
             "type": "object",
             "description": "record 1.3, the grooms' plan: a player's number (a key, "
             "\"1\") -> the team's mount ids in the order the groom brings them; a mount "
             "may appear for two players; an id not on the team's mounts is refused "
             "(Rule 2 when it is the other team's)",
             "propertyNames": {"pattern": PLAN_KEY_RE.pattern},
             "additionalProperties": {"type": "array", "maxItems": MOUNTS_MAX,
                                      "items": _schema(MOUNT)}}},
    )
    team["properties"]["captain"] = captain
    team["required"] = ["captain", "players"]
    options = _obj_schema(
        {k: f for k, f in OPTIONS.items() if f.kind in _PLAIN},
        {
            "first_defends": {
                "type": "object",
                "description": "the end each team defends first: both teams' keys, "
                "opposite ends",
                "additionalProperties": {"enum": [str(e) for e in End]},
                "minProperties": 2,
                "maxProperties": 2,
                "allOf": [{"not": {"additionalProperties": {"const": str(e)}}} for e in End],
            },
            "practice": _obj_schema(PRACTICE),
        },
    )
    header = _obj_schema(
        {k: f for k, f in HEADER.items() if f.kind in _PLAIN},
        {
            "options": options,
            "teams": {
                "type": "object",
                "minProperties": 2,
                "maxProperties": 2,
                "propertyNames": {"pattern": TEAM_KEY_RE.pattern},
                "additionalProperties": team,
            },
            "events": {"type": "array", "maxItems": EVENTS_MAX, "items": {"oneOf": events}},
            "meta": {**_meta_schema(), "description": HEADER["meta"].description},
            "match_info": {
                "type": "object",
                "description": HEADER["match_info"].description,
                "properties": {k: _schema(f) for k, f in MATCH_INFO.items()},
                "additionalProperties": False,
            },
        },
    )
    header["properties"]["edition"] = _club_schema()
    header["required"] = ["teams"]
    header["allOf"] = [*_editions_schema(), {
        "if": {"required": ["rules"], "properties": {"rules": {"const": "club"}}},
        "then": {"required": ["edition"]}, "else": {"not": {"required": ["edition"]}},
        "description": "record 1.3: an edition object goes with \"rules\": \"club\""}]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://chukker.invalid/schema/chukker-match-1.json",
        "title": "chukker match record, version 1 (with the 1.1, 1.2 and 1.3 additions)",
        "$defs": {"at": _schema(AT)},
        **header,
    }
