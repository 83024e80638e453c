"""Issue 42, the groom's split: ``next_mount.from`` is ``"split"`` from the moment the split
is ahead until the player's mount change is recorded or the period resumes (Rule 5 (2026),
"Split periods": the horses change at the split); a player saddled before a period gets the
horse after, at that period's split (``docs/engine.md``, "The groom's split")."""

from __future__ import annotations

from typing import Any

from chukker.engine import Setup, replay

STRING = [{"id": m} for m in ("bay", "chico", "dora", "elsa", "gus")]
PLAN = {"1": ["bay", "dora", "elsa"], "2": ["chico", "elsa"], "3": ["gus"]}


def setup(split: bool = True) -> Setup:
    players = [{"no": n, "handicap": 0} for n in (1, 2, 3)]
    return Setup.from_dict({
        "rules": "uspa-arena-2026",
        "options": {"handicap": False, "split_periods": split},
        "teams": {"A": {"captain": 1, "players": players, "mounts": STRING, "plan": PLAN},
                  "B": {"captain": 1, "players": players}},
    })


def ev(at: float, type_: str, **kw: Any) -> dict[str, Any]:
    return {"at": at, "type": type_, **kw}


def mount(at: float, player: int, m: str) -> dict[str, Any]:
    return ev(at, "mount", team="A", player=player, mount=m)


def nxt(events: list[dict[str, Any]], at: float, split: bool = True) -> dict[str, Any]:
    r = replay(setup(split), events, round(at * 1000))
    return {n: p["next_mount"] for n, p in r["roster"]["A"]["players"].items()}


LINE_UP = [mount(0, 1, "bay"), mount(0, 2, "chico"), mount(0, 3, "gus")]
SPLIT = [*LINE_UP, ev(1, "bowl_in"), ev(215, "whistle")]  # the split horn at 3:34 run


def test_rule_5_at_the_split_horn_next_mount_still_comes_at_the_split() -> None:
    assert nxt(SPLIT, 216)["1"] == {"mount": "dora", "from": "split"}


def test_rule_5_once_the_change_is_recorded_next_mount_comes_in_the_next_period() -> None:
    got = nxt([*SPLIT, mount(230, 1, "dora")], 231)
    assert got["1"] == {"mount": "elsa", "from": "period 2"}
    assert got["2"] == {"mount": "elsa", "from": "split"}  # 2 has not changed yet


def test_rule_5_once_the_period_resumes_next_mount_comes_in_the_next_period() -> None:
    got = nxt([*SPLIT, ev(300, "bowl_in")], 301)
    assert got["1"] == {"mount": "dora", "from": "period 2"}


def test_rule_5_a_player_saddled_before_period_1_gets_the_next_horse_at_the_split() -> None:
    assert nxt(LINE_UP, 0)["1"] == {"mount": "dora", "from": "split"}
    assert nxt(LINE_UP, 0, split=False)["1"] == {"mount": "dora", "from": "period 2"}
    assert nxt([], 0)["1"] == {"mount": "bay", "from": "period 1"}  # no horse yet


def test_rule_5_a_player_saddled_in_the_interval_gets_the_next_horse_at_the_split() -> None:
    events = [*SPLIT, mount(230, 1, "dora"), ev(300, "bowl_in")]
    assert nxt(events, 600)["1"] == {"mount": "elsa", "from": "period 2"}  # interval
    events.append(mount(620, 1, "bay"))  # bay again, saddled for period 2
    assert nxt(events, 621)["1"] == {"mount": "dora", "from": "split"}
