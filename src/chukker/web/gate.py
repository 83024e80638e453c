"""The officials' port's door for anonymous callers (issue 41).

The officials' plane (:mod:`chukker.web.planes`) serves the timekeeper's console and its
API; anyone who learns its address could otherwise keep it busy with connections and
with the ``307`` it answers to every anonymous page or stream. :class:`AddressGate` is
asked by the HTTP protocol (:class:`chukker.web.limits.GuardedHttp`) once a request's
head is read, before any routing, parsing or store work:

* a request with a *proven* credential (a match's timekeeper or committee token in
  ``Authorization: Bearer``, the organiser's token, or a valid stream ticket) always
  passes: a console with a token is never capped by a crowd, even one at its address;
* any other request counts against its address: at most :attr:`AddressGate.connections`
  connections open at once, and a token bucket of requests (``burst``, then ``rate`` per
  second). A credential that this door cannot prove (a tournament's token, a match not
  loaded yet, a wrong token) has a bucket of its own, so an anonymous crowd never spends
  it. Over either cap the answer is ``429 rate_limited`` and the connection is closed.

Behind a trusted proxy (setting ``trusted_proxies``) the address is the client's it
forwards for, and the proxy's own connections are not capped.

**The door** (:meth:`AddressGate.door`): before any of that, when a connection is
accepted (:meth:`chukker.web.limits.GuardedHttp.connection_made`, before the protocol
reads a byte), an address that has twice its cap of connections open, or is over its
bucket of new connections (:data:`DOOR_FACTOR` times the requests' ``burst`` and
``rate``: a caller that only asks too often is answered ``429`` first, a flood meets the
door), has the connection reset at once and is *shut out* for :data:`SHUT_S` seconds:
its new connections are reset as they come, and, where the kernel can
(:mod:`chukker.web.sockfilter`, Linux), the listening socket drops its packets, so that
a flood costs the officials' event loop nothing. Nothing is logged per refusal; the
gate counts them (``reset``, ``shutouts``). Connections already open are never cut.

An address that showed a proven credential in the last :data:`VOUCH_S` seconds is
*vouched for* and never shut out: a console behind the same address as a crowd keeps its
door open (that crowd then meets the per-request caps above, answered ``429``). A
console that has not yet shown its token from an address a flooding crowd shares is
kept out with the crowd until one of its connections comes in between two shut-outs
(its ``connect`` retries by itself); its first proven request vouches for the address.

>>> g = AddressGate(connections=2, rate=1.0, burst=2.0)
>>> g.opened("a"); g.opened("a"); g.opened("a")
>>> g.admits("a", Proof.NONE), g.admits("a", Proof.PROVEN), g.admits("b", Proof.NONE)
(False, True, True)
>>> sum(g.door("b") for _ in range(30)), g.door("b"), g.door("a"), g.door("c"), g.shut_out
(20, False, True, True, ('b',))
"""

from __future__ import annotations

import asyncio
import hmac
import socket
import time
from collections import Counter
from enum import StrEnum
from typing import Any, Protocol
from urllib.parse import parse_qsl

from chukker.config import LimitSettings
from chukker.live.service import LiveService
from chukker.web.security import Organiser, RateLimit, StreamTickets, bearer, match_secret
from chukker.web.sockfilter import KernelDoor

API_MATCH = "/api/matches/"
#: the door's bucket of new connections per address, in requests' buckets
DOOR_FACTOR = 10
#: connections open at once past which an address is shut out, in its cap
DOOR_OPEN = 2
#: seconds an address refused at the door stays shut out
SHUT_S = 10.0
#: seconds an address that showed a proven credential is never shut out
VOUCH_S = 1800.0
#: the officials' listening socket's queue of connections not yet accepted: a flood's
#: first burst (before its address is shut out) is at most this many connections for
#: the loop to reset at once; the officials' callers are a few dozen
OFFICIALS_BACKLOG = 64


