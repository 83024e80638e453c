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
import contextlib
import datetime as dt
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

from babel.dates import format_datetime
from fastapi import APIRouter, Body, Depends, Header, Request
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
    StreamingResponse,
)
from markupsafe import Markup

from chukker.engine.setup import Setup
from chukker.i18n import LANGUAGES, translations
from chukker.live import LiveService, hash_token, new_match_id
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
from chukker.tournament.records import NotReady, header, match_day
from chukker.tournament.register import team_handicap
from chukker.tournament.schedule import clashes, move
from chukker.tournament.standings import Played, Standings, standings
from chukker.web import security
from chukker.web.pages.matches import ENV, error_page, lang_of, phone_qr, render

router = APIRouter()
POLL_S = 0.5
KEEPALIVE_S = 15.0


# the organiser credential (shared with match creation): Bearer <organiser token>
require_organiser = security.require_organiser


# ------------------------------------------------------------------------ the registry
@dataclass(eq=False)
class LiveTournament:
    id: str
    doc: dict[str, Any]
    t: Tournament
    committee_hash: str
    arena_hash: dict[str, str]
    live: dict[str, str] = field(default_factory=dict)
    version: int = 0
    subscribers: set[tuple[asyncio.Queue[bytes], str]] = field(default_factory=set)
    watcher: asyncio.Task[None] | None = None
    digest: Any = None
    last: tuple[Standings, dict[str, dict[str, Any]]] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "doc": self.doc,
            "committee_hash": self.committee_hash,
            "arena_hash": self.arena_hash,
            "live": self.live,
        }


def ref_label(ref: TeamRef, lang: str) -> str:
    """A slot whose team is not known yet, in words: "Pool A, place 1", "Winner of s1"."""
    from chukker.web.pages.matches import stage_name

    tr = translations(lang)
    if ref.team is not None:
        return ref.team
    if ref.stage is not None:
        return tr.gettext("%(stage)s, place %(place)s") % {
            "stage": stage_name(ref.stage), "place": ref.place}
    if ref.winner_of is not None:
        return tr.gettext("Winner of %(match)s") % {"match": ref.winner_of}
    return tr.gettext("Loser of %(match)s") % {"match": ref.loser_of}


def _dir() -> Path:
    return Path(os.environ.get("CHUKKER_TOURNAMENTS_DIR") or "chukker-tournaments")


def _json_default(v: Any) -> Any:
    if isinstance(v, dt.date | dt.datetime):
        return v.isoformat()
    raise TypeError(type(v).__name__)


def _web_tournament(doc: dict[str, Any]) -> Tournament:
    t = from_dict(doc)
    for mid, m in list(t.matches.items()):
        if m.record is not None:
            t.matches[mid] = replace(m, record=None)
    return t


class Registry:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.items: dict[str, LiveTournament] = {}
        self.loaded = False

    def _load_all(self) -> None:
        if self.loaded:
            return
        self.loaded = True
        if not self.folder.is_dir():
            return
        for p in sorted(self.folder.glob("*.json")):
            try:
                d = json.loads(p.read_text(encoding="utf-8"))
                lt = LiveTournament(
                    d["id"],
                    d["doc"],
                    _web_tournament(d["doc"]),
                    d["committee_hash"],
                    d["arena_hash"],
                    d.get("live", {}),
                )
            except (OSError, ValueError, KeyError):
                continue
            self.items[lt.id] = lt

    def all(self) -> list[LiveTournament]:
        self._load_all()
        return list(self.items.values())

    def get(self, tid: str) -> LiveTournament | None:
        self._load_all()
        return self.items.get(tid)

    def save(self, lt: LiveTournament) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{lt.id}.tmp"
        tmp.write_text(json.dumps(lt.to_json(), default=_json_default), encoding="utf-8")
        tmp.replace(self.folder / f"{lt.id}.json")
        self.items[lt.id] = lt


