"""The app's state, typed (issue 45: settings injected once).

``create_app`` makes one :class:`AppState` at start and puts it in place of Starlette's
untyped ``app.state``; everything in ``web/`` reads it through :func:`state_of` (or
:func:`found_state` where a router may run on a bare app, as the rulebook's and the
plays' tests mount them), never with ``getattr(app.state, "x", None)``.

What comes from the settings, read once at start, is the frozen :class:`Configured`
(``state.configured``): nothing writes a module global or ``os.environ`` after start.
What ``create_app`` makes from them, or is given in their place (a test's pools,
throttle, stream caps, tickets or addresses: ``create_app(heavy=Pools(...))``), and
never replaces is the frozen :class:`Fixed`. What changes as the app serves lives in
holders made at start (:class:`Caches`, :class:`StartUp`). ``app.state`` itself takes no
write after start: any assignment is an ``AttributeError``.
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

__all__ = ["AppState", "Caches", "Configured", "Fixed", "StartUp", "found_state",
           "pools", "state_of"]


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


@dataclass(frozen=True, slots=True)
class Fixed:
    """What ``create_app`` makes at start, from the settings (or is given in their place),
    and never replaces: the settings and what they decide, the services, this process's
    place, the tokens' checks, the feeds' publishers, where each plane is, the heavy
    work's pools and the limits kept as it serves."""

    settings: Settings
    configured: Configured
    service: LiveService
    tournaments: TournamentService
    #: this process's place among several on one port (``None``: the only one, or an edge)
    worker: WorkerRole | None
    plane: Plane
    organiser: Organiser
    #: the officials' port's per-address caps (``None`` on the other planes)
    address_gate: AddressGate | None
    trusted_proxies: TrustedProxies
    #: the stream tickets' rate, per (address, match)
    ticket_rate: RateLimit
    #: where each plane is served (the other plane's pages answer 307 there)
    addresses: Addresses
    #: heavy work's own bounded pools (web/heavy.py)
    heavy: Pools
    #: the bad tokens' strikes, per (address, match)
    throttle: Throttle
    #: the live streams' caps
    streams: StreamCaps
    #: the stream tickets (the officials' and the screens' precedence)
    stream_tickets: StreamTickets
    #: the MQTT feed (:class:`chukker.feeds.mqtt.MqttFeed`), in the horn keeper with mqtt.url
    feed: Any = None
    #: the NATS publisher, in the horn keeper with nats.url
    nats: NatsPublisher | None = None
    #: the replica an edge serves from (``chukker edge``; ``None`` elsewhere)
    edge: Replica | None = None


@dataclass(slots=True)
class Caches:
    """The app's caches: made empty at start, filled as it serves."""

    #: the flat feeds' answers, by (match, format, language)
    feeds: OrderedDict[tuple[str, str, str], tuple[float, bytes]] = field(
        default_factory=OrderedDict)
    #: the last season computed: (what it was made from, the season)
    season: tuple[Any, Any] | None = None


@dataclass(slots=True)
class StartUp:
    """What the app's start-up did, told after ``create_app``: the warm-up's requests and
    their statuses (by the lifespan), and whether health, metrics and the access log were
    added (``chukker.web.ops.observe.install``)."""

    warmed: list[tuple[str, int]] = field(default_factory=list)
    observed: bool = False


class AppState(Served):
    """``app.state`` of an app of :func:`chukker.web.app.create_app`, made whole at start.

    Its parts: :attr:`fixed` (frozen, read through the properties below) and two holders
    of what changes as it serves, :attr:`caches` and :attr:`start_up`. A test that wants
    another part gives it to ``create_app``; any write to the state after start is an
    ``AttributeError``."""

    fixed: Fixed
    caches: Caches
    start_up: StartUp

    def __init__(self, fixed: Fixed) -> None:
        super().__init__()
        parts = {"fixed": fixed, "caches": Caches(), "start_up": StartUp()}
        for name, value in parts.items():  # in the instance, as a class's attributes are
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"app.state.{name} is fixed at start (web/state.py): give it "
                             "to create_app")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"app.state.{name} is fixed at start (web/state.py)")

    def __setitem__(self, key: str, value: Any) -> None:
        raise TypeError("app.state takes no items: its parts are fixed at start")

    @property
    def settings(self) -> Settings:
        return self.fixed.settings

    @property
    def configured(self) -> Configured:
        return self.fixed.configured

    @property
    def service(self) -> LiveService:
        return self.fixed.service

    @property
    def tournaments(self) -> TournamentService:
        return self.fixed.tournaments

    @property
    def worker(self) -> WorkerRole | None:
        return self.fixed.worker

    @property
    def plane(self) -> Plane:
        return self.fixed.plane

    @property
    def organiser(self) -> Organiser:
        return self.fixed.organiser

    @property
    def address_gate(self) -> AddressGate | None:
        return self.fixed.address_gate

    @property
    def trusted_proxies(self) -> TrustedProxies:
        return self.fixed.trusted_proxies

    @property
    def ticket_rate(self) -> RateLimit:
        return self.fixed.ticket_rate

    @property
    def feed(self) -> Any:
        return self.fixed.feed

    @property
    def nats(self) -> NatsPublisher | None:
        return self.fixed.nats

    @property
    def edge(self) -> Replica | None:
        return self.fixed.edge

    @property
    def addresses(self) -> Addresses:
        return self.fixed.addresses

    @property
    def heavy(self) -> Pools:
        return self.fixed.heavy

    @property
    def throttle(self) -> Throttle:
        return self.fixed.throttle

    @property
    def streams(self) -> StreamCaps:
        return self.fixed.streams

    @property
    def stream_tickets(self) -> StreamTickets:
        return self.fixed.stream_tickets

    @property
    def public_url(self) -> str:
        """The public plane's configured base URL (the addresses', else the setting
        ``server.public_url``; ``""`` when neither is set)."""
        return self.addresses.public_url or self.settings.server.public_url

    @property
    def feed_cache(self) -> OrderedDict[tuple[str, str, str], tuple[float, bytes]]:
        """The flat feeds' answers (:attr:`Caches.feeds`)."""
        return self.caches.feeds

    @property
    def warmed(self) -> list[tuple[str, int]]:
        """The warm-up's requests and their statuses (:attr:`StartUp.warmed`)."""
        return self.start_up.warmed

    @property
    def timeouts(self) -> ConnectionTimeouts:
        """The connections' deadlines (what the HTTP protocol reads)."""
        return self.fixed.configured.timeouts


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