class Proof(StrEnum):
    """What a request shows of who sends it."""

    NONE = "none"  # anonymous
    CLAIMED = "claimed"  # a credential this door cannot prove (the handler checks it)
    PROVEN = "proven"  # a match's token, the organiser's, a valid stream ticket


class AddressGate:
    """Per-address caps of the officials' port (see the module)."""

    def __init__(self, connections: int = 32, rate: float = 20.0, burst: float = 60.0,
                 capacity: int = 10_000) -> None:
        self.connections = connections
        self.open: Counter[str] = Counter()
        self.anonymous = RateLimit(burst, rate, capacity)
        self.claimed = RateLimit(burst, rate, capacity)
        #: new connections per address (the door)
        self.connects = RateLimit(burst * DOOR_FACTOR, rate * DOOR_FACTOR, capacity)
        self.capacity = capacity
        #: requests refused (429), connections reset at the door, addresses shut out so far
        self.refused = self.reset = self.shutouts = 0
        #: address -> monotonic time its shut-out ends (in that order)
        self._shut: dict[str, float] = {}
        #: address -> monotonic time it stops being vouched for
        self._vouched: dict[str, float] = {}
        self.kernel: KernelDoor | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._dirty = self._stale = False

    @classmethod
    def from_settings(cls, limits: LimitSettings) -> AddressGate:
        """From the settings' ``limits`` (``officials_connections_per_address``,
        ``officials_rate``).

        >>> g = AddressGate.from_settings(LimitSettings(officials_rate=2.0))
        >>> g.connections, g.anonymous.rate, g.anonymous.burst
        (32, 2.0, 6.0)
        """
        rate = limits.officials_rate
        return cls(limits.officials_connections_per_address, rate, max(1.0, rate * 3))

    def guard(self, sock: socket.socket) -> bool:
        """Have the kernel drop the shut-out addresses' packets on the listening socket
        ``sock`` (:mod:`chukker.web.sockfilter`); whether it can."""
        self.kernel = KernelDoor.attach(sock)
        return self.kernel is not None

    def counts(self) -> tuple[int, int, int, int]:
        """Requests refused, connections reset, addresses shut out so far, and shut out
        now: what ``/metrics`` shows (``chukker_officials_door_total``).

        >>> AddressGate().counts()
        (0, 0, 0, 0)
        """
        return self.refused, self.reset, self.shutouts, len(self.shut_out)

    @property
    def shut_out(self) -> tuple[str, ...]:
        """The addresses shut out now."""
        now = time.monotonic()
        return tuple(a for a, until in self._shut.items() if until > now)

    def vouch(self, address: str) -> None:
        """``address`` showed a proven credential: never shut out for :data:`VOUCH_S`."""
        self._vouched.pop(address, None)
        while len(self._vouched) >= self.capacity:
            del self._vouched[next(iter(self._vouched))]
        self._vouched[address] = time.monotonic() + VOUCH_S
        if address in self._shut:
            del self._shut[address]
            self._changed()

    def door(self, peer: str) -> bool:
        """May a connection from ``peer`` (not a trusted proxy) just accepted be served?
        No work beyond a few dictionary look-ups; a refusal is counted, never logged."""
        now = time.monotonic()
        until = self._vouched.get(peer)
        if until is not None:
            if until > now:
                return True
            del self._vouched[peer]
        until = self._shut.get(peer)
        if until is not None:
            if until > now:
                self.reset += 1
                return False
            del self._shut[peer]
        if (self.open.get(peer, 0) >= DOOR_OPEN * self.connections
                or self.connects.take(peer) > 0):
            self.reset += 1
            self.shutouts += 1
            while len(self._shut) >= self.capacity:
                del self._shut[next(iter(self._shut))]
            self._shut[peer] = now + SHUT_S
            self._changed()
            return False
        return True

    def _changed(self) -> None:
        """The shut-out list changed: the kernel's filter follows at once (the address's
        next packets are dropped), then at most once more per loop turn."""
        if self.kernel is None:
            return
        self._stale = True
        if self._dirty:
            return
        self._apply()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a direct call)
            return
        self._dirty = True
        loop.call_soon(self._settle)

    def _settle(self) -> None:
        self._dirty = False
        if self._stale:
            self._changed()

    def _apply(self) -> None:
        self._stale = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        now = time.monotonic()
        for a in [a for a, until in self._shut.items() if until <= now]:
            del self._shut[a]
        if self.kernel is None:
            return
        self.kernel.apply(list(self._shut))
        if self._shut:  # lifted when the first one's time is up
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            first = next(iter(self._shut.values()))
            self._timer = loop.call_later(max(0.05, first - now), self._apply)

    def opened(self, address: str) -> None:
        self.open[address] += 1

    def closed(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]

    def crowded(self, address: str) -> bool:
        """The address has more connections open than its cap."""
        return self.open.get(address, 0) > self.connections

    def admits(self, address: str, proof: Proof, connection: str | None = None) -> bool:
        """Whether a request of ``address`` (over a connection from ``connection``, the
        peer: ``None`` for a trusted proxy's, which is not capped) may go on."""
        peer = address if connection is None else connection
        if proof is Proof.PROVEN:
            if peer:
                self.vouch(peer)
            return True
        if connection != "" and self.crowded(peer):
            self.refused += 1
            return False
        bucket = self.anonymous if proof is Proof.NONE else self.claimed
        if bucket.take(address) > 0:
            self.refused += 1
            return False
        return True


