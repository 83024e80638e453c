"""Every anonymous page costs almost nothing: rendered once, answered from memory.

:class:`PageCache` is the outermost ASGI middleware (a hit skips the access log, the
metrics and the guard). It finds each request's door in the route table
(:mod:`chukker.web.doors`), once: the layers within read it from ``scope["chukker.door"]``.
A ``GET`` (or ``HEAD``) of a door that anyone may call (:class:`~chukker.web.doors.Role`
anonymous or spectator) whose cache rule is :attr:`~chukker.web.doors.Cache.PAGE` is
rendered once per

* its path and the query parameters its page reads (:attr:`Door.query
  <chukker.web.doors.Door.query>`, :data:`QUERY` unless the door says otherwise; any other
  parameter is ignored by the pages, so it neither changes the page nor makes a new entry);
* its language: the one the page is rendered in, worked out by the page's own function
  (:func:`chukker.web.lang.language_of_scope`: the last ``lang`` if it is one of the
  site's languages, else the language cookie's value, else ``Accept-Language``'s choice;
  an unknown ``lang`` is the default language, not a new entry). Neither the raw
  cookie nor the raw ``Accept-Language`` is kept: a request of 1 MB makes no entry of
  1 MB (issue 41);
* its version: a match's own ``seq`` (and row) for a match's pages, JSON and exports
  (``/m/{id}/...``, ``/api/matches/{id}/...``), a tournament's log ``seq`` and version
  for its pages (issue 40: a change through another process shows at once), and a short
  time-to-live everywhere
  (:attr:`PageCache.ttl`; a match whose clock runs: :attr:`PageCache.running_ttl`, its
  clock is in the page). A write through this process clears what it may change: an
  event the pages that are not a match's own (its tournament's standings, the list of
  matches), any other write (an archive, a tournament, a new match) every page; a write
  through another process is seen within the time to live.

A repeat is answered from memory with a strong ``ETag`` (``304 Not Modified`` on
``If-None-Match``) and ``Cache-Control: public, max-age=`` a few seconds, so that a
proxy or CDN can serve the crowd. The cache is an LRU bounded in entries and bytes (a
key's own bytes counted with its page's), and nothing is kept for a request before its
address's rate is checked.

Never cached (personal, or not a page): a request with an ``Authorization`` header, a
cookie other than the language's, a ``ticket`` or ``token`` parameter; an answer that
sets a cookie other than the language's (a form's CSRF cookie), that is not a 200, or
that streams; a door whose rule is :attr:`~chukker.web.doors.Cache.PASS` (static files,
streams). ``/m/{id}/created`` (the tokens) and the consoles are never cached. These,
every door that needs a token, the answers to writes, and the clock and health doors
(the doors' :attr:`~chukker.web.doors.Cache.NO_STORE`: ``/api/time``, from which every
screen measures its clock offset; ``/readyz``, which a load balancer must see fresh) are
answered ``Cache-Control: no-store``, so no proxy or browser keeps them either.

Every request of an anonymous door is counted against its address's rate
(:meth:`chukker.web.doors.Door.rate`, setting ``limits.visitor_rate``) here, a hit
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

from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chukker.ops.proxy import client_of_app_scope
from chukker.web.doors import QUERY, Cache, Door, Role, door_for
from chukker.web.guard import answer, header_of, send_answer
from chukker.web.lang import language_of_scope
from chukker.web.proxied import proxies_of
from chukker.web.security import CSRF_COOKIE, CSRF_MARK, RateLimit, new_csrf
from chukker.web.state import found_state

__all__ = ["QUERY", "Entry", "PageCache"]  # QUERY: the pages' parameters (doors.QUERY)

#: parameters that make a request personal
PERSONAL_QUERY = frozenset({"ticket", "token"})
LANG_COOKIE = b"chukker_lang"
#: cookies a page may be served to from the cache (the CSRF token is filled in per visitor)
SHARED_COOKIES = (LANG_COOKIE, CSRF_COOKIE.encode())
MATCH_PREFIXES = ("/m/", "/api/matches/")
NO_STORE_HEADER = (b"cache-control", b"no-store")
#: the longest path whose door is remembered (:attr:`PageCache.doors`)
DOOR_MEMO_PATH = 256


@dataclass(slots=True)
class Entry:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes
    etag: bytes
    expires: float
    general: bool  # not a match's page: a write in this process clears it
    csrf: bool = False  # the body has CSRF_MARK: each visitor's token goes there
    size: int = 0  # bytes counted against the cache's bound: body, headers and key


def _cookie_ok(scope: Scope) -> bool:
    """The request carries no cookie but the language's."""
    raw = header_of(scope, b"cookie")
    if not raw:
        return True
    return all(p.strip().split(b"=", 1)[0] in SHARED_COOKIES
               for p in raw.split(b";") if p.strip())


