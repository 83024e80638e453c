"""``chukker edge --port P``: the public plane on any machine, fed by NATS JetStream alone.

An edge keeps a replica of the matches in a SQLite file of its own
(:class:`chukker.edge.Replica`, fed by the stream the officials' process publishes,
:mod:`chukker.feeds.nats`) and serves it with the same app as a public worker: the
pages, the streams, the feeds and the API's reads (``GET /api/matches/{id}`` with its
``seq``), its live service fed by the replica's appends (the store's notifications).

It never accepts a write: :class:`ReadOnly` answers every request that is not a read
(any method but GET, HEAD and OPTIONS), and every door that asks for an official's or
the organiser's secret, with 403 ``edge_read_only`` naming the officials' server
(``nats.officials_url``), before a byte of its body is read. The officials' forms
(:data:`FORMS`: ``/new`` and the "match created" page) are not served as forms an edge
cannot take: a ``GET`` of one answers ``307`` to the same page on the officials' server,
or, with no ``nats.officials_url``, a page saying where matches are created (403).
Every answer carries
``X-Chukker-Edge: current`` or ``behind`` (NATS away, or messages not yet applied),
every open stream is sent an ``event: edge`` message (``{"behind": true}``, then
``false``) when that changes, and ``/readyz`` says the same in its ``status``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import secrets
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, NoReturn
from urllib.parse import quote

import typer
from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from chukker.config import Settings
from chukker.edge import LoopNotifier, Replica
from chukker.i18n import pick_language
from chukker.live.fanout import sse
from chukker.store.sqlite import SQLiteStore
from chukker.web import errors as api_errors
from chukker.web.guard import Role, door_for
from chukker.web.planes import Plane, redirect
from chukker.web.refusals import refusal_message
from chukker.web.state import state_of

DEFAULT_REPLICA = "chukker-edge.sqlite3"
READS = frozenset({"GET", "HEAD", "OPTIONS"})
#: doors an edge refuses even as reads: they prove an official's or the organiser's secret
OFFICIAL_ROLES = frozenset({Role.TIMEKEEPER, Role.COMMITTEE, Role.ORGANISER})
#: the officials' forms, which an edge never serves (issue 41): the new match's form and
#: the page of its tokens
FORMS = re.compile(r"^/(?:new|m/[^/]+/created)/?$")


class ReadOnly:
    """Refuse every write (and every official's door) with the officials' address."""

    def __init__(self, app: ASGIApp, officials: str | None, replica: Replica) -> None:
        self.app = app
        self.url = (officials or "").rstrip("/")
        self.officials = officials or "(nats.officials_url is not set on this edge)"
        self.replica = replica

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        flag = b"behind" if self.replica.behind else b"current"
        method, path = scope["method"], scope["path"]
        if method not in READS or door_for(method, path).role in OFFICIAL_ROLES:
            await self._refuse(scope, send, flag)
            return
        if FORMS.match(path):
            await self._form_elsewhere(scope, send, flag)
            return

        async def flagged(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-chukker-edge", flag)]
            await send(message)

        await self.app(scope, receive, flagged)

    async def _refuse(self, scope: Scope, send: Send, flag: bytes) -> None:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        query = dict(p.partition("=")[::2] for p in scope.get("query_string", b"")
                     .decode("latin-1").split("&") if p)
        lang = pick_language(query.get("lang"), None, headers.get("accept-language"))
        params = {"officials": self.officials}
        data = api_errors.body("edge_read_only", params,
                               text=refusal_message("edge_read_only", params, lang))
        payload = json.dumps(data, ensure_ascii=False).encode()
        await send({"type": "http.response.start", "status": 403, "headers": [
            (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
            (b"x-chukker-edge", flag), (b"content-language", lang.encode()),
            (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": payload})


    async def _form_elsewhere(self, scope: Scope, send: Send, flag: bytes) -> None:
        """An officials' form asked of an edge: ``307`` to it on the officials' server,
        else the site's page saying where it is (403), in the visitor's language."""
        if self.url:
            query = scope.get("query_string", b"").decode("latin-1")[:4096]
            status, headers, data = redirect(
                self.url + quote(str(scope["path"]), safe="/:@-._~")
                + (f"?{query}" if query else ""), Plane.OFFICIALS)
        else:
            from starlette.requests import Request

            from chukker.web.shared.render import error_page, lang_of

            request = Request(scope)
            page = error_page(request, 403, refusal_message(
                "edge_read_only", {"officials": self.officials}, lang_of(request)))
            status, data = 403, bytes(page.body)
            headers = [(k, v) for k, v in page.raw_headers if k != b"content-length"]
            headers += [(b"content-length", str(len(data)).encode()),
                        (b"cache-control", b"no-store")]
        await send({"type": "http.response.start", "status": status,
                    "headers": [*headers, (b"x-chukker-edge", flag)]})
        await send({"type": "http.response.body",
                    "body": b"" if scope["method"] == "HEAD" else data})


def create_edge_app(settings: Settings, path: str | Path) -> FastAPI:
    """The edge's app on its replica file ``path`` (made if missing), following
    ``settings.nats``; the replica starts and stops with the app."""
    from chukker.web.app import create_app

    # no sync per commit: a replica lost to a power cut is filled again from the stream
    store = SQLiteStore(path, synchronous="NORMAL")
    store.attach(LoopNotifier())
    replica = Replica(settings.nats, store)
    # a public worker's live service: sounds the horns to its own viewers, keeps no
    # audit, runs no arena feed and publishes nothing; nobody can create a match here
    from chukker.web.ops.observe import process_settings

    app = create_app(store, organiser=secrets.token_urlsafe(32), settings=settings,
                     configured=process_settings(settings), edge=replica)
    app_state = state_of(app)
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        async with inner(a) as state:
            # every open stream is told when the edge falls behind and when it has caught
            # up (a stream that opens meanwhile has the X-Chukker-Edge header)
            svc = app_state.service
            replica.on_behind = lambda behind: svc.announce(edge_message(behind))
            await replica.start()
            try:
                yield state
            finally:
                replica.on_behind = None
                await replica.stop()

    app.router.lifespan_context = lifespan
    app.add_middleware(ReadOnly, officials=settings.nats.officials_url, replica=replica)
    return app


def edge_message(behind: bool) -> bytes:
    """The streams' ``edge`` message (no ``id``: it is not an event of the match).

    >>> edge_message(True)
    b'event: edge\\ndata: {"behind":true}\\n\\n'
    """
    return sse("edge", {"behind": behind}, None).encode()  # the streams' one encoder


def _fail(msg: str) -> NoReturn:
    typer.echo(f"chukker: {msg}", err=True)
    raise typer.Exit(2)


def _bind(host: str, port: int) -> socket.socket:
    """Bound and listening at once, without ``SO_REUSEPORT`` (issue 40: one server per port)."""
    from chukker.web.holders import listen, who_holds_port

    try:
        return listen(host, port)
    except (OSError, OverflowError, UnicodeError) as e:
        if isinstance(e, OSError) and e.errno == errno.EADDRINUSE:
            why = f"the port is in use by {who_holds_port(host, port)}"
        else:
            why = (e.strerror if isinstance(e, OSError) else None) or str(e)
        _fail(f"cannot listen on {host}:{port}: {why}")


def _lock(path: str) -> None:
    """One edge per replica file."""
    import fcntl

    f = open(path + ".lock", "a+")  # noqa: SIM115 - held until the process ends
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        _fail(f"{os.path.abspath(path)} is already served by another `chukker edge`")
    _LOCKS.append(f)


_LOCKS: list[Any] = []


def edge(
    port: Annotated[int | None, typer.Option(
        help="Port to listen on (setting server.port; default 8000).", show_default=False)]
    = None,
    host: Annotated[str | None, typer.Option(
        help="Address to listen on (setting server.host; default 127.0.0.1).",
        show_default=False)] = None,
    replica: Annotated[str | None, typer.Option(
        "--replica", help=f"The edge's own SQLite file (default <data_dir>/{DEFAULT_REPLICA}); "
        "made and filled from the stream if missing.", show_default=False)] = None,
    config: Annotated[Path | None, typer.Option(
        "--config", help="Settings file (TOML); default $CHUKKER_CONFIG.",
        show_default=False)] = None,
) -> None:
    """Serve the public pages, streams and API reads of every match, fed by NATS JetStream.

    Needs the setting nats.url (the same NATS as the officials' server); nats.officials_url
    is named in the answer to any write, which an edge never takes (docs/scale.md).
    """
    from chukker.ops.logging import configure
    from chukker.ops_cli import settings_or_exit
    from chukker.web.workers import stopping_server, uvicorn_config

    s = settings_or_exit(config, **{"server.host": host, "server.port": port})
    if not s.nats.url:
        _fail("chukker edge follows NATS JetStream: set nats.url (CHUKKER_NATS_URL)")
    if not s.nats.signing_key:
        _fail("chukker edge stores only what the officials signed: set nats.signing_key "
              "(CHUKKER_NATS_SIGNING_KEY), the same as on the officials' server")
    sock = _bind(s.server.host, s.server.port)
    path = replica or os.path.join(s.data_dir, DEFAULT_REPLICA)
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        _lock(path)
        app = create_edge_app(s, path)
    except OSError as e:
        sock.close()
        _fail(f"cannot open the edge's replica {path}: {e.strerror or e}")
    bound = sock.getsockname()[1]
    following = state_of(app).edge
    assert following is not None  # create_edge_app's
    typer.echo(f"chukker: edge replica {os.path.abspath(path)}, following "
               f"{following.status()['nats']} stream {s.nats.stream}")
    typer.echo(f"chukker: edge serving on http://{s.server.host}:{bound}/ (read only; writes "
               f"go to {s.nats.officials_url or 'the officials server'})")
    configure(s.log.format, s.log.level)
    try:
        stopping_server(uvicorn_config(app, s.server.host, bound),
                        state_of(app).service).run(sockets=[sock])
    finally:
        sock.close()


def register(app: typer.Typer) -> None:
    """Add ``edge`` (issue 35: the public plane on NATS) to the ``chukker`` command."""
    app.command("edge")(edge)
