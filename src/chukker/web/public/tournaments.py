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
from typing import Any

from babel.dates import format_date, format_datetime
from fastapi import APIRouter, Request
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from markupsafe import Markup

from chukker.i18n import translations
from chukker.live.tournaments import (
    LiveTournament,
    digest,
)
from chukker.rules import edition as rules_edition
from chukker.tournament.export import bracket_svg, matches_csv, results_json, standings_csv
from chukker.tournament.mounts import over_limit
from chukker.tournament.ponyline import next_match, pony_line, string_of
from chukker.tournament.records import NotReady, header, match_day
from chukker.tournament.register import team_handicap
from chukker.tournament.standings import Played, Standings
from chukker.tournament.words import bold_winner
from chukker.web import security
from chukker.web.shared.render import error_page, lang_of, phone_qr, render, stage_name
from chukker.web.shared.tournament_view import (
    STATUS_LABELS,
    live_html,
    page_context,
    ref_label,
    refresh,
    result_of,
    service,
    service_of,
    tournament_of,
)
from chukker.web.shared.tournament_view import (
    bad as _bad,
)
from chukker.web.state import state_of

router = APIRouter()

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
    state = state_of(request.app)
    hit = state.caches.season
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
    state.caches.season = (key, got)
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
    lt = await tournament_of(request, tid)
    if lt is None:
        return error_page(request, 404, f"no tournament {tid}")
    s, reports = await refresh(request, lt)
    lang = lang_of(request)
    ctx = page_context(request, lt, s, reports, lang)
    return render(request, "tournament/show.html", live_html=Markup(live_html(ctx, lang)), **ctx)


@router.get("/{tid}/standings.json")
async def standings_json(request: Request, tid: str) -> Response:
    lt = await tournament_of(request, tid)
    if lt is None:
        return _bad(request, "unknown_tournament", 404, tournament_id=tid)
    s, _ = await refresh(request, lt)
    return JSONResponse(s.to_json())


@router.get("/{tid}/results.json")
async def export_json(request: Request, tid: str) -> Response:
    lt = await tournament_of(request, tid)
    if lt is None:
        return _bad(request, "unknown_tournament", 404, tournament_id=tid)
    s, _ = await refresh(request, lt)
    doc = results_json(lt.t, s)
    for mj in doc["matches"]:
        mj["live"] = lt.live.get(mj["id"])
    return JSONResponse(doc)


@router.get("/{tid}/{what}.csv")
async def export_csv(request: Request, tid: str, what: str) -> Response:
    lt = await tournament_of(request, tid)
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
    lt = await tournament_of(request, tid)
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

    lt = await tournament_of(request, tid)
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
    lt = await tournament_of(request, tid)
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
    lt = await tournament_of(request, tid)
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


def local_now(request: Request) -> dt.datetime:
    """The live service's clock as the venue's local time (the schedule's times are local)."""
    return dt.datetime.fromtimestamp(service(request).clock.now_ms() / 1000)


def ponypage_context(
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
    lt = await tournament_of(request, tid)
    if lt is None or team not in lt.t.teams:
        return error_page(request, 404, f"no team {team}")
    s, reports = await refresh(request, lt)
    ctx = ponypage_context(lt, s, reports, team, local_now(request), lang_of(request))
    template = "tournament/_mounts.html" if request.query_params.get("part") else (
        "tournament/mounts.html")
    resp = render(request, template, tid=tid, t=lt.t, **ctx)
    resp.headers["cache-control"] = "no-store"
    return resp


