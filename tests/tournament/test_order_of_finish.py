"""The order of finish, clause by clause (docs: ../shared/spec/tournament.md, "Meaning")."""

from __future__ import annotations

from tests.tournament.conftest import order, result, tournament

from chukker.tournament.standings import standings

RR4 = [
    ("m1", "w", "x"),
    ("m2", "y", "z"),
    ("m3", "w", "y"),
    ("m4", "x", "z"),
    ("m5", "w", "z"),
    ("m6", "x", "y"),
]


def test_round_robin_table_counts_played_won_lost_goals() -> None:
    t = tournament(["w", "x"], [("m1", "w", "x")])
    s = standings(t, {"m1": result(7, 5)})
    rows = {r.team: r.to_json() for r in s.stage("p").table}
    assert rows["w"] == {
        "place": 1,
        "team": "w",
        "played": 1,
        "won": 1,
        "lost": 0,
        "goals_for": 7,
        "goals_against": 5,
        "net_goals": 2,
        "decided_by": "wins",
    }
    assert rows["x"]["lost"] == 1 and rows["x"]["net_goals"] == -2
    assert rows["x"]["decided_by"] is None  # the last team


def test_criterion_wins_more_wins_first() -> None:
    t = tournament(["w", "x", "y", "z"], RR4)
    played = {
        "m1": result(5, 4),
        "m2": result(6, 3),
        "m3": result(8, 2),
        "m4": result(4, 9),
        "m5": result(7, 1),
        "m6": result(3, 2),
    }
    s = standings(t, played)
    assert [r[1] for r in order(s)] == ["w", "x", "z", "y"] or order(s)[0][1] == "w"
    assert order(s)[0] == (1, "w", "wins")


def test_head_to_head_counts_only_matches_within_the_group() -> None:
    # w, x tied on 2 wins; x beat w: x above w although w has better goals
    t = tournament(["w", "x", "y", "z"], RR4)
    played = {
        "m1": result(3, 4),
        "m2": result(5, 4),
        "m3": result(12, 1),
        "m4": result(6, 5),
        "m5": result(12, 1),
        "m6": result(2, 8),
    }
    s = standings(t, played)
    # wins: w 2 (m3, m5), x 2 (m1, m4), y 2 (m2, m6), z 0
    # head-to-head among w, x, y: w beat y (m3), x beat w (m1), y beat x (m6): 1-1-1, no split
    # net goals: w +21; y (5-4, 1-12, 8-2) -4; x (4-3, 6-5, 2-8) -4; goals for: y 14, x 12
    assert order(s) == [
        (1, "w", "net_goals"),
        (2, "y", "goals_for"),
        (3, "x", "wins"),
        (4, "z", None),
    ]


def test_head_to_head_in_a_circle_splits_no_one_and_net_goals_go_on() -> None:
    t = tournament(["w", "x", "y", "z"], RR4)
    played = {
        "m1": result(12, 2),  # w v x: w
        "m2": result(0, 0, forfeited=("A", "B")),  # y v z: both forfeit, both lose
        "m3": result(2, 3),  # w v y: y
        "m4": result(10, 1),  # x v z: x
        "m5": result(1, 2),  # w v z: z
        "m6": result(5, 6),  # x v y: y
    }
    s = standings(t, played)
    # y 2 wins; w, x, z 1 each and beat each other in a circle (1-1-1): net goals
    # w +8 (12-2, 2-3, 1-2), x -2 (2-12, 10-1, 5-6), z -8 (no goals from the forfeit)
    assert order(s) == [
        (1, "y", "wins"),
        (2, "w", "net_goals"),
        (3, "x", "net_goals"),
        (4, "z", None),
    ]
    rows = {r.team: r for r in s.stage("p").table}
    assert (rows["z"].goals_for, rows["z"].goals_against, rows["z"].lost) == (3, 11, 2)


def test_head_to_head_group_of_three_split_one_then_net_goals() -> None:
    t = tournament(["w", "x", "y", "z"], RR4)
    played = {
        "m1": result(1, 0),  # w v x: w
        "m2": result(0, 0, forfeited=("A", "B")),  # y v z: both lose
        "m3": result(9, 0),  # w v y: w
        "m4": result(6, 3),  # x v z: x
        "m5": result(0, 1),  # w v z: z
        "m6": result(4, 5),  # x v y: y
    }
    s = standings(t, played)
    # wins: w 2; x 1, y 1, z 1. Among x, y, z: x beat z, y beat x, y-z both forfeit
    # -> x 1, y 1, z 0: z is fourth; x and y go on to net goals:
    # x: 0-1, 6-3, 4-5 -> +1;  y: 0-9, 5-4 -> -8. x above y, though y beat x.
    assert order(s) == [
        (1, "w", "wins"),
        (2, "x", "net_goals"),
        (3, "y", "head_to_head"),
        (4, "z", None),
    ]
    reasons = s.stage("p").reasons
    assert reasons[2].criterion == "head_to_head" and reasons[2].among == ("x", "y", "z")
    assert reasons[2].values == (1, 0)


def test_goals_for_then_goals_against_lower_first() -> None:
    t = tournament(
        ["x", "y", "z"],
        [("m1", "x", "z"), ("m2", "y", "z")],
        criteria=["wins", "goals_for", "goals_against"],
    )
    s = standings(t, {"m1": result(5, 3), "m2": result(5, 1)})
    assert order(s) == [(1, "y", "goals_against"), (2, "x", "wins"), (3, "z", None)]
    t2 = tournament(
        ["x", "y", "z"], [("m1", "x", "z"), ("m2", "y", "z")], criteria=["wins", "goals_for"]
    )
    s2 = standings(t2, {"m1": result(6, 3), "m2": result(5, 1)})
    assert order(s2)[0] == (1, "x", "goals_for")


