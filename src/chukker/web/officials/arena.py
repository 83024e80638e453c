"""The tournaments' officials' doors, mounted at ``/tournaments``: the organiser's upload
(``POST /tournaments/api``), the committee's move of a match (``POST
/tournaments/{tid}/api/matches/{mid}``) and an arena's timekeeper console
(``/tournaments/{tid}/arena/{slug}/console``; ``display``, its big screen, is the same
page without the keys, one door in the guard's table).

Results come only from the live matches (a ``record`` path in an uploaded file is
ignored: the server never reads files named by a client)."""

from __future__ import annotations

import hmac
import json
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Header, Request
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    Response,
)

from chukker.live import hash_token
from chukker.live.tournaments import (
    LiveTournament,
    TournamentRefused,
    arena_slug,
    json_default,
    now_playing,
)
from chukker.store.base import StoreError
from chukker.tournament.check import check
from chukker.tournament.model import (
    Tournament,
    TournamentError,
    from_dict,
    loads,
    to_datetime,
)
from chukker.tournament.problems import Problem, Subject
from chukker.tournament.schedule import clashes
from chukker.web import security
from chukker.web.planes import Plane
from chukker.web.shared.render import error_page, lang_of, render
from chukker.web.shared.tournament_view import (
    bad as _bad,
)
from chukker.web.shared.tournament_view import (
    page_context,
    refresh,
    service_of,
    tournament_of,
)
from chukker.web.state import state_of

router = APIRouter()

# the organiser credential (shared with match creation): Bearer <organiser token>
require_organiser = security.require_organiser

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
    token = state_of(request.app).organiser.token
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
    state = state_of(request.app)
    if state.plane == Plane.BOTH:
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
    from chukker.web.heavy import Kind
    from chukker.web.security import client_address
    from chukker.web.state import pools

    # parsed and checked in the imports pool (web/heavy.py), never on the event loop
    parsed = await pools(request.app).run(
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
                    "console": f"{officials}/{tid}/arena/{arena_slug(a)}/console"
                    + (f"#token={tk}" if tk is not None else ""),
                    "display": f"{base}/{tid}/arena/{arena_slug(a)}/display",
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
    lt = await tournament_of(request, tid)
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

@router.get("/{tid}/arena/{slug}/{view}", response_class=HTMLResponse)
async def arena_view(request: Request, tid: str, slug: str, view: str) -> Response:
    """An arena's timekeeper console (``console``) or big screen (``display``, with the
    QR code of the match's phone page): follows the arena's matches in turn."""
    lt = await tournament_of(request, tid)
    if lt is None or view not in ("console", "display"):
        return error_page(request, 404, f"no tournament {tid}")
    arena = next((a for a in lt.arena_hash if a and arena_slug(a) == slug), None)
    if arena is None:
        return error_page(request, 404, f"no arena {slug}")
    s, reports = await refresh(request, lt)
    now = now_playing(lt, s).get(arena, {})
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
        board=page_context(request, lt, s, reports, lang_of(request))["boards"].get(arena),
    )
    resp.headers["cache-control"] = "no-store"
    return resp

