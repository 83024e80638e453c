"""The live service: engine replay on the event store, the server's clock, horns and fan-out.

One :class:`LiveService` per process. For each match it keeps the engine's
:class:`Match` rebuilt from the store, the list of stored events, and the
clients subscribed to its stream. It is the only place that reads a clock:

* an event is stamped ``at = now - start`` (ms precision, never decreasing),
  where ``start`` is the wall-clock instant of the match's first event and
  ``now`` comes from a monotonic clock anchored to the wall clock once;
* the horn scheduler sleeps (``loop.call_at`` on the monotonic clock) until the
  engine's next deadline, then publishes the horn and the new state, and
  keeps the horn in the store's audit table.

Everything touching a :class:`Match` runs on the event loop's thread; store
calls run in worker threads, one append per match at a time (an
``asyncio.Lock`` per match). On PostgreSQL several processes append to one
match: each append names the sequence number it expects, a loser re-reads
the store and tries again, and NOTIFY tells every process to pull and
publish the events it has not seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from chukker.store import (
    Backend,
    CommandExists,
    EventStore,
    HornRow,
    MatchRow,
    SeqTaken,
    StoredEvent,
)
from chukker.store._engine import EngineError, Match, Setup

log = logging.getLogger("chukker.live")

#: messages a slow client may have queued before it is dropped (it reconnects
#: with Last-Event-ID and gets what it missed)
QUEUE_LIMIT = 512
#: subscribers served per event-loop iteration when a message fans out
FANOUT_SLICE = 64


class Role(StrEnum):
    TIMEKEEPER = "timekeeper"
    COMMITTEE = "committee"


class ServiceError(ValueError):
    """A refused request: ``status`` is the HTTP status, ``code`` a stable identifier."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra
        super().__init__(message)

    def body(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.extra}


def hash_token(token: str) -> str:
    """>>> hash_token("abc")[:12]
    'ba7816bf8f01'
    """
    return hashlib.sha256(token.encode()).hexdigest()


def new_match_id() -> str:
    return secrets.token_hex(5)


class Clock:
    """Wall-clock milliseconds read from the monotonic clock, anchored once.

    Manual changes of the system clock after start do not move it.
    """

    def __init__(self) -> None:
        self._wall0 = time.time_ns() // 1_000_000
        self._mono0 = time.monotonic_ns()

    def now_ms(self) -> int:
        return self._wall0 + (time.monotonic_ns() - self._mono0) // 1_000_000

    def loop_time(self, wall_ms: int) -> float:
        """The ``loop.time()`` (``time.monotonic``) instant of a wall-clock instant."""
        return (self._mono0 + (wall_ms - self._wall0) * 1_000_000) / 1e9


@dataclass(frozen=True, slots=True)
class Created:
    match_id: str
    timekeeper_token: str
    committee_token: str


@dataclass(frozen=True, slots=True)
class Accepted:
    seq: int
    event: dict[str, Any]
    recorded_ms: int
    duplicate: bool


@dataclass(eq=False)
class Subscriber:
    queue: asyncio.Queue[bytes] = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))
    dropped: bool = False


@dataclass(eq=False)
class LiveMatch:
    row: MatchRow
    match: Match
    stored: list[StoredEvent]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    subscribers: set[Subscriber] = field(default_factory=set)
    timer: asyncio.TimerHandle | None = None
    #: record ms up to which deadlines have been handled (horns sounded)
    horn_cursor_ms: int = 0
    #: a deadline came while an append was in flight; handled after it
    deadline_pending: bool = False
    #: messages being handed to the subscribers, oldest first, with who gets them
    outbox: deque[tuple[bytes, list[Subscriber]]] = field(default_factory=deque)
    #: (seq, computed at, valid until, message) of the last state message
    state_cache: tuple[int, int, int, str] | None = None

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def seq(self) -> int:
        return len(self.stored)

    @property
    def start_ms(self) -> int | None:
        return self.row.start_ms

    def last_at_ms(self) -> int:
        return round(float(self.stored[-1].event["at"]) * 1000) if self.stored else 0


def sse(kind: str, data: dict[str, Any], seq: int | None) -> str:
    """One Server-Sent Events message.

    >>> sse("state", {"seq": 2}, 2)
    'id: 2\\nevent: state\\ndata: {"seq":2}\\n\\n'
    """
    head = f"id: {seq}\n" if seq is not None else ""
    return f"{head}event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


