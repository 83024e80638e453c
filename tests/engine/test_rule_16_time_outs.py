"""Rule 16 (2006 summary), issue 32: when an injury time-out ends, and what it counts.

"In the event of injury to a player, the player shall have not more than fifteen minutes
time out after which the player shall be considered disabled." A time-out ends when play
resumes with the player on the field: a bowl-in, a free hit, the start of a period (in the
shootout: the player's own shot). Fifteen minutes a time-out, not in total.
"""

from __future__ import annotations

from typing import Any

import pytest

from chukker.engine import EngineError, Setup, replay

P = 450.0
STARTS = [0.0, 690.0, 1740.0, 2430.0]  # period starts, each interval just over
LIMIT = 900.0  # fifteen minutes


def setup(**options: Any) -> Setup:
    players = [{"no": n, "handicap": 0} for n in (1, 2, 3)]
    return Setup.from_dict({"options": {"handicap": False, **options},
                            "teams": {"A": {"captain": 1, "players": players},
                                      "B": {"captain": 1, "players": players}}})


def ev(at: float, type_: str, **kw: Any) -> dict[str, Any]:
    return {"at": at, "type": type_, **kw}


def injury(at: float, team: str = "A", player: int = 2) -> dict[str, Any]:
    return ev(at, "timeout", reason="injury", team=team, player=player)


def run(events: list[dict[str, Any]], at: float | None = None, **options: Any) -> Any:
    return replay(setup(**options), events, None if at is None else round(at * 1000))


def test_rule_16_an_injury_time_out_in_an_interval_ends_at_the_start_of_the_next_period() -> None:
    # the case: a time-out at 460 s (interval after period 1), a goal in period 2,
    # and one in period 3 long after the fifteen minutes would have run out
    events = [ev(0, "bowl_in"), injury(460), ev(690, "bowl_in"),
              ev(1100, "goal", team="A", player=2), ev(1740, "bowl_in"),
              ev(1800, "goal", team="A", player=2)]
    r = run(events)
    assert r["score"] == {"A": 2, "B": 0}
    assert r["roster"]["A"]["disabled"] == {}
    assert r["roster"]["A"]["players"]["2"]["status"] == "playing"
    assert not any(n["clause"] == "16" for n in r["notices"])


def test_rule_16_an_injury_time_out_ends_at_the_free_hit_that_resumes_play() -> None:
    events = [ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="2"), injury(11),
              ev(100, "free_hit"), ev(101, "whistle"), ev(1001, "bowl_in"),
              ev(1002, "goal", team="A", player=2)]
    r = run(events)
    assert r["score"]["A"] == 1 and r["roster"]["A"]["disabled"] == {}


def test_rule_16_a_free_hit_that_starts_a_period_ends_the_time_out() -> None:
    events = [ev(0, "bowl_in"), ev(455, "foul", team="B", penalty="3"), injury(456),
              ev(690, "free_hit"), ev(700, "whistle"), ev(1400, "bowl_in"),
              ev(1401, "goal", team="A", player=2)]
    r = run(events)
    assert r["score"]["A"] == 1 and r["roster"]["A"]["disabled"] == {}


def test_rule_16_a_time_out_that_play_does_not_resume_from_still_disables_after_15_minutes() -> (
    None
):
    # a time-out in the interval before a period nobody starts: disabled at 15:00.001
    events = [ev(0, "bowl_in"), injury(460)]
    assert run(events, at=460 + LIMIT)["roster"]["A"]["disabled"] == {}
    r = run(events, at=460 + LIMIT + 0.001)
    assert r["roster"]["A"]["disabled"] == {"2": "injury"}
    with pytest.raises(EngineError) as e:
        run([*events, ev(460 + LIMIT + 1, "bowl_in"), ev(1400, "goal", team="A", player=2)])
    assert e.value.code == "player_retired"


