"""Rules 3, 6, 8, 9, 10, 16, 17 and 18 (2006 summary), and undo."""

from __future__ import annotations

from typing import Any

import pytest

from chukker.engine import EngineError, Match, Setup, SetupError, replay

P = 450.0


def team(hcps: tuple[int, int, int] = (0, 0, 0), captain: int = 1) -> dict[str, Any]:
    return {
        "captain": captain,
        "players": [
            {"no": n, "name": f"P{n}", "handicap": h} for n, h in zip((1, 2, 3), hcps, strict=False)
        ],
    }


def setup(
    a: tuple[int, int, int] = (0, 0, 0), b: tuple[int, int, int] = (0, 0, 0), **options: Any
) -> Setup:
    return Setup.from_dict({"options": options, "teams": {"A": team(a), "B": team(b)}})


def ev(at: float, type_: str, **kw: Any) -> dict[str, Any]:
    return {"at": at, "type": type_, **kw}


def run(
    events: list[dict[str, Any]], at: float | None = None, s: Setup | None = None
) -> dict[str, Any]:
    return replay(s or setup(), events, None if at is None else round(at * 1000))


def refused(events: list[dict[str, Any]], s: Setup | None = None) -> EngineError:
    with pytest.raises(EngineError) as e:
        replay(s or setup(), events)
    return e.value


# ---------------------------------------------------------------- Rule 3
def test_rule_3_three_players_numbered_1_to_3() -> None:
    doc = {"teams": {"A": team(), "B": {"captain": 1, "players": team()["players"][:2]}}}
    with pytest.raises(SetupError, match=r"teams.B.players: Rule 3: an arena team has 3 players"):
        Setup.from_dict(doc)
    dup = {"captain": 1, "players": [{"no": 1}, {"no": 1}, {"no": 3}]}
    with pytest.raises(SetupError, match=r"numbered 1-3, each once"):
        Setup.from_dict({"teams": {"A": team(), "B": dup}})


def test_rule_3_one_captain_among_the_players() -> None:
    with pytest.raises(SetupError, match=r"teams.A.captain: Rule 3"):
        Setup.from_dict({"teams": {"A": team(captain=4), "B": team()}})
    no_captain = {"players": team()["players"]}
    with pytest.raises(SetupError, match=r"designates one captain"):
        Setup.from_dict({"teams": {"A": no_captain, "B": team()}})


def test_rule_3_exactly_two_teams() -> None:
    with pytest.raises(SetupError, match="exactly two teams"):
        Setup.from_dict({"teams": {"A": team(), "B": team(), "C": team()}})


def test_rule_3_goal_by_player_4_is_refused() -> None:
    e = refused([ev(0, "bowl_in"), ev(5, "goal", team="A", player=4)])
    assert "players 1-3" in e.reason


# ---------------------------------------------------------------- Rule 6
def test_rule_6_two_point_goal_from_beyond_the_line() -> None:
    r = run([ev(0, "bowl_in"), ev(10, "goal", team="A", two_point=True), ev(20, "bowl_in")])
    assert r["score"]["A"] == 2
    assert r["goals"][0]["points"] == 2


def test_rule_6_two_point_goal_refused_without_a_two_point_line() -> None:
    e = refused(
        [ev(0, "bowl_in"), ev(10, "goal", team="A", two_point=True)], setup(two_point_line="none")
    )
    assert "no two-point line" in e.reason


def test_rule_6_unknown_team_is_refused() -> None:
    e = refused([ev(0, "bowl_in"), ev(10, "goal", team="C")])
    assert e.reason == "unknown team 'C' (teams are A and B)"


# ---------------------------------------------------------------- Rule 8
def test_rule_8_ends_change_every_period_including_extra_periods() -> None:
    s = setup(first_defends={"A": "east", "B": "west"})
    starts = [0.0, 690.0, 1740.0, 2430.0]
    events = [ev(x, "bowl_in") for x in starts]
    assert run(events[:1], at=1, s=s)["defends"] == {"A": "east", "B": "west"}
    assert run(events[:2], at=700, s=s)["defends"] == {"A": "west", "B": "east"}
    s5 = starts[3] + P + 600
    r = run([*events, ev(s5, "bowl_in")], at=s5 + 1, s=s)
    assert r["period"] == 5 and r["defends"] == {"A": "east", "B": "west"}


def test_rule_8_clock_starts_when_the_ball_leaves_the_umpires_hand() -> None:
    r = run([ev(12.5, "bowl_in")], at=20)
    assert r["periods"][0]["start"] == 12.5
    assert r["clock"]["remaining_ms"] == 442_500
    assert run([], at=5)["status"] == "pre_match"


