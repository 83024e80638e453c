"""The route inventory: every door of the app declares its guard, and one middleware keeps it.

Each route (API, pages, plays, rules, tournaments, learn, ops, static, docs) has a
:class:`Door` in :data:`DOORS`: who may call it (:class:`Role`), how big its body may
be, its cost class (:class:`Cost`), whether it answers JSON, and its documented
answers (status -> refusal code) for the OpenAPI. :class:`Guard`, the one
middleware, finds the door of each request (first match, in routing order) and

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

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from starlette.routing import Mount, compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chukker import limits
from chukker.ops.proxy import client_of_app_scope
from chukker.web.heavy import Kind


class Role(StrEnum):
    """Who may call a door, least to most trusted."""

    ANONYMOUS = "anonymous"  # anyone on the network
    SPECTATOR = "spectator"  # anyone with a match's or tournament's link
    TIMEKEEPER = "timekeeper"  # the match's timekeeper token (or the committee's)
    COMMITTEE = "committee"  # the match's or tournament's committee token
    ORGANISER = "organiser"  # the server's organiser token (anyone in --open mode)
    OPERATOR = "operator"  # the scraper presenting the metrics token (never an address)


class Cost(StrEnum):
    """What a request costs the server, and where that work runs."""

    CHEAP = "cheap"  # on the event loop, bounded by the body and the store
    STREAM = "stream"  # a long-lived stream (StreamGate, stream caps)
    HEAVY_PLAYS = "heavy-plays"
    HEAVY_PDF = "heavy-pdf"
    HEAVY_RULES = "heavy-rules"
    HEAVY_IMPORTS = "heavy-imports"
    HEAVY_DRAWINGS = "heavy-drawings"

    @property
    def kind(self) -> Kind | None:
        """The heavy pool of this cost class."""
        return Kind(self.value.removeprefix("heavy-")) if self.value.startswith("heavy-") else None


#: how a door's role is proven: a bearer header the guard can see, or a form field or
#: fragment only the handler reads (the guard then leaves the check to it)
HEADER, FORM, NONE = "header", "form", "none"


@dataclass(frozen=True, slots=True)
class Door:
    """One route's declaration."""

    methods: str  # "GET", "POST", "GET,POST"
    path: str  # as routed, e.g. "/api/matches/{match_id}/events"
    role: Role
    cost: Cost = Cost.CHEAP
    body: int = 0  # bytes; 0: no body
    json: bool = False  # answers JSON (its refusals too)
    credential: str = NONE  # how the role is proven (HEADER: checked here too)
    #: status -> refusal code, beyond the success (a 2xx: another success, in words)
    answers: Mapping[int, str] = field(default_factory=dict)
    media: str = ""  # the success answer's media type when not JSON or HTML
    depth: int = limits.MAX_DEPTH  # JSON nesting refused before parsing (422 too_deep)
    json_refusals: bool = False  # refusals are JSON though the answer is not (files, streams)

    def rate(self, visitor: tuple[float, float]) -> tuple[float, float] | None:
        """The per-address rate (burst, per second) of this door: every door anyone may
        call has ``visitor``'s (setting ``limits.visitor_rate``), pages, JSON, exports and
        heavy work alike, a cached answer included (:mod:`chukker.web.cache` keeps it);
        a stream's is its per-address cap (``limits.max_streams_per_address``, with the
        total cap in :mod:`chukker.web.limits`); a token's door has none: the officials
        are never slowed by a rate, and a bad token is throttled (``too_many_bad_tokens``).

        >>> door_for("GET", "/").rate((1000.0, 100.0))
        (1000.0, 100.0)
        >>> door_for("POST", "/api/matches/m1/events").rate((1000.0, 100.0)) is None
        True
        """
        if self.role not in (Role.ANONYMOUS, Role.SPECTATOR) or self.cost is Cost.STREAM:
            return None
        return visitor if visitor[1] > 0 else None

    def takes(self, method: str) -> bool:
        ms = self.methods.split(",")
        return method in ms or (method == "HEAD" and "GET" in ms)


A, S, T, C, ORG, OP = (Role.ANONYMOUS, Role.SPECTATOR, Role.TIMEKEEPER, Role.COMMITTEE,
                     Role.ORGANISER, Role.OPERATOR)  # fmt: skip
API = limits.API_BODY_BYTES
MATCH = {404: "unknown_match"}
TOURN = {404: "unknown_tournament"}
TOKEN = {401: "no_token", 403: "bad_token", 429: "too_many_bad_tokens"}
HEAVY = {503: "heavy_busy", 422: "heavy_limit"}
#: doors whose body the record's definitions validate (a deep value is an invalid event,
#: refused by them with its own code): only what a parser could not take is refused here
VALIDATED = 512

