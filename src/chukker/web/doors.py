"""The route table: every door of the app, declared once (issue 45).

Each route (API, pages, plays, rules, tournaments, learn, ops, static, docs) has one
:class:`Door` in :data:`DOORS`, which says

* its path and methods (as routed);
* its plane (:class:`Plane`: the officials', the public's or both);
* who may call it (:class:`Role`) and how the role is proven (``credential``);
* its input bounds: the body's bytes and the JSON nesting refused before any parser;
* its cost class (:class:`Cost`: cheap, a stream, a heavy pool);
* its cache rule (:class:`Cache`, and the query parameters its page reads);
* its rate (:meth:`Door.rate`: the visitors' for the doors anyone may call);
* the requests a process asks it before it serves (``warm``);
* its headers' exceptions (``framed``: the overlay; ``inline_scripts``: the API docs);
* its documented answers (status -> refusal code) for the OpenAPI.

Everything else derives from this table: the guard (:mod:`chukker.web.guard`, which is
also the plane gate, the stream gate and the security headers), the page cache
(:mod:`chukker.web.cache`), each request's plane (:func:`plane_of`) and the warm-up
(:func:`warm_up_targets`). A request's door is looked up once, by the outermost layer
(the page cache), and put in ``scope["chukker.door"]`` for the layers within.

>>> door_for("POST", "/api/matches/m1/events").role
<Role.TIMEKEEPER: 'timekeeper'>
>>> door_for("GET", "/m/m1/sheet.pdf").cost
<Cost.HEAVY_PDF: 'heavy-pdf'>
>>> plane_of("GET", "/m/m1/console")
<Plane.OFFICIALS: 1>
>>> plane_of("GET", "/m/m1")
<Plane.PUBLIC: 2>
>>> plane_of("POST", "/api/matches/m1/events") == Plane.BOTH
True
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import IntFlag, StrEnum, auto
from typing import Any

from starlette.applications import Starlette
from starlette.routing import Mount, Route, Router, WebSocketRoute, compile_path

from chukker import limits
from chukker.web.heavy import Kind


class Plane(IntFlag):
    """Which plane a process serves, or a door belongs to (issue 35; :mod:`chukker.web.planes`).

    An ``IntFlag``, compared with ``==`` (never ``is``): a copy of this module (pytest's
    doctests import one) still agrees on every plane."""

    OFFICIALS = auto()
    PUBLIC = auto()
    BOTH = OFFICIALS | PUBLIC

    @property
    def label(self) -> str:
        """``officials``, ``public`` or ``both`` (logs, metrics, ``/readyz``)."""
        return {1: "officials", 2: "public"}.get(int(self), "both")


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
    STREAM = "stream"  # a long-lived stream (the guard's stream gate, stream caps)
    HEAVY_PLAYS = "heavy-plays"
    HEAVY_PDF = "heavy-pdf"
    HEAVY_RULES = "heavy-rules"
    HEAVY_IMPORTS = "heavy-imports"
    HEAVY_DRAWINGS = "heavy-drawings"

    @property
    def kind(self) -> Kind | None:
        """The heavy pool of this cost class."""
        return Kind(self.value.removeprefix("heavy-")) if self.value.startswith("heavy-") else None


class Cache(StrEnum):
    """What the page cache (:mod:`chukker.web.cache`) does with a door's ``GET``."""

    PAGE = "page"  # rendered once per path, language, read query and version; kept briefly
    NO_STORE = "no-store"  # never kept, here or by anyone (``Cache-Control: no-store``)
    PASS = "pass"  # passed on as it is (static files keep their own headers; streams)


#: how a door's role is proven: a bearer header the guard can see, or a form field or
#: fragment only the handler reads (the guard then leaves the check to it)
HEADER, FORM, NONE = "header", "form", "none"