def registry(request: Request) -> Registry:
    state = request.app.state
    reg: Registry | None = getattr(state, "tournaments", None)
    if reg is None:
        reg = Registry(_dir())
        state.tournaments = reg
    return reg


def service(request: Request) -> LiveService:
    svc: LiveService = request.app.state.service
    return svc


def _arena_key(arena: str | None) -> str:
    return arena or ""


# --------------------------------------------------------------------------- live state
async def _reports(svc: LiveService, lt: LiveTournament) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for mid, live_id in lt.live.items():
        try:
            lm = await svc.load(live_id)
        except Exception:  # the store lost it: shown as scheduled
            continue
        out[mid] = svc.report(lm)
    return out


def _standings(lt: LiveTournament, reports: dict[str, dict[str, Any]]) -> Standings:
    played = {
        mid: Played(("A", "B"), rep)
        for mid, rep in reports.items()
        if rep.get("seq", 0) > 0 or rep.get("status") != "pre_match"
    }
    return standings(lt.t, played)


async def _create_live(svc: LiveService, lt: LiveTournament, s: Standings) -> bool:
    """Live matches for every match whose teams are known and has none yet."""
    made = False
    for m in lt.t.matches.values():
        if m.id in lt.live:
            continue
        teams = s.match(m.id).teams
        try:
            rec = header(lt.t, m, teams)
        except NotReady:
            continue
        rec.pop("events", None)
        Setup.from_dict(rec)  # a header made from a checked tournament; the engine agrees
        live_id = new_match_id()
        tk_hash = lt.arena_hash.get(_arena_key(m.arena)) or lt.arena_hash[""]
        await asyncio.to_thread(
            svc.store.create_match, live_id, rec, svc.clock.now_ms(), tk_hash, lt.committee_hash
        )
        lt.live[m.id] = live_id
        made = True
    return made


async def refresh(request: Request, lt: LiveTournament) -> tuple[Standings, dict[str, Any]]:
    svc = service(request)
    async with lt.lock:
        reports = await _reports(svc, lt)
        s = _standings(lt, reports)
        if await _create_live(svc, lt, s):
            registry(request).save(lt)
            reports = await _reports(svc, lt)
            s = _standings(lt, reports)
        lt.last = (s, reports)
        return s, reports


def _digest(reports: dict[str, dict[str, Any]]) -> Any:
    return tuple(
        sorted(
            (k, r.get("seq"), r.get("status"), json.dumps(r.get("score")), r.get("period"))
            for k, r in reports.items()
        )
    )


# ------------------------------------------------------------------------------- views
def _now_playing(lt: LiveTournament, s: Standings) -> dict[str, dict[str, Any]]:
    """Per arena: the match playing now (or next), and the one after it."""
    by_arena: dict[str, list[str]] = {}
    ordered = sorted(lt.t.matches.values(), key=lambda m: (m.start or dt.datetime.max, m.id))
    for m in ordered:
        by_arena.setdefault(_arena_key(m.arena), []).append(m.id)
    out: dict[str, dict[str, Any]] = {}
    for arena, ids in by_arena.items():
        pending = [mid for mid in ids if s.match(mid).status not in ("final", "refused")]
        cur = pending[0] if pending else None
        started = cur is not None and s.match(cur).status not in ("scheduled", "pre_match")
        out[arena] = {
            "current": cur,
            "playing": started,
            "next": pending[1] if len(pending) > 1 else None,
            "live": lt.live.get(cur) if cur else None,
            "slug": _slug(arena),
        }
    return out


