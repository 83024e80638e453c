"""The live service on its own: a virtual clock, a SQLite store, no HTTP.

What the timekeeper's key presses do to the match, what a listener (an arena
feed, a horn relay) hears, and what happens to a viewer that stops reading.
"""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from chukker.live import EventRefused, Listener, LiveService, Role, ServiceError, fanout
from chukker.store import open_store

HEADER: dict[str, Any] = {
    "format": "chukker-match/1",
    "rules": "uspa-arena-2026",
    "options": {"periods": "regulation", "warning_horn": True},
    "teams": {
        "A": {"name": "Blue", "captain": 2, "players": [
            {"no": 1, "name": "Ann", "handicap": 2}, {"no": 2, "name": "Bea", "handicap": 3},
            {"no": 3, "name": "Cat", "handicap": 1}]},
        "B": {"name": "White", "captain": 1, "players": [
            {"no": 1, "name": "Dan", "handicap": 4}, {"no": 2, "name": "Eve", "handicap": 2},
            {"no": 3, "name": "Fay", "handicap": 2}]},
    },
}

WALL0 = 1_800_000_000_000


class VirtualClock:
    """The server's clock, moved by the test: ``loop_time`` maps a wall instant onto the
    running loop so that an instant already passed falls due at once."""

    def __init__(self) -> None:
        self.now = WALL0

    def now_ms(self) -> int:
        return self.now

    def loop_time(self, wall_ms: int) -> float:
        return asyncio.get_running_loop().time() + (wall_ms - self.now) / 1000

    def advance(self, seconds: float) -> None:
        self.now += round(seconds * 1000)


class Heard:
    """A listener that writes down what it hears."""

    def __init__(self) -> None:
        self.states: list[tuple[str, int, dict[str, Any]]] = []
        self.events: list[tuple[str, int, dict[str, Any]]] = []
        self.horns: list[tuple[str, dict[str, Any]]] = []

    def on_state(self, match_id: str, seq: int, report: Mapping[str, Any]) -> None:
        self.states.append((match_id, seq, dict(report)))

    def on_event(self, match_id: str, seq: int, event: Mapping[str, Any]) -> None:
        self.events.append((match_id, seq, dict(event)))

    def on_horn(self, match_id: str, horn: Mapping[str, Any]) -> None:
        self.horns.append((match_id, dict(horn)))


class Broken(Heard):
    def on_state(self, match_id: str, seq: int, report: Mapping[str, Any]) -> None:
        raise RuntimeError("the relay's serial port is gone")


def run(tmp_path: Path, body: Any) -> Any:
    """Run ``body(svc, clock)`` on a fresh service over a SQLite file."""

    async def main() -> Any:
        clock = VirtualClock()
        svc = LiveService(open_store(tmp_path / "live.sqlite3"), clock=clock)  # type: ignore[arg-type]
        await svc.start()
        try:
            return await body(svc, clock)
        finally:
            await svc.stop()

    return asyncio.run(main())


async def _turns(n: int = 5) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


