"""Server-rendered pages: matches, new match, console, big screen, phones, overlay, sheet."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
import time
import unicodedata
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import segno
from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
)
from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape
from markupsafe import Markup

from chukker.engine.errors import show
from chukker.i18n import LANGUAGES, language_name, translations
from chukker.live import LiveMatch, Quarantined, Role, ServiceError, api_errors
from chukker.rules import edition
from chukker.store import UnknownMatch
from chukker.store._engine import Match, Setup, SetupError
from chukker.tournament.ponyline import string_of
from chukker.web.api.routes import check_header, created_display_token, match_urls, service
from chukker.web.lang import language_of_scope
from chukker.web.shared import sheet
from chukker.web.refusals import said_or, setup_said
from chukker.web.security import CSRF_COOKIE, CSRF_MARK, csrf_ok, new_csrf, public_link
from chukker.whistle import detector as whistle_detector

HERE = Path(__file__).parent.parent  # chukker/web: templates/ and static/
ENV = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
)


def rules_title(rules_id: str) -> str:
    """An edition's title for people ("USPA Arena Rules 2026"), not its id."""
    try:
        return str(edition(str(rules_id)).title)
    except (KeyError, ValueError):
        return str(rules_id)


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


#: words of stage ids that a page says in its own language (issue 30): "pool-a" is
#: "Grupo A" in es, "ko" is "Eliminazione diretta" in it
STAGE_WORDS = {"pool": "Pool", "ko": "Ko", "final": "Final", "semis": "Semis",
               "consolation": "Consolation", "cup": "Cup", "third": "Third place"}


def stage_name(stage_id: str, gettext: Callable[[str], str] | None = None) -> str:
    """A tournament stage's id as a heading: "pool-a" -> "Pool A", "semis" -> "Semis";
    with ``gettext``, the words of :data:`STAGE_WORDS` in the page's language.

    >>> stage_name("pool-a"), stage_name("ko-consolation"), stage_name("x_y2")
    ('Pool A', 'Ko Consolation', 'X Y2')
    """
    words = str(stage_id).replace("_", " ").replace("-", " ").split()
    out = []
    for w in words:
        known = STAGE_WORDS.get(w.lower())
        if known is not None:
            out.append(gettext(known) if gettext is not None else known)
        else:
            out.append(w.upper() if len(w) == 1 else w.capitalize())
    return " ".join(out) or stage_id


@pass_context
def _stage_name_filter(ctx: Any, stage_id: str) -> str:
    gettext = ctx.get("_")
    return stage_name(stage_id, gettext if callable(gettext) else None)


ENV.filters["rules_title"] = rules_title
ENV.filters["mmss"] = lambda ms: "" if ms is None else (
    f"{int(ms) // 60000}:{int(ms) // 1000 % 60:02d}")  # a countdown as a page prints it
ENV.filters["stage_name"] = _stage_name_filter
#: the fixed clock-correction reasons the console offers (the sheet prints them translated)
ENV.globals["clock_reasons"] = sheet.CLOCK_REASONS
router = APIRouter(include_in_schema=False)
LANG_COOKIE = "chukker_lang"

