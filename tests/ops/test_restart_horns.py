"""A restart loads every unfinished match, however many finished or newer ones there are
(issue 40): the horn keeper pages through every started match (the store's ``before``
cursor) and schedules the horns still to come; finished matches, and those whose clock
is stopped, are not kept in memory. On the service itself, with a virtual clock."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chukker.live import Clock, LiveService, hash_token
from chukker.store import StoredEvent, open_store
from chukker.web.demo import DEMO_HEADER, seed_finished_match

WALL0 = 1_800_000_000_000


class VirtualClock(Clock):
    """The server's clock, moved by the test (as in tests/live/test_service.py)."""

    def __init__(self) -> None:
        super().__init__()
        self.now = WALL0

    def now_ms(self) -> int:
        return self.now

    def loop_time(self, wall_ms: int) -> float:
        return asyncio.get_running_loop().time() + (wall_ms - self.now) / 1000


class Horns:
    def __init__(self) -> None:
        self.heard: list[tuple[str, dict[str, Any]]] = []

    def on_state(self, match_id: str, seq: int, report: Mapping[str, Any]) -> None:
        pass

    def on_event(self, match_id: str, seq: int, event: Mapping[str, Any]) -> None:
        pass

    def on_horn(self, match_id: str, horn: Mapping[str, Any]) -> None:
        self.heard.append((match_id, dict(horn)))


def _started(store: Any, match_id: str, created_ms: int, start_ms: int,
             *events: dict[str, Any]) -> None:
    header = copy.deepcopy(DEMO_HEADER)
    store.create_match(match_id, header, created_ms, hash_token("t"), hash_token("c"))
    for seq, ev in enumerate(events, 1):
        store.append(match_id, StoredEvent(seq, f"c{seq}", ev, start_ms, "timekeeper"), start_ms)


def test_restart_schedules_the_horn_of_the_oldest_running_match_behind_1001_newer(
        tmp_path: Path) -> None:
    db = tmp_path / "many.sqlite3"
    store = open_store(db)
    start = WALL0 - 60_000  # in play for a minute: the end of the chukker still to come
    _started(store, "running", WALL0 - 3_600_000, start, {"type": "bowl_in", "at": 0.0})
    # newer ones: a match whose clock is stopped, finished ones, and not started ones
    _started(store, "stopped", WALL0 - 3_000_000, start, {"type": "bowl_in", "at": 0.0},
             {"type": "whistle", "at": 10.0})
    finished = [seed_finished_match(store, WALL0 - 600_000, seed=k) for k in range(3)]
    for k in range(1001):
        store.create_match(f"new{k:04d}", copy.deepcopy(DEMO_HEADER), WALL0 - 1_000_000 + k,
                           hash_token("t"), hash_token("c"))
    store.close()
    assert len(open_store(db).list_matches(1000)) == 1000  # the old start's whole view

    async def restart() -> tuple[list[str], dict[str, bool], list[tuple[str, Any]]]:
        clock = VirtualClock()
        svc = LiveService(open_store(db), clock=clock)
        horns = Horns()
        svc.add_listener(horns)
        await svc.start()
        try:
            loaded = [lm.id for lm in svc.loaded_matches()]
            timers = {lm.id: lm.timer is not None for lm in svc.loaded_matches()}
            clock.now += 8 * 60_000  # past the end of the first chukker
            svc.retime()
            for _ in range(200):
                await asyncio.sleep(0.01)
                if horns.heard:
                    break
            return loaded, timers, horns.heard
        finally:
            await svc.stop()
            svc.store.close()

    loaded, timers, heard = asyncio.run(restart())
    assert loaded == ["running"] and timers == {"running": True}
    assert not set(finished) & set(loaded) and "stopped" not in loaded
    assert heard and {m for m, _ in heard} == {"running"}
    assert heard[-1][1]["kind"] == "end" and heard[-1][1]["period"] == 1, heard


def test_restart_of_a_public_worker_reads_the_newest_page_only(tmp_path: Path) -> None:
    """A process that does not keep the horns loads a match when it is viewed: at start
    it reads the newest matches only (no full scan per public worker)."""
    db = tmp_path / "w.sqlite3"
    store = open_store(db)
    _started(store, "running", WALL0 - 3_600_000, WALL0 - 60_000,
             {"type": "bowl_in", "at": 0.0})
    for k in range(501):  # a page is 500
        store.create_match(f"new{k:04d}", copy.deepcopy(DEMO_HEADER), WALL0 - 1_000_000 + k,
                           hash_token("t"), hash_token("c"))
    store.close()

    async def restart(keeps: bool) -> list[str]:
        svc = LiveService(open_store(db), clock=VirtualClock(), keeps_horns=keeps)
        await svc.start()
        try:
            return [lm.id for lm in svc.loaded_matches()]
        finally:
            await svc.stop()
            svc.store.close()

    assert asyncio.run(restart(False)) == []
    assert asyncio.run(restart(True)) == ["running"]
