"""Tournament pages and API, mounted at ``/tournaments``.

* ``POST /tournaments/api`` (organiser): upload a tournament file (TOML or JSON text);
  every scheduled match whose teams are known becomes a live match of the live
  service, with the timekeeper token of its arena (one per arena, so an arena's
  console moves on to its next match) and the tournament's committee token. Matches
  whose teams are still to be decided (places, winners) become live matches as
  soon as they are known.
* ``GET /tournaments/{id}``: the day's schedule by arena and time with live scores and
  the match now playing on each arena, the pool tables with the reason for each place,
  the bracket (SVG), updated over Server-Sent Events (``/tournaments/{id}/stream``).
* Team pages (roster and handicaps on the day), a QR code per match pointing to its
  phone page, an arena console that follows the arena's matches, and exports
  (``results.json``, ``matches.csv``, ``standings.csv``).

Results come only from the live matches (a ``record`` path in an uploaded file is
ignored: the server never reads files named by a client). Tournaments are kept as
JSON files in ``$CHUKKER_TOURNAMENTS_DIR`` (default ``./chukker-tournaments``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hmac
import json
import os
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Annotated, Any

from babel.dates import format_date, format_datetime
from fastapi import APIRouter, Body, Depends, Header, Request
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from markupsafe import Markup

from chukker.i18n import LANGUAGES, translations
from chukker.live import LiveService, hash_token
from chukker.live.tournaments import (
    LiveTournament,
    TournamentRefused,
    TournamentService,
    arena_slug,
    digest,
    json_default,
    now_playing,
)
from chukker.rules import edition as rules_edition
from chukker.store.base import StoreError
from chukker.tournament.check import check
from chukker.tournament.export import bracket_svg, matches_csv, results_json, standings_csv
from chukker.tournament.model import (
    TeamRef,
    Tournament,
    TournamentError,
    from_dict,
    loads,
    to_datetime,
)
from chukker.tournament.mounts import over_limit
from chukker.tournament.ponyline import next_match, pony_line, string_of
from chukker.tournament.problems import Problem, Subject
from chukker.tournament.records import NotReady, header, match_day
from chukker.tournament.register import team_handicap
from chukker.tournament.schedule import clashes
from chukker.tournament.standings import MatchResult, Played, Standings
from chukker.tournament.words import bold_winner, result_words
from chukker.web import security
from chukker.web.planes import Plane, crowd_elsewhere, serves_crowd
from chukker.web.shared.render import ENV, error_page, lang_of, phone_qr, render, stage_name

router = APIRouter()
POLL_S = 0.5
KEEPALIVE_S = 15.0


# the organiser credential (shared with match creation): Bearer <organiser token>
require_organiser = security.require_organiser


# ------------------------------------------------------------------------ the service
def service_of(request: Request) -> TournamentService:
    """The process's :class:`~chukker.live.tournaments.TournamentService`."""
    svc: TournamentService = request.app.state.tournaments
    return svc


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


def _dir() -> Path:
    """The folder where versions before issue 40 kept the tournaments (imported once)."""
    return Path(os.environ.get("CHUKKER_TOURNAMENTS_DIR") or "chukker-tournaments")


def service(request: Request) -> LiveService:
    svc: LiveService = request.app.state.service
    return svc


def _arena_key(arena: str | None) -> str:
    return arena or ""


# --------------------------------------------------------------------------- live state
async def refresh(request: Request, lt: LiveTournament) -> tuple[Standings, dict[str, Any]]:
    """What the pages show of ``lt``: computed once per change, never written."""
    return await service_of(request).view(lt)


# ------------------------------------------------------------------------------- views
_now_playing = now_playing


