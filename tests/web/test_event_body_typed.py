"""The live API's event body, checked and typed in one step (issue 46).

``checked_event`` gives what the detailed check gave (the normalised body, or the same
422 with the same words) and, beside it, the event as its class, which the service
stamps and hands to the engine: the engine folds it as it would fold the stamped dict.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chukker.engine import Match
from chukker.engine.events import Event, Goal, Timeout
from chukker.engine.fold import typed
from chukker.engine.simulate import default_setup, simulate
from chukker.live.errors import ServiceError
from chukker.record.definitions import validate_event
from chukker.record.errors import RecordError
from chukker.web.api.routes import check_event, checked_event


def _detailed(body: Any) -> tuple[str, Any]:
    """What the body gave before: the detailed check's copy, or its refusal's code."""
    try:
        return "ok", validate_event(body, "event")
    except RecordError as e:
        return "refused", e.code


def _one_step(body: Any) -> tuple[str, Any]:
    try:
        clean, as_class = checked_event(body)
    except ServiceError as e:
        return "refused", e.extra["detail"]
    assert isinstance(as_class, Event)
    assert as_class == typed({**clean, "at": 0.0})  # the class of what is stored
    return "ok", clean


def test_a_plain_body_is_typed_without_the_detailed_check() -> None:
    clean, as_class = checked_event({"type": "goal", "team": "A", "player": 2})
    assert clean == {"type": "goal", "team": "A", "player": 2}
    assert as_class == Goal(at=0.0, team="A", player=2)


def test_a_body_the_detailed_check_normalises_is_typed_after_it() -> None:
    clean, as_class = checked_event({"type": "timeout", "reason": "lesio\u0301n", "player": 2.0,
                                     "team": "A"})
    assert clean["reason"] == "lesi\u00f3n" and clean["player"] == 2  # NFC, the int
    assert as_class == Timeout(at=0.0, reason="lesi\u00f3n", team="A", player=2)


@pytest.mark.parametrize("body", [
    {"type": "goal"}, {"type": "goal", "team": 7}, {"type": "goal", "team": "A", "x": 1},
    {"type": "foul", "team": "A", "penalty": "99"}, {"type": "whistle", "spot": [500, 1]},
    {"type": "clock", "remaining": -1, "reason": "r"}, {"type": "undo", "event": 0},
    {"type": "whistle", "reason": "r" * 201}, {"type": "goal", "team": "A", "player": True},
])
def test_a_bad_body_is_refused_in_the_detailed_checks_words(body: dict[str, Any]) -> None:
    kind, code = _one_step(body)
    assert (kind, code) == _detailed(body)


def test_the_two_refusals_of_the_live_api_come_first() -> None:
    with pytest.raises(ServiceError) as e:
        check_event({"type": "goal", "team": "A", "at": 1})
    assert e.value.code == "at_not_allowed"
    with pytest.raises(ServiceError) as e:
        check_event({"type": "nope"})
    assert e.value.code == "unknown_event_type"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 5_000), key=st.sampled_from(
    ["team", "player", "reason", "spot", "penalty", "result", "remaining", "event", "source",
     "mount", "in", "order"]),
    value=st.one_of(st.none(), st.booleans(), st.integers(-5, 200), st.floats(-1, 4000),
                    st.text(max_size=5), st.lists(st.floats(-1, 120), max_size=3)))
def test_the_one_step_check_is_the_detailed_check(seed: int, key: str, value: Any) -> None:
    setup = default_setup()
    events = simulate(setup, random.Random(seed), 20)
    body = {k: v for k, v in events[seed % len(events)].items() if k != "at"}
    body[key] = value
    assert _one_step(body) == _detailed(body)


def test_the_engine_folds_the_typed_body_as_the_stamped_dict() -> None:
    setup = default_setup()
    events = simulate(setup, random.Random(11), 120)
    by_dict, by_class = Match(setup), Match(setup)
    for e in events:
        body = {k: v for k, v in e.items() if k != "at"}
        clean, as_class = checked_event(body)
        stamped = {**clean, "at": e["at"]}
        by_dict.apply(stamped)
        by_class.apply(stamped, typed=msgspec.structs.replace(as_class, at=e["at"]))
    assert by_dict.report() == by_class.report()
    assert by_dict.events == by_class.events  # the record keeps the stamped dicts
