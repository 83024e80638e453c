"""The guard: the one middleware within the page cache and the access log that keeps every
door's declaration (the route table, :mod:`chukker.web.doors`).

Each request's door is found once (by the page cache, outermost, in
``scope["chukker.door"]``; here when no cache is in front), and the guard, in one layer,

* on a process that serves one plane, answers a request of the other plane's door ``307``
  to it (:mod:`chukker.web.planes`), before routing, parsing or any store work;
* lets at most :attr:`Guard.stream_slots` live streams be set up at once (routing, the
  first state, the first write), so that a thousand spectators connecting together do
  not put a thousand set-ups ahead of the timekeeper's next POST;
* puts the security headers on every answer past it (:mod:`chukker.web.security`: CSP,
  ``frame-ancestors``/``X-Frame-Options`` except where a door may be ``framed``,
  ``X-Content-Type-Options``, ``Referrer-Policy``; a door's ``inline_scripts`` allowed
  by their hash);
* refuses a body over the door's limit (413, declared or streamed; a GET takes none);
* refuses JSON nested deeper than :data:`chukker.limits.MAX_DEPTH` before any parser
  sees it (422 ``too_deep``, JSON, whatever the route);
* refuses a door whose role is proven by a bearer header (organiser, a match's
  timekeeper or committee) when no bearer token comes (401 ``organiser_required``
  unless the server is open, or ``no_token``), before its body is read; the handler
  checks the token itself (it knows the match);
* refuses heavy work at once (503, ``Retry-After``) when its pool
  (:mod:`chukker.web.heavy`) has no room for this address, before the body is read;
* marks the request with its door (``scope["chukker.door"]``), so that refusals of
  JSON doors are JSON.

:func:`routes_of` walks an app's routes; a test fails for a route with no door and
for a door with no route, so the next door cannot be added unguarded.

>>> door_for("POST", "/api/matches/m1/events").role
<Role.TIMEKEEPER: 'timekeeper'>
>>> door_for("GET", "/m/m1/sheet.pdf").cost
<Cost.HEAVY_PDF: 'heavy-pdf'>
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chukker import limits
from chukker.ops.proxy import client_of_app_scope
from chukker.web.doors import (
    BEARERS,
    DOORS,
    FORM,
    HEADER,
    NONE,
    UNKNOWN,
    Cache,
    Cost,
    Door,
    Plane,
    Role,
    allowed,
    door_for,
    plane_of,
    routes_of,
)
from chukker.web.heavy import Kind
from chukker.web.planes import Addresses, elsewhere, redirect
from chukker.web.proxied import proxies_of
from chukker.web.security import CSP, inline_script_hashes
from chukker.web.state import found_state, pools

__all__ = ["DOORS", "FORM", "HEADER", "NONE", "UNKNOWN", "Cache", "Cost", "Door", "Guard",
           "Plane", "Role", "allowed", "answer", "door_for", "header_of", "routes_of",
           "send_answer"]

#: the headers every answer gets; the frame's headers by door (``framed`` or not)
_ALWAYS = [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]
_HEADERS = {
    False: [*_ALWAYS, (b"x-frame-options", b"DENY"),
            (b"content-security-policy", CSP.format(scripts="", ancestors="'none'").encode())],
    True: [*_ALWAYS,
           (b"content-security-policy", CSP.format(scripts="", ancestors="*").encode())],
}


# ------------------------------------------------------------------------------ middleware
class _TooLarge(Exception):
    pass


def _json_answer(status: int, code: str, params: dict[str, Any],
                 headers: dict[str, str] | None = None) -> tuple[int, list[tuple[bytes, bytes]],
                                                              bytes]:
    from chukker.web.errors import body

    data = json.dumps(body(code, params)).encode()
    hs = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    hs += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    return status, hs, data


def answer(scope: Scope, status: int, code: str, params: dict[str, Any],
           headers: dict[str, str] | None = None) -> tuple[int, list[tuple[bytes, bytes]],
                                                         bytes]:
    """A refusal in the door's own kind: JSON for JSON doors, else the site's error page
    in the visitor's language."""
    door = scope.get("chukker.door")
    if (not isinstance(door, Door) or door.json
            or str(scope.get("path", "")).startswith("/api/")):
        return _json_answer(status, code, params, headers)
    from starlette.requests import Request

    from chukker.web.refusals import refusal_message
    from chukker.web.shared.render import error_page, lang_of

    request = Request(scope)
    page = error_page(request, status, refusal_message(code, params, lang_of(request)))
    hs = [(k, v) for k, v in page.raw_headers if k != b"content-length"]
    hs.append((b"content-length", str(len(page.body)).encode()))
    hs += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    return status, hs, bytes(page.body)