#: words the live pages' JavaScript needs, translated per page
JS_LABELS = {
    "pre_match": "Pre-match", "in_play": "In play", "stopped": "Clock stopped",
    "interval": "Interval", "shootout": "Shootout", "final": "Final",
    "period": "Period", "period_of": "Period {n} of {count}", "extra_period": "Extra period",
    "winner": "Winner",
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
    "ev_clock": "Clock correction", "ev_substitute": "Substitution", "ev_designate": "Designation",
    "ev_return": "Return", "online": "Connected",
    "offline": "Offline: commands are kept and sent on reconnect", "queued": "{n} queued",
    "not_now": "Not possible now", "wait_queue": "Wait until the queued commands are sent",
    "server_time_used": "stamped with the server's time",
    "interval_over": "Interval over: bowl in when ready", "clock_corrected": "Clock corrected",
    "card_yellow": "yellow", "card_red": "red", "reason_injury": "injury",
    "reason_equipment": "equipment", "reason_mount": "mount", "reason_other": "other",
    "result_goal": "goal", "result_miss": "miss", "result_forfeit": "forfeit",
    "horn_end": "end of period", "horn_split": "split", "horn_warning": "30 seconds",
    "before_period": "Before period", "shots": "Shots", "next": "Next",
    "both_forfeited": "both forfeited", "team_forfeited": "%(team)s forfeited",
    "ev_mount": "Change mounts", "ev_mount_out": "Mount out", "in_use": "in use",
    "no_mounts": "The team has listed no mounts.",
    # issue 30: a mount's state and a mount_out's reason in words, never codes
    "reason_vice": "vice", "reason_blood": "blood", "reason_runaway": "runaway",
    "mount_out": "out", "mount_disqualified": "disqualified", "penalty_8": "Penalty 8",
    # issue 30: how a final was decided, a practice's score, a goal's restart, pending
    "practice_score": "Practice: %(score)s",
    "golden_goal": "golden goal in extra period %(n)s",
    "shootout_score": "shootout %(score)s",
    "penalty_after_horn": "Penalty 1 goal after the last horn",
    "after_goal": "clock running (time is not taken out for a goal, Rule 5) · "
                  "restart: bowl-in at centre (Rule 6)",
    "pending": "pending", "pending_state": "Pending, not recorded yet: %(what)s",
    "time_out": "Time-out",
    # issue 42: dialogs ask for what is missing; an undo asks first and says what it changes
    "ask_for": "Still to fill in: %(what)s", "ask_fix": "Not valid: %(what)s",
    "clock_says": "the console's clock says %(time)s",
    "interval_left": "the interval has %(left)s left",
    "confirm_undo": "Confirm undo",
    "undo_asks": "Press Undo again, or Enter, to undo",
    "undo_would": "it would change", "undo_changes_nothing": "nothing else changes",
    "undo_refused": "This undo is refused", "clock": "clock", "score": "score",
    "clock_stopped_word": "stopped", "clock_running_word": "running",
    "planned_asks": "Press again to record, one mount each",
}


def decided_words(rep: dict[str, Any], names: dict[str, str], regular: int,
                  gettext: Any) -> str | None:
    """How a final match was decided, in words: "Practice: 1–0" (a practice never has a
    winner), a forfeit ("Reds forfeited"), "golden goal in extra period 1", "shootout 3–2";
    ``None`` in regulation time or before the end.

    >>> g = lambda s: s
    >>> names = {"A": "Reds", "B": "Blues"}
    >>> rep = {"status": "final", "score": {"A": 5, "B": 4}, "period": 5,
    ...        "decided_by": "extra-period", "forfeited": []}
    >>> decided_words(rep, names, 4, g)
    'golden goal in extra period 1'
    >>> decided_words({**rep, "decided_by": "shootout", "shootout": {"score": {"A": 3, "B": 2}}},
    ...               names, 4, g)
    'shootout 3–2'
    >>> decided_words({**rep, "practice": {"period_s": 10}}, names, 4, g)
    'Practice: 5–4'
    """
    if rep.get("status") != "final":
        return None
    ids = list(names)
    score = rep.get("score") or {}
    if rep.get("practice"):
        return str(gettext("Practice: %(score)s")) % {
            "score": "–".join(str(score.get(k, 0)) for k in ids)}
    forfeit = forfeit_text(rep, names, gettext)
    if forfeit is not None:
        return forfeit
    how = rep.get("decided_by")
    if how == "extra-period":
        n = max(1, int(rep.get("period") or regular + 1) - regular)
        return str(gettext("golden goal in extra period %(n)s")) % {"n": n}
    if how == "shootout":
        so = (rep.get("shootout") or {}).get("score") or {}
        return str(gettext("shootout %(score)s")) % {
            "score": "–".join(str(so.get(k, 0)) for k in ids)}
    if how == "penalty":
        return str(gettext("Penalty 1 goal after the last horn"))
    return None


