"""msgspec as the record's typed decoder (issue 20): measured, not shipped.

Builds one msgspec ``Struct`` per event type from the record's definitions
(``chukker.record.definitions.EVENTS``: the same fields, types, ranges and lengths; a
tagged union on ``type``; strings ASCII only, the penalty as text, no unknown field:
a subset of what the definitions accept, anything else would go the usual way), so
decoding the text checks every event. Then times, on the records of
``benchmarks/replay.py`` (CPU time, best of ``--repeat``):

* ``json.loads`` of each record's text (the baseline);
* from text, today's strict path: ``json.loads`` then ``chukker.record.replay``;
* msgspec's typed decode, and the same plus ``msgspec.to_builtins`` (the dicts the
  engine reads);
* from text, the msgspec path: typed decode, ``to_builtins``, then
  ``replay(strict=False)`` (the header still checked as always).

and checks that both paths give every record the same report. msgspec is not a
dependency of chukker: ``pip install msgspec`` to run this.

    python benchmarks/replay_msgspec.py [--matches 2000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, Union

try:
    import msgspec
    from msgspec import UNSET, Meta, UnsetType
except ImportError:
    sys.exit("msgspec is not installed (it is not a dependency of chukker): pip install msgspec")

from chukker.engine import NATIVE
from chukker.record import replay
from chukker.record.definitions import AT, EVENTS, HEADER, MOUNT_ID_RE, Field

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay import best, build  # benchmarks/replay.py: the same records

_ASCII = "^[\\x00-\\x7f]*$"


def _num(lo: float | None, hi: float | None, *, whole: bool = False) -> Any:
    meta = Meta(ge=lo, le=hi)
    if whole:
        return Annotated[int, meta]
    return Union[Annotated[int, meta], Annotated[float, meta]]  # noqa: UP007


def _kind(f: Field) -> Any:
    """The msgspec type of a field: what :func:`~definitions.check` accepts unchanged,
    or less."""
    k = f.kind
    if k == "int":
        return _num(f.min, f.max, whole=True)
    if k == "number":
        return _num(f.min, f.max)
    if k == "string":
        return Annotated[
            str, Meta(min_length=int(f.min or 0), max_length=f.max_len, pattern=_ASCII)
        ]
    if k == "bool":
        return bool
    if k in ("enum", "penalty"):
        return Literal[f.values]  # the penalty as text, as the contract spells it
    if k == "int_or_bool":
        return Union[bool, _num(f.min, f.max, whole=True)]  # noqa: UP007
    if k == "spot":
        return tuple[_num(0, 100), _num(0, 50)]
    if k == "mount_id":
        return Annotated[str, Meta(pattern=MOUNT_ID_RE.pattern)]
    if k == "order":
        team = Annotated[str, Meta(min_length=1, max_length=16, pattern=_ASCII)]
        players = Annotated[list[_num(1, 99, whole=True)], Meta(max_length=20)]
        return Annotated[dict[team, players], Meta(min_length=2, max_length=2)]
    raise AssertionError(k)  # pragma: no cover


def _struct(typ: str, fields: dict[str, Field]) -> type[msgspec.Struct]:
    spec: list[Any] = [("at", _kind(AT))]
    for name, f in fields.items():
        t = _kind(f)
        # an optional field may be null (the definitions take null for absent): kept as
        # null, as json.loads keeps it; an absent one stays absent (UNSET)
        spec.append((name, t) if f.required else (name, Union[t, None, UnsetType], UNSET))  # noqa: UP007
    # fields with a default after those without (the Struct's rule; the order of the
    # keys is all this changes)
    spec.sort(key=lambda s: len(s) == 3)
    return msgspec.defstruct(
        f"Event_{typ}",
        spec,
        tag=typ,
        tag_field="type",
        forbid_unknown_fields=True,
    )


_EVENT = Union[tuple(_struct(str(t), f) for t, f in EVENTS.items())]  # type: ignore[valid-type]  # noqa: UP007
_HEADER = msgspec.defstruct(
    "Record",
    [(k, Any, UNSET) for k in HEADER if k != "events"]
    + [("events", Union[list[_EVENT], UnsetType], UNSET)],  # noqa: UP007
    forbid_unknown_fields=True,
)
_DECODER = msgspec.json.Decoder(_HEADER)


def decode(text: str) -> dict[str, Any] | None:
    """The record of ``text``, its events checked by the Structs; ``None`` when they do
    not accept it (it may still be valid: the usual path decides)."""
    try:
        rec = _DECODER.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    out: dict[str, Any] = msgspec.to_builtins(rec)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    texts = build(a.matches, a.seed)
    n = sum(len(json.loads(t)["events"]) for t in texts)
    for t in texts:  # the same answers, or the figure means nothing
        d = decode(t)
        assert d is not None, "a simulated record the Structs refuse"
        assert replay(d, strict=False) == replay(json.loads(t))
    gc.collect()
    gc.freeze()
    rows = [
        ("json.loads", lambda: [json.loads(t) for t in texts]),
        ("json.loads + strict replay", lambda: [replay(json.loads(t)) for t in texts]),
        ("msgspec typed decode", lambda: [_DECODER.decode(t) for t in texts]),
        ("msgspec + to_builtins", lambda: [decode(t) for t in texts]),
        ("msgspec + engine", lambda: [replay(decode(t) or {}, strict=False) for t in texts]),
    ]
    print(
        f"engine: {'compiled (mypyc)' if NATIVE else 'pure Python'}; msgspec "
        f"{msgspec.__version__}; {a.matches} matches, {n} events"
    )
    base = 0.0
    for name, fn in rows:
        t = best(fn, a.repeat)
        base = base or t
        print(f"{name:28s} {t:8.3f} s  {n / t:12,.0f} events/s  ({t / base:.2f}x json.loads)")


if __name__ == "__main__":
    main()
