"""Brackets of any size (issue 21.4): byes to the best seeds, seeding from the pools' order
of finish, a third-place match and a consolation bracket; standings, check, the drawing
and the calendar handle them."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from icalendar import Calendar

from chukker.tournament.bracket import byes, rounds
from chukker.tournament.check import check
from chukker.tournament.export import bracket_svg
from chukker.tournament.model import MatchSpec, TeamRef, from_dict
from chukker.tournament.schedule import (
    bracket,
    bracket_size,
    consolation,
    elimination,
    to_ics,
)
from chukker.tournament.standings import standings

from .conftest import result, tournament


def _entrants(ms: list[MatchSpec]) -> list[str]:
    own = {m.id for m in ms}
    return [
        r.describe()
        for m in ms
        for r in m.teams
        if r.winner_of not in own and r.loser_of not in own
    ]


def _side(ms: list[MatchSpec], mid: str) -> set[str]:
    """Every entrant that can reach match ``mid``."""
    by_id = {m.id: m for m in ms}
    out: set[str] = set()
    for r in by_id[mid].teams:
        if r.winner_of in by_id:
            out |= _side(ms, r.winner_of)
        else:
            out.add(r.describe())
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=2, max_value=32), st.booleans())
def test_bracket_any_size_every_entrant_once_byes_to_top_seeds(n: int, third: bool) -> None:
    seeds = [TeamRef(team=f"s{i}") for i in range(1, n + 1)]
    third = third and n >= 4
    ms = elimination("ko", seeds, third_place=third)
    # every entrant once; n - 1 matches (+1 for third place)
    assert sorted(_entrants(ms)) == sorted(f"s{i}" for i in range(1, n + 1))
    assert len(ms) == n - 1 + (1 if third else 0)
    t = from_dict(
        {
            "teams": [{"id": f"s{i}", "players": []} for i in range(1, n + 1)],
            "stages": [{"id": "ko", "kind": "single-elimination"}],
            "matches": [m.to_dict() for m in ms],
        }
    )
    # the byes go to the top seeds: exactly bracket_size - n of them, seeds 1..k
    got = sorted(int(b.ref.describe()[1:]) for b in byes(t, "ko"))
    assert got == list(range(1, bracket_size(n) - n + 1))
    # seeds 1 and 2 are in opposite halves: they can meet only in the final
    final = next(m for m in ms if m.id == "ko-final")
    halves = [_side(ms, r.winner_of) if r.winner_of else {r.describe()} for r in final.teams]
    assert ("s1" in halves[0]) != ("s1" in halves[1])
    assert ("s2" in halves[0]) != ("s2" in halves[1])
    assert not ({"s1", "s2"} <= halves[0] or {"s1", "s2"} <= halves[1])
    # 1st against the lowest seed when nobody has a bye
    if n == bracket_size(n):
        first = next(m for m in ms if "s1" in {r.describe() for r in m.teams})
        assert {r.describe() for r in first.teams} == {"s1", f"s{n}"}
    assert problems_of(t) == []


def problems_of(t: Any) -> list[str]:
    return [str(p) for p in check(t, {}) if p.code not in ("team_size",)]


def test_six_entrants_seeded_from_two_pools_of_three() -> None:
    _stage, ms = bracket("ko", ["pa", "pb"], 3)
    assert [(m.id, m.teams[0].describe(), m.teams[1].describe()) for m in ms] == [
        ("ko-r1-1", "pb #2", "pa #3"),
        ("ko-r1-2", "pa #2", "pb #3"),
        ("ko-r2-1", "pa #1", "winner ko-r1-1"),
        ("ko-r2-2", "pb #1", "winner ko-r1-2"),
        ("ko-final", "winner ko-r2-1", "winner ko-r2-2"),
    ]


def test_third_place_between_the_semi_final_losers() -> None:
    ms = elimination("ko", [TeamRef(team=x) for x in "abcde"], third_place=True)
    third = next(m for m in ms if m.id == "ko-third")
    final = next(m for m in ms if m.id == "ko-final")
    assert {r.loser_of for r in third.teams} == {r.winner_of for r in final.teams}
    with pytest.raises(ValueError, match="4 entrants"):
        elimination("ko", [TeamRef(team=x) for x in "abc"], third_place=True)


def test_third_place_before_the_final_on_one_arena_beside_it_on_two() -> None:
    seeds = [TeamRef(team=x) for x in "abcd"]
    one = {m.id: m for m in elimination("ko", seeds, dt.datetime(2026, 12, 6, 10), ["A"], 60, True)}
    assert one["ko-third"].start is not None and one["ko-final"].start is not None
    assert one["ko-third"].start < one["ko-final"].start
    two = {
        m.id: m
        for m in elimination("ko", seeds, dt.datetime(2026, 12, 6, 10), ["A", "B"], 60, True)
    }
    assert two["ko-third"].start == two["ko-final"].start
    assert two["ko-third"].arena != two["ko-final"].arena


@pytest.mark.parametrize(("n", "losers"), [(6, 2), (7, 3), (8, 4), (12, 4)])
def test_consolation_bracket_of_the_first_round_losers(n: int, losers: int) -> None:
    _stage, ms = bracket("ko", ["p"], n)
    cstage, cms = consolation("ko-consolation", ms)
    assert cstage.kind == "single-elimination"
    assert len(cms) == losers - 1
    assert all(r.loser_of and r.loser_of.startswith("ko-r1-") for r in _refs_in(cms))
    with pytest.raises(ValueError, match="2 first-round losers"):
        consolation("c", bracket("ko", ["p"], 5)[1])


def _refs_in(ms: list[MatchSpec]) -> list[TeamRef]:
    own = {m.id for m in ms}
    return [r for m in ms for r in m.teams if r.winner_of not in own]


def _pool_then_bracket(n: int, **kw: Any) -> Any:
    """One pool of ``n`` teams (t0 best ... t{n-1}), played, then a bracket of all of them."""
    teams = [f"t{i}" for i in range(n)]
    pairs = [(f"m{i}{j}", teams[i], teams[j]) for i in range(n) for j in range(i + 1, n)]
    stage, ms = bracket("ko", ["p"], n, **kw)
    t = tournament(
        teams,
        pairs,
        extra_stages=[stage.to_dict()],
        extra_matches=[m.to_dict() for m in ms],
    )
    played: dict[str, Any] = {mid: result(5, 1) for mid, _a, _b in pairs}  # the lower index wins
    return t, played


def test_six_entrant_bracket_standings_and_check() -> None:
    t, played = _pool_then_bracket(6)
    s = standings(t, played)
    assert [r.team for r in s.stage("p").table] == [f"t{i}" for i in range(6)]
    # seeds 1 and 2 wait in round 2; 4 v 5 and 3 v 6 are known
    assert s.match("ko-r1-1").teams == ("t3", "t4")
    assert s.match("ko-r1-2").teams == ("t2", "t5")
    assert s.match("ko-r2-1").teams == ("t0", None)
    ko = s.stage("ko").to_json()
    assert ko["byes"] == [
        {"match": "ko-r2-1", "team": "t0", "slot": "p #1"},
        {"match": "ko-r2-2", "team": "t1", "slot": "p #2"},
    ]
    assert [p for p in problems_of(t) if "ko" in p] == []
    played["ko-r1-1"] = result(2, 6)  # t4 beats t3
    s = standings(t, played)
    assert s.match("ko-r2-1").teams == ("t0", "t4")
    assert rounds(t, "ko") == {
        "ko-r1-1": 1, "ko-r1-2": 1, "ko-r2-1": 2, "ko-r2-2": 2, "ko-final": 3}  # fmt: skip


def test_bracket_drawing_shows_byes() -> None:
    t, played = _pool_then_bracket(6)
    svg = bracket_svg(t, standings(t, played))
    assert svg.count('class="bm"') == 5
    assert svg.count('class="bye"') == 2
    assert '<g class="bye" data-match="ko-r2-1" data-team="t0">' in svg
    assert svg.count(">bye</text>") == 2


@pytest.mark.parametrize("n", [3, 5, 6, 7, 12])
def test_bracket_drawing_every_size(n: int) -> None:
    t, played = _pool_then_bracket(n, third_place=n >= 4)
    svg = bracket_svg(t, standings(t, played))
    assert svg.count('class="bm"') == n - 1 + (n >= 4)
    assert svg.count('class="bye"') == bracket_size(n) - n


def test_bracket_ics_one_event_per_match_byes_none() -> None:
    teams = [f"t{i}" for i in range(5)]
    _stage, ms = bracket("ko", ["p"], 5, dt.datetime(2026, 12, 6, 10), ["Arena 1"], 60)
    t = tournament(
        teams, [], extra_stages=[_stage.to_dict()], extra_matches=[m.to_dict() for m in ms]
    )
    cal = Calendar.from_ical(to_ics(t))
    assert len(list(cal.walk("VEVENT"))) == 4


def test_check_reports_an_entrant_twice_in_a_bracket() -> None:
    t = tournament(
        ["a", "b", "c"],
        [],
        extra_stages=[{"id": "ko", "kind": "single-elimination"}],
        extra_matches=[
            {"id": "k1", "stage": "ko", "teams": ["a", "b"]},
            {"id": "k2", "stage": "ko", "teams": ["a", {"winner": "k1"}]},
            {"id": "k3", "stage": "ko", "teams": [{"winner": "k1"}, "c"]},
        ],
    )
    got = [str(p) for p in check(t, {})]
    assert "stage ko: team a enters the bracket twice (matches k1, k2)" in got
    assert "stage ko: the winner of k1 goes on twice (matches k2, k3)" in got


def test_six_entrant_bracket_uploaded_page_shows_byes(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from tests.tournament.web_helpers import six_team_toml
    from tests.web.conftest import OPEN

    from chukker.web import create_app

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with TestClient(create_app(tmp_path / "live.sqlite3", **OPEN)) as c:
        r = c.post("/tournaments/api", json={"text": six_team_toml()})
        assert r.status_code == 201, r.text
        tid = r.json()["tournament_id"]
        page = c.get(f"/tournaments/{tid}").text
        assert page.count('class="bm"') == 5 and page.count('<g class="bye"') == 2
        assert "Pool A, place 1" in page  # the seed with a bye, in words
        es = c.get(f"/tournaments/{tid}?lang=es").text
        assert ">pase libre</text>" in es
        s = c.get(f"/tournaments/{tid}/standings.json").json()
        ko = next(x for x in s["stages"] if x["id"] == "ko")
        assert [b["slot"] for b in ko["byes"]] == ["pool-a #1", "pool-b #1"]
        svg = c.get(f"/tournaments/{tid}/bracket.svg").text
        assert svg.count('<g class="bye"') == 2


def test_six_entrant_bracket_played_on_the_server_byes_wait_for_their_opponents(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pools played (the better-listed team wins each match by the other's forfeit): the
    first round becomes live with 2nd v 3rd of the other pool, the seeds with a bye wait
    for its winner, then play."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from tests.tournament.web_helpers import post, six_team_toml

    from chukker.tournament.model import loads
    from chukker.web import create_app

    order = ["reds", "blues", "greens", "golds", "whites", "blacks"]
    t = loads(six_team_toml())
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    from tests.web.conftest import OPEN

    with TestClient(create_app(tmp_path / "live.sqlite3", **OPEN)) as c:
        body = c.post("/tournaments/api", json={"text": six_team_toml()}).json()
        tid, tokens = body["tournament_id"], {a: v["token"] for a, v in body["arenas"].items()}

        def play(mid: str, loser_key: str) -> None:
            live = c.get(f"/tournaments/{tid}/results.json").json()
            m = next(x for x in live["matches"] if x["id"] == mid)
            tok = tokens[m["arena"]]
            for ev in ({"type": "bowl_in"}, {"type": "forfeit", "team": loser_key}):
                assert post(c, "", m["live"], tok, ev).status_code == 201

        for m in t.matches.values():
            if m.stage.startswith("pool"):
                a, b = m.teams[0].team, m.teams[1].team
                assert a is not None and b is not None
                play(m.id, "B" if order.index(a) < order.index(b) else "A")
        s = c.get(f"/tournaments/{tid}/standings.json").json()
        got = {m["id"]: m["teams"] for m in s["matches"] if m["id"].startswith("ko")}
        # seeds: A1 reds, B1 golds, A2 blues, B2 whites, A3 greens, B3 blacks
        assert got["ko-r1-1"] == ["whites", "greens"] and got["ko-r1-2"] == ["blues", "blacks"]
        assert got["ko-r2-1"] == ["reds", None] and got["ko-r2-2"] == ["golds", None]
        play("ko-r1-1", "B")  # whites beat greens
        s = c.get(f"/tournaments/{tid}/standings.json").json()
        r2 = next(m for m in s["matches"] if m["id"] == "ko-r2-1")
        assert r2["teams"] == ["reds", "whites"]
        res = c.get(f"/tournaments/{tid}/results.json").json()
        assert next(m for m in res["matches"] if m["id"] == "ko-r2-1")["live"]


def test_bracket_drawing_names_each_stage_and_itself() -> None:
    t, played = _pool_then_bracket(7)
    _c, cms = consolation("ko-consolation", [m for m in t.matches.values() if m.stage == "ko"])
    t.stages["ko-consolation"] = _c
    for m in cms:
        t.matches[m.id] = m
    svg = bracket_svg(t, standings(t, played), stage_label=str.upper, caption="Cuadro")
    assert ">KO</text>" in svg and ">KO-CONSOLATION</text>" in svg
    assert 'aria-label="Cuadro: T"' in svg and "<title>Cuadro: T</title>" in svg
    assert svg.count('class="bm"') == 6 + 2  # 7 entrants, 3 first-round losers
