"""Rule 5 (2026 page): length and number of periods, horns, ties, clock."""

from __future__ import annotations

from typing import Any

import pytest

from chukker.engine import EngineError, Setup, replay

P = 450.0  # 7:30
PLAYERS = [{"no": 1, "handicap": 0}, {"no": 2, "handicap": 0}, {"no": 3, "handicap": 0}]


def setup(**options: Any) -> Setup:
    opts = {"handicap": False, **options}
    return Setup.from_dict(
        {
            "rules": options.pop("rules", "uspa-arena-2026"),
            "options": {k: v for k, v in opts.items() if k != "rules"},
            "teams": {
                "A": {"name": "Blue", "captain": 1, "players": PLAYERS},
                "B": {"name": "White", "captain": 1, "players": PLAYERS},
            },
        }
    )


def ev(at: float, type_: str, **kw: Any) -> dict[str, Any]:
    return {"at": at, "type": type_, **kw}


def run(events: list[dict[str, Any]], at: float | None = None, **options: Any) -> dict[str, Any]:
    return replay(setup(**options), events, None if at is None else round(at * 1000))


def refused(events: list[dict[str, Any]], **options: Any) -> EngineError:
    with pytest.raises(EngineError) as e:
        replay(setup(**options), events)
    return e.value


def regulation_starts() -> list[float]:
    # period starts when each interval is exactly over: 4, 10, 4 minutes
    s1 = 0.0
    s2 = s1 + P + 240
    s3 = s2 + P + 600
    s4 = s3 + P + 240
    return [s1, s2, s3, s4]


def test_rule_5_regulation_is_four_periods_of_7_30_with_intervals_4_10_4() -> None:
    starts = regulation_starts()
    events = [ev(s, "bowl_in") for s in starts]
    events.insert(1, ev(100, "goal", team="A", player=1))
    r = run(events)
    assert r["status"] == "final"
    assert r["decided_by"] == "regulation"
    assert r["winner"] == "A"
    assert [h["at"] for h in r["horns"]] == [s + P for s in starts]
    assert [h["kind"] for h in r["horns"]] == ["end"] * 4
    assert r["periods"] == [
        {"number": i + 1, "start": s, "end": s + P} for i, s in enumerate(starts)
    ]
    assert r["clock"] == {"remaining_ms": 0, "running": False}


def test_rule_5_interval_must_run_out_before_the_next_bowl_in() -> None:
    e = refused([ev(0, "bowl_in"), ev(P + 239.999, "bowl_in")])
    assert e.index == 2
    assert "interval after period 1 runs until 690.000 s" in str(e)


def test_rule_5_ten_minute_interval_after_the_second_period() -> None:
    s2 = P + 240
    r = run([ev(0, "bowl_in"), ev(s2, "bowl_in")], at=s2 + P + 599)
    assert r["status"] == "interval"
    assert r["period"] == 2
    assert r["interval"]["remaining_ms"] == 1000
    e = refused([ev(0, "bowl_in"), ev(s2, "bowl_in"), ev(s2 + P + 599, "bowl_in")])
    assert e.index == 3


def test_rule_5_six_periods_of_5_minutes_with_10_minutes_after_the_third() -> None:
    gaps = [240, 240, 600, 240, 240]
    starts = [0.0]
    for g in gaps:
        starts.append(starts[-1] + 300 + g)
    events = [ev(s, "bowl_in") for s in starts]
    events.insert(1, ev(10, "goal", team="B"))
    r = run(events, periods="six")
    assert r["status"] == "final"
    assert r["winner"] == "B"
    assert len(r["periods"]) == 6
    assert [h["at"] for h in r["horns"]] == [s + 300 for s in starts]
    with pytest.raises(EngineError):
        replay(
            setup(periods="six"),
            [
                ev(0, "bowl_in"),
                ev(300 + 240, "bowl_in"),
                ev(2 * 540, "bowl_in"),
                ev(3 * 540 - 1, "bowl_in"),
            ],
        )


def test_rule_5_horn_ends_the_period_and_the_ball_is_dead_at_that_instant() -> None:
    r = run([ev(0, "bowl_in"), ev(449.999, "goal", team="A")])
    assert r["score"]["A"] == 1
    e = refused([ev(0, "bowl_in"), ev(450, "goal", team="A")])
    assert str(e) == "event 2 (goal at 450.000 s): the ball is dead: period 1 ended at 450.000 s"


def test_rule_5_umpire_whistle_confirming_the_horn_is_accepted() -> None:
    r = run([ev(0, "bowl_in"), ev(450.4, "whistle", reason="end of period")], at=451)
    assert r["status"] == "interval"
    assert r["horns"] == [{"at": 450.0, "period": 1, "kind": "end"}]


