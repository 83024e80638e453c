"""The record's text read once (issue 46): ``read_typed`` decodes a JSON record's events
straight into their classes, and ``replay_text`` (``chukker replay``) gives the same
report, and the same refusal, as parsing the text and replaying the dicts.

The four questions of a new parser door:

* who may call it: whoever runs ``chukker replay`` or the library on a text they hold
  (no server route reads a record through it);
* how big its input may be: the events' count is the header's check
  (``too_many_items`` at 100,000), deep nesting is ``too_deep``, numbers msgspec does
  not read (NaN, a 400-digit integer) go to ``json.loads`` as before;
* it names no server path: it takes the text, the CLI reads the file its user names;
* it never runs on the officials' process (no key press or horn waits on it).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chukker.engine import EngineError
from chukker.engine.events import BowlIn, Event, Goal
from chukker.engine.simulate import default_setup, simulate
from chukker.record import RecordError, dumps, parse, read_typed, replay, replay_text
from chukker.record.events import EVENTS_MAX


def _record(seed: int = 1, events: int = 40, **variant: Any) -> dict[str, Any]:
    setup = default_setup(**variant)
    doc = setup.to_dict()
    doc["events"] = simulate(setup, random.Random(seed), events)
    return doc


def _old(text: str) -> tuple[str, Any]:
    """What the text gave before issue 46: parsed, then replayed as dicts."""
    try:
        return "report", replay(parse(text))
    except (RecordError, EngineError) as e:
        return type(e).__name__, (getattr(e, "code", None), str(e))


def _new(text: str) -> tuple[str, Any]:
    try:
        return "report", replay_text(text)
    except (RecordError, EngineError) as e:
        return type(e).__name__, (getattr(e, "code", None), str(e))


def test_read_typed_gives_the_events_as_their_classes() -> None:
    got = read_typed(dumps(_record()))
    assert got is not None
    header, setup, events = got
    assert "events" not in header and setup.team_ids == ("A", "B")
    assert all(isinstance(e, Event) for e in events)
    assert isinstance(events[0], BowlIn)


@pytest.mark.parametrize("seed", range(12))
def test_replay_text_gives_the_dicts_report(seed: int) -> None:
    variants: list[dict[str, Any]] = [{}, {"split_periods": True, "warning_horn": True},
                                      {"tiebreak": "shootout"},
                                      {"periods": "six", "tiebreak": "shootout",
                                       "shootout_players": "one"}]
    text = dumps(_record(seed, 300, **variants[seed % 4]))
    assert read_typed(text) is not None  # the fast path, not the fallback
    assert _new(text) == _old(text)


def _mutations(doc: dict[str, Any]) -> list[str]:
    """Texts that each break the record one way."""
    out: list[str] = []
    evs = doc["events"]
    for k, bad in [(1, {"player": "x"}), (2, {"team": 7}), (3, {"at": -1}),
                   (3, {"at": True}), (1, {"colour": "red"}), (2, {"player": 2.0}),
                   (2, {"team": "Ä"}), (1, {"type": "nope"}), (4, {"at": 0.0004}),
                   (2, {"player": 12345678901234567890123})]:
        d = json.loads(json.dumps(doc))
        d["events"][min(k, len(evs) - 1)].update(bad)
        out.append(json.dumps(d))
    d = json.loads(json.dumps(doc))
    d["teams"]["A"]["coach"] = "x"
    out.append(json.dumps(d))
    d = json.loads(json.dumps(doc))
    d["events"][1]["at"] = d["events"][0]["at"] - 1 if d["events"][0]["at"] >= 1 else -1
    out.append(json.dumps(d))
    text = json.dumps(doc)
    out.append(text.replace('"type": "bowl_in"', '"type": "bowl_\\u0069n"', 1))  # an escape
    out.append(text.replace('"events": [', '"events": [NaN, ', 1))
    out.append(text.replace('"events": [', '"events": null, "x": [', 1))
    # a key twice: the last one counts, in json.loads and here
    out.append(text.replace('"type": "bowl_in"', '"type": "goal", "type": "bowl_in"', 1))
    out.append(text.replace('"rules": ', '"rules": "none", "rules": ', 1))
    return out


@pytest.mark.parametrize("n", range(17))
def test_replay_text_refuses_as_the_dicts_do(n: int) -> None:
    text = _mutations(_record(3, 30))[n]
    assert _new(text) == _old(text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.integers(0, 29), key=st.sampled_from(
    ["at", "team", "player", "reason", "spot", "penalty", "result", "remaining", "event"]),
    value=st.one_of(st.none(), st.booleans(), st.integers(-5, 200), st.floats(-1, 4000),
                    st.text(max_size=5), st.lists(st.floats(-1, 120), max_size=3)))
def test_replay_text_is_replay_of_the_parsed_text(seed: int, k: int, key: str,
                                                  value: Any) -> None:
    doc = _record(seed, 30)
    doc["events"][min(k, len(doc["events"]) - 1)][key] = value
    text = json.dumps(doc, allow_nan=True)
    assert _new(text) == _old(text)


def test_replay_text_of_too_many_events_is_too_many_items() -> None:
    doc = _record(1, 4)
    doc["events"] = [{"at": 0, "type": "whistle"}] * (EVENTS_MAX + 1)
    text = json.dumps(doc)
    kind, (code, _) = _new(text)
    assert (kind, code) == ("RecordError", "too_many_items")
    assert _old(text)[1][0] == "too_many_items"


def test_replay_text_of_deep_nesting_is_too_deep() -> None:
    doc = _record(1, 4)
    text = json.dumps(doc)[:-1] + ', "meta": ' + "[" * 100_000 + "]" * 100_000 + "}"
    kind, (code, _) = _new(text)
    assert kind == "RecordError" and code in ("too_deep", "meta_too_deep")
    assert _new(text) == _old(text)


def test_replay_text_of_toml_is_the_dicts() -> None:
    doc = _record(5, 40)
    text = dumps(doc, "toml")
    assert replay_text(text, "toml") == replay(parse(text, "toml"))


def test_a_struct_and_its_dict_fold_alike() -> None:
    from chukker.engine import Match

    doc = _record(7, 60)
    setup = default_setup()
    typed = read_typed(dumps(doc))
    assert typed is not None
    a, b = Match(setup, doc["events"]), Match(setup, typed[2])
    assert a.report() == b.report()
    last = doc["events"][-1]["at"]
    goal = {"at": last, "type": "goal", "team": "A"}
    assert a.can(goal) == b.can(Goal(at=last, team="A"))
    assert a.events == tuple(doc["events"])  # the dicts as they came
    first = doc["events"][0]
    assert b.events[0] == {**first, "at": float(first["at"])}  # a Struct as its dict


def test_chukker_replay_reads_the_text_once(tmp_path: Path) -> None:
    """The CLI's door: a file its user names, the same exit codes as before (1: refused,
    3: unreadable)."""
    good = tmp_path / "good.json"
    good.write_text(dumps(_record(2, 80)), encoding="utf-8")
    bad = tmp_path / "bad.json"
    d = _record(2, 20)
    d["events"][3] = {"at": d["events"][3]["at"], "type": "goal", "team": 7}
    bad.write_text(json.dumps(d), encoding="utf-8")
    run = [sys.executable, "-m", "chukker.cli", "replay", "--json"]
    out = subprocess.run([*run, str(good)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == replay(parse(good.read_text(encoding="utf-8")))
    out = subprocess.run([*run, str(bad)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and "event 4" in out.stderr
    (tmp_path / "torn.json").write_text(good.read_text(encoding="utf-8")[:-40])
    out = subprocess.run([*run, str(tmp_path / "torn.json")], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 3