def _context(
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
    arenas = _now_playing(lt, s)
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


def _live_html(ctx: dict[str, Any], lang: str) -> str:
    tr = translations(lang)
    return ENV.get_template("tournament/_live.html").render(lang=lang, _=tr.gettext, **ctx)


# ------------------------------------------------------------------------------ stream
def _sse(kind: str, data: dict[str, Any]) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def _payload(lt: LiveTournament, s: Standings, ctx: dict[str, Any], lang: str) -> bytes:
    """One ``standings`` message: the page's live part in ``lang``, the standings, and per
    arena the live match and the tournament match now playing (or next)."""
    return _sse(
        "standings",
        {
            "version": lt.version,
            "html": _live_html(ctx, lang),
            "standings": s.to_json(),
            "arenas": {k: v["live"] for k, v in ctx["arenas"].items()},
            "current": {k: v["current"] for k, v in ctx["arenas"].items()},
            "boards": ctx["boards"],
        },
    )


def stream_payload(lt: LiveTournament, s: Standings, reports: dict[str, dict[str, Any]],
                   lang: str) -> bytes:
    """The service's :data:`~chukker.live.tournaments.Payload`: rendered once per language
    per change, then fanned out as prepared bytes."""
    return _payload(lt, s, _context(None, lt, s, reports, lang), lang)


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


def _bad(request: Request | None, code: str, status: int = 422,
         extra: dict[str, Any] | None = None, *, found: Sequence[Problem] = (),
         **params: Any) -> JSONResponse:
    """A refusal as the match API's (:func:`chukker.live.api_errors.body`): ``code``,
    ``params``, the English ``message``, and ``text``, the same in the caller's language
    (``?lang=``, the cookie, ``Accept-Language``; catalogues ``tournament-refusals.po``).
    ``extra`` are fields beside them (kept for the clients that read them). ``found`` are
    the problems the refusal lists: the answer's ``problems`` (see :func:`problems_json`);
    a ``problems`` param holds their English lines, and ``text`` says them in the
    caller's language."""
    from chukker.live.api_errors import body
    from chukker.web.refusals import refusal_message

    lang = lang_of(request) if request is not None else "en"
    data = body(code, params, refusal_message(code, params, "en"), **(extra or {}))
    listed = problems_json(found, lang)
    if found or "problems" in data:
        data["problems"] = listed
    said = _in_language(params, {x["message"]: x["text"] for x in listed})
    data["text"] = refusal_message(code, said, lang)
    return JSONResponse(data, status_code=status)


#: a refusal found in a worker process: its code and params (the server says it)
Refusal = tuple[str, dict[str, Any]]


def _parse_upload(body: dict[str, Any]) -> Tournament | Refusal:
    try:
        if isinstance(body.get("tournament"), dict):
            return from_dict(body["tournament"])
        text = body.get("text")
        if not isinstance(text, str):
            return ("bad_tournament", {})
        is_json = body.get("format") == "json" or text.lstrip().startswith("{")
        return loads(text, "json" if is_json else "toml")
    except TournamentError as e:
        return ("unreadable_tournament", {"detail": str(e), "line": e.line, "column": e.column,
                                          "cause": e.cause})


#: the problems a refusal lists at most: a file with more gets the first ones and a line
#: saying how many more (``chukker tournament check`` lists them all). The answer stays
#: small, and the event loop renders (in two languages) a bounded list.
MAX_LISTED = 100


def capped(found: list[Problem]) -> list[Problem]:
    """At most :data:`MAX_LISTED` problems, then one saying how many more."""
    if len(found) <= MAX_LISTED:
        return found
    more = Problem.of(Subject.of("tournament"), "more_problems", count=len(found) - MAX_LISTED)
    return [*found[:MAX_LISTED], more]


def _parse_and_check(body: dict[str, Any]) -> Refusal | Tournament:
    """The upload parsed and checked (the pairings come later): the tournament, or the
    refusal (``tournament_problems`` with at most :data:`MAX_LISTED` problems + 1)."""
    t = _parse_upload(body)
    if isinstance(t, tuple):
        return t
    found = [p for p in check(t, {}) if p.code not in ("pair_missing",)]
    if not found:
        return t
    return ("tournament_problems", {"found": capped(found)})


def _may_update(request: Request, lt: LiveTournament) -> bool:
    """Who may update a tournament by uploading it again: the organiser (their token, not
    just an open server) or the tournament's committee."""
    presented = security.bearer(request.headers.get("authorization"))
    if presented is None:
        return False
    organiser = getattr(request.app.state, "organiser", None)
    token = getattr(organiser, "token", None)
    if token is not None and hmac.compare_digest(presented.encode(), str(token).encode()):
        return True
    return hmac.compare_digest(hash_token(presented), lt.committee_hash)


_STATUS = {"tournament_exists": 409, "match_started": 409, "store_unavailable": 503}


def refused(request: Request, e: TournamentRefused) -> JSONResponse:
    """The service's refusal as the API answers it (its link, its problems)."""
    extra = dict(e.extra)
    params = dict(e.params)
    if "tournament_id" in extra:
        url = _tournaments_base(request) + f"/{extra['tournament_id']}"
        extra["url"] = url
        params["url"] = url
        extra.setdefault("problems", [])
    if e.code == "store_unavailable":
        extra["retry_after"] = 1
    found = capped(e.found)
    return _bad(request, e.code, _STATUS.get(e.code, 422), extra, found=found, **params)


def _tournaments_base(request: Request, plane: Plane = Plane.PUBLIC) -> str:
    """``/tournaments`` on ``plane``'s address, for the organiser's own answers (never
    cached): the plane's URL setting, else its port on the host the request named; one
    process serving both planes answers with its own address."""
    state = request.app.state
    if getattr(state, "plane", Plane.BOTH) == Plane.BOTH:
        return str(request.base_url).rstrip("/") + "/tournaments"
    base: str = state.addresses.base(plane, request.headers.get("host", ""), request.url.scheme)
    return base + "/tournaments"


@router.post("/api", status_code=201, dependencies=[Depends(require_organiser)])
async def create_tournament(
    request: Request,
    body: Annotated[
        dict[str, Any], Body(description='{"text": TOML or JSON} or {"tournament": {...}}')
    ],
) -> Response:
    """Create a live tournament; answers its committee token and one token per arena.

    The same tournament again (same name, venue and year, see :func:`identity`) updates
    it (200, ``"updated": true``) for the organiser's token or the tournament's committee
    token: its id, committee token and arena tokens stay, and a token is given only for
    an arena that is new. Anyone else (an open server) is refused with its link (409)."""
    from chukker.web.heavy import Kind, pools_of
    from chukker.web.security import client_address

    # parsed and checked in the imports pool (web/heavy.py), never on the event loop
    parsed = await pools_of(request.app.state).run(
        Kind.IMPORTS, client_address(request), _parse_and_check, [body])
    if isinstance(parsed, tuple):
        code, params = parsed
        if code == "tournament_problems":
            found: list[Problem] = params["found"]
            return _bad(request, code, 422, found=found, problems=[str(p) for p in found])
        return _bad(request, code, 422, {k: params[k] for k in ("line", "column") if k in params},
                    **params)
    t = parsed
    try:
        up = await service_of(request).upload(t, lambda lt: _may_update(request, lt))
    except TournamentRefused as e:
        return refused(request, e)
    except StoreError as e:
        return _bad(request, "store_unavailable", 503, {"retry_after": 5}, reason=str(e)[:200])
    lt, tid = up.lt, up.lt.id
    base = _tournaments_base(request)
    officials = _tournaments_base(request, Plane.OFFICIALS)
    return JSONResponse(
        {
            "tournament_id": tid,
            "updated": up.updated,
            "committee_token": up.committee_token,
            "arenas": {
                a: {
                    "token": tk,
                    "kept": tk is None,
                    # the console on the officials' address, the big screen on the public
                    "console": f"{officials}/{tid}/arena/{_slug(a)}/console"
                    + (f"#token={tk}" if tk is not None else ""),
                    "display": f"{base}/{tid}/arena/{_slug(a)}/display",
                }
                for a, tk in up.arena_tokens.items()
            },
            "matches": lt.live,
            "urls": {
                "page": f"{base}/{tid}",
                "standings": f"{base}/{tid}/standings.json",
                "stream": f"{base}/{tid}/stream",
            },
        },
        status_code=200 if up.updated else 201,
        headers={"cache-control": "no-store"},
    )


_slug = arena_slug


async def _get(request: Request, tid: str) -> LiveTournament | None:
    return await service_of(request).find(tid)


@router.get("", response_class=HTMLResponse)
@router.get("/", response_class=HTMLResponse)
async def index(request: Request) -> Response:
    items = [
        {
            "id": lt.id,
            "name": lt.t.name,
            "venue": lt.t.venue,
            "teams": len(lt.t.teams),
            "matches": len(lt.t.matches),
        }
        for lt in await service_of(request).loaded_all()
    ]
    return render(request, "tournament/index.html", tournaments=items)


async def _season(request: Request) -> Any:
    """The season of every tournament this server holds, from the live matches (computed
    off the event loop; reused while no match of any tournament changed)."""
    from chukker.tournament.season import SeasonTournament, add_headers, season

    items = []
    for lt in await service_of(request).loaded_all():
        s, reports = await refresh(request, lt)
        items.append((lt, s, reports))
    key = tuple((lt.id, lt.seq, id(lt.t), digest(reports)) for lt, _s, reports in items)
    # the last season computed (what it was made from, the season), kept with the app
    hit = getattr(request.app.state, "season_cache", None)
    if hit is not None and hit[0] == key:
        return hit[1]

    def build() -> Any:
        sts = []
        for lt, s, _reports in items:
            headers: dict[str, Any] = {}
            add_headers(lt.t, s, headers)
            sts.append(SeasonTournament(lt.id, lt.t, s, headers))
        return season(sts)

    got = await asyncio.to_thread(build)
    request.app.state.season_cache = (key, got)
    return got


@router.get("/season", response_class=HTMLResponse)
async def season_page(request: Request) -> Response:
    """The season: results, a roll of honour per tournament, goals per player and
    penalties per player and per clause, derived from the records (anyone may read it)."""
    sn = await _season(request)
    tr = translations(lang_of(request))
    results: list[tuple[str, list[dict[str, Any]]]] = []
    for st in sn.tournaments:
        rows = []
        for r in st.standings.matches:
            m = st.t.matches[r.id]
            bold = bold_winner(r.winner, r.forfeited) if r.final else None
            rows.append(
                {
                    "match": r.id,
                    "stage": r.stage,
                    "date": m.start.date().isoformat() if m.start else "",
                    "time": m.start.strftime("%H:%M") if m.start else "",
                    "arena": m.arena or "",
                    "team_a": st.t.team_name(r.teams[0]) if r.teams[0]
                    else ref_label(m.teams[0], lang_of(request)),
                    "team_b": st.t.team_name(r.teams[1]) if r.teams[1]
                    else ref_label(m.teams[1], lang_of(request)),
                    "bold": "a" if bold and bold == r.teams[0] else "b" if bold else None,
                    "result": result_of(st.t, r, tr.gettext),
                    "status": r.status,
                }
            )
        results.append((st.t.name, rows))
    return render(
        request,
        "tournament/season.html",
        honours=[(h, st.id) for h, st in zip(sn.honours, sn.tournaments, strict=True)],
        results=results,
        goals=sn.goals,
        penalties=sn.penalties,
        clauses=sn.clauses,
        status_labels=STATUS_LABELS,
    )


@router.get("/season.csv")
async def season_csv_export(request: Request) -> Response:
    """``chukker season export`` of this server's tournaments: one CSV line per match."""
    from chukker.tournament.season import season_csv

    sn = await _season(request)
    return PlainTextResponse(
        season_csv(sn.rows),
        media_type="text/csv",
        headers={"content-disposition": 'attachment; filename="season.csv"'},
    )


@router.get("/{tid}", response_class=HTMLResponse)
async def show(request: Request, tid: str) -> Response:
    lt = await _get(request, tid)
    if lt is None:
        return error_page(request, 404, f"no tournament {tid}")
    s, reports = await refresh(request, lt)
    lang = lang_of(request)
    ctx = _context(request, lt, s, reports, lang)
    return render(request, "tournament/show.html", live_html=Markup(_live_html(ctx, lang)), **ctx)


@router.post("/{tid}/api/matches/{mid}")
async def edit_slot(
    request: Request,
    tid: str,
    mid: str,
    body: Annotated[
        dict[str, Any],
        Body(description='{"start": "2026-12-05T15:00", "arena": "Arena 2"} (either or both)'),
    ],
    authorization: Annotated[str | None, Header()] = None,
) -> Response:
    """The committee moves a match to another slot or arena (committee token)."""
    lt = await _get(request, tid)
    if lt is None or mid not in lt.t.matches:
        return _bad(request, "unknown_match", 404, match_id=mid)
    token = security.bearer(authorization)
    if token is None:  # the declared 401: no token at all (a wrong one is a 403)
        resp = _bad(request, "no_token", 401)
        resp.headers["www-authenticate"] = "Bearer"
        return resp
    if not hmac.compare_digest(hash_token(token), lt.committee_hash):
        return _bad(request, "bad_token", 403)
    start = None
    if "start" in body:
        start = to_datetime(body["start"])
        if start is None:
            return _bad(request, "bad_start", start=repr(body["start"])[:60])
    arena = body.get("arena")
    if arena is not None and (not isinstance(arena, str) or not 0 < len(arena) <= 60):
        return _bad(request, "bad_arena")
    try:
        await service_of(request).move(lt, mid, start, arena)
    except TournamentRefused as e:
        return refused(request, e)
    except StoreError as e:
        return _bad(request, "store_unavailable", 503, {"retry_after": 5}, reason=str(e)[:200])
    return JSONResponse(
        {
            "match": json.loads(json.dumps(lt.t.matches[mid].to_dict(), default=json_default)),
            "live": lt.live.get(mid),
            "clashes": clashes(lt.t),
        }
    )


@router.get("/{tid}/standings.json")
async def standings_json(request: Request, tid: str) -> Response:
    lt = await _get(request, tid)
    if lt is None:
        return _bad(request, "unknown_tournament", 404, tournament_id=tid)
    s, _ = await refresh(request, lt)
    return JSONResponse(s.to_json())


@router.get("/{tid}/results.json")
async def export_json(request: Request, tid: str) -> Response:
    lt = await _get(request, tid)
    if lt is None:
        return _bad(request, "unknown_tournament", 404, tournament_id=tid)
    s, _ = await refresh(request, lt)
    doc = results_json(lt.t, s)
    for mj in doc["matches"]:
        mj["live"] = lt.live.get(mj["id"])
    return JSONResponse(doc)


@router.get("/{tid}/{what}.csv")
async def export_csv(request: Request, tid: str, what: str) -> Response:
    lt = await _get(request, tid)
    if lt is None or what not in ("matches", "standings"):
        return _bad(request, "unknown_tournament", 404, tournament_id=tid)
    s, _ = await refresh(request, lt)
    text = matches_csv(lt.t, s) if what == "matches" else standings_csv(s)
    return PlainTextResponse(
        text,
        media_type="text/csv",
        headers={"content-disposition": f'attachment; filename="{tid}-{what}.csv"'},
    )


@router.get("/{tid}/bracket.svg")
async def bracket(request: Request, tid: str) -> Response:
    lt = await _get(request, tid)
    if lt is None:
        return _bad(request, "unknown_tournament", 404, tournament_id=tid)
    s, _ = await refresh(request, lt)
    names = {x: tm.name for x, tm in lt.t.teams.items()}
    lang = lang_of(request)
    svg = bracket_svg(
        lt.t,
        s,
        names,
        label=lambda ref: ref_label(ref, lang),
        gettext=translations(lang).gettext,
        stage_label=lambda sid: stage_name(sid, translations(lang).gettext),
    )
    return Response(svg, media_type="image/svg+xml")


@router.get("/{tid}/qr/{mid}.svg")
async def qr(request: Request, tid: str, mid: str) -> Response:
    """A QR code of the match's phone page (for the big screen and the score sheet)."""
    import io

    import segno

    lt = await _get(request, tid)
    if lt is None or mid not in lt.live:
        return _bad(request, "unknown_match", 404, match_id=mid)
    url = security.public_link(request, f"/m/{lt.live[mid]}")  # never the request's Host
    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="svg", scale=4, border=2, title=f"{lt.t.name}: {mid}")
    return Response(buf.getvalue(), media_type="image/svg+xml")