def last_timeout(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The time-out that stopped the clock, when the last clock event in force is one
    (``{"seq", "team", "reason"}``), else ``None``.

    >>> last_timeout([dict(type="bowl_in"), dict(type="timeout", reason="injury", team="A")])
    {'seq': 2, 'team': 'A', 'reason': 'injury'}
    >>> last_timeout([dict(type="timeout", reason="other"), dict(type="bowl_in")]) is None
    True
    """
    gone = sheet.cancelled(events)
    for i in range(len(events), 0, -1):
        e = events[i - 1]
        if i in gone or e.get("type") not in CLOCK_EVENTS:
            continue
        if e.get("type") != "timeout":
            return None
        return {"seq": i, "team": e.get("team"), "reason": e.get("reason")}
    return None


#: the events that start or stop the clock (a time-out shows until the next of them)
CLOCK_EVENTS = frozenset({"bowl_in", "free_hit", "whistle", "foul", "timeout"})


def forfeit_text(rep: dict[str, Any], names: dict[str, str], gettext: Any) -> str | None:
    """A final forfeit in words ("both forfeited", "White forfeited"), else ``None``: the
    one helper (``chukker.tournament.words``) every page uses."""
    from chukker.tournament.words import forfeit_words, report_forfeits

    if rep.get("status") != "final":
        return None
    return forfeit_words(report_forfeits(rep, names), list(names.values()), gettext)


def refusal_templates(lang: str) -> dict[str, str]:
    """Each refusal code's message template in ``lang``, for the console to fill in.

    The engine's templates (``chukker.engine.errors.MESSAGES``) and the API's
    (``chukker.live.api_errors.MESSAGES``), each translated through the merged
    catalog (``refusals.po``, ``api.po``: msgid = the English template). The console
    fills ``{name}`` from the refusal's ``params``; a refusal whose code is not here
    is shown with its English ``message``.

    >>> isinstance(refusal_templates("es"), dict)
    True
    """
    tr = translations(lang)
    out: dict[str, str] = {}
    from chukker.engine.errors import MESSAGES as ENGINE_MESSAGES
    from chukker.live.api_errors import MESSAGES as API_MESSAGES

    for table in (ENGINE_MESSAGES, API_MESSAGES):
        for code, template in table.items():
            out.setdefault(str(code), tr.gettext(str(template)))
    return out


def event_times(header: dict[str, Any], events: list[dict[str, Any]]
                ) -> dict[int, tuple[int, int]]:
    """(period, period clock in remaining ms) just after each event, by event number: the
    times the timeline, the console's log ("Bowl in · P1 7:30", also after a reload: the
    live stream gives every event its time too) and the sheet show."""
    m = Match(Setup.from_dict(header))
    out: dict[int, tuple[int, int]] = {}
    for i, ev in enumerate(events, 1):
        try:
            m.apply(ev)
        except (ValueError, TypeError, KeyError):
            break
        rep = m.report(round(float(ev["at"]) * 1000))
        out[i] = (int(rep["period"]), int(rep["clock"]["remaining_ms"]))
    return out


_TIMES_CACHE: dict[tuple[str, int], dict[int, tuple[int, int]]] = {}


def cached_event_times(lm: LiveMatch) -> dict[int, tuple[int, int]]:
    """:func:`event_times` of a live match, kept per (match, number of events)."""
    key = (lm.id, lm.seq)
    got = _TIMES_CACHE.get(key)
    if got is None:
        got = event_times(lm.row.header, [e.event for e in lm.stored])
        if len(_TIMES_CACHE) > 256:
            _TIMES_CACHE.clear()
        _TIMES_CACHE[key] = got
    return got


def event_clocks(header: dict[str, Any], events: list[dict[str, Any]]) -> dict[int, int]:
    """The period clock (remaining ms) after each clocked event, by event number."""
    return {i: ms for i, (_p, ms) in event_times(header, events).items()}


def practice_of(header: dict[str, Any]) -> dict[str, Any] | None:
    p = (header.get("options") or {}).get("practice")
    return p if isinstance(p, dict) and p else None


def static_url(name: str) -> str:
    return f"/static/{name}"


def lang_of(request: Request) -> str:
    """The page's language: the page cache's key uses the same choice (web/lang.py)."""
    return language_of_scope(request.scope)[0]


#: which entry of the shared bar a page belongs to, from its path
SECTIONS = (("/tournaments", "tournaments"), ("/learn", "learn"), ("/rules", "rules"),
            ("/plays", "plays"))


def render(request: Request, template: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    lang = lang_of(request)
    tr = translations(lang)
    path = request.url.path
    ctx.setdefault("section", next((name for prefix, name in SECTIONS
                                    if path.startswith(prefix)), "matches"))
    html = ENV.get_template(template).render(
        lang=lang, _=tr.gettext, static=static_url,
        languages=[(c, language_name(c)) for c in LANGUAGES], **ctx,
    )
    return respond(request, html, status)


def respond(request: Request, html: str | bytes, status: int = 200) -> HTMLResponse:
    resp = HTMLResponse(html, status_code=status)
    lang, asked = language_of_scope(request.scope)
    if asked:
        resp.set_cookie(LANG_COOKIE, lang, max_age=365 * 86400, samesite="lax")
    resp.headers["x-content-type-options"] = "nosniff"
    resp.headers["referrer-policy"] = "no-referrer"
    return resp


#: the heading of an error page, by HTTP status (translated)
ERROR_HEADINGS = {403: "Not allowed", 404: "Not found", 409: "This match cannot be shown",
                  503: "Not available right now"}


def error_page(request: Request, status: int, message: str) -> HTMLResponse:
    heading = translations(lang_of(request)).gettext(
        ERROR_HEADINGS.get(status, "Something went wrong"))
    return render(request, "error.html", status=status, code=status, heading=heading,
                  message=message)


def teams_of(lm: LiveMatch) -> tuple[list[str], dict[str, Any], int]:
    setup = Setup.from_dict(lm.row.header)
    doc = setup.to_dict()
    return list(setup.team_ids), doc["teams"], setup.plan.count


def title_of(header: dict[str, Any]) -> str:
    names = [str(t.get("name") or k) for k, t in header.get("teams", {}).items()]
    return " – ".join(names)


async def live_context(request: Request, match_id: str) -> dict[str, Any] | HTMLResponse:
    tr = translations(lang_of(request))
    try:
        lm = await service(request).load(match_id)
    except Quarantined:
        return error_page(request, 409, tr.gettext(
            "The record of match %(id)s cannot be replayed. It is kept aside; the committee "
            "can export its stored events.") % {"id": match_id})
    except UnknownMatch:
        return error_page(request, 404, tr.gettext("There is no match %(id)s.")
                          % {"id": match_id[:16]})
    ids, teams, regular = teams_of(lm)
    report = service(request).report(lm)
    lang = lang_of(request)
    tr = translations(lang)
    practice = practice_of(lm.row.header)
    times = cached_event_times(lm)
    clocks = {i: ms for i, (_p, ms) in times.items()}
    labels = {k: tr.gettext(v) for k, v in JS_LABELS.items()}
    cfg: dict[str, Any] = {
           "match_id": lm.id, "team_ids": ids, "regular_periods": regular, "lang": lang,
           "teams": {k: {"name": teams[k].get("name") or k, "players": teams[k]["players"]}
                     for k in ids},
           "practice": practice, "clocks": clocks,
           "periods": {i: p for i, (p, _ms) in times.items()},
           "timeout": last_timeout([e.event for e in lm.stored]),
           "labels": labels,
           "refusals": refusal_templates(lang)}
    club = Setup.from_dict(lm.row.header).edition.club if lm.row.header.get("rules") == "club" \
        else None
    if club is not None:
        # issue 42: the club's own warning time, and its name beside the period
        warn = Setup.from_dict(lm.row.header).edition.warning_at_ms.value
        labels["horn_warning"] = tr.gettext("%(n)s seconds") % {"n": warn // 1000} \
            if warn % 60000 else sheet.mmss(warn)
        cfg["club_name"] = club.name
    for k in ids:
        teams[k]["name"] = teams[k].get("name") or k
    clock = report["clock"]["remaining_ms"]
    return {"match_id": lm.id, "team_ids": ids, "teams": teams, "report": report, "cfg": cfg,
            "title": title_of(lm.row.header),
            "clock_text": fmt_clock(clock), "lm": lm, "practice": practice,
            "result_text": decided_words(report, {k: str(teams[k]["name"]) for k in ids},
                                         regular, tr.gettext),
            "clocks": clocks}


fmt_clock = sheet.fmt_clock


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


def status_text(rep: dict[str, Any], gettext: Any) -> str:
    """'Period 2 · In play', 'Interval', 'Final' ... in the page's language."""
    status = str(rep["status"])
    text = str(gettext(JS_LABELS.get(status, status)))
    if status in ("in_play", "stopped") and rep.get("period"):
        text = f"{gettext('Period')} {rep['period']} · {text}"
    return text


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