class LiveService:
    """Matches, events, the clock and the subscribers of one server process."""

    def __init__(self, store: EventStore, clock: Clock | None = None) -> None:
        self.store = store
        self.clock = clock or Clock()
        self._matches: dict[str, LiveMatch] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._listener: asyncio.Task[None] | None = None
        #: (deadline wall ms, published wall ms) of recent horns, for the benchmark
        self.horn_lateness: deque[tuple[int, int]] = deque(maxlen=10_000)
        self.on_publish: Callable[[str, str], None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    # ---------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Schedule the horns of every unfinished match; listen to other processes."""
        self.loop = asyncio.get_running_loop()
        rows = await asyncio.to_thread(self.store.list_matches, 1000)
        for row in rows:
            if row.start_ms is not None:
                try:
                    lm = await self.load(row.id)
                except (ValueError, ServiceError):  # pragma: no cover - broken stored match
                    log.exception("match %s cannot be replayed", row.id)
                    continue
                self._reschedule(lm)
        if self.store.backend is Backend.POSTGRES:
            self._listener = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        for lm in self._matches.values():
            if lm.timer is not None:
                lm.timer.cancel()
        self.close_streams()
        for t in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t

    def close_streams(self) -> None:
        """End every client's stream (the server is shutting down); they will reconnect."""
        for lm in self._matches.values():
            for sub in list(lm.subscribers):
                sub.dropped = True
                lm.subscribers.discard(sub)
                with contextlib.suppress(asyncio.QueueFull):
                    sub.queue.put_nowait(b"")

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _listen(self) -> None:
        from chukker.store.postgres import PostgresStore

        assert isinstance(self.store, PostgresStore)
        while True:
            try:
                async for match_id, seq in self.store.notifications():
                    lm = self._matches.get(match_id)
                    if lm is not None and seq > lm.seq:
                        async with lm.lock:
                            await self._sync(lm)
                        self._after_change(lm)
            except asyncio.CancelledError:
                raise
            except Exception:  # pragma: no cover - database went away; try again
                log.exception("LISTEN connection lost; reconnecting")
                await asyncio.sleep(1.0)

    # ------------------------------------------------------------------ matches
    async def create_match(self, header: dict[str, Any]) -> Created:
        """Check the header with the engine and store the match; the secrets are shown once."""
        header = {k: v for k, v in header.items() if k != "events"}
        Setup.from_dict(header)  # raises SetupError with the field and the reason
        tk, cm = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        match_id = new_match_id()
        await asyncio.to_thread(
            self.store.create_match, match_id, header, self.clock.now_ms(),
            hash_token(tk), hash_token(cm),
        )
        return Created(match_id, tk, cm)

    async def load(self, match_id: str) -> LiveMatch:
        lm = self._matches.get(match_id)
        if lm is not None:
            return lm
        lock = self._loading.setdefault(match_id, asyncio.Lock())
        async with lock:
            lm = self._matches.get(match_id)
            if lm is not None:
                return lm
            row = await asyncio.to_thread(self.store.get_match, match_id)
            events = await asyncio.to_thread(self.store.events, match_id)
            m = Match(Setup.from_dict(row.header))
            for e in events:
                m.apply(e.event)
            lm = LiveMatch(row=row, match=m, stored=events)
            lm.horn_cursor_ms = max(lm.last_at_ms(), self._now_at(lm))
            self._matches[match_id] = lm
            self._reschedule(lm)
            return lm

    async def _sync(self, lm: LiveMatch) -> list[StoredEvent]:
        """Pull events other processes appended; apply and publish them. Call under lock."""
        fresh = await asyncio.to_thread(self.store.events, lm.id, lm.seq)
        if fresh and lm.row.start_ms is None:
            lm.row = await asyncio.to_thread(self.store.get_match, lm.id)
        for e in fresh:
            if e.seq != lm.seq + 1:  # pragma: no cover - store guarantees contiguity
                break
            lm.match.apply(e.event)
            lm.stored.append(e)
            lm.horn_cursor_ms = max(lm.horn_cursor_ms, lm.last_at_ms())
            self._publish_event(lm, e)
        return fresh

    def _now_at(self, lm: LiveMatch) -> int:
        """Record ms of now for ``lm`` (0 before its first event), never before its last event."""
        if lm.start_ms is None:
            return 0
        return max(self.clock.now_ms() - lm.start_ms, lm.last_at_ms())

    # ------------------------------------------------------------------- auth
    def role_of(self, lm: LiveMatch, token: str) -> Role | None:
        h = hash_token(token)
        ok_cm = hmac.compare_digest(h, lm.row.committee_hash)
        ok_tk = hmac.compare_digest(h, lm.row.timekeeper_hash)
        if ok_cm:
            return Role.COMMITTEE
        if ok_tk:
            return Role.TIMEKEEPER
        return None

    # ----------------------------------------------------------------- events
    async def submit(
        self, lm: LiveMatch, role: Role, command_id: str, event: dict[str, Any]
    ) -> Accepted:
        """Stamp, check, store durably, apply and publish one operator event."""
        async with lm.lock:
            try:
                for _attempt in range(20):
                    for e in lm.stored:
                        if e.command_id == command_id:
                            return self._duplicate(e, event)
                    now = self.clock.now_ms()
                    start = lm.start_ms if lm.start_ms is not None else now
                    at_ms = max(now - start, lm.last_at_ms())
                    ev = {**event, "at": at_ms / 1000}
                    if (
                        ev.get("type") == "undo"
                        and role is not Role.COMMITTEE
                        and lm.match.is_final(at_ms)
                    ):
                        raise ServiceError(
                            403, "committee_only",
                            "the match is final: only the committee may undo (Rule 18)",
                        )
                    try:
                        lm.match.verify(ev)
                    except EngineError as err:
                        raise ServiceError(
                            409, "refused", str(err), reason=err.reason, index=err.index
                        ) from err
                    except (ValueError, TypeError, KeyError) as err:
                        raise ServiceError(422, "bad_event", str(err)) from err
                    stored = StoredEvent(lm.seq + 1, command_id, ev, now, role.value)
                    try:
                        await asyncio.to_thread(self.store.append, lm.id, stored, start)
                    except CommandExists as dup:
                        await self._sync(lm)
                        return self._duplicate(dup.existing, event)
                    except SeqTaken:
                        await self._sync(lm)
                        continue
                    if lm.row.start_ms is None:
                        lm.row = _with_start(lm.row, start)
                    lm.match.apply(ev)
                    lm.stored.append(stored)
                    lm.horn_cursor_ms = max(lm.horn_cursor_ms, at_ms)
                    self._publish_event(lm, stored)
                    return Accepted(stored.seq, ev, now, duplicate=False)
                raise ServiceError(503, "busy", "too many concurrent writers; try again")
            finally:
                self._after_change(lm)

    @staticmethod
    def _duplicate(e: StoredEvent, event: dict[str, Any]) -> Accepted:
        sent = {k: v for k, v in e.event.items() if k != "at"}
        if sent != event:
            raise ServiceError(
                409, "command_reused",
                f"command_id {e.command_id!r} was already used for event {e.seq} "
                "with a different content",
                seq=e.seq,
            )
        return Accepted(e.seq, e.event, e.recorded_ms, duplicate=True)

    # ----------------------------------------------------------------- reports
    def report(self, lm: LiveMatch, at_ms: int | None = None) -> dict[str, Any]:
        """The replay report as of ``at_ms`` (record ms; default now) with seq and times."""
        now_at = self._now_at(lm)
        at = now_at if at_ms is None else at_ms
        rep = dict(lm.match.report(at))
        server_time = (lm.start_ms + at) if lm.start_ms is not None else self.clock.now_ms()
        rep.update(match_id=lm.id, seq=lm.seq, at=at / 1000, server_time=server_time)
        return rep

    def record(self, lm: LiveMatch) -> dict[str, Any]:
        return dict(lm.match.to_record())

    # ---------------------------------------------------------------- streams
    def subscribe(self, lm: LiveMatch, last_seq: int | None) -> tuple[Subscriber, list[str]]:
        """Register a client; return it with what it must be sent first.

        With ``last_seq`` (Last-Event-ID) that is every event after it, then the
        current state; without, the current state. Nothing can slip between the
        backlog and the queue: both happen without yielding to the loop.
        """
        sub = Subscriber()
        lm.subscribers.add(sub)
        backlog: list[str] = []
        if last_seq is not None:
            for e in lm.stored[max(last_seq, 0):]:
                backlog.append(sse("event", {"seq": e.seq, "event": e.event}, e.seq))
        backlog.append(self._state_message(lm))
        return sub, backlog

    def unsubscribe(self, lm: LiveMatch, sub: Subscriber) -> None:
        lm.subscribers.discard(sub)

    def _state_message(self, lm: LiveMatch) -> str:
        """The current state; reused while nothing has changed since it was computed.

        A report stays exact for clients after its ``server_time`` as long as no event
        came and no deadline passed: they run its clock on from ``server_time``.
        """
        now_at = self._now_at(lm)
        cached = lm.state_cache
        if cached is not None and cached[0] == lm.seq and cached[1] <= now_at < cached[2]:
            return cached[3]
        msg = sse("state", {"seq": lm.seq, "report": self.report(lm, now_at)}, lm.seq)
        nxt = lm.match.next_deadline_ms(now_at) if lm.start_ms is not None else None
        lm.state_cache = (lm.seq, now_at, nxt if nxt is not None else 2**62, msg)
        return msg

    def _broadcast(self, lm: LiveMatch, msg: str) -> None:
        """Queue ``msg`` for every subscriber, ``FANOUT_SLICE`` of them per loop iteration.

        Waking a thousand streams at once would hold the event loop for tens of
        milliseconds; in slices, a horn falling due meanwhile waits one slice at most.
        Messages of one match keep their order.
        """
        lm.outbox.append((msg.encode(), list(lm.subscribers)))
        if self.on_publish is not None:
            self.on_publish(lm.id, msg)
        if len(lm.outbox) == 1:
            self._pump(lm, 0)

    def _pump(self, lm: LiveMatch, start: int) -> None:
        msg, subs = lm.outbox[0]
        end = min(start + FANOUT_SLICE, len(subs))
        for sub in subs[start:end]:
            if sub.dropped:
                continue
            try:
                sub.queue.put_nowait(msg)
            except asyncio.QueueFull:
                sub.dropped = True
                lm.subscribers.discard(sub)
        if end < len(subs):
            asyncio.get_running_loop().call_soon(self._pump, lm, end)
            return
        lm.outbox.popleft()
        if lm.outbox:
            asyncio.get_running_loop().call_soon(self._pump, lm, 0)

    def _publish_event(self, lm: LiveMatch, e: StoredEvent) -> None:
        at_ms = round(float(e.event["at"]) * 1000)
        data = {"seq": e.seq, "event": e.event, "report": self.report(lm, max(at_ms, 0))}
        self._broadcast(lm, sse("event", data, e.seq))

    # ------------------------------------------------------------------ horns
    def _after_change(self, lm: LiveMatch) -> None:
        if lm.deadline_pending:
            lm.deadline_pending = False
        self._reschedule(lm)

    def _reschedule(self, lm: LiveMatch) -> None:
        if lm.timer is not None:
            lm.timer.cancel()
            lm.timer = None
        if lm.start_ms is None:
            return
        d = lm.match.next_deadline_ms(lm.horn_cursor_ms)
        if d is None:
            return
        loop = asyncio.get_running_loop()
        lm.timer = loop.call_at(self.clock.loop_time(lm.start_ms + d), self._deadline, lm, d)

    def _deadline(self, lm: LiveMatch, d: int) -> None:
        lm.timer = None
        if lm.lock.locked():
            # an append is in flight with an earlier stamp; its end reschedules
            lm.deadline_pending = True
            return
        if lm.match.next_deadline_ms(lm.horn_cursor_ms) != d:  # state changed meanwhile
            self._reschedule(lm)
            return
        assert lm.start_ms is not None
        rep = self.report(lm, d)
        sounded = [
            h for h in rep.get("horns", [])
            if lm.horn_cursor_ms < round(float(h["at"]) * 1000) <= d
        ]
        now = self.clock.now_ms()
        for h in sounded:
            msg = sse("horn", {"horn": h, "deadline": lm.start_ms + d, "report": rep}, lm.seq)
            self._broadcast(lm, msg)
        if not sounded:
            self._broadcast(lm, sse("state", {"seq": lm.seq, "report": rep}, lm.seq))
        lm.horn_cursor_ms = d
        for h in sounded:
            self.horn_lateness.append((lm.start_ms + d, now))
            row = HornRow(round(float(h["at"]) * 1000), int(h.get("period", 0)),
                          str(h.get("kind", "")), now)
            self._spawn(asyncio.to_thread(self.store.record_horn, lm.id, row))
        self._reschedule(lm)


def _with_start(row: MatchRow, start_ms: int) -> MatchRow:
    return MatchRow(
        row.id, row.header, row.created_ms, start_ms, row.timekeeper_hash, row.committee_hash
    )