@router.get("/{tid}/matches/{mid}", response_class=HTMLResponse)
async def match_card(request: Request, tid: str, mid: str) -> Response:
    """A match's card for printing beside the score sheet: stage, arena, time, rosters
    and handicaps on the day, result, and the QR code of the match's phone page."""
    lt = await _get(request, tid)
    if lt is None or mid not in lt.t.matches:
        return error_page(request, 404, f"no match {mid}")
    s, _ = await refresh(request, lt)
    m, r = lt.t.matches[mid], s.match(mid)
    teams = []
    try:
        rec = header(lt.t, m, r.teams)
        teams = [rec["teams"]["A"], rec["teams"]["B"]]
    except NotReady:
        pass
    live = lt.live.get(mid)
    qr_svg = phone_qr(request, live)["qr_svg"] if live is not None else None
    return render(
        request,
        "tournament/match.html",
        tid=tid,
        t=lt.t,
        m=m,
        r=r,
        teams=teams,
        live=live,
        qr_svg=qr_svg,
        status_labels=STATUS_LABELS,
        refs=[ref_label(ref, lang_of(request)) for ref in m.teams],
        result=result_of(lt.t, r, translations(lang_of(request)).gettext),
    )


@router.get("/{tid}/teams/{team}", response_class=HTMLResponse)
async def team_page(request: Request, tid: str, team: str) -> Response:
    lt = await _get(request, tid)
    if lt is None or team not in lt.t.teams:
        return error_page(request, 404, f"no team {team}")
    s, _ = await refresh(request, lt)
    tm = lt.t.teams[team]
    days = sorted(
        {
            match_day(lt.t, m)
            for m in lt.t.matches.values()
            if m.start is not None and team in s.match(m.id).teams
        }
    )
    roster = []
    for role, ids in (("player", tm.players), ("alternate", tm.alternates)):
        for i, pid in enumerate(ids, 1):
            p = lt.t.players.get(pid)
            roster.append(
                {
                    "no": i if role == "player" else None,
                    "role": role,
                    "name": p.name if p else pid,
                    "captain": pid == tm.captain,
                    "hcps": [p.handicap_on(d) if p else None for d in days],
                }
            )
    totals = [team_handicap(tm, lt.t.players, d) for d in days]
    matches = [m for m in s.matches if team in m.teams]
    names = {x: t2.name for x, t2 in lt.t.teams.items()}
    reports = (lt.last or (None, {}))[1]
    played = {mid: Played(("A", "B"), rep) for mid, rep in reports.items()}
    return render(
        request,
        "tournament/team.html",
        lives=lt.live,  # each match's groom's page (issue 42)
        over=over_limit(lt.t, played, s, team),
        has_mounts=bool(tm.mounts),
        tid=tid,
        t=lt.t,
        team=tm,
        roster=roster,
        days=days,
        totals=totals,
        matches=matches,
        results={
            m.id: result_of(lt.t, m, translations(lang_of(request)).gettext) for m in matches
        },
        names=names,
    )


