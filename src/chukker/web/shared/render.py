"""The pages' one template environment and what every page renders with: the page's
language, ``render``/``respond``/``error_page``, a match's status and result in words,
stage names, the phone page's QR code and the live pages' words (``JS_LABELS``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import segno
from fastapi import Request
from fastapi.responses import (
    HTMLResponse,
    Response,
)
from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape
from markupsafe import Markup

from chukker.i18n import LANGUAGES, language_name, translations
from chukker.rules import edition
from chukker.web.heavy import Busy, OverLimit
from chukker.web.lang import language_of_scope
from chukker.web.refusals import refusal_message
from chukker.web.security import public_link
from chukker.web.shared import sheet
from chukker.web.state import found_state

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


def forfeit_text(rep: dict[str, Any], names: dict[str, str], gettext: Any) -> str | None:
    """A final forfeit in words ("both forfeited", "White forfeited"), else ``None``: the
    one helper (``chukker.tournament.words``) every page uses."""
    from chukker.tournament.words import forfeit_words, report_forfeits

    if rep.get("status") != "final":
        return None
    return forfeit_words(report_forfeits(rep, names), list(names.values()), gettext)


def static_url(name: str) -> str:
    return f"/static/{name}"


def lang_of(request: Request) -> str:
    """The page's language: the page cache's key uses the same choice (web/lang.py)."""
    return language_of_scope(request.scope)[0]


#: which entry of the shared bar a page belongs to, from its path
SECTIONS = (("/tournaments", "tournaments"), ("/learn", "learn"), ("/rules", "rules"),
            ("/plays", "plays"))


def languages_of(request: Request) -> tuple[str, ...]:
    """The languages the app offers (setting ``languages``; the known ones on a bare app)."""
    state = found_state(request.scope.get("app"))  # none before the app (an edge's wrapper)
    return state.configured.languages if state is not None else LANGUAGES


def render(request: Request, template: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    lang = lang_of(request)
    tr = translations(lang)
    path = request.url.path
    ctx.setdefault("section", next((name for prefix, name in SECTIONS
                                    if path.startswith(prefix)), "matches"))
    html = ENV.get_template(template).render(
        lang=lang, _=tr.gettext, static=static_url,
        languages=[(c, language_name(c)) for c in languages_of(request)], **ctx,
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


def pool_refusal(exc: Busy | OverLimit, lang: str,
                 answer: Callable[[int, str], Response]) -> Response:
    """A worker pool's refusal ``exc`` (:mod:`chukker.web.heavy`) as ``answer(status,
    words)`` makes it: 503 with ``Retry-After`` when the pool is full (:class:`Busy`),
    422 past a worker's limit (:class:`OverLimit`); the words in ``lang`` (en, es, it)."""
    status = 503 if isinstance(exc, Busy) else 422
    resp = answer(status, refusal_message(exc.code, exc.params, lang))
    if isinstance(exc, Busy):
        resp.headers["retry-after"] = str(exc.retry_after)
    return resp


fmt_clock = sheet.fmt_clock

def status_text(rep: dict[str, Any], gettext: Any) -> str:
    """'Period 2 · In play', 'Interval', 'Final' ... in the page's language."""
    status = str(rep["status"])
    text = str(gettext(JS_LABELS.get(status, status)))
    if status in ("in_play", "stopped") and rep.get("period"):
        text = f"{gettext('Period')} {rep['period']} · {text}"
    return text


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
