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
publish the events it has not seen. Worker processes on one SQLite file
(``chukker serve --workers``) do the same with the store's local notification.

Of several workers, one is the *horn keeper* (``keeps_horns``): every worker
sounds each horn to its own viewers, but only the keeper keeps the audit row
and feeds the arena (MQTT, relays), and it loads every match it hears of
(``adopts``), so that a match started through another worker has its horns
kept too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hmac
import logging
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

from chukker import ticks
from chukker.errors import ChukkerError
from chukker.live import fanout
from chukker.live.clock import Clock
from chukker.live.errors import (
    EventRefused,
    Quarantined,
    Role,
    ServiceError,
    engine_failure,
    store_refusal,
)
from chukker.live.fanout import Subscriber, Turns, merge_diff, sse
from chukker.live.match import (
    Accepted,
    Created,
    Listener,
    LiveMatch,
    WorkerRole,
    hash_token,
    new_match_id,
)
from chukker.ops import metrics
from chukker.store import (
    Backend,
    CommandExists,
    EventStore,
    HornRow,
    MatchRow,
    SeqTaken,
    StorageFull,
    StoredEvent,
    StoreError,
    StoreUnavailable,
)
from chukker.store.base import TOURNAMENT_PREFIX, tournament_of
from chukker.store.engine import EngineError, Match, Setup, TypedEvent

#: the live match and its values live in :mod:`chukker.live.match`; named here too
__all__ = ["Accepted", "Created", "Listener", "LiveMatch", "LiveService", "WorkerRole",
           "engine_failure", "hash_token", "new_match_id", "store_refusal"]

T = TypeVar("T")

log = logging.getLogger("chukker.live")

#: matches kept folded in memory beyond which idle ones (no stream, no clock running,
#: nothing in flight) are let go, least recently used first; they load again on demand
MAX_LOADED = 2000
#: deeper reports or headers cannot be sent (JSON encoders stop) and are quarantined
MAX_REPORT_DEPTH = 20

#: how far in the past a posted ``at`` may be (seconds); see ``LiveService.stamp``
AT_WINDOW_S = 60.0
#: seconds start-up waits for the first LISTEN subscription on PostgreSQL
LISTEN_WAIT_S = 5.0


