"""The public's match pages: the home page, a match's phone page, big screen, overlay,
pony line, and its score sheet (HTML, PDF, CSV, JSON)."""

from __future__ import annotations

import asyncio
import datetime as dt
import time
import weakref
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    Response,
)

from chukker.i18n import translations
from chukker.live import LiveMatch
from chukker.rules import edition
from chukker.store import UnknownMatch
from chukker.store.engine import Setup
from chukker.tournament.ponyline import string_of
from chukker.web.api.routes import service
from chukker.web.security import CSRF_COOKIE, CSRF_MARK, new_csrf
from chukker.web.shared import sheet
from chukker.web.shared.live import live_context, practice_of, title_of
from chukker.web.shared.render import (
    JS_LABELS,
    decided_words,
    error_page,
    fmt_clock,
    forfeit_text,
    lang_of,
    phone_qr,
    render,
    respond,
    status_text,
)

router = APIRouter(include_in_schema=False)


def club_lines(header: dict[str, Any], gettext: Any) -> tuple[str, str, list[str]] | None:
    """A club edition as the score sheet prints it: its title ("Pine Hill (club rules on
    USPA Arena Rules 2026)"), its periods ("4 periods of 6:00") and its changes from the
    base, one line each; ``None`` for a USPA edition (record 1.3, issue 33)."""
    if header.get("rules") != "club":
        return None
    from chukker.rules.club import differences
    from chukker.rules.editions import EDITIONS

    setup = Setup.from_dict(header)
    club = setup.edition.club
    assert club is not None
    base = EDITIONS[club.base]
    plan = setup.edition.plan(str(setup.options.periods))
    length = f"{plan.length_ms // 60000}:{plan.length_ms // 1000 % 60:02d}"
    title = gettext("%(name)s (club rules on %(base)s)") % {"name": club.name,
                                                             "base": base.title}
    periods = gettext("%(count)s periods of %(length)s") % {"count": plan.count,
                                                             "length": length}
    # in words, in the sheet's language (issue 42); a change the words do not cover yet
    # keeps its parameter's name
    changes = sheet.club_changes(setup.edition, base, str(setup.options.periods), gettext)
    said = {*sheet.CLUB_WORDS, "regulation", "six", "without"}
    changes += [f"{p}: {a} → {b}" for p, a, b, _c in differences(setup.edition, base)
                if p not in said]
    return title, periods, changes



#: seconds a match's report on the home page may be reused while no event came (the
#: page reloaded by a crowd computed every listed match's report on every load, holding
#: the event loop from the timekeeper's POSTs)
SUMMARY_TTL_S = 1.0
_summaries: weakref.WeakKeyDictionary[LiveMatch, tuple[int, float, dict[str, Any]]] = (
    weakref.WeakKeyDictionary())


def summary_report(svc: Any, lm: LiveMatch) -> dict[str, Any]:
    """``svc.report(lm)``, reused for ``SUMMARY_TTL_S`` while the match has no new event."""
    now = time.monotonic()
    hit = _summaries.get(lm)
    if hit is not None and hit[0] == lm.seq and now - hit[1] < SUMMARY_TTL_S:
        return hit[2]
    rep: dict[str, Any] = svc.report(lm)
    _summaries[lm] = (lm.seq, now, rep)
    return rep


#: (language, archived?) -> (what the home page was rendered from, the page)
_index_pages: dict[tuple[str, bool], tuple[tuple[Any, ...], bytes]] = {}


@router.get("/", response_class=HTMLResponse)
async def index(request: Request) -> Response:
    svc = service(request)
    rows = await asyncio.to_thread(svc.store.list_matches, 100)
    archived = await asyncio.to_thread(svc.store.archived)
    show_archived = request.query_params.get("archived") == "1"
    tr = translations(lang_of(request))
    matches = []
    for n, r in enumerate(rows):
        if (r.id in archived) != show_archived:
            continue
        if n % 10 == 9:
            await asyncio.sleep(0)  # let a timekeeper's POST or a horn through
        item: dict[str, Any] = {"id": r.id, "title": title_of(r.header), "team_ids": [],
                                "practice": practice_of(r.header) is not None,
                                "status": "", "score": "", "clock": ""}
        try:
            rep = summary_report(svc, await svc.load(r.id))
        except (UnknownMatch, ValueError):  # a stored match that cannot be replayed
            item["status"] = tr.gettext("Cannot be replayed")
            matches.append(item)
            continue
        ids = list(r.header.get("teams", {}))
        item["team_ids"] = ids
        item["status_code"] = rep["status"]
        item["status"] = status_text(rep, tr.gettext)
        item["names"] = {k: str(v.get("name") or k) for k, v in r.header.get("teams", {}).items()}
        item["score"] = (forfeit_text(rep, item["names"], tr.gettext)
                         or " – ".join(str(rep["score"].get(k, 0)) for k in ids))
        iv = rep.get("interval")
        if rep["status"] not in ("pre_match", "final"):
            item["clock"] = fmt_clock(iv["remaining_ms"] if iv else rep["clock"]["remaining_ms"])
        matches.append(item)
    # the same list renders the same page: a crowd reloading it gets the last one
    # (rendering a hundred matches held the event loop for milliseconds per reload)
    seen = (lang_of(request), show_archived, len(archived), repr(matches))
    last = _index_pages.get(seen[:2])
    if last is not None and last[0] == seen:
        return respond(request, last[1])
    labels = {k: tr.gettext(JS_LABELS[k]) for k in
              ("pre_match", "in_play", "stopped", "interval", "shootout", "final", "period",
               "both_forfeited", "team_forfeited")}
    resp = render(request, "index.html", matches=matches, labels=labels,
                  show_archived=show_archived, n_archived=len(archived))
    _index_pages[seen[:2]] = (seen, bytes(resp.body))
    return resp


