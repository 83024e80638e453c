"""Round robins, slots, brackets, committee edits and iCalendar."""

from __future__ import annotations

import datetime as dt
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st
from icalendar import Calendar

from chukker.tournament.model import from_dict
from chukker.tournament.schedule import (
    back_to_back,
    bracket,
    clashes,
    move,
    plan_round_robins,
    round_robin_pairs,
    slot_minutes,
    slots,
    to_ics,
)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=12), st.integers(min_value=1, max_value=3))
def test_round_robin_every_pair_once(n: int, arenas: int) -> None:
    teams = [f"t{i}" for i in range(n)]
    pairs = round_robin_pairs(teams)
    assert len(pairs) == n * (n - 1) // 2
    assert {frozenset(p) for p in pairs} == {frozenset(p) for p in combinations(teams, 2)}
    sched = slots(pairs, arenas)
    assert sorted(p for s in sched for p in s) == sorted(pairs)
    for s in sched:
        assert len(s) <= arenas
        assert len({x for p in s for x in p}) == 2 * len(s)  # a team once per slot


def test_no_team_plays_twice_in_a_row_where_avoidable() -> None:
    for n in (5, 6, 7, 8):
        assert back_to_back(slots(round_robin_pairs([str(i) for i in range(n)]), 1)) == 0
    # four teams on one arena: unavoidable (each match leaves only the other pair)
    assert back_to_back(slots(round_robin_pairs(list("abcd")), 1)) == 2


def doc(**kw: object) -> dict[str, object]:
    d: dict[str, object] = {
        "name": "Cup",
        "venue": "Pine Hill",
        "stages": [
            {"id": "a", "kind": "round-robin", "teams": ["p", "q", "r", "s"]},
            {"id": "b", "kind": "round-robin", "teams": ["w", "x", "y", "z"]},
        ],
        "teams": [{"id": x, "name": x.upper(), "players": []} for x in "pqrswxyz"],
    }
    d.update(kw)
    return d


def test_slot_length_from_the_edition() -> None:
    # 4 x 7:30 + 4 + 10 + 4 min = 48 min, + 15 allowance -> 65
    assert slot_minutes(from_dict(doc())) == 65
    # six periods of 5:00 + 4 x 4 + 10 = 56, + 15 -> 71 -> 75
    assert slot_minutes(from_dict(doc(match_options={"periods": "six"}))) == 75


def test_plan_pools_over_arenas_and_edit_a_slot() -> None:
    t = from_dict(doc())
    start = dt.datetime(2026, 12, 5, 9)
    for m in plan_round_robins(t, start, ["Arena 1", "Arena 2"]):
        t.matches[m.id] = m
    assert len(t.matches) == 12
    assert clashes(t) == []
    assert {m.start for m in t.matches.values()} >= {start}
    move(t, "a-1", start=t.matches["a-2"].start, arena=t.matches["a-2"].arena)
    assert any("overlap" in c for c in clashes(t))


def test_bracket_seeded_from_pools() -> None:
    stage, ms = bracket("cup", ["a", "b"], 2, dt.datetime(2026, 12, 6, 10), ["A1", "A2"])
    assert stage.kind == "single-elimination"
    got = [(m.id, m.teams[0].describe(), m.teams[1].describe(), m.arena) for m in ms]
    assert got == [
        ("cup-r1-1", "a #1", "b #2", "A1"),
        ("cup-r1-2", "b #1", "a #2", "A2"),
        ("cup-final", "winner cup-r1-1", "winner cup-r1-2", "A1"),
    ]
    assert ms[2].start is not None and ms[0].start is not None and ms[2].start > ms[0].start


def test_ics_one_event_per_match_with_teams_and_arena() -> None:
    t = from_dict(doc())
    for m in plan_round_robins(t, dt.datetime(2026, 12, 5, 9), ["Arena 1"]):
        t.matches[m.id] = m
    cal = Calendar.from_ical(to_ics(t))
    events = list(cal.walk("VEVENT"))
    assert len(events) == 12
    first = min(events, key=lambda e: e.decoded("dtstart"))
    assert " v " in str(first["summary"]) and str(first["location"]) == "Arena 1, Pine Hill"


def test_issue_42_the_brackets_first_round_keeps_the_rest_after_each_teams_last_pool_match(
) -> None:
    from chukker.tournament.schedule import bracket_start

    t = from_dict(doc())
    start = dt.datetime(2026, 12, 5, 9)
    for m in plan_round_robins(t, start, ["Arena 1", "Arena 2"], rest=1):
        t.matches[m.id] = m
    minutes = slot_minutes(t)
    last = max(m.start for m in t.matches.values() if m.start is not None)
    assert bracket_start(t, ["a", "b"], minutes) == last + dt.timedelta(minutes=minutes)
    first = bracket_start(t, ["a", "b"], minutes, rest=1)
    assert first is not None
    _, ms = bracket("cup", ["a", "b"], 2, first, ["Arena 1", "Arena 2"], minutes)
    for team in "pqrswxyz":
        ends = [m.start for m in t.matches.values() if m.start and any(
            r.team == team for r in m.teams)]
        gap = (first - max(ends)) // dt.timedelta(minutes=minutes)
        assert gap >= 2  # one free slot (rest 1) between its last pool match and the bracket
    for m in ms:
        t.matches[m.id] = m
    assert clashes(t) == []


def test_issue_42_a_committee_move_before_the_result_it_needs_is_a_clash() -> None:
    t = from_dict(doc())
    start = dt.datetime(2026, 12, 5, 9)
    for m in plan_round_robins(t, start, ["Arena 1", "Arena 2"]):
        t.matches[m.id] = m
    minutes = slot_minutes(t)
    last = max(m.start for m in t.matches.values() if m.start is not None)
    _, ms = bracket("cup", ["a", "b"], 2, last + dt.timedelta(minutes=minutes),
                    ["Arena 3"], minutes)
    for m in ms:
        t.matches[m.id] = m
    assert clashes(t) == []
    # the semi-final moved to after the final, which needs its winner
    final = t.matches["cup-final"]
    assert final.start is not None
    move(t, "cup-r1-1", start=final.start + dt.timedelta(minutes=minutes))
    assert any("cup-final needs the result of cup-r1-1" in c for c in clashes(t))