#: the most characters of a club edition pasted or loaded into the new-match form
CLUB_TEXT_MAX = 16_384


def club_from_form(text: str) -> Any:
    """The club edition the new-match form carries (TOML, as ``chukker rules edition
    --toml`` writes it, or JSON); its values are the set-up's to check."""
    import tomllib

    text = text.strip()
    if not text or len(text) > CLUB_TEXT_MAX:
        raise SetupError("edition", "paste or load the club's edition (TOML or JSON, at most "
                         f"{CLUB_TEXT_MAX} characters)", "club_edition_text", max=CLUB_TEXT_MAX)
    try:
        doc = json.loads(text) if text.startswith("{") else tomllib.loads(text)
    except ValueError:
        raise SetupError("edition", "paste or load the club's edition (TOML or JSON, at most "
                         f"{CLUB_TEXT_MAX} characters)", "club_edition_text",
                         max=CLUB_TEXT_MAX) from None
    if isinstance(doc, dict) and isinstance(doc.get("edition"), dict):
        doc = doc["edition"]
    return doc
#: the new-match form's string: at most this many horses a team, names this long
FORM_MOUNTS_MAX, FORM_NAME_MAX = 64, 60


def _mount_id(key: str, name: str, taken: set[str]) -> str:
    """An id for a horse the form names: the team's key, then the name in ``[a-z0-9-]``
    (accents dropped), unique in the match (Rule 2: an id is on one team's list only)."""
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    base = f"{key.lower()}-" + ("-".join(re.findall(r"[a-z0-9]+", plain)) or "horse")
    base = base[:28]
    mid, n = base, 2
    while mid in taken:
        mid, n = f"{base}-{n}", n + 1
    taken.add(mid)
    return mid


