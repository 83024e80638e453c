"""Invariants over generated legal matches (Hypothesis)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chukker.engine import EngineError, Match, Setup, replay
from chukker.engine.fold import Fold
from chukker.engine.simulate import default_setup, simulate
from chukker.record import dumps, loads

OPTIONS = st.fixed_dictionaries(
    {
        "periods": st.sampled_from(["regulation", "six"]),
        "split_periods": st.booleans(),
        "tiebreak": st.sampled_from(["extra-periods", "shootout"]),
        "shootout_players": st.sampled_from(["all", "one"]),
        "handicap": st.booleans(),
        "warning_horn": st.booleans(),
    }
)
RULES = st.sampled_from(["uspa-arena-2026", "uspa-arena-2006"])
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def match(options: dict[str, Any], seed: int, n: int = 400) -> tuple[Setup, list[dict[str, Any]]]:
    setup = default_setup(**options)
    return setup, simulate(setup, random.Random(seed), n)


@SETTINGS
@given(OPTIONS, st.integers(0, 2**32))
def test_property_every_finished_period_runs_exactly_its_length(
    options: dict[str, Any], seed: int
) -> None:
    setup, events = match(options, seed)
    r = replay(setup, events)
    length = setup.plan.length_ms
    ended_by_horn = {h["period"] for h in r["horns"] if h["kind"] == "end"}
    for p, run_ms in zip(r["periods"], r["running_ms"], strict=True):
        if p["number"] not in ended_by_horn:
            continue
        # a free hit with under 5 s left resets the clock to 5 s (Rule 5)
        added = 0
        for n in r["notices"]:
            if (
                n["clause"] == "5.penalties-at-the-end-of-a-period"
                and p["start"] <= n["at"] <= p["end"]
            ):
                left = round(float(n["text"].split("(")[1].split(" s")[0]) * 1000)
                added += 5000 - left
        # the timekeeper's corrections of the stopped clock count too
        added += sum(c["to_ms"] - c["from_ms"] for c in r["corrections"]
                     if c["period"] == p["number"])
        assert run_ms == length + added


@SETTINGS
@given(OPTIONS, st.integers(0, 2**32), st.lists(st.floats(0, 1), min_size=1, max_size=8))
def test_property_the_clock_is_never_negative(
    options: dict[str, Any], seed: int, fractions: list[float]
) -> None:
    setup, events = match(options, seed, 200)
    span = events[-1]["at"] + 900
    for f in fractions:
        r = replay(setup, events, round(f * span * 1000))
        assert r["clock"]["remaining_ms"] >= 0
        if r["clock"]["running"]:
            assert r["clock"]["remaining_ms"] > 0


@SETTINGS
@given(OPTIONS, st.integers(0, 2**32))
def test_property_score_is_the_sum_of_its_events_plus_handicap(
    options: dict[str, Any], seed: int
) -> None:
    setup, events = match(options, seed)
    r = replay(setup, events)
    total = dict.fromkeys(setup.team_ids, 0)
    for e in events:
        if e["type"] == "goal":
            total[e["team"]] += 2 if e.get("two_point") else 1
        elif e["type"] == "foul" and str(e["penalty"]) == "1":
            total[setup.other(e["team"])] += 1
    for t in setup.team_ids:
        bonus = 1 if r["decided_by"] == "shootout" and r["winner"] == t else 0
        assert r["score"][t] == total[t] + r["handicap_goals"][t] + bonus


@SETTINGS
@given(
    OPTIONS,
    st.integers(0, 2**32),
    st.sampled_from(
        ["bowl_in", "whistle", "goal", "foul", "free_hit", "timeout", "shot", "move_to_15"]
    ),
)
def test_property_nothing_is_accepted_after_the_final(
    options: dict[str, Any], seed: int, kind: str
) -> None:
    setup, events = match(options, seed)
    m = Match(setup, events)
    if not m.is_final():
        return
    end = m.report()["at"]
    ev: dict[str, Any] = {
        "at": end + 1,
        "type": kind,
        "team": "A",
        "player": 1,
        "penalty": "3",
        "reason": "injury",
        "result": "goal",
    }
    try:
        m.apply(ev)
    except EngineError as e:
        assert "locked" in e.reason or "over" in e.reason
    else:  # pragma: no cover
        raise AssertionError(f"{kind} accepted after the final")


@SETTINGS
@given(OPTIONS, RULES, st.integers(0, 2**32), st.sampled_from(["json", "toml"]))
def test_property_replay_equals_replay_of_the_round_tripped_record(
    options: dict[str, Any], rules: str, seed: int, fmt: str
) -> None:
    if rules == "uspa-arena-2006":  # options the 2006 text does not have are refused
        options = dict(options, split_periods=False, shootout_players="all")
    doc = default_setup(**options).to_dict()
    doc["rules"] = rules  # simulated under the edition it is replayed under
    doc["events"] = simulate(Setup.from_dict(doc), random.Random(seed), 250)
    again = loads(dumps(doc, fmt), fmt)  # type: ignore[arg-type]
    assert again == doc
    s1, s2 = Setup.from_dict(doc), Setup.from_dict(again)
    assert replay(s1, doc["events"]) == replay(s2, again["events"])


@SETTINGS
@given(OPTIONS, st.integers(0, 2**32), st.floats(0, 1))
def test_property_replaying_a_prefix_then_the_rest_equals_the_whole(
    options: dict[str, Any], seed: int, cut: float
) -> None:
    setup, events = match(options, seed, 300)
    k = int(cut * len(events))
    whole = Fold(setup)
    whole.feed(events)
    parts = Fold(setup)
    parts.feed(events[:k])
    parts.feed(events[k:])
    t = whole.core.now
    assert parts.core.report(t) == whole.core.report(t)
    live = Match(setup, events[:k])
    for e in events[k:]:
        live.apply(e)
    assert live.report() == replay(setup, events)
