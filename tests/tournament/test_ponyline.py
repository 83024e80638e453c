"""The pony line's estimate, against the example tournament replayed with random delays on
a virtual clock (issue 25: within one slot's length of the real start)."""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path
from typing import Any

import pytest

from chukker.engine import Setup, replay
from chukker.rules.editions import edition
from chukker.tournament.model import load_path
from chukker.tournament.ponyline import estimate_starts, match_ms, next_match, remaining_ms
from chukker.tournament.standings import Played, standings

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tournament" / "fall-classic.toml"
PLAN = edition("uspa-arena-2026").regulation
SETUP = Setup.from_dict({"options": {"handicap": False}, "teams": {
    k: {"captain": 1, "players": [{"no": n} for n in (1, 2, 3)]} for k in ("A", "B")}})


def played_match(rng: random.Random) -> tuple[list[dict[str, Any]], int]:
    """A match's events (a stoppage of random length in each period, a goal for A so it
    ends in regulation) and its real length in ms."""
    events: list[dict[str, Any]] = []
    t = 0
    for k in range(PLAN.count):
        events.append({"at": t / 1000, "type": "bowl_in"})
        stop = rng.randrange(0, 4 * 60_000)
        events.append({"at": (t + 200_000) / 1000, "type": "whistle"})
        if k == 0:
            events.append({"at": (t + 100_000) / 1000, "type": "goal", "team": "A"})
            events.sort(key=lambda e: e["at"])
        events.append({"at": (t + 200_000 + stop) / 1000, "type": "bowl_in"})
        t += PLAN.length_ms + stop
        if k < PLAN.count - 1:
            t += PLAN.intervals_ms[k] + rng.randrange(0, 60_000)
    return events, t


def day_of_play(seed: int) -> tuple[Any, dict[str, dt.datetime], dict[str, Any]]:
    """The example's matches, each arena in order, late by random amounts."""
    t = load_path(EXAMPLE)
    rng = random.Random(seed)
    real: dict[str, dt.datetime] = {}
    runs: dict[str, Any] = {}
    by_arena: dict[str, list[Any]] = {}
    for m in sorted(t.matches.values(), key=lambda m: (m.start, m.id)):
        by_arena.setdefault(m.arena or "", []).append(m)
    for ms in by_arena.values():
        free = None
        for m in ms:
            start = m.start if free is None else max(m.start, free + dt.timedelta(minutes=5))
            start += dt.timedelta(minutes=rng.randrange(0, 12))
            events, length = played_match(rng)
            real[m.id] = start
            runs[m.id] = (events, length)
            free = start + dt.timedelta(milliseconds=length)
    return t, real, runs


def reports_at(real: dict[str, dt.datetime], runs: dict[str, Any], now: dt.datetime
               ) -> dict[str, dict[str, Any]]:
    out = {}
    for mid, start in real.items():
        if now < start:
            continue
        events, _ = runs[mid]
        ms = int((now - start).total_seconds() * 1000)
        out[mid] = replay(SETUP, [e for e in events if e["at"] * 1000 <= ms], ms)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_pony_line_estimate_is_within_one_slot_of_the_real_start(seed: int) -> None:
    t, real, runs = day_of_play(seed)
    starts = sorted(m.start for m in t.matches.values() if m.arena == "Arena 1")
    slot = starts[1] - starts[0]
    assert slot == dt.timedelta(minutes=70)
    first = min(real.values()) - dt.timedelta(hours=1)
    now, checked, worst = first, 0, dt.timedelta(0)
    while now < max(real.values()):
        reports = reports_at(real, runs, now)
        est = estimate_starts(t, reports, now)
        for mid, when in est.items():
            if real[mid] <= now:
                continue
            err = abs(when - real[mid])
            worst = max(worst, err)
            assert err <= slot, (mid, now, when, real[mid])
            checked += 1
        now += dt.timedelta(minutes=5)
    assert checked > 100
    assert worst > dt.timedelta(0)  # the arena did run late: the estimate moved


def test_pony_line_estimate_moves_when_the_arena_runs_late() -> None:
    t = load_path(EXAMPLE)
    a1, a2 = t.matches["a1"], t.matches["a2"]
    assert a1.start is not None and a2.start is not None
    on_time = estimate_starts(t, {}, a1.start - dt.timedelta(minutes=30))
    assert on_time["a2"] == a2.start
    # a1 began 30 minutes late and is in its second period
    now = a1.start + dt.timedelta(minutes=50)
    rep = {"status": "in_play", "period": 2, "clock": {"remaining_ms": 300_000}}
    late = estimate_starts(t, {"a1": rep}, now)
    left = dt.timedelta(milliseconds=remaining_ms(rep, PLAN))
    turnaround = (a2.start - a1.start) - dt.timedelta(milliseconds=match_ms(PLAN))
    assert turnaround == dt.timedelta(minutes=22)
    assert late["a2"] == now + left + turnaround > a2.start
    s = standings(t, {"a1": Played(("A", "B"), {**rep, "score": {"A": 0, "B": 0}})})
    nm = next_match(t, s, {"a1": rep}, "halcones", now)
    assert nm is not None and nm.match == "a2" and nm.estimated == late["a2"]
    assert not nm.playing
    nm = next_match(t, s, {"a1": rep}, "potros", now)
    assert nm is not None and nm.match == "a1" and nm.playing
