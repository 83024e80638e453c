"""Request size limit, bad-token throttling, rate limits, the organiser credential,
strict input checks and CSRF tokens for form posts."""

from __future__ import annotations

import base64
import hashlib
import hmac
import math
import os
import re
import secrets
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Protocol

from fastapi import Header, Request
from starlette.applications import Starlette
from starlette.requests import HTTPConnection

from chukker.errors import ChukkerError
from chukker.ops.proxy import TrustedProxies, client_of_app_scope, forwarded_origin
from chukker.web.proxied import Proxied, proxies_of


class Throttle:
    """Slow down clients that keep presenting bad tokens to one match.

    Strikes are counted per ``(address, match)``, and only for tokens that are
    not the match's: a valid token is recognised first and always passes, so
    bad tokens from a venue's shared address never lock the real timekeeper
    out. After ``free`` bad tokens each further one waits twice as long as the
    one before (up to ``max_delay`` seconds); after ``block`` the pair gets 429
    until it has been quiet for ``window`` seconds. At most ``capacity`` pairs
    are kept; the least recently seen is forgotten first (never all at once).

    >>> t = Throttle(free=1, block=3)
    >>> [t.fail(("ip", "m1")) for _ in range(3)], t.blocked(("ip", "m1")), t.blocked(("ip", "m2"))
    ([0.0, 0.05, 0.1], True, False)
    """

    def __init__(self, free: int = 3, block: int = 30, window: float = 600.0,
                 max_delay: float = 2.0, capacity: int = 10_000) -> None:
        self.free, self.block, self.window, self.max_delay = free, block, window, max_delay
        self.capacity = capacity
        self._strikes: OrderedDict[Hashable, _Strikes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._strikes)

    def _get(self, key: Hashable) -> _Strikes | None:
        s = self._strikes.get(key)
        if s is not None and time.monotonic() - s.last > self.window:
            del self._strikes[key]
            return None
        return s

    def blocked(self, key: Hashable) -> bool:
        s = self._get(key)
        return s is not None and s.count >= self.block

    def fail(self, key: Hashable) -> float:
        """Count a bad token; return how long to wait before answering."""
        s = self._get(key)
        if s is None:
            while len(self._strikes) >= self.capacity:
                self._strikes.popitem(last=False)
            s = self._strikes[key] = _Strikes(0, 0.0)
        else:
            self._strikes.move_to_end(key)
        s.count += 1
        s.last = time.monotonic()
        over = s.count - self.free
        return 0.0 if over <= 0 else min(self.max_delay, 0.05 * 2 ** (over - 1))


#: scripts only from the site's own files (no inline code: pages pass their data in
#: ``<script type="application/json">`` blocks); pages may be framed by nobody, except
#: the overlay, which streaming software embeds
CSP = ("default-src 'self'; script-src 'self'{scripts}; style-src 'self' 'unsafe-inline'; "
       "img-src 'self' data:; media-src 'self' data:; connect-src 'self'; object-src 'none'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors {ancestors}")
#: the API documentation pages (FastAPI's Swagger UI / ReDoc pages, served from the
#: package) start their viewer with an inline script: it is allowed by its hash (their
#: doors' ``inline_scripts``, :mod:`chukker.web.doors`; the guard sets the headers)
_INLINE_SCRIPT = re.compile(rb"<script(?![^>]*\bsrc=)[^>]*>(.*?)</script>", re.S | re.I)


def inline_script_hashes(html: bytes) -> str:
    """The CSP sources (``'sha256-…'``) of the inline scripts of ``html``.

    >>> inline_script_hashes(b"<script src=x></script><script>a()</script>")
    " 'sha256-qVpDBgj7bpq5hMAcGp3AOc79J3Y1Z4HvySTwKrWDoy4='"
    """
    return "".join(" 'sha256-" + base64.b64encode(hashlib.sha256(m.group(1)).digest()).decode()
                   + "'" for m in _INLINE_SCRIPT.finditer(html))


@dataclass
class _Strikes:
    count: int
    last: float