#: the query parameters the pages read (every other one is ignored by them): a cached
#: page's entry is keyed by these (:attr:`Door.query`)
QUERY = frozenset({"archived", "part", "c", "t", "clause", "p", "in", "q", "at", "before",
                   "format", "last", "limit", "level", "edition", "n", "seed", "pass_mark",
                   "time_limit", "name"})


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
    #: the plane(s) that serve it; the other plane answers a 307 to it (the crowd's unless said)
    plane: Plane = Plane.PUBLIC
    #: the page cache's rule (None: a token's door is never kept, a stream passes, a page
    #: anyone may call is kept) and the query parameters its page reads
    cache: Cache | None = None
    query: frozenset[str] = QUERY
    #: what a process asks this door before it serves (on a plane that serves it)
    warm: tuple[str, ...] = ()
    framed: bool = False  # any site may frame it (the overlay, embedded by streaming software)
    inline_scripts: bool = False  # its inline scripts are allowed by hash (the API docs)
    #: narrower doors of this door's route (their own plane or cache rule), matched first
    views: tuple[Door, ...] = ()

    @property
    def keeping(self) -> Cache:
        """The cache rule: the declared one, else a token's door ``NO_STORE``, a stream
        ``PASS``, a page anyone may call ``PAGE``.

        >>> door_for("GET", "/m/m1/console").keeping, door_for("GET", "/api/time").keeping
        (<Cache.NO_STORE: 'no-store'>, <Cache.NO_STORE: 'no-store'>)
        >>> door_for("GET", "/m/m1").keeping, door_for("GET", "/api/matches/m1/stream").keeping
        (<Cache.PAGE: 'page'>, <Cache.PASS: 'pass'>)
        """
        if self.cache is not None:
            return self.cache
        if self.role not in (Role.ANONYMOUS, Role.SPECTATOR):
            return Cache.NO_STORE
        return Cache.PASS if self.cost is Cost.STREAM else Cache.PAGE

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
OFF, BOTH = Plane.OFFICIALS, Plane.BOTH
API = limits.API_BODY_BYTES
MATCH = {404: "unknown_match"}
TOURN = {404: "unknown_tournament"}
TOKEN = {401: "no_token", 403: "bad_token", 429: "too_many_bad_tokens"}
HEAVY = {503: "heavy_busy", 422: "heavy_limit"}
#: doors whose body the record's definitions validate (a deep value is an invalid event,
#: refused by them with its own code): only what a parser could not take is refused here
VALIDATED = 512
#: the page in each of the site's languages (its catalogue loaded, its template compiled)
LANGS = ("", "?lang=es", "?lang=it")

