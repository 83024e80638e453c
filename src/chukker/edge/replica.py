"""An edge's replica: a local SQLite store fed by NATS JetStream alone.

:class:`Replica` reads the stream of the matches (:mod:`chukker.feeds.nats`) with an
ordered consumer and appends each match's header and events to a local
:class:`~chukker.store.sqlite.SQLiteStore`, in ``seq`` order: a ``seq`` already
there is skipped (a message published twice is applied once). After each batch it
keeps the stream's sequence it has applied (the table ``edge_cursor`` in the same
file), so that

* after NATS goes away it connects again and reads on from that point;
* killed (even ``kill -9``) and started again, it reads on from there (what was
  appended but not yet counted comes again and is skipped);
* started on an empty file it reads the stream from its start (a cold start).

Each append tells the process's live service through :class:`LoopNotifier` (the
store's notifications, as between the workers of one machine), which pulls the new
events and sends them to the edge's viewers. :meth:`Replica.status` says whether the
edge is *behind*: not connected, or the stream holds messages not yet applied.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import sqlite3
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

import nats.errors
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import ConsumerConfig, DeliverPolicy

from chukker.config import NatsSettings
from chukker.edge import checks
from chukker.feeds.nats import JetStreamLink, display
from chukker.store import StoredEvent, UnknownMatch
from chukker.store.base import (
    HornRow,
    StorageFull,
    StoreUnavailable,
    TournamentEvent,
    verify_match_id,
)
from chukker.store.engine import EngineError, Match, Setup
from chukker.store.sqlite import SQLiteStore

log = logging.getLogger("chukker.edge")

#: messages applied in one trip to the writer thread
BATCH = 256
#: matches kept folded by the engine (the others are folded again from the store)
FOLDED = 256
#: seconds between two questions to the stream about its last sequence
STREAM_CHECK_S = 1.0

CURSOR_SCHEMA = ("CREATE TABLE IF NOT EXISTS edge_cursor "
                 "(stream TEXT PRIMARY KEY, seq INTEGER NOT NULL)")


class LoopNotifier:
    """The store's notifier in an edge: the replica's appends (in its writer thread)
    are heard by the live service of the same process (on the event loop).

    >>> n = LoopNotifier()
    >>> n.tell("m1", 3)
    >>> asyncio.run(n.receive(0.0))  # told already: no wait
    [('m1', 3)]
    """

    def __init__(self) -> None:
        self._told: deque[tuple[str, int]] = deque(maxlen=100_000)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ready: asyncio.Event | None = None

    def tell(self, match_id: str, seq: int) -> None:
        with self._lock:
            self._told.append((match_id, seq))
        loop, ready = self._loop, self._ready
        if loop is not None and ready is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(ready.set)

    def pending(self) -> list[tuple[str, int]]:
        with self._lock:
            out = list(self._told)
            self._told.clear()
        return out

    async def receive(self, until: float) -> list[tuple[str, int]]:
        if self._ready is None or self._loop is not asyncio.get_running_loop():
            self._loop, self._ready = asyncio.get_running_loop(), asyncio.Event()
        got = self.pending()
        if got:
            return got
        self._ready.clear()
        got = self.pending()
        if got:
            return got
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout_at(until):
                await self._ready.wait()
        return self.pending()

    def close(self) -> None:
        self._loop = self._ready = None


class Replica(JetStreamLink):
    """Follows the stream of ``settings`` into ``store`` (its own SQLite file)."""

    client_name = "chukker-edge"
    request_timeout = 5.0
    log = log
    creates_stream = False

    def __init__(self, settings: NatsSettings, store: SQLiteStore) -> None:
        if not settings.url:
            raise ValueError("nats.url: not set")
        super().__init__()
        self.settings = settings
        self.store = store
        if not settings.signing_key:
            log.warning("edge: nats.signing_key is not set: messages are not checked for the "
                        "officials' signature")
        self._db = sqlite3.connect(store.path, check_same_thread=False, isolation_level=None,
                                   timeout=30.0)
        # the cursor is committed after the events it counts (one WAL: if it survives a
        # power cut, they do); it need not be synced on its own
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(CURSOR_SCHEMA)
        row = self._db.execute("SELECT seq FROM edge_cursor WHERE stream = ?",
                               (settings.stream,)).fetchone()
        #: the stream sequence applied last (0: none)
        self.cursor = int(row[0]) if row else 0
        #: the stream's last sequence when last asked
        self.stream_last: int | None = None
        #: what the edge owes: the stream's last sequence one question earlier (a message
        #: the stream has held for a second and more, not yet applied, is "behind"; one
        #: that arrived a moment ago is not)
        self._owed = 0
        self._writer = concurrent.futures.ThreadPoolExecutor(1, "chukker-edge-replica")
        self._last: dict[str, int] = {}
        self._folded: OrderedDict[str, Match] = OrderedDict()
        #: messages refused, per reason (``unsigned``, ``bad_signature``, ``too_large``,
        #: ``too_deep``, ``malformed``, ``out_of_range``, ``definitions``, ``engine``, ...)
        self.refused: dict[str, int] = {}
        #: tournament -> the last seq of its log here (None: not read yet)
        self._tlast: dict[str, int] | None = None
        self._runner: asyncio.Task[None] | None = None
        self.applied = 0
        self.skipped = 0
        #: events whose match this edge has no header for, or that skip a seq (never expected)
        self.orphans = 0
        self.gaps = 0
        #: called on the event loop when :attr:`behind` changes (with its new value)
        self.on_behind: Callable[[bool], None] | None = None
        self._was_behind = True

    # --------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        self._runner = asyncio.create_task(self._run(), name="chukker-edge-replica")

    async def stop(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        self._writer.shutdown(wait=True)
        with contextlib.suppress(sqlite3.Error):
            self._db.close()

    @property
    def behind(self) -> bool:
        """Not connected, or a message the stream has held since the last question (or
        since the connection) is not applied yet."""
        return not self.connected or self.stream_last is None or self.cursor < self._owed

    def _changed(self) -> None:
        now = self.behind
        if now != self._was_behind:
            self._was_behind = now
            log.info("edge: %s", "behind" if now else "caught up")
            if self.on_behind is not None:
                try:
                    self.on_behind(now)
                except Exception:  # the streams are told by a listener: never stop here
                    log.exception("edge: telling the streams failed")

    def status(self) -> dict[str, Any]:
        """For ``/readyz`` (nothing secret: the server's address without credentials)."""
        return {"nats": display(self.settings.url or ""), "stream": self.settings.stream,
                "connected": self.connected, "behind": self.behind, "applied": self.cursor,
                "stream_last": self.stream_last, "refused": dict(self.refused),
                "signed": bool(self.settings.signing_key), "error": self.last_error}

    # ---------------------------------------------------------------- consumer
    async def _session(self, js: JetStreamContext) -> None:
        info = await js.stream_info(self.settings.stream)
        last = int(info.state.last_seq or 0)
        if self.cursor > last:  # a new stream under the old name: read it all
            log.warning("edge: stream %s ends at %d, before this edge's %d: "
                        "reading it from its start", self.settings.stream, last, self.cursor)
            self.cursor = 0
        self.stream_last = self._owed = last
        self.connected = True
        log.info("edge: following %s from stream sequence %d (stream at %d)",
                 display(self.settings.url or ""), self.cursor + 1, last)
        self._changed()
        await self._follow(js)

    def _down(self) -> None:
        self._changed()

    async def _follow(self, js: JetStreamContext) -> None:
        s = self.settings
        config = ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
        if self.cursor > 0:
            config = ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE,
                                    opt_start_seq=self.cursor + 1)
        sub = await js.subscribe(f"{s.prefix}.>", stream=s.stream, ordered_consumer=True,
                                 config=config, idle_heartbeat=2.0)
        checked = time.monotonic()
        loop = asyncio.get_running_loop()
        try:
            while True:
                if self._lost.is_set():
                    raise ConnectionError("connection lost")
                if time.monotonic() - checked > STREAM_CHECK_S:
                    checked = time.monotonic()
                    info = await js.stream_info(s.stream)
                    self._owed = self.stream_last or 0
                    self.stream_last = int(info.state.last_seq or 0)
                    self._changed()
                try:
                    first = await sub.next_msg(timeout=0.5)
                except nats.errors.TimeoutError:
                    continue
                batch = [first]
                while sub.pending_msgs > 0 and len(batch) < BATCH:
                    batch.append(await sub.next_msg(timeout=1.0))
                await loop.run_in_executor(self._writer, self._apply, batch)
                top = batch[-1].metadata.sequence.stream
                if self.stream_last is None or top > self.stream_last:
                    self.stream_last = top
                self._changed()
        finally:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()

    # ------------------------------------------------------------------ writer
    def _last_seq(self, match_id: str) -> int:
        """The last seq this edge has of ``match_id`` (-1: not even its header)."""
        last = self._last.get(match_id)
        if last is None:
            try:
                self.store.get_match(match_id)
            except UnknownMatch:
                return -1
            events = self.store.events(match_id)
            last = self._last[match_id] = events[-1].seq if events else 0
        return last

    def _engine(self, match_id: str) -> Match:
        """The match folded by the engine, as this edge has it (kept for the busiest)."""
        m = self._folded.get(match_id)
        if m is None:
            row = self.store.get_match(match_id)
            m = Match(Setup.from_dict(row.header), [e.event for e in self.store.events(match_id)])
            self._folded[match_id] = m
            while len(self._folded) > FOLDED:
                self._folded.popitem(last=False)
        self._folded.move_to_end(match_id)
        return m

    def _apply(self, batch: list[Msg]) -> None:
        """Append what is new in ``batch`` (in the writer thread), then keep the cursor.
        A message refused is counted, logged once and passed; only the store's own
        trouble (disk full, locked) stops the batch, to be read again."""
        for msg in batch:
            try:
                self._apply_one(checks.message(self.settings, msg.subject, msg.headers,
                                               msg.data or b""))
            except (StoreUnavailable, StorageFull, sqlite3.OperationalError):
                raise
            except checks.Refused as e:
                self._refuse(e.reason, msg, e)
            except Exception as e:  # noqa: BLE001 - whatever else it makes us do: its fault
                self._refuse("malformed", msg, e)
        self.cursor = max(self.cursor, batch[-1].metadata.sequence.stream)
        self._db.execute("INSERT INTO edge_cursor (stream, seq) VALUES (?, ?) "
                         "ON CONFLICT (stream) DO UPDATE SET seq = excluded.seq",
                         (self.settings.stream, self.cursor))

    def _refuse(self, reason: str, msg: Msg, e: Exception) -> None:
        n = self.refused[reason] = self.refused.get(reason, 0) + 1
        self.skipped += 1
        if n == 1 or n % 1000 == 0:  # said once (and then once per thousand like it)
            log.warning("edge: message %d on %s refused (%s, %d so far): %s",
                        msg.metadata.sequence.stream, msg.subject[:120], reason, n,
                        str(e)[:200])

    def _apply_one(self, m: dict[str, Any]) -> None:
        kind = m["kind"]
        if kind == "tournament":
            self._apply_tournament(m)
            return
        if kind == "archive":
            self._apply_archive(m)
            return
        match_id = str(m["match_id"])
        verify_match_id(match_id, "nats message")
        last = self._last_seq(match_id)
        if kind == "horn":
            at_ms, period, horn_kind, sounded_ms = checks.horn(m)
            if last < 0:
                raise checks.Refused("orphan", f"a horn of match {match_id} before its header")
            # the audit keeps each horn once (INSERT OR IGNORE): a copy changes nothing
            self.store.record_horn(match_id, HornRow(at_ms, period, horn_kind, sounded_ms))
            return
        if kind == "header":
            if last < 0:
                header, created_ms = checks.header(m)
                try:
                    Setup.from_dict(header)
                except Exception as e:  # noqa: BLE001 - any refusal of the set-up is the message's
                    raise checks.Refused("engine", str(e)[:200]) from None
                # the secrets stay with the officials: no token matches these
                self.store.create_match(match_id, header, created_ms, "-", "-")
                self._last[match_id] = 0
            return
        seq = int(m["seq"])
        if last < 0:
            self.orphans += 1
            raise checks.Refused("orphan", f"event {seq} of match {match_id} before its header")
        if seq <= last:
            return  # had it already (published twice, or read again after a restart)
        if seq != last + 1:
            self.gaps += 1
            raise checks.Refused("gap", f"match {match_id}: event {seq} after {last}")
        event, command_id, recorded_ms, actor, start = checks.event(m)
        match = self._engine(match_id)
        try:
            match.apply(event)
        except EngineError as e:  # the engine refuses it: never stored, nothing frozen
            raise checks.Refused("engine", str(e)[:200]) from None
        except Exception as e:  # noqa: BLE001 - engine bug: fold again next time
            self._folded.pop(match_id, None)
            raise checks.Refused("engine", f"{type(e).__name__}: {str(e)[:200]}") from None
        try:
            self.store.append(match_id, StoredEvent(seq, command_id, event, recorded_ms, actor),
                              start if start is not None else recorded_ms)
        except BaseException:
            self._folded.pop(match_id, None)
            raise
        self._last[match_id] = seq
        self.applied += 1

    def _apply_tournament(self, m: dict[str, Any]) -> None:
        """One event of a tournament's log, in ``seq`` order; the store tells the
        process's tournament service (``t.<id>``), which folds it."""
        tid = str(m["tournament_id"])
        kind, body, recorded_ms = checks.tournament(m)
        if self._tlast is None:
            self._tlast = dict(self.store.tournaments())
        last = self._tlast.get(tid, 0)
        seq = int(m["seq"])
        if seq <= last:
            return
        if seq != last + 1:
            self.gaps += 1
            raise checks.Refused("gap", f"tournament {tid}: event {seq} after {last}")
        self.store.import_tournaments([(tid, [TournamentEvent(seq, kind, body, recorded_ms)])])
        self._tlast[tid] = seq
        self.applied += 1

    def _apply_archive(self, m: dict[str, Any]) -> None:
        """Every archived match: file away those named, bring back the others."""
        ids, at_ms = checks.archive(m)
        want = {x for x in ids if self._last_seq(x) >= 0}  # a match this edge has
        have = self.store.archived()
        for match_id in sorted(want - have):
            self.store.set_archived(match_id, True, at_ms)
        for match_id in sorted(have - want):
            self.store.set_archived(match_id, False, at_ms)
