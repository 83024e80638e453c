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
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

from babel.dates import format_date, format_datetime
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
from chukker.tournament.schedule import clashes, move
from chukker.tournament.standings import MatchResult, Played, Standings, standings
from chukker.tournament.words import bold_winner, result_words
from chukker.web import security
from chukker.web.pages.matches import ENV, error_page, lang_of, phone_qr, render, stage_name
from chukker.web.planes import crowd_elsewhere, serves_crowd

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
        except StoreError:  # the store lost it, or cannot replay it: shown as scheduled
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
        # a match with no arena is the committee's to run (or to move to an arena)
        tk_hash = (
            lt.arena_hash.get(_arena_key(m.arena)) or lt.arena_hash.get("") or lt.committee_hash
        )
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
        feed = getattr(request.app.state, "feed", None)
        if feed is not None:  # the MQTT arena topics and relays follow the arena's match
            for mid, live_id in lt.live.items():
                if lt.t.matches[mid].arena:
                    feed.map_arena(live_id, lt.t.matches[mid].arena)
            for arena, now in _now_playing(lt, s).items():
                if arena:
                    feed.assign_arena(arena, now["live"], reports.get(now["current"] or ""))
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
        if m.arena:  # a match with no arena is on no arena's board
            by_arena.setdefault(m.arena, []).append(m.id)
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


def identity(t: Tournament) -> tuple[str, str, int | None]:
    """What makes two uploads the same tournament: its name and venue (case and spaces
    aside) and the year of its first match. A file fixed and uploaded again is the same
    tournament (it is updated); another year's edition, or another venue's event of the
    same name, is another tournament (see docs/tournament.md, "A second upload")."""

    def norm(x: str) -> str:
        return " ".join(x.split()).casefold()

    starts = [m.start for m in t.matches.values() if m.start is not None]
    return norm(t.name), norm(t.venue), min(starts).year if starts else None


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


def _named_arenas(t: Tournament) -> list[str]:
    """The arenas of the tournament: a match with no arena is not an arena."""
    return sorted({m.arena for m in t.matches.values() if m.arena})


async def _started(svc: LiveService, live_id: str) -> bool:
    try:
        lm = await svc.load(live_id)
    except StoreError:  # the store lost it, or cannot replay it: nothing was played
        return False
    return lm.seq > 0


