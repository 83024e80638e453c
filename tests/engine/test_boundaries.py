"""The engine at its boundaries and ties (issue 25): one test per clause where a
one-point bug (``>=`` for ``>``, a rounding, the wrong period) would go unseen.

Named after the clause; the 2026 page for Rule 5, the 2006 summary for the rest.
``scripts/mutate.py`` runs the engine's tests against such bugs and prints the kill rate.
"""

from __future__ import annotations

from typing import Any

import pytest

from chukker.engine import EngineError, Setup, replay
from chukker.engine.errors import MESSAGES

P = 450.0  # 7:30
END1 = P
STARTS = [0.0, 690.0, 1740.0, 2430.0]  # period starts, each interval just over
END4 = STARTS[3] + P


def setup(
    a: tuple[int, int, int] = (0, 0, 0), b: tuple[int, int, int] = (0, 0, 0), **options: Any
) -> Setup:
    def team(h: tuple[int, int, int]) -> dict[str, Any]:
        return {"captain": 1,
                "players": [{"no": n, "handicap": x} for n, x in zip((1, 2, 3), h, strict=True)]}

    return Setup.from_dict({"options": {"handicap": False, **options},
                            "teams": {"A": team(a), "B": team(b)}})


def ev(at: float, type_: str, **kw: Any) -> dict[str, Any]:
    return {"at": at, "type": type_, **kw}


def run(events: list[dict[str, Any]], s: Setup | None = None, at: float | None = None) -> Any:
    return replay(s or setup(), events, None if at is None else round(at * 1000))


def refused(events: list[dict[str, Any]], s: Setup | None = None) -> EngineError:
    with pytest.raises(EngineError) as e:
        replay(s or setup(), events)
    assert e.value.code in MESSAGES
    return e.value


# ------------------------------------------------------------------ Rule 5, split
SPLIT = setup(split_periods=True)


def test_rule_5_split_horn_on_a_whistle_at_exactly_3_30_of_running_time() -> None:
    r = run([ev(0, "bowl_in"), ev(210, "whistle")], SPLIT, at=211)
    assert r["horns"] == [{"at": 210.0, "period": 1, "kind": "split"}]
    assert r["mount_change"]["since"] == 210.0
    r = run([ev(0, "bowl_in"), ev(209.999, "whistle")], SPLIT, at=211)
    assert r["horns"] == [] and r["mount_change"] is None


def test_rule_5_split_horn_on_a_goal_at_exactly_3_30_of_running_time() -> None:
    r = run([ev(0, "bowl_in"), ev(210, "goal", team="A")], SPLIT, at=211)
    assert r["horns"] == [{"at": 210.0, "period": 1, "kind": "split"}]
    assert r["status"] == "stopped"
    r = run([ev(0, "bowl_in"), ev(209.999, "goal", team="A")], SPLIT, at=211)
    assert r["horns"] == [] and r["status"] == "in_play"


def test_rule_5_split_counts_running_time_not_the_time_since_the_bowl_in() -> None:
    # 200 s run, a 60 s stoppage, 10 s more: 3:30 of running time at t = 270
    events = [ev(0, "bowl_in"), ev(200, "whistle"), ev(260, "bowl_in")]
    assert run([*events, ev(269.999, "whistle")], SPLIT, at=270)["horns"] == []
    assert [h["at"] for h in run([*events, ev(270, "whistle")], SPLIT, at=271)["horns"]] == [270.0]


# ----------------------------------------------------------- Rule 5, warning horn
WARN = setup(warning_horn=True)


def test_rule_5_warning_horn_after_a_clock_corrected_to_30_then_to_40_seconds() -> None:
    """The timekeeper sets 30 s, then 40 s, before play resumes: the clock has not run
    at 30 s or less, so the horn is still to sound, at 30 s left."""
    events = [ev(0, "bowl_in"), ev(100, "whistle"),
              ev(101, "clock", remaining=30, reason="late whistle"),
              ev(102, "clock", remaining=40, reason="umpire's direction"),
              ev(110, "bowl_in")]
    r = run(events, WARN)
    assert [(h["kind"], h["at"]) for h in r["horns"]] == [("warning", 120.0), ("end", 150.0)]