#: every door of the app
DOORS: tuple[Door, ...] = (
    # the match API (docs/live.md)
    Door("GET", "/openapi.json", A, json=True),
    Door("GET", "/api/time", A, json=True),
    Door("GET", "/api/matches", A, json=True, answers={422: "bad_request"}),
    Door("POST", "/api/matches", ORG, body=API, json=True, credential=HEADER, depth=VALIDATED,
         answers={401: "organiser_required", 403: "organiser_required", 413: "too_large",
                  422: "bad_request", 429: "rate_limited", 400: "bad_body"}),
    # the timekeeper's or committee's token (or the display token their console gives
    # its screens): the handler checks it, knowing the match
    Door("POST", "/api/matches/{match_id}/stream-ticket", T, body=API, json=True,
         credential=HEADER, answers={**MATCH, **TOKEN, 429: "rate_limited"}),
    Door("GET", "/api/matches/{match_id}/display-token", T, json=True, credential=HEADER,
         answers={**MATCH, **TOKEN}),
    Door("POST", "/api/matches/{match_id}/events", T, body=API, json=True, credential=HEADER,
         depth=VALIDATED, answers={**MATCH, **TOKEN, 400: "bad_body", 409: "refused",
                                   413: "too_large", 422: "bad_request", 503: "busy"}),
    Door("GET", "/api/matches/{match_id}", S, json=True, answers={**MATCH, 422: "bad_request"}),
    Door("GET", "/api/matches/{match_id}/record", S, json=True, media="application/toml",
         answers={**MATCH, 422: "bad_request"}),
    Door("GET", "/api/matches/{match_id}/horns", S, json=True, answers=MATCH),
    Door("GET", "/api/matches/{match_id}/stream", S, Cost.STREAM, json=True,
         media="text/event-stream", answers={**MATCH, 503: "too_many_streams"}),
    Door("GET", "/api/matches/{match_id}/feed.json", S, json=True, answers=MATCH),
    Door("GET", "/api/matches/{match_id}/feed.xml", S, json=True, media="application/xml",
         answers=MATCH),
    Door("GET", "/api/matches/{match_id}/feed.csv", S, json=True, media="text/csv",
         answers=MATCH),
    # the match pages
    Door("GET", "/", A),
    Door("POST", "/m/{match_id}/archive", C, body=4096, credential=FORM),
    Door("GET", "/new", A),
    Door("POST", "/new", ORG, body=API, credential=FORM),
    Door("GET", "/m/{match_id}/created", S),
    Door("GET", "/m/{match_id}", S),
    Door("GET", "/m/{match_id}/display", S),
    Door("GET", "/m/{match_id}/overlay", S),
    Door("GET", "/m/{match_id}/console", T),  # the token travels in the fragment
    Door("GET", "/m/{match_id}/sheet", S),
    Door("GET", "/m/{match_id}/mounts", S),  # the grooms' page of one match (read only)
    Door("GET", "/m/{match_id}/undo", T, json=True, credential=HEADER,  # what an undo would do
         answers={**MATCH, **TOKEN, 422: "bad_request"}),
    Door("GET", "/m/{match_id}/sheet.pdf", S, Cost.HEAVY_PDF, media="application/pdf",
         answers=HEAVY),
    Door("GET", "/m/{match_id}/goals.csv", S, media="text/csv"),
    Door("GET", "/m/{match_id}/fouls.csv", S, media="text/csv"),
    Door("GET", "/m/{match_id}/sheet.json", S, json=True),
    Door("GET", "/apidocs/{name}", A),
    Door("GET", "/docs", A),
    Door("GET", "/redoc", A),
    Door("GET", "/help/keys", A),  # the console's key card
    Door("GET", "/static/{path:path}", A),
    # the rulebook
    Door("GET", "/rules/", A),
    Door("GET", "/rules/search", A, Cost.HEAVY_RULES, answers=HEAVY),
    Door("GET", "/rules/glossary/{lang}", A),
    Door("GET", "/rules/static/{path:path}", A),
    Door("GET", "/rules/{edition}/{lang}/{rule:int}", A, Cost.HEAVY_RULES, answers=HEAVY),
    Door("GET", "/rules/{edition}/{lang}/{rule:int}/{clause:path}", A),
    # plays
    Door("GET", "/plays/", A),
    Door("GET", "/plays/assets/{name}", A),
    Door("GET,POST", "/plays/review", A, Cost.HEAVY_PLAYS, body=limits.REVIEW_BODY_BYTES,
         answers={**HEAVY, 400: "bad_file", 413: "too_large"}),
    Door("GET", "/plays/review/{rid:str}.csv", A, media="text/csv"),
    Door("GET", "/plays/review/{rid:str}.toml", A, media="application/toml"),
    Door("GET", "/plays/review/{rid:str}", A, Cost.HEAVY_DRAWINGS, answers=HEAVY),
    Door("GET", "/plays/{sid:str}.svg", A, Cost.HEAVY_DRAWINGS, media="image/svg+xml",
         answers=HEAVY),
    Door("GET", "/plays/{sid:str}.png", A, Cost.HEAVY_DRAWINGS, media="image/png",
         answers=HEAVY),
    Door("GET", "/plays/{sid:str}", A, Cost.HEAVY_DRAWINGS, answers=HEAVY),
    # tournaments
    Door("POST", "/tournaments/api", ORG, Cost.HEAVY_IMPORTS, body=limits.TOURNAMENT_BODY_BYTES,
         json=True, credential=HEADER,
         answers={401: "organiser_required", 403: "organiser_required", 413: "too_large",
                  422: "unreadable_tournament", 400: "bad_body", 409: "tournament_exists", **HEAVY,
                  200: "the same tournament again (name, venue, year): updated"}),
    Door("GET", "/tournaments/", A),
    Door("GET", "/tournaments/season", A),
    Door("GET", "/tournaments/season.csv", A, media="text/csv"),
    Door("GET", "/tournaments", A),
    Door("GET", "/tournaments/{tid}", S, answers=TOURN),
    Door("POST", "/tournaments/{tid}/api/matches/{mid}", C, body=API, json=True,
         credential=HEADER, answers={**TOURN, 401: "no_token", 403: "bad_token", 400: "bad_body",
                                     422: "bad_request", 409: "match_started"}),
    Door("GET", "/tournaments/{tid}/standings.json", S, json=True, answers=TOURN),
    Door("GET", "/tournaments/{tid}/results.json", S, json=True, answers=TOURN),
    Door("GET", "/tournaments/{tid}/{what}.csv", S, media="text/csv", answers=TOURN,
         json_refusals=True),
    Door("GET", "/tournaments/{tid}/bracket.svg", S, media="image/svg+xml", answers=TOURN,
         json_refusals=True),
    Door("GET", "/tournaments/{tid}/qr/{mid}.svg", S, media="image/svg+xml", answers=TOURN,
         json_refusals=True),
    Door("GET", "/tournaments/{tid}/matches/{mid}", S, answers=TOURN),
    Door("GET", "/tournaments/{tid}/teams/{team}", S, answers=TOURN),
    Door("GET", "/tournaments/{tid}/teams/{team}/mounts", S, answers=TOURN),  # the pony line
    Door("GET", "/tournaments/{tid}/arena/{slug}/{view}", S, answers=TOURN),
    Door("GET", "/tournaments/{tid}/stream", S, Cost.STREAM, media="text/event-stream",
         answers=TOURN, json_refusals=True),
    # rules education
    Door("GET", "/learn/", A),
    Door("GET", "/learn/test", A),
    Door("POST", "/learn/result", A, body=API),
    Door("GET", "/learn/result", A),
    Door("POST", "/learn/result.csv", A, body=API, media="text/csv"),
    Door("GET", "/learn/play/{sid}.png", A, Cost.HEAVY_DRAWINGS, media="image/png",
         answers=HEAVY),
    # operations
    Door("GET", "/healthz", A, json=True),
    # anyone learns the status; the operator (organiser's or metrics token) the checks
    Door("GET", "/readyz", A, json=True, answers={503: "unavailable"}),
    # the scraper presenting the metrics_token setting; nobody while it is unset (404)
    Door("GET", "/metrics", OP, media="text/plain", json_refusals=True, credential=HEADER,
         answers={401: "metrics_token_required", 403: "metrics_token_required",
                  404: "not_found"}),
)  # fmt: skip