def _local_now(request: Request) -> dt.datetime:
    """The live service's clock as the venue's local time (the schedule's times are local)."""
    return dt.datetime.fromtimestamp(service(request).clock.now_ms() / 1000)


def pony_context(
    lt: LiveTournament, s: Standings, reports: dict[str, dict[str, Any]], team: str,
    now: dt.datetime, lang: str = "en",
) -> dict[str, Any]:
    """What the grooms' page shows (issue 25): the next match and its estimated start, per
    player the mounts ridden today with their periods, and those out."""
    t = lt.t
    nm = next_match(t, s, reports, team, now)
    day = nm.scheduled.date() if nm is not None and nm.scheduled is not None else now.date()
    played = {mid: Played(("A", "B"), rep) for mid, rep in reports.items()}
    late = None
    if nm is not None and nm.estimated is not None and nm.scheduled is not None:
        late = round((nm.estimated - nm.scheduled).total_seconds() / 60)
    # issue 30: the match by its teams' names and a dated, localized time, never its id;
    # while it is played, every horse of the string as the groom's page shows it
    teams_words = when_words = None
    horses: list[dict[str, Any]] = []
    if nm is not None:
        pair = s.match(nm.match).teams
        teams_words = " v ".join(t.team_name(x) if x else "?" for x in pair)
        at = nm.estimated or nm.scheduled
        if at is not None:
            when_words = format_datetime(at, "EEEE d MMM HH:mm", locale=lang)
        rep = reports.get(nm.match)
        if nm.playing and rep is not None:
            tm = t.teams[team]
            names = {k: (t.players[p].name if p in t.players else p)
                     for k, p in enumerate([*tm.players, *tm.alternates], 1)}
            ed = rules_edition(t.rules)
            horses = string_of(rep, "A" if pair[0] == team else "B", names,
                               ed.plan(str(t.match_options.get("periods", "regulation"))),
                               ed.split_after_ms.value, now)
    players = pony_line(t, s, played, team, day)
    if not horses:  # between matches: the whole string, as the day left it
        done = {m["mount"]: m for p in players if p["no"] is not None for m in p["mounts"]}
        for m in t.teams[team].mounts:
            d = done.get(m.id)
            horses.append({"mount": m.id, "name": m.name or m.id, "periods": [], "players": [],
                           "state": (d.get("out") or "resting") if d else "waiting",
                           "reason": d.get("reason") if d else None})
    return {
        "day_words": format_date(day, "EEEE d MMM", locale=lang),
        "teams_words": teams_words,
        "when_words": when_words,
        "horses": horses,
        "team": t.teams[team],
        "next": nm,
        "late": late,
        "opponent": t.team_name(nm.opponent) if nm is not None and nm.opponent else None,
        "day": day,
        "players": players,
        "over": [x for x in over_limit(t, played, s, team) if x["day"] == day.isoformat()],
        "now": now,
    }


