"""The tournaments' live state (issue 40): one house of record, in the store and on the stream.

A tournament is an aggregate with its own append-only log in the event store, beside
the matches (:meth:`~chukker.store.base.EventStore.append_tournament`); its events and
their fold are :mod:`chukker.live.tournament_log`'s.

One :class:`TournamentService` per process, beside the :class:`LiveService`, used by
the web, the CLI and the edges. It never polls: the store's notifications (``t.<id>``
keys, PostgreSQL's NOTIFY or the workers' datagrams and ``data_version``; an edge's
replica) tell it of another process's event, and the live service's listener interface
tells it of every change of a live match. Its tournament streams go through the
live fan-out (:class:`~chukker.live.fanout.Outbox`), each message encoded once per
language.

Every writer names the ``seq`` it expects (optimistic concurrency): of two processes
or servers that decide the same thing at once, one writes and the other re-reads the
log, folds it and finds nothing left to do. Only the *settling* process (the officials'
plane, or a single process: ``settles``) makes live matches and publishes results on
its own; a page view never writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import hmac
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from chukker import ticks
from chukker.live.fanout import Outbox, Subscriber
from chukker.live.service import LiveService, hash_token, new_match_id
from chukker.live.tournament_log import (
    KINDS,
    MAX_FILE_BYTES,
    Kind,
    LiveTournament,
    TournamentRefused,
    apply,
    arena_key,
    arena_slug,
    digest,
    identity,
    import_folder,
    json_default,
    named_arenas,
    now_playing,
    plain,
    played_standings,
    web_tournament,
)
from chukker.store.base import (
    MATCH_ID,
    MatchRow,
    StoreError,
    TournamentEvent,
    TournamentSeqTaken,
    TournamentWrite,
)
from chukker.store.engine import Setup
from chukker.tournament.model import Tournament
from chukker.tournament.problems import Problem, Subject
from chukker.tournament.records import NotReady, header
from chukker.tournament.schedule import move
from chukker.tournament.standings import Standings

__all__ = [
    "KINDS",
    "MAX_FILE_BYTES",
    "Kind",
    "LiveTournament",
    "TournamentRefused",
    "TournamentService",
    "Uploaded",
    "apply",
    "arena_key",
    "arena_slug",
    "digest",
    "identity",
    "import_folder",
    "json_default",
    "named_arenas",
    "now_playing",
    "plain",
    "played_standings",
    "web_tournament",
]

log = logging.getLogger("chukker.tournaments")

#: how many times a write is decided again after another writer was first
RETRIES = 8
#: why a write gave up after :data:`RETRIES` other writers were first
BUSY = "other writers kept the tournament busy; try again"
@dataclass(frozen=True, slots=True)
class Uploaded:
    """What an upload did: the tournament, whether it was an update, the tokens shown
    once (the committee's for a new tournament; an arena's when it is new)."""

    lt: LiveTournament
    updated: bool
    committee_token: str | None
    arena_tokens: dict[str, str | None]


#: ``payload(lt, standings, reports, lang)``: one whole SSE message of a tournament's
#: stream in ``lang`` (the web renders it; the service fans it out)
Payload = Callable[[LiveTournament, Standings, dict[str, dict[str, Any]], str], bytes]
#: called after every refresh of a tournament (the arena feeds follow it)
Refreshed = Callable[[LiveTournament, Standings, dict[str, dict[str, Any]]], None]


class TournamentService:
    """Every tournament of the store, folded, kept current and fanned out."""

    def __init__(self, live: LiveService, *, settles: bool = True) -> None:
        self.live = live
        self.store = live.store
        #: this process makes live matches and publishes results as results change
        self.settles = settles
        self.items: dict[str, LiveTournament] = {}
        #: live match id -> tournament id
        self.of_match: dict[str, str] = {}
        self.payload: Payload | None = None
        self.refreshed: list[Refreshed] = []
        #: told ``(tournament id, seq)`` whenever this process folds a new event of a
        #: tournament, its own or another process's (the NATS publisher follows it)
        self.folded: list[Callable[[str, int], None]] = []
        self._dirty: set[str] = set()
        self._settling: set[str] = set()  # tournaments a refresh is settling now
        self._refreshing: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._keepalive: asyncio.Task[None] | None = None
        self.loaded = False
        #: what the first start imported from the old folder (``chukker config`` says it)
        self.imported: list[str] = []

    # ----------------------------------------------------------------- lifecycle
    async def start(self, folder: Path | None = None) -> None:
        """Import the old folder's files (once), fold every tournament, follow changes."""
        if folder is not None and self.settles:
            try:
                self.imported = await asyncio.to_thread(import_folder, self.store, folder)
            except (OSError, StoreError) as e:
                log.error("tournament files of %s not imported: %s", folder, e)
        self.live.add_listener(self)
        self.live.tournament_hooks.append(self.notified)
        await self.sync_all()
        self.loaded = True
        self._keepalive = asyncio.get_running_loop().create_task(self._keepalive_loop())
        if self.settles:
            for tid in list(self.items):
                self._mark(tid)

    async def stop(self) -> None:
        self.live.remove_listener(self)
        with contextlib.suppress(ValueError):
            self.live.tournament_hooks.remove(self.notified)
        for task in [self._keepalive, self._refreshing, *self._tasks]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        for lt in self.items.values():
            for subs in lt.subscribers.values():
                for sub in list(subs):
                    sub.end()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ reading
    async def sync(self, tid: str) -> LiveTournament | None:
        """Fold what the store holds after what this process has folded."""
        lt = self.items.get(tid)
        after = lt.seq if lt is not None else 0
        events = await asyncio.to_thread(self.store.tournament_events, tid, after)
        if not events:
            return lt
        for e in events:
            if lt is not None and e.seq != lt.seq + 1:
                break  # folded meanwhile by another sync
            try:
                lt = apply(lt, tid, e)
            except (KeyError, TypeError, ValueError) as err:
                log.error("tournament %s: event %d cannot be folded: %s", tid, e.seq, err)
                break
        if lt is None:
            return None
        self.items[tid] = lt
        for live_id in lt.live.values():
            self.of_match[live_id] = tid
        self._tell_folded(tid, lt.seq)
        self._mark(tid)
        return lt

    def _tell_folded(self, tid: str, seq: int) -> None:
        for hook in tuple(self.folded):
            try:
                hook(tid, seq)
            except Exception:  # a hook must not raise: log it, tell the others
                log.exception("tournament %s: a folded hook failed", tid)

    async def sync_all(self) -> None:
        for tid, seq in await asyncio.to_thread(self.store.tournaments):
            lt = self.items.get(tid)
            if lt is None or lt.seq < seq:
                await self.sync(tid)

    def notified(self, tid: str | None, seq: int) -> None:
        """The store told of a tournament's event (``None``: listening again, check all)."""
        if tid is None:
            self._spawn(self.sync_all())
            return
        lt = self.items.get(tid)
        if lt is None or lt.seq < seq:
            self._spawn(self.sync(tid))

    async def ensure_loaded(self) -> None:
        """Fold the store's tournaments if :meth:`start` has not (an app served without
        its lifespan, as in-process clients may)."""
        if not self.loaded:
            self.live.add_listener(self)
            if self.notified not in self.live.tournament_hooks:
                self.live.tournament_hooks.append(self.notified)
            await self.sync_all()
            self.loaded = True

    async def loaded_all(self) -> list[LiveTournament]:
        await self.ensure_loaded()
        return self.all()

    def get(self, tid: str) -> LiveTournament | None:
        return self.items.get(tid)

    async def find(self, tid: str) -> LiveTournament | None:
        """The tournament ``tid``, read from the store when this process has not heard of
        it yet (an upload through another process a moment ago)."""
        await self.ensure_loaded()
        lt = self.items.get(tid)
        if lt is None and MATCH_ID.match(tid):
            lt = await self.sync(tid)
        return lt

    def all(self) -> list[LiveTournament]:
        return list(self.items.values())

    async def reports(self, lt: LiveTournament) -> dict[str, dict[str, Any]]:
        """Each live match's report now (a match the store lost shows as scheduled)."""
        out: dict[str, dict[str, Any]] = {}
        for mid, live_id in list(lt.live.items()):
            try:
                lm = await self.live.load(live_id)
            except StoreError:
                continue
            # the report last published (every event and horn publishes one): a change
            # of one match costs no fold of the others
            rep = lm.last_report
            out[mid] = rep if rep is not None and rep.get("seq") == lm.seq else (
                self.live.report(lm))
        return out

    async def view(self, lt: LiveTournament) -> tuple[Standings, dict[str, dict[str, Any]]]:
        """The standings and reports the pages show: computed once per change, never
        written (a page view writes nothing)."""
        task = self._refreshing
        if (self.settles and task is not None and not task.done()
                and task is not asyncio.current_task()
                and (lt.id in self._dirty or lt.id in self._settling or lt.last is None)):
            # what this process is settling now (a result just in) shows in this answer
            with contextlib.suppress(Exception):
                await asyncio.shield(task)
        last = lt.last
        if last is None:
            gen = lt.gen
            reports = await self.reports(lt)
            last = (played_standings(lt, reports), reports)
            if lt.gen == gen:  # nothing changed meanwhile: kept for the next views
                lt.last = last
        return last

    # ---------------------------------------------------------- listening to matches
    def follows(self, match_id: str) -> bool:
        """Only a tournament's live matches change it: for any other match the live
        service need not make a report for this listener (:class:`Listener`)."""
        return match_id in self.of_match

    def on_state(self, match_id: str, seq: int, report: Mapping[str, Any]) -> None:
        tid = self.of_match.get(match_id)
        if tid is not None:
            self._mark(tid)

    def on_event(self, match_id: str, seq: int, event: Mapping[str, Any]) -> None:
        pass

    def on_horn(self, match_id: str, horn: Mapping[str, Any]) -> None:
        pass

    def _mark(self, tid: str) -> None:
        """Something of ``tid`` changed: recompute it soon (once for a burst of changes)."""
        lt = self.items.get(tid)
        if lt is not None:
            lt.last = None
            lt.gen += 1
        self._dirty.add(tid)
        if self._refreshing is None or self._refreshing.done():
            with contextlib.suppress(RuntimeError):  # no loop: the next read recomputes
                self._refreshing = asyncio.get_running_loop().create_task(self._refresh_dirty())

    async def _refresh_dirty(self) -> None:
        await asyncio.sleep(0)  # let a burst of changes gather
        while self._dirty:
            tid = self._dirty.pop()
            lt = self.items.get(tid)
            if lt is None:
                continue
            # until its settling is written, a view of it waits for this task (a page
            # read just after a final's last event shows the next round's live match)
            self._settling.add(tid)
            try:
                await self.refresh(lt)
            except Exception:  # never stop following: log it, the next change tries again
                log.exception("tournament %s: refresh failed", tid)
            finally:
                self._settling.discard(tid)

    async def refresh(self, lt: LiveTournament) -> tuple[Standings, dict[str, Any]]:
        """Recompute what the pages show; push it if it changed; settle what is due."""
        lt.last = None
        s, reports = await self.view(lt)
        if self.settles and await self._settle(lt, s, reports):
            s, reports = await self.view(lt)
        d = (lt.seq, digest(reports))
        if d != lt.digest:
            lt.digest = d
            lt.version += 1
            self._push(lt, s, reports)
        for hook in self.refreshed:
            try:
                hook(lt, s, reports)
            except Exception:  # a hook must not raise: log it, the refresh is made
                log.exception("tournament %s: a refresh hook failed", lt.id)
        return s, reports

    # ---------------------------------------------------------------- the stream
    def subscribe(self, lt: LiveTournament, lang: str) -> Subscriber:
        sub = Subscriber(limit=self.live.queue_limit)
        lt.subscribers.setdefault(lang, set()).add(sub)
        return sub

    def unsubscribe(self, lt: LiveTournament, lang: str, sub: Subscriber) -> None:
        lt.subscribers.get(lang, set()).discard(sub)

    def _push(self, lt: LiveTournament, s: Standings, reports: dict[str, dict[str, Any]]
              ) -> None:
        if self.payload is None:
            return
        for lang, subs in lt.subscribers.items():
            if not subs:
                continue
            data = self.payload(lt, s, reports, lang)  # once per language, for all of them
            lt.outboxes.setdefault(lang, Outbox()).send(data, subs)
        lt.sent = time.monotonic()

    async def _keepalive_loop(self) -> None:
        while True:
            every = self.live.keepalive_every()
            await ticks.sleep_to(every)  # on the process's grid
            quiet = time.monotonic() - every
            for lt in list(self.items.values()):
                if lt.sent > quiet:
                    continue
                for lang, subs in lt.subscribers.items():
                    if subs:
                        lt.outboxes.setdefault(lang, Outbox()).send(b": keepalive\n\n", subs)

    # ------------------------------------------------------------------ writing
    async def _append(self, tid: str, w: TournamentWrite) -> None:
        await self.live._write(self.store.append_tournament, tid, w)

    def _made(self, lt: LiveTournament, s: Standings, now_ms: int
              ) -> tuple[dict[str, str], list[MatchRow]]:
        """Live matches for every fixture whose teams are known and has none yet."""
        made: dict[str, str] = {}
        rows: list[MatchRow] = []
        for m in lt.t.matches.values():
            if m.id in lt.live:
                continue
            try:
                rec = header(lt.t, m, s.match(m.id).teams)
            except NotReady:
                continue
            rec.pop("events", None)
            Setup.from_dict(rec)  # a header made from a checked tournament; the engine agrees
            live_id = new_match_id()
            # a match with no arena is the committee's to run (or to move to an arena)
            tk_hash = (lt.arena_hash.get(arena_key(m.arena)) or lt.arena_hash.get("")
                       or lt.committee_hash)
            rows.append(MatchRow(live_id, rec, now_ms, None, tk_hash, lt.committee_hash))
            made[m.id] = live_id
        return made, rows

    async def _settle(self, lt: LiveTournament, s: Standings,
                      reports: dict[str, dict[str, Any]]) -> bool:
        """Publish the results of fixtures whose live match is final and make the live
        matches whose teams became known; True if anything was written."""
        now = self.live.clock.now_ms()
        wrote = False
        async with lt.lock:
            for attempt in range(RETRIES):
                if attempt:
                    await self.sync(lt.id)
                    reports = await self.reports(lt)
                    s = played_standings(lt, reports)
                due = None
                for mid in sorted(lt.live):
                    r = s.match(mid)
                    if not r.final:
                        continue
                    said = plain({"match": mid, "live": lt.live[mid], "status": r.status,
                                  "score": r.score, "winner": r.winner,
                                  "forfeited": list(r.forfeited)})
                    known = lt.results.get(mid)
                    if known is None or {k: known.get(k) for k in said} != said:
                        due = said
                        break
                made, rows = self._made(lt, s, now)
                if due is None and not made:
                    return wrote
                kind = Kind.RESULT if due is not None else Kind.LIVE_MADE
                body = {**(due or {}), "made": made}
                e = TournamentEvent(lt.seq + 1, kind, plain(body), now)
                try:
                    await self._append(lt.id, TournamentWrite(e, tuple(rows)))
                except TournamentSeqTaken:
                    continue
                except StoreError as err:
                    log.warning("tournament %s: cannot settle now: %s", lt.id, err)
                    return wrote
                self._fold_own(lt, e)
                s = played_standings(lt, await self.reports(lt))
                wrote = True
        return wrote

    def _fold_own(self, lt: LiveTournament, e: TournamentEvent) -> None:
        apply(lt, lt.id, e)
        self.items[lt.id] = lt
        for live_id in lt.live.values():
            self.of_match[live_id] = lt.id
        self._tell_folded(lt.id, e.seq)

    async def _started(self, live_id: str) -> bool:
        try:
            lm = await self.live.load(live_id)
        except StoreError:
            return False
        return lm.seq > 0

    async def upload(self, t: Tournament, may_update: Callable[[LiveTournament], bool]
                     ) -> Uploaded:
        """Create a tournament, or update the same one (:func:`identity`) for whoever
        ``may_update`` it; refused with :class:`TournamentRefused`."""
        for mid, m in list(t.matches.items()):
            if m.record is not None:
                t.matches[mid] = replace(m, record=None)
        doc = plain(t.to_dict())
        arenas = named_arenas(t)
        now = self.live.clock.now_ms()
        for _attempt in range(RETRIES):
            await self.sync_all()
            same = next((x for x in self.items.values() if identity(x.t) == identity(t)), None)
            if same is None:
                tid = secrets.token_hex(4)
                committee = secrets.token_urlsafe(24)
                tokens: dict[str, str | None] = {a: secrets.token_urlsafe(24) for a in arenas}
                hashes = {a: hash_token(tk) for a, tk in tokens.items() if tk is not None}
                lt = LiveTournament(tid, doc, web_tournament(doc), hash_token(committee), hashes)
                made, rows = self._made(lt, played_standings(lt, {}), now)
                e = TournamentEvent(1, Kind.UPLOADED, plain({
                    "doc": doc, "committee_hash": lt.committee_hash, "arena_hash": hashes,
                    "made": made}), now)
                try:
                    await self._append(tid, TournamentWrite(e, tuple(rows)))
                except TournamentSeqTaken:
                    continue
                lt = apply(None, tid, e)
                self.items[tid] = lt
                self.of_match.update((live_id, tid) for live_id in lt.live.values())
                self._tell_folded(tid, e.seq)
                self._mark(tid)
                return Uploaded(lt, False, committee, tokens)
            if not may_update(same):
                raise TournamentRefused("tournament_exists", extra={"tournament_id": same.id},
                                        tournament_id=same.id,
                                        cause={"code": "tournament_needs_token", "params": {}})
            async with same.lock:
                kept, drop = await self._kept(same, t)
                tokens = {a: None if a in same.arena_hash else secrets.token_urlsafe(24)
                          for a in arenas}
                hashes = {a: same.arena_hash[a] for a in arenas if a in same.arena_hash}
                hashes |= {a: hash_token(tk) for a, tk in tokens.items() if tk is not None}
                if "" in same.arena_hash:  # made before matches with no arena had no arena
                    hashes[""] = same.arena_hash[""]
                after = LiveTournament(same.id, doc, web_tournament(doc), same.committee_hash,
                                       hashes, dict(kept))
                reports = {mid: rep for mid, rep in (same.last or (None, {}))[1].items()
                           if mid in kept}
                made, rows = self._made(after, played_standings(after, reports), now)
                e = TournamentEvent(same.seq + 1, Kind.UPDATED, plain({
                    "doc": doc, "arena_hash": hashes, "live": kept, "archived": drop,
                    "made": made}), now)
                try:
                    await self._append(same.id, TournamentWrite(e, tuple(rows), tuple(drop)))
                except TournamentSeqTaken:
                    continue
                self._fold_own(same, e)
                for live_id in drop:
                    self.of_match.pop(live_id, None)
            self._mark(same.id)
            return Uploaded(same, True, None, tokens)
        raise TournamentRefused("store_unavailable", reason=BUSY)

    async def _kept(self, old: LiveTournament, t: Tournament
                    ) -> tuple[dict[str, str], list[str]]:
        """The same tournament uploaded again: keep every match already played and those
        not started whose header and arena did not change; the others' live matches are
        archived. Refused when the file would change or drop a match already played."""
        reports = await self.reports(old)
        old.last = (played_standings(old, reports), reports)
        s_new = played_standings(
            LiveTournament(old.id, {}, t, old.committee_hash, old.arena_hash), reports)
        conflicts: list[Problem] = []
        keep: dict[str, str] = {}
        drop: list[str] = []
        for mid, live_id in old.live.items():
            started = await self._started(live_id)
            m_new = t.matches.get(mid)
            m_old = old.t.matches.get(mid)
            if m_new is None:
                if started:
                    conflicts.append(Problem.of(Subject.of("match", mid), "played_match_left_out"))
                else:
                    drop.append(live_id)
                continue
            try:
                new_header: dict[str, Any] | None = header(t, m_new, s_new.match(mid).teams)
            except NotReady:
                new_header = None
            try:
                lm = await self.live.load(live_id)
                old_header: dict[str, Any] | None = {
                    k: v for k, v in lm.row.header.items() if k != "events"}
            except StoreError:
                old_header = None
            if new_header is not None:
                new_header.pop("events", None)
            same_arena = m_old is not None and m_old.arena == m_new.arena
            if started:
                old_teams = [x.get("name") for x in (old_header or {}).get("teams", {}).values()]
                new_teams = [x.get("name") for x in (new_header or {}).get("teams", {}).values()]
                old_ids = None if m_old is None else [r.to_value() for r in m_old.teams]
                new_ids = [r.to_value() for r in m_new.teams]
                if new_header is None or (old_ids != new_ids and old_teams != new_teams):
                    conflicts.append(Problem.of(Subject.of("match", mid), "played_match_teams"))
                elif not same_arena:
                    conflicts.append(Problem.of(Subject.of("match", mid), "played_match_arena"))
                else:
                    keep[mid] = live_id  # played: its record stays as it was played
                continue
            if new_header is not None and new_header == old_header and same_arena:
                keep[mid] = live_id
            else:
                drop.append(live_id)
        if conflicts:
            raise TournamentRefused(
                "tournament_exists", conflicts, {"tournament_id": old.id},
                tournament_id=old.id,
                cause={"code": "tournament_played", "params": {"problems": [
                    str(p) for p in conflicts]}})
        return keep, drop

    async def move(self, lt: LiveTournament, mid: str, start: dt.datetime | None,
                   arena: str | None) -> LiveTournament:
        """The committee moves a match to another slot or arena; a live match not started
        is made again on the new arena (the old one archived) in the same transaction."""
        now = self.live.clock.now_ms()
        async with lt.lock:
            for _attempt in range(RETRIES):
                await self.sync(lt.id)
                m = lt.t.matches[mid]
                live_id = lt.live.get(mid)
                unlinked = False
                if arena is not None and arena != m.arena and live_id is not None:
                    if await self._started(live_id):
                        raise TournamentRefused("match_started", match_id=mid)
                    unlinked = True
                if arena is not None and arena_key(arena) not in lt.arena_hash:
                    raise TournamentRefused("unknown_arena", arena=arena)
                body: dict[str, Any] = {"match": mid, "start": start.isoformat() if start else None,
                                        "arena": arena, "unlinked": unlinked}
                after = LiveTournament(lt.id, lt.doc, web_tournament(lt.doc), lt.committee_hash,
                                       lt.arena_hash, dict(lt.live))
                move(after.t, mid, start, arena)
                if unlinked:
                    after.live.pop(mid, None)
                reports = await self.reports(after)
                made, rows = self._made(after, played_standings(after, reports), now)
                made = {k: v for k, v in made.items() if k == mid}
                rows = [r for r in rows if r.id in made.values()]
                body["made"] = made
                e = TournamentEvent(lt.seq + 1, Kind.MOVED, plain(body), now)
                archive = (live_id,) if unlinked and live_id is not None else ()
                try:
                    await self._append(lt.id, TournamentWrite(e, tuple(rows), archive))
                except TournamentSeqTaken:
                    continue
                self._fold_own(lt, e)
                if live_id is not None and unlinked:
                    self.of_match.pop(live_id, None)
                self._mark(lt.id)
                return lt
        raise TournamentRefused("store_unavailable", reason=BUSY)

    def may_follow(self, lt: LiveTournament, presented: str | None) -> bool:
        """Whether ``presented`` is the tournament's committee token or an arena's."""
        if not presented or len(presented) > 100:
            return False
        h = hash_token(presented)
        return any(hmac.compare_digest(h, known)
                   for known in (lt.committee_hash, *lt.arena_hash.values()))

