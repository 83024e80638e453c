"""The ASGI application of ``chukker serve``."""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from chukker.store import EventStore, open_store
from chukker.web import api, pages
from chukker.web.live import LiveService, ServiceError
from chukker.web.security import BodyLimit, Throttle

log = logging.getLogger("chukker.web")
HERE = Path(__file__).parent


#: Page modules of the other concerns (each with a ``router``), mounted when present.
#: One line per concern; add yours here.
OPTIONAL_PAGES: tuple[tuple[str, str], ...] = (
    ("chukker.web.rules_pages", "/rules"),
    ("chukker.web.plays_pages", "/plays"),
    ("chukker.web.tournament_pages", "/tournaments"),
    ("chukker.web.education_pages", "/learn"),
)


def _mount_optional(app: FastAPI) -> None:
    """The rulebook, plays, tournament and education pages; mounted when present."""
    for module, prefix in OPTIONAL_PAGES:
        try:
            router = importlib.import_module(module).router
        except ImportError:
            continue
        except Exception:  # a neighbour's module is broken: serve the rest
            log.exception("cannot mount %s", module)
            continue
        if isinstance(router, APIRouter):
            app.include_router(router, prefix=prefix)
        else:
            app.mount(prefix, router)


def create_app(store: EventStore | str | Path) -> FastAPI:
    """The app on ``store`` (an :class:`EventStore`, a ``postgresql://`` URL or a file path).

    >>> import tempfile, os
    >>> app = create_app(os.path.join(tempfile.mkdtemp(), "t.sqlite3"))
    >>> "/api/matches/{match_id}/events" in app.openapi()["paths"]
    True
    """
    st = open_store(store) if isinstance(store, str | Path) else store
    svc = LiveService(st)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await svc.start()
        try:
            yield
        finally:
            await svc.stop()

    app = FastAPI(
        title="chukker live",
        summary="Live timekeeping and scoreboard for USPA arena polo",
        description="Events use the vocabulary of the match record (chukker-match/1). "
        "The server stamps each event's time; a command_id is idempotent for the whole match.",
        version="1",
        lifespan=lifespan,
        docs_url=None, redoc_url=None,  # served from the package by pages.py (no CDN)
    )
    app.state.service = svc
    app.state.throttle = Throttle()

    @app.exception_handler(ServiceError)
    async def service_error(request: Request, exc: ServiceError) -> Response:
        return api.error_response(exc)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        problems = []
        for e in exc.errors():
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
            problems.append(f"{where or 'body'}: {e.get('msg', 'invalid')}")
        return JSONResponse({"error": "bad_request", "message": "; ".join(problems),
                             "problems": problems}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if request.url.path.startswith("/api/") or request.url.path.startswith("/static/"):
            code = "too_large" if exc.status_code == 413 else f"http_{exc.status_code}"
            return JSONResponse({"error": code, "message": str(exc.detail)},
                                status_code=exc.status_code, headers=exc.headers)
        return pages.error_page(request, exc.status_code, str(exc.detail))

    app.include_router(api.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    _mount_optional(app)
    app.add_middleware(BodyLimit)
    return app


def app_from_env() -> Any:
    """For ``uvicorn --factory chukker.web.app:app_from_env``: the store from the environment."""
    import os

    return create_app(os.environ.get("CHUKKER_DATABASE_URL") or "chukker.sqlite3")
