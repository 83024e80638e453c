"""Strict input: one definition per event type; hostile input is a clean RecordError."""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.engine.simulate import default_setup, simulate
from chukker.record import (
    RecordError,
    check,
    loads,
    replay,
    schema,
    validate_event,
    validate_header,
)
from chukker.record.definitions import is_clean_event
from chukker.record.errors import MESSAGES


def record(**over: Any) -> dict[str, Any]:
    players = [{"no": n, "name": f"P{n}", "handicap": 1} for n in (1, 2, 3)]
    doc: dict[str, Any] = {
        "format": "chukker-match/1",
        "rules": "uspa-arena-2026",
        "teams": {"A": {"name": "Blue", "captain": 1, "players": players},
                  "B": {"name": "White", "captain": 1, "players": players}},
        "events": [{"at": 0, "type": "bowl_in"}],
    }
    doc.update(over)
    return doc


def refused_everywhere(doc: dict[str, Any], code: str) -> RecordError:
    """The loader, replay and check refuse ``doc`` with the same code and words."""
    text = json.dumps(doc)
    with pytest.raises(RecordError) as e1:
        loads(text)
    with pytest.raises(RecordError) as e2:
        replay(doc)
    problems = check(doc)
    assert problems and isinstance(problems[0], RecordError)
    assert e1.value.code == e2.value.code == problems[0].code == code  # type: ignore[attr-defined]
    assert str(e1.value) == str(e2.value) == str(problems[0])
    return e1.value


def test_unknown_fields_are_refused_at_every_level() -> None:
    refused_everywhere(record(colour="red"), "unknown_field")
    doc = record()
    doc["teams"]["A"]["coach"] = "x"
    assert "teams.A.coach" in str(refused_everywhere(doc, "unknown_field"))
    doc = record(events=[{"at": 0, "type": "bowl_in", "extra": 1}])
    assert str(refused_everywhere(doc, "unknown_field")) == "event 1.extra: unknown field"


def test_lone_surrogate_in_a_team_name_is_refused() -> None:
    doc = record()
    doc["teams"]["A"]["name"] = "Bl\ud800ue"
    e = refused_everywhere(doc, "bad_unicode")
    assert e.params["path"] == "teams.A.name"
    assert "\\ud800" in json.dumps(doc)  # the loader read it from JSON text


def test_names_of_30000_characters_and_long_reasons_are_refused() -> None:
    doc = record()
    doc["teams"]["B"]["players"] = [dict(p, name="x" * 30_000) for p in
                                    doc["teams"]["B"]["players"]]
    assert refused_everywhere(doc, "field_too_long").params["max"] == 60
    e = refused_everywhere(record(events=[{"at": 0, "type": "whistle", "reason": "r" * 201}]),
                           "field_too_long")
    assert e.params["path"] == "event 1.reason"


def test_huge_and_out_of_range_numbers_are_refused() -> None:
    doc = record()
    doc["teams"]["A"]["players"][0]["handicap"] = 10**400
    assert refused_everywhere(doc, "field_range").params == {
        "path": "teams.A.players[0].handicap", "min": -2, "max": 10}
    with pytest.raises(RecordError):
        loads('{"teams": {"A": {"captain": ' + "9" * 5000 + "}}}")
    refused_everywhere(record(events=[{"at": 1e300, "type": "bowl_in"}]), "field_range")


def test_deep_nesting_is_refused_cleanly() -> None:
    deep: Any = "13b"
    for _ in range(500):
        deep = [deep]
    ev = {"at": 0, "type": "foul", "team": "A", "penalty": "3", "clause": deep}
    e = refused_everywhere(record(events=[{"at": 0, "type": "bowl_in"}, ev]), "field_type")
    assert e.params["path"] == "event 2.clause"
    with pytest.raises(RecordError) as err:
        loads("[" * 100_000 + "]" * 100_000)
    assert err.value.code in {"too_deep", "record_not_an_object"}


def test_strings_are_normalised_to_nfc() -> None:
    doc = record()
    doc["teams"]["A"]["name"] = "Jose\u0301"
    assert validate_header(doc)["teams"]["A"]["name"] == "Jos\u00e9"
    ev = validate_event({"at": 1, "type": "whistle", "reason": "cafe\u0301"})
    assert ev["reason"] == "caf\u00e9"


def test_every_simulated_event_fits_the_definitions_and_the_schema() -> None:
    s = default_setup(tiebreak="shootout", split_periods=True)
    doc = s.to_dict()
    doc["events"] = simulate(s, random.Random(3), 400)
    for ev in doc["events"]:
        assert validate_event(ev) == ev
        assert is_clean_event(ev)
    jsonschema.validate(doc, schema())
    loads(json.dumps(doc))


def test_the_1_1_events_are_in_the_schema() -> None:
    types = {e["properties"]["type"]["const"]
             for e in schema()["properties"]["events"]["items"]["oneOf"]}
    assert {"substitute", "designate", "return", "clock"} <= types
    jsonschema.validate(record(events=[{"at": 1, "type": "clock", "remaining": 12.5,
                                        "reason": "late whistle"}]), schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(record(extra=1), schema())


LEAF = st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(),
                 st.text(max_size=8), st.sampled_from(["A", "B", "goal", "\ud800", "x" * 70]))
TREE = st.recursive(LEAF, lambda c: st.one_of(st.lists(c, max_size=3),
                                              st.dictionaries(st.text(max_size=4), c,
                                                              max_size=3)), max_leaves=10)
EVENT = st.dictionaries(
    st.sampled_from(["at", "type", "team", "player", "penalty", "reason", "order", "first",
                     "remaining", "event", "spot", "clause", "in", "out", "bogus"]),
    st.one_of(TREE, st.sampled_from(["goal", "foul", "clock", "substitute", "shot", "A"])),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(EVENT, TREE))
def test_fuzz_validate_event_gives_a_record_error_or_a_clean_event(ev: Any) -> None:
    if is_clean_event(ev):  # the quick yes agrees with the full check
        assert validate_event(ev, require_at=True) == ev
    try:
        clean = validate_event(ev)
    except RecordError as e:
        assert e.code in MESSAGES and "path" in e.params
        json.dumps(e.params)
        return
    json.dumps(clean, allow_nan=False)
    assert set(clean) <= set(ev)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(st.sampled_from(["format", "rules", "options", "teams", "events", "meta",
                                        "x"]), TREE, max_size=5))
def test_fuzz_validate_header_gives_a_record_error(doc: dict[str, Any]) -> None:
    try:
        validate_header(doc)
    except RecordError as e:
        assert e.code in MESSAGES or e.code in ("setup_invalid", "not_in_edition")


def test_at_is_required_in_a_record_but_not_before_the_api_stamps_it() -> None:
    e = refused_everywhere(record(events=[{"type": "bowl_in"}]), "field_required")
    assert e.params["path"] == "event 1.at"
    assert validate_event({"type": "goal", "team": "A"}) == {"type": "goal", "team": "A"}
