"""A live match and the values the live service hands out (:mod:`chukker.live.service`).

:class:`LiveMatch` is one match as a process holds it: its row, its folded engine, its
stored events, its streams and its horn cursor. :class:`Accepted` and :class:`Created`
are the answers of a submit and of a creation; :class:`Listener` is what a non-HTTP
adapter (arena feeds, relays, the NATS publisher, tournaments) implements.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from chukker.live.fanout import Outbox, Subscriber
from chukker.store import MatchRow, StoredEvent
from chukker.store.engine import Match


def hash_token(token: str) -> str:
    """>>> hash_token("abc")[:12]
    'ba7816bf8f01'
    """
    return hashlib.sha256(token.encode()).hexdigest()


def new_match_id() -> str:
    return secrets.token_hex(5)


class Listener(Protocol):
    """A non-HTTP adapter of the live service (arena feeds, horn relays, boards).

    Called synchronously on the event loop's thread: a listener must neither
    block nor raise (the service logs and swallows its exceptions); an adapter
    queues its own work. A listener may also have ``follows(match_id) -> bool``: where
    it answers False, and no stream or publisher wants the match either, the service
    makes no report after an event (``on_state`` is not called for it; ``on_event``
    is); without it a listener follows every match.
    """

    def on_state(self, match_id: str, seq: int, report: Mapping[str, Any]) -> None:
        """After every change of a match's state (event, undo, correction, horn),
        with the report the screens get."""

    def on_event(self, match_id: str, seq: int, event: Mapping[str, Any]) -> None:
        """Every accepted event as stored (undo included)."""

    def on_horn(self, match_id: str, horn: Mapping[str, Any]) -> None:
        """When this server's scheduler sounds a horn: ``{kind, period, at}`` (``at`` in
        epoch ms)."""


@dataclass(frozen=True, slots=True)
class WorkerRole:
    """Worker ``index`` of ``workers`` processes serving one port (``serve --workers``).

    >>> WorkerRole(0, 2).keeps_horns, WorkerRole(1, 2).keeps_horns
    (True, False)
    """

    index: int
    workers: int

    @property
    def keeps_horns(self) -> bool:
        """Worker 0 keeps the horns' audit and runs the arena feeds."""
        return self.index == 0


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
    #: who chose the event's ``at``: ``client`` (the posted one) or ``server``
    at_source: str = "server"
    #: why a posted ``at`` was not taken (``at_in_future``, ``at_too_old``, ...)
    note: str | None = None


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
    outbox: Outbox = field(default_factory=Outbox)
    #: the report last sent to the subscribers (patches are computed from it)
    last_report: dict[str, Any] | None = None
    #: (report, seq, message): the ``state`` message of ``last_report``, encoded once for
    #: every stream that opens until the report changes (a reconnecting crowd costs one
    #: encoding, not one per phone)
    state_sse: tuple[dict[str, Any], int, str] | None = None
    #: command_id -> stored event (idempotency without scanning the log)
    commands: dict[str, StoredEvent] = field(default_factory=dict)
    #: set while an accepted event is being made durable; readers wait for it
    inflight: asyncio.Future[None] | None = None
    #: monotonic time of the last request for this match
    used: float = 0.0
    #: monotonic time of the last message to its streams (keep-alives go to quiet ones only)
    sent: float = 0.0

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
        return self.stored[-1].at_ms if self.stored else 0