def test_forfeit_is_a_win_and_its_goals_are_left_out() -> None:
    t = tournament(["x", "y"], [("m1", "x", "y")])
    s = standings(t, {"m1": result(4, 2, forfeited=("A",))})
    rows = {r.team: r for r in s.stage("p").table}
    assert (rows["y"].won, rows["y"].goals_for, rows["y"].goals_against) == (1, 0, 0)
    assert (rows["x"].lost, rows["x"].goals_for) == (1, 0)
    assert s.match("m1").winner == "y"


def test_both_forfeit_both_lose() -> None:
    t = tournament(["x", "y"], [("m1", "x", "y")])
    s = standings(t, {"m1": result(0, 0, forfeited=("A", "B"))})
    rows = {r.team: r for r in s.stage("p").table}
    assert (rows["x"].played, rows["x"].lost, rows["y"].lost) == (1, 1, 1)
    assert rows["x"].won == rows["y"].won == 0
    assert s.match("m1").winner is None and s.match("m1").status == "final"


def test_equal_after_the_last_criterion_share_a_place() -> None:
    t = tournament(
        ["x", "y", "z"], [("m1", "x", "z"), ("m2", "y", "z")], criteria=["wins", "net_goals"]
    )
    s = standings(t, {"m1": result(5, 3), "m2": result(4, 2)})
    assert order(s) == [(1, "x", None), (1, "y", "wins"), (3, "z", None)]
    assert s.stage("p").complete and s.stage("p").waiting == []
    assert s.stage("p").team_at(1) is None and s.stage("p").team_at(3) == "z"


def test_waiting_for_a_lot_then_the_lot_decides() -> None:
    t = tournament(["x", "y", "z"], [("m1", "x", "z"), ("m2", "y", "z")])
    played = {"m1": result(5, 3), "m2": result(5, 3)}
    s = standings(t, played)
    st = s.stage("p")
    assert [w.to_json() for w in st.waiting] == [{"teams": ["x", "y"], "for": "lot"}]
    assert st.complete  # every match is final; the order waits (as in the contract's example)
    assert st.team_at(1) is None and st.team_at(3) is None  # places wait for the lot
    assert order(s) == [(1, "x", None), (1, "y", "wins"), (3, "z", None)]
    t2 = tournament(
        ["x", "y", "z"],
        [("m1", "x", "z"), ("m2", "y", "z")],
        decided=[{"stage": "p", "by": "lot", "order": ["y", "x"]}],
    )
    s2 = standings(t2, played)
    assert order(s2) == [(1, "y", "lot"), (2, "x", "wins"), (3, "z", None)]
    assert s2.stage("p").complete


def test_shootout_in_decided_for_that_stage_and_by_only() -> None:
    teams = ["x", "y", "z"]
    ms = [("m1", "x", "z"), ("m2", "y", "z")]
    played = {"m1": result(5, 3), "m2": result(5, 3)}
    wrong = tournament(
        teams,
        ms,
        criteria=["wins", "shootout"],
        decided=[{"stage": "p", "by": "lot", "order": ["y", "x"]}],
    )
    assert standings(wrong, played).stage("p").waiting[0].by == "shootout"
    right = tournament(
        teams,
        ms,
        criteria=["wins", "shootout"],
        decided=[{"stage": "p", "by": "shootout", "order": ["y", "x"]}],
    )
    assert order(standings(right, played))[0] == (1, "y", "shootout")


def test_a_stage_is_incomplete_until_its_matches_are_final() -> None:
    t = tournament(["x", "y"], [("m1", "x", "y")])
    s = standings(t, {})
    assert s.match("m1").to_json() == {
        "id": "m1",
        "status": "scheduled",
        "teams": ["x", "y"],
        "score": None,
        "winner": None,
    }
    assert not s.stage("p").complete
    s2 = standings(t, {"m1": result(2, 1, status="in_play")})
    assert s2.match("m1").status == "in_play" and not s2.stage("p").complete
    assert s2.stage("p").table[0].played == 0


def test_elimination_places_winners_and_losers() -> None:
    extra_stages = [{"id": "final", "kind": "single-elimination"}]
    extra = [
        {
            "id": "f1",
            "stage": "final",
            "teams": [{"from": "p", "place": 1}, {"from": "p", "place": 2}],
        },
        {"id": "f2", "stage": "final", "teams": [{"winner": "f1"}, {"loser": "f1"}]},
    ]
    t = tournament(
        ["x", "y", "z"],
        [("m1", "x", "z"), ("m2", "y", "z"), ("m3", "x", "y")],
        extra_stages=extra_stages,
        extra_matches=extra,
    )
    s = standings(t, {"m1": result(5, 3), "m2": result(5, 3)})
    assert s.match("f1").teams == (None, None)  # pool not complete
    s = standings(
        t, {"m1": result(5, 3), "m2": result(5, 3), "m3": result(1, 2), "f1": result(6, 5)}
    )
    assert s.match("f1").teams == ("y", "x") and s.match("f1").winner == "y"
    assert s.match("f2").teams == ("y", "x")
    assert s.to_json()["matches"][4]["teams"] == ["y", "x"]
