"""Record 1.2: ``teams.X.mounts``, the ``mount`` and ``mount_out`` events, and reading 3
(a negative event time names the event and its type)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from chukker.engine import Setup, SetupError
from chukker.record import RecordError, check, loads, replay, schema, validate_event


def record(**over: Any) -> dict[str, Any]:
    players = [{"no": n, "name": f"P{n}", "handicap": 1} for n in (1, 2, 3)]
    doc: dict[str, Any] = {
        "format": "chukker-match/1",
        "rules": "uspa-arena-2026",
        "teams": {
            "A": {"name": "Blue", "captain": 1, "players": players,
                  "mounts": [{"id": "bay-1", "name": "Bay"}, {"id": "chico", "name": "Chico",
                                                               "owner": "R. Paz"}]},
            "B": {"name": "White", "captain": 1, "players": players,
                  "mounts": [{"id": "dora", "name": "Dora"}]},
        },
        "events": [{"at": 0, "type": "mount", "team": "A", "player": 1, "mount": "bay-1"},
                   {"at": 0, "type": "bowl_in"}],
    }
    doc.update(over)
    return doc


def test_record_1_2_mounts_load_and_round_trip_through_the_schema() -> None:
    doc = record()
    loaded = loads(json.dumps(doc))
    assert loaded["teams"]["A"]["mounts"][1] == {"id": "chico", "name": "Chico",
                                                 "owner": "R. Paz"}
    jsonschema.validate(doc, schema())
    setup = Setup.from_dict(doc)
    assert [m.id for m in setup.teams[0].mounts] == ["bay-1", "chico"]
    assert Setup.from_dict(setup.to_dict()) == setup


def test_rule_2_a_mount_listed_by_both_teams_is_refused_at_the_header() -> None:
    doc = record()
    doc["teams"]["B"]["mounts"].append({"id": "chico", "name": "Chico"})
    with pytest.raises(RecordError) as e:
        loads(json.dumps(doc))
    assert e.value.code == "mount_two_teams"
    assert e.value.params["path"] == "teams.B.mounts[1].id"
    assert "Rule 2" in str(e.value) and "chico" in str(e.value)
    with pytest.raises(SetupError) as s:
        Setup.from_dict(doc)
    assert s.value.code == "mount_two_teams"
    assert check(doc)[0].code == "mount_two_teams"  # type: ignore[attr-defined]


@pytest.mark.parametrize("bad", ["", "Bay", "bay_1", "x" * 33, "bay 1", "ñandú", 7])
def test_record_mount_ids_are_1_to_32_of_a_z_0_9_dash(bad: Any) -> None:
    doc = record()
    doc["teams"]["A"]["mounts"][0]["id"] = bad
    with pytest.raises(RecordError) as e:
        loads(json.dumps(doc))
    assert e.value.params["path"] == "teams.A.mounts[0].id"
    with pytest.raises(RecordError):
        validate_event({"at": 1, "type": "mount", "team": "A", "player": 1, "mount": bad})
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema())


def test_record_mount_id_of_32_characters_is_accepted() -> None:
    doc = record()
    doc["teams"]["A"]["mounts"][0]["id"] = "a" * 32
    assert loads(json.dumps(doc))["teams"]["A"]["mounts"][0]["id"] == "a" * 32


def test_record_mount_out_reasons_are_the_rules_words() -> None:
    for reason in ("vice", "blood", "runaway", "injury", "other"):
        validate_event({"at": 1, "type": "mount_out", "team": "A", "mount": "m", "reason": reason})
    with pytest.raises(RecordError) as e:
        validate_event({"at": 1, "type": "mount_out", "team": "A", "mount": "m", "reason": "lame"})
    assert e.value.code == "field_enum"
    with pytest.raises(RecordError) as e:
        validate_event({"at": 1, "type": "mount_out", "team": "A", "mount": "m"})
    assert e.value.code == "field_required"


def test_record_a_mount_list_is_bounded() -> None:
    doc = record()
    doc["teams"]["A"]["mounts"] = [{"id": f"m{i}"} for i in range(65)]
    with pytest.raises(RecordError) as e:
        loads(json.dumps(doc))
    assert e.value.code == "too_many_items"


def test_reading_3_a_negative_time_names_the_event_its_type_and_says_before_the_start() -> None:
    doc = record(events=[{"at": 0, "type": "bowl_in"},
                         {"at": -2.5, "type": "goal", "team": "A"}])
    with pytest.raises(RecordError) as e:
        loads(json.dumps(doc))
    assert str(e.value) == ("event 2 (goal at -2.500 s): before the start of the record "
                            "(times count from 0 s)")
    assert e.value.code == "at_before_start"
    with pytest.raises(RecordError) as e2:
        replay(doc)
    assert str(e2.value) == str(e.value)
