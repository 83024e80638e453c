"""The HTTP API: matches, events, reports, records and the live stream.

Every refusal is JSON ``{"error": <code>, "code": <code>, "params": {...},
"message": <English text>, ...}`` (words in ``chukker.errors.words``, statuses in
``chukker.web.errors``). Every request is checked in full before anything is stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import re
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Header, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field
from starlette.types import Receive, Scope, Send

from chukker.i18n import pick_language
from chukker.live import (
    LiveMatch,
    LiveService,
    Quarantined,
    Role,
    ServiceError,
    hash_token,
)
from chukker.live.fanout import Subscriber, Turns, chunk
from chukker.ops.logging import annotate
from chukker.record import RecordError, validate_header
from chukker.record.definitions import validate_event
from chukker.store import UnknownMatch
from chukker.store import base as store_base
from chukker.store.engine import (
    EventType,
    SetupError,
    TypedEvent,
    dumps,
    typed,
    typed_event,
)
from chukker.web import errors
from chukker.web.api.links import (
    match_display_token,
    match_key,
    match_urls,
)
from chukker.web.api.wire import SocketWire, wire_of
from chukker.web.limits import StreamCaps
from chukker.web.planes import crowd_elsewhere, serves_crowd
from chukker.web.refusals import bad_setup_text, said_or
from chukker.web.security import (
    BadInput,
    RateLimit,
    StreamTickets,
    bearer,
    clean,
    client_address,
    require_organiser,
)
from chukker.web.state import state_of

router = APIRouter(prefix="/api", tags=["live"])

EVENT_TYPES = frozenset(t.value for t in EventType)
MATCH_ID = store_base.MATCH_ID  # one definition: `chukker import` checks ids with it too
HEADER_KEYS = frozenset({"format", "rules", "edition", "options", "teams", "events",
                         "match_info"})  # match_info: the score sheet's details (pages)
HANDICAP_RANGE = (-2, 10)
HEADER_DEPTH = 6
#: Last-Event-ID / ?last values beyond this are not sequence numbers
MAX_SEQ = 10**9
#: record seconds accepted in ?at= and a posted at (about 115 days)
MAX_AT_S = 1e7
#: a command's idempotency key: its characters, whole, and its longest length (the model
#: and the key press's lean path read both from here)
COMMAND_ID_CHARS = r"[A-Za-z0-9._:-]+"
COMMAND_ID_MAX = 128


def check_event(event: Any) -> dict[str, Any]:
    """The event, checked once against the record's one definition and normalised, or
    :class:`ServiceError` 422 (:func:`checked_event` without its class)."""
    return checked_event(event)[0]


def checked_event(event: Any) -> tuple[dict[str, Any], TypedEvent]:
    """The event, checked once against the record's one definition and normalised, with
    its class (``at`` 0 until the service stamps it), or :class:`ServiceError` 422.

    In one step where it can (issue 46): msgspec's check of the event's class is the
    quick yes, and gives the typed event the engine folds (:func:`typed_event`); any
    other body goes to the detailed check, which normalises it or words the refusal.

    :func:`chukker.record.definitions.validate_event` is the definition the engine,
    the record, this body, the JSON Schema and the docs share; it refuses unknown
    fields, wrong types and ranges, lone surrogates, over-long strings and nesting
    (every field is a scalar, a spot or a batting order), and gives strings in NFC.
    Before it, the two refusals of the live API itself: an unknown type (with the
    list of types) and an ``at`` (the server stamps it).
    """
    if not isinstance(event, dict):
        raise ServiceError("invalid_event", params={"field": "event",
                                                         "reason": "not an object"})
    kind = event.get("type")
    if not isinstance(kind, str) or kind not in EVENT_TYPES:
        shown = json.dumps(kind)[:40] if not isinstance(kind, str) else repr(kind[:40])
        raise ServiceError("unknown_event_type", params={
            "type": shown, "types": ", ".join(sorted(EVENT_TYPES))})
    if "at" in event:
        raise ServiceError("at_not_allowed")
    quick = typed_event({**event, "at": 0.0})
    if quick is not None:
        return event, quick
    try:
        clean = validate_event(event, "event")
    except RecordError as e:
        where = str(e.params.get("path", "event"))[:100]
        reason = str(e)
        if reason.startswith(where + ": "):
            reason = reason[len(where) + 2:]
        raise ServiceError("invalid_event", f"{where}: {reason[:200]}",
                           params={"field": where, "reason": reason[:200]},
                           detail=e.code) from None
    # checked: msgspec takes it as it is (its strings in NFC, if not plain ASCII)
    return clean, typed({**clean, "at": 0.0})


def check_header(header: Any) -> dict[str, Any]:
    """The match header, checked before the engine sees it and normalised once (strings in
    NFC, an integral ``10.0`` where a whole number is required as ``10``: what is stored),
    or :class:`ServiceError` 422.

    ``match_info`` skips the generic guard (:func:`chukker.web.security.clean`, whose
    default text limit is 64): the definitions check it, with their own limits (the
    event's name has 120 characters)."""
    if not isinstance(header, dict):
        raise ServiceError("invalid_header", params={"field": "body",
                                                          "reason": "not an object"})
    try:
        h = clean({k: v for k, v in header.items() if k != "match_info"},
                  max_depth=HEADER_DEPTH)
    except BadInput as e:
        raise ServiceError("invalid_header", str(e),
                           params={"field": e.field, "reason": e.reason}) from None
    if "match_info" in header:
        h["match_info"] = header["match_info"]
    extra = sorted(set(h) - HEADER_KEYS)
    if extra:
        raise ServiceError("invalid_header", params={"field": extra[0],
                                                          "reason": "unknown field"})
    teams = h.get("teams")
    if isinstance(teams, dict):
        for key, team in teams.items():
            if not isinstance(team, dict):
                continue
            for group in ("players", "alternates"):
                for i, p in enumerate(team.get(group) or []):
                    hcp = p.get("handicap", 0) if isinstance(p, dict) else 0
                    if isinstance(hcp, float) and hcp.is_integer():
                        hcp = int(hcp)  # JSON's 10.0 is 10 (the definitions normalise it)
                    lo, hi = HANDICAP_RANGE
                    if isinstance(hcp, bool) or not isinstance(hcp, int) or not lo <= hcp <= hi:
                        raise ServiceError("invalid_header", params={
                            "field": f"teams.{key}.{group}[{i}].handicap",
                            "reason": f"a whole number from {lo} to {hi}"})
    try:
        # the record's definitions and the rules (one definition), normalised
        out = validate_header(h)
    except RecordError as e:
        raise ServiceError(e.code, str(e)[:300], params=e.params) from None
    if "events" in h:
        out = {k: h["events"] if k == "events" else out[k] for k in h}
    return out


class EventCommand(BaseModel):
    """One operator event, without ``at`` (the server stamps it), and its idempotency key."""

    model_config = {"extra": "forbid"}

    command_id: str = Field(min_length=1, max_length=COMMAND_ID_MAX,
                            pattern=f"^{COMMAND_ID_CHARS}$")
    event: dict[str, Any] = Field(
        description="An event of the match record's vocabulary, e.g. "
        '{"type": "goal", "team": "A", "player": 2}'
    )
    at: float | None = Field(
        None, ge=0, le=MAX_AT_S, allow_inf_nan=False,
        description="The instant the key was pressed (record seconds, ms precision). "
        "Taken when not before the last event, not in the future and at most the "
        "window (60 s) in the past; otherwise the server stamps its own time.")


class CreatedOut(BaseModel):
    match_id: str
    timekeeper_token: str
    committee_token: str
    display_token: str
    urls: dict[str, str]


class TicketOut(BaseModel):
    ticket: str
    expires_in: float


class AcceptedOut(BaseModel):
    seq: int
    at: float
    recorded_ms: int
    event: dict[str, Any]
    duplicate: bool
    at_source: Literal["client", "server"]
    note: str | None = None


def service(request: Request) -> LiveService:
    svc: LiveService = state_of(request.app).service
    return svc


def unknown(match_id: str) -> ServiceError:
    shown = match_id if MATCH_ID.match(match_id) else match_id[:16] + "…"
    return ServiceError("unknown_match", params={"match_id": shown})


async def load(request: Request, match_id: str) -> LiveMatch:
    """The live match, or 404 (ids of another shape never reach the store) / 409 quarantined."""
    if not MATCH_ID.match(match_id):
        raise unknown(match_id)
    try:
        return await service(request).load(match_id)
    except Quarantined as e:
        raise ServiceError("quarantined",
                           params={"match_id": match_id, "reason": e.reason}) from e
    except UnknownMatch as e:
        raise unknown(match_id) from e


async def authorise(request: Request, lm: LiveMatch, authorization: str | None) -> Role:
    """The role of the request's token; bad tokens are counted per (address, match)
    only once the token is known not to be the match's."""
    token = bearer(authorization)
    if token is None:
        raise ServiceError("no_token")
    role = service(request).role_of(lm, token)
    if role is not None:
        return role
    throttle = state_of(request.app).throttle
    key = (client_address(request), lm.id)
    if throttle.blocked(key):
        raise ServiceError("too_many_bad_tokens", retry_after_s=60)
    await asyncio.sleep(throttle.fail(key))
    raise ServiceError("bad_token")


def stream_tickets(request: Request) -> StreamTickets:
    return state_of(request.app).stream_tickets


def ticket_rate(request: Request) -> RateLimit:
    """Tickets per (address, match): 30 at once, then one a second."""
    return state_of(request.app).ticket_rate


@router.get("/time", summary="The server's clock (epoch ms), for clients measuring their offset")
async def server_time(request: Request) -> dict[str, int]:
    return {"server_time": service(request).clock.now_ms()}


@router.get("/matches", summary="Recent matches (public data only), newest first")
async def list_matches(
    request: Request, response: Response,
    limit: Annotated[int, Query(ge=1, le=100)] = 100,
    before: Annotated[str | None, Query(max_length=40, pattern=r"^[0-9]{1,16}:[A-Za-z0-9_-]{1,64}$",
                                        description="the `next` cursor of the previous page")]
    = None,
) -> list[dict[str, Any]]:
    cursor = None
    if before is not None:
        ms, _, mid = before.partition(":")
        cursor = (int(ms), mid)
    rows = await asyncio.to_thread(service(request).store.list_matches, limit, cursor)
    if len(rows) == limit:
        response.headers["x-next"] = f"{rows[-1].created_ms}:{rows[-1].id}"
    return [
        {"match_id": r.id, "created_ms": r.created_ms, "started": r.start_ms is not None,
         "teams": {k: t.get("name", k) for k, t in r.header.get("teams", {}).items()}}
        for r in rows
    ]


@router.post("/matches", status_code=201, response_model=CreatedOut,
             dependencies=[Depends(require_organiser)],
             responses={401: {}, 403: {}, 422: {}, 429: {}},
             summary="Create a match from a record without events (organiser token); "
             "returns its two secrets")
async def create_match(
    request: Request,
    header: Annotated[Any, Body(
        description='{"format", "rules", "options", "teams"} as in the match record')],
) -> dict[str, Any]:
    # a refusal's ``text`` is its message in the caller's language (``?lang=``, else
    # Accept-Language), as the tournament API's; ``message`` stays English
    lang = pick_language(request.query_params.get("lang"), None,
                         request.headers.get("accept-language"))
    try:
        header = check_header(header)
    except ServiceError as e:
        e.extra.setdefault("text", said_or(e.code, e.params, lang, e.message))
        raise
    if header.get("events"):
        raise ServiceError("has_events", text=said_or("has_events", {}, lang, ""))
    try:
        c = await service(request).create_match(header)
    except SetupError as e:
        raise ServiceError("bad_setup", str(e),
            params={"path": e.path, "reason": e.reason, "setup_code": e.code,
                    "setup_params": e.params},
            path=e.path, reason=e.reason,
            text=bad_setup_text(e.code, e.params, e.path, e.reason, lang)) from e
    lm = await load(request, c.match_id)
    shown = match_display_token(lm)
    return {"match_id": c.match_id, "timekeeper_token": c.timekeeper_token,
            "committee_token": c.committee_token, "display_token": shown,
            "urls": match_urls(request, c.match_id, c.timekeeper_token, shown)}


@router.post("/matches/{match_id}/stream-ticket", response_model=TicketOut,
             responses={401: {}, 403: {}, 429: {}},
             summary="A single-use ticket (valid 60 s) for one live stream of this match in "
             "the share kept for its screens: `?ticket=` on the stream's URL")
async def stream_ticket(
    request: Request, match_id: str,
    authorization: Annotated[str | None, Header(description=(
        "Bearer <timekeeper, committee or display token>"))] = None,
) -> dict[str, Any]:
    lm = await load(request, match_id)
    token = bearer(authorization)
    if token is None or not hmac.compare_digest(token, match_display_token(lm)):
        role = await authorise(request, lm, authorization)
        annotate(request, role=role, match_id=lm.id)
    else:
        annotate(request, role="display", match_id=lm.id)
    tickets = stream_tickets(request)
    wait = ticket_rate(request).take((client_address(request), lm.id))
    if wait > 0:
        raise ServiceError("rate_limited", params={"retry_after": int(wait) + 1})
    return {"ticket": tickets.issue(lm.id, match_key(lm)), "expires_in": tickets.ttl}


@router.get("/matches/{match_id}/display-token",
            responses={401: {}, 403: {}, 429: {}},
            summary="The display token and the big screen's and overlay's URLs with it "
            "(timekeeper or committee token)")
async def get_display_token(
    request: Request, match_id: str,
    authorization: Annotated[str | None, Header()] = None,
) -> dict[str, Any]:
    lm = await load(request, match_id)
    await authorise(request, lm, authorization)
    shown = match_display_token(lm)
    urls = match_urls(request, lm.id, display=shown)
    return {"display_token": shown, "urls": {k: urls[k] for k in ("display", "overlay")}}


def plain_command(body: bytes, content_type: str | None) -> EventCommand | None:
    """The command of a key press's body when it is plainly one, else ``None``.

    The lean path of ``POST /api/matches/{id}/events`` (issue 43): a body that is JSON
    (``application/json``), an object of ``command_id``, ``event`` and an optional
    ``at`` of exactly the types and bounds :class:`EventCommand` declares, parsed by the
    same ``json.loads`` FastAPI's path uses, is that command; anything else (another
    type, a bool or a string for a number, an unknown key, another content type) is
    ``None``, and FastAPI's full path answers it, with its own 422 where it refuses. So
    a command is never taken here that the model would refuse or read otherwise.

    >>> plain_command(b'{"command_id": "k1", "event": {"type": "goal"}}', "application/json")
    EventCommand(command_id='k1', event={'type': 'goal'}, at=None)
    >>> plain_command(b'{"command_id": "k1", "event": {}, "at": "3"}', "application/json")
    >>> plain_command(b'{"command_id": "k1", "event": {}}', "text/plain")
    """
    if content_type is None or content_type.partition(";")[0].strip().lower() != (
            "application/json"):
        return None
    try:
        d = json.loads(body)
    except ValueError:  # JSONDecodeError, and bytes that are not UTF-8/16/32
        return None
    if type(d) is not dict or not _COMMAND_KEYS >= d.keys() >= _COMMAND_NEEDS:
        return None
    command_id, event, at = d["command_id"], d["event"], d.get("at")
    if (type(command_id) is not str or len(command_id) > COMMAND_ID_MAX
            or _COMMAND_ID.fullmatch(command_id) is None or type(event) is not dict):
        return None
    if at is not None:
        if type(at) not in (int, float) or not 0 <= at <= MAX_AT_S:
            return None
        at = float(at)
    return EventCommand.model_construct(command_id=command_id, event=event, at=at)


_COMMAND_KEYS = frozenset({"command_id", "event", "at"})
_COMMAND_NEEDS = frozenset({"command_id", "event"})
#: EventCommand's pattern, whole (Python's ``$`` would also take a last newline)
_COMMAND_ID = re.compile(COMMAND_ID_CHARS)


class KeyPressRoute(APIRoute):
    """The key press's route: a body that :func:`plain_command` reads goes straight to
    :func:`accept`, around FastAPI's dependencies and the model's validation (about a
    fifth of the request's CPU, measured by ``benchmarks/post_cpu.py``); any other body
    takes FastAPI's full path, unchanged. The route is FastAPI's in every other way:
    the guard's door, the OpenAPI document, the exception handlers, the access log."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        full = super().get_route_handler()

        async def handler(request: Request) -> Response:
            cmd = plain_command(await request.body(), request.headers.get("content-type"))
            if cmd is None:
                return await full(request)  # the body is kept: FastAPI reads it again
            return await accept(request, request.path_params["match_id"], cmd,
                                request.headers.get("authorization"))
        return handler


async def post_event(
    request: Request, match_id: str, cmd: EventCommand,
    authorization: Annotated[str | None, Header()] = None,
) -> Any:
    return await accept(request, match_id, cmd, authorization)


router.add_api_route(
    "/matches/{match_id}/events", post_event, methods=["POST"], status_code=201,
    response_model=AcceptedOut, route_class_override=KeyPressRoute,
    responses={200: {"description": "that command_id was already accepted"},
               401: {}, 403: {}, 409: {}, 422: {}, 429: {},
               503: {"description": "not stored (busy or the disk failed); retry "
                     "after Retry-After seconds with the same command_id"}},
    summary="Send one operator event (the server stamps its time unless `at` is "
    "posted and acceptable)")


async def accept(request: Request, match_id: str, cmd: EventCommand,
                 authorization: str | None) -> JSONResponse:
    """One key press, its command checked: the match, the token, the event, the store."""
    lm = await load(request, match_id)
    role = await authorise(request, lm, authorization)
    annotate(request, role=role, command_id=cmd.command_id)
    event, as_class = checked_event(cmd.event)
    acc = await service(request).submit(lm, role, cmd.command_id, event, cmd.at,
                                        typed=as_class)
    body = {"seq": acc.seq, "at": acc.event["at"], "recorded_ms": acc.recorded_ms,
            "event": acc.event, "duplicate": acc.duplicate, "at_source": acc.at_source}
    if acc.note is not None:
        body["note"] = acc.note
    return JSONResponse(body, status_code=200 if acc.duplicate else 201)


@router.get("/matches/{match_id}", summary="The replay report as of now (or ?at=seconds), with seq")
async def get_report(
    request: Request, match_id: str,
    at: Annotated[float | None, Query(ge=0, le=MAX_AT_S, allow_inf_nan=False,
                                      description="seconds since the record started")]
    = None,
) -> dict[str, Any]:
    lm = await load(request, match_id)
    return service(request).report(lm, None if at is None else round(at * 1000))


@router.get("/matches/{match_id}/record", summary="The whole record (replayable)")
async def get_record(
    request: Request, match_id: str,
    format: Annotated[Literal["json", "toml"], Query()] = "json",
    authorization: Annotated[str | None, Header()] = None,
) -> Response:
    try:
        lm = await load(request, match_id)
    except ServiceError as e:
        if e.code != "quarantined":
            raise
        return await quarantined_record(request, match_id, authorization)
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
    last: Annotated[int | None, Query(ge=0, le=MAX_SEQ, description="as Last-Event-ID")]
    = None,
    ticket: Annotated[str | None, Query(max_length=100, description=(
        "a ticket from `POST .../stream-ticket`: the match's screens keep a reserved share "
        "of the streams"))] = None,
    token: Annotated[str | None, Query(max_length=100, description=(
        "the match's timekeeper or committee token (prefer a ticket: it keeps the token "
        "out of URLs)"))] = None,
    authorization: Annotated[str | None, Header()] = None,
) -> Response:
    lm = await load(request, match_id)
    svc = service(request)
    presented = bearer(authorization) or token
    privileged = presented is not None and svc.role_of(lm, presented) is not None
    if ticket is not None and not privileged:
        why = stream_tickets(request).redeem(ticket, lm.id, match_key(lm))
        privileged = why is None
        annotate(request, match_id=lm.id, code="ticket" if why is None else f"ticket_{why}")
    state = state_of(request.app)
    if not privileged and not serves_crowd(state.plane):
        # the officials' plane: no anonymous stream (307)
        return crowd_elsewhere(request, state.addresses)
    caps: StreamCaps = state.streams
    address = client_address(request)
    if not caps.acquire(address, privileged):
        raise ServiceError("too_many_streams", params={"retry_after": 5})
    released = False

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            caps.release(address)
            svc.unsubscribe(lm, sub)

    since = last
    given = (last_event_id or "").strip()
    if given.isascii() and given.isdigit() and len(given) <= 10:
        since = min(int(given), MAX_SEQ)
    sub, backlog = svc.subscribe(lm, since)
    sub.on_drop = release  # fell too far behind (stopped reading): its slot goes back now

    return event_stream(sub, backlog, release, svc.leaving)


def event_stream(sub: Subscriber, backlog: list[str], release: Callable[[], None],
                 leaving: Turns) -> EventStream:
    """The one Server-Sent Events writer, of a match's stream and of a tournament's: its
    ``retry`` and ``backlog`` first, then what the fan-out (:mod:`chukker.live.fanout`)
    gives ``sub`` (its messages encoded once by :func:`chukker.live.fanout.sse`), until
    ``sub`` is dropped; ``release`` gives the stream's slot back, however it ends."""

    async def messages() -> AsyncIterator[bytes]:
        try:
            yield ("retry: 1000\n\n" + "".join(backlog)).encode()
            queue = sub.queue
            while True:
                if queue.empty():
                    if sub.dropped:
                        return
                    first = await queue.get()  # keep-alive comments come from the service
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
            release()

    gen = messages()
    weakref.finalize(gen, release)  # also when the stream never started
    return EventStream(gen, release, sub, backlog, leaving, media_type="text/event-stream",
                       headers={"cache-control": "no-cache", "x-accel-buffering": "no"})


class EventStream(StreamingResponse):
    """A streaming response that gives back its slot as soon as it ends, however it ends
    (a client that went away cancels the generator without closing it: waiting for the
    garbage collector to finalise it kept the slot for an unbounded time).

    Served by uvicorn (a :class:`~chukker.web.api.wire.SocketWire` in the scope), it
    writes its headers and first state through the ASGI chain, then gives its socket to
    the subscriber: the fan-out writes each message straight to it. Elsewhere (an
    in-process client) the generator serves the subscriber's queue.
    """

    def __init__(self, content: AsyncIterator[bytes], on_end: Callable[[], None],
                 sub: Subscriber, backlog: list[str], leaving: Turns, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self._on_end = on_end
        self._sub = sub
        self._backlog = backlog
        self._leaving = leaving

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            wire = wire_of(scope)
            if wire is None:
                await super().__call__(scope, receive, send)
            else:
                await self._direct(wire, receive, send)
        finally:
            self._on_end()

    async def _direct(self, wire: SocketWire, receive: Receive, send: Send) -> None:
        sub = self._sub
        await send({"type": "http.response.start", "status": self.status_code,
                    "headers": self.raw_headers})
        first = ("retry: 1000\n\n" + "".join(self._backlog)).encode()
        await send({"type": "http.response.body", "body": first, "more_body": True})
        if not wire.ready():  # closing already: end the answer as usual
            with contextlib.suppress(Exception):
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        # what came while the headers went out, in one write; from now on, direct
        queued = sub.queued()
        if any(not m for m in queued) or sub.dropped:
            sub.dropped = True
        else:
            if queued:
                wire.write(chunk(b"".join(queued)))
            wire.limit = sub.limit
            sub.wire = wire
            wire.direct()
        # one future, no task, until the end: done by ``sub.end()`` (dropped or closed) or
        # by the protocol when the connection is lost (``SocketWire.lost``)
        ended = sub.waiter = wire.waiter = asyncio.get_running_loop().create_future()
        try:
            if not sub.dropped:
                await ended
        finally:
            sub.waiter = wire.waiter = None
        sub.wire = None
        wire.leave()
        # its slot and its subscription go at once; the rest of its end (the ASGI chain
        # unwinding, its access line) waits its turn: thousands of streams ending together
        # would otherwise hold the loop, and a horn falling due, in one iteration
        self._on_end()
        await self._leaving.wait()
        with contextlib.suppress(Exception):  # after a disconnect uvicorn drops it
            await send({"type": "http.response.body", "body": b"", "more_body": False})


async def quarantined_record(request: Request, match_id: str,
                             authorization: str | None) -> Response:
    """The stored header and events of a quarantined match, for the committee only."""
    svc = service(request)
    row, doc = await svc.raw_record(match_id)
    token = bearer(authorization)


    if token is None or not hmac.compare_digest(hash_token(token), row.committee_hash):
        raise ServiceError("quarantined", params={
            "match_id": match_id, "reason": svc.quarantined.get(match_id, "")})
    text = json.dumps({**doc, "quarantined": svc.quarantined.get(match_id, "")},
                      ensure_ascii=True, indent=1)
    return PlainTextResponse(text, media_type="application/json", headers={
        "content-disposition": f'attachment; filename="match-{match_id}-raw.json"'})


def error_response(e: ServiceError) -> JSONResponse:
    """The refusal ``e`` as the API answers it (:func:`chukker.web.errors.response`)."""
    return errors.response(e)

