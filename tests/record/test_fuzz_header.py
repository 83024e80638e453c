"""A malformed header is a RecordError naming the field, never another exception."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.record import RecordError, check, replay

LEAF = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=True),
                 st.sampled_from(["A", "x", "regulation", "six", "west", "east", "none"]))
TREE = st.recursive(LEAF, lambda c: st.one_of(st.lists(c, max_size=4),
                                              st.dictionaries(st.text(max_size=3), c, max_size=4)),
                    max_leaves=12)
PLAYER = st.fixed_dictionaries({"no": st.one_of(st.integers(0, 4), LEAF)},
                               optional={"name": TREE, "handicap": TREE})
TEAM = st.fixed_dictionaries({}, optional={
    "name": TREE, "captain": st.one_of(st.integers(0, 4), TREE),
    "players": st.one_of(st.lists(PLAYER, min_size=2, max_size=4), TREE)})
HEADER = st.fixed_dictionaries({}, optional={
    "format": st.one_of(st.just("chukker-match/1"), TREE),
    "rules": st.one_of(st.sampled_from(["uspa-arena-2026", "uspa-arena-2006"]), TREE),
    "options": st.one_of(st.dictionaries(st.sampled_from(
        ["periods", "split_periods", "tiebreak", "shootout_players", "handicap", "warning_horn",
         "two_point_line", "first_defends"]), TREE, max_size=4), TREE),
    "teams": st.one_of(st.dictionaries(st.sampled_from(["A", "B", "C", "bad key!"]), TEAM,
                                       max_size=3), TREE),
    "events": st.one_of(st.just([]), TREE),
})


@settings(max_examples=400, deadline=None)
@given(HEADER)
def test_fuzz_header_errors_are_record_errors(doc: dict[str, Any]) -> None:
    try:
        replay(doc)
    except RecordError as e:
        assert ":" in str(e)
    except ValueError as e:  # an event refused by the engine
        assert str(e).startswith("event ")
    for p in check(doc):
        assert isinstance(p, ValueError)