class RateLimit:
    """A token bucket per key: ``burst`` at once, then ``rate`` per second.

    ``take`` answers 0.0 when the request may go, else the seconds to wait.
    At most ``capacity`` keys are kept (least recently used forgotten first).

    >>> r = RateLimit(burst=2, rate=0.5)
    >>> [r.take("a") == 0.0 for _ in range(3)], r.take("b")
    ([True, True, False], 0.0)
    """

    def __init__(self, burst: float, rate: float, capacity: int = 10_000) -> None:
        self.burst, self.rate, self.capacity = burst, rate, capacity
        self._buckets: OrderedDict[Hashable, list[float]] = OrderedDict()

    def take(self, key: Hashable) -> float:
        now = time.monotonic()
        b = self._buckets.get(key)
        if b is None:
            while len(self._buckets) >= self.capacity:
                self._buckets.popitem(last=False)
            b = self._buckets[key] = [self.burst, now]
        else:
            self._buckets.move_to_end(key)
            b[0] = min(self.burst, b[0] + (now - b[1]) * self.rate)
            b[1] = now
        if b[0] >= 1.0:
            b[0] -= 1.0
            return 0.0
        return (1.0 - b[0]) / self.rate if self.rate > 0 else 3600.0


def client_address(request: HTTPConnection) -> str:
    """The address every per-address limit and log uses for ``request``.

    The peer's address, or, when the peer is a trusted proxy (setting
    ``trusted_proxies``), the client it forwards for (:mod:`chukker.ops.proxy`).
    """
    return client_of_app_scope(request.scope, proxies_of(request.app))


# ------------------------------------------------------------------ absolute links
class PublicPlane(Protocol):
    """What :func:`public_base` reads of an app's state (``chukker.web.state.AppState``)."""

    @property
    def public_url(self) -> str:
        """The public plane's configured base URL, ``""`` when none is set."""

    @property
    def trusted_proxies(self) -> TrustedProxies: ...


def public_base(state: PublicPlane, scope: Mapping[str, Any] | None = None) -> str:
    """Where the crowd reaches the public plane, without a trailing ``/``: the
    ``server.public_url`` setting, else the origin a trusted proxy forwards (setting
    ``trusted_proxies``, header ``proxy_header``) for the request ``scope``, else ``""``.
    Never the request's ``Host``: one request naming ``evil.example`` would otherwise
    put it in the links and QR codes that every later visitor gets from the page cache
    (issue 41).

    >>> from types import SimpleNamespace as NS
    >>> public_base(NS(public_url="https://arena.example/", trusted_proxies=TrustedProxies()))
    'https://arena.example'
    >>> public_base(NS(public_url="", trusted_proxies=TrustedProxies()),
    ...             {"client": ("198.51.100.7", 1), "headers": [(b"host", b"evil")]})
    ''
    """
    if state.public_url:
        return state.public_url.rstrip("/")
    if scope is not None:
        return forwarded_origin(state.trusted_proxies, scope) or ""
    return ""


def public_link(request: HTTPConnection, path: str) -> str:
    """The link to ``path`` (``/m/abc``) for the crowd: absolute from :func:`public_base`
    of the request's app (its state, a :class:`PublicPlane`), else ``path`` as it is
    (relative). Every absolute link and QR code of the pages comes from here."""
    state: PublicPlane = request.app.state
    return public_base(state, request.scope) + path


# --------------------------------------------------------------------- organiser
ORGANISER_ENV = "CHUKKER_ORGANISER_TOKEN"


def organiser_token_path(db: str) -> Path | None:
    """Where the generated organiser token is kept: beside the SQLite file
    (``None`` for PostgreSQL: set ``$CHUKKER_ORGANISER_TOKEN`` for its servers)."""
    if db.startswith(("postgresql://", "postgres://")):
        return None
    if db.startswith("sqlite:///"):
        db = db[len("sqlite:///"):]
    return Path(db + ".organiser-token")


def organiser_token(db: str, *, create: bool = True) -> tuple[str | None, bool]:
    """The organiser token for database ``db`` and whether it was just created.

    ``$CHUKKER_ORGANISER_TOKEN`` if set; else the token kept beside the
    database, created (mode 0600) on first use when ``create``.
    """
    env = os.environ.get(ORGANISER_ENV, "").strip()
    if env:
        return env, False
    path = organiser_token_path(db)
    if path is None:  # PostgreSQL without the environment: one for this process
        return (secrets.token_urlsafe(24), True) if create else (None, False)
    try:
        text = path.read_text(encoding="ascii").strip()
        if text:
            return text, False
    except FileNotFoundError:
        pass
    if not create:
        return None, False
    token = secrets.token_urlsafe(24)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first
        return path.read_text(encoding="ascii").strip() or None, False
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(token + "\n")
    return token, True