def test_rule_5_warning_horn_after_corrections_in_a_later_period() -> None:
    """The horn of period 1 sounded; in period 2 the clock is set to 30 s, then 40 s."""
    events = [ev(0, "bowl_in"), ev(STARTS[1], "bowl_in"), ev(STARTS[1] + 100, "whistle"),
              ev(STARTS[1] + 101, "clock", remaining=30, reason="late whistle"),
              ev(STARTS[1] + 102, "clock", remaining=40, reason="umpire's direction"),
              ev(STARTS[1] + 110, "bowl_in")]
    r = run(events, WARN, at=STARTS[1] + 151)
    assert [(h["kind"], h["period"]) for h in r["horns"]] == [
        ("warning", 1), ("end", 1), ("warning", 2), ("end", 2)]


def test_rule_5_warning_horn_once_the_clock_is_set_to_exactly_30_seconds() -> None:
    events = [ev(0, "bowl_in"), ev(100, "whistle"),
              ev(101, "clock", remaining=30, reason="late whistle"), ev(110, "bowl_in")]
    r = run(events, WARN)
    assert [(h["kind"], h["at"]) for h in r["horns"]] == [("end", 140.0)]
    events[2] = ev(101, "clock", remaining=30.001, reason="late whistle")
    r = run(events, WARN)
    assert [(h["kind"], h["at"]) for h in r["horns"]] == [("warning", 110.001), ("end", 140.001)]


def test_rule_5_no_warning_horn_in_a_practice_period_of_exactly_30_seconds() -> None:
    s = setup(warning_horn=True, practice={"period_s": 30, "interval_s": 10})
    r = run([ev(0, "bowl_in")], s, at=31)
    assert [(h["kind"], h["at"]) for h in r["horns"]] == [("end", 30.0)]
    s = setup(warning_horn=True, practice={"period_s": 31, "interval_s": 10})
    r = run([ev(0, "bowl_in")], s, at=32)
    assert [(h["kind"], h["at"]) for h in r["horns"]] == [("warning", 1.0), ("end", 31.0)]


def test_rule_5_warning_horn_not_due_after_the_clock_is_set_under_30_seconds() -> None:
    events = [ev(0, "bowl_in"), ev(100, "whistle"),
              ev(101, "clock", remaining=20, reason="late whistle"), ev(110, "bowl_in"),
              ev(111, "whistle"), ev(112, "clock", remaining=35, reason="umpire"),
              ev(113, "bowl_in")]
    r = run(events, WARN)
    assert [(h["kind"], h["at"]) for h in r["horns"]] == [("warning", 118.0), ("end", 148.0)]


# ----------------------------------------------- Rule 9: restarts in an interval
def test_rule_9_free_hit_awarded_in_an_interval_is_taken_from_the_next_periods_ends() -> None:
    # after period 1 (A defends west) the ends change: in period 2 B defends west
    r = run([ev(0, "bowl_in"), ev(END1 + 5, "foul", team="B", penalty="2")], at=END1 + 6)
    assert r["status"] == "interval"
    assert r["pending_penalty"]["period"] == 2
    assert r["restart"]["spot"] == [15.0, 25.0]  # 15 yards in front of the west goal
    assert r["defends"] == {"A": "east", "B": "west"}
    r = run([ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="2")], at=11)
    assert r["restart"]["spot"] == [85.0, 25.0]  # in period 1 B defends east


def test_rule_9_penalty_1_awarded_in_an_interval_bowls_in_before_the_next_periods_goal() -> None:
    r = run([ev(0, "bowl_in"), ev(END1 + 5, "foul", team="B", penalty="1")], at=END1 + 6)
    assert r["score"] == {"A": 1, "B": 0}
    assert r["restart"]["penalty"] == "1"
    assert r["restart"]["spot"][0] < 50  # in front of the goal B defends in period 2: west
    r = run([ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="1")], at=11)
    assert r["restart"]["spot"][0] > 50


# ------------------------------------------------------------ Rule 17, handicap
def test_rule_17_a_team_handicap_scaling_to_exactly_a_half_rounds_up() -> None:
    """3 over six periods is 3 / 4 x 6 = 4.5, rounded half up: 5 (not 4)."""
    s = setup(a=(1, 1, 1), b=(0, 0, 0), handicap=True, periods="six")
    assert s.handicap_goals() == {"A": 0, "B": 5}
    s = setup(a=(1, 1, 1), b=(1, 0, 0), handicap=True, periods="six")
    assert s.handicap_goals() == {"A": 0, "B": 3}  # 4.5 -> 5 less 1.5 -> 2
    assert run([], setup(a=(1, 1, 1), handicap=True, periods="six"))["score"] == {"A": 0, "B": 5}


