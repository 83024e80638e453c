"""The garbage collector's settings of the server: what a crowd of phones reconnecting
at once must not make a horn wait for."""

from __future__ import annotations

import gc

from chukker.web.app import _keep_collector_out_of_the_fanout


def test_a_reconnecting_crowd_never_waits_on_a_large_young_collection() -> None:
    """After start-up the young generations hold at most about 25,000 objects between
    collections (10,000 x 50 let one grow to half a million and stall the loop 200-300 ms
    in a storm of 3,000 streams); the oldest is collected at most every 20 of those;
    what start-up made is frozen, out of every collection's way."""
    before = gc.get_threshold()
    try:
        _keep_collector_out_of_the_fanout()
        gen0, gen1, gen2 = gc.get_threshold()
        assert gen0 * gen1 <= max(25_000, before[0] * 5)
        assert gen2 >= 20
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