@dataclass
class Organiser:
    """Who may create matches (and tournaments): the organiser token, or anyone
    (``open``), rate-limited per address."""

    token: str | None
    open: bool = False
    limit: RateLimit = field(default_factory=lambda: RateLimit(burst=10, rate=0.5))

    def check(self, request: Request, presented: str | None) -> None:
        """Raise :class:`~chukker.live.ServiceError` unless ``presented`` may create."""
        from chukker.live import ServiceError
        from chukker.web.errors import HttpRefusal

        if self.token is not None and presented is not None and hmac.compare_digest(
                presented.encode(), self.token.encode()):
            return
        if self.open:
            wait = self.limit.take(client_address(request))
            if wait > 0:
                retry = max(1, math.ceil(wait))
                raise ServiceError("rate_limited", params={"retry_after": retry})
            return
        raise HttpRefusal(401 if presented is None else 403, "organiser_required")


def bearer(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, else None.

    >>> bearer("Bearer abc"), bearer("Basic x"), bearer(None)
    ('abc', None, None)
    """
    scheme, _, token = (authorization or "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


class Organised(Proxied):
    """An app's state that says who may create matches: the base of
    ``chukker.web.limits.Served`` (and so of ``chukker.web.state.AppState``, which this
    module cannot import: it imports this)."""

    @property
    def organiser(self) -> Organiser:
        raise NotImplementedError


def organiser_of(app: object) -> Organiser:
    """Who may create matches on ``app``; a ``TypeError`` for an app not of ``create_app``.

    >>> from starlette.applications import Starlette
    >>> organiser_of(Starlette())
    Traceback (most recent call last):
    ...
    TypeError: Starlette was not made by chukker.web.app.create_app
    """
    state = app.state if isinstance(app, Starlette) else None
    if not isinstance(state, Organised):
        raise TypeError(f"{type(app).__name__} was not made by chukker.web.app.create_app")
    return state.organiser


async def require_organiser(
    request: Request, authorization: Annotated[str | None, Header()] = None,
) -> None:
    """FastAPI dependency: the request carries the organiser's token (or the server is open)."""
    organiser_of(request.app).check(request, bearer(authorization))


# ------------------------------------------------------------------ strict input
class BadInput(ChukkerError):
    """A value of a request that is refused before anything is stored: ``field`` and ``reason``."""

    code = "bad_request"

    def __init__(self, field_: str, reason: str) -> None:
        self.field = field_
        self.reason = reason
        super().__init__(f"{field_}: {reason}", params={"problems": f"{field_}: {reason}"})


MAX_DEPTH = 4
MAX_ITEMS = 64
#: longest text per field name; other strings may have DEFAULT_TEXT characters
TEXT_LIMITS = {"name": 60, "reason": 200, "clause": 200, "card": 60, "note": 200}
DEFAULT_TEXT = 64
MAX_NUMBER = 1e9


def clean(value: Any, path: str = "", depth: int = 0, max_depth: int = MAX_DEPTH) -> Any:
    r"""``value`` with its strings in NFC, or :class:`BadInput` naming the first problem.

    Refused: lone surrogates, strings longer than their field's limit,
    nesting deeper than ``max_depth``, more than ``MAX_ITEMS`` items, numbers
    that are not finite or beyond ``MAX_NUMBER``.

    >>> clean({"name": "Cafe\u0301"})["name"] == "Caf\u00e9"
    True
    >>> clean({"name": "Bl" + chr(0xD800) + "ue"})
    Traceback (most recent call last):
    ...
    chukker.web.security.BadInput: name: not valid Unicode (a lone surrogate)
    """
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise BadInput(path or "value", "not valid Unicode (a lone surrogate)") from None
        value = unicodedata.normalize("NFC", value)
        key = path.rsplit(".", 1)[-1].split("[", 1)[0]
        limit = TEXT_LIMITS.get(key, DEFAULT_TEXT)
        if len(value) > limit:
            raise BadInput(path or "value", f"longer than {limit} characters")
        return value
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        if abs(value) > MAX_NUMBER:
            raise BadInput(path or "value", "number out of range")
        return value
    if isinstance(value, float):
        if not math.isfinite(value) or abs(value) > MAX_NUMBER:
            raise BadInput(path or "value", "number out of range")
        return value
    if depth >= max_depth:
        raise BadInput(path or "value", f"nested deeper than {max_depth} levels")
    if isinstance(value, list):
        if len(value) > MAX_ITEMS:
            raise BadInput(path or "value", f"more than {MAX_ITEMS} items")
        return [clean(v, f"{path}[{i}]", depth + 1, max_depth) for i, v in enumerate(value)]
    if isinstance(value, dict):
        if len(value) > MAX_ITEMS:
            raise BadInput(path or "value", f"more than {MAX_ITEMS} fields")
        out: dict[str, Any] = {}
        for k, v in value.items():
            name = clean(k, f"{path}(key)" if path else "(key)", depth, max_depth)
            out[name] = clean(v, f"{path}.{name}" if path else name, depth + 1, max_depth)
        return out
    raise BadInput(path or "value", f"unexpected {type(value).__name__}")


CSRF_COOKIE = "chukker_csrf"
#: where a cached page's form takes each visitor's own CSRF token (web/cache.py)
CSRF_MARK = "csrf-mark-0f6c2e9d"


def new_csrf() -> str:
    return secrets.token_urlsafe(24)


def csrf_ok(cookie: str | None, field: str | None) -> bool:
    """Double-submit check: the form's hidden field equals the cookie.

    >>> csrf_ok("abc", "abc"), csrf_ok("abc", "abd"), csrf_ok(None, None)
    (True, False, False)
    """
    if not cookie or not field:
        return False
    return hmac.compare_digest(cookie.encode(), field.encode())


# ------------------------------------------------------------------ stream tickets
#: seconds a stream ticket stays valid
TICKET_TTL_S = 60.0


def match_secret(match_id: str, timekeeper_hash: str, committee_hash: str) -> bytes:
    """A per-match secret known only to the servers: derived from the stored hashes of the
    match's two tokens (every process sharing the database derives the same one)."""
    msg = f"chukker-match-key\0{match_id}\0{timekeeper_hash}\0{committee_hash}".encode()
    return hmac.new(b"chukker", msg, "sha256").digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def display_token(match_id: str, timekeeper_hash: str, committee_hash: str) -> str:
    """The match's display token: lets the big screen and the overlay get stream tickets
    (their reserved share of the streams) and nothing else. Derived, never stored: the
    timekeeper and the committee can ask for it again at any time."""
    key = match_secret(match_id, timekeeper_hash, committee_hash)
    return "d" + _b64(hmac.new(key, b"display", "sha256").digest()[:24])


class StreamTickets:
    """Short-lived, single-use tickets that give a live stream the reserved share.

    ``EventSource`` cannot send an ``Authorization`` header and the screens keep
    their tokens out of URLs, so a screen exchanges its token (``POST
    /api/matches/{id}/stream-ticket``) for a ticket it puts in the stream's URL
    once. A ticket is ``<expiry>.<nonce>.<mac>``: the MAC (keyed by the match's
    own secret) binds it to its match and expiry; used nonces are remembered
    until they expire, so a ticket opens one stream only (per process).

    >>> t = StreamTickets(ttl=60)
    >>> k = b"k" * 32
    >>> tk = t.issue("m1", k, now=1000.0)
    >>> t.redeem(tk, "m2", k, now=1001.0), t.redeem(tk, "m1", k, now=1001.0)
    ('wrong_match', None)
    >>> t.redeem(tk, "m1", k, now=1002.0)
    'used'
    >>> t.redeem(t.issue("m1", k, now=1000.0), "m1", k, now=1061.0)
    'expired'
    """

    def __init__(self, ttl: float = TICKET_TTL_S, capacity: int = 100_000) -> None:
        self.ttl, self.capacity = ttl, capacity
        self._used: OrderedDict[str, float] = OrderedDict()

    @staticmethod
    def _mac(key: bytes, match_id: str, expiry: str, nonce: str) -> str:
        msg = f"ticket\0{match_id}\0{expiry}\0{nonce}".encode()
        return _b64(hmac.new(key, msg, "sha256").digest()[:18])

    def issue(self, match_id: str, key: bytes, now: float | None = None) -> str:
        now = time.time() if now is None else now
        expiry = str(int((now + self.ttl) * 1000))
        nonce = secrets.token_urlsafe(12)
        return f"{expiry}.{nonce}.{self._mac(key, match_id, expiry, nonce)}"

    def redeem(self, ticket: str, match_id: str, key: bytes,
               now: float | None = None) -> str | None:
        """None when ``ticket`` is valid for ``match_id`` (it is then used up), else why not."""
        now = time.time() if now is None else now
        while self._used and next(iter(self._used.values())) <= now:
            self._used.popitem(last=False)
        parts = ticket.split(".")
        if len(parts) != 3 or not parts[0].isdigit() or len(parts[0]) > 16:
            return "malformed"
        expiry, nonce, mac = parts
        if not hmac.compare_digest(mac, self._mac(key, match_id, expiry, nonce)):
            return "wrong_match"
        ends = int(expiry) / 1000
        if ends <= now:
            return "expired"
        if ends > now + self.ttl + 5:
            return "malformed"
        if nonce in self._used:
            return "used"
        if len(self._used) >= self.capacity:
            return "busy"
        self._used[nonce] = ends
        return None
