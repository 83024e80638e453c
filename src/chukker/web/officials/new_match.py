"""The New match form (``GET``/``POST /new``): its fields into a record header."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import (
    HTMLResponse,
    RedirectResponse,
    Response,
)

from chukker.engine.errors import show
from chukker.i18n import translations
from chukker.live import ServiceError
from chukker.store.engine import SetupError
from chukker.web import errors as api_errors
from chukker.web.api.links import created_display_token
from chukker.web.api.routes import check_header, service
from chukker.web.refusals import said_or, setup_said
from chukker.web.security import CSRF_COOKIE, csrf_ok, new_csrf
from chukker.web.shared import sheet
from chukker.web.shared.render import error_page, lang_of, render
from chukker.web.state import state_of

router = APIRouter(include_in_schema=False)


DEFAULT_NAMES = {"A": "Blue", "B": "White"}


def _new_form(request: Request, form: dict[str, str], error: str | None,
              status: int = 200) -> HTMLResponse:
    csrf = request.cookies.get(CSRF_COOKIE) or new_csrf()
    resp = render(request, "new.html", status=status, form=form, error=error, csrf=csrf,
                  default_names=DEFAULT_NAMES,
                  organiser_needed=not state_of(request.app).organiser.open)
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
        state_of(request.app).organiser.check(request, form.get("organiser_token") or None)
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
        return _new_form(request, form, text, status=api_errors.status_of(e))
    # post/redirect/get: a reload shows the page again and never creates a second match.
    # The secrets travel in the fragment, which the browser never sends to a server.
    secrets = urlencode({"tk": created.timekeeper_token, "cm": created.committee_token,
                         "dp": created_display_token(created.match_id, created.timekeeper_token,
                                                     created.committee_token)})
    resp = RedirectResponse(f"/m/{created.match_id}/created?lang={lang_of(request)}#{secrets}",
                            status_code=303)
    resp.headers["cache-control"] = "no-store"
    return resp