# ---------------------------------------------------------------- Rule 9
def foul_at(penalty: str, team_: str = "B", **kw: Any) -> dict[str, Any]:
    return run([ev(0, "bowl_in"), ev(100, "foul", team=team_, penalty=penalty, **kw)])


def test_rule_9_penalty_1_awards_a_goal_and_bowl_in_toward_the_sideboards() -> None:
    r = run([ev(0, "bowl_in"), ev(100, "foul", team="B", penalty="1")], at=101)
    assert r["score"] == {"A": 1, "B": 0}
    assert r["goals"][0]["kind"] == "penalty"
    # B defends east in period 1: 15 yards in front of the east goal
    assert r["restart"] == {
        "kind": "bowl_in",
        "spot": [85.0, 25.0],
        "toward": "sideboards",
        "penalty": "1",
        "clause": "9",
    }
    assert r["status"] == "stopped"


@pytest.mark.parametrize(("penalty", "x"), [("2", 85.0), ("3", 75.0), ("4", 75.0)])
def test_rule_9_penalties_2_3_4_free_hit_in_front_of_the_fouling_teams_goal(
    penalty: str, x: float
) -> None:
    r = foul_at(penalty)
    assert r["restart"]["kind"] == "free_hit"
    assert r["restart"]["spot"] == [x, 25.0]
    assert r["restart"]["team"] == "A"
    assert r["pending_penalty"]["penalty"] == penalty
    if penalty == "4":
        assert r["restart"]["defender_in_goal_arc"] == {"team": "B", "within_yd": 5}


def test_rule_9_free_hit_spot_follows_the_ends_of_the_period() -> None:
    r = run([ev(0, "bowl_in"), ev(690, "bowl_in"), ev(700, "foul", team="B", penalty="2")])
    assert r["restart"]["spot"] == [15.0, 25.0]  # B defends west in period 2


def test_rule_9_penalty_5a_centre_and_5b_point_of_infraction_off_the_wall() -> None:
    assert foul_at("5a")["restart"]["spot"] == [50.0, 25.0]
    assert foul_at("5b", spot=[30, 2])["restart"]["spot"] == [30.0, 5.0]
    assert foul_at("5b", spot=[98, 48])["restart"]["spot"] == [95.0, 45.0]
    assert foul_at("5", spot=[40, 20])["restart"]["penalty"] == "5b"


def test_rule_9_free_hit_only_while_a_penalty_is_pending() -> None:
    e = refused([ev(0, "bowl_in"), ev(10, "whistle"), ev(20, "free_hit")])
    assert "no free hit is pending" in e.reason
    r = run([ev(0, "bowl_in"), ev(10, "foul", team="A", penalty="3"), ev(30, "free_hit")], at=31)
    assert r["status"] == "in_play" and r["pending_penalty"] is None


def test_rule_9_penalty_6_repeats_the_free_hit_or_bowls_in_at_the_centre() -> None:
    base = [ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="3"), ev(20, "free_hit")]
    r = run([*base, ev(22, "foul", team="B", penalty="6")])
    assert r["restart"]["kind"] == "free_hit" and r["restart"]["spot"] == [75.0, 25.0]
    r = run([*base, ev(22, "foul", team="A", penalty="6")])
    assert r["restart"] == {"kind": "bowl_in", "spot": [50.0, 25.0], "clause": "8"}
    e = refused([ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="6")])
    assert "penalty 6 needs" in e.reason


def test_rule_9_penalty_7_removes_the_fouling_player_with_nearest_handicap_above() -> None:
    s = setup(a=(1, 3, 5), b=(2, 4, 6))
    r = run([ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="7", disabled=2)], s=s)
    # A 2 (handicap 3) disabled: B's nearest above 3 is B 2 (4)
    assert r["roster"]["B"]["removed"] == {"2": "removed (Penalty 7)"}
    assert r["roster"]["A"]["disabled"] == {"2": "foul (Penalty 7)"}
    assert r["handicap_goals"] == run([], s=s)["handicap_goals"]  # unchanged
    r = run([ev(0, "bowl_in"), ev(10, "foul", team="A", penalty="7", disabled=3)], s=s)
    # B 3 (6) is above all of A: the captain designates any member
    assert r["roster"]["A"]["removed"] == {}
    assert "designates one of A 1, 2, 3" in r["notices"][0]["text"]
    r = run([ev(0, "bowl_in"), ev(10, "foul", team="A", penalty="7", disabled=3, removed=1)], s=s)
    assert r["roster"]["A"]["removed"] == {"1": "removed (Penalty 7)"}


