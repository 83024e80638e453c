"""Any input, however wrong, is refused with a reason: never another exception."""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.engine import EngineError, Match, check, replay
from chukker.engine.errors import MESSAGES
from chukker.engine.simulate import default_setup

VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 12), st.floats(allow_nan=True),
    st.sampled_from(["A", "B", "C", "", "5a", "5b", "goal", "miss", "injury", "west"]),
    st.lists(st.integers(0, 4), max_size=4),
    st.dictionaries(st.sampled_from(["A", "B", "x"]), st.lists(st.integers(0, 4), max_size=3),
                    max_size=3),
)
TYPES = st.sampled_from(["bowl_in", "whistle", "goal", "foul", "free_hit", "timeout", "forfeit",
                         "shootout_order", "shot", "move_to_15", "undo", "nonsense",
                         "substitute", "designate", "return", "clock"])
FIELDS = st.sampled_from(["team", "player", "penalty", "reason", "two_point", "spot", "first",
                          "order", "result", "reached_end_wall", "event", "disabled", "removed",
                          "substitute", "card", "clause", "out", "in", "remaining",
                          "for_periods", "mount", "equipment"])


@st.composite
def event(draw: Any) -> Any:
    if draw(st.integers(0, 30)) == 0:
        return draw(VALUES)  # not even an object
    ev = {"type": draw(TYPES)}
    at = draw(st.one_of(st.floats(0, 4000, allow_nan=False), st.integers(0, 4000), VALUES))
    if draw(st.integers(0, 20)):
        ev["at"] = at
    for f in draw(st.lists(FIELDS, max_size=4)):
        ev[f] = draw(VALUES)
    return ev


@settings(max_examples=300, deadline=None)
@given(st.lists(event(), max_size=25))
def test_fuzz_refusals_are_engine_errors_with_an_event_number(events: list[Any]) -> None:
    setup = default_setup(tiebreak="shootout", split_periods=True, warning_horn=True)
    try:
        replay(setup, events)
    except EngineError as e:
        assert 1 <= e.index <= len(events)
        assert str(e).startswith(f"event {e.index} (")
        assert e.code in MESSAGES
    for p in check(setup, events):
        assert isinstance(p, EngineError)
    m = Match(setup)
    for ev in events:
        with contextlib.suppress(EngineError):
            m.apply(ev)
    m.report()


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.floats(0, 1), st.lists(event(), min_size=1, max_size=8))
def test_fuzz_wrong_events_after_a_legal_prefix_are_refused_cleanly(
    seed: int, cut: float, tail: list[Any]
) -> None:
    import random

    from chukker.engine.simulate import simulate

    setup = default_setup(tiebreak="shootout", shootout_players="all", split_periods=True)
    legal = simulate(setup, random.Random(seed), 400)
    prefix = legal[: int(cut * len(legal))]
    last = prefix[-1]["at"] if prefix else 0.0
    for ev in tail:  # keep time moving forward so the events reach the state they test
        if isinstance(ev, dict) and isinstance(ev.get("at"), float | int) and not isinstance(
            ev.get("at"), bool
        ):
            ev["at"] = last + abs(ev["at"]) % 600
    m = Match(setup, prefix)
    for ev in tail:
        try:
            m.apply(ev)
        except EngineError as e:
            assert e.index == len(m) + 1
    m.report()
