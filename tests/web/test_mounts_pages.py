"""The pony-line pages (issue 25): a match's (/m/<id>/mounts), a tournament team's
(/tournaments/<t>/teams/<team>/mounts), the score sheet's mounts by period. Anonymous,
read-only, from the server's own state."""

from __future__ import annotations

import copy
import re
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tests.tournament.web_helpers import four_team_toml, post
from tests.web.conftest import OPEN, ORGANISER_AUTH

from chukker.web import create_app
from chukker.web.demo import DEMO_HEADER

STRING_A = [{"id": "bay", "name": "Bay"}, {"id": "chico", "name": "Chico", "owner": "R. Paz"},
            {"id": "dora", "name": "Dora"}]


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with TestClient(create_app(tmp_path / "live.sqlite3", **OPEN)) as c:
        yield c


def send(c: Any, mid: str, tk: str, ev: dict[str, Any]) -> Any:
    return c.post(f"/api/matches/{mid}/events", headers={"authorization": "Bearer " + tk},
                  json={"command_id": uuid.uuid4().hex, "event": ev})


def test_match_pony_line_and_score_sheet_show_each_players_mounts_by_period(
    client: Any,
) -> None:
    h = copy.deepcopy(DEMO_HEADER)
    a = next(iter(h["teams"]))
    h["teams"][a]["mounts"] = STRING_A
    r = client.post("/api/matches", json=h, headers=ORGANISER_AUTH)
    assert r.status_code == 201, r.text
    mid, tk = r.json()["match_id"], r.json()["timekeeper_token"]
    for ev in ({"type": "mount", "team": a, "player": 1, "mount": "bay"},
               {"type": "mount", "team": a, "player": 2, "mount": "chico"},
               {"type": "bowl_in"}, {"type": "whistle"},
               {"type": "mount_out", "team": a, "mount": "chico", "reason": "blood"}):
        assert send(client, mid, tk, ev).status_code == 201, ev
    refused = send(client, mid, tk, {"type": "bowl_in"})
    assert refused.status_code == 409 and refused.json()["code"] == "mount_change_needed"
    assert send(client, mid, tk, {"type": "mount", "team": a, "player": 2,
                                  "mount": "dora"}).status_code == 201
    page = client.get(f"/m/{mid}/mounts")
    assert page.status_code == 200
    assert "Bay" in page.text and "Dora" in page.text and "blood" in page.text
    assert "ponyline.js" in page.text
    part = client.get(f"/m/{mid}/mounts?part=1&lang=es")
    assert part.status_code == 200 and "<html" not in part.text and "Bay" in part.text
    sheet = client.get(f"/m/{mid}/sheet?lang=en")
    assert sheet.status_code == 200 and "sheet-mounts" in sheet.text
    # issue 30: the sheet lists mounts by name, and why one left in words
    assert "Bay" in sheet.text and "Chico, Dora" in sheet.text and "out (blood)" in sheet.text
    # the display and the phone show nothing of mounts: grooms have their page
    for view in ("", "/display"):
        assert "Chico" not in client.get(f"/m/{mid}{view}").text
    assert client.get("/m/nope/mounts").status_code == 404
    # read-only: no other method
    assert client.post(f"/m/{mid}/mounts").status_code in (404, 405)


def test_tournament_team_pony_line_shows_next_match_estimate_and_mounts(client: Any) -> None:
    text = four_team_toml().replace(
        'id = "reds"\n',
        'id = "reds"\nmounts = [{ id = "r-bay", name = "Bay" }, { id = "r-fox", name = "Fox" }]\n',
        1)
    r = client.post("/tournaments/api", json={"text": text})
    assert r.status_code == 201, r.text
    body = r.json()
    tid, live = body["tournament_id"], body["matches"]["m1"]
    token = body["arenas"]["Arena 1"]["token"]
    page = client.get(f"/tournaments/{tid}/teams/reds/mounts")
    assert page.status_code == 200
    assert "Estimated start" in page.text and "09:00" in page.text
    # issue 30: the match by its teams' names and a dated time, never its id
    assert "Next match: Reds v " in page.text and "m1" not in page.text.split("<h2>")[1]
    assert re.search(r"Next match: Reds v \w+, \w+day \d+ \w+ 09:00", page.text)
    assert "horse-waiting" in page.text and "Fox" in page.text  # the string, none ridden yet
    es = client.get(f"/tournaments/{tid}/teams/reds/mounts?lang=es").text
    assert "Próximo partido: Reds v " in es and "todavía sin montar" in es
    for ev in ({"type": "mount", "team": "A", "player": 1, "mount": "r-bay"},
               {"type": "bowl_in"}):
        assert post(client, "", live, token, ev).status_code == 201, ev
    page = client.get(f"/tournaments/{tid}/teams/reds/mounts?lang=es")
    assert page.status_code == 200 and "Bay" in page.text
    part = client.get(f"/tournaments/{tid}/teams/reds/mounts?part=1&lang=en")
    assert "<html" not in part.text and "Playing now" in part.text and "P1" in part.text
    assert "Pony line" in client.get(f"/tournaments/{tid}/teams/reds").text
    assert client.get(f"/tournaments/{tid}/teams/nobody/mounts").status_code == 404
    assert client.get(f"/tournaments/{tid}/teams/..%2F..%2Fetc/mounts").status_code == 404


