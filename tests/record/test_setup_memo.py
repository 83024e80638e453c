"""A header read before keeps its set-up (issue 46): ``chukker.record.io.known_setup``.

A set-up is frozen and a function of its header alone, so the record's reader keeps the
set-ups of the headers it accepted, keyed by the header's own text (``replay_text``) or
by its canonical JSON when every value is of its exact JSON type (``replay`` of a dict).
These tests hold the kept answers to the answers built afresh: the same report, the same
refusal, for a header seen the first time, again, and after another that differs in a
value's type only.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chukker.engine import EngineError
from chukker.engine.simulate import default_setup, simulate
from chukker.record import RecordError, dumps, replay, replay_text
from chukker.record import io as record_io
from chukker.record.events import EVENTS_MAX
from chukker.record.io import SETUPS_MAX, header_and_setup, read_setup_and_events


@pytest.fixture(autouse=True)
def _empty() -> Iterator[None]:
    record_io._SETUPS.clear()
    yield
    record_io._SETUPS.clear()


def _record(seed: int = 1, events: int = 16) -> dict[str, Any]:
    setup = default_setup()
    doc = setup.to_dict()
    doc["events"] = simulate(setup, random.Random(seed), events)
    return doc


def _answer(fn: Any, arg: Any) -> tuple[str, Any]:
    try:
        return "report", fn(arg)
    except (RecordError, EngineError) as e:
        return type(e).__name__, (getattr(e, "code", None), str(e))


def test_a_header_read_again_gives_the_set_up_kept() -> None:
    doc = _record()
    first = header_and_setup(doc)[1]
    again = header_and_setup(copy.deepcopy(doc))[1]
    assert again is first
    text = dumps(doc)
    got = read_setup_and_events(text)
    assert got is not None
    assert read_setup_and_events(text) is not None
    assert read_setup_and_events(text)[0] is got[0]  # type: ignore[index]
    assert replay_text(text) == replay(json.loads(text))


@pytest.mark.parametrize("first, then", [(1, True), (True, 1), (1, 1.0), (1.0, 1)])
def test_values_that_differ_in_type_only_are_not_one_header(first: Any, then: Any) -> None:
    """``1``, ``1.0`` and ``true`` are one value to Python's ``==``, three to the record."""
    answers = []
    for value in (first, then):
        doc = _record()
        doc["teams"]["A"]["players"][0]["handicap"] = value
        kept = _answer(replay, doc)
        record_io._SETUPS.clear()
        assert _answer(replay, doc) == kept  # the same answer built afresh
        answers.append(kept)
        text = json.dumps(doc)
        assert _answer(replay_text, text) == _answer(replay_text, text) == kept
    assert answers[0] != answers[1] or first == 1.0 or then == 1.0


def test_a_refused_header_is_not_kept() -> None:
    doc = _record()
    doc["teams"]["A"]["captain"] = 9
    with pytest.raises(RecordError):
        replay(doc)
    with pytest.raises(RecordError):
        replay_text(json.dumps(doc))
    assert record_io._SETUPS == {}


def test_a_header_with_meta_or_a_club_edition_is_built_each_time() -> None:
    doc = _record()
    doc["meta"] = {"venue": "Arena 1"}
    a = header_and_setup(doc)[1]
    assert header_and_setup(doc)[1] is not a
    assert record_io._SETUPS == {}


def test_the_kept_set_ups_are_bounded() -> None:
    doc = _record()
    for k in range(SETUPS_MAX + 10):
        doc["teams"]["A"]["name"] = f"Blue {k}"
        header_and_setup(doc)
        assert len(record_io._SETUPS) <= SETUPS_MAX


def test_too_many_events_after_a_kept_header_is_still_too_many_items() -> None:
    doc = _record()
    replay_text(dumps(doc))  # its header kept
    doc["events"] = [{"at": 0, "type": "whistle"}] * (EVENTS_MAX + 1)
    with pytest.raises(RecordError) as e:
        replay_text(dumps(doc))
    assert e.value.code == "too_many_items"


_HEADER_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 12), st.floats(-1, 20), st.text(max_size=4),
    st.sampled_from(["Blue", "A", "regulation", "six", "shootout", "west"]),
    st.lists(st.integers(0, 4), max_size=3), st.dictionaries(st.text(max_size=3),
                                                             st.integers(0, 3), max_size=2))
