"""The broadcast data feeds: ``GET /api/matches/{id}/feed.json``, ``feed.xml``, ``feed.csv``.

One flat record (:data:`chukker.feeds.payloads.FLAT_FIELDS`): what vMix Data
Sources, CasparCG templates and online graphics services read by polling a
URL. Public like the phone page (no token, no body), ``?lang=en|es|it`` for
``status_text``; each answer is kept for at most :data:`FEED_TTL_S` seconds,
so a hundred graphics machines polling ten times a second cost the event loop
five reports a second per match and format. ``Access-Control-Allow-Origin: *``
lets browser-based graphics services read it (the data is public).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from chukker.feeds import formats
from chukker.feeds.payloads import flat_record, public_state
from chukker.i18n import pick_language, translations
from chukker.live.service import LiveMatch, LiveService
from chukker.web.api import routes as api
from chukker.web.state import state_of

if TYPE_CHECKING:
    from chukker.live.tournaments import TournamentService

router = APIRouter(prefix="/api", tags=["feeds"])

#: seconds an answer is reused (the issue's "cached for at most 200 ms")
FEED_TTL_S = 0.2
#: answers kept (match, format, language); the oldest go first
CACHE_SIZE = 4096

_FORMATS: dict[str, tuple[Callable[[Mapping[str, Any]], bytes], str]] = {
    "json": (formats.to_json, "application/json"),
    "xml": (formats.to_xml, "application/xml; charset=utf-8"),
    "csv": (formats.to_csv, "text/csv; charset=utf-8"),
}

LangQuery = Annotated[str | None, Query(max_length=8, pattern=r"^[a-zA-Z_-]*$",
                                        description="en, es or it (status_text)")]


def _cache(request: Request) -> OrderedDict[tuple[str, str, str], tuple[float, bytes]]:
    return state_of(request.app).caches.feeds


def feed_record(svc: LiveService, lm: LiveMatch, lang: str) -> dict[str, Any]:
    """The flat record of a live match as of now, ``status_text`` in ``lang``."""
    from chukker.web.shared.render import status_text

    rep = svc.report(lm)
    state = public_state(lm.row.header, rep)
    return flat_record(state, status_text(rep, translations(lang).gettext))


async def _answer(request: Request, match_id: str, fmt: str, lang: str | None) -> Response:
    language = pick_language(lang, None, request.headers.get("accept-language"))
    key = (match_id, fmt, language)
    cache = _cache(request)
    now = time.monotonic()
    hit = cache.get(key)
    if hit is None or hit[0] <= now:
        lm = await api.load(request, match_id)  # 404 / 409 as every API route
        encode, _ = _FORMATS[fmt]
        hit = (now + FEED_TTL_S, encode(feed_record(api.service(request), lm, language)))
        cache[key] = hit
        cache.move_to_end(key)
        while len(cache) > CACHE_SIZE:
            cache.popitem(last=False)
    return Response(hit[1], media_type=_FORMATS[fmt][1], headers={
        "cache-control": "no-cache", "access-control-allow-origin": "*",
        "content-language": language})


@router.get("/matches/{match_id}/feed.json", summary="Broadcast feed: one flat record (JSON)")
async def feed_json(request: Request, match_id: str, lang: LangQuery = None) -> Response:
    return await _answer(request, match_id, "json", lang)


@router.get("/matches/{match_id}/feed.xml", summary="Broadcast feed: one flat record (XML)",
            response_class=Response)
async def feed_xml(request: Request, match_id: str, lang: LangQuery = None) -> Response:
    return await _answer(request, match_id, "xml", lang)


@router.get("/matches/{match_id}/feed.csv", summary="Broadcast feed: one flat record (CSV)",
            response_class=Response)
async def feed_csv(request: Request, match_id: str, lang: LangQuery = None) -> Response:
    return await _answer(request, match_id, "csv", lang)


# ------------------------------------------------------------------ the MQTT feed's wiring
def make_feed(svc: LiveService, settings: Any) -> Any:
    """The MQTT feed of ``settings`` (``None`` without ``mqtt.url``), listening to ``svc``.

    On PostgreSQL the horns are claimed in the servers' database (one server sounds
    each); on SQLite (one server per file) in the process.
    """
    if settings is None or not settings.mqtt.url:
        return None
    from chukker.feeds.claims import LocalClaims, PostgresClaims
    from chukker.feeds.mqtt import MqttFeed
    from chukker.store import Backend

    client_id = settings.mqtt.client_id
    store = svc.store
    claims: Any
    if store.backend is Backend.POSTGRES:
        import secrets

        from chukker.store.postgres import PostgresStore

        assert isinstance(store, PostgresStore)

        client_id = client_id or f"chukker-{secrets.token_hex(4)}"
        claims = PostgresClaims(store.url, store.schema, client_id)
    else:
        claims = LocalClaims()
    mqtt = settings.mqtt if client_id == settings.mqtt.client_id else _with_id(settings.mqtt,
                                                                               client_id)
    return MqttFeed(mqtt, settings.horn, header_of=lambda mid: _header_of(svc, mid),
                    claims=claims, claims_block=store.backend is Backend.POSTGRES,
                    now_ms=svc.clock.now_ms)


def _with_id(mqtt: Any, client_id: str) -> Any:
    import dataclasses

    return dataclasses.replace(mqtt, client_id=client_id)


def _header_of(svc: LiveService, match_id: str) -> Mapping[str, Any] | None:
    lm = svc.loaded_match(match_id)  # the match the service has just told of: loaded
    return None if lm is None else lm.row.header


async def start_feed(svc: LiveService, feed: Any,
                     tsvc: TournamentService | None = None) -> None:
    """Listen to ``svc`` and publish the state of every match it has loaded; with the
    app's tournaments ``tsvc``, learn the arena of every tournament match (for the arena
    relays)."""
    if tsvc is not None:
        from chukker.live.tournaments import now_playing

        def follow(lt: Any, s: Any, reports: dict[str, Any]) -> None:
            """The MQTT arena topics and relays follow each arena's match."""
            for mid, live_id in lt.live.items():
                m = lt.t.matches.get(mid)
                if m is not None and m.arena:
                    feed.map_arena(live_id, m.arena)
            for arena, now in now_playing(lt, s).items():
                if arena:
                    feed.assign_arena(arena, now["live"], reports.get(now["current"] or ""))

        for lt in tsvc.all():
            for mid, live_id in lt.live.items():
                m = lt.t.matches.get(mid)
                if m is not None and m.arena:
                    feed.map_arena(live_id, m.arena)
        tsvc.refreshed.append(follow)
    svc.add_listener(feed)
    await feed.start()
    for lm in svc.loaded_matches():
        feed.on_state(lm.id, lm.seq, svc.report(lm))


async def stop_feed(svc: LiveService, feed: Any) -> None:
    svc.remove_listener(feed)
    await feed.stop()

