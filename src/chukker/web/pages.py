"""Server-rendered pages: matches, new match, console, big screen, phones, overlay, sheet."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from chukker.store import UnknownMatch
from chukker.store._engine import Setup, SetupError
from chukker.web import api_errors
from chukker.web.api import check_header, match_urls, service
from chukker.web.i18n import LANGUAGES, language_name, pick_language, translations
from chukker.web.live import LiveMatch, ServiceError
from chukker.web.security import CSRF_COOKIE, csrf_ok, new_csrf

HERE = Path(__file__).parent
ENV = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
)
router = APIRouter(include_in_schema=False)
LANG_COOKIE = "chukker_lang"

#: words the live pages' JavaScript needs, translated per page
JS_LABELS = {
    "pre_match": "Pre-match", "in_play": "In play", "stopped": "Clock stopped",
    "interval": "Interval", "shootout": "Shootout", "final": "Final",
    "period": "Period", "extra_period": "Extra period", "winner": "Winner",
    "handicap_goals": "handicap", "penalty": "Penalty", "goal": "Goal", "foul": "Foul",
    "two_point_goal": "2-point goal", "nothing_yet": "Nothing yet",
    "interval_regular": "Interval", "interval_extra": "Interval before extra period",
    "interval_shootout": "Interval before shootout",
    "interval_shootout-round": "Next shootout round in", "mount_change": "Mount change",
    "ev_bowl_in": "Bowl in", "ev_whistle": "Whistle", "ev_goal": "Goal", "ev_foul": "Foul",
    "ev_free_hit": "Free hit", "ev_timeout": "Time-out", "ev_forfeit": "Forfeit",
    "ev_shootout_order": "Shootout order", "ev_shot": "Shot", "ev_move_to_15": "Move to 15",
    "ev_undo": "Undo", "undo": "Undo", "nothing_to_undo": "Nothing to undo",
    "press_u_again": "Press U again to undo", "need_token": "Enter the timekeeper's token first.",
    "retrying": "Network error; retrying", "no_shot": "No shot is due",
}


def static_url(name: str) -> str:
    return f"/static/{name}"


def lang_of(request: Request) -> str:
    return pick_language(request.query_params.get("lang"), request.cookies.get(LANG_COOKIE),
                         request.headers.get("accept-language"))


def render(request: Request, template: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    lang = lang_of(request)
    tr = translations(lang)
    html = ENV.get_template(template).render(
        lang=lang, _=tr.gettext, static=static_url,
        languages=[(c, language_name(c)) for c in LANGUAGES], **ctx,
    )
    resp = HTMLResponse(html, status_code=status)
    if request.query_params.get("lang") in LANGUAGES:
        resp.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax")
    resp.headers["x-content-type-options"] = "nosniff"
    resp.headers["referrer-policy"] = "no-referrer"
    return resp


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    return render(request, "error.html", status=status, message=message)


def teams_of(lm: LiveMatch) -> tuple[list[str], dict[str, Any], int]:
    setup = Setup.from_dict(lm.row.header)
    doc = setup.to_dict()
    return list(setup.team_ids), doc["teams"], setup.plan.count


def title_of(header: dict[str, Any]) -> str:
    names = [str(t.get("name") or k) for k, t in header.get("teams", {}).items()]
    return " – ".join(names)


async def live_context(request: Request, match_id: str) -> dict[str, Any] | HTMLResponse:
    try:
        lm = await service(request).load(match_id)
    except UnknownMatch as e:
        return error_page(request, 404, str(e))
    ids, teams, regular = teams_of(lm)
    report = service(request).report(lm)
    tr = translations(lang_of(request))
    cfg = {"match_id": lm.id, "team_ids": ids, "regular_periods": regular,
           "teams": {k: {"name": teams[k].get("name") or k, "players": teams[k]["players"]}
                     for k in ids},
           "labels": {k: tr.gettext(v) for k, v in JS_LABELS.items()}}
    for k in ids:
        teams[k]["name"] = teams[k].get("name") or k
    clock = report["clock"]["remaining_ms"]
    return {"match_id": lm.id, "team_ids": ids, "teams": teams, "report": report, "cfg": cfg,
            "title": title_of(lm.row.header),
            "clock_text": f"{clock // 60000}:{clock // 1000 % 60:02d}", "lm": lm}


@router.get("/", response_class=HTMLResponse)
async def index(request: Request) -> Response:
    rows = await asyncio.to_thread(service(request).store.list_matches, 100)
    matches = [{"id": r.id, "title": title_of(r.header)} for r in rows]
    return render(request, "index.html", matches=matches)


DEFAULT_NAMES = {"A": "Blue", "B": "White"}


def _new_form(request: Request, form: dict[str, str], error: str | None,
              status: int = 200) -> HTMLResponse:
    csrf = request.cookies.get(CSRF_COOKIE) or new_csrf()
    resp = render(request, "new.html", status=status, form=form, error=error, csrf=csrf,
                  default_names=DEFAULT_NAMES,
                  organiser_needed=not request.app.state.organiser.open)
    resp.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
    return resp


@router.get("/new", response_class=HTMLResponse)
async def new_match_form(request: Request) -> Response:
    return _new_form(request, {}, None)


def header_from_form(form: dict[str, str]) -> dict[str, Any]:
    """The record header the new-match form describes (the engine validates it)."""
    teams: dict[str, Any] = {}
    for key in ("A", "B"):
        players = []
        for no in (1, 2, 3):
            raw = form.get(f"team_{key}_p{no}_hcp", "0").strip() or "0"
            try:
                hcp = int(raw)
            except ValueError as e:
                raise SetupError(f"teams.{key}.players[{no - 1}].handicap",
                                 f"{raw!r} is not a whole number") from e
            players.append({"no": no, "name": form.get(f"team_{key}_p{no}_name", "").strip(),
                            "handicap": hcp})
        cap = form.get(f"team_{key}_captain", "1")
        if cap not in ("1", "2", "3"):
            raise SetupError(f"teams.{key}.captain", f"{cap[:10]!r} is not a player number")
        teams[key] = {"name": form.get(f"team_{key}_name", "").strip() or DEFAULT_NAMES[key],
                      "captain": int(cap), "players": players}
    a_def = form.get("a_defends", "west")
    return {
        "format": "chukker-match/1",
        "rules": form.get("rules", "uspa-arena-2026"),
        "options": {
            "periods": form.get("periods", "regulation"),
            "split_periods": bool(form.get("split_periods")),
            "tiebreak": form.get("tiebreak", "extra-periods"),
            "shootout_players": form.get("shootout_players", "all"),
            "handicap": bool(form.get("handicap")),
            "warning_horn": bool(form.get("warning_horn")),
            "two_point_line": form.get("two_point_line", "center"),
            "first_defends": {"A": a_def, "B": "east" if a_def == "west" else "west"},
        },
        "teams": teams,
    }


@router.post("/new", response_class=HTMLResponse)
async def new_match(request: Request) -> Response:
    raw = await request.form()
    form = {k: v for k, v in raw.items() if isinstance(v, str)}
    if not csrf_ok(request.cookies.get(CSRF_COOKIE), form.get("csrf")):
        return error_page(request, 403, translations(lang_of(request)).gettext(
            "The form has expired or came from another site; reload it and try again."))
    tr = translations(lang_of(request))
    try:  # the organiser's token, as for POST /api/matches (or an open server's rate limit)
        request.app.state.organiser.check(request, form.get("organiser_token") or None)
        header = check_header(header_from_form(form))
        created = await service(request).create_match(header)
    except SetupError as e:
        return _new_form(request, form, str(e), status=422)
    except ServiceError as e:
        text = tr.gettext(api_errors.MESSAGES.get(e.code, e.message))
        return _new_form(request, form, api_errors.fill(text, e.params), status=e.status)
    urls = match_urls(request, created.match_id, created.timekeeper_token)
    resp = render(request, "created.html", urls=urls, title=title_of(header),
                  timekeeper_token=created.timekeeper_token,
                  committee_token=created.committee_token)
    resp.headers["cache-control"] = "no-store"
    return resp


def _live_page(template: str) -> Any:
    async def page(request: Request, match_id: str) -> Response:
        ctx = await live_context(request, match_id)
        if isinstance(ctx, Response):
            return ctx
        return render(request, template, **ctx)
    return page


router.add_api_route("/m/{match_id}", _live_page("spectator.html"), methods=["GET"],
                     response_class=HTMLResponse)
router.add_api_route("/m/{match_id}/display", _live_page("display.html"), methods=["GET"],
                     response_class=HTMLResponse)
router.add_api_route("/m/{match_id}/overlay", _live_page("overlay.html"), methods=["GET"],
                     response_class=HTMLResponse)
router.add_api_route("/m/{match_id}/console", _live_page("console.html"), methods=["GET"],
                     response_class=HTMLResponse)


def sheet_context(report: dict[str, Any], ids: list[str], teams: dict[str, Any]
                  ) -> dict[str, Any]:
    """Goals per period and per player from the report's goal log.

    >>> ctx = sheet_context({"goals": [{"team": "A", "player": 2, "period": 1, "points": 2},
    ...     {"team": "A", "player": None, "period": 2, "points": 1}], "periods": [],
    ...     "shootout": None}, ["A", "B"], {"A": {"players": [{"no": 2}]}, "B": {"players": []}})
    >>> ctx["by_period"]["A"], ctx["by_player"]["A"][2], ctx["unattributed"]["A"]
    ({1: 2, 2: 1}, {1: 2}, {2: 1})
    """
    by_period: dict[str, dict[int, int]] = {k: defaultdict(int) for k in ids}
    by_player: dict[str, dict[int, dict[int, int]]] = {
        k: {p["no"]: defaultdict(int) for p in teams[k]["players"]} for k in ids}
    unattributed: dict[str, dict[int, int]] = {k: defaultdict(int) for k in ids}
    for g in report.get("goals", []):
        team, period, pts = g["team"], int(g["period"]), int(g.get("points", 1))
        by_period[team][period] += pts
        pl = g.get("player")
        if pl in by_player[team]:
            by_player[team][pl][period] += pts
        else:
            unattributed[team][period] += pts
    numbers = sorted({int(p["number"]) for p in report.get("periods", [])}
                     | {p for k in ids for p in by_period[k]})
    so = report.get("shootout") or {}
    return {"by_period": {k: dict(v) for k, v in by_period.items()},
            "by_player": {k: {n: dict(d) for n, d in v.items()} for k, v in by_player.items()},
            "unattributed": {k: dict(v) for k, v in unattributed.items()},
            "period_numbers": numbers or [1],
            "has_shootout": bool(so), "shootout_score": so.get("score") or {}}


@router.get("/m/{match_id}/sheet", response_class=HTMLResponse)
async def sheet(request: Request, match_id: str) -> Response:
    ctx = await live_context(request, match_id)
    if isinstance(ctx, Response):
        return ctx
    rep = ctx["report"]
    tr = translations(lang_of(request))
    status_label = tr.gettext(JS_LABELS.get(rep["status"], rep["status"]))
    return render(request, "sheet.html", status_label=status_label,
                  rules=ctx["lm"].row.header.get("rules", "uspa-arena-2026"),
                  **sheet_context(rep, ctx["team_ids"], ctx["teams"]), **ctx)