def _context(
    request: Request,
    lt: LiveTournament,
    s: Standings,
    reports: dict[str, dict[str, Any]],
    lang: str,
) -> dict[str, Any]:
    t = lt.t
    names = {tid: tm.name for tid, tm in t.teams.items()}
    rows: list[dict[str, Any]] = []
    for m in sorted(
        t.matches.values(), key=lambda m: (m.start or dt.datetime.max, m.arena or "", m.id)
    ):
        r = s.match(m.id)
        rep = reports.get(m.id, {})
        clock = rep.get("clock", {}).get("remaining_ms")
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
                "winner": r.winner,
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
        pools.append(
            {
                "id": st.id,
                "complete": st.complete,
                "table": st.table,
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
    svg = bracket_svg(t, s, names, link=None, caption=tr.gettext("Bracket"))
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


async def _watch(app_request: Request, lt: LiveTournament) -> None:
    """While someone watches: poll the live matches; on any change, recompute and push."""
    try:
        while lt.subscribers:
            s, reports = await refresh(app_request, lt)
            d = _digest(reports)
            if d != lt.digest:
                lt.digest = d
                lt.version += 1
                await _push(app_request, lt, s, reports)
            await asyncio.sleep(POLL_S)
    finally:
        lt.watcher = None


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


async def _push(
    request: Request, lt: LiveTournament, s: Standings, reports: dict[str, dict[str, Any]]
) -> None:
    per_lang: dict[str, bytes] = {}
    for q, lang in list(lt.subscribers):
        if lang not in per_lang:
            ctx = _context(request, lt, s, reports, lang)
            per_lang[lang] = _payload(lt, s, ctx, lang)
        with contextlib.suppress(asyncio.QueueFull):
            q.put_nowait(per_lang[lang])


# ------------------------------------------------------------------------------- routes
def _bad(code: str, message: str, status: int = 422, **extra: Any) -> JSONResponse:
    return JSONResponse(
        {"error": code, "code": code, "params": extra, "message": message, **extra},
        status_code=status,
    )


def _parse_upload(body: dict[str, Any]) -> Tournament | JSONResponse:
    try:
        if isinstance(body.get("tournament"), dict):
            return from_dict(body["tournament"])
        text = body.get("text")
        if not isinstance(text, str):
            return _bad("bad_tournament", 'send {"text": <TOML or JSON>} or {"tournament": {...}}')
        is_json = body.get("format") == "json" or text.lstrip().startswith("{")
        return loads(text, "json" if is_json else "toml")
    except TournamentError as e:
        return _bad("unreadable_tournament", str(e), line=e.line, column=e.column)


def _parse_and_check(body: dict[str, Any]) -> JSONResponse | tuple[Tournament, list[Any]]:
    """The upload parsed and checked (the pairings come later)."""
    t = _parse_upload(body)
    if isinstance(t, JSONResponse):
        return t
    return t, [p for p in check(t, {}) if p.code not in ("pair_missing",)]


@router.post("/api", status_code=201, dependencies=[Depends(require_organiser)])
async def create_tournament(
    request: Request,
    body: Annotated[
        dict[str, Any], Body(description='{"text": TOML or JSON} or {"tournament": {...}}')
    ],
) -> Response:
    """Create a live tournament; answers its committee token and one token per arena."""
    from chukker.web.heavy import Kind, pools_of
    from chukker.web.security import client_address

    # parsed and checked in the imports pool (web/heavy.py), never on the event loop
    parsed = await pools_of(request.app.state).run(
        Kind.IMPORTS, client_address(request), _parse_and_check, [body])
    if isinstance(parsed, JSONResponse):
        return parsed
    t, problems = parsed
    if problems:
        return _bad(
            "tournament_problems",
            "; ".join(map(str, problems)),
            problems=[str(p) for p in problems],
        )
    for mid, m in list(t.matches.items()):
        if m.record is not None:
            t.matches[mid] = replace(m, record=None)
    tid = secrets.token_hex(4)
    committee = secrets.token_urlsafe(24)
    arenas = sorted({_arena_key(m.arena) for m in t.matches.values()} | {""})
    tokens = {a: secrets.token_urlsafe(24) for a in arenas}
    doc = json.loads(json.dumps(t.to_dict(), default=_json_default))
    lt = LiveTournament(
        tid, doc, t, hash_token(committee), {a: hash_token(tk) for a, tk in tokens.items()}
    )
    reg = registry(request)
    reg.save(lt)
    await refresh(request, lt)
    reg.save(lt)
    base = str(request.base_url).rstrip("/") + "/tournaments"
    return JSONResponse(
        {
            "tournament_id": tid,
            "committee_token": committee,
            "arenas": {
                a or "-": {
                    "token": tk,
                    "console": f"{base}/{tid}/arena/{_slug(a)}/console#token={tk}",
                }
                for a, tk in tokens.items()
            },
            "matches": lt.live,
            "urls": {
                "page": f"{base}/{tid}",
                "standings": f"{base}/{tid}/standings.json",
                "stream": f"{base}/{tid}/stream",
            },
        },
        status_code=201,
        headers={"cache-control": "no-store"},
    )


def _slug(arena: str) -> str:
    return hashlib.sha1(arena.encode()).hexdigest()[:8] if arena else "-"


def _get(request: Request, tid: str) -> LiveTournament | None:
    return registry(request).get(tid)


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
        for lt in registry(request).all()
    ]
    return render(request, "tournament/index.html", tournaments=items)


@router.get("/{tid}", response_class=HTMLResponse)
async def show(request: Request, tid: str) -> Response:
    lt = _get(request, tid)
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
    lt = _get(request, tid)
    if lt is None or mid not in lt.t.matches:
        return _bad("unknown_match", f"no match {mid}", 404)
    token = security.bearer(authorization)
    if token is None or not hmac.compare_digest(hash_token(token), lt.committee_hash):
        return _bad("bad_token", "send the tournament's committee token", 403)
    start = None
    if "start" in body:
        start = to_datetime(body["start"])
        if start is None:
            return _bad("bad_start", f"start must be a local date-time, got {body['start']!r}")
    arena = body.get("arena")
    if arena is not None and (not isinstance(arena, str) or not 0 < len(arena) <= 60):
        return _bad("bad_arena", "arena must be a name of 1 to 60 characters")
    async with lt.lock:
        svc = service(request)
        m = lt.t.matches[mid]
        live_id = lt.live.get(mid)
        if arena is not None and arena != m.arena and live_id is not None:
            lm = await svc.load(live_id)
            if lm.seq > 0:
                return _bad("match_started", "a match that has started cannot change arena", 409)
            del lt.live[mid]  # made again with the new arena's timekeeper token
        if arena is not None and _arena_key(arena) not in lt.arena_hash:
            return _bad("unknown_arena", f"no arena {arena!r} in this tournament")
        move(lt.t, mid, start, arena)
        for md in lt.doc.get("matches", []):
            if md.get("id") == mid:
                if start is not None:
                    md["start"] = start.isoformat()
                if arena is not None:
                    md["arena"] = arena
        registry(request).save(lt)
    await refresh(request, lt)
    lt.digest = None  # every page shows the new slot at the next tick
    return JSONResponse(
        {
            "match": json.loads(json.dumps(lt.t.matches[mid].to_dict(), default=_json_default)),
            "live": lt.live.get(mid),
            "clashes": clashes(lt.t),
        }
    )


@router.get("/{tid}/standings.json")
async def standings_json(request: Request, tid: str) -> Response:
    lt = _get(request, tid)
    if lt is None:
        return _bad("unknown_tournament", f"no tournament {tid}", 404)
    s, _ = await refresh(request, lt)
    return JSONResponse(s.to_json())


@router.get("/{tid}/results.json")
async def export_json(request: Request, tid: str) -> Response:
    lt = _get(request, tid)
    if lt is None:
        return _bad("unknown_tournament", f"no tournament {tid}", 404)
    s, _ = await refresh(request, lt)
    doc = results_json(lt.t, s)
    for mj in doc["matches"]:
        mj["live"] = lt.live.get(mj["id"])
    return JSONResponse(doc)


@router.get("/{tid}/{what}.csv")
async def export_csv(request: Request, tid: str, what: str) -> Response:
    lt = _get(request, tid)
    if lt is None or what not in ("matches", "standings"):
        return _bad("unknown_tournament", f"no tournament {tid}", 404)
    s, _ = await refresh(request, lt)
    text = matches_csv(lt.t, s) if what == "matches" else standings_csv(s)
    return PlainTextResponse(
        text,
        media_type="text/csv",
        headers={"content-disposition": f'attachment; filename="{tid}-{what}.csv"'},
    )


@router.get("/{tid}/bracket.svg")
async def bracket(request: Request, tid: str) -> Response:
    lt = _get(request, tid)
    if lt is None:
        return _bad("unknown_tournament", f"no tournament {tid}", 404)
    s, _ = await refresh(request, lt)
    names = {x: tm.name for x, tm in lt.t.teams.items()}
    return Response(bracket_svg(lt.t, s, names), media_type="image/svg+xml")


@router.get("/{tid}/qr/{mid}.svg")
async def qr(request: Request, tid: str, mid: str) -> Response:
    """A QR code of the match's phone page (for the big screen and the score sheet)."""
    import io

    import segno

    lt = _get(request, tid)
    if lt is None or mid not in lt.live:
        return _bad("unknown_match", f"no live match {mid}", 404)
    url = str(request.base_url).rstrip("/") + f"/m/{lt.live[mid]}"
    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="svg", scale=4, border=2, title=f"{lt.t.name}: {mid}")
    return Response(buf.getvalue(), media_type="image/svg+xml")


