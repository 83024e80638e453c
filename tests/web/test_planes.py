"""Issue 35: the officials' plane and the public plane of ``chukker serve``.

In process first (``create_app(plane=...)`` on one store), then a real ``chukker serve``
with its two ports."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tests.web.conftest import OPEN

from chukker.web import create_app
from chukker.web.guard import DOORS, Role, routes_of
from chukker.web.planes import PARTS, Addresses, Plane, plane_of

ADDRESSES = Addresses(public_port=18000, officials_port=18001)


@pytest.fixture(scope="module")
def planes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[Plane, TestClient]]:
    db = tmp_path_factory.mktemp("planes") / "planes.sqlite3"
    off = create_app(db, plane=Plane.OFFICIALS, addresses=ADDRESSES, **OPEN)  # type: ignore[arg-type]
    pub = create_app(db, plane=Plane.PUBLIC, addresses=ADDRESSES, **OPEN)  # type: ignore[arg-type]
    with TestClient(off, base_url="http://arena.test:18001") as o, \
            TestClient(pub, base_url="http://arena.test:18000") as p:
        yield {Plane.OFFICIALS: o, Plane.PUBLIC: p}


@pytest.fixture(scope="module")
def match(planes: dict[Plane, TestClient]) -> dict[str, Any]:
    from chukker.web.demo import DEMO_HEADER

    r = planes[Plane.OFFICIALS].post("/api/matches", json=DEMO_HEADER)
    assert r.status_code == 201, r.text
    return dict(r.json())


ANONYMOUS = ["/", "/m/{m}", "/m/{m}/display", "/m/{m}/sheet", "/m/{m}/sheet.json",
             "/rules/", "/plays/", "/tournaments/", "/learn/", "/api/matches/{m}/stream",
             "/api/matches/{m}/feed.json"]


@pytest.mark.parametrize("path", ANONYMOUS)
def test_planes_officials_port_serves_no_anonymous_page_or_stream(
        planes: dict[Plane, TestClient], match: dict[str, Any], path: str) -> None:
    url = path.format(m=match["match_id"])
    r = planes[Plane.OFFICIALS].get(url + "?lang=es", follow_redirects=False)
    assert r.status_code == 307
    assert r.headers["location"] == f"http://arena.test:18000{url}?lang=es"
    assert "public address" in r.text


def test_planes_public_port_sends_the_console_to_the_officials_port(
        planes: dict[Plane, TestClient], match: dict[str, Any]) -> None:
    url = f"/m/{match['match_id']}/console"
    r = planes[Plane.PUBLIC].get(url, follow_redirects=False)
    assert r.status_code == 307
    assert r.headers["location"] == f"http://arena.test:18001{url}"
    assert planes[Plane.OFFICIALS].get(url).status_code == 200


def test_planes_public_port_accepts_the_api_writes(
        planes: dict[Plane, TestClient], match: dict[str, Any]) -> None:
    m, tk = match["match_id"], match["timekeeper_token"]
    auth = {"authorization": f"Bearer {tk}"}
    r = planes[Plane.PUBLIC].post(f"/api/matches/{m}/events", headers=auth,
                                  json={"command_id": "p-1", "event": {"type": "bowl_in"}})
    assert r.status_code in (200, 201), r.text
    # (the officials' process hears of it through the store's notifications: below, with
    # a real `chukker serve`)
    assert planes[Plane.PUBLIC].get(f"/m/{m}").status_code == 200


def test_planes_only_the_officials_plane_keeps_the_horns(
        planes: dict[Plane, TestClient]) -> None:
    assert planes[Plane.OFFICIALS].app.state.service.keeps_horns  # type: ignore[attr-defined]
    assert not planes[Plane.PUBLIC].app.state.service.keeps_horns  # type: ignore[attr-defined]


def test_planes_officials_stream_with_a_ticket_is_served(
        planes: dict[Plane, TestClient], match: dict[str, Any]) -> None:
    m, tk = match["match_id"], match["timekeeper_token"]
    o = planes[Plane.OFFICIALS]
    ticket = o.post(f"/api/matches/{m}/stream-ticket",
                    headers={"authorization": f"Bearer {tk}"}).json()["ticket"]
    with o.stream("GET", f"/api/matches/{m}/stream?ticket={ticket}") as r:
        assert r.status_code == 200
        assert next(r.iter_bytes()).startswith(b"retry:")


def test_planes_every_route_belongs_to_a_plane(tmp_path: Path) -> None:
    """Every route of the whole app has a plane, and each plane's app answers exactly
    its own routes (the rest it sends to the other plane)."""
    both = set(routes_of(create_app(tmp_path / "b.sqlite3").routes))
    for plane in (Plane.OFFICIALS, Plane.PUBLIC):
        mine = set(routes_of(create_app(tmp_path / f"{plane.label}.sqlite3", plane=plane).routes))
        assert mine <= both
        for method, path in both - mine:
            assert not plane_of(method, path) & plane, (plane, method, path)
    for d in DOORS:
        for method in d.methods.split(","):
            plane = plane_of(method, d.path)
            assert plane in (Plane.OFFICIALS, Plane.PUBLIC, Plane.BOTH)
            if method != "GET":  # an anonymous body is the crowd's, an official's on both
                assert (plane == Plane.PUBLIC) == (d.role is Role.ANONYMOUS), d
    assert set(PARTS.values()) <= {Plane.OFFICIALS, Plane.PUBLIC, Plane.BOTH}


@pytest.mark.parametrize("plane", [Plane.OFFICIALS, Plane.PUBLIC])
def test_planes_each_process_warms_up_before_it_serves(tmp_path: Path, plane: Plane) -> None:
    """The first request of each kind (imports, templates, catalogues, the OpenAPI
    document) is paid at start-up, not by the first horn (issue 35)."""
    from chukker.web.app import WARM_UP

    app = create_app(tmp_path / "w.sqlite3", plane=plane, addresses=ADDRESSES, warm=True)
    with TestClient(app):
        warmed = dict(app.state.warmed)
    assert list(warmed) == list(WARM_UP[plane])
    assert all(status in (200, 307, 404) for status in warmed.values()), warmed
    if plane == Plane.OFFICIALS:
        assert app.openapi_schema is not None and warmed["/openapi.json"] == 200


def test_planes_redirect_passes_the_guard(planes: dict[Plane, TestClient]) -> None:
    """The guard's questions for the redirect (PlaneGate): anyone may call it; what it
    echoes is bounded (host 300, query 4,096 characters) and a host that is not a host
    name gives the server's own; it names a URL, never a server path; it is answered
    before routing, parsing or any store work (nothing there can delay a horn)."""
    o = planes[Plane.OFFICIALS]
    r = o.get("/rules/", headers={"host": "evil/../x:1"}, follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "http://127.0.0.1:18000/rules/"
    r = o.get("/rules/?q=" + "a" * 10_000, follow_redirects=False)
    assert r.status_code == 307 and len(r.headers["location"]) < 4_200
    r = o.get("/rules/%0d%0aset-cookie:x", follow_redirects=False)
    assert r.status_code == 307 and "\n" not in r.headers["location"]
    assert "set-cookie" not in {k.lower() for k in r.headers if k.lower() != "location"}


def test_planes_officials_tournament_stream_is_the_arena_consoles_only(
        planes: dict[Plane, TestClient], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The tournament's stream on the officials' port: an arena console (its arena's
    token) or the committee follows it; anyone else is sent to the public address."""
    from tests.tournament.web_helpers import four_team_toml

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    o = planes[Plane.OFFICIALS]
    r = o.post("/tournaments/api", json={"text": four_team_toml()})
    assert r.status_code == 201, r.text
    body = r.json()
    tid, token = body["tournament_id"], body["arenas"]["Arena 1"]["token"]
    url = f"/tournaments/{tid}/stream"
    for anonymous in (url, f"{url}?token=not-a-token", f"{url}?token={'x' * 500}"):
        r = o.get(anonymous, follow_redirects=False)
        assert r.status_code == 307, anonymous
        assert r.headers["location"].startswith(f"http://arena.test:18000{url}")
    for who in ({"params": {"token": token}},
                {"headers": {"authorization": f"Bearer {body['committee_token']}"}}):
        with o.stream("GET", url, **who) as s:  # type: ignore[arg-type]
            assert s.status_code == 200
            assert next(s.iter_bytes()).startswith(b"retry:")
    with planes[Plane.PUBLIC].stream("GET", url) as s:  # the crowd's, on the public port
        assert s.status_code == 200


