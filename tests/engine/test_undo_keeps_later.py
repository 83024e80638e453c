"""Issue 42: an undo does not rewrite the later events (``docs/engine.md``, "An undo does
not rewrite the later events"). Rule 18 keeps the record append-only; the contract's
``undo`` refolds without its target. The engine refuses the undo when an accepted event
after it would change its period, cross its period's end, lose its restart of play, or be
refused; the refusal names the first such event. Every other undo keeps its meaning."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chukker.engine import EngineError, Match, Setup, check, replay
from chukker.engine.errors import MESSAGES
from chukker.engine.fold import Fold
from chukker.engine.simulate import default_setup, simulate


def setup(**options: Any) -> Setup:
    team = {"captain": 1, "players": [{"no": n, "handicap": 0} for n in (1, 2, 3)]}
    return Setup.from_dict(
        {"rules": "uspa-arena-2026", "options": {"handicap": False, **options},
         "teams": {"A": team, "B": team}}
    )


def ev(at: float, type_: str, **kw: Any) -> dict[str, Any]:
    return {"at": at, "type": type_, **kw}


def refusal(events: list[dict[str, Any]]) -> EngineError:
    with pytest.raises(EngineError) as e:
        replay(setup(), events)
    assert e.value.code in MESSAGES
    return e.value


# period 1 from 0 to 450 s (7:30); the interval runs to 690 s
P2 = [
    ev(0, "bowl_in"),
    ev(700, "bowl_in"),  # event 2 opens period 2
    ev(704, "foul", team="B", player=2, penalty="1"),  # Penalty 1: a goal to A
    ev(710, "bowl_in"),
    ev(720, "timeout", team="A", reason="team"),
]


def test_contract_undo_of_the_bowl_in_opening_period_2_is_refused_naming_the_foul() -> None:
    e = refusal([*P2, ev(730, "undo", event=2)])
    assert e.code == "undo_moves_later"
    assert e.params["event"] == 3 and e.params["type"] == "foul"
    assert (e.params["from_period"], e.params["to_period"]) == (2, 1)
    assert "would move event 3 (foul at 704.000 s) from period 2 to period 1" in e.reason


def test_contract_a_refused_undo_leaves_the_match_as_it_was() -> None:
    m = Match(setup())
    for e in P2:
        m.apply(e)
    before = m.report(730_000)
    assert not m.can(ev(730, "undo", event=2))
    with pytest.raises(EngineError):
        m.apply(ev(730, "undo", event=2))
    assert m.report(730_000) == before


def test_rule_18_undo_of_an_old_whistle_does_not_rerun_its_stoppage() -> None:
    # whistle at 5 s, bowl-in at 57 s: the 52 s were stopped time; undoing the whistle would
    # run them on the clock (6:55 left jumping to 6:03), so the bowl-in keeps it: refused
    events = [ev(0, "bowl_in"), ev(5, "whistle"), ev(57, "bowl_in"), ev(60, "whistle")]
    e = refusal([*events, ev(61, "undo", event=2)])
    assert e.code == "undo_takes_restart" and e.params["event"] == 3
    assert e.params["type"] == "bowl_in"
    left = replay(setup(), events, 61_000)["clock"]["remaining_ms"]
    assert left == 450_000 - 5_000 - 3_000  # 7:22 left: the stoppage is not run


def test_contract_undo_of_a_false_stop_not_yet_restarted_runs_the_clock_on() -> None:
    r = replay(setup(), [ev(0, "bowl_in"), ev(5, "whistle"), ev(8, "undo", event=2)], 10_000)
    assert r["clock"]["running"] is True
    assert r["clock"]["remaining_ms"] == 440_000


def test_contract_undo_of_an_old_goal_keeps_its_meaning() -> None:
    events = [ev(0, "bowl_in"), ev(10, "goal", team="A", player=1), ev(11, "bowl_in"),
              ev(20, "whistle"), ev(25, "bowl_in"), ev(30, "undo", event=2)]
    r = replay(setup(), events, 31_000)
    assert r["score"]["A"] == 0


def test_contract_undo_that_leaves_a_later_free_hit_refused_keeps_its_code() -> None:
    e = refusal([ev(0, "bowl_in"), ev(10, "foul", team="A", penalty="3"), ev(20, "free_hit"),
                 ev(30, "undo", event=2)])
    assert e.code == "undo_leaves_refused" and e.params["event"] == 3


def test_contract_undo_that_pushes_a_later_event_past_the_horn_is_refused() -> None:
    # the whistle stopped the clock at 7:25 gone; a substitution-free time-out 10 s later
    # is recorded in the stoppage; undoing the whistle would run the clock to the horn at
    # 450 s, and the time-out at 460 s would fall after the end of period 1
    events = [ev(0, "bowl_in"), ev(445, "whistle"), ev(460, "timeout", team="A", reason="team")]
    e = refusal([*events, ev(461, "undo", event=2)])
    assert e.code == "undo_moves_past_end" and e.params == {
        "target": 2, "event": 3, "type": "timeout", "at_ms": 460_000, "period": 1}


def test_contract_undo_of_an_undo_is_checked_for_the_events_it_reinstates_before() -> None:
    # event 2 (whistle) undone at once, play goes on; reinstating it later would stop the
    # clock under the goal scored meanwhile: that goal would be refused
    events = [ev(0, "bowl_in"), ev(5, "whistle"), ev(6, "undo", event=2),
              ev(10, "goal", team="A", player=1)]
    e = refusal([*events, ev(12, "undo", event=3)])
    assert e.code == "undo_leaves_refused" and e.params["event"] == 4


def test_chukker_check_lists_the_refused_undo() -> None:
    problems = check(setup(), [*P2, ev(730, "undo", event=2)])
    assert [p.code for p in problems] == ["undo_moves_later"]


def _places(s: Setup, events: list[dict[str, Any]]) -> dict[int, tuple[int, bool]]:
    """Each accepted, uncancelled, non-undo event's (period, restarted play), from a
    prefix replay per event: slow and plain, the property's oracle."""
    fold = Fold(s, lenient=True)
    fold.feed(events)
    out: dict[int, tuple[int, bool]] = {}
    for j, e in enumerate(events):
        if j in fold.refused or j in fold.cancelled or e["type"] == "undo":
            continue
        f = Fold(s, lenient=True)
        f.feed(events[: j + 1])
        out[j] = (f.core.period, (j + 1) in f.core.restarts)
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_contract_an_accepted_undo_keeps_every_later_event_in_its_period(
    seed: int, pick: int
) -> None:
    s = default_setup(split_periods=True, warning_horn=True)
    events = simulate(s, random.Random(seed), 40)
    target = 1 + pick % len(events)
    undo = ev(events[-1]["at"], "undo", event=target)
    before = _places(s, events)
    fold = Fold(s)
    fold.feed(events)
    try:
        fold.apply(undo)
    except EngineError:
        return
    after = _places(s, [*events, undo])
    for j, (period, restarted) in before.items():
        if j + 1 <= target or j not in after:
            continue
        assert after[j][0] == period, (j, target)
        assert after[j][1] or not restarted, (j, target)