def test_rule_5_whistle_stops_the_clock_and_time_is_not_deducted() -> None:
    events = [ev(0, "bowl_in"), ev(100, "whistle"), ev(160, "bowl_in")]
    r = run(events, at=130)
    assert r["status"] == "stopped"
    assert r["clock"] == {"remaining_ms": 350_000, "running": False}
    r = run(events)
    assert r["periods"][0]["end"] == 510.0  # 60 s stopped are not deducted
    e = refused([*events[:2], ev(120, "goal", team="A")])
    assert "the ball is dead" in e.reason


def test_rule_5_goal_does_not_stop_the_clock() -> None:
    r = run([ev(0, "bowl_in"), ev(100, "goal", team="A", player=2)], at=130)
    assert r["clock"] == {"remaining_ms": 320_000, "running": True}
    assert r["status"] == "in_play"
    assert r["restart"]["kind"] == "bowl_in" and r["restart"]["spot"] == [50.0, 25.0]
    r = run([ev(0, "bowl_in"), ev(100, "goal", team="A"), ev(130, "bowl_in")])
    assert r["periods"][0]["end"] == 450.0


def test_rule_5_split_horn_on_goal_after_3_30() -> None:
    events = [ev(0, "bowl_in"), ev(215, "goal", team="A")]
    r = run(events, split_periods=True, at=250)
    assert r["horns"] == [{"at": 215.0, "period": 1, "kind": "split"}]
    assert r["status"] == "stopped"
    assert r["clock"] == {"remaining_ms": 235_000, "running": False}
    assert r["mount_change"]["remaining_ms"] == 85_000
    r = run([*events, ev(300, "bowl_in")], split_periods=True)
    assert r["periods"][0]["end"] == 535.0
    assert r["notices"] == []


def test_rule_5_split_horn_only_after_3_30_and_once_per_period() -> None:
    events = [
        ev(0, "bowl_in"),
        ev(200, "whistle"),  # 3:20: no split
        ev(210, "bowl_in"),
        ev(230, "whistle"),  # 3:40 of running time: split
        ev(300, "bowl_in"),
        ev(320, "whistle"),  # a second stoppage: no second horn
        ev(330, "bowl_in"),
    ]
    r = run(events, split_periods=True)
    kinds = [(h["kind"], h["at"], h["period"]) for h in r["horns"]]
    assert kinds[0] == ("split", 230.0, 1)
    assert [k for k in kinds if k[0] == "split" and k[2] == 1] == [("split", 230.0, 1)]
    r = run(events)  # without the option: no split horn
    assert all(h["kind"] != "split" for h in r["horns"])


def test_rule_5_split_horn_sounds_in_every_period() -> None:
    s2 = P + 240
    events = [
        ev(0, "bowl_in"),
        ev(220, "whistle"),
        ev(230, "bowl_in"),
        ev(s2 + 10, "bowl_in"),
        ev(s2 + 10 + 215, "foul", team="B", penalty="5a"),
    ]
    r = run(events, split_periods=True)
    assert [(h["kind"], h["period"]) for h in r["horns"] if h["kind"] == "split"] == [
        ("split", 1),
        ("split", 2),
    ]


def test_rule_5_split_mount_change_longer_than_2_minutes_is_flagged() -> None:
    r = run([ev(0, "bowl_in"), ev(220, "whistle"), ev(341, "bowl_in")], split_periods=True)
    assert len(r["notices"]) == 1
    assert "more than 120.000 s" in r["notices"][0]["text"]


def test_rule_5_thirty_second_warning_horn() -> None:
    r = run([ev(0, "bowl_in"), ev(100, "whistle"), ev(110, "bowl_in")], warning_horn=True)
    assert r["horns"][:2] == [
        {"at": 430.0, "period": 1, "kind": "warning"},
        {"at": 460.0, "period": 1, "kind": "end"},
    ]
    r = run([ev(0, "bowl_in")])
    assert [h["kind"] for h in r["horns"]] == ["end"]


def test_rule_5_penalty_with_under_5_seconds_left_resets_the_clock_to_5_seconds() -> None:
    events = [ev(0, "bowl_in"), ev(447, "foul", team="B", penalty="3"), ev(470, "free_hit")]
    r = run(events, at=471)
    assert r["clock"] == {"remaining_ms": 4_000, "running": True}
    r = run(events)
    assert r["periods"][0]["end"] == 475.0
    assert r["notices"][0]["clause"] == "5.penalties-at-the-end-of-a-period"
    # with 5 s or more left the clock is not reset
    r = run([ev(0, "bowl_in"), ev(445, "foul", team="B", penalty="3"), ev(470, "free_hit")])
    assert r["periods"][0]["end"] == 475.0 and r["notices"] == []


