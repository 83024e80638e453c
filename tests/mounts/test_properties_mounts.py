"""A record without mounts replays as before; mounts change nothing but the pony lines."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chukker.engine import Setup, replay
from chukker.engine.simulate import default_setup, simulate, with_mounts

OPTIONS = st.fixed_dictionaries(
    {
        "periods": st.sampled_from(["regulation", "six"]),
        "split_periods": st.booleans(),
        "tiebreak": st.sampled_from(["extra-periods", "shootout"]),
        "handicap": st.booleans(),
        "warning_horn": st.booleans(),
    }
)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CLOCK = ("status", "period", "clock", "score", "handicap_goals", "winner", "decided_by", "horns",
         "periods", "running_ms", "forfeited", "practice", "interval", "at")


def unnumbered(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Log entries without the event numbers the inserted mount events shift."""
    return [{k: v for k, v in e.items() if k not in ("event", "params", "text")} for e in items]


def strip(r: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in r.items() if k not in ("mounts", "allowed", "roster")}
    out["roster"] = {
        t: {**ro, "players": {n: {k: v for k, v in p.items() if k != "mount"}
                              for n, p in ro["players"].items()}}
        for t, ro in r["roster"].items()
    }
    return out


@SETTINGS
@given(OPTIONS, st.integers(0, 2**32))
def test_property_a_string_without_mount_events_changes_nothing_but_the_mounts(
    options: dict[str, Any], seed: int
) -> None:
    setup = default_setup(**options)
    events = simulate(setup, random.Random(seed), 300)
    listed, _ = with_mounts(setup, events)
    before, after = replay(setup, events), replay(listed, events)
    assert before["mounts"] == {"A": {}, "B": {}}
    assert strip(before) == strip(after)
    assert {m["status"] for t in after["mounts"].values() for m in t.values()} == {"available"}


@SETTINGS
@given(OPTIONS, st.integers(0, 2**32))
def test_property_mount_changes_at_every_period_change_leave_the_clock_and_score_alone(
    options: dict[str, Any], seed: int
) -> None:
    setup = default_setup(**options)
    events = simulate(setup, random.Random(seed), 300)
    listed, mounted = with_mounts(setup, events)
    before, after = replay(setup, events), replay(listed, mounted)
    assert {k: before[k] for k in CLOCK} == {k: after[k] for k in CLOCK}
    for k in ("corrections", "goals", "fouls", "notices"):
        assert unnumbered(before[k]) == unnumbered(after[k]), k
    played = [p["number"] for p in after["periods"]]
    for team in after["mounts"].values():
        for m in team.values():
            assert set(m["periods"]) <= set(played) | {max(played, default=0) + 1}
            assert m["status"] in ("available", "riding")
    # every period played has three mounts of each team under a rider
    for n in played:
        for team in after["mounts"].values():
            assert sum(n in m["periods"] for m in team.values()) == 3


def test_record_without_mounts_setup_round_trips_without_a_mounts_key() -> None:
    s = default_setup()
    assert "mounts" not in s.to_dict()["teams"]["A"]
    assert Setup.from_dict(s.to_dict()) == s