#: the roles whose header credential the guard asks for (the code of its 401)
_BEARERS = {Role.ORGANISER: "organiser_required", Role.TIMEKEEPER: "no_token",
            Role.COMMITTEE: "no_token"}

#: a request that matches no door (404 or 405 follow): no more than the API's body
UNKNOWN = Door("*", "*", A, body=API)


def allowed(path: str, doors: tuple[Door, ...] = DOORS) -> list[str]:
    """The methods the doors of ``path`` take (HEAD with GET), for ``Allow``.

    >>> allowed("/api/matches")
    ['GET', 'HEAD', 'POST']
    """
    out: set[str] = set()
    for d, rx in _compiled(doors):
        if rx.match(path):
            out.update(d.methods.split(","))
    if "GET" in out:
        out.add("HEAD")
    return sorted(out)


def door_for(method: str, path: str, doors: tuple[Door, ...] = DOORS) -> Door:
    """The door a request to ``path`` goes through (by path; :data:`UNKNOWN` if none).

    The path alone decides: a method the door does not take gets the door's
    limits and then the router's 405.
    """
    for d, rx in _compiled(doors):
        if rx.match(path) and d.takes(method):
            return d
    for d, rx in _compiled(doors):
        if rx.match(path):
            return d
    return UNKNOWN


