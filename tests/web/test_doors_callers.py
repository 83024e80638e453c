"""Issue 35, item 3: the route inventory says what each door does, and the code does it.

Every door of :data:`chukker.web.guard.DOORS` is called as each caller (anonymous, a
spectator with a stream ticket, the match's timekeeper and committee tokens, the
organiser's token, the metrics scraper's token). A caller the door's role admits never
gets 401 or 403; a caller it does not admit gets a 401 or 403 that the door declares.
Doors whose credential travels in a form or a fragment (the guard cannot see it) only
must not fail; streams are not opened here (tests/web/test_tickets.py does)."""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from chukker.config import Settings
from chukker.web import create_app
from chukker.web.demo import DEMO_HEADER
from chukker.web.guard import DOORS, HEADER, Cost, Door, Role

ORGANISER = "doors-organiser-token-0123456789"
METRICS = "doors-metrics-token-0123456789"
CALLERS = ("anonymous", "spectator", "timekeeper", "committee", "organiser", "scraper")
#: who each role admits
ADMITS: dict[Role, set[str]] = {
    Role.ANONYMOUS: set(CALLERS), Role.SPECTATOR: set(CALLERS),
    Role.TIMEKEEPER: {"timekeeper", "committee"}, Role.COMMITTEE: {"committee"},
    Role.ORGANISER: {"organiser"}, Role.OPERATOR: {"scraper"},
}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("doors")
    old = os.environ.get("CHUKKER_TOURNAMENTS_DIR")
    os.environ["CHUKKER_TOURNAMENTS_DIR"] = str(tmp / "tournaments")
    from tests.tournament.web_helpers import four_team_toml

    app = create_app(tmp / "doors.sqlite3", organiser=ORGANISER,
                     settings=Settings(organiser_token=ORGANISER, metrics_token=METRICS))
    try:
        with TestClient(app) as c:
            org = {"authorization": "Bearer " + ORGANISER}
            m = c.post("/api/matches", json=DEMO_HEADER, headers=org).json()
            t = c.post("/tournaments/api", json={"text": four_team_toml()}, headers=org).json()
            ticket = c.post(f"/api/matches/{m['match_id']}/stream-ticket", headers={
                "authorization": "Bearer " + m["timekeeper_token"]}).json()["ticket"]
            yield c, {"match_id": m["match_id"], "tid": t["tournament_id"], "m": m, "t": t,
                      "ticket": ticket}
    finally:
        if old is None:
            os.environ.pop("CHUKKER_TOURNAMENTS_DIR", None)
        else:
            os.environ["CHUKKER_TOURNAMENTS_DIR"] = old


#: a value for each path parameter
VALUES = {"mid": "m1", "team": "reds", "slug": "arena-1", "view": "board", "what": "standings",
          "name": "swagger-ui.css", "path": "app.css", "edition": "uspa-arena-2026",
          "lang": "en", "rule": "1", "clause": "a", "sid": "nope", "rid": "nope"}


def _url(door: Door, ids: dict[str, Any]) -> str:
    def fill(mo: re.Match[str]) -> str:
        name = mo.group(1)
        return str(ids.get(name) or VALUES[name])

    return re.sub(r"\{(\w+)(?::\w+)?\}", fill, door.path)


def _headers(caller: str, ids: dict[str, Any]) -> dict[str, str]:
    token = {"timekeeper": ids["m"]["timekeeper_token"], "committee": ids["m"]["committee_token"],
             "organiser": ORGANISER, "scraper": METRICS}.get(caller)
    if door_is_tournaments_committee(caller, ids):
        token = ids["t"]["committee_token"]
    return {} if token is None else {"authorization": "Bearer " + token}


def door_is_tournaments_committee(caller: str, ids: dict[str, Any]) -> bool:
    return caller == "committee" and ids.get("_tournament", False)


