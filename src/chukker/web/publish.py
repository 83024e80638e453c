"""The officials' process publishes to NATS JetStream (``[nats] url``): the wiring.

The publisher (:class:`chukker.feeds.nats.NatsPublisher`) listens to the live
service; what it publishes comes from the service's memory for a loaded match (no
store read), else from the store in a worker thread (never the store's write
executor: a key press never queues behind it).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from chukker.live.service import LiveService
from chukker.store import MatchRow, StoredEvent, UnknownMatch

if TYPE_CHECKING:
    from chukker.feeds.nats import NatsPublisher


def make_publisher(svc: LiveService, settings: Any) -> NatsPublisher | None:
    """The publisher of ``settings`` (``None`` without ``nats.url``)."""
    if settings is None or not settings.nats.url:
        return None  # without NATS nothing changes: nats-py is not even imported
    from chukker.feeds.nats import NatsPublisher, event_body, header_body

    async def source(match_id: str, after: int) -> list[tuple[int, bytes]] | None:
        lm = svc.loaded_match(match_id)
        row: MatchRow
        events: list[StoredEvent]
        if lm is not None:
            row, events = lm.row, lm.stored[max(after, 0):]
        else:
            try:
                row = await asyncio.to_thread(svc.store.get_match, match_id)
            except UnknownMatch:
                return None
            events = await asyncio.to_thread(svc.store.events, match_id, max(after, 0))
        out: list[tuple[int, bytes]] = []
        if after < 0:
            out.append((0, header_body(row.id, row.header, row.created_ms)))
        out.extend((e.seq, event_body(row.id, e.seq, e.command_id, e.event, e.recorded_ms,
                                      e.actor, row.start_ms)) for e in events)
        return out

    return NatsPublisher(settings.nats, source)


async def start_publisher(svc: LiveService, pub: NatsPublisher) -> None:
    """Listen to ``svc``; every match it has loaded is caught up with the stream."""
    svc.add_listener(pub)
    await pub.start()
    for lm in svc.loaded_matches():
        pub.note(lm.id, lm.seq)


async def stop_publisher(svc: LiveService, pub: NatsPublisher) -> None:
    svc.remove_listener(pub)
    await pub.stop()