_CACHE: dict[int, list[tuple[Door, re.Pattern[str]]]] = {}


def _compiled(doors: tuple[Door, ...]) -> list[tuple[Door, re.Pattern[str]]]:
    key = id(doors)
    if key not in _CACHE:
        _CACHE[key] = [(d, compile_path(d.path)[0]) for d in doors]
    return _CACHE[key]


def routes_of(routes: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(method, path)`` of every route under ``routes`` (FastAPI's included routers and
    Starlette mounts followed; a mounted app without routes, e.g. static files, gives
    ``("GET", prefix/{path:path})``)."""
    for r in routes:
        if type(r).__name__ == "_IncludedRouter":  # FastAPI's include_router
            yield from routes_of(r.original_router.routes, prefix + r.include_context.prefix)
        elif isinstance(r, Mount):
            sub = getattr(r.app, "routes", None)
            if sub is None:
                yield ("GET", prefix + r.path + "/{path:path}")
            else:
                yield from routes_of(sub, prefix + r.path)
        else:
            methods = getattr(r, "methods", None) or {"WEBSOCKET"}
            for m in sorted(methods):
                if m != "HEAD":
                    yield (m, prefix + str(getattr(r, "path", "")))


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
    if getattr(door, "json", True) or str(scope.get("path", "")).startswith("/api/"):
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


class Guard:
    """The one middleware that keeps every door's declaration (see the module)."""

    def __init__(self, app: ASGIApp, doors: tuple[Door, ...] = DOORS,
                 api_limit: int = limits.API_BODY_BYTES) -> None:
        self.app = app
        self.doors = doors
        self.api_limit = api_limit

    def limit_of(self, door: Door) -> int:
        """The door's body limit (the API's configured limit where it is the API's)."""
        return self.api_limit if door.body == limits.API_BODY_BYTES else door.body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        door = door_for(method, scope.get("path", ""), self.doors)
        scope["chukker.door"] = door
        if door is not UNKNOWN and not door.takes(method):
            # OPTIONS, TRACE and any other method: 405 with every method the path takes
            allow = ", ".join(allowed(scope.get("path", ""), self.doors))
            await send_answer(send, answer(scope, 405, "method_not_allowed", {}, {"allow": allow}))
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
        if (door.role in _BEARERS and door.credential == HEADER and door.takes(method)
                and not self._credentialed(scope, door)):
            # no token at all: refused from the route alone, no body read, no work (which
            # token it is, a match's or the organiser's, the handler checks)
            await send_answer(send, answer(scope, 401, _BEARERS[door.role], {},
                                      {"www-authenticate": "Bearer"}))
            return
        kind = door.cost.kind
        if kind is not None and door.takes(method) and (method != "GET" or kind != Kind.PLAYS):
            refusal = self._pool_refusal(scope, kind)
            if refusal is not None:
                await send_answer(send, refusal)
                return
        ctype = (header_of(scope, b"content-type") or b"").split(b";")[0].strip().lower()
        if door.body and (ctype.endswith(b"json") or door.json) and method in ("POST", "PUT",
                                                                                "PATCH"):
            await self._json_checked(scope, receive, send, limit, door.depth)
            return
        await self._counted(scope, receive, send, limit)

    def _credentialed(self, scope: Scope, door: Door) -> bool:
        auth = header_of(scope, b"authorization") or b""
        if auth[:7].lower() == b"bearer " and auth[7:].strip():
            return True
        if door.role is Role.ORGANISER:
            app = scope.get("app")
            org = getattr(getattr(app, "state", None), "organiser", None)
            return bool(getattr(org, "open", False))
        return False

    def _pool_refusal(self, scope: Scope, kind: Kind) -> Any:
        from chukker.web.heavy import pools_of

        app = scope.get("app")
        pool = pools_of(getattr(app, "state", None)).pools[kind]
        if pool.admits(client_of_app_scope(scope)):
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
