"""Hypothesis: the order of finish is a total preorder consistent with every criterion,
and permuting the input order of teams or matches changes nothing."""

from __future__ import annotations

import random
from itertools import combinations, pairwise

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.tournament.conftest import result, tournament

from chukker.tournament.standings import standings

CRITS = ["wins", "head_to_head", "net_goals", "goals_for", "goals_against"]


@st.composite
def pools(draw: st.DrawFn) -> tuple[list[str], list[tuple[str, str, str]], dict, list[str]]:
    n = draw(st.integers(min_value=2, max_value=6))
    teams = [f"t{i}" for i in range(n)]
    matches = [(f"m{i}", a, b) for i, (a, b) in enumerate(combinations(teams, 2))]
    played = {}
    for mid, _a, _b in matches:
        kind = draw(st.sampled_from(["score", "score", "score", "fa", "fb", "both", "none"]))
        if kind == "none":
            continue
        if kind == "score":
            x = draw(st.integers(0, 4))
            y = draw(st.integers(0, 4).filter(lambda v, x=x: v != x))
            played[mid] = result(x, y)
        else:
            f = {"fa": ("A",), "fb": ("B",), "both": ("A", "B")}[kind]
            played[mid] = result(0, 0, forfeited=f)
    crits = draw(st.permutations(CRITS))[: draw(st.integers(1, len(CRITS)))]
    return teams, matches, played, list(crits)


@settings(max_examples=60, deadline=None)
@given(pools(), st.randoms(use_true_random=False))
def test_total_preorder_consistent_with_criteria_and_permutation_invariant(
    pool: tuple[list[str], list[tuple[str, str, str]], dict, list[str]], rnd: random.Random
) -> None:
    teams, matches, played, crits = pool
    s = standings(tournament(teams, matches, criteria=crits), played)
    st_ = s.stage("p")
    table = st_.table
    assert sorted(r.team for r in table) == sorted(teams)
    places = [r.place for r in table]
    assert places == sorted(places) and places[0] == 1
    for _i, r in enumerate(table):
        assert r.place == 1 + sum(1 for o in table if o.place < r.place)  # shared: 1, 1, 3
    sign = {"wins": 1, "net_goals": 1, "goals_for": 1, "goals_against": -1}
    for above, below in pairwise(table):
        c = above.decided_by
        if above.place == below.place:
            assert c is None
            continue
        assert c in crits
        # equal on every numeric criterion before the deciding one, better on it
        for prev in crits[: crits.index(c)]:
            if prev in sign:
                key = "won" if prev == "wins" else prev
                assert getattr(above, key) == getattr(below, key)
        if c in sign:
            key = "won" if c == "wins" else c
            assert sign[c] * (getattr(above, key) - getattr(below, key)) > 0
    if crits[0] == "wins":
        assert [r.won for r in table] == sorted((r.won for r in table), reverse=True)
    # permutation of the input order of teams and matches: same standings
    t2, m2 = teams[:], matches[:]
    rnd.shuffle(t2)
    rnd.shuffle(m2)
    s2 = standings(tournament(t2, m2, criteria=crits), played)
    assert s2.stage("p").to_json() == st_.to_json()
    assert sorted(map(str, (m.to_json() for m in s2.matches))) == sorted(
        map(str, (m.to_json() for m in s.matches))
    )
