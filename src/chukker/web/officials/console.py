"""The match console and the committee's doors of one match: the console page, the
question before an undo, archiving a match and the "match created" page."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)

from chukker.i18n import translations
from chukker.live import Role, ServiceError
from chukker.store import UnknownMatch
from chukker.store.engine import Match, Setup
from chukker.web.api.links import match_urls
from chukker.web.api.routes import service
from chukker.web.security import CSRF_COOKIE, csrf_ok
from chukker.web.shared.live import live_context, title_of
from chukker.web.shared.render import error_page, lang_of, render
from chukker.whistle import detector as whistle_detector

router = APIRouter(include_in_schema=False)


@router.post("/m/{match_id}/archive", response_class=HTMLResponse)
async def archive_match(request: Request, match_id: str) -> Response:
    """The committee files a match away from the home page, or brings it back.

    A form with the committee's token (never the timekeeper's) and the CSRF field;
    the record itself is untouched."""
    raw = await request.form()
    form = {k: v for k, v in raw.items() if isinstance(v, str)}
    gettext = translations(lang_of(request)).gettext
    if not csrf_ok(request.cookies.get(CSRF_COOKIE), form.get("csrf")):
        return error_page(request, 403, gettext(
            "The form has expired or came from another site; reload it and try again."))
    svc = service(request)
    try:
        lm = await svc.load(match_id)
    except (UnknownMatch, ServiceError) as e:
        return error_page(request, 404, str(e))
    if svc.role_of(lm, form.get("committee_token", "").strip()) is not Role.COMMITTEE:
        return error_page(request, 403, gettext("Only the committee's token can archive a match."))
    archive = form.get("action") != "restore"
    await asyncio.to_thread(svc.store.set_archived, lm.id, archive, svc.clock.now_ms())
    return RedirectResponse(f"/?lang={lang_of(request)}" + ("" if archive else "&archived=1"),
                            status_code=303)


@router.get("/m/{match_id}/created", response_class=HTMLResponse)
async def created_page(request: Request, match_id: str) -> Response:
    try:
        lm = await service(request).load(match_id)
    except UnknownMatch as e:
        return error_page(request, 404, str(e))
    resp = render(request, "created.html", urls=match_urls(request, lm.id),
                  title=title_of(lm.row.header), match_id=lm.id)
    resp.headers["cache-control"] = "no-store"
    return resp


def undo_changes(setup: Setup, events: Any, event: int, at_ms: int) -> dict[str, Any]:
    """What an undo of event ``event`` at ``at_ms`` (record ms) would change, asked before
    it is sent (issue 42): the clock's time left, each team's score, the period and the
    state, each as ``[before, after]`` when it changes; or the engine's refusal (its code
    and params: an undo that would move a later event is refused, ``docs/engine.md``).
    A new match is folded from the events: nothing is recorded."""
    from chukker.store.engine import EngineError

    copy = Match(setup, events)
    before = copy.report(at_ms)
    try:
        copy.apply({"type": "undo", "event": event, "at": at_ms / 1000})
    except EngineError as err:
        return {"event": event, "refused": {
            "code": err.code, "reason": err.reason,
            "params": err.params or {"reason": err.reason}}}
    after = copy.report(at_ms)
    changes: dict[str, Any] = {}
    clock_b, clock_a = before["clock"]["remaining_ms"], after["clock"]["remaining_ms"]
    if clock_b != clock_a or before["clock"]["running"] != after["clock"]["running"]:
        changes["clock"] = [clock_b, clock_a]
        changes["running"] = [before["clock"]["running"], after["clock"]["running"]]
    score = {t: [before["score"][t], after["score"][t]] for t in before["score"]
             if before["score"][t] != after["score"].get(t)}
    if score:
        changes["score"] = score
    for k in ("period", "status"):
        if before.get(k) != after.get(k):
            changes[k] = [before.get(k), after.get(k)]
    return {"event": event, "changes": changes}


@router.get("/m/{match_id}/undo")
async def undo_preview(request: Request, match_id: str, event: int = 0) -> Response:
    """The console's question before an undo: what it would change, or why it is refused.
    The timekeeper's or committee's token (a header); one copy of the match folded off
    the event loop, so a key press or a horn never waits for it."""
    from chukker.web.api.routes import authorise, load

    lm = await load(request, match_id)
    await authorise(request, lm, request.headers.get("authorization"))
    if not 1 <= event <= lm.seq:
        raise ServiceError("bad_request", params={"problems": "event: no such event"})
    at_ms = round(float(service(request).report(lm)["at"]) * 1000)
    answer = await asyncio.to_thread(undo_changes, lm.match.setup, lm.match.events, event,
                                     at_ms)
    return JSONResponse(answer, headers={"cache-control": "no-store"})


WHISTLE_LABELS = {
    "off": "Listening for the whistle is off: the keys work as always.",
    "listening_default": "Listening: the default profile for common pea-less whistles.",
    "listening_calibrated": "Listening: the calibrated whistle ({tones} Hz).",
    "unsupported": "This browser cannot listen for the whistle; the keys work as always.",
    "denied": "The microphone was refused. To allow it, click the icon left of the address "
              "(a lock or a microphone), allow the microphone for this site, and turn listening "
              "on again. Until then the keys work as always.",
    "no_mic": "No microphone could be opened; the keys work as always.",
    "silent": "The microphone is silent: check that it is plugged in and not muted. Nothing is "
              "recorded from it.",
    "clipped": "The microphone is clipping: lower its gain. Nothing is recorded from it.",
    "heard": "Whistle heard by the microphone: the clock is stopped.",
    "heard_stopped": "Whistle heard; the clock was already stopped: nothing recorded.",
    "horn_ignored": "Sound during this console's horn: ignored.",
    "undone": "The microphone's whistle was undone.",
    "from_microphone": "microphone",
    "calib_prompt": "Blow the whistle three times, a second apart.",
    "calib_progress": "Heard {n} of 3 blasts.",
    "calib_done": "Calibrated: this whistle's tones are {tones} Hz.",
    "calib_failed": "Calibration failed: heard {n} blasts. Blow three times, a second apart, "
                    "and try again.",
}


def whistle_params() -> dict[str, Any]:
    """The whistle detector's parameters, as the console's worklet gets them."""
    return whistle_detector.params()




@router.get("/m/{match_id}/console", response_class=HTMLResponse)
async def console_page(request: Request, match_id: str) -> Response:
    """The timekeeper's console: the live context with the whistle detector's parameters
    and words (the token travels in the fragment, never to the server)."""
    ctx = await live_context(request, match_id)
    if isinstance(ctx, Response):
        return ctx
    tr = translations(lang_of(request))
    ctx["cfg"]["whistle"] = {
        "params": whistle_params(),
        "labels": {k: tr.gettext(v) for k, v in WHISTLE_LABELS.items()}}
    return render(request, "console.html", **ctx)
