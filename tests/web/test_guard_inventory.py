"""The route inventory (web/guard.py): every route has a door, every door a route."""

from __future__ import annotations

from pathlib import Path

from chukker.web.app import create_app
from chukker.web.guard import DOORS, Cost, Role, door_for, routes_of


def _routes(tmp_path: Path) -> set[tuple[str, str]]:
    app = create_app(tmp_path / "t.sqlite3", organiser="o" * 24)
    return set(routes_of(app.routes))


def test_every_route_of_the_app_has_a_door(tmp_path: Path) -> None:
    declared = {(m, d.path) for d in DOORS for m in d.methods.split(",")}
    missing = sorted(_routes(tmp_path) - declared)
    assert not missing, f"routes without a declaration in chukker.web.guard.DOORS: {missing}"


def test_every_door_has_a_route(tmp_path: Path) -> None:
    declared = {(m, d.path) for d in DOORS for m in d.methods.split(",")}
    stale = sorted(declared - _routes(tmp_path))
    assert not stale, f"declarations without a route: {stale}"


def test_each_door_is_declared_once() -> None:
    keys = [(m, d.path) for d in DOORS for m in d.methods.split(",")]
    assert len(keys) == len(set(keys))


def test_a_request_finds_the_door_of_its_route() -> None:
    assert door_for("POST", "/plays/review").cost is Cost.HEAVY_PLAYS
    assert door_for("GET", "/rules/uspa-arena-2026/en/5").cost is Cost.HEAVY_RULES
    assert door_for("GET", "/rules/uspa-arena-2026/en/5/5a").cost is Cost.CHEAP
    assert door_for("POST", "/tournaments/api").role is Role.ORGANISER
    assert door_for("GET", "/api/matches/m1/stream").cost is Cost.STREAM
    assert door_for("GET", "/static/live.css").role is Role.ANONYMOUS
    assert door_for("DELETE", "/nowhere").path == "*"


def test_get_doors_take_no_body_and_heavy_doors_name_a_pool() -> None:
    for d in DOORS:
        if d.methods == "GET":
            assert d.body == 0, d
        if d.cost.value.startswith("heavy-"):
            assert d.cost.kind is not None
            assert 503 in d.answers, d