def test_rule_9_penalty_8_and_10_remove_the_player() -> None:
    r = run([ev(0, "bowl_in"), ev(10, "foul", team="A", penalty="10", player=2), ev(20, "bowl_in")])
    assert r["roster"]["A"]["removed"] == {"2": "removed (Penalty 10)"}
    e = refused(
        [
            ev(0, "bowl_in"),
            ev(10, "foul", team="A", penalty="8", player=3),
            ev(20, "bowl_in"),
            ev(30, "goal", team="A", player=3),
        ]
    )
    assert "removed from the game" in e.reason


def test_rule_9_penalty_9_forfeits_the_match_and_both_teams_if_both() -> None:
    r = run([ev(0, "bowl_in"), ev(10, "goal", team="B"), ev(20, "foul", team="B", penalty="9")])
    assert r["status"] == "final" and r["winner"] == "A" and r["decided_by"] == "forfeit"
    assert r["periods"][0]["end"] == 20.0
    r = run(
        [
            ev(0, "bowl_in"),
            ev(20, "foul", team="B", penalty="9"),
            ev(25, "foul", team="A", penalty="9"),
        ]
    )
    assert r["winner"] is None and r["forfeited"] == ["B", "A"]
    r = run([ev(0, "bowl_in"), ev(20, "forfeit", team="A")])
    assert r["winner"] == "B" and r["decided_by"] == "forfeit"


# ---------------------------------------------------------------- Rule 10
def test_rule_10_fouls_by_both_teams_no_free_hit_bowl_in_15_yards_from_goal() -> None:
    r = run(
        [
            ev(0, "bowl_in"),
            ev(10, "foul", team="A", penalty="3", spot=[5, 25]),
            ev(10, "foul", team="B", penalty="2"),
        ]
    )
    assert r["pending_penalty"] is None
    assert r["restart"]["kind"] == "bowl_in"
    assert r["restart"]["spot"] == [15.0, 25.0]
    assert r["restart"]["clause"] == "10"
    e = refused(
        [
            ev(0, "bowl_in"),
            ev(10, "foul", team="A", penalty="3"),
            ev(10, "foul", team="B", penalty="2"),
            ev(20, "free_hit"),
        ]
    )
    assert "no free hit is pending" in e.reason


# ---------------------------------------------------------------- Rule 16
def test_rule_16_injury_time_out_longer_than_15_minutes_disables_the_player() -> None:
    events = [ev(0, "bowl_in"), ev(10, "timeout", reason="injury", team="A", player=2)]
    r = run([*events, ev(10 + 899, "bowl_in")])
    assert r["roster"]["A"]["disabled"] == {}
    r = run(events, at=10 + 901)
    assert r["roster"]["A"]["disabled"] == {"2": "injury"}
    assert r["notices"][0]["clause"] == "16"


def test_rule_16_time_out_needs_a_reason() -> None:
    e = refused([ev(0, "bowl_in"), ev(10, "timeout")])
    assert "needs a 'reason'" in e.reason


# ---------------------------------------------------------------- Rule 17
def test_rule_17_handicap_difference_goes_to_the_lower_team() -> None:
    r = run([], s=setup(a=(2, 3, 1), b=(4, 3, 1)))
    assert r["handicap_goals"] == {"A": 2, "B": 0}
    assert r["score"] == {"A": 2, "B": 0}
    assert run([], s=setup(a=(2, 3, 1), b=(4, 3, 1), handicap=False))["handicap_goals"] == {
        "A": 0,
        "B": 0,
    }


def test_rule_17_scaled_per_team_and_rounded_half_up_then_the_difference() -> None:
    # six periods: A 1 -> 1.5 -> 2, B 2 -> 3: difference 1 (not 1 x 1.5 -> 2)
    r = run([], s=setup(a=(1, 0, 0), b=(1, 1, 0), periods="six"))
    assert r["handicap_goals"] == {"A": 1, "B": 0}
    # negative handicaps round half up too: -3 x 1.5 = -4.5 -> -4
    r = run([], s=setup(a=(-1, -1, -1), b=(0, 0, 0), periods="six"))
    assert r["handicap_goals"] == {"A": 4, "B": 0}


def test_rule_17_handicap_goals_count_toward_the_winner() -> None:
    starts = [0.0, 690.0, 1740.0, 2430.0]
    r = run([ev(x, "bowl_in") for x in starts], s=setup(a=(1, 0, 0), b=(0, 0, 0)))
    assert r["winner"] == "B" and r["score"] == {"A": 0, "B": 1}


