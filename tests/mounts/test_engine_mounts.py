"""Issue 25: the engine keeps the mounts (Rules 2, 5, 16; Penalty 8), record 1.2.

Tests are named after the clause they check (2006 summary for Rules 2, 16 and the
penalties; 2026 page for Rule 5).
"""

from __future__ import annotations

from typing import Any

import pytest

from chukker.engine import EngineError, Match, Setup, replay
from chukker.engine.errors import MESSAGES

P = 450.0
STARTS = [0.0, 690.0, 1740.0, 2430.0]  # period starts, each interval just over
END4 = STARTS[3] + P
STRING = {
    "A": [{"id": "bay", "name": "Bay"}, {"id": "chico", "name": "Chico", "owner": "R. Paz"},
          {"id": "dora"}, {"id": "elsa"}],
    "B": [{"id": "fox"}, {"id": "gala"}, {"id": "halo"}, {"id": "iris"}],
}


def setup(mounts: bool = True, **options: Any) -> Setup:
    def team(t: str) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "captain": 1,
            "players": [{"no": n, "handicap": 1} for n in (1, 2, 3)],
            "alternates": [{"no": 4, "handicap": 1}],
        }
        if mounts:
            doc["mounts"] = STRING[t]
        return doc

    return Setup.from_dict({"options": {"handicap": False, **options},
                            "teams": {"A": team("A"), "B": team("B")}})


def ev(at: float, type_: str, **kw: Any) -> dict[str, Any]:
    return {"at": at, "type": type_, **kw}


def mount(at: float, team: str, player: int, m: str, **kw: Any) -> dict[str, Any]:
    return ev(at, "mount", team=team, player=player, mount=m, **kw)


def run(events: list[dict[str, Any]], s: Setup | None = None, at: float | None = None) -> Any:
    return replay(s or setup(), events, None if at is None else round(at * 1000))


def refused(events: list[dict[str, Any]], s: Setup | None = None) -> EngineError:
    with pytest.raises(EngineError) as e:
        replay(s or setup(), events)
    assert e.value.code in MESSAGES
    assert e.value.index == len(events)
    return e.value


LINE_UP = [mount(0, "A", 1, "bay"), mount(0, "A", 2, "chico"), mount(0, "B", 1, "fox")]


def test_rule_5_mounts_are_ridden_in_the_periods_their_riders_play() -> None:
    events = [*LINE_UP, ev(0, "bowl_in"), ev(100, "whistle"),
              mount(101, "A", 1, "dora"), ev(110, "bowl_in"),
              mount(P + 100, "A", 1, "bay"), ev(720, "bowl_in")]
    r = run(events, at=721)
    a = r["mounts"]["A"]
    assert a["bay"] == {"name": "Bay", "owner": None, "rider": 1, "periods": [1, 2],
                        "rides": [{"period": 1, "player": 1}, {"period": 2, "player": 1}],
                        "status": "riding", "reason": None}
    assert a["dora"]["periods"] == [1] and a["dora"]["status"] == "available"
    assert a["dora"]["rider"] is None
    assert a["chico"]["periods"] == [1, 2] and a["chico"]["owner"] == "R. Paz"
    assert a["elsa"] == {"name": "", "owner": None, "rider": None, "periods": [], "rides": [],
                         "status": "available", "reason": None}
    assert r["roster"]["A"]["players"]["1"]["mount"] == "bay"
    assert r["roster"]["A"]["players"]["3"]["mount"] is None
    assert r["mounts"]["B"]["fox"]["periods"] == [1, 2]


def test_rule_5_mount_change_at_the_split() -> None:
    s = setup(split_periods=True)
    events = [*LINE_UP, ev(0, "bowl_in"), ev(215, "whistle"), mount(216, "A", 1, "dora"),
              ev(230, "bowl_in")]
    r = run(events, s, at=231)
    assert [h["kind"] for h in r["horns"]] == ["split"]
    assert r["mounts"]["A"]["dora"]["periods"] == [1] and r["mounts"]["A"]["bay"]["periods"] == [1]


def test_rule_5_a_mount_is_changed_only_while_the_ball_is_dead() -> None:
    e = refused([*LINE_UP, ev(0, "bowl_in"), mount(10, "A", 1, "dora")])
    assert e.code == "ball_live"


def test_rule_2_a_mount_not_on_the_teams_string_is_refused() -> None:
    e = refused([mount(0, "A", 1, "fox")])
    assert e.code == "mount_not_listed" and "Rule 2" in e.reason
    assert e.params == {"team": "A", "mount": "fox"}
    e = refused([mount(0, "A", 1, "bay")], setup(mounts=False))
    assert e.code == "mount_not_listed"


