"""Readings decided for issue 32 (docs/engine.md, "Issue 32"): each with its clause.

Rule 5 from the 2026 page (and the 2006 summary where the edition differs); Rule 16 from
the 2006 summary. Record 1.3: ``mount.swap``.
"""

from __future__ import annotations

from typing import Any

import pytest

from chukker.engine import EngineError, Match, Setup, replay
from chukker.record import validate_event

P = 450.0
STARTS = [0.0, 690.0, 1740.0, 2430.0]  # period starts, each interval just over
END4 = STARTS[3] + P
STRING = {"A": [{"id": m} for m in ("bay", "chico", "dora", "elsa")],
          "B": [{"id": m} for m in ("fox", "gala", "halo", "iris")]}
LINE_UP = [{"at": 0, "type": "mount", "team": t, "player": n, "mount": STRING[t][n - 1]["id"]}
           for t in ("A", "B") for n in (1, 2, 3)]
ORDER = {"A": [1, 2, 3], "B": [1, 2, 3]}


def setup(rules: str = "uspa-arena-2026", **options: Any) -> Setup:
    def team(t: str) -> dict[str, Any]:
        return {"captain": 1, "players": [{"no": n, "handicap": 0} for n in (1, 2, 3)],
                "mounts": STRING[t]}

    return Setup.from_dict({"rules": rules, "options": {"handicap": False, **options},
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
    assert e.value.index == len(events)
    return e.value


# ------------------------------------------------- Rule 5: the edition's shootout mounts
@pytest.mark.parametrize(("rules", "interval"),
                         [("uspa-arena-2026", 240), ("uspa-arena-2006", 120)])
def test_rule_5_shootout_mounts_follow_the_editions_text(rules: str, interval: int) -> None:
    # 2026: "The mounts in the shootout shall be those used in the final regular period
    # unless replaced with the Umpire's consent"; the 2006 summary has no such clause
    s = setup(rules, tiebreak="shootout")
    events = [*LINE_UP, *(ev(x, "bowl_in") for x in STARTS),
              mount(END4 + interval + 5, "A", 1, "elsa")]
    if rules == "uspa-arena-2026":
        assert refused(events, s).code == "shootout_mount_not_final_period"
    else:
        r = run(events, s)
        assert r["mounts"]["A"]["elsa"]["rider"] == 1
        assert r["mounts"]["A"]["elsa"]["periods"] == [5]  # the shootout, after period 4


# ------------------------------------------ Rule 5: a mount change after a goal
def test_rule_5_a_mount_change_after_a_goal_before_the_bowl_in_is_accepted() -> None:
    # "time shall not be taken out" for a goal, but the ball is dead until the bowl-in
    events = [*LINE_UP, ev(0, "bowl_in"), ev(100, "goal", team="A", player=1),
              mount(105, "A", 1, "elsa")]
    r = run([*events, ev(110, "bowl_in")], at=120)
    assert r["mounts"]["A"]["elsa"] == {**r["mounts"]["A"]["elsa"], "rider": 1,
                                         "periods": [1]}
    assert r["clock"]["remaining_ms"] == 330_000  # the clock ran on
    # once the ball is bowled in it is live again
    e = refused([*events, ev(110, "bowl_in"), mount(115, "A", 2, "dora")])
    assert e.code == "ball_live"


# --------------------------------- Rule 5: switch horses with members of their own team
def test_rule_5_a_direct_swap_between_two_riders_is_one_event() -> None:
    events = [*LINE_UP, ev(0, "bowl_in"), ev(50, "whistle")]
    assert refused([*events, mount(60, "A", 1, "chico")]).code == "mount_ridden_by_teammate"
    r = run([*events, mount(60, "A", 1, "chico", swap=True)], at=61)
    riders = {m: v["rider"] for m, v in r["mounts"]["A"].items()}
    assert riders == {"bay": 2, "chico": 1, "dora": 3, "elsa": None}
    assert r["mounts"]["A"]["bay"]["rides"] == [{"period": 1, "player": 1},
                                                {"period": 1, "player": 2}]


def test_rule_5_a_swap_needs_a_teammate_on_the_mount_and_a_mount_of_ones_own() -> None:
    events = [*LINE_UP, ev(0, "bowl_in"), ev(50, "whistle")]
    for bad in (mount(60, "A", 1, "elsa", swap=True),  # nobody rides elsa
                mount(60, "A", 1, "bay", swap=True)):  # his own
        assert refused([*events, bad]).code == "mount_swap_without_partner"
    # A 3 rides nothing: he cannot give chico's rider a mount in exchange
    no_a3 = [e for e in events if not (e["type"] == "mount" and e["player"] == 3
                                       and e["team"] == "A")]
    e = refused([*no_a3, mount(60, "A", 3, "chico", swap=True)])
    assert e.code == "mount_swap_without_partner"


def test_rule_5_shootout_hitters_switch_horses_between_turns_without_consent() -> None:
    s = setup(tiebreak="shootout")
    so = END4 + 240
    events = [*LINE_UP, *(ev(x, "bowl_in") for x in STARTS),
              ev(so, "shootout_order", first="A", order=ORDER),
              ev(so + 1, "shot", team="A", player=1, result="miss"),
              mount(so + 2, "A", 2, "bay", swap=True)]
    r = run(events, s)
    assert r["mounts"]["A"]["bay"]["rider"] == 2 and r["mounts"]["A"]["chico"]["rider"] == 1


def test_record_1_3_mount_swap_is_a_field_of_the_mount_event() -> None:
    e = {"at": 60.0, "type": "mount", "team": "A", "player": 1, "mount": "chico", "swap": True}
    assert validate_event(e) == e
    with pytest.raises(ValueError):
        validate_event({**e, "swap": "yes"})


# ------------------------------- Rule 5 / record 1.2: the shootout hitter's mount
def test_rule_5_a_shootout_shot_waits_for_the_hitters_change_of_mounts() -> None:
    # as a free hit waits: a hitter whose horse was just removed changes first
    s = setup(tiebreak="shootout")
    so = END4 + 240
    events = [*LINE_UP, *(ev(x, "bowl_in") for x in STARTS),
              ev(so, "shootout_order", first="A", order=ORDER),
              ev(so + 1, "mount_out", team="A", mount="bay", reason="injury")]
    r = run(events, s)
    assert r["roster"]["A"]["players"]["1"]["mount_needed"] is True
    e = refused([*events, ev(so + 2, "shot", team="A", player=1, result="goal")], s)
    assert e.code == "mount_change_needed"
    # a turn declared forfeited needs no mount
    r = run([*events, ev(so + 2, "shot", team="A", player=1, result="forfeit")], s)
    assert r["shootout"]["shots"][0]["result"] == "forfeit"
    r = run([*events, mount(so + 2, "A", 1, "elsa", umpire_consent=True),
             ev(so + 3, "shot", team="A", player=1, result="goal")], s)
    assert r["shootout"]["score"]["A"] == 1


def test_match_api_mount_swap_check_and_do() -> None:
    m = Match(setup())
    m.apply(mount(0, "A", 1, "bay"))
    m.apply(mount(0, "A", 2, "chico"))
    assert not m.can(mount(0.001, "A", 1, "chico"))
    assert m.can(mount(0.001, "A", 1, "chico", swap=True))
    with pytest.raises(EngineError):
        m.verify(mount(0.001, "A", 1, "dora", swap=True))
    e = m.apply(mount(0.001, "A", 1, "chico", swap=True))
    assert e["swap"] is True
    assert m.report(2)["mounts"]["A"]["bay"]["rider"] == 2
