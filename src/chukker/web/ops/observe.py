"""Operations wiring of the app: health, metrics, access log, trusted proxies.

``install(app)`` (called once by ``create_app``) adds ``/healthz``,
``/readyz``, ``/metrics`` and one ASGI middleware that, per request,

* works out the client's address behind the trusted proxies
  (``scope["chukker_client"]``, read by ``client_address``),
* times ``POST /api/matches/{id}/events`` and counts refusals by their code,
* counts connected live streams by kind,
* writes one access line (JSON) with match id, command id and role, never a token.

It also times the store's appends; the live service reports horn lateness and fan-out
time itself (:mod:`chukker.ops.metrics`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import time
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chukker.config import Settings
from chukker.ops import metrics
from chukker.ops.logging import log_fields
from chukker.ops.proxy import TrustedProxies, client_of_app_scope, client_of_scope
from chukker.store import EventStore, StoredEvent
from chukker.web.ops import health
from chukker.web.proxied import proxies_of
from chukker.web.state import Configured, state_of

access_log = logging.getLogger("chukker.access")

_MATCH = re.compile(r"^/(?:api/matches|m)/([A-Za-z0-9_-]{1,64})(?:/|$)")
_EVENTS = re.compile(r"^/api/matches/[^/]+/events$")
_STREAM = re.compile(r"^/(?:api/matches|tournaments)/[^/]+/stream$")
_CODE_BODY_MAX = 16 * 1024


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", []):
        if k == name:
            return str(v.decode("latin-1"))
    return None


class ObserveMiddleware:
    """Client address, metrics and the access log of every HTTP request."""

    def __init__(self, app: ASGIApp, proxies: TrustedProxies | None = None,
                 access: bool = True) -> None:
        self.app = app
        self.proxies = proxies or TrustedProxies()
        self.access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        client = client_of_scope(scope, self.proxies)
        scope["chukker_client"] = client
        path: str = scope.get("path", "")
        method: str = scope.get("method", "GET")
        is_post_event = method == "POST" and _EVENTS.match(path) is not None
        stream_kind: str | None = None
        status = 500
        body: list[bytes] = []
        capture = False

        async def watched(msg: Message) -> None:
            nonlocal status, stream_kind, capture
            if msg["type"] == "http.response.start":
                status = int(msg["status"])
                if is_post_event and status == 201:
                    metrics.event_accepted()
                ctype = dict(msg.get("headers", [])).get(b"content-type", b"")
                capture = status >= 400 and ctype.startswith(b"application/json")
                if status == 200 and _STREAM.match(path) and method == "GET":
                    q = dict(_qs(scope)).get("kind")
                    ref = _header(scope, b"referer")
                    stream_kind = ("tournament" if path.startswith("/tournaments/")
                                   else metrics.stream_kind(q or _path_of(ref)))
                    metrics.stream_opened(stream_kind)
            elif (msg["type"] == "http.response.body" and capture
                  and sum(map(len, body)) < _CODE_BODY_MAX):
                body.append(msg.get("body", b""))
            await send(msg)

        try:
            await self.app(scope, receive, watched)
        finally:
            if stream_kind is not None:
                metrics.stream_closed(stream_kind)
            elapsed = time.perf_counter() - t0
            if is_post_event:
                metrics.event_posted(elapsed, status)
            code = None
            if status >= 400:
                code = _code_of(b"".join(body), status)
                metrics.refused(code)
            if self.access:
                self._log(scope, client, method, path, status, elapsed, code, stream_kind)

    def _log(self, scope: Scope, client: str, method: str, path: str, status: int,
             elapsed: float, code: str | None, kind: str | None) -> None:
        if path in ("/healthz", "/readyz", "/metrics") and status < 400:
            return
        if not access_log.isEnabledFor(logging.INFO):
            return
        extra: dict[str, Any] = {"client": client, "method": method, "path": path,
                                 "status": status, "ms": round(elapsed * 1000, 2)}
        m = _MATCH.match(path)
        if m:
            extra["match_id"] = m.group(1)
        if code:
            extra["code"] = code
        if kind:
            extra["kind"] = kind
        extra.update(log_fields(scope))
        access_log.info("%s %s %s", method, path, status, extra=extra)


def _qs(scope: Scope) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    raw = scope.get("query_string", b"")
    return parse_qsl(raw.decode("latin-1")) if raw else []


def _path_of(url: str | None) -> str | None:
    if not url:
        return None
    from urllib.parse import urlsplit

    return urlsplit(url).path


def _code_of(body: bytes, status: int) -> str:
    """The refusal's code from a JSON error body; ``http_<status>`` otherwise.

    >>> _code_of(b'{"error": "bad_token", "code": "bad_token"}', 403)
    'bad_token'
    >>> _code_of(b'<html>', 404)
    'http_404'
    """
    try:
        doc = json.loads(body)
    except ValueError:
        return f"http_{status}"
    if isinstance(doc, dict):
        for k in ("code", "error"):
            v = doc.get(k)
            if isinstance(v, str) and v:
                return v
    return f"http_{status}"


class TimedAppend:
    """A store's ``append``, timed (``metrics.timed_append``) under its backend's name."""

    def __init__(self, inner: Callable[[str, StoredEvent, int], None], backend: str) -> None:
        self.inner, self.backend = inner, backend

    def __call__(self, match_id: str, event: StoredEvent, start_ms: int) -> None:
        with metrics.timed_append(self.backend):
            self.inner(match_id, event, start_ms)


def _instrument_store(store: EventStore) -> None:
    """Time every append of ``store`` (wraps the instance's method once)."""
    if isinstance(store.append, TimedAppend):
        return
    # the instance's method replaced by its timed self; a store with slots is not timed
    with contextlib.suppress(AttributeError):
        store.append = TimedAppend(store.append, store.backend.value)  # type: ignore[method-assign]


def install(app: FastAPI) -> None:
    """Add health, metrics, trusted proxies and the access log to ``app`` (an app of
    ``create_app``: its settings and trusted proxies are in its state)."""
    state = state_of(app)
    if state.start_up.observed:
        return
    state.start_up.observed = True
    s, proxies = state.settings, state.trusted_proxies
    app.include_router(health.router)
    if s.metrics.enabled:
        @app.get("/metrics", include_in_schema=False)
        async def metrics_endpoint(request: Request) -> Response:
            refused = health.scraper_refusal(request)
            if refused is not None:
                return refused
            return Response(metrics.scrape(), media_type=metrics.CONTENT_TYPE)
    _instrument_store(state.service.store)
    app.add_middleware(ObserveMiddleware, proxies=proxies, access=s.log.access)


def process_settings(s: Settings) -> Configured:
    """Settings that are the process's, not one app's (``chukker serve`` asks once and
    hands them to ``create_app(configured=...)``): stream keep-alive and queue, header
    and body timeouts, the pages' languages, the rulebook's database and the
    tournaments' folder. Nothing is written: no module global, no ``os.environ``.

    >>> process_settings(Settings(languages=("en", "it"))).languages
    ('en', 'it')
    """
    return Configured.of(s)


def client_address(request: Request) -> str:
    """The client's address of ``request`` as the middleware worked it out (trusted proxies).

    Falls back to the connection's peer when the middleware is not installed.
    """
    return client_of_app_scope(request.scope, proxies_of(request.app))