def _live_page(template: str, qr: bool = False) -> Any:
    async def page(request: Request, match_id: str) -> Response:
        ctx = await live_context(request, match_id)
        if isinstance(ctx, Response):
            return ctx
        if qr:
            ctx.update(phone_qr(request, match_id))
        return render(request, template, **ctx)
    return page


router.add_api_route("/m/{match_id}", _live_page("spectator.html"), methods=["GET"],
                     response_class=HTMLResponse)
router.add_api_route("/m/{match_id}/display", _live_page("display.html", qr=True), methods=["GET"],
                     response_class=HTMLResponse)
router.add_api_route("/m/{match_id}/overlay", _live_page("overlay.html"), methods=["GET"],
                     response_class=HTMLResponse)


@router.get("/m/{match_id}/mounts", response_class=HTMLResponse)
async def mounts_page(request: Request, match_id: str) -> Response:
    """The pony line of one match (issue 25), for grooms on a phone: per team and player
    the mounts ridden by period, the one ridden now, and those out. Anonymous, read-only,
    from the match's own report (``?part=1``: the live part only, which the page fetches
    again on each update of the match's stream)."""
    ctx = await live_context(request, match_id)
    if isinstance(ctx, Response):
        return ctx
    rep = ctx["report"]
    lines = {}
    by = sheet.mounts_by_player(rep)
    setup = ctx["lm"].match.setup
    now = dt.datetime.fromtimestamp(service(request).clock.now_ms() / 1000)
    for key in ctx["team_ids"]:
        string = (rep.get("mounts") or {}).get(key) or {}
        roster = rep.get("roster", {}).get(key, {}).get("players", {})
        team = ctx["teams"][key]
        people = [*team.get("players", []), *team.get("alternates", [])]
        lines[key] = {
            "players": [
                {"no": p["no"], "name": p.get("name") or "",
                 "now": (roster.get(str(p["no"])) or {}).get("mount"),
                 "needed": bool((roster.get(str(p["no"])) or {}).get("mount_needed")),
                 # read by player too (issue 42): the plan, and the next horse with when
                 "plan": [str(x) for x in (team.get("plan") or {}).get(str(p["no"]), [])],
                 "next": (roster.get(str(p["no"])) or {}).get("next_mount"),
                 "periods": sorted(by.get(key, {}).get(int(p["no"]), {}).items())}
                for p in people if by.get(key, {}).get(int(p["no"])) or
                (roster.get(str(p["no"])) or {}).get("status") == "playing"],
            "string": string,
            "horses": string_of(rep, key, {int(p["no"]): p.get("name") or "" for p in people},
                                setup.plan, setup.edition.split_after_ms.value, now),
        }
    template = "_mounts.html" if request.query_params.get("part") else "mounts.html"
    resp = render(request, template, lines=lines, **ctx)
    resp.headers["cache-control"] = "no-store"
    return resp


async def sheet_parts(request: Request, match_id: str) -> dict[str, Any] | Response:
    ctx = await live_context(request, match_id)
    if isinstance(ctx, Response):
        return ctx
    lm = ctx["lm"]
    rep = ctx["report"]
    events = [e.event for e in lm.stored]
    header = {**lm.row.header, "teams": ctx["teams"]}
    return {**ctx, **sheet.sheet_data(header, rep, events, ctx["clocks"], ctx["cfg"]["periods"]),
            "mounts": sheet.mounts_by_player(rep), **phone_qr(request, match_id)}