def test_planes_a_created_matchs_links_are_each_on_the_plane_that_serves_it(
        planes: dict[Plane, TestClient], match: dict[str, Any]) -> None:
    """Issue 42: POST /api/matches answers the console on the officials' address and the
    spectators', big screen's and sheet's links on the public one, from either port."""
    urls = match["urls"]
    assert urls["console"].startswith("http://arena.test:18001/m/")
    for k in ("spectator", "display", "overlay", "sheet"):
        assert urls[k].startswith("http://arena.test:18000/m/"), (k, urls[k])
    body = planes[Plane.PUBLIC].post("/api/matches", json=match_header()).json()
    assert body["urls"]["console"].startswith("http://arena.test:18001/m/")
    assert body["urls"]["spectator"].startswith("http://arena.test:18000/m/")


def test_planes_configured_addresses_win_over_the_requests_host(tmp_path: Path) -> None:
    addresses = Addresses(public_url="https://crowd.example", officials_url="https://desk.example")
    app = create_app(tmp_path / "u.sqlite3", addresses=addresses, **OPEN)  # type: ignore[arg-type]
    with TestClient(app, base_url="http://evil.test") as c:
        urls = c.post("/api/matches", json=match_header()).json()["urls"]
    assert urls["console"].startswith("https://desk.example/m/")
    assert urls["display"].startswith("https://crowd.example/m/")
    assert not any("evil.test" in u for k, u in urls.items() if k != "api")


def match_header() -> dict[str, Any]:
    from chukker.web.demo import DEMO_HEADER

    return dict(DEMO_HEADER)