def test_rule_5_the_grooms_page_shows_every_horse_and_which_goes_next(client: Any) -> None:
    """Issue 30: the whole string, as riding, next (with when), resting, not ridden yet or
    out, in words ("fuera (sangre)", "descalificado (Penalty 8)"), never codes."""
    h = copy.deepcopy(DEMO_HEADER)
    a = next(iter(h["teams"]))
    h["teams"][a]["mounts"] = [*STRING_A, {"id": "elsa", "name": "Elsa"},
                               {"id": "gus", "name": "Gus"}]
    h["teams"][a]["plan"] = {"1": ["bay", "dora", "elsa"], "2": ["chico", "gus"]}
    h.setdefault("options", {})["split_periods"] = True
    r = client.post("/api/matches", json=h, headers=ORGANISER_AUTH)
    assert r.status_code == 201, r.text
    mid, tk = r.json()["match_id"], r.json()["timekeeper_token"]
    for ev in ({"type": "mount", "team": a, "player": 1, "mount": "bay"},
               {"type": "mount", "team": a, "player": 2, "mount": "chico"},
               {"type": "bowl_in"}, {"type": "whistle"},
               {"type": "mount_out", "team": a, "mount": "dora", "reason": "blood"},
               {"type": "foul", "team": a, "player": 2, "penalty": "8", "mount": True},
               {"type": "mount", "team": a, "player": 2, "mount": "gus"}):
        assert send(client, mid, tk, ev).status_code == 201, ev
    en = client.get(f"/m/{mid}/mounts?lang=en").text
    assert "Elsa" in en and "next up" in en and "at the split, about 3:30 into period 1" in en
    assert "out (blood)" in en and "disqualified (Penalty 8)" in en
    assert "penalty_8" not in en
    es = client.get(f"/m/{mid}/mounts?part=1&lang=es").text
    assert "fuera (sangre)" in es and "descalificado (Penalty 8)" in es
    assert "en el split, hacia el 3:30 del período 1" in es and "blood" not in es


def test_record_1_3_the_new_match_form_takes_each_teams_string_and_plan(client: Any) -> None:
    """Issue 30: the New match form takes the string (one horse a line) and each player's
    plan (names, in order); the ids are made from the names, one team's only (Rule 2)."""

    page = client.get("/new").text
    assert 'name="team_A_mounts"' in page and 'name="team_B_p3_plan"' in page
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
    form = {"team_A_name": "Búhos", "team_B_name": "Rojos", "csrf": csrf,
            "team_A_mounts": "Bay\nDorá, R. Paz\nBay\n", "team_A_p1_plan": "bay, dorá",
            "team_A_p2_plan": "Dorá", "team_B_mounts": "Bay"}
    r = client.post("/new", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    mid = client.get("/api/matches").json()[0]["match_id"]
    rec = client.get(f"/api/matches/{mid}/record").json()
    assert [m["id"] for m in rec["teams"]["A"]["mounts"]] == ["a-bay", "a-dora", "a-bay-2"]
    assert rec["teams"]["A"]["mounts"][1] == {"id": "a-dora", "name": "Dorá", "owner": "R. Paz"}
    assert rec["teams"]["A"]["plan"] == {"1": ["a-bay", "a-dora"], "2": ["a-dora"]}
    assert rec["teams"]["B"]["mounts"] == [{"id": "b-bay", "name": "Bay"}]
    # a name not on the string is refused, in words, and the form keeps what was typed
    bad = client.post("/new?lang=es", data={**form, "team_A_p3_plan": "Zorro"})
    assert bad.status_code == 422 and "Zorro" in bad.text and "no está en la lista" in bad.text
    # how big: at most 64 horses a team
    many = client.post("/new", data={**form, "team_A_mounts": "\n".join(
        f"H{i}" for i in range(65))})
    assert many.status_code == 422