def test_rule_5_penalty_awarded_between_periods_is_taken_at_the_start_of_the_next() -> None:
    s2 = P + 240
    events = [ev(0, "bowl_in"), ev(455, "foul", team="A", penalty="2")]
    r = run(events)
    assert r["pending_penalty"]["period"] == 2
    assert r["restart"]["kind"] == "free_hit"
    e = refused([*events, ev(s2, "bowl_in")])
    assert "free hit is pending" in e.reason
    r = run([*events, ev(s2, "free_hit")], at=s2 + 10)
    assert r["period"] == 2 and r["status"] == "in_play"
    assert r["clock"]["remaining_ms"] == 440_000
    e = refused([*events, ev(s2 - 1, "free_hit")])
    assert "interval" in e.reason


def test_rule_5_tie_extra_periods_after_10_minutes_first_goal_wins() -> None:
    starts = regulation_starts()
    events = [ev(s, "bowl_in") for s in starts]
    end4 = starts[3] + P
    r = run(events)
    assert r["status"] == "interval" and r["interval"]["kind"] == "extra"
    assert r["interval"]["end"] == end4 + 600
    e = refused([*events, ev(end4 + 599, "bowl_in")])
    assert e.index == 5
    s5 = end4 + 600
    r = run([*events, ev(s5, "bowl_in"), ev(s5 + 42.5, "goal", team="B", player=3)])
    assert r["status"] == "final"
    assert r["winner"] == "B" and r["decided_by"] == "extra-period"
    assert r["period"] == 5
    assert r["periods"][-1] == {"number": 5, "start": s5, "end": s5 + 42.5}
    assert r["score"] == {"A": 0, "B": 1}
    assert r["clock"] == {"remaining_ms": 407_500, "running": False}


def test_rule_5_extra_periods_are_regular_length_with_4_minute_intervals() -> None:
    starts = regulation_starts()
    events = [ev(s, "bowl_in") for s in starts]
    s5 = starts[3] + P + 600
    s6 = s5 + P + 240
    r = run([*events, ev(s5, "bowl_in"), ev(s6, "bowl_in"), ev(s6 + 1, "goal", team="A")])
    assert r["horns"][-1] == {"at": s5 + P, "period": 5, "kind": "end"}  # period 6 ends at the goal
    assert r["periods"][4] == {"number": 5, "start": s5, "end": s5 + P}
    assert r["periods"][5]["number"] == 6
    assert r["winner"] == "A" and r["decided_by"] == "extra-period"
    e = refused([*events, ev(s5, "bowl_in"), ev(s6 - 0.001, "bowl_in")])
    assert "extra period 6" in e.reason


@pytest.mark.parametrize(("rules", "gap"), [("uspa-arena-2026", 240), ("uspa-arena-2006", 120)])
def test_rule_5_shootout_follows_the_editions_interval(rules: str, gap: int) -> None:
    starts = regulation_starts()
    events = [ev(s, "bowl_in") for s in starts]
    end4 = starts[3] + P
    r = run(events, tiebreak="shootout", rules=rules, at=end4 + gap - 1)
    assert r["status"] == "interval" and r["interval"]["kind"] == "shootout"
    r = run(events, tiebreak="shootout", rules=rules)
    assert r["status"] == "shootout"
    order = ev(end4 + 10, "shootout_order", first="B", order={"A": [2, 1, 3], "B": [1, 3, 2]})
    e = refused(
        [*events, order, ev(end4 + gap - 1, "shot", team="B", player=1, result="goal")],
        tiebreak="shootout",
        rules=rules,
    )
    assert "interval before the shootout" in e.reason


def shootout_match(
    shots: list[tuple[str, int, str]], first: str = "A", **kw: Any
) -> list[dict[str, Any]]:
    starts = regulation_starts()
    events = [ev(s, "bowl_in") for s in starts]
    t = starts[3] + P + 240
    events.append(
        ev(
            t,
            "shootout_order",
            first=first,
            order=kw.get("order", {"A": [2, 1, 3], "B": [1, 3, 2]}),
        )
    )
    rounds_done = 0
    per_round = len(kw.get("seq", [])) or 6
    for k, (team, player, result) in enumerate(shots):
        if k and k % per_round == 0:
            rounds_done += 1
            t += 120
        t += 30
        events.append(ev(t, "shot", team=team, player=player, result=result))
    return events


