"""The cyclic garbage collector waits while a record is replayed (issue 46), and is back
as it was after, whatever the replay ends with.

The fold's objects live until the report is made and then go by their reference counts:
the collector, run in the middle, only walks them again (``docs/engine.md``, *The
collector waits for a replay*). The reports are the same with it on or off: the corpus
tests (``tests/engine``) and the ones below compare them.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Iterator
from typing import Any

import pytest

from chukker.engine import EngineError
from chukker.engine import replay as engine_replay
from chukker.engine.simulate import default_setup, simulate
from chukker.record import RecordError, dumps, record_setup, replay, replay_text


def _record(seed: int, events: int) -> dict[str, Any]:
    setup = default_setup()
    doc = setup.to_dict()
    doc["events"] = simulate(setup, random.Random(seed), events)
    return doc


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """Every collection that starts, by generation, with a threshold that collects at
    once: without the wait, a replay of 300 events would start hundreds."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    old = gc.get_threshold()
    gc.set_threshold(1, 1, 1)
    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)
        gc.set_threshold(*old)
        gc.enable()


def test_no_collection_runs_inside_a_replay_and_the_collector_is_back_after(
        collections: list[int]) -> None:
    doc = _record(3, 300)
    text = dumps(doc)
    setup = record_setup(doc)
    for run in (lambda: replay(doc), lambda: replay(doc, strict=False),
                lambda: replay_text(text), lambda: engine_replay(setup, doc["events"])):
        assert gc.isenabled()
        collections.clear()
        run()
        assert collections == [], "the collector ran during the replay"
        assert gc.isenabled()
        [object() for _ in range(3)]  # and it runs again at once
        gc.collect(0)
        assert collections


def test_a_collector_turned_off_by_the_caller_stays_off(collections: list[int]) -> None:
    gc.disable()
    replay(_record(4, 50))
    replay_text(dumps(_record(5, 50)))
    assert not gc.isenabled()


def test_a_refused_record_leaves_the_collector_on() -> None:
    doc = _record(6, 40)
    doc["events"].append({"at": 1, "type": "goal", "team": "Z"})  # time runs back, no team
    with pytest.raises((RecordError, EngineError)):
        replay(doc)
    with pytest.raises((RecordError, EngineError)):
        replay_text(dumps(doc))
    doc["teams"] = "none"
    with pytest.raises(RecordError):
        replay(doc)
    assert gc.isenabled()
