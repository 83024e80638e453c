"""The app's state, typed (issue 45: settings injected once).

``create_app`` makes one :class:`AppState` at start and puts it in place of Starlette's
untyped ``app.state``; everything in ``web/`` reads it through :func:`state_of` (or
:func:`found_state` where a router may run on a bare app, as the rulebook's and the
plays' tests mount them), never with ``getattr(app.state, "x", None)``.

What comes from the settings, read once at start, is the frozen :class:`Configured`
(``state.configured``): nothing writes a module global or ``os.environ`` after start.
The live objects (the services, the pools, the caps, the throttle) stay attributes of
the state, as before: the tests replace some of them on a running app
(``app.state.heavy = Pools(...)``), and the app then uses the replacement.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette

from chukker.config import Settings
from chukker.i18n import LANGUAGES
from chukker.live import LiveService, WorkerRole
from chukker.live.tournaments import TournamentService
from chukker.ops.proxy import TrustedProxies
from chukker.web.gate import AddressGate
from chukker.web.heavy import Pools, pools_of
from chukker.web.limits import ConnectionTimeouts, Served, StreamCaps
from chukker.web.planes import Addresses, Plane
from chukker.web.security import Organiser, RateLimit, StreamTickets, Throttle

if TYPE_CHECKING:
    from chukker.edge import Replica
    from chukker.feeds.nats import NatsPublisher

__all__ = ["AppState", "Configured", "found_state", "pools", "state_of"]


@dataclass(frozen=True, slots=True)
class Configured:
    """What the settings decide for the whole process, read once at start.

    ``None`` where no setting was given (an app made without settings, as the tests make
    it): the module's default then, read where it is used (``fanout.KEEPALIVE_S``,
    ``limits.HEADER_TIMEOUT_S``, ``$CHUKKER_TOURNAMENTS_DIR``, ``$CHUKKER_RULES_DB``...),
    so that a test may still set it.

    >>> Configured().languages
    ('en', 'es', 'it')
    """

    #: the pages' languages (setting ``languages``)
    languages: tuple[str, ...] = LANGUAGES
    #: the tournaments' folder (setting ``tournaments_dir``)
    tournaments_dir: Path | None = None
    #: the rulebook's database (setting ``rules_db``)
    rules_db: str | None = None
    #: the HTTP protocol's deadlines (``limits.header_timeout_s``, ``limits.body_timeout_s``,
    #: ``limits.write_stall_s``)
    timeouts: ConnectionTimeouts = field(default_factory=ConnectionTimeouts)
    #: seconds between keep-alives on every stream (``server.stream_keepalive_s``)
    keepalive_s: float | None = None
    #: messages a slow stream may have queued (``limits.stream_queue``)
    queue_limit: int | None = None

    @classmethod
    def of(cls, s: Settings | None) -> Configured:
        """The settings' values (the defaults of :class:`Configured` without settings)."""
        if s is None:
            return cls()
        folder: Path | None = Path(s.tournaments_target())
        if s.source("tournaments_dir") == "default" and os.environ.get(
                "CHUKKER_TOURNAMENTS_DIR"):
            folder = None  # the environment's, as an older version's service was run
        return cls(languages=tuple(s.languages), tournaments_dir=folder,
                   rules_db=s.rules_database_target(),
                   timeouts=ConnectionTimeouts(s.limits.header_timeout_s,
                                               s.limits.body_timeout_s,
                                               s.limits.write_stall_s),
                   keepalive_s=s.server.stream_keepalive_s,
                   queue_limit=s.limits.stream_queue)


class AppState(Served):
    """``app.state`` of an app of :func:`chukker.web.app.create_app`, its fields typed.

    Every field is set by ``create_app`` (``edge`` by ``chukker edge`` after it)."""

    settings: Settings
    configured: Configured
    service: LiveService
    tournaments: TournamentService
    #: this process's place among several on one port (``None``: the only one)
    worker: WorkerRole | None
    plane: Plane
    addresses: Addresses
    heavy: Pools
    #: the MQTT feed (:class:`chukker.feeds.mqtt.MqttFeed`), in the horn keeper with mqtt.url
    feed: Any
    #: the NATS publisher, in the horn keeper with nats.url
    nats: NatsPublisher | None
    #: the replica of ``chukker edge`` (set by it after ``create_app``)
    edge: Replica | None
    throttle: Throttle
    streams: StreamCaps
    organiser: Organiser
    #: the officials' port's per-address caps (``None`` on the other planes)
    address_gate: AddressGate | None
    trusted_proxies: TrustedProxies
    stream_tickets: StreamTickets
    ticket_rate: RateLimit
    #: the flat feeds' answers, by (match, format, language)
    feed_cache: OrderedDict[tuple[str, str, str], tuple[float, bytes]]
    #: the last season computed: (what it was made from, the season)
    season_cache: tuple[Any, Any] | None
    #: the warm-up's requests and their statuses
    warmed: list[tuple[str, int]]
    observe_installed: bool

    @property
    def timeouts(self) -> ConnectionTimeouts:
        """The connections' deadlines (what the HTTP protocol reads)."""
        return self.configured.timeouts


def found_state(app: object) -> AppState | None:
    """The state of ``app`` if ``create_app`` made it (``None`` for a bare app)."""
    state = app.state if isinstance(app, Starlette) else None
    return state if isinstance(state, AppState) else None


def state_of(app: object) -> AppState:
    """The state of an app of ``create_app``; a ``TypeError`` for any other app."""
    found = found_state(app)
    if found is None:
        raise TypeError(f"{type(app).__name__} was not made by chukker.web.app.create_app")
    return found


def pools(app: object) -> Pools:
    """The app's heavy-work pools (one process-wide set for a router on a bare app)."""
    found = found_state(app)
    return pools_of(found.heavy if found is not None else None)