async def _update(
    request: Request, old: LiveTournament, t: Tournament
) -> tuple[dict[str, str], list[str]] | JSONResponse:
    """The same tournament uploaded again: keep its id, committee token, the tokens of
    its arenas and every match already played; matches not started whose header or arena
    changed are made again (the old live match is archived). Refused (409, with the link
    to the tournament) when the file would change or drop a match already played."""
    svc = service(request)
    s_new = _standings(
        LiveTournament(old.id, {}, t, old.committee_hash, old.arena_hash),
        (old.last[1] if old.last is not None else {}),
    )
    conflicts: list[Problem] = []
    keep: dict[str, str] = {}
    drop: list[str] = []
    for mid, live_id in old.live.items():
        started = await _started(svc, live_id)
        m_new = t.matches.get(mid)
        m_old = old.t.matches.get(mid)
        if m_new is None:
            if started:
                conflicts.append(Problem.of(Subject.of("match", mid), "played_match_left_out"))
            else:
                drop.append(live_id)
            continue
        try:
            new_header = header(t, m_new, s_new.match(mid).teams)
        except NotReady:
            new_header = None
        try:
            lm = await svc.load(live_id)
            old_header = {k: v for k, v in lm.row.header.items() if k != "events"}
        except StoreError:
            old_header = None
        if new_header is not None:
            new_header.pop("events", None)
        same_arena = m_old is not None and m_old.arena == m_new.arena
        if started:
            old_teams = [x.get("name") for x in (old_header or {}).get("teams", {}).values()]
            new_teams = [x.get("name") for x in (new_header or {}).get("teams", {}).values()]
            old_ids = None if m_old is None else [r.to_value() for r in m_old.teams]
            new_ids = [r.to_value() for r in m_new.teams]
            if new_header is None or (old_ids != new_ids and old_teams != new_teams):
                conflicts.append(Problem.of(Subject.of("match", mid), "played_match_teams"))
            elif not same_arena:
                conflicts.append(Problem.of(Subject.of("match", mid), "played_match_arena"))
            else:
                keep[mid] = live_id  # played: its record stays as it was played
            continue
        if new_header is not None and new_header == old_header and same_arena:
            keep[mid] = live_id
        else:
            drop.append(live_id)
    if conflicts:
        base = str(request.base_url).rstrip("/") + "/tournaments"
        conflicts = capped(conflicts)
        lines = [str(p) for p in conflicts]
        return _bad(
            request, "tournament_exists", 409,
            {"tournament_id": old.id, "url": f"{base}/{old.id}"}, found=conflicts,
            url=f"{base}/{old.id}", tournament_id=old.id,
            cause={"code": "tournament_played", "params": {"problems": lines}},
        )
    for live_id in drop:
        with contextlib.suppress(Exception):
            await asyncio.to_thread(svc.store.set_archived, live_id, True, svc.clock.now_ms())
    return keep, drop


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
    for mid, m in list(t.matches.items()):
        if m.record is not None:
            t.matches[mid] = replace(m, record=None)
    reg = registry(request)
    same = next((x for x in reg.all() if identity(x.t) == identity(t)), None)
    doc = json.loads(json.dumps(t.to_dict(), default=_json_default))
    arenas = _named_arenas(t)
    committee: str | None = None
    if same is None:
        tid = secrets.token_hex(4)
        committee = secrets.token_urlsafe(24)
        tokens: dict[str, str | None] = {a: secrets.token_urlsafe(24) for a in arenas}
        lt = LiveTournament(
            tid,
            doc,
            t,
            hash_token(committee),
            {a: hash_token(tk) for a, tk in tokens.items() if tk is not None},
        )
    elif not _may_update(request, same):
        # an open server lets anyone create, not change another's tournament
        base = str(request.base_url).rstrip("/") + "/tournaments"
        return _bad(
            request, "tournament_exists", 409,
            {"tournament_id": same.id, "url": f"{base}/{same.id}", "problems": []},
            url=f"{base}/{same.id}", tournament_id=same.id,
            cause={"code": "tournament_needs_token", "params": {}},
        )
    else:
        async with same.lock:
            if same.last is None:
                same.last = (standings(same.t, {}), await _reports(service(request), same))
            kept = await _update(request, same, t)
            if isinstance(kept, JSONResponse):
                return kept
            tid = same.id
            tokens = {a: None if a in same.arena_hash else secrets.token_urlsafe(24)
                      for a in arenas}  # fmt: skip
            hashes = {a: same.arena_hash[a] for a in arenas if a in same.arena_hash}
            hashes |= {a: hash_token(tk) for a, tk in tokens.items() if tk is not None}
            if "" in same.arena_hash:  # made before matches with no arena had no arena
                hashes[""] = same.arena_hash[""]
            same.doc, same.t, same.arena_hash, same.live = doc, t, hashes, kept[0]
            same.last, same.digest = None, None
            lt = same
    reg.save(lt)
    await refresh(request, lt)
    reg.save(lt)
    base = str(request.base_url).rstrip("/") + "/tournaments"
    return JSONResponse(
        {
            "tournament_id": tid,
            "updated": same is not None,
            "committee_token": committee,
            "arenas": {
                a: {
                    "token": tk,
                    "kept": tk is None,
                    "console": f"{base}/{tid}/arena/{_slug(a)}/console"
                    + (f"#token={tk}" if tk is not None else ""),
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
        status_code=201 if same is None else 200,
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


async def _season(request: Request) -> Any:
    """The season of every tournament this server holds, from the live matches (computed
    off the event loop; reused while no match of any tournament changed)."""
    from chukker.tournament.season import SeasonTournament, add_headers, season

    items = []
    for lt in registry(request).all():
        s, reports = await refresh(request, lt)
        items.append((lt, s, reports))
    key = tuple((lt.id, id(lt.t), lt.version, _digest(reports)) for lt, _s, reports in items)
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
    async with lt.lock:
        svc = service(request)
        m = lt.t.matches[mid]
        live_id = lt.live.get(mid)
        if arena is not None and arena != m.arena and live_id is not None:
            lm = await svc.load(live_id)
            if lm.seq > 0:
                return _bad(request, "match_started", 409, match_id=mid)
            del lt.live[mid]  # made again with the new arena's timekeeper token
        if arena is not None and _arena_key(arena) not in lt.arena_hash:
            return _bad(request, "unknown_arena", arena=arena)
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
        return _bad(request, "unknown_tournament", 404, tournament_id=tid)
    s, _ = await refresh(request, lt)
    return JSONResponse(s.to_json())


@router.get("/{tid}/results.json")
async def export_json(request: Request, tid: str) -> Response:
    lt = _get(request, tid)
    if lt is None:
        return _bad(request, "unknown_tournament", 404, tournament_id=tid)
    s, _ = await refresh(request, lt)
    doc = results_json(lt.t, s)
    for mj in doc["matches"]:
        mj["live"] = lt.live.get(mj["id"])
    return JSONResponse(doc)


@router.get("/{tid}/{what}.csv")
async def export_csv(request: Request, tid: str, what: str) -> Response:
    lt = _get(request, tid)
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
    lt = _get(request, tid)
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

    lt = _get(request, tid)
    if lt is None or mid not in lt.live:
        return _bad(request, "unknown_match", 404, match_id=mid)
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
        result=result_of(lt.t, r, translations(lang_of(request)).gettext),
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
    reports = (lt.last or (None, {}))[1]
    played = {mid: Played(("A", "B"), rep) for mid, rep in reports.items()}
    return render(
        request,
        "tournament/team.html",
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
    lt = _get(request, tid)
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
    lt = _get(request, tid)
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


def _may_follow_on_officials_plane(request: Request, lt: LiveTournament) -> bool:
    """Whether a tournament's stream may be served on the officials' plane: to its arena
    consoles and its committee (an arena's or the committee's token, ``?token=`` since an
    ``EventSource`` sends no header, or as the bearer), never to the crowd."""
    presented = (security.bearer(request.headers.get("authorization"))
                 or request.query_params.get("token"))
    if not presented or len(presented) > 100:
        return False
    h = hash_token(presented)
    return any(hmac.compare_digest(h, known)
               for known in (lt.committee_hash, *lt.arena_hash.values()))


@router.get("/{tid}/stream")
async def stream(request: Request, tid: str) -> Response:
    lt = _get(request, tid)
    if lt is None:
        return _bad(request, "unknown_tournament", 404, tournament_id=tid)
    if not serves_crowd(request.app.state) and not _may_follow_on_officials_plane(request, lt):
        return crowd_elsewhere(request)  # the officials' plane: the crowd's stream is public
    lang = lang_of(request)
    q: asyncio.Queue[bytes] = asyncio.Queue(64)
    s, reports = await refresh(request, lt)
    ctx = _context(request, lt, s, reports, lang)
    first = _payload(lt, s, ctx, lang)
    # the live streams' caps (per address and in total) count these streams too
    caps = getattr(request.app.state, "streams", None)
    address = security.client_address(request)
    if caps is not None and not caps.acquire(address, False):
        return _bad(request, "too_many_streams", 503, {"retry_after": 5}, retry_after=5)
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
