"""A tournament as both planes show it: its live part (schedule, standings, arenas' boards)
rendered once per language per change, its refusals in the caller's language, and its
stream (``GET /tournaments/{tid}/stream``: the public's page and the arena consoles
follow it)."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from babel.dates import format_datetime
from fastapi import APIRouter, Request
from fastapi.responses import (
    JSONResponse,
    Response,
)
from markupsafe import Markup

from chukker.i18n import LANGUAGES, translations
from chukker.live import LiveService
from chukker.live.fanout import sse
from chukker.live.tournaments import (
    LiveTournament,
    TournamentService,
    now_playing,
)
from chukker.tournament.export import bracket_svg
from chukker.tournament.model import (
    TeamRef,
    Tournament,
)
from chukker.tournament.problems import Problem
from chukker.tournament.standings import MatchResult, Standings
from chukker.tournament.words import bold_winner, result_words
from chukker.web import security
from chukker.web.api.routes import event_stream
from chukker.web.planes import crowd_elsewhere, serves_crowd
from chukker.web.shared.render import ENV, lang_of, stage_name
from chukker.web.state import state_of

router = APIRouter()

# ------------------------------------------------------------------------ the service
def service_of(request: Request) -> TournamentService:
    """The process's :class:`~chukker.live.tournaments.TournamentService`."""
    return state_of(request.app).tournaments


def ref_label(ref: TeamRef, lang: str) -> str:
    """A slot whose team is not known yet, in words: "Pool A, place 1", "Winner of s1"."""
    from chukker.web.shared.render import stage_name

    tr = translations(lang)
    if ref.team is not None:
        return ref.team
    if ref.stage is not None:
        return tr.gettext("%(stage)s, place %(place)s") % {
            "stage": stage_name(ref.stage, tr.gettext), "place": ref.place}
    if ref.winner_of is not None:
        return tr.gettext("Winner of %(match)s") % {"match": ref.winner_of}
    return tr.gettext("Loser of %(match)s") % {"match": ref.loser_of}


def result_of(t: Tournament, r: MatchResult, gettext: Any) -> str | None:
    """A match's result in words in the page's language: "both forfeited", "Reds
    forfeited", else the score ("7–3"); ``None`` before it starts."""
    names = [t.team_name(x) if x else "?" for x in r.teams]
    forf = [t.team_name(x) for x in r.forfeited] if r.final else []
    return result_words(r.status, r.score, None, forf, names, gettext)


def tournaments_dir(configured: Path | None = None) -> Path:
    """The folder where versions before issue 40 kept the tournaments (imported once):
    ``configured`` (setting ``tournaments_dir``), else ``$CHUKKER_TOURNAMENTS_DIR``."""
    if configured is not None:
        return configured
    return Path(os.environ.get("CHUKKER_TOURNAMENTS_DIR") or "chukker-tournaments")


def service(request: Request) -> LiveService:
    return state_of(request.app).service


# --------------------------------------------------------------------------- live state
async def refresh(request: Request, lt: LiveTournament) -> tuple[Standings, dict[str, Any]]:
    """What the pages show of ``lt``: computed once per change, never written."""
    return await service_of(request).view(lt)