# -------------------------------------------------------------- Rule 9, Penalty 6
def test_rule_9_penalty_6_after_a_free_hits_goal_and_a_new_penalty_cancels_nothing() -> None:
    """Penalty 6 judges the last free hit: a goal scored from an earlier one stands."""
    events = [ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="3"), ev(20, "free_hit"),
              ev(22, "goal", team="A", player=1), ev(30, "foul", team="B", penalty="3"),
              ev(40, "free_hit"), ev(41, "foul", team="A", penalty="6")]
    r = run(events, at=42)
    assert r["score"] == {"A": 1, "B": 0}  # the first free hit's goal stands
    assert r["goals"][0]["points"] == 1 and "cancelled" not in r["goals"][0]
    assert r["pending_penalty"] is None and r["restart"]["spot"] == [50.0, 25.0]
    # a Penalty 6 against the fouling team while the new hit is pending: it is taken again,
    # whatever the earlier hit scored
    pending = [*events[:5], ev(31, "foul", team="B", penalty="6")]
    r = run(pending, at=32)
    assert r["pending_penalty"]["event"] == 6 and r["score"] == {"A": 1, "B": 0}
    assert [n["code"] for n in r["notices"]] == []
    # against the fouling team instead: the last free hit is taken again
    events[-1] = ev(41, "foul", team="B", penalty="6")
    r = run(events, at=42)
    assert r["pending_penalty"]["penalty"] == "3" and r["score"] == {"A": 1, "B": 0}


# -------------------------------------------------------------- Rule 9, Penalty 7
def test_rule_9_penalty_7_nearest_and_above_is_strictly_above_an_equal_handicap() -> None:
    s = setup(a=(1, 3, 1), b=(3, 4, 5))
    r = run([ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="7", disabled=2)], s, at=11)
    assert r["roster"]["B"]["players"]["2"]["status"] == "removed"  # 4, not the equal 3
    assert r["roster"]["B"]["players"]["1"]["status"] == "playing"


def test_rule_9_penalty_7_equal_or_higher_than_every_fouling_player_any_may_be_designated() -> (
    None
):
    s = setup(a=(1, 5, 1), b=(3, 4, 5))
    r = run([ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="7", disabled=2)], s, at=11)
    assert r["roster"]["B"]["designate"]["candidates"] == [1, 2, 3]


# ------------------------------------------------------------- Rule 9, Penalty 10
def test_rule_9_penalty_10_for_periods_awarded_in_an_interval_counts_from_the_next() -> None:
    events = [ev(0, "bowl_in"), ev(END1 + 5, "foul", team="A", player=2, penalty="10",
                                   for_periods=1)]
    r = run(events, at=END1 + 6)
    assert r["roster"]["A"]["players"]["2"]["until_period"] == 3
    e = refused([*events, ev(STARTS[1], "bowl_in"), ev(STARTS[1] + 5, "goal", team="A",
                                                        player=2)])
    assert e.code == "player_suspended"
    r = run([*events, ev(STARTS[1], "bowl_in"), ev(STARTS[2] + 20, "bowl_in"),
             ev(STARTS[2] + 25, "goal", team="A", player=2)], at=STARTS[2] + 26)
    assert r["score"]["A"] == 1


def test_rule_5_penalty_10_suspension_ending_at_the_shootout_lets_the_player_shoot() -> None:
    s = setup(tiebreak="shootout")
    events = [ev(x, "bowl_in") for x in STARTS]
    events.append(ev(STARTS[3] + 10, "foul", team="A", player=2, penalty="10", for_periods=1))
    events.append(ev(STARTS[3] + 20, "bowl_in"))
    so = END4 + 10 + 240
    order = {"A": [1, 2, 3], "B": [1, 2, 3]}
    r = run([*events, ev(so, "shootout_order", first="A", order=order)], s, at=so + 1)
    assert r["shootout"]["order"]["A"] == [1, 2, 3]  # the shootout is period 5
    s2 = setup(tiebreak="shootout")
    events[-2] = ev(STARTS[3] + 10, "foul", team="A", player=2, penalty="10", for_periods=2)
    e = refused([*events, ev(so, "shootout_order", first="A", order=order)], s2)
    assert e.code == "player_suspended"
