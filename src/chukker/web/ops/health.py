"""``/healthz`` (the process answers) and ``/readyz`` (it can serve a match).

Ready means: the database answers a query within :data:`DB_TIMEOUT_S`, the
live service has started (its horn scheduler is on the event loop), no horn
is overdue by more than :data:`OVERDUE_S` (a stuck scheduler), and on
PostgreSQL (or with ``serve --workers``) the listener for the other servers'
(workers') appends is running. A load balancer sends traffic only to ready
servers; a supervisor restarts one whose ``/healthz`` stops answering. With
``--workers`` each answer is the worker's that the connection reached, and
``/readyz`` says which (``worker``).

``/readyz`` gives an anonymous caller its status and nothing else (no host, port,
version or check); the operator (the organiser's token or the ``metrics_token`` as a
bearer token) sees every check. ``/metrics`` answers only the ``metrics_token``
(:func:`scraper_refusal`).
"""

from __future__ import annotations

import asyncio
import hmac
import os
import time
from typing import Any, Protocol, runtime_checkable

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from chukker.live.service import LiveService
from chukker.store import EventStore
from chukker.web import errors as api_errors
from chukker.web.state import state_of

router = APIRouter(tags=["operations"])

DB_TIMEOUT_S = 2.0
#: a horn timer this far past its time means the scheduler is stuck
OVERDUE_S = 5.0


@router.get("/healthz", summary="Alive: the process answers")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@runtime_checkable
class Pinged(Protocol):
    """A store with a round trip of its own, cheaper than a query (SQLite's and
    PostgreSQL's both have one; :class:`~chukker.store.EventStore` does not ask it)."""

    def ping(self) -> None: ...


@runtime_checkable
class Subscribed(Protocol):
    """A store that hears other servers' appends and says whether it does now (SQLite's
    and PostgreSQL's both say it; :class:`~chukker.store.EventStore` does not ask it)."""

    @property
    def listening(self) -> bool: ...


def _ping(store: EventStore) -> None:
    if isinstance(store, Pinged):
        store.ping()
    else:
        store.list_matches(1)


def scheduler_problems(svc: LiveService) -> list[str]:
    """What is wrong with the live service's horn scheduler (empty: nothing)."""
    problems: list[str] = []
    loop = svc.loop
    if loop is None:
        return ["the live service has not started"]
    if svc.stopped:
        return ["the live service has stopped"]
    if svc.shares_store() and not svc.listening():
        problems.append("the listener for other servers' events is not running")
    elif isinstance(svc.store, Subscribed) and not svc.store.listening:
        problems.append("not subscribed to other servers' events (reconnecting)")
    now = loop.time()
    for lm in svc.loaded_matches():
        timer = lm.timer
        if timer is not None and not timer.cancelled() and now - timer.when() > OVERDUE_S:
            problems.append(f"match {lm.id}: a horn is {now - timer.when():.1f} s overdue")
            break
    return problems


def _is(presented: str | None, secret: str | None) -> bool:
    return secret is not None and presented is not None and hmac.compare_digest(
        presented.encode(), secret.encode())


def _bearer(request: Request) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def metrics_token(request: Request) -> str | None:
    return state_of(request.app).settings.metrics_token


def scraper_refusal(request: Request) -> JSONResponse | None:
    """Why ``request`` may not read ``/metrics`` (``None``: it may).

    Only a scraper presenting the ``metrics_token`` setting as its bearer token (compared
    in constant time) reads the metrics; while the setting is unset nobody does (404),
    whatever the address: a proxy on the same machine is still a visitor."""
    secret = metrics_token(request)
    presented = _bearer(request)
    if secret is None:
        return JSONResponse(api_errors.body("not_found"), status_code=404)
    if presented is None:
        return JSONResponse(api_errors.body("metrics_token_required"), status_code=401,
                            headers={"www-authenticate": "Bearer"})
    if not _is(presented, secret):
        return JSONResponse(api_errors.body("metrics_token_required"), status_code=403)
    return None


def is_operator(request: Request) -> bool:
    """Whether ``request`` comes from whoever runs the server: it presents the organiser's
    token or the metrics token (open mode makes nobody an operator)."""
    presented = _bearer(request)
    return _is(presented, metrics_token(request)) or _is(
        presented, state_of(request.app).organiser.token)


async def _storage(store: EventStore) -> str:
    """``ok``, or why writes cannot be stored now (a full disk: the store's own check)."""
    try:
        async with asyncio.timeout(DB_TIMEOUT_S):
            why = await asyncio.to_thread(store.storage_problem)
    except TimeoutError:
        return f"no answer within {DB_TIMEOUT_S} s"
    except Exception as e:  # noqa: BLE001 - health says it cannot tell, never fails
        return f"cannot tell: {type(e).__name__}"
    return "ok" if why is None else f"full: {why}"


@router.get("/readyz", summary="Ready: database reachable, horn scheduler running")
async def readyz(request: Request) -> JSONResponse:
    state = state_of(request.app)
    svc = state.service
    checks: dict[str, str] = {}
    t0 = time.perf_counter()
    try:
        async with asyncio.timeout(DB_TIMEOUT_S):
            await asyncio.to_thread(_ping, svc.store)
        checks["database"] = f"ok ({(time.perf_counter() - t0) * 1000:.1f} ms)"
    except TimeoutError:
        checks["database"] = f"no answer within {DB_TIMEOUT_S} s"
    except Exception as e:  # noqa: BLE001 - any driver's error: the database is unreachable
        checks["database"] = f"unreachable: {type(e).__name__}"
    checks["storage"] = await _storage(svc.store)
    problems = scheduler_problems(svc)
    checks["horn_scheduler"] = "; ".join(problems) if problems else "ok"
    ready = all(v.startswith("ok") for v in checks.values())
    body: dict[str, Any] = {"status": "ok" if ready else "unavailable", "checks": checks}
    if not ready:
        body["reason"] = "; ".join(f"{k}: {v}" for k, v in checks.items() if not v.startswith("ok"))
    nats = state.nats
    if nats is not None:  # the officials' publisher (issue 35): reported, never failing
        body["nats"] = nats.status()
    edge = state.edge
    if edge is not None:  # an edge (``chukker edge``): "behind" while it is catching up
        body["edge"] = edge.status()
        if ready and body["edge"]["behind"]:
            body["status"] = "behind"
    worker = state.worker
    if worker is not None:  # one of several processes on this port: which one answered
        body["worker"] = {"index": worker.index, "workers": worker.workers,
                          "horn_keeper": worker.keeps_horns, "pid": os.getpid()}
    feed = state.feed
    if feed is not None:  # reported, never failing the server: the screens work without it
        body["feeds"] = {"mqtt": feed.status()}
    if not is_operator(request):  # an anonymous caller: the status and nothing else
        body = {"status": body["status"]}
    return JSONResponse(body,
                        status_code=200 if ready else 503,
                        headers=None if ready else {"retry-after": "5"})