def page_context(
    request: Request | None,
    lt: LiveTournament,
    s: Standings,
    reports: dict[str, dict[str, Any]],
    lang: str,
) -> dict[str, Any]:
    t = lt.t
    names = {tid: tm.name for tid, tm in t.teams.items()}
    rows: list[dict[str, Any]] = []
    gettext = translations(lang).gettext
    for m in sorted(
        t.matches.values(), key=lambda m: (m.start or dt.datetime.max, m.arena or "", m.id)
    ):
        r = s.match(m.id)
        rep = reports.get(m.id, {})
        clock = rep.get("clock", {}).get("remaining_ms")
        words = result_of(t, r, gettext)
        rows.append(
            {
                "id": m.id,
                "stage": m.stage,
                "arena": m.arena or "",
                "start": (format_datetime(m.start, "EEE d MMM HH:mm", locale=lang)
                          if m.start else ""),
                "day": m.start.date().isoformat() if m.start else "",
                "teams": [
                    (x, names.get(x, x) if x else ref_label(ref, lang))
                    for x, ref in zip(r.teams, m.teams, strict=True)
                ],
                "score": r.score,
                "result": words,
                "forfeit": r.final and bool(r.forfeited),
                "winner": bold_winner(r.winner, r.forfeited),
                "status": r.status,
                "period": rep.get("period"),
                "live": lt.live.get(m.id),
                "clock": None if clock is None else f"{clock // 60000}:{clock // 1000 % 60:02d}",
            }
        )
    arenas = now_playing(lt, s)
    tr = translations(lang)

    def reason_text(rs: Any) -> str:
        a, b = names.get(rs.above, rs.above), names.get(rs.below, rs.below)
        crit = tr.gettext(CRITERIA_LABELS.get(rs.criterion, rs.criterion))
        if rs.values is None:
            return tr.gettext("%(a)s above %(b)s: %(criterion)s") % {
                "a": a,
                "b": b,
                "criterion": crit,
            }
        if rs.criterion == "head_to_head":
            among = ", ".join(names.get(x, x) for x in rs.among)
            return tr.gettext(
                "%(a)s above %(b)s: %(criterion)s among %(among)s, %(x)s to %(y)s"
            ) % {
                "a": a,
                "b": b,
                "criterion": crit,
                "among": among,
                "x": rs.values[0],
                "y": rs.values[1],
            }
        return tr.gettext("%(a)s above %(b)s: %(criterion)s %(x)s to %(y)s") % {
            "a": a,
            "b": b,
            "criterion": crit,
            "x": rs.values[0],
            "y": rs.values[1],
        }

    pools = []
    for st in s.stages:
        if st.kind != "round-robin":
            continue
        waiting_teams = {x for w in st.waiting for x in w.teams}
        by_place: dict[int, list[str]] = {}
        for row in st.table:
            by_place.setdefault(row.place, []).append(row.team)
        shared = [
            tr.gettext("%(teams)s share place %(place)s: equal on every criterion")
            % {"teams": ", ".join(names.get(x, x) for x in tied), "place": place}
            for place, tied in by_place.items()
            if len(tied) > 1 and not set(tied) & waiting_teams
        ]
        forfeits = [
            f"{r.id}: {names.get(r.teams[0] or '', '?')} – {names.get(r.teams[1] or '', '?')}: "
            + (result_of(t, r, gettext) or "")
            for r in (s.match(mid) for mid in st.matches)
            if r.final and r.forfeited
        ]
        pools.append(
            {
                "id": st.id,
                "complete": st.complete,
                "table": st.table,
                "forfeits": forfeits,
                "reasons": [reason_text(x) for x in st.reasons] + shared,
                "waiting": [
                    (
                        ", ".join(names.get(x, x) for x in w.teams),
                        tr.gettext(CRITERIA_LABELS.get(w.by, w.by)),
                    )
                    for w in st.waiting
                ],
            }
        )
    by_id = {r["id"]: r for r in rows}
    boards: dict[str, dict[str, Any]] = {}
    for arena, a in arenas.items():
        cur, nxt = by_id.get(a["current"] or ""), by_id.get(a["next"] or "")
        rep = reports.get(a["current"] or "", {})
        boards[arena] = {
            "arena": arena,
            "match": a["current"],
            "live": a["live"],
            "teams": [n for _x, n in cur["teams"]] if cur else None,
            "start": cur["start"] if cur else None,
            "score": cur["score"] if cur else None,
            "status": cur["status"] if cur else None,
            "status_text": tr.gettext(STATUS_LABELS.get(cur["status"], cur["status"]))
            if cur
            else tr.gettext("no more matches"),
            "period": rep.get("period"),
            "clock": rep.get("clock"),
            "server_time": rep.get("server_time"),
            "next": {"teams": [n for _x, n in nxt["teams"]], "start": nxt["start"]}
            if nxt
            else None,
        }
    svg = bracket_svg(
        t,
        s,
        names,
        link=None,
        label=lambda ref: ref_label(ref, lang),
        gettext=gettext,
        stage_label=lambda sid: stage_name(sid, tr.gettext),
        caption=tr.gettext("Bracket"),
    )
    return {
        "tid": lt.id,
        "t": t,
        "rows": rows,
        "pools": pools,
        "names": names,
        "arenas": arenas,
        "bracket": Markup(svg) if "bm" in svg else None,
        "criteria": CRITERIA_LABELS,
        "boards": boards,
        "status_labels": STATUS_LABELS,
        "version": lt.version,
    }


CRITERIA_LABELS = {
    "wins": "wins",
    "head_to_head": "head-to-head wins",
    "net_goals": "net goals",
    "goals_for": "goals for",
    "goals_against": "goals against",
    "lot": "lot",
    "shootout": "shootout",
}


STATUS_LABELS = {
    "scheduled": "Scheduled",
    "pre_match": "Pre-match",
    "in_play": "In play",
    "stopped": "Clock stopped",
    "interval": "Interval",
    "shootout": "Shootout",
    "final": "Final",
    "refused": "Refused",
    "practice": "Practice",
}


def live_html(ctx: dict[str, Any], lang: str) -> str:
    tr = translations(lang)
    return ENV.get_template("tournament/_live.html").render(lang=lang, _=tr.gettext, **ctx)


