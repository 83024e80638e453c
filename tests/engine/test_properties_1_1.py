"""Issue 9 invariants (Hypothesis): undo chains, who may play, ``allowed``, refusal codes."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.engine.generated_matches import OPTIONS, with_alternates

from chukker.engine import EngineError, Match, replay
from chukker.engine.allowed import ACTIONS
from chukker.engine.errors import MESSAGES, message
from chukker.engine.simulate import default_setup, simulate

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def without_allowed(r: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in r.items() if k != "allowed"}


@SETTINGS
@given(OPTIONS, st.integers(0, 2**32), st.floats(0.05, 1), st.integers(1, 7))
def test_property_undo_chains_of_any_depth_equal_the_fold_without_the_cancelled(
    options: dict[str, Any], seed: int, cut: float, depth: int
) -> None:
    setup = default_setup(**options)
    events = simulate(setup, random.Random(seed), 300)
    goals = [k for k, e in enumerate(events) if e["type"] == "goal"]
    if not goals:
        return
    k = goals[min(int(cut * len(goals)), len(goals) - 1)]
    prefix = events[: k + 1]  # ends with a goal
    m = Match(setup, prefix)
    t = prefix[-1]["at"]
    target = k + 1
    for d in range(depth):
        t += 1.0
        m.apply({"at": t, "type": "undo", "event": target})
        target = k + 2 + d
    at_ms = round(t * 1000)
    kept = prefix if depth % 2 == 0 else prefix[:-1]
    assert without_allowed(m.report(at_ms)) == without_allowed(replay(setup, kept, at_ms))


def player_events(rng: random.Random, t: float, teams: list[str]) -> list[dict[str, Any]]:
    team = rng.choice(teams)
    player = rng.choice([1, 2, 3, 4, 5])
    return [
        {"at": t, "type": "goal", "team": team, "player": player},
        {"at": t, "type": "foul", "team": team, "player": player, "penalty": "5a"},
        {"at": t, "type": "timeout", "reason": "injury", "team": team, "player": player},
        {"at": t, "type": "shot", "team": team, "player": player, "result": "goal"},
    ]


def roster_events(rng: random.Random, t: float, teams: list[str]) -> list[dict[str, Any]]:
    team = rng.choice(teams)
    other = teams[1] if team == teams[0] else teams[0]
    p = rng.choice([1, 2, 3])
    return [
        {"at": t, "type": "foul", "team": team, "player": p, "penalty": "10"},
        {"at": t, "type": "foul", "team": team, "player": p, "penalty": "10", "for_periods": 1},
        {"at": t, "type": "foul", "team": team, "player": p, "penalty": "8", "equipment": True},
        {"at": t, "type": "foul", "team": team, "penalty": "7", "disabled": rng.choice([1, 2, 3])},
        {"at": t, "type": "foul", "team": team, "penalty": "7", "disabled": p, "substitute": 4},
        {"at": t, "type": "substitute", "team": other, "out": p, "in": rng.choice([4, 5])},
        {"at": t, "type": "whistle"},
        {"at": t, "type": "bowl_in"},
        {"at": t, "type": "return", "team": team, "player": p},
    ]


@SETTINGS
@given(OPTIONS, st.integers(0, 2**32), st.floats(0, 1), st.integers(0, 2**32))
def test_property_no_event_by_a_player_who_may_not_play_is_ever_accepted(
    options: dict[str, Any], seed: int, cut: float, seed2: int
) -> None:
    setup = with_alternates(**options)
    events = simulate(setup, random.Random(seed), 300)
    m = Match(setup, events[: int(cut * len(events))])
    rng = random.Random(seed2)
    t = m.report()["at"] if len(m) else 0.0
    for _ in range(30):
        t += rng.choice([0.5, 3.0, 40.0])
        cands = (roster_events if rng.random() < 0.4 else player_events)(rng, t, ["A", "B"])
        ev = rng.choice(cands)
        # a 'return' is by a player who is out: that is its point
        who = (ev["team"], ev["player"]) if "player" in ev and ev["type"] != "return" else None
        before = m.report(round(t * 1000))
        try:
            m.apply(ev)
        except EngineError as e:
            assert e.code in MESSAGES
            continue
        if who is not None:
            status = before["roster"][who[0]]["players"][str(who[1])]["status"]
            assert status == "playing", (ev, status)


@SETTINGS
@given(OPTIONS, st.integers(0, 2**32), st.floats(0, 1), st.floats(0, 700))
def test_property_allowed_lists_exactly_the_actions_whose_probe_is_accepted(
    options: dict[str, Any], seed: int, cut: float, later: float
) -> None:
    setup = with_alternates(**options)
    events = simulate(setup, random.Random(seed), 400)
    m = Match(setup, events[: int(cut * len(events))])
    start = events[len(m) - 1]["at"] if len(m) else 0.0
    at_ms = round((start + later) * 1000)
    allowed = m.report(at_ms)["allowed"]
    assert m.allowed(at_ms) == allowed
    for action in ACTIONS:
        ev = m.probe(action, at_ms)
        accepted = ev is not None and m.can(ev)
        assert accepted == (action in allowed), (action, ev, allowed)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["type", "at", "team", "player", "penalty",
                                                  "event", "order", "first", "remaining"]),
                                st.one_of(st.none(), st.integers(-2, 10**20), st.text(max_size=5),
                                          st.floats(), st.sampled_from(["goal", "foul", "undo",
                                                                        "A", "B", "clock"])),
                                max_size=5), max_size=12))
def test_property_every_refusal_has_a_known_code_and_json_params(events: list[Any]) -> None:
    m = Match(default_setup(tiebreak="shootout"))
    for ev in events:
        try:
            m.apply(ev)
        except EngineError as e:
            assert e.code in MESSAGES
            json.dumps(e.params, allow_nan=False)
            # every placeholder of the template has its value (a value may itself hold "{")
            assert message(e.code, e.params) in e.reason, e.reason