def _cookie(scope: Scope, name: bytes) -> str | None:
    """The cookie ``name`` as the page reads it (Starlette's ``request.cookies``: the
    last of that name)."""
    raw = header_of(scope, b"cookie")
    if not raw or name not in raw:
        return None
    return cookie_parser(raw.decode("latin-1")).get(name.decode())


def _key_bytes(key: tuple[Any, ...]) -> int:
    """About how many bytes ``key`` holds (its strings and nested tuples)."""
    n = 64
    for part in key:
        if isinstance(part, str | bytes):
            n += len(part) + 49
        elif isinstance(part, tuple):
            n += _key_bytes(part)
        else:
            n += 32
    return n


def _no_store(send: Send) -> Send:
    """``send`` with ``Cache-Control: no-store`` on the answer (any other one replaced)."""

    async def sending(msg: Message) -> None:
        if msg["type"] == "http.response.start":
            msg["headers"] = [(k, v) for k, v in msg.get("headers", [])
                              if k.lower() != b"cache-control"] + [NO_STORE_HEADER]
        await send(msg)

    return sending


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
        #: the door of each (method, short path) seen lately: nothing a client sends
        #: beyond its method and path is remembered before its rate is checked
        self.doors: dict[tuple[str, str], Door] = {}
        self.rate = rate
        self.control = f"public, max-age={max_age}".encode()
        self.private = f"private, max-age={max_age}".encode()

    # -------------------------------------------------------------- keys and limits
    def key(self, scope: Scope, door: Door) -> tuple[Any, ...] | None:
        """What the page depends on, as the page reads it (``None``: never cached): the
        path, the language and whether ``lang`` chose it (:func:`language_of_scope`, the
        page's own choice), and the query parameters a page reads (all their values:
        two values of one make an entry of their own, never another's)."""
        path: str = scope.get("path", "")
        if door.keeping is not Cache.PAGE or header_of(scope, b"authorization") is not None:
            return None
        if not _cookie_ok(scope):
            return None
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"),
                          keep_blank_values=True)
        if any(k in PERSONAL_QUERY for k, _ in query):
            return None
        lang, asked = language_of_scope(scope)
        kept = tuple(sorted((k, v) for k, v in query if k in door.query))
        return (path, lang, asked, kept)

    def door(self, method: str, path: str) -> Door:
        """The door of ``method`` ``path`` (remembered for short paths, a few thousand)."""
        if len(path) > DOOR_MEMO_PATH:
            return door_for(method, path)
        d = self.doors.get((method, path))
        if d is None:
            if len(self.doors) >= self.capacity:
                self.doors.clear()
            d = self.doors[(method, path)] = door_for(method, path)
        return d

    def version(self, scope: Scope) -> tuple[tuple[Any, ...], float] | None:
        """The match's version and the entry's time to live (``None``: a match not
        loaded yet: rendered, not kept)."""
        path: str = scope.get("path", "")
        for prefix in MATCH_PREFIXES:
            if path.startswith(prefix):
                match_id = path[len(prefix):].split("/", 1)[0]
                if not match_id or "." in match_id:
                    break
                state = found_state(scope.get("app"))
                lm = state.service.loaded_match(match_id) if state is not None else None
                if lm is None:
                    return None
                running = lm.timer is not None
                # a horn's audit row comes without a new seq: the time to live bounds it
                return ((match_id, lm.seq, id(lm.row)),
                        self.running_ttl if running else self.ttl)
        if path.startswith("/tournaments"):  # issue 40: the tournament's own version
            found = found_state(scope.get("app"))
            if found is not None:
                tsvc = found.tournaments
                tid = path[len("/tournaments/"):].split("/", 1)[0]
                lt = tsvc.get(tid) if tid else None
                if lt is not None:
                    return (tid, lt.seq, lt.version, lt.last is None), self.ttl
                return tuple((x.id, x.seq, x.version) for x in tsvc.all()), self.ttl
        return (), self.ttl

    def rate_refusal(self, scope: Scope, door: Door) -> Any:
        """429 when the address has spent ``door``'s rate (``None``: it may go)."""
        rate = door.rate(self.rate)
        if rate is None:
            return None
        limit = self.rates.get((door.methods, door.path))
        if limit is None:
            limit = self.rates[(door.methods, door.path)] = RateLimit(*rate)
        wait = limit.take(client_of_app_scope(scope, proxies_of(scope.get("app"))))
        if wait <= 0:
            return None
        retry = max(1, math.ceil(wait))
        return answer(scope, 429, "rate_limited", {"retry_after": retry},
                       {"retry-after": str(retry)})

    # -------------------------------------------------------------- the middleware
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        path = scope.get("path", "")
        # the request's one lookup of its door: the layers within read it from the scope
        door = scope["chukker.door"] = self.door(method, path)
        if door.role not in (Role.ANONYMOUS, Role.SPECTATOR) or not door.takes(method):
            if method == "POST":
                await self._write(scope, receive, send)
                return
            # a token's door (the console, the display token) or a refusal: kept by nobody
            await self.app(scope, receive, _no_store(send))
            return
        # the rate first: nothing of this request is worked out or kept before it
        refused = self.rate_refusal(scope, door)
        if refused is not None:
            await send_answer(send, refused)
            return
        if method not in ("GET", "HEAD") or door.keeping is Cache.PASS:
            await (self._write(scope, receive, send) if method == "POST"
                   else self.app(scope, receive, send))
            return
        if door.keeping is Cache.NO_STORE:
            await self.app(scope, receive, _no_store(send))
            return
        key = self.key(scope, door)
        if key is None:  # personal: a token, a ticket, a cookie of its own
            await self.app(scope, receive, _no_store(send))
            return
        ver = self.version(scope)
        if ver is None:
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
        inm = header_of(scope, b"if-none-match")
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
            self.bytes -= old.size
        entry = self.entries[full] = Entry(start["status"], headers, body, etag, expires,
                                           general, CSRF_MARK.encode() in body)
        entry.size = len(body) + _key_bytes(full) + sum(len(k) + len(v) for k, v in headers)
        self.bytes += entry.size
        while self.entries and (len(self.entries) > self.capacity
                                or self.bytes > self.max_bytes):
            _, gone = self.entries.popitem(last=False)
            self.bytes -= gone.size
        return entry

    async def _write(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A POST: passed on (``no-store``); one that succeeds clears the pages that are not
        a match's."""
        status = 0

        async def watch(msg: Message) -> None:
            nonlocal status
            if msg["type"] == "http.response.start":
                status = msg["status"]  # a write's answer (a new match's tokens): kept by nobody
                msg["headers"] = [(k, v) for k, v in msg.get("headers", [])
                                  if k.lower() != b"cache-control"] + [NO_STORE_HEADER]
            await send(msg)

        await self.app(scope, receive, watch)
        path = scope.get("path", "")
        if not 200 <= status < 400 or path.startswith(("/learn/", "/plays/")):
            return
        if path.endswith("/events"):  # the match's own pages follow its seq; the others
            for k in [k for k, e in self.entries.items() if e.general]:  # (standings, list)
                self.bytes -= self.entries.pop(k).size
            return
        # an archive, a tournament, a new match: rare, so every page is rendered again
        self.entries.clear()
        self.bytes = 0
