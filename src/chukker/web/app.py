"""The ASGI application of ``chukker serve``."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import inspect
import logging
import os
import secrets
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Message

from chukker.config import Settings
from chukker.live import LiveService, ServiceError, WorkerRole
from chukker.live.tournaments import TournamentService
from chukker.ops import metrics
from chukker.ops.proxy import TrustedProxies, client_of_scope
from chukker.store import EventStore, open_store
from chukker.store.sqlite import SQLiteStore
from chukker.web import errors as api_errors
from chukker.web import publish
from chukker.web.api import feeds as feeds_api
from chukker.web.api import routes as api
from chukker.web.cache import PageCache
from chukker.web.doors import Door, warm_up_targets
from chukker.web.gate import AddressGate
from chukker.web.guard import Guard
from chukker.web.guard_openapi import document as guard_document
from chukker.web.heavy import Busy, OverLimit, Pools
from chukker.web.limits import StreamCaps
from chukker.web.officials import arena, console, new_match
from chukker.web.officials import help as help_pages
from chukker.web.ops import observe
from chukker.web.planes import PARTS, Addresses, Plane
from chukker.web.public import learn, matches, plays, rules, tournaments
from chukker.web.public.plays_base import PREFIX as PLAYS_PREFIX
from chukker.web.security import Organiser, RateLimit, StreamTickets, Throttle, organiser_token
from chukker.web.shared import apidocs, tournament_view
from chukker.web.shared.render import error_page, lang_of, pool_refusal
from chukker.web.state import AppState, Configured, Fixed

if TYPE_CHECKING:
    from chukker.edge import Replica

log = logging.getLogger("chukker.web")
HERE = Path(__file__).parent

#: FastAPI's OpenTelemetry bridge (FastAPI 0.16x) asks three environment variables on
#: every request whether a provider is configured (1-2 µs a request: a tenth of a
#: cached page's whole answer); chukker keeps its own metrics (``ops/``), so the bridge
#: is off wherever the installed FastAPI has it.
NO_TELEMETRY: dict[str, Any] = (
    {"telemetry": {"tracing": False, "metrics": False, "logs": False}}
    if "telemetry" in inspect.signature(FastAPI.__init__).parameters else {})


def _keep_collector_out_of_the_fanout() -> None:
    """Move everything alive after start-up out of the collector's reach, and keep the
    young generations small and the oldest one rare.

    A full collection (100 ms and more with thousands of streams) would land in the
    middle of a fan-out; a young generation allowed to grow to half a million objects
    (the 10,000 x 50 of an earlier setting) made one collection of it take 200-300 ms
    while a crowd of phones reconnected, and a horn waited that long. With 5,000 x 5 a
    young collection scans at most about 25,000 objects (5-14 ms in a storm of 3,000
    streams), and the oldest generation is collected every 20 of those at most."""
    gc.collect()
    gc.freeze()
    gen0, _gen1, _gen2 = gc.get_threshold()
    gc.set_threshold(max(gen0, 5_000), 5, 20)


#: what a process asks itself before it serves (issue 35): the first request of each kind
#: imports modules, compiles templates, loads the catalogues and builds the OpenAPI
#: document (tens of milliseconds each, on the loop that sounds the horns); done once at
#: start-up, before the collector freezes what is alive, none of it lands on a horn. Each
#: plane's: the ``warm`` requests of the doors it serves, from the route table
WARM_UP: dict[Plane, tuple[str, ...]] = {
    p: warm_up_targets(p) for p in (Plane.OFFICIALS, Plane.PUBLIC)}


async def warm_up(app: Any, plane: Plane) -> list[tuple[str, int]]:
    """Ask the app the requests of :data:`WARM_UP` for ``plane`` (through its whole
    middleware stack, on no socket); the paths and the statuses they got."""
    paths = [p for pl, ps in WARM_UP.items() if pl & plane for p in ps]
    # below the access log and the request metrics (observe.py): nobody asked these
    if app.middleware_stack is None:
        app.middleware_stack = app.build_middleware_stack()
    inner, observer = app.middleware_stack, None
    while inner is not None and observer is None:
        if isinstance(inner, observe.ObserveMiddleware):
            observer = inner
        # Starlette's and our middlewares name the app they wrap ``app``, by convention,
        # not by a type (the innermost, the router, has none): a getattr is the lookup
        inner = getattr(inner, "app", None)
    target_app = observer.app if observer is not None else app
    done: list[tuple[str, int]] = []
    seen = {"status": 0}

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        if message["type"] == "http.response.start":
            seen["status"] = message["status"]

    for target in paths:
        path, _, query = target.partition("?")
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
                 "query_string": query.encode(), "root_path": "",
                 "headers": [(b"host", b"127.0.0.1"), (b"accept-language", b"en")],
                 "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 0), "state": {},
                 "app": app}
        if observer is not None:
            scope["chukker_client"] = client_of_scope(scope, observer.proxies)
        seen["status"] = 0
        try:
            await target_app(scope, receive, send)
        except Exception:  # a warm-up never stops a start: say so and go on
            log.warning("warm-up of %s failed", target, exc_info=True)
        done.append((target, seen["status"]))
    return done


def _stream_caps(settings: Settings | None) -> StreamCaps:
    """The streams' caps of the settings (the environment's without settings)."""
    if settings is None:
        return StreamCaps.from_env()
    lim = settings.limits
    return StreamCaps(lim.max_streams, lim.max_streams_per_address,
                      max(1, lim.max_streams // 20))


def _openapi(app: FastAPI, build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """FastAPI's OpenAPI document with the API's refusals documented (built once)."""
    if app.openapi_schema is None:
        # the refusals of the API, then every door's own answers (web/guard.py)
        app.openapi_schema = guard_document(api_errors.document_errors(build()))
    return app.openapi_schema


def create_app(store: EventStore | str | Path, *, organiser: str | None = None,
               open_mode: bool = False, open_rate: tuple[float, float] = (10, 0.5),
               settings: Settings | None = None, worker: WorkerRole | None = None,
               plane: Plane = Plane.BOTH, addresses: Addresses | None = None,
               warm: bool = False, configured: Configured | None = None,
               edge: Replica | None = None, heavy: Pools | None = None,
               throttle: Throttle | None = None, streams: StreamCaps | None = None,
               stream_tickets: StreamTickets | None = None) -> FastAPI:
    """The app on ``store`` (an :class:`EventStore`, a ``postgresql://`` URL or a file path).

    Creating matches needs ``organiser`` (default: ``$CHUKKER_ORGANISER_TOKEN``,
    else the token kept beside the SQLite file, created on first use); with
    ``open_mode`` anyone may create them, ``open_rate`` = (burst, per second)
    per address. ``settings`` (:mod:`chukker.config`): limits, trusted proxies, metrics
    and access log; the defaults when ``None``. ``worker``: this process is one of
    several on one port (``chukker serve --workers``); only worker 0, the horn keeper,
    keeps the horns' audit and runs the arena feeds.

    ``plane`` (:mod:`chukker.web.planes`, issue 35): the officials' plane (API, console,
    officials' pages; horns, audit, feeds), the public plane (every page, stream, export
    and feed, and the API), or both in one process (the default, as the tests use it).
    Each part is mounted on its plane(s) (:data:`~chukker.web.planes.PARTS`); a ``GET``
    of the other plane's page answers ``307`` to ``addresses`` (where each plane is).
    ``warm``: ask the app its plane's first requests (:data:`WARM_UP`) before it serves
    (``chukker serve`` does; the in-process tests need not). ``configured``: what the
    settings decide for the whole process (:class:`~chukker.web.state.Configured`, made
    once by ``chukker serve``); without it, the modules' defaults. ``edge``: the replica
    an edge serves from (``chukker edge``): its service keeps no audit, runs no arena
    feed and publishes nothing.

    ``heavy``, ``throttle``, ``streams``, ``stream_tickets``: the heavy work's pools, the
    bad tokens' throttle, the streams' caps and the stream tickets, in place of those the
    settings make (as a test wants them: they are never replaced after start).

    The app's ``state`` is a typed :class:`~chukker.web.state.AppState`, fixed at start.

    >>> import tempfile, os
    >>> app = create_app(os.path.join(tempfile.mkdtemp(), "t.sqlite3"))
    >>> "/api/matches/{match_id}/events" in app.openapi()["paths"]
    True
    >>> officials = create_app(os.path.join(tempfile.mkdtemp(), "o.sqlite3"),
    ...                        plane=Plane.OFFICIALS)
    >>> officials.state.plane.label
    'officials'
    """
    st = open_store(store) if isinstance(store, str | Path) else store
    # the horns' audit and the arena feeds: the officials' plane's (or a single process's)
    keeper = (edge is None and (worker is None or worker.keeps_horns)
              and bool(plane & Plane.OFFICIALS))
    conf = configured or Configured()
    svc = LiveService(st, keeps_horns=keeper, adopts=worker is not None and keeper)
    svc.keepalive_s = conf.keepalive_s
    svc.queue_limit = conf.queue_limit
    if worker is not None:
        metrics.worker_role(worker.index, worker.workers, keeper)
    window = os.environ.get("CHUKKER_AT_WINDOW_S")
    if settings is not None:
        svc.at_window_ms = round(settings.limits.at_window_s * 1000)
        organiser = organiser or settings.organiser_token
    elif window:
        svc.at_window_ms = round(float(window) * 1000)
    if organiser is None:
        where = (str(store) if isinstance(store, str | Path)
                 else st.path if isinstance(st, SQLiteStore) else "")
        if where:
            organiser, _ = organiser_token(where)
        else:  # pragma: no cover - a PostgreSQL store object without an environment token
            organiser = os.environ.get("CHUKKER_ORGANISER_TOKEN") or None

    # MQTT (issue 22): only with mqtt.url, and of several workers only in the horn keeper
    feed = feeds_api.make_feed(svc, settings) if keeper else None
    # NATS JetStream (issue 35): only with nats.url, in the process that keeps the horns
    natsfeed = publish.make_publisher(svc, settings) if keeper else None

    # the tournaments (issue 40): folded from the store beside the matches; the officials'
    # plane (or a single process) settles them: live matches and results as results change
    tsvc = TournamentService(svc, settles=keeper)
    tsvc.payload = tournament_view.stream_payload

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await svc.start()
        await tsvc.start(tournament_view.tournaments_dir(conf.tournaments_dir))
        if natsfeed is not None:  # NATS JetStream for the edges (issue 35)
            await publish.start_publisher(svc, natsfeed, tsvc)
        if feed is not None:
            await feeds_api.start_feed(svc, feed, tsvc)
        # before the first horn, not on it
        state.start_up.warmed[:] = await warm_up(app, plane) if warm else []
        _keep_collector_out_of_the_fanout()
        metrics.watch_gc()  # what a stall comes from: the collector or the loop
        lag = asyncio.create_task(metrics.watch_loop())
        try:
            yield
        finally:
            lag.cancel()
            if feed is not None:
                await feeds_api.stop_feed(svc, feed)
            if natsfeed is not None:
                await publish.stop_publisher(svc, natsfeed, tsvc)
            await tsvc.stop()
            await svc.stop()
            state.heavy.close()

    app = FastAPI(
        title="chukker live",
        summary="Live timekeeping and scoreboard for USPA arena polo",
        description="Events use the vocabulary of the match record (chukker-match/1). "
        "The server stamps each event's time; a command_id is idempotent for the whole match.",
        version="1",
        lifespan=lifespan,
        docs_url=None, redoc_url=None,  # served from the package by shared/apidocs.py (no CDN)
        **NO_TELEMETRY,
    )
    s = settings or Settings()
    lim = s.limits
    # the app's state, typed and made whole at once (web/state.py)
    state = AppState(
        Fixed(settings=s, configured=conf, service=svc, tournaments=tsvc, worker=worker,
              plane=plane, organiser=Organiser(organiser, open_mode, RateLimit(*open_rate)),
              # per-address caps before any routing on the officials' port (web/gate.py)
              address_gate=(AddressGate.from_settings(lim) if plane == Plane.OFFICIALS
                            else None),
              trusted_proxies=TrustedProxies(tuple(s.trusted_proxies), s.proxy_header),
              ticket_rate=RateLimit(burst=30, rate=1.0),  # per (address, match)
              addresses=addresses or Addresses(),
              # heavy work's own bounded pools (web/heavy.py)
              heavy=Pools() if heavy is None else heavy,
              # (not ``throttle or``: a Throttle has a length, 0 when new)
              throttle=Throttle(lim.bad_tokens_free, lim.bad_tokens_block,
                                lim.bad_tokens_window_s) if throttle is None else throttle,
              streams=_stream_caps(settings) if streams is None else streams,
              stream_tickets=StreamTickets() if stream_tickets is None else stream_tickets,
              feed=feed, nats=natsfeed, edge=edge))
    if state.address_gate is not None:
        metrics.watch_door(state.address_gate.counts)  # /metrics reads the door's counts
    app.state = state

    @app.exception_handler(ServiceError)
    async def service_error(request: Request, exc: ServiceError) -> Response:
        return api.error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        problems = []
        for e in exc.errors():
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            msg = str(e.get("msg", "invalid")).encode("utf-8", "replace").decode()[:200]
            problems.append(f"{where[:100] or 'body'}: {msg}")
        text = "; ".join(problems[:10])
        return JSONResponse(api_errors.body("bad_request", {"problems": text},
                                            problems=problems[:10]), status_code=422)

    @app.exception_handler(Busy)
    @app.exception_handler(OverLimit)
    async def heavy_refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Busy | OverLimit)
        door = request.scope.get("chukker.door")
        as_json = (isinstance(door, Door) and door.json) or request.url.path.startswith("/api/")
        return pool_refusal(exc, lang_of(request), lambda status, words: (
            JSONResponse(api_errors.body(exc.code, exc.params), status_code=status)
            if as_json else error_page(request, status, words)))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        door = request.scope.get("chukker.door")
        if ((isinstance(door, Door) and door.json) or request.url.path.startswith("/api/")
                or request.url.path.startswith("/static/")):
            code = {413: "too_large", 404: "not_found", 400: "bad_body",
                    405: "method_not_allowed"}.get(exc.status_code, "http_error")
            params: dict[str, Any] = (
                {"limit": lim.max_body_bytes} if exc.status_code == 413
                else {"status": exc.status_code} if code == "http_error" else {})
            return JSONResponse(api_errors.body(code, params, str(exc.detail)),
                                status_code=exc.status_code, headers=exc.headers)
        return error_page(request, exc.status_code, str(exc.detail))

    @app.exception_handler(Exception)
    async def server_error(request: Request, exc: Exception) -> Response:
        # the last resort: never a plain-text 500, never the client's fault, and nothing
        # was committed; the incident id ties the answer to its logged traceback
        incident = secrets.token_hex(6)
        log.exception("incident %s: unexpected error on %s", incident, request.url.path)
        return JSONResponse(api_errors.body("server_error", {"incident": incident},
                                            incident=incident), status_code=500)

    # every part, unconditionally on its plane(s) (planes.PARTS): a broken module fails
    # here and in the tests; on the other plane its pages answer 307 (the guard)
    def on(part: str) -> bool:
        return bool(PARTS[part] & plane)

    if on("api"):
        app.include_router(api.router)
    if on("feeds"):
        app.include_router(feeds_api.router)
    if on("pages"):  # the match pages: the officials' (console, new match), the public's
        for part in (console, new_match, matches, apidocs):
            app.include_router(part.router)
    app.openapi = functools.partial(_openapi, app, app.openapi)  # type: ignore[method-assign]
    if on("static"):
        app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    if on("rules"):  # the rulebook's database: the setting's, else $CHUKKER_RULES_DB
        app.mount("/rules", rules.router if conf.rules_db is None
                  else rules.make_router(conf.rules_db))
    if on("plays"):
        app.include_router(plays.router, prefix=PLAYS_PREFIX)
    if on("tournaments"):
        # the officials' doors first: /api (POST) before the public's /{tid}
        for part in (arena, tournament_view, tournaments):
            app.include_router(part.router, prefix="/tournaments")
    if on("learn"):
        app.include_router(learn.router, prefix="/learn")
    if on("help"):
        app.include_router(help_pages.router)
    # three layers (issue 45: a key press passes at most 4): the guard keeps every door's
    # declaration (its plane, the stream gate, the security headers, its bounds and
    # callers); the access log and metrics; outermost, the page cache, which looks the
    # request's door up once (a repeated page costs that lookup; the guard's headers kept)
    app.add_middleware(Guard, api_limit=lim.max_body_bytes, plane=plane,
                       addresses=state.addresses,
                       fallback=(settings or Settings()).server.host)
    observe.install(app)  # the "ops" part: /healthz, /readyz, /metrics
    app.add_middleware(PageCache, rate=(lim.visitor_rate * 10, lim.visitor_rate))
    return app


def app_from_env() -> Any:
    """For ``uvicorn --factory chukker.web.app:app_from_env``: the settings
    (``$CHUKKER_CONFIG`` and the environment) and their database."""
    from chukker.config import load
    from chukker.store import open_store

    s = load()
    return create_app(open_store(s.database_target(), pg_schema=s.database_schema),
                      organiser=s.organiser_token, open_mode=s.open, settings=s,
                      configured=Configured.of(s))