_HEADER_PLACES = [("teams", "A", "captain"), ("teams", "A", "name"), ("teams", "B", "captain"),
                  ("teams", "A", "players", 0, "handicap"), ("teams", "A", "players", 1, "no"),
                  ("options", "periods"), ("options", "handicap"), ("options", "tiebreak"),
                  ("options", "split_periods"), ("options", "first_defends"), ("rules",),
                  ("format",), ("teams", "B", "alternates")]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(place=st.sampled_from(_HEADER_PLACES), value=_HEADER_VALUES, seed=st.integers(0, 50))
def test_a_kept_set_up_answers_as_one_built_afresh(place: tuple[Any, ...], value: Any,
                                                   seed: int) -> None:
    doc = _record(seed)
    node: Any = doc
    for k in place[:-1]:
        node = node[k]
    node[place[-1]] = value
    text = json.dumps(doc)
    record_io._SETUPS.clear()
    fresh = _answer(replay, copy.deepcopy(doc))
    record_io._SETUPS.clear()
    assert _answer(replay_text, text) == fresh
    for _ in range(2):  # the second time from what was kept, by either path
        assert _answer(replay, copy.deepcopy(doc)) == fresh
        assert _answer(replay_text, text) == fresh


class _Name(str):
    """A ``str`` of another class: marshal refuses it, so its header is read afresh."""


@pytest.mark.parametrize("first, then", [
    ([{"no": 1}, {"no": 2}, {"no": 3}], ({"no": 1}, {"no": 2}, {"no": 3})),
    (({"no": 1}, {"no": 2}, {"no": 3}), [{"no": 1}, {"no": 2}, {"no": 3}]),
    ("Blue", _Name("Blue")), (_Name("Blue"), "Blue"), (2, 2.0), (0.0, -0.0),
    (2, float("nan")), ("Blue", lambda: "Blue"),
])
def test_a_replayed_dict_header_is_kept_by_its_marshal_each_type_its_own(
        first: Any, then: Any) -> None:
    """``replay`` of a dict keys a header read before by its ``marshal``
    (``record_setup``): values that differ only in their type (a tuple for a list, a
    ``str`` subclass, ``2.0`` for ``2``, ``-0.0``, NaN) each get the answer built afresh;
    a value marshal cannot write (a function, a ``str`` subclass) is read afresh each
    time."""
    place = ("teams", "A", "players") if isinstance(first, list | tuple) else (
        ("teams", "A", "name") if isinstance(first, str) else
        ("teams", "A", "players", 0, "handicap"))
    answers = {}
    for value in (first, then):
        doc = _record()
        node: Any = doc
        for k in place[:-1]:
            node = node[k]
        node[place[-1]] = value
        record_io._SETUPS.clear()
        answers[id(value)] = _answer(replay, copy.deepcopy(doc))
    record_io._SETUPS.clear()
    for _ in range(2):
        for value in (first, then):
            doc = _record()
            node = doc
            for k in place[:-1]:
                node = node[k]
            node[place[-1]] = value
            assert _answer(replay, doc) == answers[id(value)], value


def test_the_same_header_shared_otherwise_is_a_miss_with_the_same_answer() -> None:
    """marshal's bytes say which objects a header shares (one dict for two players, an
    interned name): the same values shared otherwise are another key, and its set-up is
    built again, never another header's taken."""
    import sys

    from chukker.record.io import record_setup

    plain = _record()
    shared = copy.deepcopy(plain)
    one = shared["teams"]["A"]["players"][1]
    shared["teams"]["A"]["players"][2] = one  # the same dict twice: a header of two no. 2s
    interned = copy.deepcopy(plain)
    interned["teams"]["A"]["name"] = sys.intern("Blue side")
    plain["teams"]["A"]["name"] = "".join(["Blue", " side"])
    record_io._SETUPS.clear()
    fresh = [_answer(replay, copy.deepcopy(d)) for d in (plain, shared, interned)]
    record_io._SETUPS.clear()
    for _ in range(2):
        assert [_answer(replay, d) for d in (plain, shared, interned)] == fresh
    assert fresh[1][0] == "RecordError"  # the shared dict is a second player no. 2
    assert record_setup(plain) is record_setup(plain)
    assert len(record_io._SETUPS) <= 3