#: every door of the app
DOORS: tuple[Door, ...] = (
    # the match API (docs/live.md): on both planes, the crowd's feeds excepted
    Door("GET", "/openapi.json", A, json=True, plane=BOTH, warm=("/openapi.json",)),
    # the clock every screen measures its offset from: never kept
    Door("GET", "/api/time", A, json=True, plane=BOTH, cache=Cache.NO_STORE,
         warm=("/api/time",)),
    Door("GET", "/api/matches", A, json=True, answers={422: "bad_request"}, plane=BOTH,
         warm=("/api/matches?limit=1",)),
    Door("POST", "/api/matches", ORG, body=API, json=True, credential=HEADER, depth=VALIDATED,
         answers={401: "organiser_required", 403: "organiser_required", 413: "too_large",
                  422: "bad_request", 429: "rate_limited", 400: "bad_body"}, plane=BOTH),
    # the timekeeper's or committee's token (or the display token their console gives
    # its screens): the handler checks it, knowing the match
    Door("POST", "/api/matches/{match_id}/stream-ticket", T, body=API, json=True,
         credential=HEADER, answers={**MATCH, **TOKEN, 429: "rate_limited"}, plane=BOTH),
    Door("GET", "/api/matches/{match_id}/display-token", T, json=True, credential=HEADER,
         answers={**MATCH, **TOKEN}, plane=BOTH),
    Door("POST", "/api/matches/{match_id}/events", T, body=API, json=True, credential=HEADER,
         depth=VALIDATED, answers={**MATCH, **TOKEN, 400: "bad_body", 409: "refused",
                                   413: "too_large", 422: "bad_request", 503: "busy"},
         plane=BOTH),
    Door("GET", "/api/matches/{match_id}", S, json=True, answers={**MATCH, 422: "bad_request"},
         plane=BOTH, warm=("/api/matches/-",)),
    Door("GET", "/api/matches/{match_id}/record", S, json=True, media="application/toml",
         answers={**MATCH, 422: "bad_request"}, plane=BOTH),
    Door("GET", "/api/matches/{match_id}/horns", S, json=True, answers=MATCH, plane=BOTH),
    # on the officials' plane a stream needs a ticket or a token (checked by its handler)
    Door("GET", "/api/matches/{match_id}/stream", S, Cost.STREAM, json=True,
         media="text/event-stream", answers={**MATCH, 503: "too_many_streams"}, plane=BOTH),
    Door("GET", "/api/matches/{match_id}/feed.json", S, json=True, answers=MATCH,
         warm=("/api/matches/-/feed.json",)),
    Door("GET", "/api/matches/{match_id}/feed.xml", S, json=True, media="application/xml",
         answers=MATCH),
    Door("GET", "/api/matches/{match_id}/feed.csv", S, json=True, media="text/csv",
         answers=MATCH),
    # the match pages
    Door("GET", "/", A, warm=tuple("/" + q for q in LANGS)),
    Door("POST", "/m/{match_id}/archive", C, body=4096, credential=FORM, plane=BOTH),
    Door("GET", "/new", A, plane=OFF),
    Door("POST", "/new", ORG, body=API, credential=FORM, plane=BOTH),
    # the tokens of a new match: the officials', never kept
    Door("GET", "/m/{match_id}/created", S, plane=OFF, cache=Cache.NO_STORE),
    Door("GET", "/m/{match_id}", S, warm=("/m/-",)),
    Door("GET", "/m/{match_id}/display", S),
    Door("GET", "/m/{match_id}/overlay", S, framed=True),
    Door("GET", "/m/{match_id}/console", T, plane=OFF,  # the token travels in the fragment
         warm=tuple("/m/-/console" + q for q in LANGS)),
    Door("GET", "/m/{match_id}/sheet", S),
    Door("GET", "/m/{match_id}/mounts", S),  # the grooms' page of one match (read only)
    # what an undo would do: the console's question, on both planes
    Door("GET", "/m/{match_id}/undo", T, json=True, credential=HEADER,
         answers={**MATCH, **TOKEN, 422: "bad_request"}, plane=BOTH),
    Door("GET", "/m/{match_id}/sheet.pdf", S, Cost.HEAVY_PDF, media="application/pdf",
         answers=HEAVY),
    Door("GET", "/m/{match_id}/goals.csv", S, media="text/csv"),
    Door("GET", "/m/{match_id}/fouls.csv", S, media="text/csv"),
    Door("GET", "/m/{match_id}/sheet.json", S, json=True, warm=("/m/-/sheet.json",)),
    Door("GET", "/apidocs/{name}", A, plane=BOTH),
    Door("GET", "/docs", A, plane=BOTH, inline_scripts=True),
    Door("GET", "/redoc", A, plane=BOTH, inline_scripts=True),
    Door("GET", "/help/keys", A, plane=BOTH, warm=("/help/keys",)),  # the console's key card
    Door("GET", "/static/{path:path}", A, plane=BOTH, cache=Cache.PASS),
    # the rulebook
    Door("GET", "/rules/", A, warm=("/rules/",)),
    Door("GET", "/rules/search", A, Cost.HEAVY_RULES, answers=HEAVY),
    Door("GET", "/rules/glossary/{lang}", A),
    Door("GET", "/rules/static/{path:path}", A, cache=Cache.PASS),
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
                  200: "the same tournament again (name, venue, year): updated"}, plane=BOTH),
    Door("GET", "/tournaments/", A, warm=("/tournaments/",)),
    Door("GET", "/tournaments/season", A),
    Door("GET", "/tournaments/season.csv", A, media="text/csv"),
    Door("GET", "/tournaments", A),
    Door("GET", "/tournaments/{tid}", S, answers=TOURN),
    Door("POST", "/tournaments/{tid}/api/matches/{mid}", C, body=API, json=True,
         credential=HEADER, answers={**TOURN, 401: "no_token", 403: "bad_token", 400: "bad_body",
                                     422: "bad_request", 409: "match_started"}, plane=BOTH),
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
    # an arena's big screen; its console (the same route) is the officials', never kept
    Door("GET", "/tournaments/{tid}/arena/{slug}/{view}", S, answers=TOURN, views=(
        Door("GET", "/tournaments/{tid}/arena/{slug}/console", S, answers=TOURN, plane=OFF,
             cache=Cache.NO_STORE),)),
    # the arena console follows its arena through the tournament's stream (one per arena)
    Door("GET", "/tournaments/{tid}/stream", S, Cost.STREAM, media="text/event-stream",
         answers=TOURN, json_refusals=True, plane=BOTH),
    # rules education
    Door("GET", "/learn/", A, warm=("/learn/",)),
    Door("GET", "/learn/test", A),
    Door("POST", "/learn/result", A, body=API),
    Door("GET", "/learn/result", A),
    Door("POST", "/learn/result.csv", A, body=API, media="text/csv"),
    Door("GET", "/learn/play/{sid}.png", A, Cost.HEAVY_DRAWINGS, media="image/png",
         answers=HEAVY),
    # operations: each process answers for itself, never kept
    Door("GET", "/healthz", A, json=True, plane=BOTH, cache=Cache.NO_STORE),
    # anyone learns the status; the operator (organiser's or metrics token) the checks; a
    # load balancer must see it fresh
    Door("GET", "/readyz", A, json=True, answers={503: "unavailable"}, plane=BOTH,
         cache=Cache.NO_STORE, warm=("/readyz",)),
    # the scraper presenting the metrics_token setting; nobody while it is unset (404)
    Door("GET", "/metrics", OP, media="text/plain", json_refusals=True, credential=HEADER,
         answers={401: "metrics_token_required", 403: "metrics_token_required",
                  404: "not_found"}, plane=BOTH, cache=Cache.NO_STORE),
)  # fmt: skip