@router.get("/{tid}/teams/{team}/mounts", response_class=HTMLResponse)
async def pony_line_page(request: Request, tid: str, team: str) -> Response:
    """The pony line for a team's grooms, on a phone: anonymous and read-only; it reads the
    tournament's own state only (no path or file from the request) and updates from the
    tournament's stream, so it adds no work to the matches' events, horns or fan-out."""
    lt = await _get(request, tid)
    if lt is None or team not in lt.t.teams:
        return error_page(request, 404, f"no team {team}")
    s, reports = await refresh(request, lt)
    ctx = pony_context(lt, s, reports, team, _local_now(request), lang_of(request))
    template = "tournament/_mounts.html" if request.query_params.get("part") else (
        "tournament/mounts.html")
    resp = render(request, template, tid=tid, t=lt.t, **ctx)
    resp.headers["cache-control"] = "no-store"
    return resp


@router.get("/{tid}/arena/{slug}/{view}", response_class=HTMLResponse)
async def arena_view(request: Request, tid: str, slug: str, view: str) -> Response:
    """An arena's timekeeper console (``console``) or big screen (``display``, with the
    QR code of the match's phone page): follows the arena's matches in turn."""
    lt = await _get(request, tid)
    if lt is None or view not in ("console", "display"):
        return error_page(request, 404, f"no tournament {tid}")
    arena = next((a for a in lt.arena_hash if a and _slug(a) == slug), None)
    if arena is None:
        return error_page(request, 404, f"no arena {slug}")
    s, reports = await refresh(request, lt)
    now = _now_playing(lt, s).get(arena, {})
    resp = render(
        request,
        "tournament/arena.html",
        tid=tid,
        t=lt.t,
        arena=arena or "-",
        arena_key=arena,
        live=now.get("live"),
        current=now.get("current"),
        view=view,
        board=_context(request, lt, s, reports, lang_of(request))["boards"].get(arena),
    )
    resp.headers["cache-control"] = "no-store"
    return resp