def test_rule_16_two_players_injured_at_one_stoppage_each_have_fifteen_minutes() -> None:
    events = [ev(0, "bowl_in"), injury(10, "A", 2), injury(20, "B", 1)]
    r = run(events, at=10 + LIMIT + 0.001)
    assert r["roster"]["A"]["disabled"] == {"2": "injury"}
    assert r["roster"]["B"]["disabled"] == {}
    r = run(events, at=20 + LIMIT + 0.001)
    assert r["roster"]["B"]["disabled"] == {"1": "injury"}
    assert [n["code"] for n in r["notices"]] == ["injury_disabled", "injury_disabled"]


def test_rule_16_fifteen_minutes_a_time_out_not_in_total() -> None:
    # two injuries of ten minutes each, play resumed between them: twenty in all
    events = [ev(0, "bowl_in"), injury(10), ev(610, "bowl_in"), injury(620),
              ev(1220, "bowl_in")]
    r = run(events, at=1230)
    assert r["roster"]["A"]["disabled"] == {}


def test_rule_16_a_second_call_for_the_same_injury_does_not_restart_the_fifteen_minutes() -> (
    None
):
    events = [ev(0, "bowl_in"), injury(10), injury(500)]
    r = run(events, at=10 + LIMIT + 0.001)
    assert r["roster"]["A"]["disabled"] == {"2": "injury"}
    # one time-out, one player disabled once: no second notice when the re-call's
    # fifteen minutes would have run out
    r = run(events, at=500 + LIMIT + 1)
    assert [n["event"] for n in r["notices"] if n["code"] == "injury_disabled"] == [2]


def test_rule_16_an_equipment_time_out_has_no_fifteen_minutes() -> None:
    events = [ev(0, "bowl_in"), ev(10, "timeout", reason="equipment", team="A", player=2),
              ev(10 + 2 * LIMIT, "bowl_in"), ev(10 + 2 * LIMIT + 1, "goal", team="A", player=2)]
    r = run(events)
    assert r["score"]["A"] == 1 and r["roster"]["A"]["disabled"] == {}


def _tied_to_shootout() -> list[dict[str, Any]]:
    # four scoreless periods; the shootout interval (4 min, 2026) runs from 2880 s
    return [ev(s, "bowl_in") for s in STARTS]


def test_rule_16_in_the_shootout_the_players_own_shot_ends_his_time_out() -> None:
    so = STARTS[3] + P + 240
    order = {"A": [1, 2, 3], "B": [1, 2, 3]}
    events = [*_tied_to_shootout(), injury(so - 10),
              ev(so, "shootout_order", first="A", order=order),
              ev(so + 1, "shot", team="A", player=1, result="miss"),
              ev(so + 2, "shot", team="B", player=1, result="miss"),
              ev(so + 3, "shot", team="A", player=2, result="miss")]
    r = run(events, at=so + LIMIT + 60, tiebreak="shootout")
    assert r["roster"]["A"]["disabled"] == {}


def test_rule_16_in_the_shootout_another_players_shot_does_not_end_the_time_out() -> None:
    so = STARTS[3] + P + 240
    order = {"A": [1, 2, 3], "B": [1, 2, 3]}
    events = [*_tied_to_shootout(), injury(so - 10),
              ev(so, "shootout_order", first="A", order=order),
              ev(so + 1, "shot", team="A", player=1, result="miss"),
              ev(so + 2, "shot", team="B", player=1, result="miss")]
    r = run(events, at=so - 10 + LIMIT + 0.001, tiebreak="shootout")
    assert r["roster"]["A"]["disabled"] == {"2": "injury"}
    # passed over at once, as a removed hitter: the next one may hit
    assert r["shootout"]["next"] == {"team": "B", "player": 2, "from_yd": 25}
    r = run([*events, ev(so - 10 + LIMIT + 1, "shot", team="B", player=2, result="goal")],
            tiebreak="shootout")
    assert r["shootout"]["score"] == {"A": 0, "B": 1}
