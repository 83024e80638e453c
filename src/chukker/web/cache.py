"""Every anonymous page costs almost nothing: rendered once, answered from memory.

:class:`PageCache` is the outermost ASGI middleware (a hit skips the access log, the
metrics and the guard, whose door it finds itself). A ``GET`` (or ``HEAD``)
of a door that anyone may call (:class:`~chukker.web.guard.Role` anonymous or spectator,
no stream) is rendered once per

* its path and the query parameters a page reads (:data:`QUERY`; any other parameter
  is ignored by the pages, so it neither changes the page nor makes a new entry);
* its language: the one the page is rendered in (``?lang=`` if it is one of the site's
  languages, else the cookie or ``Accept-Language``; an unknown ``lang`` is the default
  language, not a new entry);
* its version: a match's own ``seq`` (and row) for a match's pages, JSON and exports
  (``/m/{id}/...``, ``/api/matches/{id}/...``), and a short time-to-live everywhere
  (:attr:`PageCache.ttl`; a match whose clock runs: :attr:`PageCache.running_ttl`, its
  clock is in the page). A write through this process clears what it may change: an
  event the pages that are not a match's own (its tournament's standings, the list of
  matches), any other write (an archive, a tournament, a new match) every page; a write
  through another process is seen within the time to live.

A repeat is answered from memory with a strong ``ETag`` (``304 Not Modified`` on
``If-None-Match``) and ``Cache-Control: public, max-age=`` a few seconds, so that a
proxy or CDN can serve the crowd. The cache is an LRU bounded in entries and bytes.

Never cached (personal, or not a page): a request with an ``Authorization`` header, a
cookie other than the language's, a ``ticket`` or ``token`` parameter; an answer that
sets a cookie other than the language's (a form's CSRF cookie), that is not a 200, or
that streams. ``/m/{id}/created`` (the tokens) and the console are never cached.

Every request of an anonymous door is counted against its address's rate
(:meth:`chukker.web.guard.Door.rate`, setting ``limits.visitor_rate``) here, a hit
included; 429 ``rate_limited`` with ``Retry-After`` when it is spent.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chukker import i18n
from chukker.i18n import pick_language
from chukker.ops.proxy import client_of_app_scope
from chukker.web.guard import Cost, Door, Role, _answer, _header, _send, door_for
from chukker.web.security import CSRF_COOKIE, CSRF_MARK, RateLimit, new_csrf

#: the query parameters the pages read (every other one is ignored by them)
QUERY = frozenset({"archived", "part", "c", "t", "clause", "p", "in", "q", "at", "before",
                   "format", "last", "limit", "level", "edition", "n", "seed", "pass_mark",
                   "time_limit", "name"})
#: parameters that make a request personal
PERSONAL_QUERY = frozenset({"ticket", "token"})
#: paths never cached (the tokens of a new match; the console's own page)
PERSONAL_PATHS = ("/created", "/console")
LANG_COOKIE = b"chukker_lang"
#: cookies a page may be served to from the cache (the CSRF token is filled in per visitor)
SHARED_COOKIES = (LANG_COOKIE, CSRF_COOKIE.encode())
MATCH_PREFIXES = ("/m/", "/api/matches/")


@dataclass(slots=True)
class Entry:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
    etag: bytes
    expires: float
    general: bool  # not a match's page: a write in this process clears it
    csrf: bool = False  # the body has CSRF_MARK: each visitor's token goes there


def _cookie_ok(scope: Scope) -> bool:
    """The request carries no cookie but the language's."""
    raw = _header(scope, b"cookie")
    if not raw:
        return True
    return all(p.strip().split(b"=", 1)[0] in SHARED_COOKIES
               for p in raw.split(b";") if p.strip())


def _cookie(scope: Scope, name: bytes) -> str | None:
    for part in (_header(scope, b"cookie") or b"").split(b";"):
        k, _, v = part.strip().partition(b"=")
        if k == name:
            return v.decode("latin-1")
    return None


def _sets_only_language(headers: list[tuple[bytes, bytes]]) -> bool:
    return all(v.split(b"=", 1)[0].strip() == LANG_COOKIE
               for k, v in headers if k.lower() == b"set-cookie")


