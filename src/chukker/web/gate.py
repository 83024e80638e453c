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

>>> g = AddressGate(connections=2, rate=1.0, burst=2.0)
>>> g.opened("a"); g.opened("a"); g.opened("a")
>>> g.admits("a", Proof.NONE), g.admits("a", Proof.PROVEN), g.admits("b", Proof.NONE)
(False, True, True)
"""

from __future__ import annotations

import hmac
import time
from collections import Counter
from enum import StrEnum
from typing import Any
from urllib.parse import parse_qsl

from chukker.web.security import RateLimit, StreamTickets, bearer, match_secret

API_MATCH = "/api/matches/"


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
        self.refused = 0

    @classmethod
    def from_settings(cls, limits: Any) -> AddressGate:
        """From the settings' ``limits`` (``officials_connections_per_address``,
        ``officials_rate``)."""
        rate = float(getattr(limits, "officials_rate", 20.0))
        return cls(int(getattr(limits, "officials_connections_per_address", 32)), rate,
                   max(1.0, rate * 3))

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
        if proof is Proof.PROVEN:
            return True
        peer = address if connection is None else connection
        if connection != "" and self.crowded(peer):
            self.refused += 1
            return False
        bucket = self.anonymous if proof is Proof.NONE else self.claimed
        if bucket.take(address) > 0:
            self.refused += 1
            return False
        return True


def proof_of(state: Any, path: str, query: bytes, authorization: bytes | None) -> Proof:
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
    organiser = getattr(getattr(state, "organiser", None), "token", None)
    if token is not None and organiser and hmac.compare_digest(token.encode(),
                                                               organiser.encode()):
        return Proof.PROVEN
    svc = getattr(state, "service", None)
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
