"""Boundaries no test held (issue 32): one test per one-point bug that survived a
mutation run made apart from ``scripts/mutate.py``'s list.

Named after the clause; the 2026 page for Rule 5, the 2006 summary for the rest.
"""

from __future__ import annotations

from typing import Any

import pytest

from chukker.engine import EngineError, Setup, replay

P = 450.0  # 7:30
STARTS = [0.0, 690.0, 1740.0, 2430.0]  # period starts, each interval just over
END4 = STARTS[3] + P
SPLIT_AT = 210.0  # 3:30
STRING = {"A": [{"id": m} for m in ("bay", "chico", "dora", "elsa")],
          "B": [{"id": m} for m in ("fox", "gala", "halo", "iris")]}


def setup(a: tuple[int, int, int] = (0, 0, 0), b: tuple[int, int, int] = (0, 0, 0),
          mounts: bool = False, **options: Any) -> Setup:
    def team(t: str, h: tuple[int, int, int]) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "captain": 1,
            "players": [{"no": n, "handicap": x} for n, x in zip((1, 2, 3), h, strict=True)]}
        if mounts:
            doc["mounts"] = STRING[t]
        return doc

    return Setup.from_dict({"options": {"handicap": False, **options},
                            "teams": {"A": team("A", a), "B": team("B", b)}})


def ev(at: float, type_: str, **kw: Any) -> dict[str, Any]:
    return {"at": at, "type": type_, **kw}


def mount(at: float, team: str, player: int, m: str, **kw: Any) -> dict[str, Any]:
    return ev(at, "mount", team=team, player=player, mount=m, **kw)


def run(events: list[dict[str, Any]], s: Setup, at: float | None = None) -> Any:
    return replay(s, events, None if at is None else round(at * 1000))


def refused(events: list[dict[str, Any]], s: Setup) -> EngineError:
    with pytest.raises(EngineError) as e:
        replay(s, events)
    assert e.value.index == len(events)
    return e.value


SPLIT = setup(split_periods=True)
MOUNTED = setup(mounts=True)
LINE_UP = [mount(0, "A", 1, "bay"), mount(0, "A", 2, "chico"), mount(0, "A", 3, "dora"),
           mount(0, "B", 1, "fox"), mount(0, "B", 2, "gala"), mount(0, "B", 3, "halo")]


# ------------------------------------------------------------------ Rule 5, split
def test_rule_5_split_horn_only_at_the_first_stoppage_after_3_30() -> None:
    # "At the first play stoppage, including a goal, following the expiration of 3 1/2
    # minutes": a second goal after the split does not stop the clock again ("time shall
    # not be taken out" for a goal), nor does a later whistle sound a second split horn
    events = [ev(0, "bowl_in"), ev(SPLIT_AT + 10, "goal", team="A", player=1),
              ev(SPLIT_AT + 60, "bowl_in"), ev(SPLIT_AT + 70, "goal", team="B", player=1)]
    r = run(events, SPLIT, at=SPLIT_AT + 80)
    assert r["status"] == "in_play" and r["clock"]["running"]
    assert r["clock"]["remaining_ms"] == round((P - (SPLIT_AT + 10) - 20) * 1000)
    r = run([*events, ev(SPLIT_AT + 90, "whistle")], SPLIT)
    assert [h["kind"] for h in r["horns"] if h["period"] == 1] == ["split"]
    assert r["mount_change"] is None


def test_rule_5_split_mount_change_notice_after_2_minutes_not_at_2_minutes() -> None:
    # "not more than 2 minutes will be allowed ... to change mounts": exactly 2:00 is allowed
    events = [ev(0, "bowl_in"), ev(SPLIT_AT + 5, "whistle")]
    r = run([*events, ev(SPLIT_AT + 5 + 120, "bowl_in")], SPLIT)
    assert not [n for n in r["notices"] if n["code"] == "mount_change_long"]
    r = run([*events, ev(SPLIT_AT + 5 + 120.001, "bowl_in")], SPLIT)
    assert [n["params"]["took_ms"] for n in r["notices"]
            if n["code"] == "mount_change_long"] == [120_001]


# ----------------------------------------------------------------- Penalty 7
def test_rule_9_penalty_7_designates_among_the_fouling_players_still_playing() -> None:
    # B 1 (handicap 1, the nearest above A 1's 0) was removed for the game (Penalty 10):
    # he cannot be designated; the nearest above among those still playing are B 2 and B 3
    s = setup(a=(0, 0, 0), b=(1, 2, 2))
    events = [ev(0, "bowl_in"), ev(10, "foul", team="B", player=1, penalty="10"),
              ev(20, "bowl_in"), ev(30, "foul", team="B", penalty="7", disabled=1)]
    r = run(events, s)
    assert r["roster"]["B"]["designate"]["candidates"] == [2, 3]
    e = refused([*events, ev(40, "designate", team="B", player=1)], s)
    assert e.code == "p7_not_designable"