async def send_answer(send: Send, reply: tuple[int, list[tuple[bytes, bytes]], bytes]) -> None:
    """Send ``reply`` (status, headers, body), an :func:`answer`, as the whole response."""
    status, headers, data = reply
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def header_of(scope: Scope, name: bytes) -> bytes | None:
    """The first value of the request header ``name`` (lower case), else ``None``."""
    for k, v in scope.get("headers", []):
        if k == name:
            return bytes(v)
    return None


def _with_headers(msg: Message, extra: list[tuple[bytes, bytes]]) -> None:
    """``extra`` added to a response's start, each unless the answer has it already."""
    headers = list(msg.get("headers", []))
    have = {k.lower() for k, _ in headers}
    msg["headers"] = headers + [(k, v) for k, v in extra if k not in have]


class Guard:
    """The one middleware that keeps every door's declaration (see the module).

    ``plane``: the plane this process serves (a request of the other plane's door is sent
    there, at ``addresses``; ``fallback``: the host named when the request's is not one);
    ``stream_slots``: the streams set up at once; ``api_limit``: the API's body limit."""

    def __init__(self, app: ASGIApp, doors: tuple[Door, ...] = DOORS,
                 api_limit: int = limits.API_BODY_BYTES, plane: Plane = Plane.BOTH,
                 addresses: Addresses | None = None, fallback: str = "127.0.0.1",
                 stream_slots: int = 8) -> None:
        self.app = app
        self.doors = doors
        self.api_limit = api_limit
        self.plane = plane
        self.addresses = addresses or Addresses()
        self.fallback = fallback
        self.stream_slots = stream_slots
        self.slots = asyncio.Semaphore(stream_slots)

    def limit_of(self, door: Door) -> int:
        """The door's body limit (the API's configured limit where it is the API's)."""
        return self.api_limit if door.body == limits.API_BODY_BYTES else door.body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        door = scope.get("chukker.door")  # the page cache's (outermost) lookup
        if door is None or self.doors is not DOORS:
            door = scope["chukker.door"] = door_for(method, scope.get("path", ""), self.doors)
        if self.plane != Plane.BOTH and not plane_of(method, scope.get("path", ""),
                                                      door) & self.plane:
            # the other plane's door: 307 there, before routing, parsing or any store work
            to = Plane.BOTH & ~self.plane
            await send_answer(send, redirect(elsewhere(scope, to, self.addresses,
                                                       self.fallback), to))
            return
        if door.inline_scripts:  # the API's docs: held whole (a few KB), scripts by hash
            await self._docs(scope, receive, send, door, method)
            return
        extra = _HEADERS[door.framed]

        async def with_headers(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                _with_headers(msg, extra)
            await send(msg)

        if door.cost is Cost.STREAM:
            await self._stream(scope, receive, with_headers, door, method)
            return
        await self._guarded(scope, receive, with_headers, door, method)

    async def _guarded(self, scope: Scope, receive: Receive, send: Send, door: Door,
                       method: str) -> None:
        if door is not UNKNOWN and not door.takes(method):
            # OPTIONS, TRACE and any other method: 405 with every method the path takes
            allow = ", ".join(allowed(scope.get("path", ""), self.doors))
            await send_answer(send, answer(scope, 405, "method_not_allowed", {},
                                           {"allow": allow}))
            return
        limit = self.limit_of(door)
        declared = header_of(scope, b"content-length")
        if declared is not None:
            try:
                n = int(declared)
            except ValueError:
                n = limit + 1
            if n > limit:
                await send_answer(send, answer(scope, 413, "too_large", {"limit": limit}))
                return
        if (door.role in BEARERS and door.credential == HEADER and door.takes(method)
                and not self._credentialed(scope, door)):
            # no token at all: refused from the route alone, no body read, no work (which
            # token it is, a match's or the organiser's, the handler checks)
            await send_answer(send, answer(scope, 401, BEARERS[door.role], {},
                                           {"www-authenticate": "Bearer"}))
            return
        kind = door.cost.kind
        if kind is not None and door.takes(method) and (method != "GET" or kind != Kind.PLAYS):
            refusal = self._pool_refusal(scope, kind)
            if refusal is not None:
                await send_answer(send, refusal)
                return
        if door.body and method in ("POST", "PUT", "PATCH") and (
                door.json or (header_of(scope, b"content-type") or b"").split(b";")[0]
                .strip().lower().endswith(b"json")):
            await self._json_checked(scope, receive, send, limit, door.depth)
            return
        await self._counted(scope, receive, send, limit)

    async def _stream(self, scope: Scope, receive: Receive, send: Send, door: Door,
                      method: str) -> None:
        """A stream: its set-up waits for one of the :attr:`stream_slots`, given back at
        its first write (or its end)."""
        await self.slots.acquire()
        held = True

        def release() -> None:
            nonlocal held
            if held:
                held = False
                self.slots.release()

        async def first_write_releases(msg: Message) -> None:
            try:
                await send(msg)
            finally:
                if msg["type"] == "http.response.body":
                    release()

        try:
            await self._guarded(scope, receive, first_write_releases, door, method)
        finally:
            release()

    async def _docs(self, scope: Scope, receive: Receive, send: Send, door: Door,
                    method: str) -> None:
        """A documentation page, held whole (a few KB) to allow its inline script by hash."""
        held: list[Message] = []

        async def hold(msg: Message) -> None:
            held.append(msg)

        await self._guarded(scope, receive, hold, door, method)
        body = b"".join(m.get("body", b"") for m in held if m["type"] == "http.response.body")
        csp = CSP.format(scripts=inline_script_hashes(body), ancestors="'none'")
        extra = [*_HEADERS[door.framed][:-1], (b"content-security-policy", csp.encode())]
        for msg in held:
            if msg["type"] == "http.response.start":
                _with_headers(msg, extra)
            await send(msg)

    def _credentialed(self, scope: Scope, door: Door) -> bool:
        auth = header_of(scope, b"authorization") or b""
        if auth[:7].lower() == b"bearer " and auth[7:].strip():
            return True
        if door.role is Role.ORGANISER:
            state = found_state(scope.get("app"))
            return state is not None and state.organiser.open
        return False

    def _pool_refusal(self, scope: Scope, kind: Kind) -> Any:
        pool = pools(scope.get("app")).pools[kind]
        if pool.admits(client_of_app_scope(scope, proxies_of(scope.get("app")))):
            return None
        busy = pool.busy()
        return answer(scope, 503, busy.code, busy.params, {"retry-after": str(busy.retry_after)})

    async def _counted(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > limit:
                    raise _TooLarge
            return msg

        async def watched(msg: Message) -> None:
            nonlocal started
            if msg["type"] == "http.response.start":
                started = True
            await send(msg)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            if not started:
                await send_answer(send, answer(scope, 413, "too_large", {"limit": limit}))
        except Exception as exc:  # FastAPI wraps errors raised while reading the body
            if isinstance(exc.__cause__, _TooLarge) or isinstance(exc.__context__, _TooLarge):
                if not started:
                    await send_answer(send, answer(scope, 413, "too_large", {"limit": limit}))
                return
            raise

    async def _json_checked(self, scope: Scope, receive: Receive, send: Send, limit: int,
                            depth: int) -> None:
        """Read the (capped) body, refuse it if it nests too deep, then replay it."""
        chunks: list[bytes] = []
        seen = 0
        while True:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return
            part = msg.get("body", b"")
            seen += len(part)
            if seen > limit:
                await send_answer(send, answer(scope, 413, "too_large", {"limit": limit}))
                return
            chunks.append(part)
            if not msg.get("more_body", False):
                break
        data = b"".join(chunks)
        if limits.json_text_depth(data) > depth:
            await send_answer(send, answer(scope, 422, "too_deep",
                                           {"where": "body", "limit": depth}))
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": data, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
