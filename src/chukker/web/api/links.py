"""A match's links and display secrets: each page's URL on its plane (issue 42), the
display token a big screen carries and the key its stream tickets are signed with."""

from __future__ import annotations

from fastapi import Request

from chukker.live import LiveMatch, hash_token
from chukker.web.planes import Plane, plane_of
from chukker.web.security import display_token, match_secret
from chukker.web.state import state_of


def plane_base(request: Request, path: str) -> str:
    """The base URL that serves ``path`` (issue 42: each link on its plane): the officials'
    pages (the console) on the officials' address, the crowd's (spectators, big screen) on
    the public one: the configured ``officials_url`` / ``public_url`` when set (never the
    request's Host then), else the plane's port on the request's host when this process
    serves the other plane, else this request's own base; the API, on both, here."""
    state = state_of(request.app)
    addresses, serving = state.addresses, state.plane
    here = str(request.base_url).rstrip("/")
    plane = plane_of("GET", path)
    if plane == Plane.BOTH:
        return here
    url = addresses.officials_url if plane == Plane.OFFICIALS else addresses.public_url
    if url:
        return url.rstrip("/")
    if serving & plane:
        return here
    return addresses.base(plane, request.headers.get("host", "")[:300], request.url.scheme)


def match_urls(request: Request, created_id: str, tk: str | None = None,
               display: str | None = None) -> dict[str, str]:
    paths = {
        "spectator": f"/m/{created_id}",
        "display": f"/m/{created_id}/display",
        "overlay": f"/m/{created_id}/overlay",
        "sheet": f"/m/{created_id}/sheet",
        "console": f"/m/{created_id}/console",
        "api": f"/api/matches/{created_id}",
    }
    urls = {k: plane_base(request, p) + p for k, p in paths.items()}
    if tk is not None:
        urls["console"] += f"#token={tk}"
    if display is not None:
        urls["display"] += f"#display={display}"
        urls["overlay"] += f"#display={display}"
    return urls


def created_display_token(match_id: str, timekeeper_token: str, committee_token: str) -> str:
    """The display token of a match just created, from its two secrets."""
    return display_token(match_id, hash_token(timekeeper_token), hash_token(committee_token))


def match_display_token(lm: LiveMatch) -> str:
    return display_token(lm.id, lm.row.timekeeper_hash, lm.row.committee_hash)


def match_key(lm: LiveMatch) -> bytes:
    return match_secret(lm.id, lm.row.timekeeper_hash, lm.row.committee_hash)