def plan_name_error(form: dict[str, str], key: str, no: int, i: int, name: str,
                    names: list[str]) -> SetupError:
    """A plan's horse that is not in the team's string (issue 42): said with the team's
    name, and the closest horse of the string when one is close
    ("'Comit' is not in Blue's string: did you mean Comet?").

    >>> str(plan_name_error({"team_A_name": "Blue"}, "A", 1, 0, "Comit", ["Comet", "Bay"]))
    "teams.A.plan.1[0]: 'Comit' is not in Blue's string: did you mean Comet?"
    """
    import difflib

    team = form.get(f"team_{key}_name", "").strip()[:FORM_NAME_MAX] or DEFAULT_NAMES[key]
    path = f"teams.{key}.plan.{no}[{i}]"
    folded = {n.casefold(): n for n in names}
    near = difflib.get_close_matches(name.casefold(), list(folded), n=1, cutoff=0.6)
    if near:
        return SetupError(path, f"{show(name)} is not in {team}'s string: did you mean "
                          f"{folded[near[0]]}?", "plan_mount_not_listed_near",
                          mount=show(name), team=team, near=folded[near[0]])
    return SetupError(path, f"mount {show(name)} is not on {team}'s list of mounts",
                      "plan_mount_not_listed", mount=show(name), team=team)


