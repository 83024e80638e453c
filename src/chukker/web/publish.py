"""The officials' process publishes to NATS JetStream (``[nats] url``): the wiring.

The publisher (:class:`chukker.feeds.nats.NatsPublisher`) listens to the live
service; what it publishes comes from the service's memory for a loaded match (no
store read), else from the store in a worker thread (never the store's write
executor: a key press never queues behind it).

It also follows the tournament service (issue 40): each tournament event this process
folds is published on ``<prefix>.tournament.<id>``, after the headers of the live
matches the tournament has (so an edge shows a match made but not started as
pre-match); a match created through the API is published at once, with its header
alone; the horns' audit rows and the archive flags go out once stored.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chukker.live.service import LiveService
from chukker.store import MatchRow, StoredEvent, UnknownMatch
from chukker.store.base import TOURNAMENT_PREFIX, tournament_key

if TYPE_CHECKING:
    from chukker.feeds.nats import NatsPublisher
    from chukker.live.tournaments import TournamentService


def make_publisher(svc: LiveService, settings: Any) -> NatsPublisher | None:
    """The publisher of ``settings`` (``None`` without ``nats.url``)."""
    if settings is None or not settings.nats.url:
        return None  # without NATS nothing changes: nats-py is not even imported
    from chukker.feeds.nats import (
        NatsPublisher,
        event_body,
        header_body,
        horn_body,
        tournament_body,
    )

    async def source(key: str, after: int) -> list[tuple[int, bytes]] | None:
        if key.startswith(TOURNAMENT_PREFIX):
            tid = key[len(TOURNAMENT_PREFIX):]
            got = await asyncio.to_thread(svc.store.tournament_events, tid, max(after, 0))
            if not got and after <= 0:
                return None
            return [(e.seq, tournament_body(tid, e.seq, e.kind, e.body, e.recorded_ms))
                    for e in got]
        lm = svc.loaded_match(key)
        row: MatchRow
        events: list[StoredEvent]
        if lm is not None:
            row, events = lm.row, lm.stored[max(after, 0):]
        else:
            try:
                row = await asyncio.to_thread(svc.store.get_match, key)
            except UnknownMatch:
                return None
            events = await asyncio.to_thread(svc.store.events, key, max(after, 0))
        out: list[tuple[int, bytes]] = []
        if after < 0:
            out.append((0, header_body(row.id, row.header, row.created_ms)))
        out.extend((e.seq, event_body(row.id, e.seq, e.command_id, e.event, e.recorded_ms,
                                      e.actor, row.start_ms)) for e in events)
        return out

    async def horns(match_id: str) -> list[tuple[str, bytes]]:
        rows = await asyncio.to_thread(svc.store.horns, match_id)
        return [(f"{h.at_ms}.{h.kind}", horn_body(match_id, h.at_ms, h.period, h.kind,
                                                   h.sounded_ms)) for h in rows]

    async def archived() -> list[str]:
        return sorted(await asyncio.to_thread(svc.store.archived))

    return NatsPublisher(settings.nats, source, horns, archived)


@dataclass
class _Hooks:
    """What :func:`start_publisher` hooked, undone by :func:`stop_publisher`."""

    created: Callable[[str], None] | None = None
    folded: Callable[[str, int], None] | None = None


_HOOKS: weakref.WeakKeyDictionary[NatsPublisher, _Hooks] = weakref.WeakKeyDictionary()


async def start_publisher(svc: LiveService, pub: NatsPublisher,
                          tsvc: TournamentService | None = None) -> None:
    """Listen to ``svc`` (and ``tsvc``); every match it has loaded and every tournament
    is caught up with the stream."""
    svc.add_listener(pub)
    await pub.start()
    for lm in svc.loaded_matches():
        pub.note(lm.id, lm.seq)
        pub.horn_note(lm.id, 0)
    hooks = _HOOKS[pub] = _Hooks()

    def created(match_id: str) -> None:
        """A match created here is published at once with its header (an edge shows it
        as pre-match)."""
        pub.note(match_id, 0)

    hooks.created = created
    svc.created_hooks.append(created)
    if tsvc is not None:
        def folded(tid: str, seq: int) -> None:
            lt = tsvc.get(tid)
            for live_id in (lt.live.values() if lt is not None else ()):
                pub.note(live_id, 0)  # its header first (no-op once published)
            pub.note(tournament_key(tid), seq)

        hooks.folded = folded
        tsvc.folded.append(folded)
        for lt in tsvc.all():
            folded(lt.id, lt.seq)


async def stop_publisher(svc: LiveService, pub: NatsPublisher,
                         tsvc: TournamentService | None = None) -> None:
    svc.remove_listener(pub)
    hooks = _HOOKS.pop(pub, _Hooks())
    if hooks.created is not None and hooks.created in svc.created_hooks:
        svc.created_hooks.remove(hooks.created)
    if tsvc is not None and hooks.folded in tsvc.folded:
        tsvc.folded.remove(hooks.folded)
    await pub.stop()