# ------------------------------------------------------------------------------ stream
def stream_payload(lt: LiveTournament, s: Standings, reports: dict[str, dict[str, Any]],
                   lang: str) -> bytes:
    """The service's :data:`~chukker.live.tournaments.Payload`: rendered once per language
    per change, then fanned out as prepared bytes."""
    ctx = page_context(None, lt, s, reports, lang)
    # one ``standings`` message: the page's live part in ``lang``, the standings, and per
    # arena the live match and the tournament match now playing (or next)
    return sse("standings", {
        "version": lt.version,
        "html": live_html(ctx, lang),
        "standings": s.to_json(),
        "arenas": {k: v["live"] for k, v in ctx["arenas"].items()},
        "current": {k: v["current"] for k, v in ctx["arenas"].items()},
        "boards": ctx["boards"],
    }, None).encode()


# ------------------------------------------------------------------------------- routes
def problems_json(found: Sequence[Problem], lang: str) -> list[dict[str, Any]]:
    """Each problem as the answers give it: its ``subject`` (a code and an id: team
    ``reds``), ``code``, ``params``, the English line ``message`` (as ``chukker tournament
    check`` prints it) and ``text``, the same line in ``lang`` (``tournament-problems.po``).
    """
    gettext = translations(lang).gettext
    return [
        {
            "subject": p.where.to_json(),
            "code": str(p.code),
            "params": p.params.as_dict(),
            "message": str(p),
            "text": p.said(gettext),
        }
        for p in found
    ]


def _in_language(params: Any, lines: dict[str, str]) -> Any:
    """``params`` with every list of problems (``problems``, in a nested ``cause`` too)
    said in the caller's language: each English line replaced by ``lines[line]``."""
    if isinstance(params, dict):
        return {
            k: [lines.get(x, x) for x in v] if k == "problems" and isinstance(v, list)
            else _in_language(v, lines)
            for k, v in params.items()
        }
    return params


def bad(request: Request | None, code: str, status: int = 422,
         extra: dict[str, Any] | None = None, *, found: Sequence[Problem] = (),
         **params: Any) -> JSONResponse:
    """A refusal as the match API's (:func:`chukker.web.errors.body`): ``code``,
    ``params``, the English ``message``, and ``text``, the same in the caller's language
    (``?lang=``, the cookie, ``Accept-Language``; catalogues ``tournament-refusals.po``).
    ``extra`` are fields beside them (kept for the clients that read them). ``found`` are
    the problems the refusal lists: the answer's ``problems`` (see :func:`problems_json`);
    a ``problems`` param holds their English lines, and ``text`` says them in the
    caller's language."""
    from chukker.web.errors import body
    from chukker.web.refusals import refusal_message

    lang = lang_of(request) if request is not None else "en"
    data = body(code, params, refusal_message(code, params, "en"), **(extra or {}))
    listed = problems_json(found, lang)
    if found or "problems" in data:
        data["problems"] = listed
    said = _in_language(params, {x["message"]: x["text"] for x in listed})
    data["text"] = refusal_message(code, said, lang)
    return JSONResponse(data, status_code=status)


_bad = bad  # the name each tournament module calls it by (tests read the calls)


async def tournament_of(request: Request, tid: str) -> LiveTournament | None:
    """The tournament ``tid`` of this process's service, or ``None``."""
    return await service_of(request).find(tid)


@router.get("/{tid}/stream")
async def stream(request: Request, tid: str) -> Response:
    """The tournament's live part as Server-Sent Events: one ``standings`` message now,
    then one per change, through the live fan-out (rendered once per language)."""
    tsvc = service_of(request)
    lt = await tournament_of(request, tid)
    if lt is None:
        return _bad(request, "unknown_tournament", 404, tournament_id=tid)
    state = state_of(request.app)
    if not serves_crowd(state.plane) and not tsvc.may_follow(
            lt, security.bearer(request.headers.get("authorization"))
            or request.query_params.get("token")):
        # the officials' plane: the crowd's stream is public
        return crowd_elsewhere(request, state.addresses)
    lang = lang_of(request)
    lang = lang if lang in LANGUAGES else "en"
    s, reports = await refresh(request, lt)
    first = stream_payload(lt, s, reports, lang)
    # the live streams' caps (per address and in total) count these streams too
    caps = state.streams
    address = security.client_address(request)
    if not caps.acquire(address, False):
        return _bad(request, "too_many_streams", 503, {"retry_after": 5}, retry_after=5)
    sub = tsvc.subscribe(lt, lang)
    released = False

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            tsvc.unsubscribe(lt, lang, sub)
            caps.release(address)

    sub.on_drop = release
    return event_stream(sub, [first.decode()], release, service(request).leaving)