def string_from_form(form: dict[str, str], key: str) -> dict[str, Any]:
    """A team's string and plan from the form (issue 30): ``team_X_mounts``, one horse a
    line (``name`` or ``name, owner``), and ``team_X_pN_plan``, the horses in the order
    the groom brings them, by name, separated by commas. Empty: no string.

    >>> string_from_form({"team_A_mounts": "Dorá, R. Paz", "team_A_p1_plan": "dorá"}, "A")
    {'mounts': [{'id': 'a-dora', 'name': 'Dorá', 'owner': 'R. Paz'}], 'plan': {'1': ['a-dora']}}
    """
    lines = [ln.strip() for ln in form.get(f"team_{key}_mounts", "").splitlines()]
    lines = [ln for ln in lines if ln]
    if not lines:
        return {}
    if len(lines) > FORM_MOUNTS_MAX:
        raise SetupError(f"teams.{key}.mounts", f"must be a list of at most {FORM_MOUNTS_MAX} "
                         "mounts", "setup_mounts_list", max=FORM_MOUNTS_MAX)
    taken: set[str] = set()
    mounts: list[dict[str, Any]] = []
    by_name: dict[str, str] = {}
    for ln in lines:
        name, _, owner = (x.strip() for x in ln.partition(","))
        name = name[:FORM_NAME_MAX]
        m: dict[str, Any] = {"id": _mount_id(key, name, taken), "name": name}
        if owner:
            m["owner"] = owner[:FORM_NAME_MAX]
        mounts.append(m)
        by_name.setdefault(name.casefold(), m["id"])
        by_name.setdefault(m["id"], m["id"])
    plan: dict[str, list[str]] = {}
    for no in (1, 2, 3):
        raw = form.get(f"team_{key}_p{no}_plan", "")
        names = [x.strip() for x in raw.split(",") if x.strip()][:FORM_MOUNTS_MAX]
        ids = []
        for i, x in enumerate(names):
            mid = by_name.get(x[:FORM_NAME_MAX].casefold())
            if mid is None:
                raise plan_name_error(form, key, no, i, x[:FORM_NAME_MAX],
                                      [m["name"] for m in mounts])
            ids.append(mid)
        if ids:
            plan[str(no)] = ids
    return {"mounts": mounts, "plan": plan} if plan else {"mounts": mounts}


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
                                 f"{raw!r} is not a whole number", "setup_form_not_whole",
                                 value=show(raw)) from e
            players.append({"no": no, "name": form.get(f"team_{key}_p{no}_name", "").strip(),
                            "handicap": hcp})
        cap = form.get(f"team_{key}_captain", "1")
        if cap not in ("1", "2", "3"):
            raise SetupError(f"teams.{key}.captain", f"{cap[:10]!r} is not a player number",
                             "setup_form_captain", value=show(cap[:10]))
        teams[key] = {"name": form.get(f"team_{key}_name", "").strip() or DEFAULT_NAMES[key],
                      "captain": int(cap), "players": players}
        teams[key].update(string_from_form(form, key))
    a_def = form.get("a_defends", "west")
    practice: dict[str, Any] = {}
    if form.get("practice"):
        for key in ("period_s", "interval_s"):
            raw = form.get(f"practice_{key}", "").strip()
            try:
                practice[key] = int(raw)
            except ValueError as e:
                raise SetupError(f"options.practice.{key}", f"{raw!r} is not a whole number",
                                 "setup_form_not_whole", value=show(raw)) from e
    header: dict[str, Any] = {
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
    if practice:
        header["options"]["practice"] = practice
    if header["rules"] == "club":
        header["edition"] = club_from_form(form.get("club_edition", ""))
    info = {k: form.get(f"info_{k}", "").strip()[:200] for k in sheet.INFO_FIELDS}
    if any(info.values()):
        header[sheet.INFO_KEY] = {k: v for k, v in info.items() if v}
    return header


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
    except SetupError as e:  # the form's own fields, or the engine's refusal of the set-up
        return _new_form(request, form, setup_said(e.code, e.params, lang_of(request), str(e)),
                         status=422)
    except ServiceError as e:
        if e.code in api_errors.MESSAGES:
            text = api_errors.fill(tr.gettext(api_errors.MESSAGES[e.code]), e.params)
        else:  # the record's or the engine's code (check_header)
            text = said_or(e.code, e.params, lang_of(request), e.message)
        return _new_form(request, form, text, status=e.status)
    # post/redirect/get: a reload shows the page again and never creates a second match.
    # The secrets travel in the fragment, which the browser never sends to a server.
    secrets = urlencode({"tk": created.timekeeper_token, "cm": created.committee_token,
                         "dp": created_display_token(created.match_id, created.timekeeper_token,
                                                     created.committee_token)})
    resp = RedirectResponse(f"/m/{created.match_id}/created?lang={lang_of(request)}#{secrets}",
                            status_code=303)
    resp.headers["cache-control"] = "no-store"
    return resp


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
    from chukker.store._engine import EngineError

    copy = Match(setup, events)
    before = copy.report(at_ms)
    try:
        copy.apply({"type": "undo", "event": event, "at": at_ms / 1000})
    except EngineError as err:
        return {"event": event, "refused": {
            "code": getattr(err, "code", "refused"), "reason": err.reason,
            "params": getattr(err, "params", None) or {"reason": err.reason}}}
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
        raise ServiceError(422, "bad_request", params={"problems": "event: no such event"})
    at_ms = round(float(service(request).report(lm)["at"]) * 1000)
    answer = await asyncio.to_thread(undo_changes, lm.match.setup, lm.match.events, event,
                                     at_ms)
    return JSONResponse(answer, headers={"cache-control": "no-store"})


def phone_qr(request: Request, match_id: str) -> dict[str, Any]:
    """The spectators' phone page of a match (:func:`~chukker.web.security.public_link`:
    absolute from the ``public_url`` setting or a trusted proxy, never from the request's
    ``Host``; else relative) and, when it is absolute, its QR code as inline SVG: dark on
    white with its quiet zone (it must read on the big screen's black), sized by CSS,
    titled with the URL. A relative link gets no QR code (a phone cannot follow it)."""
    url = public_link(request, f"/m/{match_id}")
    if not url.startswith(("http://", "https://")):
        return {"phone_url": url, "qr_svg": None}
    svg = segno.make(url, error="m").svg_inline(
        border=2, dark="#000", light="#fff", title=url, omitsize=True, svgclass="qr-code")
    return {"phone_url": url, "qr_svg": Markup(svg)}


#: the console's words for "Listen for the whistle" (issue 31; static/whistle.js)
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


def _live_page(template: str, qr: bool = False) -> Any:
    async def page(request: Request, match_id: str) -> Response:
        ctx = await live_context(request, match_id)
        if isinstance(ctx, Response):
            return ctx
        if template == "console.html":
            tr = translations(lang_of(request))
            ctx["cfg"]["whistle"] = {
                "params": whistle_params(),
                "labels": {k: tr.gettext(v) for k, v in WHISTLE_LABELS.items()}}
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
router.add_api_route("/m/{match_id}/console", _live_page("console.html"), methods=["GET"],
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
    from chukker.web.heavy import Kind, pools_of  # WeasyPrint in the PDF pool's workers
    from chukker.web.security import client_address

    try:
        data, pages = await pools_of(request.app.state).run(
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


# ------------------------------------------------------------ API documentation, offline
#: Swagger UI and ReDoc files shipped by the ``fastapi-offline`` package (no CDN)
API_DOC_FILES = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css",
                 "redoc.standalone.js": "text/javascript", "favicon.png": "image/png"}


def _api_doc_dir() -> Path:
    import fastapi_offline  # a dependency (pyproject.toml): its absence is a broken install

    return Path(fastapi_offline.__file__).parent / "static"


@router.get("/apidocs/{name}")
async def api_doc_file(name: str) -> Response:
    folder = _api_doc_dir()
    if name not in API_DOC_FILES or not (folder / name).is_file():
        return Response("not found", status_code=404, media_type="text/plain")
    return FileResponse(folder / name, media_type=API_DOC_FILES[name],
                        headers={"cache-control": "public, max-age=86400"})


@router.get("/docs", response_class=HTMLResponse)
async def swagger_ui(request: Request) -> Response:
    return get_swagger_ui_html(openapi_url="/openapi.json", title="chukker live API",
                               swagger_js_url="/apidocs/swagger-ui-bundle.js",
                               swagger_css_url="/apidocs/swagger-ui.css",
                               swagger_favicon_url="/apidocs/favicon.png")


@router.get("/redoc", response_class=HTMLResponse)
async def redoc(request: Request) -> Response:
    return get_redoc_html(openapi_url="/openapi.json", title="chukker live API",
                          redoc_js_url="/apidocs/redoc.standalone.js",
                          redoc_favicon_url="/apidocs/favicon.png", with_google_fonts=False)
