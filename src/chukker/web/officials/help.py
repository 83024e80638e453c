"""Help pages a person prints: ``/help/keys``, the timekeeper's key card.

One A4 page in English, Spanish or Italian (``?lang=``), in the shared layout,
from the one table of the console's keys (:mod:`chukker.web.keys`), which the
documentation site prints too. Anyone may read it (it holds no match data); it
takes no input but the page's language, reads no file a client names, and is a
template filled from constants (no store, no engine), so it cannot delay a key
press, a horn or the fan-out.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from chukker.web.keys import CONSOLE_KEYS, GROUP_TITLES, Group
from chukker.web.shared.render import render

router = APIRouter(include_in_schema=False)


@router.get("/help/keys", response_class=HTMLResponse)
async def key_card(request: Request) -> Response:
    """The timekeeper's key card, ready to print on one A4 page."""
    groups = [(GROUP_TITLES[g], [k for k in CONSOLE_KEYS if k.group is g]) for g in Group]
    return render(request, "help/keys.html", groups=groups, section="matches")
