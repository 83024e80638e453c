"""Issue 45, "One route table": each door declared once (web/doors.py), and the guard, the
plane gate, the cache and the warm-up derived from it; a key press passes at most 4 ASGI
layers and its door is looked up once."""

from __future__ import annotations

import ast
import inspect
import re
import warnings
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tests.web.conftest import OPEN

from chukker.web import cache as cache_module
from chukker.web import create_app, guard
from chukker.web import planes as planes_module
from chukker.web.app import WARM_UP
from chukker.web.demo import DEMO_HEADER
from chukker.web.doors import DOORS, Cache, Door, Plane, door_for, plane_of

#: the issue's bound on the layers of chukker's own a key press passes
MAX_LAYERS = 4


def _chukker_layers(app: Any) -> list[str]:
    """The ASGI layers of chukker's own in ``app``'s middleware stack, outermost first
    (Starlette's and FastAPI's own wrappers, the same for every route, left out)."""
    node = app.build_middleware_stack()
    out = []
    while node is not None:
        if type(node).__module__.startswith("chukker."):
            out.append(type(node).__name__)
        node = getattr(node, "app", None)
    return out


def _url(door: Door) -> str:
    """A request path of ``door`` (each parameter filled in)."""
    def fill(mo: re.Match[str]) -> str:
        conv = mo.group(2) or ""
        return "1" if conv == "int" else "a.css" if conv == "path" else "a"

    return re.sub(r"\{(\w+)(?::(\w+))?\}", fill, door.path)


def _every_door() -> list[Door]:
    return [v for d in DOORS for v in (*d.views, d)]


@pytest.mark.parametrize("plane", [Plane.BOTH, Plane.OFFICIALS, Plane.PUBLIC])
def test_doors_a_key_press_passes_at_most_4_asgi_layers(tmp_path: Path, plane: Plane) -> None:
    """Walk the app's middleware stack: the layers of chukker's own that every request,
    a key press (POST /api/matches/{id}/events) among them, passes."""
    app = create_app(tmp_path / "l.sqlite3", plane=plane, **OPEN)  # type: ignore[arg-type]
    layers = _chukker_layers(app)
    assert layers == ["PageCache", "ObserveMiddleware", "Guard"], layers
    assert len(layers) <= MAX_LAYERS


def test_doors_a_key_press_finds_its_door_once(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """The page cache (outermost) looks the door up and puts it in the scope; the guard
    reads it there: one lookup of the route table for a key press."""
    from chukker.web import doors

    calls: list[tuple[str, str]] = []
    real = doors.door_for

    def counted(method: str, path: str, table: tuple[Door, ...] = DOORS) -> Door:
        calls.append((method, path))
        return real(method, path, table)

    monkeypatch.setattr(cache_module, "door_for", counted)
    monkeypatch.setattr(guard, "door_for", counted)
    with TestClient(create_app(tmp_path / "k.sqlite3", **OPEN)) as c:  # type: ignore[arg-type]
        m = c.post("/api/matches", json=DEMO_HEADER).json()
        url = f"/api/matches/{m['match_id']}/events"
        calls.clear()
        r = c.post(url, json={"command_id": "k-1", "event": {"type": "whistle"}},
                   headers={"authorization": f"Bearer {m['timekeeper_token']}"})
        assert r.status_code in (201, 409), r.text
        assert r.headers["x-content-type-options"] == "nosniff"  # the guard's headers
        assert calls == [("POST", url)]


def test_doors_the_plane_of_every_door_comes_from_the_table() -> None:
    """Every door's plane is its declaration's (no path list left in planes.py), and the
    plane gate (the guard) asks :func:`plane_of` with the door it was given."""
    for d in _every_door():
        url = _url(d)
        for method in d.methods.split(","):
            assert door_for(method, url) is d, (d.path, url)
            assert plane_of(method, url) == d.plane, d
            assert plane_of(method, url, d) == d.plane
    names = {k for k, v in vars(planes_module).items()
             if isinstance(v, tuple | list | frozenset | set)
             and any(isinstance(x, str) and x.startswith("/") for x in v)}
    assert not names, names  # e.g. OFFICIALS_PAGES, CROWD_API, SHARED, CROWD_FORMS
    tree = ast.parse(inspect.getsource(planes_module))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef) and n.body
            and isinstance(n.body[0], ast.Expr)}
    paths = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
             and isinstance(n.value, str) and re.match(r"/[a-z{]", n.value) and id(n) not in docs]
    assert not paths, paths  # no route's path outside the docstrings
    assert "compile_path" not in inspect.getsource(planes_module)
    assert not hasattr(planes_module, "PlaneGate")


def test_doors_the_cache_rule_of_every_door_comes_from_the_table() -> None:
    """No path list left in cache.py: the clock and health doors, the new match's tokens
    and the consoles are the table's NO_STORE; static files and streams its PASS."""
    for name in ("NO_STORE", "PERSONAL_PATHS"):
        assert not hasattr(cache_module, name), name
    keeping = {d.path: d.keeping for d in _every_door()}
    for path in ("/api/time", "/readyz", "/healthz", "/metrics", "/m/{match_id}/created",
                 "/m/{match_id}/console", "/tournaments/{tid}/arena/{slug}/console"):
        assert keeping[path] is Cache.NO_STORE, path
    for path in ("/static/{path:path}", "/rules/static/{path:path}",
                 "/api/matches/{match_id}/stream", "/tournaments/{tid}/stream"):
        assert keeping[path] is Cache.PASS, path
    assert keeping["/tournaments/{tid}/arena/{slug}/{view}"] is Cache.PAGE


def test_doors_each_plane_warms_up_the_doors_it_serves() -> None:
    for plane in (Plane.OFFICIALS, Plane.PUBLIC):
        assert "/readyz" in WARM_UP[plane]
        for target in WARM_UP[plane]:
            d = door_for("GET", target.partition("?")[0])
            assert target in d.warm and d.plane & plane, (plane, target)
    assert "/m/-/console" in WARM_UP[Plane.OFFICIALS]
    assert "/rules/" in WARM_UP[Plane.PUBLIC] and "/rules/" not in WARM_UP[Plane.OFFICIALS]


def test_doors_the_consoles_undo_preview_is_served_on_the_officials_plane(
        tmp_path: Path) -> None:
    """The console (officials' port) asks ``/m/{id}/undo`` with its token: a token's door,
    on both planes (it was sent to the public port, a cross-origin redirect)."""
    app = create_app(tmp_path / "u.sqlite3", plane=Plane.OFFICIALS, **OPEN)  # type: ignore[arg-type]
    with TestClient(app) as c:
        r = c.get("/m/nope/undo?event=0", follow_redirects=False)
        assert r.status_code == 401 and r.json()["code"] == "no_token"
        r = c.get("/m/nope/sheet", follow_redirects=False)
        assert r.status_code == 307  # a spectator's page: the public port's
