"""Issue 43: a lean public fan-out.

A worker that hears another's append takes the event its datagram carried, without
reading the store again; anything not carried is read as before. A message is framed
once and written to every viewer as the same bytes; the officials' process, whose crowd
is elsewhere, frames nothing; an idle viewer written to directly holds no queue and no
task of its own.
"""

from __future__ import annotations

import asyncio
import copy
import os
from pathlib import Path
from typing import Any

import pytest
from tests.store_reads import count_reads

from chukker.live import LiveService, Role, fanout
from chukker.store import StoredEvent, open_store
from chukker.store.notify import MAX_CARRIED, LocalNotifier, datagram
from chukker.web.demo import DEMO_HEADER as HEADER


def _folder(tmp_path: Path) -> str:
    d = tmp_path / "run"
    d.mkdir(mode=0o700)
    os.chmod(d, 0o700)
    return str(d)


def test_an_append_told_to_another_worker_carries_the_event_it_stored(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    a, b = LocalNotifier(folder, 0, 2), LocalNotifier(folder, 1, 2)
    try:
        e = StoredEvent(3, "c3", {"type": "goal", "team": "A", "player": 2, "at": 1.5}, 7,
                        "timekeeper")
        a.tell_event("m1", e)
        assert b.pending() == [("m1", 3)]
        assert b.take("m1", 2, 3) == [e]
        assert b.take("m1", 2, 3) is None  # taken once
    finally:
        a.close()
        b.close()


def test_a_datagram_without_the_event_or_with_a_malformed_one_makes_the_worker_read_the_store(
        tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    a, b = LocalNotifier(folder, 0, 2), LocalNotifier(folder, 1, 2)
    try:
        a.tell("m1", 4)
        a._send(b'm1 5\n["c5","[1,2]",7,"timekeeper"]')  # a body that is not an event
        a._send(b'm1 6\n{"not": "a list"}')
        big = StoredEvent(7, "c7", {"type": "note", "text": "x" * (MAX_CARRIED + 10)}, 7, "tk")
        assert b"\n" not in datagram("m1", 7, big)  # too big to carry: told by its seq
        a.tell_event("m1", big)
        assert b.pending() == [("m1", 4), ("m1", 5), ("m1", 6), ("m1", 7)]
        for q in (4, 5, 6, 7):
            assert b.take("m1", q - 1, q) is None
    finally:
        a.close()
        b.close()


def test_a_worker_applies_an_event_its_datagram_carried_without_reading_the_store(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _folder(tmp_path)
    db = tmp_path / "shared.sqlite3"
    officials, public = open_store(db), open_store(db)
    officials.attach(LocalNotifier(folder, 0, 2))  # type: ignore[attr-defined]
    public.attach(LocalNotifier(folder, 1, 2))  # type: ignore[attr-defined]

    async def body() -> None:
        writer, reader = LiveService(officials), LiveService(public)
        created = await writer.create_match(copy.deepcopy(HEADER))
        lm = await writer.load(created.match_id)
        await writer.submit(lm, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
        seen = await reader.load(created.match_id)
        assert seen.seq == 1
        public.notifier.pending()  # type: ignore[attr-defined]  # told before it loaded
        sub, _ = reader.subscribe(seen, None)
        await writer.submit(lm, Role.TIMEKEEPER, "c2", {"type": "goal", "team": "A",
                                                          "player": 2})
        await writer.submit(lm, Role.TIMEKEEPER, "c3", {"type": "whistle"})
        reads = count_reads(monkeypatch, public)
        told = public.notifier.pending()  # type: ignore[attr-defined]
        assert told == [(lm.id, 2), (lm.id, 3)]
        async with seen.lock:
            for _, seq in told:
                await reader._sync(seen, told=seq)
        assert reads == []  # nothing read again
        assert seen.seq == 3 and [e.event for e in seen.stored] == [e.event for e in lm.stored]
        assert reader.report(seen, 0) == writer.report(lm, 0)
        sent = b"".join(sub.queued())
        assert b"event: event" in sent and b'"type":"goal"' in sent
        # a datagram lost: the gap is read from the store
        await writer.submit(lm, Role.TIMEKEEPER, "c4", {"type": "bowl_in"})
        public.notifier.pending()  # type: ignore[attr-defined]
        public.notifier.kept.clear()  # type: ignore[attr-defined]
        async with seen.lock:
            await reader._sync(seen, told=4)
        assert len(reads) == 1 and seen.seq == 4

    try:
        asyncio.run(body())
    finally:
        for s in (officials, public):
            s.notifier.close()  # type: ignore[attr-defined]
            s.close()


def test_the_officials_process_reports_and_frames_nothing_when_no_stream_of_its_own_would_get_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    framed: list[str] = []
    real = fanout.merge_diff

    def counted(old: Any, new: Any) -> Any:
        framed.append("patch")
        return real(old, new)

    async def body() -> None:
        svc = LiveService(open_store(tmp_path / "o.sqlite3"))
        created = await svc.create_match(copy.deepcopy(HEADER))
        lm = await svc.load(created.match_id)
        monkeypatch.setattr("chukker.live.service.merge_diff", counted)
        await svc.submit(lm, Role.TIMEKEEPER, "c1", {"type": "bowl_in"})
        await svc.submit(lm, Role.TIMEKEEPER, "c2", {"type": "goal", "team": "A", "player": 1})
        assert framed == [] and lm.last_report is None  # no report made either
        sub, first = svc.subscribe(lm, None)  # a stream opening now gets one made now
        assert '"seq":2' in first[-1] and lm.last_report is not None
        await svc.submit(lm, Role.TIMEKEEPER, "c3", {"type": "whistle"})
        assert framed == ["patch"]
        got = b"".join(sub.queued())
        assert b"event: patch" in got

    asyncio.run(body())


def test_an_idle_viewer_holds_no_queue_until_a_message_must_wait_in_it() -> None:
    async def body() -> None:
        sub = fanout.Subscriber()
        assert sub._queue is None and sub.queued() == []
        sub.end()
        assert sub.dropped and sub.queue.get_nowait() == b""

    asyncio.run(body())


def test_the_benchmark_splits_the_cpu_into_a_goals_part_and_a_viewers_part(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``benchmarks/live.py --baseline`` prints what a goal costs whatever the crowd and
    what one more viewer costs, from the line through two crowd sizes (its doctest is
    run here, with the module loaded as the benchmark runs it)."""
    import doctest
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    monkeypatch.syspath_prepend(str(root / "benchmarks"))  # as a script run from there
    spec = importlib.util.spec_from_file_location("live_bench", root / "benchmarks" / "live.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.cpu_split([0.0125, 0.0267], (1000, 3000)) == (5400.0, 7.1)
    found = doctest.DocTestFinder().find(bench.cpu_split, "cpu_split", globs=vars(bench))
    assert doctest.DocTestRunner().run(found[0]).failed == 0