# -------------------------------------------------------------- Rules 2 and 16
def test_rule_16_a_rider_whose_mount_left_then_removed_no_longer_blocks_the_bowl_in() -> None:
    events = [*LINE_UP, ev(0, "bowl_in"), ev(10, "mount_out", team="A", mount="chico",
                                              reason="runaway")]
    e = refused([*events, ev(20, "bowl_in")], MOUNTED)
    assert e.code == "mount_change_needed"
    r = run([*events, ev(15, "foul", team="A", player=2, penalty="10"), ev(20, "bowl_in")],
            MOUNTED, at=25)
    assert r["status"] == "in_play"
    assert "mount_needed" not in r["roster"]["A"]["players"]["2"]


def test_rule_16_a_mount_removed_while_the_ball_is_live_stops_play() -> None:
    # "the Umpire shall stop play and order the mount removed"
    r = run([*LINE_UP, ev(0, "bowl_in"), ev(100, "mount_out", team="B", mount="gala",
                                             reason="blood")], MOUNTED, at=150)
    assert r["status"] == "stopped" and not r["clock"]["running"]
    assert r["clock"]["remaining_ms"] == 350_000
    assert r["restart"]["kind"] == "bowl_in"


# -------------------------------------------------------------- Rule 5, ties
def test_rule_5_a_goal_in_the_last_regular_period_is_not_a_golden_goal() -> None:
    # "the team first scoring" wins in the additional periods only
    events = [*(ev(s, "bowl_in") for s in STARTS), ev(STARTS[3] + 10, "goal", team="A"),
              ev(STARTS[3] + 20, "goal", team="B")]
    r = run(events, setup(), at=STARTS[3] + 30)
    assert r["status"] == "in_play" and r["winner"] is None
    r = run(events, setup())
    assert r["decided_by"] is None and r["interval"]["kind"] == "extra"


def test_rule_5_a_goal_in_an_extra_period_ends_the_match() -> None:
    starts = [*STARTS, END4 + 600]
    r = run([*(ev(s, "bowl_in") for s in starts), ev(starts[4] + 10, "goal", team="B")],
            setup())
    assert r["winner"] == "B" and r["decided_by"] == "extra-period"


def test_rule_9_penalty_1_after_the_last_horn_before_extra_periods_breaks_the_tie() -> None:
    # a goal awarded is a goal: between the last regular period and the extra periods
    r = run([*(ev(s, "bowl_in") for s in STARTS), ev(END4 + 5, "foul", team="B",
                                                      penalty="1")], setup())
    assert r["winner"] == "A" and r["decided_by"] == "penalty"


def test_record_clock_correction_to_the_full_period_length_is_accepted() -> None:
    # contract 1.1: "sets the period's remaining time" (0 to the period's length)
    events = [ev(0, "bowl_in"), ev(10, "whistle"), ev(20, "clock", remaining=P, reason="x")]
    assert run(events, setup(), at=25)["clock"]["remaining_ms"] == 450_000
    e = refused([*events[:2], ev(20, "clock", remaining=P + 0.001, reason="x")], setup())
    assert e.code == "clock_out_of_range"


# ----------------------------------------------------------- Rule 5, mounts
def test_rule_5_a_fresh_horse_without_consent_in_the_interval_before_the_shootout() -> None:
    # "The mounts in the shootout shall be those used in the final regular period unless
    # replaced with the Umpire's consent": elsa was not ridden in period 4
    s = setup(mounts=True, tiebreak="shootout")
    events = [*LINE_UP, *(ev(x, "bowl_in") for x in STARTS)]
    e = refused([*events, mount(END4 + 10, "A", 1, "elsa")], s)
    assert e.code == "shootout_mount_not_final_period"
    r = run([*events, mount(END4 + 10, "A", 1, "elsa", umpire_consent=True)], s)
    assert r["mounts"]["A"]["elsa"]["rider"] == 1
    # between regular periods a fresh horse needs no consent
    r = run([*events[:-1], mount(STARTS[3] - 10, "A", 1, "elsa")], s, at=STARTS[3] - 5)
    assert r["mounts"]["A"]["elsa"]["rider"] == 1


def test_rule_5_a_horse_given_at_a_stoppage_is_ridden_in_that_period() -> None:
    events = [*LINE_UP, ev(0, "bowl_in"), ev(STARTS[1], "bowl_in"),
              ev(STARTS[1] + 30, "whistle"), mount(STARTS[1] + 40, "A", 1, "elsa")]
    r = run(events, MOUNTED, at=STARTS[1] + 50)
    assert r["mounts"]["A"]["elsa"]["periods"] == [2]
    assert r["mounts"]["A"]["bay"]["periods"] == [1, 2]
    r = run([*events, ev(STARTS[1] + 50, "bowl_in")], MOUNTED, at=STARTS[2] + 1)
    assert r["mounts"]["A"]["elsa"]["periods"] == [2]  # period 3 not started
