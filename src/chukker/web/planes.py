"""The two planes of ``chukker serve`` (issue 35): the officials' and the public's.

* :attr:`Plane.OFFICIALS`: one process on its own port (``--officials-port``). The API,
  the timekeeper's console and the officials' pages; it keeps the horns and their audit
  and runs the arena feeds (MQTT, relays). It serves no anonymous page, stream or feed:
  a ``GET`` of one answers ``307`` to the same path on the public address.
* :attr:`Plane.PUBLIC`: the processes on ``--port`` (``--public-workers N``), at a lower
  CPU priority. Every page, stream, export and feed, and the API (its writes too, through
  the same store, so that existing clients keep working). A ``GET`` of an officials' page
  there answers ``307`` to the officials' address.
* :attr:`Plane.BOTH`: one process serving everything (the in-process tests,
  ``chukker serve --public-workers 0``).

Each part of the app is declared for its plane(s) in :data:`PARTS`, and each door for its
own in the route table (:attr:`chukker.web.doors.Door.plane`, issue 45): :func:`plane_of`
says where any request belongs, and the guard (:class:`chukker.web.guard.Guard`) answers
a request of the other plane's door ``307`` to it.

>>> plane_of("GET", "/m/m1/console")
<Plane.OFFICIALS: 1>
>>> plane_of("GET", "/m/m1")
<Plane.PUBLIC: 2>
>>> plane_of("POST", "/api/matches/m1/events") == Plane.BOTH
True
>>> Plane.OFFICIALS in Plane.BOTH
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from starlette.responses import Response
from starlette.types import Scope

from chukker.web.doors import Plane, plane_of

__all__ = ["PARTS", "Addresses", "Plane", "crowd_elsewhere", "elsewhere", "plane_of",
           "redirect", "serves_crowd"]


#: the parts of the app (as ``create_app`` mounts them) and the planes they are mounted on
PARTS: dict[str, Plane] = {
    "api": Plane.BOTH,  # the match API: reads and writes (docs/live.md)
    "feeds": Plane.PUBLIC,  # feed.json / feed.xml / feed.csv: the broadcasters' pull
    # the match pages: officials/console and new_match, public/matches, shared/apidocs
    "pages": Plane.BOTH,
    "static": Plane.BOTH,  # the stylesheet and scripts every page needs
    "rules": Plane.PUBLIC,
    "plays": Plane.PUBLIC,
    # officials/arena (upload, moves, arena consoles), shared/tournament_view (the stream),
    # public/tournaments
    "tournaments": Plane.BOTH,
    "learn": Plane.PUBLIC,
    "help": Plane.BOTH,  # the console's key card
    "ops": Plane.BOTH,  # /healthz, /readyz, /metrics: each process answers for itself
}

_HOST = re.compile(r"^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]{2,45}\])$")


@dataclass(frozen=True, slots=True)
class Addresses:
    """Where each plane is reached: a base URL (``https://officials.example``) when one is
    set, else the port alone, on the host the request named.

    >>> a = Addresses(public_port=8000, officials_port=8001)
    >>> a.base(Plane.OFFICIALS, "example.org:8000", "http")
    'http://example.org:8001'
    >>> a.base(Plane.PUBLIC, "bad host/x", "http", fallback="127.0.0.1")
    'http://127.0.0.1:8000'
    """

    public_port: int = 8000
    officials_port: int = 8001
    public_url: str = ""
    officials_url: str = ""

    def base(self, plane: Plane, host_header: str, scheme: str = "http",
             fallback: str = "127.0.0.1") -> str:
        url = self.officials_url if plane == Plane.OFFICIALS else self.public_url
        if url:
            return url.rstrip("/")
        port = self.officials_port if plane == Plane.OFFICIALS else self.public_port
        host = host_header.rsplit(":", 1)[0] if not host_header.endswith("]") else host_header
        if not _HOST.match(host):
            host = fallback if ":" not in fallback else f"[{fallback}]"
        return f"{scheme}://{host}:{port}"


def elsewhere(scope: Scope, to: Plane, addresses: Addresses, fallback: str) -> str:
    """The URL of this request's path and query on the plane ``to``."""
    host = ""
    for k, v in scope.get("headers", []):
        if k == b"host":
            host = v.decode("latin-1")[:300]
            break
    path = quote(str(scope.get("path", "/")), safe="/:@!$&'()*+,;=-._~")
    query = scope.get("query_string", b"").decode("latin-1")[:4096]
    base = addresses.base(to, host, str(scope.get("scheme", "http")), fallback)
    return f"{base}{path}" + (f"?{query}" if query else "")


def redirect(url: str, to: Plane) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """A ``307`` to ``url``: the answer of a plane that does not serve the request."""
    words = ("the officials' pages are served at" if to == Plane.OFFICIALS
             else "this page is served on the public address")
    body = f"{words} {url}\n".encode()
    return 307, [(b"location", url.encode()), (b"content-type", b"text/plain; charset=utf-8"),
                 (b"content-length", str(len(body)).encode()),
                 (b"cache-control", b"no-store")], body


def serves_crowd(plane: Plane) -> bool:
    """Whether a process of ``plane`` serves the crowd (anonymous streams): the public
    plane's and a single process's, not the officials'."""
    return bool(plane & Plane.PUBLIC)


def crowd_elsewhere(request: Any, addresses: Addresses) -> Response:
    """The officials' plane's answer to an anonymous stream: ``307`` to the public
    address (a stream with a ticket or a match token is served here)."""
    url = elsewhere(request.scope, Plane.PUBLIC, addresses, "127.0.0.1")
    status, headers, body = redirect(url, Plane.PUBLIC)
    return Response(body, status_code=status,
                    headers={k.decode(): v.decode() for k, v in headers
                             if k != b"content-length"})