#: doors left out: streams never end, heavy work is the pools' tests', the PDF needs Pango
SKIP = (Cost.STREAM, Cost.HEAVY_PDF, Cost.HEAVY_PLAYS, Cost.HEAVY_RULES, Cost.HEAVY_DRAWINGS)


#: a body the door's own checks take, so that the token decides
BODIES: dict[str, Any] = {"/api/matches/{match_id}/events": {
    "command_id": "doors-0001", "event": {"type": "whistle"}}}


def _call(c: TestClient, door: Door, caller: str, ids: dict[str, Any]) -> int:
    method = door.methods.split(",")[0]
    url = _url(door, ids)
    if caller == "spectator" and "{match_id}" in door.path:
        url += "?ticket=" + ids["ticket"]
    body = {"json": BODIES.get(door.path, {})} if door.json else {"data": {}}
    r = c.request(method, url, headers=_headers(caller, {**ids, "_tournament": door.path
                                                        .startswith("/tournaments/")}),
                  follow_redirects=False, **(body if method == "POST" else {}))
    return r.status_code


@pytest.mark.parametrize("door", [d for d in DOORS if d.cost not in SKIP],
                         ids=lambda d: f"{d.methods} {d.path}")
def test_inventory_every_door_answers_each_caller_as_declared(
        world: tuple[TestClient, dict[str, Any]], door: Door) -> None:
    c, ids = world
    callers = CALLERS if door.role not in (Role.ANONYMOUS, Role.SPECTATOR) else ("anonymous",)
    for caller in callers:
        status = _call(c, door, caller, ids)
        assert status < 500 or status in door.answers, (caller, status)
        if door.credential != HEADER:
            continue
        if caller in ADMITS[door.role]:
            assert status not in (401, 403), (caller, status)
        else:
            assert status in (401, 403) and status in door.answers, (caller, status)


def test_metrics_answer_only_the_scraper_and_nobody_while_unset(tmp_path: Path) -> None:
    app = create_app(tmp_path / "m.sqlite3", organiser=ORGANISER, settings=Settings())
    with TestClient(app) as c:  # unset: nobody, the organiser and this machine included
        for h in ({}, {"authorization": "Bearer " + ORGANISER}):
            assert c.get("/metrics", headers=h).status_code == 404


def test_readyz_tells_a_visitor_its_status_and_nothing_else(
        world: tuple[TestClient, dict[str, Any]]) -> None:
    c, _ = world
    anonymous = c.get("/readyz")
    assert anonymous.status_code == 200 and anonymous.json() == {"status": "ok"}
    for token in (ORGANISER, METRICS):
        full = c.get("/readyz", headers={"authorization": "Bearer " + token}).json()
        assert full["status"] == "ok" and "database" in full["checks"]
    wrong = c.get("/readyz", headers={"authorization": "Bearer " + "x" * 30}).json()
    assert wrong == {"status": "ok"}


def test_inventory_every_anonymous_door_has_a_rate_per_address() -> None:
    visitor = (1000.0, 100.0)
    for d in DOORS:
        if d.role in (Role.ANONYMOUS, Role.SPECTATOR) and d.cost is not Cost.STREAM:
            assert d.rate(visitor) == visitor, d.path
        elif d.role not in (Role.ANONYMOUS, Role.SPECTATOR):
            assert d.rate(visitor) is None, d.path  # the officials are never slowed


def test_metrics_refuse_a_visitor_and_a_wrong_token_with_their_code(
        world: tuple[TestClient, dict[str, Any]]) -> None:
    c, _ = world
    none = c.get("/metrics")
    assert none.status_code == 401 and none.json()["code"] == "metrics_token_required"
    wrong = c.get("/metrics", headers={"authorization": "Bearer " + ORGANISER})
    assert wrong.status_code == 403 and wrong.json()["code"] == "metrics_token_required"
    ok = c.get("/metrics", headers={"authorization": "Bearer " + METRICS})
    assert ok.status_code == 200 and "chukker_" in ok.text