def test_rule_5_a_mount_ridden_by_a_teammate_now_is_refused() -> None:
    e = refused([*LINE_UP, mount(1, "A", 3, "bay")])
    assert e.code == "mount_ridden_by_teammate" and e.params["rider"] == 1
    # once its rider is on another mount, a teammate may take it
    r = run([*LINE_UP, mount(1, "A", 1, "dora"), mount(2, "A", 3, "bay"), ev(3, "bowl_in"),
             ev(10, "whistle"), mount(11, "A", 3, "elsa"), mount(12, "A", 1, "bay")], at=13)
    assert r["mounts"]["A"]["bay"]["rider"] == 1
    assert r["mounts"]["A"]["bay"]["rides"] == [{"period": 1, "player": 3},
                                                {"period": 1, "player": 1}]


def test_rule_2_a_mount_removed_for_blood_cannot_come_back() -> None:
    events = [*LINE_UP, ev(0, "bowl_in"), ev(50, "whistle"),
              ev(51, "mount_out", team="A", mount="chico", reason="blood")]
    r = run(events, at=52)
    c = r["mounts"]["A"]["chico"]
    assert c["status"] == "out" and c["reason"] == "blood" and c["rider"] is None
    assert c["periods"] == [1] and c["clause"] == "Rule 2"
    e = refused([*events, mount(60, "A", 3, "chico")])
    assert e.code == "mount_out_of_game" and e.params["reason"] == "blood"
    e = refused([*events, ev(61, "mount_out", team="A", mount="chico", reason="vice")])
    assert e.code == "mount_out_of_game"


def test_rule_16_a_runaway_mount_stops_play_and_its_rider_changes_before_the_bowl_in() -> None:
    events = [*LINE_UP, ev(0, "bowl_in"),
              ev(50, "mount_out", team="A", mount="chico", reason="runaway")]
    r = run(events, at=51)
    assert r["status"] == "stopped" and r["clock"]["remaining_ms"] == 400_000
    assert r["mounts"]["A"]["chico"]["clause"] == "Rule 16"
    assert r["roster"]["A"]["players"]["2"]["mount_needed"] is True
    assert "bowl_in" not in r["allowed"] and "mount" in r["allowed"]
    e = refused([*events, ev(60, "bowl_in")])
    assert e.code == "mount_change_needed"
    assert e.params == {"team": "A", "player": 2, "mount": "chico", "clause": "Rule 16"}
    r = run([*events, mount(55, "A", 2, "elsa"), ev(60, "bowl_in")], at=61)
    assert r["status"] == "in_play" and r["mounts"]["A"]["elsa"]["periods"] == [1]


def test_rule_2_a_free_hit_waits_for_the_rider_of_a_mount_removed_at_the_foul() -> None:
    events = [*LINE_UP, ev(0, "bowl_in"), ev(30, "foul", team="B", penalty="3"),
              ev(31, "mount_out", team="A", mount="bay", reason="blood")]
    assert refused([*events, ev(40, "free_hit")]).code == "mount_change_needed"
    r = run([*events, mount(35, "A", 1, "dora"), ev(40, "free_hit")], at=41)
    assert r["status"] == "in_play"


def test_rule_16_a_mount_out_that_nobody_rides_needs_no_change() -> None:
    events = [*LINE_UP, ev(0, "mount_out", team="A", mount="elsa", reason="vice"),
              ev(1, "bowl_in")]
    assert run(events, at=2)["mounts"]["A"]["elsa"]["status"] == "out"


def test_penalty_8_mount_disqualified_then_the_restart_waits_for_the_change() -> None:
    events = [*LINE_UP, ev(0, "bowl_in"),
              ev(30, "foul", team="A", player=1, penalty="8", mount=True)]
    r = run(events, at=31)
    b = r["mounts"]["A"]["bay"]
    assert b["status"] == "disqualified" and b["reason"] == "penalty_8"
    assert b["may_return"] is False and b["rider"] is None
    assert r["roster"]["A"]["players"]["1"]["status"] == "playing"  # the player stays
    e = refused([*events, ev(40, "bowl_in")])
    assert e.code == "mount_change_needed"
    assert refused([*events, mount(35, "A", 3, "bay")]).code == "mount_disqualified"
    r = run([*events, mount(35, "A", 1, "dora"), ev(40, "bowl_in")], at=41)
    assert r["status"] == "in_play"


