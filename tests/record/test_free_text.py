"""Strict replay reads only the free texts for plain ASCII (issue 46).

``chukker.record.replay`` types a record's events in one msgspec call and then checks
that every *free text* (a reason, a foul's clause and card, a shootout order's keys) is
plain ASCII, so already in NFC as the detailed check would leave it. A team's key is not
read there: the header's team keys are plain ASCII and the fold takes a team only if it is
one of them, so a team that is not plain ASCII is refused by the fold, and the replay then
asks the detailed check (which normalises it, or refuses it in the record's own words).
These tests hold that path to the detailed one: the same report or the same refusal.
"""

from __future__ import annotations

import random
import typing
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chukker.engine import EngineError
from chukker.engine import replay as engine_replay
from chukker.engine.events import CLASSES, TEAM_D
from chukker.engine.simulate import default_setup, simulate
from chukker.record import RecordError, replay
from chukker.record.definitions import FREE_TEXT, free_text_plain
from chukker.record.io import record_setup, typed_events

#: strings a record may hold where it holds a free text or a team: NFC and not ASCII,
#: NFD (the detailed check puts it in NFC), a lone surrogate (refused), plain ASCII
ODD = ["Jos\u00e9", "Jose\u0301", "A\u030a", "\ud800", "caballo \u00a1", "A", "B"]


def _kinds(cls: type) -> dict[str, tuple[str, str]]:
    """Each field of ``cls`` (its attribute) with its ``kind`` and description."""
    out: dict[str, tuple[str, str]] = {}
    for name, hint in typing.get_type_hints(cls, include_extras=True).items():
        for arg in (hint, *typing.get_args(hint)):
            for meta in getattr(arg, "__metadata__", ()):
                extra = getattr(meta, "extra", None) or {}
                if "kind" in extra:
                    out[name] = (extra["kind"], extra.get("description", ""))
    return out


def test_free_text_lists_every_string_field_that_is_not_a_team_key() -> None:
    derived = {
        cls: tuple(name for name, (kind, d) in _kinds(cls).items()
                   if (kind == "string" and d != TEAM_D) or kind == "order")
        for cls in CLASSES
    }
    assert {c: f for c, f in derived.items() if f} == FREE_TEXT
    teams = {name for cls in CLASSES for name, (kind, d) in _kinds(cls).items()
             if kind == "string" and d == TEAM_D}
    assert teams == {"team", "first"}


def _record(seed: int, n: int) -> dict[str, Any]:
    setup = default_setup()
    doc: dict[str, Any] = setup.to_dict()
    doc["events"] = simulate(setup, random.Random(seed), n)
    return doc


def _answer(fn: Any, doc: dict[str, Any]) -> tuple[str, Any]:
    try:
        return "report", fn(doc)
    except (RecordError, EngineError) as e:
        return type(e).__name__, (getattr(e, "code", None), str(e))


def _detailed(doc: dict[str, Any]) -> dict[str, Any]:
    """Strict replay as it was before the free-text check: every string of every event
    read, the events that are not plain ASCII normalised one by one."""
    setup = record_setup(doc)
    events, bad = typed_events(doc["events"])
    if bad is None:
        return engine_replay(setup, events)
    engine_replay(setup, events)
    raise bad[1]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), n=st.integers(1, 60), pick=st.integers(0, 10_000),
       field=st.sampled_from(["team", "reason", "clause", "card", "first", "order"]),
       odd=st.sampled_from(ODD))
def test_strict_replay_with_a_string_not_plain_ascii_answers_as_the_detailed_check(
        seed: int, n: int, pick: int, field: str, odd: str) -> None:
    doc = _record(seed, n)
    events = doc["events"]
    ev = events[pick % len(events)]
    if field == "order":
        ev["order"] = {odd: [1], "B": [1]}
    else:
        ev[field] = odd
    assert _answer(replay, doc) == _answer(_detailed, doc)


def test_a_whistle_reason_in_nfd_is_replayed_in_nfc() -> None:
    doc = _record(3, 20)
    doc["events"].append({"at": 10_000, "type": "whistle", "reason": "Jose\u0301"})
    assert _answer(replay, doc) == _answer(_detailed, doc)


def _minimal(cls: type, **fields: Any) -> Any:
    """An event of ``cls`` with its required fields plain, ``fields`` set on top."""
    base: dict[str, Any] = {"at": 1, "team": "A", "penalty": "2", "reason": "lame",
                            "remaining": 1, "first": "A", "order": {"A": [1], "B": [1]}}
    names = {f.name for f in msgspec.structs.fields(cls)}
    return cls(**{k: v for k, v in {**base, **fields}.items() if k in names})


def test_free_text_plain_reads_each_free_text() -> None:
    from chukker.engine.events import Goal

    assert free_text_plain([Goal(at=1, team="A\u030a")])  # a team: the fold's to refuse
    for cls, names in FREE_TEXT.items():
        assert free_text_plain([_minimal(cls)])
        for name in names:
            odd: Any = {"\u00c5": [1], "B": [1]} if name == "order" else "\u00e9"
            assert not free_text_plain([Goal(at=0, team="A"), _minimal(cls, **{name: odd})])