class LiveService:
    """Matches, events, the clock and the subscribers of one server process."""

    def __init__(self, store: EventStore, clock: Clock | None = None, *,
                 keeps_horns: bool = True, adopts: bool = False) -> None:
        self.store = store
        self.clock = clock or Clock()
        #: this process writes the horns' audit rows (one worker of several: the keeper)
        self.keeps_horns = keeps_horns
        #: a match another process appended to is loaded here too (the horn keeper)
        self.adopts = adopts
        #: the store's writes (appends, horns, new matches) have an executor of their own:
        #: nothing else (page work, PDF, reads) can queue ahead of a key press or a horn
        self.writes = concurrent.futures.ThreadPoolExecutor(2, "chukker-store-writes")
        self._matches: dict[str, LiveMatch] = {}
        #: loads in progress (removed once done: nothing is kept for unknown ids)
        self._loading: dict[str, asyncio.Future[LiveMatch]] = {}
        #: match id -> why it cannot be replayed
        self.quarantined: dict[str, str] = {}
        self.at_window_ms = round(AT_WINDOW_S * 1000)
        #: seconds between keep-alives and a stream's queue (setting
        #: ``server.stream_keepalive_s``, ``limits.stream_queue``, given once at start);
        #: ``None``: :data:`fanout.KEEPALIVE_S`, :data:`fanout.QUEUE_LIMIT`
        self.keepalive_s: float | None = None
        self.queue_limit: int | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._listener: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self._keepalive_task: asyncio.Task[None] | None = None
        #: streams that end together finish ``FANOUT_SLICE`` per loop iteration
        self.leaving = Turns(fanout.FANOUT_SLICE)
        #: (deadline wall ms, published wall ms) of recent horns, for the benchmark
        self.horn_lateness: deque[tuple[int, int]] = deque(maxlen=10_000)
        self.on_publish: Callable[[str, str], None] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        #: set when the server is told to stop (``/readyz`` answers 503 from then on)
        self.stopped = False
        self._listeners: list[Listener] = []
        #: told of every tournament event another process stored: ``hook(id, seq)``, and
        #: ``hook(None, 0)`` on every (re)subscription (check them all)
        self.tournament_hooks: list[Callable[[str | None, int], None]] = []
        #: told the id of every match created through this service, once it is stored
        #: (the NATS publisher sends its header, so an edge shows it as pre-match)
        self.created_hooks: list[Callable[[str], None]] = []

    # ---------------------------------------------------------------- listeners
    def add_listener(self, listener: Listener) -> None:
        """Call ``listener`` after every change, event and horn (see :class:`Listener`)."""
        if listener not in self._listeners:
            self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        with contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    def _tell(self, what: str, *args: Any) -> None:
        for listener in tuple(self._listeners):
            try:
                getattr(listener, what)(*args)
            except Exception:  # a listener must not raise: log it, serve the others
                log.exception("listener %r failed in %s", listener, what)

    # ---------------------------------------------------------------- lifecycle
    async def start(self) -> None:
        """Schedule the horns of every unfinished match, however many finished or newer
        ones there are (issue 40); listen to other processes.

        Every started match is read, a page at a time (newest first, through the store's
        ``before`` cursor), and folded in a worker thread to see whether a horn is still
        to come; only those matches are loaded, and their horns scheduled. A finished
        match, or one whose clock is stopped, costs one fold here and no memory: it loads
        on demand (an event for it, from this process or another, loads it too). A
        process that does not keep the horns (a public worker) reads the newest page
        only: it sounds horns to its own viewers, and a match viewed is loaded."""
        self.loop = asyncio.get_running_loop()
        page = 500
        now = self.clock.now_ms()

        def horn_to_come(rows: list[MatchRow]) -> list[str]:
            wanted = []
            for row in rows:
                if row.start_ms is None:
                    continue
                try:
                    events = self.store.events(row.id)
                    m = Match(Setup.from_dict(row.header), [e.event for e in events])
                    last = events[-1].at_ms if events else 0
                    if m.next_deadline_ms(max(last, now - row.start_ms)) is None:
                        continue
                except Exception:  # noqa: BLE001 - load() says why and decides
                    pass
                wanted.append(row.id)
            return wanted

        before: tuple[int, str] | None = None
        while True:
            rows = await asyncio.to_thread(self.store.list_matches, page, before)
            for match_id in await asyncio.to_thread(horn_to_come, rows):
                try:
                    lm = await self.load(match_id)
                except Exception:  # noqa: BLE001 - quarantined (load logs it): go on
                    continue
                self._reschedule(lm)
            if len(rows) < page or not self.keeps_horns:
                break
            before = (rows[-1].created_ms, rows[-1].id)
        if self.shares_store():
            self._subscribed = asyncio.Event()
            self._listener = asyncio.create_task(self._listen())
            # ready once subscribed (or, if PostgreSQL is slow to answer, after a while:
            # /readyz then says the listener is reconnecting)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(LISTEN_WAIT_S):
                    await self._subscribed.wait()
        self._keepalive_task = asyncio.create_task(self._keepalive())

    def shares_store(self) -> bool:
        """Other processes append to this store: PostgreSQL, or a SQLite file shared by
        workers (its store then has a notifier)."""
        return (self.store.backend is Backend.POSTGRES
                or getattr(self.store, "notifier", None) is not None)

    async def _write(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the store's own write executor."""
        return await asyncio.get_running_loop().run_in_executor(self.writes, fn, *args)

    async def stop(self) -> None:
        if self._keepalive_task is not None:
            self._keepalive_task.cancel()
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
                lm.subscribers.discard(sub)
                sub.end()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _listen(self) -> None:
        """Push what the other servers append; on every (re)subscription catch up first
        (the store reconnects with backoff and calls :meth:`catch_up`)."""
        store: Any = self.store  # PostgresStore, or a SQLiteStore shared by workers
        while True:
            try:
                async for match_id, seq in store.notifications(self._on_listening):
                    if match_id.startswith(TOURNAMENT_PREFIX):  # a tournament's log
                        tid = tournament_of(match_id)
                        for hook in tuple(self.tournament_hooks):
                            if tid is not None:
                                hook(tid, seq)
                        continue
                    lm = self._matches.get(match_id)
                    if lm is None:
                        if self.adopts or match_id in self._loading:
                            self._spawn(self._adopt(match_id, seq))
                        continue
                    if seq > lm.seq:
                        try:
                            async with lm.lock:
                                await self._sync(lm, told=seq)
                        except StoreError:  # the database went away again: the next
                            continue  # subscription catches up
                        self._after_change(lm)
            except asyncio.CancelledError:
                raise
            except Exception:  # pragma: no cover - a bug below; never stop listening
                log.exception("listening to the other servers failed; again in 1 s")
                await asyncio.sleep(1.0)

    async def _adopt(self, match_id: str, seq: int) -> None:
        """Load a match another process appended to (or that is loading now) and pull
        up to ``seq``: its horns then sound here, and its viewers miss nothing."""
        try:
            lm = await self.load(match_id)
            if seq > lm.seq:
                async with lm.lock:
                    await self._sync(lm)
                self._after_change(lm)
        except Exception as e:  # noqa: BLE001 - unknown, quarantined, store away: logged
            log.warning("match %s: not loaded after another process's append: %s", match_id, e)

    async def _on_listening(self) -> None:
        self._subscribed.set()
        for hook in tuple(self.tournament_hooks):
            hook(None, 0)
        await self.catch_up()

    async def catch_up(self) -> int:
        """Pull, for every match in memory, the events stored after the last one this
        process has (appended meanwhile through another server), and publish them.
        Returns how many there were."""
        n = 0
        for lm in list(self._matches.values()):
            try:
                async with lm.lock:
                    n += len(await self._sync(lm))
            except StoreError as e:
                log.warning("match %s: cannot catch up now (%s)", lm.id, e)
                continue
            self._after_change(lm)
        if n:
            log.info("caught up with %d events stored through other servers", n)
        return n

    # ------------------------------------------------------------------ matches
    def loaded_match(self, match_id: str) -> LiveMatch | None:
        """The live match ``match_id`` if it is in memory now (no load from the store)."""
        return self._matches.get(match_id)

    def loaded_matches(self) -> list[LiveMatch]:
        """The live matches in memory now (a copy: the service may load or evict meanwhile)."""
        return list(self._matches.values())

    def listening(self) -> bool:
        """Whether the task that follows other servers' appends (PostgreSQL) is running."""
        return self._listener is not None and not self._listener.done()

    async def create_match(self, header: dict[str, Any]) -> Created:
        """Check the header with the engine and store the match; the secrets are shown once."""
        header = {k: v for k, v in header.items() if k != "events"}
        Setup.from_dict(header)  # raises SetupError with the field and the reason
        tk, cm = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        match_id = new_match_id()
        try:
            await self._write(
                self.store.create_match, match_id, header, self.clock.now_ms(),
                hash_token(tk), hash_token(cm),
            )
        except (StorageFull, StoreUnavailable) as e:
            raise store_refusal(e) from e
        for hook in tuple(self.created_hooks):
            try:
                hook(match_id)
            except Exception:  # a hook must not raise: log it, the match is made
                log.exception("a created hook failed for match %s", match_id)
        return Created(match_id, tk, cm)

    async def _record_horn(self, match_id: str, row: HornRow) -> None:
        """Keep a sounded horn for the audit; a store that cannot take it now (disk
        full, database away) costs the audit row, never the horn."""
        try:
            await self._write(self.store.record_horn, match_id, row)
        except StoreError as e:
            log.warning("match %s: horn at %d ms not kept for the audit: %s",
                        match_id, row.at_ms, e)

    async def load(self, match_id: str) -> LiveMatch:
        """The live match ``match_id``, once any event being stored for it is durable.

        Raises :class:`UnknownMatch` (nothing is kept for that id) or
        :class:`Quarantined` for a stored match the engine cannot replay.
        """
        lm = self._matches.get(match_id)
        if lm is None:
            reason = self.quarantined.get(match_id)
            if reason is not None:
                raise Quarantined(match_id, reason)
            fut = self._loading.get(match_id)
            if fut is not None:
                lm = await asyncio.shield(fut)
            else:
                fut = asyncio.get_running_loop().create_future()
                self._loading[match_id] = fut
                try:
                    lm = await self._load(match_id)
                except BaseException as e:
                    if isinstance(e, Exception):
                        fut.set_exception(e)
                        fut.exception()  # retrieved: no warning when nobody else waits
                    else:
                        fut.cancel()
                    raise
                finally:
                    del self._loading[match_id]
                fut.set_result(lm)
        lm.used = time.monotonic()
        while lm.inflight is not None:  # reads show only durable events
            await asyncio.shield(lm.inflight)
        return lm

    def _evict(self) -> None:
        """Let idle matches go once more than ``MAX_LOADED`` are in memory."""
        over = len(self._matches) - MAX_LOADED
        if over <= 0:
            return
        idle = [lm for lm in self._matches.values()
                if not lm.subscribers and lm.timer is None and not lm.lock.locked()
                and lm.inflight is None and not lm.outbox]
        idle.sort(key=lambda lm: lm.used)
        for lm in idle[:over]:
            del self._matches[lm.id]

    async def _load(self, match_id: str) -> LiveMatch:
        row = await asyncio.to_thread(self.store.get_match, match_id)
        events = await asyncio.to_thread(self.store.events, match_id)
        if events and row.start_ms is None:
            # another process's first event landed between the two reads: its start
            # came with it (without it the match would be reported as at 0 s for good)
            row = await asyncio.to_thread(self.store.get_match, match_id)
        try:
            m = Match(Setup.from_dict(row.header), [e.event for e in events])
            # a state that cannot be reported (or sent) is as bad as one that cannot be folded
            if _depth(m.report()) > MAX_REPORT_DEPTH or _depth(row.header) > MAX_REPORT_DEPTH:
                raise ValueError(f"nested deeper than {MAX_REPORT_DEPTH} levels")
        except Exception as e:  # noqa: BLE001 - any failure: quarantine, keep serving the others
            reason = f"{type(e).__name__}: {e}"[:300]
            self.quarantined[match_id] = reason
            log.error("match %s quarantined: %s", match_id, reason)
            raise Quarantined(match_id, reason) from None
        lm = LiveMatch(row=row, match=m, stored=events)
        lm.commands = {e.command_id: e for e in events}
        lm.horn_cursor_ms = max(lm.last_at_ms(), self._now_at(lm))
        lm.used = time.monotonic()
        self._matches[match_id] = lm
        self._reschedule(lm)
        self._evict()
        return lm

    def _rebuild(self, lm: LiveMatch) -> None:
        """Fold the stored events again (after an append that did not become durable)."""
        lm.match = Match(Setup.from_dict(lm.row.header), [e.event for e in lm.stored])

    async def raw_record(self, match_id: str) -> tuple[MatchRow, dict[str, Any]]:
        """The stored header and events of a match as they are, without the engine."""
        row = await asyncio.to_thread(self.store.get_match, match_id)
        events = await asyncio.to_thread(self.store.events, match_id)
        doc = {**row.header, "events": [e.event for e in events]}
        return row, doc

    async def _sync(self, lm: LiveMatch, told: int | None = None) -> list[StoredEvent]:
        """Pull events other processes appended; apply and publish them. Call under lock.

        ``told``: the seq a notification told of. The events up to it that the
        notification carried (a worker's datagram, :mod:`chukker.store.notify`) are taken
        as they came, without reading the store (issue 43); otherwise it is read."""
        fresh: list[StoredEvent] | None = None
        if told is not None and lm.row.start_ms is not None:
            carried = getattr(self.store, "told_events", None)
            if carried is not None:
                fresh = carried(lm.id, lm.seq, told)
        if fresh is None:
            fresh = await asyncio.to_thread(self.store.events, lm.id, lm.seq)
        if fresh and lm.row.start_ms is None:
            lm.row = await asyncio.to_thread(self.store.get_match, lm.id)
        for e in fresh:
            if e.seq != lm.seq + 1:  # pragma: no cover - store guarantees contiguity
                break
            lm.match.apply(e.event)
            lm.stored.append(e)
            lm.commands[e.command_id] = e
            lm.horn_cursor_ms = max(lm.horn_cursor_ms, lm.last_at_ms())
            self._publish_event(lm, e)
        return fresh

    async def _sync_quietly(self, lm: LiveMatch) -> bool:
        """:meth:`_sync` under the lock already held; whether anything new came (a store
        that cannot answer now counts as nothing new)."""
        try:
            return bool(await self._sync(lm))
        except StoreError:
            return False

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
    def stamp(self, lm: LiveMatch, now: int, posted_at: float | None
              ) -> tuple[int, str, str | None]:
        """The record ms of an event arriving at wall ms ``now``; who chose it; why not the client.

        A posted ``at`` is taken when it is not before the last accepted event,
        not in the future and at most ``at_window_ms`` in the past.
        """
        if lm.start_ms is None:
            return 0, "server", None if posted_at is None else "record_starts_now"
        server_at = max(now - lm.start_ms, lm.last_at_ms())
        if posted_at is None:
            return server_at, "server", None
        at = round(posted_at * 1000)
        if at < lm.last_at_ms():
            return server_at, "server", "at_before_last_event"
        if at > now - lm.start_ms:
            return server_at, "server", "at_in_future"
        if at < now - lm.start_ms - self.at_window_ms:
            return server_at, "server", "at_too_old"
        return at, "client", None

    async def submit(
        self, lm: LiveMatch, role: Role, command_id: str, event: dict[str, Any],
        posted_at: float | None = None, *, typed: TypedEvent | None = None,
    ) -> Accepted:
        """Stamp, check, store durably, then acknowledge and publish one operator event.

        ``typed``: the event as its class, from the API's one-step check (its ``at`` is
        stamped here); without it the engine types the dict where it enters.

        The event is applied to the match's folded state (constant cost per
        event); readers of the match wait until it is durable, and if storing
        fails the state is folded again from the stored events.
        """
        async with lm.lock:
            synced = False
            try:
                for _attempt in range(20):
                    dup = lm.commands.get(command_id)
                    if dup is not None:
                        return self._duplicate(dup, event)
                    now = self.clock.now_ms()
                    start = lm.start_ms if lm.start_ms is not None else now
                    at_ms, source, note = self.stamp(lm, now, posted_at)
                    ev = {**event, "at": at_ms / 1000}
                    if (
                        ev.get("type") == "undo"
                        and role is not Role.COMMITTEE
                        and lm.match.is_final(at_ms)
                    ):
                        raise ServiceError("committee_only")
                    try:
                        lm.match.apply(ev, typed=None if typed is None
                                       else msgspec.structs.replace(typed, at=at_ms / 1000))
                    except EngineError as err:
                        if not synced and self.shares_store():
                            # another process may have appended what makes it valid (a
                            # bowl-in posted through another worker a moment ago)
                            synced = True
                            if await self._sync_quietly(lm):
                                continue
                        raise EventRefused(err.code, str(err),
                                           params=err.params or {"reason": err.reason},
                                           reason=err.reason, index=err.index) from err
                    except ChukkerError as err:  # refused on purpose (a code): the event's
                        self._rebuild(lm)
                        raise ServiceError("invalid_event", str(err)[:300], params={
                            "field": "event", "reason": str(err)[:200]},
                            detail=err.code) from err
                    except Exception as err:  # a bug in the engine: logged, a 500, re-raised
                        self._rebuild(lm)
                        raise engine_failure(lm.id, ev) from err
                    stored = StoredEvent(lm.seq + 1, command_id, ev, now, role.value)
                    lm.inflight = asyncio.get_running_loop().create_future()
                    try:
                        await self._write(self.store.append, lm.id, stored, start)
                    except CommandExists as dup_err:
                        self._rebuild(lm)
                        await self._sync(lm)
                        return self._duplicate(dup_err.existing, event)
                    except SeqTaken:
                        self._rebuild(lm)
                        await self._sync(lm)
                        continue
                    except (StorageFull, StoreUnavailable) as err:
                        self._rebuild(lm)  # not stored: the client keeps it and retries
                        log.warning("match %s: event not stored: %s", lm.id, err)
                        raise store_refusal(err) from err
                    except Exception as err:  # the store failed otherwise: logged, busy
                        self._rebuild(lm)
                        log.exception("match %s: event not stored", lm.id)
                        raise ServiceError("busy", params={"retry_after": 1}) from err
                    finally:
                        lm.inflight.set_result(None)
                        lm.inflight = None
                    if lm.row.start_ms is None:
                        lm.row = _with_start(lm.row, start)
                    lm.stored.append(stored)
                    lm.commands[command_id] = stored
                    lm.horn_cursor_ms = max(lm.horn_cursor_ms, at_ms)
                    self._publish_event(lm, stored)
                    return Accepted(stored.seq, ev, now, duplicate=False, at_source=source,
                                    note=note)
                raise ServiceError("busy", params={"retry_after": 1})
            finally:
                self._after_change(lm)

    @staticmethod
    def _duplicate(e: StoredEvent, event: dict[str, Any]) -> Accepted:
        sent = {k: v for k, v in e.event.items() if k != "at"}
        if sent != event:
            raise ServiceError("command_reused",
                               params={"command_id": e.command_id, "seq": e.seq}, seq=e.seq)
        return Accepted(e.seq, e.event, e.recorded_ms, duplicate=True)

    # ----------------------------------------------------------------- reports
    def report(self, lm: LiveMatch, at_ms: int | None = None) -> dict[str, Any]:
        """The replay report as of ``at_ms`` (record ms; default now) with seq and times."""
        at = self._now_at(lm) if at_ms is None else at_ms
        return self._dressed(lm, dict(lm.match.report(at)), at)

    def _dressed(self, lm: LiveMatch, rep: dict[str, Any], at: int) -> dict[str, Any]:
        """``rep``, the report at record ms ``at``, with the match, its seq and the times."""
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
        sub = Subscriber(limit=self.queue_limit)
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
        """The whole report last sent (the base of the next ``patch``).

        A report stays exact for clients after its ``server_time`` as long as no
        event came and no deadline passed (each of those sends a patch): they run
        its clock on from ``server_time``.
        """
        rep = lm.last_report
        if rep is None:
            rep = lm.last_report = self.report(lm, self._now_at(lm))
        cached = lm.state_sse
        if cached is not None and cached[0] is rep and cached[1] == lm.seq:
            return cached[2]
        msg = sse("state", {"seq": lm.seq, "report": rep}, lm.seq)
        lm.state_sse = (rep, lm.seq, msg)
        return msg

    def _publish_change(self, lm: LiveMatch, head: str, rep: dict[str, Any]) -> None:
        """Send ``head`` (an event or horn message, or nothing) and what changed in the report.

        The change is an RFC 7386 merge patch from the last report sent (the whole
        report when none was sent yet).
        """
        prev = lm.last_report
        lm.last_report = rep
        if self._listeners:
            self._tell("on_state", lm.id, lm.seq, rep)
        if not lm.subscribers and self.on_publish is None:
            # nobody to send it to (the officials' process, whose crowd is elsewhere): no
            # patch, no JSON; the next stream starts from ``last_report``, as any does
            return
        patch = None if prev is None else merge_diff(prev, rep)
        if patch is None:
            tail = sse("state", {"seq": lm.seq, "report": rep}, lm.seq)
        else:
            tail = sse("patch", {"seq": lm.seq, "patch": patch}, lm.seq)
        self._broadcast(lm, head + tail)

    def _broadcast(self, lm: LiveMatch, msg: str) -> None:
        """Queue ``msg`` for every subscriber, ``FANOUT_SLICE`` of them per loop iteration.

        Waking a thousand streams at once would hold the event loop for tens of
        milliseconds; in slices, a horn falling due meanwhile waits one slice at most.
        Messages of one match keep their order.
        """
        if self.on_publish is not None:
            self.on_publish(lm.id, msg)
        self._enqueue(lm, msg.encode())

    def _enqueue(self, lm: LiveMatch, data: bytes) -> None:
        lm.sent = time.monotonic()
        lm.outbox.send(data, lm.subscribers)

    def keepalive_every(self) -> float:
        """Seconds between two keep-alive comments (:attr:`keepalive_s`)."""
        return fanout.KEEPALIVE_S if self.keepalive_s is None else self.keepalive_s

    async def _keepalive(self) -> None:
        """A comment to the streams of every quiet match every ``KEEPALIVE_S``: one timer
        for all of them (a timer per stream and per message costs more than the message).

        A match that sent anything in the last ``KEEPALIVE_S`` is skipped: its streams
        are not idle, and a keep-alive to a thousand screens landing beside a goal was
        a fan-out's worth of writes in the goal's way. No stream goes more than twice
        ``KEEPALIVE_S`` without a byte."""
        while True:
            every = self.keepalive_every()
            await ticks.sleep_to(every)  # on the process's grid
            quiet = time.monotonic() - every
            for lm in list(self._matches.values()):
                if lm.subscribers and lm.sent <= quiet:
                    self._enqueue(lm, b": keepalive\n\n")

    def announce(self, data: bytes) -> None:
        """Send ``data`` (one whole SSE message, e.g. an edge's ``event: edge``) to every
        stream of every loaded match, in their turns like any message."""
        for lm in list(self._matches.values()):
            if lm.subscribers:
                self._enqueue(lm, data)

    def _follows(self, match_id: str) -> bool:
        """Whether a listener wants ``match_id``'s state: one without ``follows`` wants
        every match's (the arena feeds, NATS); the tournaments' only their live matches'."""
        for listener in self._listeners:
            follows = getattr(listener, "follows", None)
            if follows is None or follows(match_id):
                return True
        return False

    def _publish_event(self, lm: LiveMatch, e: StoredEvent) -> None:
        if not lm.subscribers and self.on_publish is None and not self._follows(lm.id):
            # nobody hears it here (the officials' process: its crowd is on the public
            # port, and a match in no tournament is nothing to the tournaments'
            # listener): no report, no message, before the key press is answered; a
            # stream opening later starts from a report made then (``_state_message``)
            if self._listeners:
                self._tell("on_event", lm.id, e.seq, e.event)
            lm.last_report = None
            return
        rep = self.report(lm, max(e.at_ms, 0))
        if self._listeners:
            self._tell("on_event", lm.id, e.seq, e.event)
        self._publish_change(lm, sse("event", {"seq": e.seq, "event": e.event}, e.seq), rep)

    # ------------------------------------------------------------------ horns
    def retime(self) -> None:
        """Arm every match's horn timer again from the clock: after a clock that jumps
        (a test's virtual clock) a deadline already passed sounds on the next turn."""
        for lm in list(self._matches.values()):
            self._reschedule(lm)

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
        found, due_ms = lm.match.report_and_horns(d)  # each horn's time in ms, not read back
        rep, cursor = self._dressed(lm, dict(found), d), lm.horn_cursor_ms
        sounded = [(h, t) for h, t in zip(rep["horns"], due_ms, strict=True) if cursor < t <= d]
        now = self.clock.now_ms()
        head = "".join(sse("horn", {"horn": h, "deadline": lm.start_ms + d}, lm.seq)
                       for h, _ in sounded)
        self._publish_change(lm, head, rep)
        lm.horn_cursor_ms = d
        for h, t in sounded:
            if self._listeners:
                self._tell("on_horn", lm.id, {"kind": h.get("kind"), "period": h.get("period"),
                                              "at": lm.start_ms + t})
            self.horn_lateness.append((lm.start_ms + d, now))
            metrics.horn_sounded((now - lm.start_ms - d) / 1000)
            if self.keeps_horns:  # one worker of several keeps the audit
                row = HornRow(t, int(h.get("period", 0)), str(h.get("kind", "")), now)
                self._spawn(self._record_horn(lm.id, row))
        self._reschedule(lm)


def _with_start(row: MatchRow, start_ms: int) -> MatchRow:
    return MatchRow(row.id, row.header, row.created_ms, start_ms, row.timekeeper_hash,
                    row.committee_hash)


def _depth(v: Any, limit: int = MAX_REPORT_DEPTH + 1) -> int:
    """How deep ``v`` nests (counting stops past ``limit``).

    >>> _depth({"a": [1, {"b": 2}]}), _depth(1)
    (3, 0)
    """
    if limit <= 0 or not isinstance(v, dict | list):
        return 0
    items = v.values() if isinstance(v, dict) else v
    return 1 + max((_depth(x, limit - 1) for x in items), default=0)