class PageCache:
    """The pages' cache (see the module)."""

    def __init__(self, app: ASGIApp, *, max_age: int = 2, ttl: float = 2.0,
                 running_ttl: float = 1.0, capacity: int = 4096,
                 max_bytes: int = 64 * 1024 * 1024, entry_bytes: int = 4 * 1024 * 1024,
                 rate: tuple[float, float] = (1000.0, 100.0)) -> None:
        self.app = app
        self.max_age, self.ttl, self.running_ttl = max_age, ttl, running_ttl
        self.capacity, self.max_bytes, self.entry_bytes = capacity, max_bytes, entry_bytes
        self.entries: OrderedDict[tuple[Any, ...], Entry] = OrderedDict()
        self.bytes = 0
        self.hits = self.misses = 0
        self.rates: dict[tuple[str, str], RateLimit] = {}
        #: the door and key of each distinct (method, path, query, cookie, language,
        #: token?) seen lately
        self.keys: dict[tuple[Any, ...], tuple[Door, tuple[Any, ...] | None]] = {}
        self.rate = rate
        self.control = f"public, max-age={max_age}".encode()
        self.private = f"private, max-age={max_age}".encode()

    # -------------------------------------------------------------- keys and limits
    def key(self, scope: Scope, door: Door) -> tuple[Any, ...] | None:
        """What the page depends on (``None``: never cached)."""
        path: str = scope.get("path", "")
        if path.endswith(PERSONAL_PATHS) or _header(scope, b"authorization") is not None:
            return None
        if not _cookie_ok(scope):
            return None
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"),
                          keep_blank_values=True)
        if any(k in PERSONAL_QUERY for k, _ in query):
            return None
        asked = next((v for k, v in query if k == "lang"), None)
        cookie = _cookie(scope, LANG_COOKIE)
        accept = (_header(scope, b"accept-language") or b"").decode("latin-1")[:200]
        given = asked if asked in i18n.LANGUAGES else None
        lang = pick_language(given, cookie, accept)
        kept = tuple(sorted((k, v) for k, v in query if k in QUERY))
        return (path, lang, given is not None, kept)

    def version(self, scope: Scope) -> tuple[tuple[Any, ...], float] | None:
        """The match's version and the entry's time to live (``None``: a match not
        loaded yet: rendered, not kept)."""
        path: str = scope.get("path", "")
        for prefix in MATCH_PREFIXES:
            if path.startswith(prefix):
                match_id = path[len(prefix):].split("/", 1)[0]
                if not match_id or "." in match_id:
                    break
                svc = getattr(getattr(scope.get("app"), "state", None), "service", None)
                lm = svc.loaded_match(match_id) if svc is not None else None
                if lm is None:
                    return None
                running = lm.timer is not None
                # a horn's audit row comes without a new seq: the time to live bounds it
                return ((match_id, lm.seq, id(lm.row)),
                        self.running_ttl if running else self.ttl)
        return (), self.ttl

    def rate_refusal(self, scope: Scope, door: Door) -> Any:
        """429 when the address has spent ``door``'s rate (``None``: it may go)."""
        rate = door.rate(self.rate)
        if rate is None:
            return None
        limit = self.rates.get((door.methods, door.path))
        if limit is None:
            limit = self.rates[(door.methods, door.path)] = RateLimit(*rate)
        wait = limit.take(client_of_app_scope(scope))
        if wait <= 0:
            return None
        retry = max(1, math.ceil(wait))
        return _answer(scope, 429, "rate_limited", {"retry_after": retry},
                       {"retry-after": str(retry)})

    # -------------------------------------------------------------- the middleware
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        path = scope.get("path", "")
        if method in ("GET", "HEAD"):  # the door and key, worked out once per distinct request
            raw = (method, path, scope.get("query_string", b""), _header(scope, b"cookie"),
                   _header(scope, b"accept-language"),
                   _header(scope, b"authorization") is not None)
            known = self.keys.get(raw)
            if known is None:
                if len(self.keys) >= self.capacity * 4:
                    self.keys.clear()
                d = door_for(method, path)
                known = self.keys[raw] = (d, self.key(scope, d) if d.takes(method) else None)
            door, key = known
        else:
            door, key = door_for(method, path), None
        if door.role not in (Role.ANONYMOUS, Role.SPECTATOR) or not door.takes(method):
            if method == "POST":
                await self._write(scope, receive, send)
                return
            await self.app(scope, receive, send)
            return
        scope["chukker.door"] = door
        refused = self.rate_refusal(scope, door)
        if refused is not None:
            await _send(send, refused)
            return
        if (method not in ("GET", "HEAD") or door.cost is Cost.STREAM
                or door.path.startswith(("/static/", "/rules/static/"))):
            await (self._write(scope, receive, send) if method == "POST"
                   else self.app(scope, receive, send))
            return
        ver = self.version(scope) if key is not None else None
        if key is None or ver is None:
            await self.app(scope, receive, send)
            return
        full = (*key, ver[0])
        now = time.monotonic()
        entry = self.entries.get(full)
        if entry is not None and entry.expires > now:
            self.entries.move_to_end(full)
            self.hits += 1
            await self._answer(scope, send, entry, method)
            return
        self.misses += 1
        scope["chukker.cached"] = True  # a page with a form leaves CSRF_MARK for the token
        await self._render(scope, receive, send, full, now + ver[1], not ver[0], method)

    async def _answer(self, scope: Scope, send: Send, e: Entry, method: str) -> None:
        etag, headers, body = e.etag, e.headers, e.body
        if e.csrf:  # the visitor's own CSRF token in the form (and its cookie): private
            token = _cookie(scope, CSRF_COOKIE.encode()) or new_csrf()
            body = body.replace(CSRF_MARK.encode(), token.encode())
            etag = b'"' + hashlib.blake2b(etag + token.encode(),
                                          digest_size=16).hexdigest().encode() + b'"'
            headers = [(k, v) for k, v in headers if k not in (b"etag", b"cache-control",
                                                               b"content-length")]
            headers += [(b"etag", etag), (b"cache-control", self.private),
                        (b"content-length", str(len(body)).encode()),
                        (b"set-cookie", f"{CSRF_COOKIE}={token}; HttpOnly; Path=/; "
                                        "SameSite=strict".encode())]
        inm = _header(scope, b"if-none-match")
        if inm is not None and (inm.strip() == b"*" or etag in
                                [t.strip().removeprefix(b"W/") for t in inm.split(b",")]):
            await send({"type": "http.response.start", "status": 304, "headers": [
                (b"etag", etag), (b"cache-control", self.private if e.csrf else self.control)]})
            await send({"type": "http.response.body", "body": b""})
            return
        await send({"type": "http.response.start", "status": e.status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})

    async def _render(self, scope: Scope, receive: Receive, send: Send, full: tuple[Any, ...],
                      expires: float, general: bool, method: str) -> None:
        start: Message | None = None
        chunks: list[bytes] = []
        size = 0
        keep = method == "GET"

        async def capture(msg: Message) -> None:
            nonlocal start, size, keep
            if msg["type"] == "http.response.start":
                start = msg
                keep = keep and msg["status"] == 200 and _sets_only_language(
                    list(msg.get("headers", [])))
                if not keep:
                    await send(msg)
                return
            if not keep or msg["type"] != "http.response.body" or start is None:
                await send(msg)
                return
            part = msg.get("body", b"")
            more = msg.get("more_body", False)
            chunks.append(part)
            size += len(part)
            if size > self.entry_bytes:  # too big to keep: passed on as it comes
                keep = False
                await send(start)
                await send({"type": "http.response.body", "body": b"".join(chunks),
                            "more_body": more})
                return
            if not more:
                e = self._store(start, chunks, full, expires, general)
                await self._answer(scope, send, e, method)

        await self.app(scope, receive, capture)

    def _store(self, start: Message, chunks: list[bytes], full: tuple[Any, ...],
               expires: float, general: bool) -> Entry:
        body = b"".join(chunks)
        etag = b'"' + hashlib.blake2b(body, digest_size=16).hexdigest().encode() + b'"'
        headers = [(k, v) for k, v in start.get("headers", [])
                   if k.lower() not in (b"etag", b"cache-control", b"content-length")]
        headers += [(b"etag", etag), (b"cache-control", self.control),
                    (b"content-length", str(len(body)).encode())]
        old = self.entries.pop(full, None)
        if old is not None:
            self.bytes -= len(old.body)
        entry = self.entries[full] = Entry(start["status"], headers, body, etag, expires,
                                           general, CSRF_MARK.encode() in body)
        self.bytes += len(body)
        while self.entries and (len(self.entries) > self.capacity
                                or self.bytes > self.max_bytes):
            _, gone = self.entries.popitem(last=False)
            self.bytes -= len(gone.body)
        return entry

    async def _write(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A POST: passed on; one that succeeds clears the pages that are not a match's."""
        status = 0

        async def watch(msg: Message) -> None:
            nonlocal status
            if msg["type"] == "http.response.start":
                status = msg["status"]
            await send(msg)

        await self.app(scope, receive, watch)
        path = scope.get("path", "")
        if not 200 <= status < 400 or path.startswith(("/learn/", "/plays/")):
            return
        if path.endswith("/events"):  # the match's own pages follow its seq; the others
            for k in [k for k, e in self.entries.items() if e.general]:  # (standings, list)
                self.bytes -= len(self.entries.pop(k).body)
            return
        # an archive, a tournament, a new match: rare, so every page is rendered again
        self.entries.clear()
        self.bytes = 0
