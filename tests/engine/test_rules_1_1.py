"""Issue 9: the clauses the engine broke, and the contract's additions (version 1.1).

Each test is named after the clause it checks (2006 summary for Rules 3, 9, 16;
2026 page for Rule 5).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from chukker.engine import EngineError, Match, Setup, SetupError, replay
from chukker.engine.errors import MESSAGES
from chukker.rules import edition

P = 450.0
STARTS = [0.0, 690.0, 1740.0, 2430.0]  # period starts, each interval just over
END4 = STARTS[3] + P


def team(hcps: tuple[int, int, int] = (0, 0, 0), alternates: int = 0) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "captain": 1,
        "players": [{"no": n, "handicap": h} for n, h in zip((1, 2, 3), hcps, strict=True)],
    }
    if alternates:
        doc["alternates"] = [{"no": 4 + k, "handicap": 1} for k in range(alternates)]
    return doc


def setup(
    a: tuple[int, int, int] = (0, 0, 0),
    b: tuple[int, int, int] = (0, 0, 0),
    alternates: int = 0,
    rules: str = "uspa-arena-2026",
    **options: Any,
) -> Setup:
    return Setup.from_dict(
        {
            "rules": rules,
            "options": {"handicap": False, **options},
            "teams": {"A": team(a, alternates), "B": team(b, alternates)},
        }
    )


def ev(at: float, type_: str, **kw: Any) -> dict[str, Any]:
    return {"at": at, "type": type_, **kw}


def run(events: list[dict[str, Any]], s: Setup | None = None, at: float | None = None) -> Any:
    return replay(s or setup(), events, None if at is None else round(at * 1000))


def refused(events: list[dict[str, Any]], s: Setup | None = None) -> EngineError:
    with pytest.raises(EngineError) as e:
        replay(s or setup(), events)
    assert e.value.code in MESSAGES
    return e.value


def tied_to_shootout() -> list[dict[str, Any]]:
    return [ev(x, "bowl_in") for x in STARTS]


# ------------------------------------------------------------ Rule 9, Penalty 6
def test_rule_9_penalty_6_against_the_team_that_took_the_free_hit_cancels_its_goal() -> None:
    base = [ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="3"), ev(20, "free_hit")]
    r = run([*base, ev(22, "goal", team="A", player=1), ev(25, "foul", team="A", penalty="6")])
    assert r["score"] == {"A": 0, "B": 0}
    assert r["goals"][0]["points"] == 0 and r["goals"][0]["cancelled"]["event"] == 5
    assert r["restart"]["spot"] == [50.0, 25.0] and r["restart"]["kind"] == "bowl_in"
    # a goal after play went on (a bowl-in) is not "a result of the free hit"
    r = run(
        [
            *base,
            ev(21, "whistle"),
            ev(22, "bowl_in"),
            ev(23, "goal", team="A"),
            ev(25, "foul", team="A", penalty="6"),
        ]
    )
    assert r["score"] == {"A": 1, "B": 0}


def test_rule_9_penalty_6_against_the_fouling_team_no_retake_when_a_goal_was_scored() -> None:
    base = [ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="3"), ev(20, "free_hit")]
    r = run([*base, ev(22, "goal", team="A"), ev(25, "foul", team="B", penalty="6")])
    assert r["score"] == {"A": 1, "B": 0}
    assert r["pending_penalty"] is None
    assert r["restart"]["kind"] == "bowl_in"
    r = run([*base, ev(25, "foul", team="B", penalty="6")])  # no goal: the hit is retaken
    assert r["pending_penalty"]["penalty"] == "3"


# ------------------------------------------------------------ Rule 9, Penalty 7
def test_rule_9_penalty_7_disabled_player_without_substitute_retires() -> None:
    s = setup(a=(1, 3, 5), b=(2, 4, 6), tiebreak="shootout")
    events = [ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="7", disabled=2)]
    e = refused([*events, ev(20, "bowl_in"), ev(30, "goal", team="A", player=2)], s)
    assert e.code == "player_retired" and e.params == {
        "team": "A",
        "player": 2,
        "clause": "Penalty 7",
    }
    r = run(events, s, at=11)
    assert r["roster"]["A"]["players"]["2"]["status"] == "retired"
    # the retired player is not required in the shootout order, and may not be listed
    shoot = [
        ev(0, "bowl_in"),
        *[ev(x, "bowl_in") for x in STARTS[1:]],
        ev(END4 + 1, "foul", team="B", penalty="7", disabled=2),
    ]
    t = END4 + 240
    r = run([*shoot, ev(t, "shootout_order", first="A", order={"A": [1, 3], "B": [1, 3]})], s)
    assert r["shootout"]["order"] == {"A": [1, 3], "B": [1, 3]}  # B 2 designated: removed
    e = refused(
        [*shoot, ev(t, "shootout_order", first="A", order={"A": [1, 2, 3], "B": [1, 3]})], s
    )
    assert e.code == "player_retired"


def test_rule_9_penalty_7_qualified_substitute_takes_the_place_and_no_one_is_removed() -> None:
    """Reading 1 of issue 25: the captain of the team fouled chooses one remedy."""
    s = setup(a=(1, 3, 5), b=(2, 4, 6), alternates=1)
    events = [
        ev(0, "bowl_in"),
        ev(10, "foul", team="B", penalty="7", disabled=2, substitute=4),
        ev(20, "bowl_in"),
        ev(30, "goal", team="A", player=4),
    ]
    r = run(events, s, at=31)
    assert r["score"]["A"] == 1
    assert r["roster"]["A"]["on_field"] == [1, 4, 3]
    assert r["roster"]["A"]["players"]["2"]["status"] == "replaced"
    assert r["roster"]["B"]["on_field"] == [1, 2, 3]
    assert {p["status"] for p in r["roster"]["B"]["players"].values()} <= {"playing", "alternate"}
    assert r["roster"]["B"]["designate"] is None
    assert "designate" not in r["allowed"]
    assert r["handicap_goals"] == run([], s)["handicap_goals"]  # unchanged (Penalty 7)


def test_rule_9_penalty_7_without_a_substitute_the_fouling_player_nearest_above_leaves() -> None:
    s = setup(a=(1, 3, 5), b=(2, 4, 6), alternates=1)
    r = run([ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="7", disabled=2)], s, at=11)
    assert r["roster"]["A"]["players"]["2"]["status"] == "retired"
    assert r["roster"]["B"]["players"]["2"]["status"] == "removed"  # 4 is nearest above 3


def test_rule_9_penalty_7_unnamed_substitute_means_no_removal_either() -> None:
    s = setup(a=(1, 3, 5), b=(2, 4, 6), alternates=1)
    r = run([ev(0, "bowl_in"),
             ev(10, "foul", team="B", penalty="7", disabled=2, substitute=True)], s, at=11)
    assert r["roster"]["A"]["players"]["2"]["status"] == "replaced"
    assert {p["status"] for p in r["roster"]["B"]["players"].values()} <= {"playing", "alternate"}


def test_rule_9_penalty_7_substitute_and_removal_together_are_refused() -> None:
    s = setup(a=(1, 3, 5), b=(2, 4, 6), alternates=1)
    e = refused([ev(0, "bowl_in"),
                 ev(10, "foul", team="B", penalty="7", disabled=2, substitute=4, removed=2)], s)
    assert e.code == "p7_one_remedy"


def test_rule_9_penalty_7_the_captain_designates_later() -> None:
    s = setup(a=(1, 3, 9), b=(2, 4, 6))
    events = [ev(0, "bowl_in"), ev(10, "foul", team="B", penalty="7", disabled=3)]
    r = run(events, s, at=11)
    assert r["roster"]["B"]["designate"]["candidates"] == [1, 2, 3]
    assert "designate" in r["allowed"]
    r = run([*events, ev(15, "designate", team="B", player=3)], s, at=16)
    assert r["roster"]["B"]["players"]["3"]["status"] == "removed"
    assert r["roster"]["B"]["designate"] is None
    e = refused([*events, ev(15, "designate", team="A", player=3)], s)
    assert e.code == "nothing_to_designate"


# ------------------------------------------------------- Rule 9, Penalties 8 and 10
def test_rule_9_penalty_10_removed_player_may_not_take_a_shootout_shot() -> None:
    t = END4 + 240
    events = [
        *tied_to_shootout(),
        ev(t, "shootout_order", first="A", order={"A": [1, 2, 3], "B": [1, 2, 3]}),
        ev(t + 5, "foul", team="A", penalty="10", player=1),
    ]
    e = refused([*events, ev(t + 10, "shot", team="A", player=1, result="goal")], setup(
        tiebreak="shootout"))
    assert e.code == "player_removed" and e.params["penalty"] == "10"
    r = run(events, setup(tiebreak="shootout"))
    assert r["shootout"]["next"] == {"team": "B", "player": 1, "from_yd": 25}


def test_rule_9_penalty_8_disqualified_player_may_not_be_in_the_shootout_order() -> None:
    s = setup(tiebreak="shootout")
    events = [*tied_to_shootout(), ev(END4 + 5, "foul", team="B", penalty="8", player=3)]
    e = refused(
        [*events, ev(END4 + 240, "shootout_order", first="A",
                     order={"A": [1, 2, 3], "B": [1, 2, 3]})], s
    )
    assert e.code == "player_removed" and e.params == {"team": "B", "player": 3, "penalty": "8"}


def test_rule_9_penalty_8_mount_only_and_equipment_with_return() -> None:
    base = [ev(0, "bowl_in")]
    r = run([*base, ev(10, "foul", team="A", penalty="8", player=1, mount=True),
             ev(20, "bowl_in"), ev(30, "goal", team="A", player=1)], at=31)
    assert r["score"]["A"] == 1  # the player stays, the mount is out
    assert r["roster"]["A"]["players"]["1"]["mount"] == "disqualified"
    eq = [*base, ev(10, "foul", team="A", penalty="8", player=1, equipment=True), ev(20, "bowl_in")]
    e = refused([*eq, ev(30, "goal", team="A", player=1)])
    assert e.code == "player_out_equipment"
    r = run([*eq, ev(30, "whistle"), ev(31, "return", team="A", player=1), ev(32, "bowl_in"),
             ev(33, "goal", team="A", player=1)], at=34)
    assert r["score"]["A"] == 1


def test_rule_9_penalty_10_for_a_number_of_periods() -> None:
    events = [ev(0, "bowl_in"), ev(10, "foul", team="A", penalty="10", player=2, for_periods=1),
              ev(20, "bowl_in")]
    e = refused([*events, ev(30, "goal", team="A", player=2)])
    assert e.code == "player_suspended" and e.params["until_period"] == 2
    s2 = STARTS[1] + 10  # the foul stopped the clock for 10 s
    r = run([*events, ev(s2, "bowl_in"), ev(s2 + 5, "goal", team="A", player=2)], at=s2 + 6)
    assert r["score"]["A"] == 1
    assert r["roster"]["A"]["players"]["2"]["status"] == "playing"


# ------------------------------------------------------------------- Rule 3
def test_rule_3_alternates_and_the_substitute_event() -> None:
    s = setup(alternates=2)
    e = refused([ev(0, "bowl_in"), ev(5, "substitute", team="A", out=1, **{"in": 4})], s)
    assert e.code == "ball_live"
    e = refused([ev(0, "bowl_in"), ev(5, "goal", team="A", player=4)], s)
    assert e.code == "player_not_on_field"
    events = [ev(0, "bowl_in"), ev(5, "whistle"), ev(6, "substitute", team="A", out=1, **{"in": 4})]
    r = run([*events, ev(7, "bowl_in"), ev(8, "goal", team="A", player=4)], s, at=9)
    assert r["score"]["A"] == 1 and r["roster"]["A"]["on_field"] == [4, 2, 3]
    e = refused([*events, ev(7, "bowl_in"), ev(8, "goal", team="A", player=1)], s)
    assert e.code == "player_replaced" and e.params["by"] == 4
    e = refused([*events, ev(7, "substitute", team="A", out=2, **{"in": 4})], s)
    assert e.code == "not_an_alternate"
    with pytest.raises(SetupError, match="unique"):
        Setup.from_dict({"teams": {"A": {**team(), "alternates": [{"no": 2}]}, "B": team()}})


# ------------------------------------------------------------------- Rule 16
def test_rule_16_injury_time_out_of_exactly_15_minutes_does_not_disable() -> None:
    events = [ev(0, "bowl_in"), ev(10, "timeout", reason="injury", team="A", player=2)]
    r = run([*events, ev(10 + 900, "bowl_in"), ev(10 + 901, "goal", team="A", player=2)])
    assert r["roster"]["A"]["disabled"] == {} and r["score"]["A"] == 1
    r = run(events, at=10 + 900.001)
    assert r["roster"]["A"]["disabled"] == {"2": "injury"}
    assert r["roster"]["A"]["players"]["2"]["status"] == "retired"


# -------------------------------------------------------------------- Rule 5
def test_rule_5_penalty_1_after_the_last_horn_of_a_tied_match_is_decided_by_penalty() -> None:
    r = run([*tied_to_shootout(), ev(END4 + 2, "foul", team="B", penalty="1")])
    assert r["status"] == "final" and r["winner"] == "A" and r["decided_by"] == "penalty"


def test_rule_5_shootout_spots_are_edition_parameters_with_clauses() -> None:
    e = edition("uspa-arena-2026")
    assert (e.shootout_spot_yd.value, e.shootout_spot_yd.clause) == (25, "5.taking-the-shot")
    assert (e.shootout_moved_spot_yd.value, e.shootout_moved_spot_yd.clause) == (
        15,
        "5.moving-the-ball-closer",
    )
    assert edition("uspa-arena-2006").shootout_spot_yd.clause == "5"
    # the 4-minute interval between extra periods comes from the contract, not Rule 5
    assert e.extra_between_interval_ms.source == "contract"
    assert e.extra_between_interval_ms.clause == "5.tie-extra-periods"
    others = [p for n, p in e.params().items() if n != "extra_between_interval_ms"]
    assert all(p.source == "rule" for p in others)


# ---------------------------------------------------------------- editions
@pytest.mark.parametrize(
    ("option", "value", "feature"),
    [("split_periods", True, "split_periods"), ("shootout_players", "one", "shootout_players_one")],
)
def test_edition_2006_refuses_options_its_text_does_not_have(
    option: str, value: Any, feature: str
) -> None:
    with pytest.raises(SetupError) as e:
        setup(rules="uspa-arena-2006", **{option: value})
    assert e.value.code == "not_in_edition"
    assert e.value.params["introduced_in"] == "uspa-arena-2026"
    assert e.value.params["feature"] == feature


def test_edition_2006_no_reset_to_5_seconds_before_a_late_free_hit() -> None:
    events = [ev(0, "bowl_in"), ev(448, "foul", team="B", penalty="3"), ev(460, "free_hit")]
    r = run(events, setup(rules="uspa-arena-2006"), at=470)
    assert r["periods"][0]["end"] == 462.0 and r["notices"] == []
    r = run(events, setup(rules="uspa-arena-2026"), at=470)
    assert r["periods"][0]["end"] == 465.0


def test_edition_2006_shootout_one_round_no_move_to_15() -> None:
    s = setup(rules="uspa-arena-2006", tiebreak="shootout")
    t = END4 + 120
    events = [
        *tied_to_shootout(),
        ev(t, "shootout_order", first="A", order={"A": [1, 2, 3], "B": [1, 2, 3]}),
    ]
    e = refused([*events, ev(t + 1, "move_to_15")], s)
    assert e.code == "not_in_edition" and e.params["introduced_in"] == "uspa-arena-2026"
    shots = [ev(t + 10 + k, "shot", team=tm, player=p, result="miss")
             for k, (tm, p) in enumerate([("A", 1), ("B", 1), ("A", 2), ("B", 2), ("A", 3),
                                          ("B", 3)])]
    r = run([*events, *shots], s)
    assert r["status"] == "final" and r["winner"] is None and r["decided_by"] == "shootout"


# ------------------------------------------------------------------- clock
def test_clock_correction_only_while_stopped_and_shown_in_the_report() -> None:
    e = refused([ev(0, "bowl_in"), ev(5, "clock", remaining=400, reason="late whistle")])
    assert e.code == "clock_not_stopped"
    r = run([ev(0, "bowl_in"), ev(100, "whistle"), ev(101, "clock", remaining=352.5,
                                                       reason="late whistle")], at=102)
    assert r["clock"]["remaining_ms"] == 352_500
    assert r["corrections"] == [{"at": 101.0, "period": 1, "from_ms": 350_000,
                                 "to_ms": 352_500, "reason": "late whistle", "event": 3}]
    r = run([ev(0, "bowl_in"), ev(100, "whistle"), ev(101, "clock", remaining=0,
                                                       reason="horn failed")], at=102)
    assert r["status"] == "interval" and r["periods"][0]["end"] == 101.0


# ---------------------------------------------------------------- practice
def test_practice_shortens_periods_and_intervals_and_is_flagged() -> None:
    s = setup(practice={"period_s": 60, "interval_s": 30})
    r = run([ev(0, "bowl_in"), ev(90, "bowl_in")], s, at=100)
    assert r["practice"] == {"period_s": 60.0, "interval_s": 30.0}
    assert r["periods"][0]["end"] == 60.0 and r["period"] == 2
    assert run([], setup())["practice"] is None
    with pytest.raises(SetupError):
        setup(practice={"period_s": -1, "interval_s": 0})


# -------------------------------------------------------------------- undo
def test_undo_of_an_undo_of_an_undo_cancels_the_goal() -> None:
    m = Match(setup())
    m.apply(ev(0, "bowl_in"))
    m.apply(ev(10, "goal", team="A", player=1))
    for k in range(3, 6):
        m.apply(ev(10 + k, "undo", event=k - 1))
    assert m.report(20_000)["score"]["A"] == 0  # depth 3: cancelled
    m.apply(ev(21, "undo", event=5))
    assert m.report(22_000)["score"]["A"] == 1  # depth 4: counted


# ----------------------------------------------------------------- refusals
def test_refusals_carry_a_code_and_json_params() -> None:
    e = refused([ev(0, "bowl_in"), ev(460, "goal", team="A")])
    assert e.code == "ball_dead" and e.params == {"period": 1, "since_ms": 450_000}
    assert e.reason == "the ball is dead: period 1 ended at 450.000 s"
    json.dumps(e.to_dict())
    e = refused([ev(0, "bowl_in"), ev(10, "foul", team="A", penalty="3"), ev(20, "free_hit"),
                 ev(30, "undo", event=2)])
    assert e.code == "undo_leaves_refused" and e.params["cause"]["code"] == "no_free_hit_pending"
    assert "no free hit is pending" in e.reason


# ------------------------------------------------------------- live cost
def test_live_match_verify_apply_and_report_never_refold_the_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import random

    from chukker.engine.core import Core
    from chukker.engine.simulate import default_setup, simulate

    s = default_setup()
    events = simulate(s, random.Random(5), 200)
    m = Match(s, events[:150])
    built: list[int] = []
    init = Core.__init__

    def counting(self: Core, setup: Setup, *, blank: bool = False) -> None:
        if not blank:  # a copy starts blank: only a fresh state counts
            built.append(1)
        init(self, setup, blank=blank)

    monkeypatch.setattr(Core, "__init__", counting)
    for e in events[150:]:
        m.verify(e)
        assert m.can(e)
        m.apply(e)
        m.report(round(e["at"] * 1000))
    with pytest.raises(EngineError):
        m.apply({"at": events[-1]["at"], "type": "nonsense"})
    assert built == []  # each event cost one event, not a refold of the log
