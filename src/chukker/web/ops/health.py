"""``/healthz`` (the process answers) and ``/readyz`` (it can serve a match).

Ready means: the database answers a query within :data:`DB_TIMEOUT_S`, the
live service has started (its horn scheduler is on the event loop), no horn
is overdue by more than :data:`OVERDUE_S` (a stuck scheduler), and on
PostgreSQL (or with ``serve --workers``) the listener for the other servers'
(workers') appends is running. A load balancer sends traffic only to ready
servers; a supervisor restarts one whose ``/healthz`` stops answering. With
``--workers`` each answer is the worker's that the connection reached, and
``/readyz`` says which (``worker``).
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from chukker.live.service import LiveService

router = APIRouter(tags=["operations"])

DB_TIMEOUT_S = 2.0
#: a horn timer this far past its time means the scheduler is stuck
OVERDUE_S = 5.0


@router.get("/healthz", summary="Alive: the process answers")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


def _ping(store: Any) -> None:
    ping = getattr(store, "ping", None)
    if callable(ping):
        ping()
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
    elif getattr(svc.store, "listening", True) is False:
        problems.append("not subscribed to other servers' events (reconnecting)")
    now = loop.time()
    for lm in svc.loaded_matches():
        timer = getattr(lm, "timer", None)
        if timer is not None and not timer.cancelled() and now - timer.when() > OVERDUE_S:
            problems.append(f"match {lm.id}: a horn is {now - timer.when():.1f} s overdue")
            break
    return problems


async def _storage(store: Any) -> str:
    """``ok``, or why writes cannot be stored now (a full disk: the store's own check)."""
    problem = getattr(store, "storage_problem", None)
    if not callable(problem):
        return "ok"
    try:
        async with asyncio.timeout(DB_TIMEOUT_S):
            why = await asyncio.to_thread(problem)
    except TimeoutError:
        return f"no answer within {DB_TIMEOUT_S} s"
    except Exception as e:
        return f"cannot tell: {type(e).__name__}"
    return "ok" if why is None else f"full: {why}"


@router.get("/readyz", summary="Ready: database reachable, horn scheduler running")
async def readyz(request: Request) -> JSONResponse:
    svc = request.app.state.service
    checks: dict[str, str] = {}
    t0 = time.perf_counter()
    try:
        async with asyncio.timeout(DB_TIMEOUT_S):
            await asyncio.to_thread(_ping, svc.store)
        checks["database"] = f"ok ({(time.perf_counter() - t0) * 1000:.1f} ms)"
    except TimeoutError:
        checks["database"] = f"no answer within {DB_TIMEOUT_S} s"
    except Exception as e:
        checks["database"] = f"unreachable: {type(e).__name__}"
    checks["storage"] = await _storage(svc.store)
    problems = scheduler_problems(svc)
    checks["horn_scheduler"] = "; ".join(problems) if problems else "ok"
    ready = all(v.startswith("ok") for v in checks.values())
    body: dict[str, Any] = {"status": "ok" if ready else "unavailable", "checks": checks}
    if not ready:
        body["reason"] = "; ".join(f"{k}: {v}" for k, v in checks.items() if not v.startswith("ok"))
    nats = getattr(request.app.state, "nats", None)
    if nats is not None:  # the officials' publisher (issue 35): reported, never failing
        body["nats"] = nats.status()
    edge = getattr(request.app.state, "edge", None)
    if edge is not None:  # an edge (``chukker edge``): "behind" while it is catching up
        body["edge"] = edge.status()
        if ready and body["edge"]["behind"]:
            body["status"] = "behind"
    worker = getattr(request.app.state, "worker", None)
    if worker is not None:  # one of several processes on this port: which one answered
        body["worker"] = {"index": worker.index, "workers": worker.workers,
                          "horn_keeper": worker.keeps_horns, "pid": os.getpid()}
    feed = getattr(request.app.state, "feed", None)
    if feed is not None:  # reported, never failing the server: the screens work without it
        body["feeds"] = {"mqtt": feed.status()}
    return JSONResponse(body,
                        status_code=200 if ready else 503,
                        headers=None if ready else {"retry-after": "5"})