def test_penalty_8_mount_for_equipment_returns() -> None:
    events = [*LINE_UP, ev(0, "bowl_in"),
              ev(30, "foul", team="A", player=1, penalty="8", mount=True, equipment=True),
              mount(31, "A", 1, "dora")]
    r = run(events, at=32)
    assert r["mounts"]["A"]["bay"]["status"] == "disqualified"
    assert r["mounts"]["A"]["bay"]["reason"] == "equipment"
    assert r["mounts"]["A"]["bay"]["may_return"] is True
    assert "return" in r["allowed"]
    r = run([*events, ev(32, "return", team="A", player=1), mount(33, "A", 3, "bay")], at=34)
    assert r["mounts"]["A"]["bay"]["status"] == "riding"
    assert r["mounts"]["A"]["bay"]["rider"] == 3


def test_rule_3_a_player_who_may_not_play_gets_no_mount() -> None:
    e = refused([mount(0, "A", 4, "bay")])  # an alternate who has not come in
    assert e.code == "mount_rider_may_not_play"
    assert e.params["cause"]["code"] == "player_not_on_field"
    events = [ev(0, "bowl_in"), ev(10, "foul", team="A", player=2, penalty="10")]
    e = refused([*events, mount(11, "A", 2, "bay")])
    assert e.code == "mount_rider_may_not_play" and "Penalty 10" in e.reason


def test_rule_3_a_substitute_takes_the_place_and_a_mount() -> None:
    events = [*LINE_UP, ev(0, "bowl_in"), ev(10, "whistle"),
              ev(11, "substitute", team="A", out=1, **{"in": 4}), mount(12, "A", 4, "bay")]
    r = run(events, at=13)
    assert r["mounts"]["A"]["bay"]["rider"] == 4


SHOOT = setup(tiebreak="shootout")


def to_shootout() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [*LINE_UP]
    for k, x in enumerate(STARTS):
        out.append(ev(x, "bowl_in"))
        if k == 2:
            out.append(mount(x + P + 1, "A", 3, "dora"))  # period 4: bay, chico, dora
    return out


def test_rule_5_shootout_mounts_are_those_of_the_final_regular_period() -> None:
    base = to_shootout()
    t = END4 + 60  # in the interval before the shootout
    e = refused([*base, mount(t, "A", 3, "elsa")], SHOOT)
    assert e.code == "shootout_mount_not_final_period" and e.params["period"] == 4
    assert "Rule 5" in e.reason
    # switching with a teammate, before or between turns (Rule 5): dora was ridden in period 4
    r = run([*base, mount(t, "A", 3, "elsa", umpire_consent=True), mount(t + 1, "A", 1, "dora")],
            SHOOT, at=t + 2)
    assert r["mounts"]["A"]["elsa"]["rider"] == 3 and r["mounts"]["A"]["dora"]["rider"] == 1
    so = END4 + 240
    r = run([*base, ev(so, "shootout_order", first="A", order={"A": [1, 2, 3],
                                                               "B": [1, 2, 3]})],
            SHOOT, at=so + 1)
    assert r["status"] == "shootout"
    assert r["mounts"]["A"]["bay"]["periods"] == [1, 2, 3, 4, 5]  # the shootout is "5"
    e = refused([*base, ev(so, "shootout_order", first="A", order={"A": [1, 2, 3],
                                                                   "B": [1, 2, 3]}),
                 mount(so + 1, "A", 2, "elsa")], SHOOT)
    assert e.code == "shootout_mount_not_final_period"


def test_record_without_mounts_reports_empty_strings_and_no_player_mount() -> None:
    r = run([ev(0, "bowl_in"), ev(30, "foul", team="A", player=1, penalty="8", mount=True)],
            setup(mounts=False), at=31)
    assert r["mounts"] == {"A": {}, "B": {}}
    assert r["roster"]["A"]["players"]["1"]["mount"] == "disqualified"  # as in 1.1
    assert "mount" not in r["allowed"] and "mount_out" not in r["allowed"]


def test_match_api_mount_and_mount_out_check_and_do() -> None:
    m = Match(setup())
    assert m.can(mount(0, "A", 1, "bay"))
    assert not m.can(mount(0, "A", 1, "fox"))
    with pytest.raises(EngineError):
        m.verify(mount(0, "A", 1, "fox"))
    e = m.apply(mount(0, "A", 1, "bay"))
    assert e["type"] == "mount" and e["mount"] == "bay"
    out = ev(0.001, "mount_out", team="A", mount="bay", reason="vice")
    assert m.can(out)
    e = m.apply(out)
    assert m.report(2)["mounts"]["A"]["bay"]["status"] == "out"
