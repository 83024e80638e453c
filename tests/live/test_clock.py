"""The server's clock (``chukker.live.clock``): a timer set for a wall-clock instant
never reads that instant as not yet reached when it fires (Rule 5's horns: a horn is
never recorded as sounding before its instant)."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.live.clock import Clock


@settings(max_examples=300, deadline=None)
@given(ahead_ms=st.integers(0, 10 * 3600 * 1000), early_ns=st.integers(0, 2))
def test_rule_5_a_timer_fired_at_its_loop_time_reads_its_instant_reached(
        ahead_ms: int, early_ns: int) -> None:
    """asyncio runs a timer when ``loop.time()`` is within its clock's resolution (1 ns)
    of the timer's time: fired that early, ``now_ms`` still reads the instant."""
    clock = Clock()
    wall = clock.now_ms() + ahead_ms
    fire_ns = round(clock.loop_time(wall) * 1e9) - early_ns
    mp = pytest.MonkeyPatch()
    mp.setattr(time, "monotonic_ns", lambda: fire_ns)
    try:
        assert clock.now_ms() >= wall
    finally:
        mp.undo()


def test_rule_5_a_timer_is_set_at_most_a_millisecond_after_its_instant() -> None:
    clock = Clock()
    wall = clock.now_ms() + 5_000
    exact = (clock._mono0 + (wall - clock._wall0) * 1_000_000) / 1e9
    assert 0 < clock.loop_time(wall) - exact < 1e-3