#: the roles whose header credential the guard asks for (the code of its 401)
BEARERS = {Role.ORGANISER: "organiser_required", Role.TIMEKEEPER: "no_token",
           Role.COMMITTEE: "no_token"}

#: a request that matches no door (404 or 405 follow): no more than the API's body
UNKNOWN = Door("*", "*", A, body=API)


def allowed(path: str, doors: tuple[Door, ...] = DOORS) -> list[str]:
    """The methods the doors of ``path`` take (HEAD with GET), for ``Allow``.

    >>> allowed("/api/matches")
    ['GET', 'HEAD', 'POST']
    """
    out: set[str] = set()
    for d, rx in compiled(doors):
        if rx.match(path):
            out.update(d.methods.split(","))
    if "GET" in out:
        out.add("HEAD")
    return sorted(out)


def door_for(method: str, path: str, doors: tuple[Door, ...] = DOORS) -> Door:
    """The door a request to ``path`` goes through (by path; :data:`UNKNOWN` if none): a
    door's narrower views first.

    The path alone decides: a method the door does not take gets the door's
    limits and then the router's 405.
    """
    table = compiled(doors)
    for d, rx in table:
        if rx.match(path) and d.takes(method):
            return d
    for d, rx in table:
        if rx.match(path):
            return d
    return UNKNOWN


def plane_of(method: str, path: str, door: Door | None = None) -> Plane:
    """The plane(s) a request belongs to: its door's (:attr:`Door.plane`). A request no door
    takes is answered where it is asked (404 or 405), except a ``GET`` of an unknown page,
    which is the crowd's.

    >>> plane_of("GET", "/rules/")
    <Plane.PUBLIC: 2>
    >>> plane_of("GET", "/api/matches/m1") == Plane.BOTH
    True
    >>> plane_of("GET", "/api/matches/m1/feed.json")
    <Plane.PUBLIC: 2>
    >>> plane_of("POST", "/learn/result")
    <Plane.PUBLIC: 2>
    >>> plane_of("GET", "/tournaments/t1/arena/a1/console")
    <Plane.OFFICIALS: 1>
    """
    d = door_for(method, path) if door is None else door
    if d.takes(method):
        return d.plane
    if method in ("GET", "HEAD") and not path.startswith("/api/"):
        return Plane.PUBLIC
    return Plane.BOTH


def warm_up_targets(plane: Plane, doors: tuple[Door, ...] = DOORS) -> tuple[str, ...]:
    """What a process of ``plane`` asks itself before it serves (issue 35): the ``warm``
    requests of the doors it serves, in the table's order.

    >>> warm_up_targets(Plane.OFFICIALS)[:2]
    ('/openapi.json', '/api/time')
    """
    return tuple(u for d in doors if d.plane & plane for u in d.warm)


_CACHE: dict[int, list[tuple[Door, re.Pattern[str]]]] = {}


def compiled(doors: tuple[Door, ...]) -> list[tuple[Door, re.Pattern[str]]]:
    """Each door of ``doors`` (its views just before it) with its path's pattern."""
    key = id(doors)
    if key not in _CACHE:
        _CACHE[key] = [(v, compile_path(v.path)[0]) for d in doors for v in (*d.views, d)]
    return _CACHE[key]


def routes_of(routes: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(method, path)`` of every route under ``routes`` (FastAPI's included routers and
    Starlette mounts followed; a mounted app without routes, e.g. static files, gives
    ``("GET", prefix/{path:path})``)."""
    for r in routes:
        if type(r).__name__ == "_IncludedRouter":  # FastAPI's include_router
            yield from routes_of(r.original_router.routes, prefix + r.include_context.prefix)
        elif isinstance(r, Mount):
            if isinstance(r.app, Router | Starlette):
                yield from routes_of(r.app.routes, prefix + r.path)
            else:  # an app without routes (static files): every path under it
                yield ("GET", prefix + r.path + "/{path:path}")
        elif isinstance(r, Route):  # FastAPI's APIRoute too
            for m in sorted(r.methods or {"WEBSOCKET"}):  # no methods: an ASGI endpoint
                if m != "HEAD":
                    yield (m, prefix + r.path)
        elif isinstance(r, WebSocketRoute):
            yield ("WEBSOCKET", prefix + r.path)
        else:
            raise TypeError(f"a route of a kind routes_of does not know: {type(r).__name__}")