@router.get("/{tid}/matches/{mid}", response_class=HTMLResponse)
async def match_card(request: Request, tid: str, mid: str) -> Response:
    """A match's card for printing beside the score sheet: stage, arena, time, rosters
    and handicaps on the day, result, and the QR code of the match's phone page."""
    lt = _get(request, tid)
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
    )


@router.get("/{tid}/teams/{team}", response_class=HTMLResponse)
async def team_page(request: Request, tid: str, team: str) -> Response:
    lt = _get(request, tid)
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
    return render(
        request,
        "tournament/team.html",
        tid=tid,
        t=lt.t,
        team=tm,
        roster=roster,
        days=days,
        totals=totals,
        matches=matches,
        names=names,
    )


@router.get("/{tid}/arena/{slug}/{view}", response_class=HTMLResponse)
async def arena_view(request: Request, tid: str, slug: str, view: str) -> Response:
    """An arena's timekeeper console (``console``) or big screen (``display``, with the
    QR code of the match's phone page): follows the arena's matches in turn."""
    lt = _get(request, tid)
    if lt is None or view not in ("console", "display"):
        return error_page(request, 404, f"no tournament {tid}")
    arena = next((a for a in lt.arena_hash if _slug(a) == slug), None)
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
    lt = _get(request, tid)
    if lt is None:
        return _bad("unknown_tournament", f"no tournament {tid}", 404)
    lang = lang_of(request)
    q: asyncio.Queue[bytes] = asyncio.Queue(64)
    s, reports = await refresh(request, lt)
    ctx = _context(request, lt, s, reports, lang)
    first = _payload(lt, s, ctx, lang)
    # the live streams' caps (per address and in total) count these streams too
    caps = getattr(request.app.state, "streams", None)
    address = security.client_address(request)
    if caps is not None and not caps.acquire(address, False):
        return _bad(
            "too_many_streams", "too many live streams; try again shortly", 503, retry_after=5
        )
    entry = (q, lang if lang in LANGUAGES else "en")
    lt.subscribers.add(entry)
    if lt.watcher is None:
        lt.digest = _digest(reports)
        lt.watcher = asyncio.get_running_loop().create_task(_watch(request, lt))

    async def messages() -> AsyncIterator[bytes]:
        try:
            yield b"retry: 1000\n\n" + first
            while True:
                try:
                    async with asyncio.timeout(KEEPALIVE_S):
                        msg = await q.get()
                except TimeoutError:
                    yield b": keepalive\n\n"
                    continue
                yield msg
        finally:
            lt.subscribers.discard(entry)
            if caps is not None:
                caps.release(address)

    return StreamingResponse(
        messages(),
        media_type="text/event-stream",
        headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
    )
