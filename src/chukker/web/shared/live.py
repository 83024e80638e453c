"""A match's live context, as the console (``web/officials``) and the spectators'
pages (``web/public``) both render it: its teams, report, clocks by event and words."""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import (
    HTMLResponse,
)

from chukker.i18n import translations
from chukker.live import LiveMatch, Quarantined
from chukker.store import UnknownMatch
from chukker.store.engine import Match, Setup
from chukker.web.api.routes import service
from chukker.web.shared import sheet
from chukker.web.shared.render import JS_LABELS, decided_words, error_page, fmt_clock, lang_of


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


def refusal_templates(lang: str) -> dict[str, str]:
    """Each refusal code's message template in ``lang``, for the console to fill in.

    The engine's templates (``chukker.engine.errors.MESSAGES``) and the API's
    (``chukker.web.errors.MESSAGES``), each translated through the merged
    catalog (``refusals.po``, ``api.po``: msgid = the English template). The console
    fills ``{name}`` from the refusal's ``params``; a refusal whose code is not here
    is shown with its English ``message``.

    >>> isinstance(refusal_templates("es"), dict)
    True
    """
    tr = translations(lang)
    out: dict[str, str] = {}
    from chukker.engine.errors import MESSAGES as ENGINE_MESSAGES
    from chukker.web.errors import MESSAGES as API_MESSAGES

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


def practice_of(header: dict[str, Any]) -> dict[str, Any] | None:
    p = (header.get("options") or {}).get("practice")
    return p if isinstance(p, dict) and p else None


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