def test_listener_hears_each_key_press_as_stored_and_the_state_after_it(tmp_path: Path) -> None:
    heard = Heard()
    listener: Listener = heard

    async def body(svc: LiveService, clock: VirtualClock) -> None:
        svc.add_listener(listener)
        created = await svc.create_match(copy.deepcopy(HEADER))
        lm = await svc.load(created.match_id)
        await svc.submit(lm, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
        clock.advance(12.5)
        acc = await svc.submit(lm, Role.TIMEKEEPER, "c2",
                               {"type": "goal", "team": "A", "player": 2})
        assert acc.event["at"] == 12.5  # stamped by the (virtual) server clock
        await svc.submit(lm, Role.TIMEKEEPER, "c2",
                         {"type": "goal", "team": "A", "player": 2})  # a retry: nothing new

    run(tmp_path, body)
    assert [(seq, e["type"]) for _, seq, e in heard.events] == [(1, "bowl_in"), (2, "goal")]
    assert heard.events[1][2]["at"] == 12.5
    assert [seq for _, seq, _ in heard.states] == [1, 2]
    last = heard.states[-1][2]
    assert last["seq"] == 2 and last["at"] == 12.5
    assert last["server_time"] == WALL0 + 12_500


class Following(Heard):
    """A listener of some matches only (as the tournaments' is of their live matches)."""

    def __init__(self, *matches: str) -> None:
        super().__init__()
        self.matches = set(matches)

    def follows(self, match_id: str) -> bool:
        return match_id in self.matches


def test_listener_that_does_not_follow_a_match_costs_its_key_presses_no_report(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no stream, no publisher and no listener following the match (the officials'
    process, a match in no tournament), no report is made before a key press is
    answered; the listener still hears the event. Once it follows the match, it hears
    the state after each event again; a listener without ``follows`` follows them all."""
    reports: list[str] = []
    made = LiveService.report

    def counted(self: LiveService, lm: Any, at_ms: int | None = None) -> dict[str, Any]:
        reports.append(lm.id)
        return made(self, lm, at_ms)

    monkeypatch.setattr(LiveService, "report", counted)
    some = Following()

    async def body(svc: LiveService, clock: VirtualClock) -> tuple[int, int]:
        svc.add_listener(some)
        created = await svc.create_match(copy.deepcopy(HEADER))
        lm = await svc.load(created.match_id)
        await svc.submit(lm, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
        none_made = len(reports)
        some.matches.add(lm.id)  # the match becomes a tournament's live match
        await svc.submit(lm, Role.TIMEKEEPER, "c2", {"type": "whistle"})
        svc.remove_listener(some)
        every = Heard()  # no ``follows``: every match
        svc.add_listener(every)
        await svc.submit(lm, Role.TIMEKEEPER, "c3", {"type": "bowl_in"})
        assert [seq for _, seq, _ in every.states] == [3]
        return none_made, len(reports)

    none_made, after = run(tmp_path, body)
    assert none_made == 0
    assert [seq for _, seq, _ in some.events] == [1, 2]
    assert [seq for _, seq, _ in some.states] == [2]
    assert after == 2


def test_listener_hears_the_horn_its_server_sounds(tmp_path: Path) -> None:
    heard = Heard()

    async def body(svc: LiveService, clock: VirtualClock) -> str:
        created = await svc.create_match(copy.deepcopy(HEADER))
        lm = await svc.load(created.match_id)
        await svc.submit(lm, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
        svc.add_listener(heard)
        clock.advance(8 * 60)  # past the end of the first chukker (and its warning horn)
        svc.retime()
        for _ in range(20):
            await _turns()
            if len(heard.horns) >= 2:
                break
        return created.match_id

    match_id = run(tmp_path, body)
    assert heard.horns, "no horn heard"
    kinds = [h["kind"] for _, h in heard.horns]
    assert all(m == match_id for m, _ in heard.horns)
    assert all(set(h) == {"kind", "period", "at"} for _, h in heard.horns)
    assert all(WALL0 < h["at"] <= WALL0 + 8 * 60_000 for _, h in heard.horns)
    assert heard.horns[-1][1]["period"] == 1, kinds
    assert heard.states and heard.states[-1][1] == 1  # the horn changed the state: seq unchanged


def test_listener_that_raises_is_logged_and_the_others_still_hear(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    broken, heard = Broken(), Heard()

    async def body(svc: LiveService, clock: VirtualClock) -> None:
        svc.add_listener(broken)
        svc.add_listener(heard)
        created = await svc.create_match(copy.deepcopy(HEADER))
        lm = await svc.load(created.match_id)
        await svc.submit(lm, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})

    with caplog.at_level(logging.ERROR, logger="chukker.live"):
        run(tmp_path, body)
    assert [seq for _, seq, _ in heard.states] == [1]
    assert any("on_state" in r.getMessage() for r in caplog.records)


def test_removed_listener_hears_nothing_more(tmp_path: Path) -> None:
    heard = Heard()

    async def body(svc: LiveService, clock: VirtualClock) -> None:
        svc.add_listener(heard)
        svc.add_listener(heard)  # once only
        created = await svc.create_match(copy.deepcopy(HEADER))
        lm = await svc.load(created.match_id)
        await svc.submit(lm, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
        svc.remove_listener(heard)
        svc.remove_listener(heard)  # no error
        await svc.submit(lm, Role.TIMEKEEPER, "c2", {"type": "whistle"})

    run(tmp_path, body)
    assert [seq for _, seq, _ in heard.events] == [1]


def test_refused_key_press_is_not_heard_and_not_stored(tmp_path: Path) -> None:
    heard = Heard()

    async def body(svc: LiveService, clock: VirtualClock) -> int:
        svc.add_listener(heard)
        created = await svc.create_match(copy.deepcopy(HEADER))
        lm = await svc.load(created.match_id)
        with pytest.raises(ServiceError) as err:
            await svc.submit(lm, Role.TIMEKEEPER, "c1", {"type": "free_hit"})
        assert isinstance(err.value, EventRefused)  # the web answers it 409
        return lm.seq

    assert run(tmp_path, body) == 0
    assert heard.events == [] and heard.states == []


def test_viewer_that_stops_reading_gives_its_slot_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fanout, "QUEUE_LIMIT", 4)
    gone: list[bool] = []

    async def body(svc: LiveService, clock: VirtualClock) -> tuple[bool, bool, int]:
        created = await svc.create_match(copy.deepcopy(HEADER))
        lm = await svc.load(created.match_id)
        stalled, backlog = svc.subscribe(lm, None)
        stalled.on_drop = lambda: gone.append(True)
        reader, _ = svc.subscribe(lm, None)
        assert backlog[0].startswith("id: 0\nevent: state\n")
        got = 0
        await svc.submit(lm, Role.TIMEKEEPER, "c0", {"type": "bowl_in"})
        for i in range(8):
            clock.advance(1)
            await svc.submit(lm, Role.TIMEKEEPER, f"c{i + 1}", {"type": "whistle"})
            await svc.submit(lm, Role.TIMEKEEPER, f"r{i + 1}", {"type": "bowl_in"})
            await _turns()
            while not reader.queue.empty():
                reader.queue.get_nowait()
                got += 1
        return stalled.dropped, reader.dropped, got

    dropped, reader_dropped, got = run(tmp_path, body)
    assert dropped and gone == [True]
    assert not reader_dropped and got == 17


def test_a_reconnecting_crowd_gets_one_state_encoded_once_until_it_changes(
        tmp_path: Path) -> None:
    """Streams that open between two changes get the same ``state`` message, encoded
    once (a thousand phones reconnecting cost one encoding); after a key press the next
    stream gets the new state."""

    async def body(svc: LiveService, clock: VirtualClock) -> None:
        created = await svc.create_match(copy.deepcopy(HEADER))
        lm = await svc.load(created.match_id)
        await svc.submit(lm, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
        first = [svc.subscribe(lm, None)[1][-1] for _ in range(3)]
        assert first[0] is first[1] is first[2]
        assert '"seq":1' in first[0]
        await svc.submit(lm, Role.TIMEKEEPER, "c2", {"type": "goal", "team": "A", "player": 2})
        after = svc.subscribe(lm, None)[1][-1]
        assert after is not first[0] and '"seq":2' in after and '"goal"' in after

    run(tmp_path, body)


def test_a_match_loaded_while_another_process_appends_its_first_event_has_its_start(
        tmp_path: Path) -> None:
    """A public worker or an edge that loads a match between the header and its first
    event (read the header, then the events) still knows when the record started: its
    report is as of now, not as of 0 s (the goals are counted)."""

    async def body(svc: LiveService, clock: VirtualClock) -> None:
        created = await svc.create_match(copy.deepcopy(HEADER))
        other = open_store(tmp_path / "live.sqlite3")  # the officials' process
        reads = svc.store.events

        def events_after_the_officials_wrote(match_id: str, after: int = 0) -> Any:
            from chukker.store import StoredEvent

            if not other.events(match_id):
                other.append(match_id, StoredEvent(1, "c1", {"type": "bowl_in", "at": 0.0},
                                                   WALL0, "timekeeper"), WALL0)
                other.append(match_id, StoredEvent(
                    2, "c2", {"type": "goal", "team": "A", "player": 2, "at": 12.5},
                    WALL0 + 12_500, "timekeeper"), WALL0)
            return reads(match_id, after)

        svc._matches.clear()
        svc.store.events = events_after_the_officials_wrote  # type: ignore[method-assign]
        clock.advance(20)
        lm = await svc.load(created.match_id)
        rep = svc.report(lm)
        assert lm.start_ms == WALL0 and rep["seq"] == 2 and rep["at"] == 20.0
        assert rep["score"]["A"] > svc.report(lm, 0)["score"]["A"]

    run(tmp_path, body)
