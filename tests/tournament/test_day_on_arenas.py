"""Issue 30, "A day on two arenas": ``--rest N``, a slot per arena, each arena's use, the
last whistle and the day end; a bracket taking a different number from each pool."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chukker.cli import build_app
from chukker.tournament import load_path
from chukker.tournament.model import from_dict
from chukker.tournament.schedule import (
    plan_round_robins,
    rest_between,
    round_robin_pairs,
    slots,
    summary,
    venue_day_end,
)

#: the figure in docs/tournament.md: slots of the generated day, by teams, arenas and rest
GRID = {
    # teams: {(arenas, rest): slots}
    5: {(1, 0): 10, (1, 1): 10, (2, 0): 5, (2, 1): 9, (3, 0): 5, (3, 1): 9},
    6: {(1, 0): 15, (1, 1): 15, (2, 0): 8, (2, 1): 11, (3, 0): 5, (3, 1): 9},
    7: {(1, 0): 21, (1, 1): 21, (2, 0): 11, (2, 1): 14, (3, 0): 7, (3, 1): 13},
    8: {(1, 0): 28, (1, 1): 28, (2, 0): 14, (2, 1): 16, (3, 0): 10, (3, 1): 16},
}


@pytest.mark.parametrize("n", [5, 6, 7, 8])
@pytest.mark.parametrize("arenas", [1, 2, 3])
@pytest.mark.parametrize("rest", [0, 1])
def test_rest_n_slots_between_a_teams_matches_and_a_slot_per_arena(
    n: int, arenas: int, rest: int
) -> None:
    teams = [f"t{i}" for i in range(n)]
    pairs = round_robin_pairs(teams)
    sched = slots(pairs, arenas, rest=rest)
    # every pair once, a team once per slot, at most one match per arena
    assert sorted(p for s in sched for p in s) == sorted(pairs)
    for s in sched:
        assert len(s) <= arenas
        assert len({x for p in s for x in p}) == 2 * len(s)
    # at least ``rest`` slots between two matches of a team
    least = rest_between(sched)
    assert least is not None and least >= rest
    # the arenas are used: some slot fills every arena that the teams can fill
    assert max(len(s) for s in sched) == min(arenas, n // 2)
    assert len(sched) == GRID[n][(arenas, rest)]


def test_more_arenas_never_make_the_day_longer() -> None:
    for n, row in GRID.items():
        for rest in (0, 1):
            assert row[(1, rest)] >= row[(2, rest)] >= row[(3, rest)], n


def doc(**kw: object) -> dict[str, object]:
    d: dict[str, object] = {
        "name": "Cup",
        "venue": "Pine Hill",
        "stages": [{"id": "pool-a", "kind": "round-robin", "teams": list("abcde")}],
        "teams": [{"id": x, "name": x.upper(), "players": []} for x in "abcde"],
    }
    d.update(kw)
    return d


def test_five_teams_on_two_arenas_use_both_arenas_and_say_the_last_whistle() -> None:
    t = from_dict(doc())
    start = dt.datetime(2026, 12, 5, 9)
    ms = plan_round_robins(t, start, ["Arena 1", "Arena 2"], rest=1)
    day = summary(ms, ["Arena 1", "Arena 2"], 65)
    assert dict(day.arena_use) == {"Arena 1": 5, "Arena 2": 5}
    assert day.slots == 5  # 9 slots, every other one left for the horses to rest
    assert day.last_whistle == start + dt.timedelta(minutes=65 * 9)
    assert not [x for x in day.lines(dt.time(19)) if "warning" in x]
    late = day.lines(dt.time(18))
    assert late[-1] == (
        "warning: the schedule passes the day end 18:00: it runs to Sat 05 Dec 18:45"
    )


def test_day_end_defaults_from_the_venue_and_a_late_day_warns(tmp_path: Path) -> None:
    assert venue_day_end(from_dict(doc(venue_hours={"day_end": dt.time(17)}))) == dt.time(17)
    f = tmp_path / "t.toml"
    f.write_text(
        'format = "chukker-tournament/1"\nname = "Cup"\nvenue = "Pine Hill"\n'
        "[venue_hours]\nday_end = 13:00:00\n"
        '[[stages]]\nid = "pool-a"\nkind = "round-robin"\nteams = ["a", "b", "c", "d", "e"]\n'
        + "".join(f'[[teams]]\nid = "{x}"\nplayers = []\n' for x in "abcde")
    )
    r = CliRunner().invoke(
        build_app(["tournament"]),
        ["tournament", "schedule", str(f), "--generate", "--start", "2026-12-05T09:00",
         "--arena", "Arena 1", "--arena", "Arena 2", "--rest", "0", "-o", str(f)],
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    assert "Arena 1: 5 matches" in r.stderr and "Arena 2: 5 matches" in r.stderr
    assert "last whistle: Sun 06 Dec" in r.stderr
    assert "warning: the schedule passes the day end 13:00" in r.stderr
    t = load_path(f)
    assert not t.problems and len(t.matches) == 10
    assert venue_day_end(t) == dt.time(13)


def test_a_bracket_takes_a_different_number_from_each_pool(tmp_path: Path) -> None:
    f = tmp_path / "t.toml"
    f.write_text(
        'format = "chukker-tournament/1"\nname = "Cup"\n'
        '[[stages]]\nid = "pool-a"\nkind = "round-robin"\nteams = ["a", "b", "c", "d"]\n'
        '[[stages]]\nid = "pool-b"\nkind = "round-robin"\nteams = ["e", "f", "g"]\n'
        + "".join(f'[[teams]]\nid = "{x}"\nplayers = []\n' for x in "abcdefg")
    )
    r = CliRunner().invoke(
        build_app(["tournament"]),
        ["tournament", "schedule", str(f), "--generate", "--start", "2026-12-05T09:00",
         "--arena", "A1", "--arena", "A2", "--bracket", "ko=pool-a:4,pool-b:3", "-o", str(f)],
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    ko = [m for m in load_path(f).matches.values() if m.stage == "ko"]
    entrants = {x.describe() for m in ko for x in m.teams if x.stage}
    assert entrants == {"pool-a #1", "pool-a #2", "pool-a #3", "pool-a #4",
                        "pool-b #1", "pool-b #2", "pool-b #3"}  # fmt: skip
    assert len(ko) == 6  # seven entrants: six matches, a bye to the best seed
    r = CliRunner().invoke(
        build_app(["tournament"]),
        ["tournament", "schedule", str(f), "--bracket", "k2=pool-b:4"],
    )
    assert r.exit_code == 2 and "pool-b has 3 teams; 4 cannot go on" in r.stderr


def test_the_schedule_doors_refuse_what_they_cannot_take(tmp_path: Path) -> None:
    """--rest is bounded (0 to 20), a pool's number must be a whole number from 1 and no
    more than its teams; each refusal is one line and exit 2, the file untouched."""
    f = tmp_path / "t.toml"
    text = (
        'format = "chukker-tournament/1"\nname = "Cup"\n'
        '[[stages]]\nid = "pool-a"\nkind = "round-robin"\nteams = ["a", "b", "c"]\n'
        + "".join(f'[[teams]]\nid = "{x}"\nplayers = []\n' for x in "abc")
    )
    f.write_text(text)
    app = build_app(["tournament"])
    for args in (["--generate", "--start", "2026-12-05T09:00", "--arena", "A", "--rest", "99"],
                 ["--bracket", "ko=pool-a:0"], ["--bracket", "ko=pool-a:x"],
                 ["--bracket", "ko=pool-a:999999999"],
                 ["--generate", "--start", "2026-12-05T09:00", "--arena", "A",
                  "--day-end", "25:99"]):
        r = CliRunner().invoke(app, ["tournament", "schedule", str(f), *args])
        assert r.exit_code == 2, (args, r.stderr)
        assert "Traceback" not in r.stderr
    assert f.read_text() == text