@router.get("/{tid}/stream")
async def stream(request: Request, tid: str) -> Response:
    """The tournament's live part as Server-Sent Events: one ``standings`` message now,
    then one per change, through the live fan-out (rendered once per language)."""
    from chukker.web.api.routes import _Stream

    tsvc = service_of(request)
    lt = await _get(request, tid)
    if lt is None:
        return _bad(request, "unknown_tournament", 404, tournament_id=tid)
    if not serves_crowd(request.app.state) and not tsvc.may_follow(
            lt, security.bearer(request.headers.get("authorization"))
            or request.query_params.get("token")):
        return crowd_elsewhere(request)  # the officials' plane: the crowd's stream is public
    lang = lang_of(request)
    lang = lang if lang in LANGUAGES else "en"
    s, reports = await refresh(request, lt)
    first = stream_payload(lt, s, reports, lang)
    # the live streams' caps (per address and in total) count these streams too
    caps = getattr(request.app.state, "streams", None)
    address = security.client_address(request)
    if caps is not None and not caps.acquire(address, False):
        return _bad(request, "too_many_streams", 503, {"retry_after": 5}, retry_after=5)
    sub = tsvc.subscribe(lt, lang)
    released = False

    def release() -> None:
        nonlocal released
        if not released:
            released = True
            tsvc.unsubscribe(lt, lang, sub)
            if caps is not None:
                caps.release(address)

    sub.on_drop = release

    async def messages() -> AsyncIterator[bytes]:
        try:
            yield b"retry: 1000\n\n" + first
            queue = sub.queue
            while True:
                msg = await queue.get()
                if not msg and sub.dropped:
                    return
                if msg:
                    yield msg
        finally:
            release()

    return _Stream(messages(), release, sub, [first.decode()], service(request).leaving,
                   media_type="text/event-stream",
                   headers={"cache-control": "no-cache", "x-accel-buffering": "no"})