class Vouching(Protocol):
    """What :func:`proof_of` reads of the app's state: its organiser and live service."""

    @property
    def organiser(self) -> Organiser: ...

    @property
    def service(self) -> LiveService: ...


def proof_of(state: Vouching | None, path: str, query: bytes, authorization: bytes | None) -> Proof:
    """What a request (its path, raw query and ``Authorization``) proves, from the app's
    ``state`` (its live service and organiser), with no store work: a match's tokens
    are checked against its loaded row only.

    >>> proof_of(None, "/m/x/console", b"", None)
    <Proof.NONE: 'none'>
    >>> proof_of(None, "/api/matches/x/events", b"", b"Bearer nope")
    <Proof.CLAIMED: 'claimed'>
    """
    token = bearer(authorization.decode("latin-1")) if authorization else None
    ticket = None
    if b"ticket=" in query:
        ticket = next((v for k, v in parse_qsl(query.decode("latin-1")[:2048])
                       if k == "ticket"), None)
    if token is None and ticket is None:
        return Proof.NONE
    organiser = state.organiser.token if state is not None else None
    if token is not None and organiser and hmac.compare_digest(token.encode(),
                                                               organiser.encode()):
        return Proof.PROVEN
    svc = state.service if state is not None else None
    if svc is None or not path.startswith(API_MATCH):
        return Proof.CLAIMED
    lm = svc.loaded_match(path[len(API_MATCH):].split("/", 1)[0])
    if lm is None:
        return Proof.CLAIMED
    if token is not None and svc.role_of(lm, token) is not None:
        return Proof.PROVEN
    if ticket is not None and _ticket_ok(lm, ticket):
        return Proof.PROVEN
    return Proof.CLAIMED


def _ticket_ok(lm: Any, ticket: str) -> bool:
    """``ticket`` is a stream ticket of the match ``lm`` not yet expired (its single use
    is the stream handler's to check)."""
    parts = ticket.split(".")
    if len(parts) != 3 or not parts[0].isdigit() or len(parts[0]) > 16:
        return False
    key = match_secret(lm.id, lm.row.timekeeper_hash, lm.row.committee_hash)
    mac = StreamTickets._mac(key, lm.id, parts[0], parts[1])
    return hmac.compare_digest(mac, parts[2]) and int(parts[0]) / 1000 > time.time()