def test_rule_5_shootout_alternates_teams_in_order_and_the_winner_wins_by_one_goal() -> None:
    shots = [
        ("A", 2, "goal"),
        ("B", 1, "miss"),
        ("A", 1, "miss"),
        ("B", 3, "goal"),
        ("A", 3, "goal"),
        ("B", 2, "miss"),
    ]
    r = run(shootout_match(shots), tiebreak="shootout", handicap=False)
    assert r["status"] == "final"
    assert r["winner"] == "A" and r["decided_by"] == "shootout"
    assert r["score"] == {"A": 1, "B": 0}
    assert r["shootout"]["score"] == {"A": 2, "B": 1}
    e = refused(shootout_match([("A", 2, "goal"), ("A", 1, "goal")]), tiebreak="shootout")
    assert "it is B 1's turn" in e.reason


def test_rule_5_shootout_round_is_every_listed_player_once_and_no_early_decision() -> None:
    shots = [("A", 2, "goal"), ("B", 1, "miss"), ("A", 1, "goal"), ("B", 3, "miss")]
    r = run(shootout_match(shots), tiebreak="shootout")
    assert r["status"] == "shootout"  # B 2 and A 3 still hit: the round is not over
    assert r["shootout"]["next"] == {"team": "A", "player": 3, "from_yd": 25}


def test_rule_5_shootout_tied_round_then_2_minute_interval_and_same_order() -> None:
    tie = [
        ("A", 2, "goal"),
        ("B", 1, "goal"),
        ("A", 1, "miss"),
        ("B", 3, "miss"),
        ("A", 3, "miss"),
        ("B", 2, "miss"),
    ]
    events = shootout_match(tie)
    last = events[-1]["at"]
    r = run(events, tiebreak="shootout")
    assert r["status"] == "shootout" and r["shootout"]["round"] == 2
    e = refused(
        [*events, ev(last + 119, "shot", team="A", player=2, result="goal")], tiebreak="shootout"
    )
    assert "between shootout rounds" in e.reason
    rnd2 = [
        ev(last + 120, "shot", team="A", player=2, result="miss"),
        ev(last + 150, "shot", team="B", player=1, result="goal"),
        ev(last + 180, "shot", team="A", player=1, result="miss"),
        ev(last + 210, "shot", team="B", player=3, result="miss"),
        ev(last + 240, "shot", team="A", player=3, result="miss"),
        ev(last + 270, "shot", team="B", player=2, result="miss"),
    ]
    r = run([*events, *rnd2], tiebreak="shootout")
    assert r["winner"] == "B" and r["score"] == {"A": 0, "B": 1}


def test_rule_5_shootout_one_player_each_when_the_committee_chooses() -> None:
    starts = regulation_starts()
    events = [ev(s, "bowl_in") for s in starts]
    t = starts[3] + P + 240
    events += [
        ev(t, "shootout_order", first="B", order={"A": [3], "B": [2]}),
        ev(t + 10, "shot", team="B", player=2, result="miss"),
        ev(t + 20, "shot", team="A", player=3, result="goal"),
    ]
    r = run(events, tiebreak="shootout", shootout_players="one")
    assert r["winner"] == "A" and r["decided_by"] == "shootout"
    bad = [*events[:4], ev(t, "shootout_order", first="B", order={"A": [3, 1], "B": [2]})]
    e = refused(bad, tiebreak="shootout", shootout_players="one")
    assert "one player" in e.reason


def test_rule_5_move_to_15_only_after_two_failed_attempts_by_every_member() -> None:
    miss = [
        ("A", 2, "miss"),
        ("B", 1, "miss"),
        ("A", 1, "miss"),
        ("B", 3, "miss"),
        ("A", 3, "miss"),
        ("B", 2, "miss"),
    ]
    one_round = shootout_match(miss)
    e = refused([*one_round, ev(one_round[-1]["at"] + 1, "move_to_15")], tiebreak="shootout")
    assert "2 attempts" in e.reason
    two_rounds = shootout_match(miss + miss)
    r = run([*two_rounds, ev(two_rounds[-1]["at"] + 1, "move_to_15")], tiebreak="shootout")
    assert r["shootout"]["moved_to_15"] is True
    assert r["shootout"]["next"]["from_yd"] == 15
    reached = shootout_match(miss + miss)
    reached[-1]["reached_end_wall"] = True
    e = refused([*reached, ev(reached[-1]["at"] + 1, "move_to_15")], tiebreak="shootout")
    assert "reached the end wall" in e.reason