# ---------------------------------------------------------------- Rule 18
def test_rule_18_after_the_final_horn_the_record_is_locked() -> None:
    starts = [0.0, 690.0, 1740.0, 2430.0]
    events = [ev(x, "bowl_in") for x in starts] + [ev(2430 + 10, "goal", team="A")]
    e = refused([*events, ev(2430 + P + 5, "goal", team="B")])
    assert "locked (Rule 18)" in e.reason
    e = refused([*events, ev(2430 + P + 5, "whistle")])
    assert "locked" in e.reason
    r = run([*events, ev(2430 + P + 60, "undo", event=5)])
    assert r["status"] == "interval" and r["interval"]["kind"] == "extra"


# ---------------------------------------------------------------- undo
def test_undo_cancels_an_event_and_keeps_it_in_the_record() -> None:
    m = Match(setup())
    m.apply(ev(0, "bowl_in"))
    m.apply(ev(10, "goal", team="A", player=1))
    m.apply(ev(12, "undo", event=2))
    assert len(m.events) == 3
    assert m.report(13_000)["score"] == {"A": 0, "B": 0}
    m.apply(ev(14, "undo", event=3))  # undoing the undo reinstates the goal
    assert m.report(15_000)["score"] == {"A": 1, "B": 0}


def test_undo_that_would_leave_a_later_event_refused_is_refused() -> None:
    events = [
        ev(0, "bowl_in"),
        ev(10, "foul", team="A", penalty="3"),
        ev(20, "free_hit"),
        ev(30, "undo", event=2),
    ]
    e = refused(events)
    assert e.index == 4
    assert "would leave event 3" in e.reason


def test_undo_of_a_whistle_restores_the_running_clock() -> None:
    r = run([ev(0, "bowl_in"), ev(100, "whistle"), ev(110, "undo", event=2)], at=120)
    assert r["clock"] == {"remaining_ms": 330_000, "running": True}


def test_refused_event_changes_nothing_in_a_live_match() -> None:
    m = Match(setup())
    m.apply(ev(0, "bowl_in"))
    before = m.report(50_000)
    with pytest.raises(EngineError):
        m.apply(ev(460, "goal", team="A"))
    assert m.report(50_000) == before
    assert len(m.events) == 1
    assert m.can(ev(60, "goal", team="A")) and not m.can(ev(60, "free_hit"))


def test_events_must_not_go_back_in_time() -> None:
    e = refused([ev(0, "bowl_in"), ev(20, "whistle"), ev(19.5, "bowl_in")])
    assert e.reason == "time goes backwards: 19.500 s is before 20.000 s"


def test_unknown_event_type_is_refused() -> None:
    e = refused([ev(0, "bowl_in"), ev(1, "gaol", team="A")])
    assert str(e) == "event 2 (gaol at 1.000 s): unknown event type 'gaol'"


def test_next_deadline_is_the_next_horn_or_interval_end() -> None:
    m = Match(setup(warning_horn=True))
    assert m.next_deadline_ms(0) is None
    m.apply(ev(0, "bowl_in"))
    assert m.next_deadline_ms(0) == 420_000
    assert m.next_deadline_ms(420_000) == 450_000
    assert m.next_deadline_ms(450_000) == 690_000


def test_every_event_has_a_check_and_a_do_and_is_kept_as_an_immutable_event() -> None:
    m = Match(setup(tiebreak="shootout"))
    for start in (0, 690, 1740, 2430):
        assert m.can(ev(start, "bowl_in"))
        m.verify(ev(start, "bowl_in"))
        m.apply(ev(start, "bowl_in"))
    t = 2430 + 450 + 240
    order = ev(t, "shootout_order", first="A", order={"A": [1, 2, 3], "B": [3, 2, 1]})
    m.verify(order)
    done = m.apply(order)
    assert len(m) == 5 and done["order"] == {"A": [1, 2, 3], "B": [3, 2, 1]}
    done["first"] = "B"  # a copy: the log keeps the accepted event
    kept = m.event(5)
    assert kept.to_dict() == order
    with pytest.raises(TypeError):
        kept.fields["first"] = "B"  # type: ignore[index]
    with pytest.raises(AttributeError):
        kept.at_ms = 0  # type: ignore[misc]
    assert not m.can(ev(t + 0.001, "shot", team="B", player=3, result="goal"))
    m.verify(ev(t + 0.001, "shot", team="A", player=1, result="goal"))
    shots = [("A", 1, "goal"), ("B", 3, "miss"), ("A", 2, "miss"), ("B", 2, "miss"),
             ("A", 3, "miss"), ("B", 1, "miss")]
    for k, (team_, p, res) in enumerate(shots):
        m.apply(ev(t + (1 + k) / 1000, "shot", team=team_, player=p, result=res,
                   reached_end_wall=False))
    assert m.is_final() and m.report()["winner"] == "A"
    assert not m.can(ev(t + 0.1, "move_to_15"))