def _sheet_html(request: Request, ctx: dict[str, Any], pdf: bool = False) -> HTMLResponse:
    rep = ctx["report"]
    tr = translations(lang_of(request))
    status_label = tr.gettext(JS_LABELS.get(rep["status"], rep["status"]))
    rules_id = str(ctx["lm"].row.header.get("rules", "uspa-arena-2026"))
    club = club_lines(ctx["lm"].row.header, tr.gettext)
    if club is not None:
        rules_title = club[0]
    else:
        try:
            rules_title = edition(rules_id).title
        except (KeyError, ValueError):
            rules_title = rules_id
    decided = rep.get("decided_by")
    decided_text = tr.gettext(sheet.DECIDED[decided]) if decided in sheet.DECIDED else ""
    plan = ctx["lm"].row.header.get("options", {}).get("periods", "regulation")
    # kept by the page cache: a mark it fills with each visitor's own token (web/cache.py)
    csrf = (CSRF_MARK if request.scope.get("chukker.cached") and not pdf
            else request.cookies.get(CSRF_COOKIE) or new_csrf())
    archived = ctx["match_id"] in service(request).store.archived()
    forfeit = forfeit_text(rep, {k: str(v["name"]) for k, v in ctx["teams"].items()},
                           tr.gettext)
    how = None if forfeit or ctx.get("practice") else decided_words(
        rep, {k: str(v["name"]) for k, v in ctx["teams"].items()},
        int(ctx["cfg"]["regular_periods"]), tr.gettext)
    resp = render(request, "sheet.html", status_label=status_label, rules_title=rules_title,
                  forfeit_text=forfeit, club=club, how_text=how,
                  decided_text=decided_text, plan=plan, pdf=pdf, info=ctx["info"], csrf=csrf,
                  archived=archived, **{k: v for k, v in ctx.items() if k != "info"})
    if not pdf and csrf != CSRF_MARK:
        resp.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
    return resp


@router.get("/m/{match_id}/sheet", response_class=HTMLResponse)
async def sheet_page(request: Request, match_id: str) -> Response:
    ctx = await sheet_parts(request, match_id)
    if isinstance(ctx, Response):
        return ctx
    return _sheet_html(request, ctx)


@router.get("/m/{match_id}/sheet.pdf")
async def sheet_pdf(request: Request, match_id: str) -> Response:
    """The score sheet as PDF (the same page, laid out by WeasyPrint for A4)."""
    ctx = await sheet_parts(request, match_id)
    if isinstance(ctx, Response):
        return ctx
    html = bytes(_sheet_html(request, ctx, pdf=True).body).decode()
    from chukker.web.heavy import Kind
    from chukker.web.security import client_address
    from chukker.web.state import pools  # WeasyPrint in the PDF pool's workers

    try:
        data, pages = await pools(request.app).run(
            Kind.PDF, client_address(request), sheet.render_pdf, [html])
    except sheet.PdfUnavailable:
        return error_page(request, 503, translations(lang_of(request)).gettext(
            "PDF output is not available on this server (WeasyPrint is missing); "
            "use the sheet's Print button."))
    return Response(data, media_type="application/pdf", headers={
        "content-disposition": f'attachment; filename="sheet-{match_id}.pdf"',
        "x-pages": str(pages)})


async def _sheet_csv(request: Request, match_id: str, what: str,
                     table: Callable[[dict[str, Any], dict[str, str]], str]) -> Response:
    """One of the sheet's tables (goals, fouls) as a CSV download."""
    ctx = await sheet_parts(request, match_id)
    if isinstance(ctx, Response):
        return ctx
    names = {k: ctx["teams"][k]["name"] for k in ctx["team_ids"]}
    return Response(table(ctx, names), media_type="text/csv; charset=utf-8", headers={
        "content-disposition": f'attachment; filename="{what}-{match_id}.csv"'})


@router.get("/m/{match_id}/goals.csv")
async def goals_csv(request: Request, match_id: str) -> Response:
    return await _sheet_csv(request, match_id, "goals", sheet.goals_csv)


@router.get("/m/{match_id}/fouls.csv")
async def fouls_csv(request: Request, match_id: str) -> Response:
    return await _sheet_csv(request, match_id, "fouls", sheet.fouls_csv)


@router.get("/m/{match_id}/sheet.json")
async def sheet_json(request: Request, match_id: str) -> Response:
    """Goals and fouls with their period clocks, corrections, result: the sheet as data."""
    ctx = await sheet_parts(request, match_id)
    if isinstance(ctx, Response):
        return ctx
    rep = ctx["report"]
    body = {"match_id": match_id, "info": ctx["info"], "practice": ctx["practice"],
            "teams": {k: {"name": ctx["teams"][k]["name"], "players": ctx["teams"][k]["players"],
                          "team_handicap": ctx["team_handicap"][k]} for k in ctx["team_ids"]},
            "goals": ctx["goals"], "fouls": ctx["fouls"], "corrections": ctx["corrections"],
            "audio_stops": ctx["audio_stops"],
            "result": {"status": rep["status"], "score": rep["score"],
                       "handicap_goals": rep.get("handicap_goals"), "winner": rep.get("winner"),
                       "decided_by": rep.get("decided_by")}}
    return JSONResponse(body, headers={
        "content-disposition": f'inline; filename="sheet-{match_id}.json"'})

