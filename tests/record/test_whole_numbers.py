"""JSON's ``10.0`` is ``10`` (issue 24, positive data): where the record requires a whole
number, an integral JSON number is taken and normalised to the int once, at the edge (the
loader, ``replay``, ``check``; the API's event and header use the same definitions), so the
engine and everything after it see ints; ``10.5`` stays refused with the same code. And
the record's JSON Schema says what the set-up checks (Rule 3, team keys, the editions)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.engine import SetupError
from chukker.engine.setup import _TEAM_ID, Setup
from chukker.engine.simulate import default_setup, simulate
from chukker.record import (
    RecordError,
    check,
    dumps,
    loads,
    normalised,
    replay,
    schema,
    validate_event,
    validate_header,
)
from chukker.record.definitions import EVENTS, FEATURE_OPTIONS, TEAM_KEY_RE
from chukker.rules.editions import EDITIONS


def record(**over: Any) -> dict[str, Any]:
    players = [{"no": n, "name": f"P{n}", "handicap": n} for n in (1, 2, 3)]
    doc: dict[str, Any] = {
        "format": "chukker-match/1",
        "rules": "uspa-arena-2026",
        "teams": {
            "A": {"name": "Blue", "captain": 1, "players": players},
            "B": {
                "name": "White",
                "captain": 2,
                "players": copy.deepcopy(players),
                "alternates": [{"no": 7, "handicap": 0}],
            },
        },
        "events": [
            {"at": 0, "type": "bowl_in"},
            {"at": 61.25, "type": "goal", "team": "A", "player": 2},
            {"at": 70, "type": "foul", "team": "B", "player": 3, "penalty": "5a"},
            {"at": 80, "type": "free_hit"},
            {"at": 90, "type": "foul", "team": "A", "player": 1, "penalty": 3},
            {"at": 91, "type": "free_hit"},
            {"at": 100, "type": "whistle"},
            {"at": 101, "type": "substitute", "team": "B", "out": 3, "in": 7},
        ],
    }
    doc.update(over)
    return doc


def floated(doc: Any) -> Any:
    """``doc`` with every int (not a bool) written as the integral float JSON allows."""
    if isinstance(doc, dict):
        return {k: floated(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [floated(v) for v in doc]
    if type(doc) is int:
        return float(doc)
    return doc


def types(doc: Any) -> Any:
    """The shape of ``doc`` with each scalar's type (``==`` does not tell 10.0 from 10)."""
    if isinstance(doc, dict):
        return {k: types(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [types(v) for v in doc]
    return type(doc).__name__


def test_an_integral_number_is_a_whole_number_in_the_loader_replay_and_check() -> None:
    doc = record()
    loose = floated(doc)
    assert loose["teams"]["A"]["players"][0]["handicap"] == 1.0
    got = loads(json.dumps(loose))
    # the penalty 3.0 is penalty "3", as 3 is; the `at`s are numbers and stay floats
    want = copy.deepcopy(doc)
    want["events"][4]["penalty"] = "3"
    assert got == want
    assert types(got["teams"]) == types(want["teams"])
    assert types(got["events"])[1:] == [
        {k: "float" if k == "at" else types(v) for k, v in e.items()} for e in want["events"][1:]
    ]
    assert replay(loose) == replay(doc)
    assert check(loose) == []
    assert validate_event({"type": "goal", "team": "A", "player": 2.0}) == {
        "type": "goal",
        "team": "A",
        "player": 2,
    }
    assert type(validate_header(loose)["teams"]["B"]["captain"]) is int


@pytest.mark.parametrize(
    ("where", "value"),
    [("handicap", 10.5), ("handicap", True), ("player", 2.5), ("player", float("inf"))],
)
def test_a_number_that_is_not_whole_stays_refused_with_the_same_code(
    where: str, value: Any
) -> None:
    doc = record()
    if where == "handicap":
        doc["teams"]["A"]["players"][0]["handicap"] = value
        path = "teams.A.players[0].handicap"
    else:
        doc["events"][1]["player"] = value
        path = "event 2.player"
    with pytest.raises(RecordError) as e1:
        loads(json.dumps(doc))
    with pytest.raises(RecordError) as e2:
        replay(doc)
    problems = check(doc)
    assert e1.value.code == e2.value.code == "field_type"
    assert problems and problems[0].code == "field_type"  # type: ignore[attr-defined]
    assert e1.value.params["path"] == path and e1.value.params["expected"] == "a whole number"


def test_a_whole_number_out_of_range_is_refused_by_its_range() -> None:
    doc = record()
    doc["teams"]["A"]["players"][0]["handicap"] = 11.0
    with pytest.raises(RecordError) as e:
        loads(json.dumps(doc))
    assert e.value.code == "field_range" and e.value.params["max"] == 10


def test_the_loader_keeps_the_documents_order_and_normalises_strings_once() -> None:
    doc = record()
    doc["teams"]["A"] = {
        "players": doc["teams"]["A"]["players"],
        "captain": 1,
        "name": "Jose\u0301",
    }
    doc["events"][6] = {"type": "whistle", "reason": "cafe\u0301", "at": 100}
    got = loads(json.dumps(doc))
    assert list(got["teams"]["A"]) == ["players", "captain", "name"]
    assert got["teams"]["A"]["name"] == "Jos\u00e9"
    assert list(got["events"][6]) == ["type", "reason", "at"] and got["events"][6]["reason"] == (
        "caf\u00e9"
    )
    text = dumps(got)
    assert dumps(loads(text)) == text
    assert normalised(got)[0] == got


# an event type's whole-number fields, to float them in a simulated match
WHOLE = {
    t: {k for k, f in fs.items() if f.kind in ("int", "int_or_bool", "order")}
    for t, fs in EVENTS.items()
}


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    which=st.randoms(use_true_random=False),
    fmt=st.sampled_from(["json", "toml"]),
)
def test_round_trip_of_a_record_written_with_integral_floats(
    seed: int, which: random.Random, fmt: str
) -> None:
    s = default_setup(tiebreak="shootout", split_periods=True)
    doc = s.to_dict()
    doc["events"] = simulate(s, random.Random(seed), 120)
    loose = copy.deepcopy(doc)
    for team in loose["teams"].values():  # some of the header's whole numbers as floats
        for p in team["players"]:
            if which.random() < 0.5:
                p["no"] = float(p["no"])
            if which.random() < 0.5:
                p["handicap"] = float(p.get("handicap", 0))
        team["captain"] = float(team["captain"])
    for ev in loose["events"]:  # and some of the events'
        for k in WHOLE[ev["type"]] & set(ev):
            if which.random() < 0.5:
                ev[k] = floated(ev[k]) if type(ev[k]) is not bool else ev[k]
    text = dumps(loose, fmt)  # type: ignore[arg-type]
    got = loads(text, fmt)  # type: ignore[arg-type]
    want = loads(dumps(doc, fmt), fmt)  # type: ignore[arg-type]
    assert got == want and types(got) == types(want)
    assert dumps(got, fmt) == dumps(want, fmt)  # type: ignore[arg-type]
    assert loads(dumps(got, fmt), fmt) == got  # type: ignore[arg-type]
    assert replay(loose) == replay(doc)


# ------------------------------------------------------------------ the schema says the set-up
def is_valid(doc: dict[str, Any]) -> bool:
    return jsonschema.Draft202012Validator(schema()).is_valid(doc)


def set_up_takes(doc: dict[str, Any]) -> bool:
    try:
        validate_header(doc)
    except RecordError:
        return False
    return True


def changed(path: str, value: Any, doc: dict[str, Any] | None = None) -> dict[str, Any]:
    out = copy.deepcopy(doc or record())
    *head, last = path.split(".")
    node: Any = out
    for k in head:
        node = node[int(k)] if k.isdigit() else node[k]
    node[int(last) if last.isdigit() else last] = value
    return out


@pytest.mark.parametrize(
    ("path", "value", "ok"),
    [
        ("teams.A.players", [{"no": 2}, {"no": 3}, {"no": 1}], True),  # Rule 3: any order
        ("teams.A.players", [{"no": 1}, {"no": 1}, {"no": 3}], False),  # each once
        ("teams.A.players", [{"no": 1}, {"no": 2}, {"no": 4}], False),  # numbered 1-3
        ("teams.A.captain", 3, True),
        ("teams.A.captain", 4, False),  # one of the players
        ("teams.B.alternates", [{"no": 3}], False),  # a player's number
        ("teams.B.alternates", [{"no": 99}], True),
        ("rules", "uspa-arena-2006", True),
        ("options", {"split_periods": True}, True),
        ("options", {"first_defends": {"A": "west", "B": "west"}}, False),  # opposite ends
        ("options", {"first_defends": {"A": "east", "B": "west"}}, True),
        ("options", {"practice": {"period_s": 60.5, "interval_s": 10.001}}, True),
        ("options", {"practice": {"period_s": 60.0005, "interval_s": 10}}, False),  # finer than ms
        ("meta", {"a": {"b": {"c": {"d": 1}}}}, True),
        ("meta", {"a": {"b": {"c": {"d": [1]}}}}, False),  # 4 levels at most
        ("meta", {"note": "x" * 201}, False),
    ],
)
def test_the_schema_says_what_the_set_up_checks(path: str, value: Any, ok: bool) -> None:
    doc = changed(path, value)
    doc.pop("events")
    assert is_valid(doc) is ok
    assert set_up_takes(doc) is ok


def test_the_schema_says_the_editions_options() -> None:
    doc = record(rules="uspa-arena-2006", options={"split_periods": True})
    doc.pop("events")
    assert not is_valid(doc) and not set_up_takes(doc)
    for feature, (option, value) in FEATURE_OPTIONS.items():
        for eid, ed in EDITIONS.items():
            d = {**doc, "rules": str(eid), "options": {option: value}}
            assert is_valid(d) is ed.has(feature) is set_up_takes(d), (feature, eid)
    assert is_valid({**doc, "rules": "uspa-arena-2026"})
    d = {k: v for k, v in doc.items() if k != "rules"}  # the default edition has them
    assert is_valid(d) and set_up_takes(d)


def test_the_schema_team_key_is_the_engines() -> None:
    assert TEAM_KEY_RE.pattern == _TEAM_ID.pattern
    doc = record()
    doc.pop("events")
    doc["teams"] = {"bad key!": doc["teams"]["A"], "B": doc["teams"]["B"]}
    assert not is_valid(doc)
    with pytest.raises(SetupError):
        Setup.from_dict(doc)


def test_chukker_replay_and_check_take_integral_floats_and_refuse_halves(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from chukker.cli import app

    runner = CliRunner()
    good, bad = tmp_path / "good.json", tmp_path / "bad.toml"
    good.write_text(json.dumps(floated(record())), encoding="utf-8")
    half = record()
    half["events"][1]["player"] = 2.5
    bad.write_text(dumps(half, "toml"), encoding="utf-8")
    res = runner.invoke(app, ["replay", str(good), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == replay(record())
    res = runner.invoke(app, ["check", str(good)])
    assert res.exit_code == 0 and "ok (8 events)" in res.stdout
    for cmd in ("replay", "check"):
        res = runner.invoke(app, [cmd, str(bad)])
        assert res.exit_code != 0
        assert "event 2.player" in res.output and "whole number" in res.output
