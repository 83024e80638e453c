"""Value objects round trip through pickle and ``copy.deepcopy``, compiled or not
(a worker pool or a cache may pickle them; mypyc's frozen classes do not by default)."""

from __future__ import annotations

import copy
import pickle

from chukker.engine.simulate import default_setup
from chukker.record.definitions import AT, EVENTS, PLAYER


def test_record_field_definitions_round_trip_through_pickle_and_deepcopy() -> None:
    fields = [AT, PLAYER, *(f for fs in EVENTS.values() for f in fs.values())]
    assert pickle.loads(pickle.dumps(fields)) == fields
    assert copy.deepcopy(fields) == fields


def test_record_player_bounds_are_whole_numbers_in_both_engines() -> None:
    assert (PLAYER.min, PLAYER.max) == (1, 99)
    assert type(PLAYER.min) is int and type(PLAYER.max) is int


def test_engine_setup_round_trips_through_pickle_and_deepcopy() -> None:
    s = default_setup(tiebreak="shootout", warning_horn=True)
    assert pickle.loads(pickle.dumps(s)) == s
    assert copy.deepcopy(s) == s


def test_engine_match_round_trips_through_pickle_and_deepcopy_with_the_same_report() -> None:
    import random

    from chukker.engine import Match
    from chukker.engine.simulate import simulate

    s = default_setup(tiebreak="shootout")
    m = Match(s, simulate(s, random.Random(5), 200))
    for other in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m), copy.copy(m)):
        assert other.report() == m.report() and other.events == m.events
