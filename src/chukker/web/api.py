"""The HTTP API: matches, events, reports, records and the live stream.

Every refusal is JSON ``{"error": <code>, "message": <text>, ...}``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Header, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from pydantic import BaseModel, Field

from chukker.store import UnknownMatch
from chukker.store._engine import EventType, SetupError, dumps
from chukker.web.live import LiveMatch, LiveService, Role, ServiceError

router = APIRouter(prefix="/api", tags=["live"])

KEEPALIVE_S = 15.0
EVENT_TYPES = frozenset(t.value for t in EventType)


class EventCommand(BaseModel):
    """One operator event, without ``at`` (the server stamps it), and its idempotency key."""

    command_id: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9._:-]+$")
    event: dict[str, Any] = Field(
        description="An event of the match record's vocabulary, e.g. "
        '{"type": "goal", "team": "A", "player": 2}'
    )


class CreatedOut(BaseModel):
    match_id: str
    timekeeper_token: str
    committee_token: str
    urls: dict[str, str]


class AcceptedOut(BaseModel):
    seq: int
    at: float
    recorded_ms: int
    event: dict[str, Any]
    duplicate: bool


def service(request: Request) -> LiveService:
    svc: LiveService = request.app.state.service
    return svc


async def load(request: Request, match_id: str) -> LiveMatch:
    try:
        return await service(request).load(match_id)
    except UnknownMatch as e:
        raise ServiceError(404, "unknown_match", str(e)) from e


def client_key(request: Request) -> str:
    return request.client.host if request.client else "?"


async def authorise(request: Request, lm: LiveMatch, authorization: str | None) -> Role:
    throttle = request.app.state.throttle
    key = client_key(request)
    if throttle.blocked(key):
        raise ServiceError(429, "too_many_bad_tokens",
                           "too many bad tokens from this address; wait and try again")
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ServiceError(401, "no_token",
                           "send the timekeeper's or the committee's token as "
                           "'Authorization: Bearer <token>'")
    role = service(request).role_of(lm, token.strip())
    if role is None:
        await asyncio.sleep(throttle.fail(key))
        raise ServiceError(403, "bad_token", "that token does not belong to this match")
    return role


def match_urls(request: Request, created_id: str, tk: str | None = None) -> dict[str, str]:
    base = str(request.base_url).rstrip("/")
    urls = {
        "spectator": f"{base}/m/{created_id}",
        "display": f"{base}/m/{created_id}/display",
        "overlay": f"{base}/m/{created_id}/overlay",
        "sheet": f"{base}/m/{created_id}/sheet",
        "console": f"{base}/m/{created_id}/console",
        "api": f"{base}/api/matches/{created_id}",
    }
    if tk is not None:
        urls["console"] += f"#token={tk}"
    return urls


@router.get("/time", summary="The server's clock (epoch ms), for clients measuring their offset")
async def server_time(request: Request) -> dict[str, int]:
    return {"server_time": service(request).clock.now_ms()}


@router.get("/matches", summary="Recent matches (public data only)")
async def list_matches(request: Request) -> list[dict[str, Any]]:
    rows = await asyncio.to_thread(service(request).store.list_matches, 100)
    return [
        {"match_id": r.id, "created_ms": r.created_ms, "started": r.start_ms is not None,
         "teams": {k: t.get("name", k) for k, t in r.header.get("teams", {}).items()}}
        for r in rows
    ]


@router.post("/matches", status_code=201, response_model=CreatedOut,
             summary="Create a match from a record without events; returns its two secrets")
async def create_match(
    request: Request,
    header: Annotated[dict[str, Any], Body(
        description='{"format", "rules", "options", "teams"} as in the match record')],
) -> dict[str, Any]:
    if header.get("events"):
        raise ServiceError(422, "has_events",
                           "create the match without events, then post them one by one")
    try:
        c = await service(request).create_match(header)
    except SetupError as e:
        raise ServiceError(422, "bad_setup", str(e), path=e.path, reason=e.reason) from e
    return {"match_id": c.match_id, "timekeeper_token": c.timekeeper_token,
            "committee_token": c.committee_token,
            "urls": match_urls(request, c.match_id, c.timekeeper_token)}


@router.post("/matches/{match_id}/events", status_code=201, response_model=AcceptedOut,
             responses={200: {"description": "that command_id was already accepted"},
                        401: {}, 403: {}, 409: {}, 422: {}, 429: {}},
             summary="Send one operator event (the server stamps its time)")
async def post_event(
    request: Request, match_id: str, cmd: EventCommand,
    authorization: Annotated[str | None, Header()] = None,
) -> Any:
    lm = await load(request, match_id)
    role = await authorise(request, lm, authorization)
    if "at" in cmd.event:
        raise ServiceError(422, "at_not_allowed",
                           "leave out 'at': the server stamps each event's time")
    kind = cmd.event.get("type")
    if kind not in EVENT_TYPES:
        raise ServiceError(422, "bad_event", f"unknown event type {kind!r}; one of "
                           + ", ".join(sorted(EVENT_TYPES)))
    acc = await service(request).submit(lm, role, cmd.command_id, cmd.event)
    body = {"seq": acc.seq, "at": acc.event["at"], "recorded_ms": acc.recorded_ms,
            "event": acc.event, "duplicate": acc.duplicate}
    return JSONResponse(body, status_code=200 if acc.duplicate else 201)


@router.get("/matches/{match_id}", summary="The replay report as of now (or ?at=seconds), with seq")
async def get_report(
    request: Request, match_id: str,
    at: Annotated[float | None, Query(ge=0, description="seconds since the record started")]
    = None,
) -> dict[str, Any]:
    lm = await load(request, match_id)
    return service(request).report(lm, None if at is None else round(at * 1000))


@router.get("/matches/{match_id}/record", summary="The whole record (replayable)")
async def get_record(
    request: Request, match_id: str,
    format: Annotated[Literal["json", "toml"], Query()] = "json",
) -> Response:
    lm = await load(request, match_id)
    rec = service(request).record(lm)
    media = "application/json" if format == "json" else "application/toml"
    return PlainTextResponse(dumps(rec, format), media_type=media, headers={
        "content-disposition": f'inline; filename="match-{match_id}.{format}"'})


@router.get("/matches/{match_id}/horns", summary="The horns this service sounded (audit)")
async def get_horns(request: Request, match_id: str) -> list[dict[str, Any]]:
    lm = await load(request, match_id)
    rows = await asyncio.to_thread(service(request).store.horns, lm.id)
    start = lm.start_ms or 0
    return [{"at": h.at_ms / 1000, "period": h.period, "kind": h.kind,
             "deadline": start + h.at_ms, "sounded": h.sounded_ms,
             "late_ms": h.sounded_ms - start - h.at_ms} for h in rows]


@router.get("/matches/{match_id}/stream", response_class=StreamingResponse,
            summary="Server-Sent Events: state, event and horn messages; id = seq")
async def stream(
    request: Request, match_id: str,
    last_event_id: Annotated[str | None, Header()] = None,
    last: Annotated[int | None, Query(ge=0, description="as Last-Event-ID")] = None,
) -> StreamingResponse:
    lm = await load(request, match_id)
    svc = service(request)
    since = last
    if last_event_id is not None and last_event_id.strip().isdigit():
        since = int(last_event_id.strip())
    sub, backlog = svc.subscribe(lm, since)

    async def messages() -> AsyncIterator[bytes]:
        try:
            yield ("retry: 1000\n\n" + "".join(backlog)).encode()
            queue = sub.queue
            while True:
                if queue.empty():
                    if sub.dropped:
                        return
                    try:
                        async with asyncio.timeout(KEEPALIVE_S):
                            first = await queue.get()
                    except TimeoutError:
                        yield b": keepalive\n\n"
                        continue
                else:
                    first = queue.get_nowait()
                # whatever else is queued goes out in the same write
                chunk = [first]
                while not queue.empty():
                    chunk.append(queue.get_nowait())
                text = b"".join(chunk)
                if text:
                    yield text
        finally:
            svc.unsubscribe(lm, sub)

    return StreamingResponse(messages(), media_type="text/event-stream", headers={
        "cache-control": "no-cache", "x-accel-buffering": "no"})


def error_response(e: ServiceError) -> JSONResponse:
    headers = {"www-authenticate": "Bearer"} if e.status == 401 else None
    return JSONResponse(e.body(), status_code=e.status, headers=headers)

