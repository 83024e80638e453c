"""A second upload of the same tournament (issue 21.3): the organiser who fixes a typo and
uploads again gets the same tournament, updated, with the arena tokens and the matches
already played kept; another year's tournament of the same name is another tournament;
a match with no arena is not an arena."""

from __future__ import annotations

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


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with TestClient(create_app(tmp_path / "live.sqlite3", **OPEN)) as c:
        yield c


def upload(client: Any, text: str, auth: dict[str, str] | None = None) -> Any:
    """The organiser uploads (their token: an open server lets anyone create, but only the
    organiser or the committee update)."""
    return client.post("/tournaments/api", json={"text": text}, headers=auth or ORGANISER_AUTH)


def test_organiser_uploads_the_same_tournament_again_after_fixing_a_typo(client: Any) -> None:
    first = upload(client, four_team_toml())
    assert first.status_code == 201, first.text
    body = first.json()
    tid, tokens = body["tournament_id"], {a: v["token"] for a, v in body["arenas"].items()}
    assert set(tokens) == {"Arena 1", "Arena 2"}  # no "-" arena
    # m1 (Arena 1) starts; m2 (Arena 2) has not
    m1, m2 = body["matches"]["m1"], body["matches"]["m2"]
    assert post(client, "", m1, tokens["Arena 1"], {"type": "bowl_in"}).status_code == 201
    assert post(client, "", m1, tokens["Arena 1"], {"type": "goal", "team": "A"}).status_code == 201
    # the typo: Golds were "Golds", the committee fixes the name and uploads again
    fixed = four_team_toml().replace('name = "Golds"', 'name = "Gold Ranch"')
    again = upload(client, fixed)
    assert again.status_code == 200, again.text
    b2 = again.json()
    assert b2["tournament_id"] == tid and b2["updated"] is True
    assert b2["committee_token"] is None  # kept, not shown again
    assert {a: v["token"] for a, v in b2["arenas"].items()} == {"Arena 1": None, "Arena 2": None}
    assert all(v["kept"] for v in b2["arenas"].values())
    # the match already played is kept, with its events
    assert b2["matches"]["m1"] == m1
    rep = client.get(f"/api/matches/{m1}").json()
    assert rep["score"]["A"] >= 1
    # m2 (greens v golds) is made again with the fixed name; the old Arena 2 token drives it
    new_m2 = b2["matches"]["m2"]
    assert new_m2 != m2
    assert post(client, "", new_m2, tokens["Arena 2"], {"type": "bowl_in"}).status_code == 201
    assert m2 in client.app.state.service.store.archived()  # not left on the home page
    # the old Arena 1 token still drives m1
    assert post(client, "", m1, tokens["Arena 1"], {"type": "goal", "team": "B"}).status_code == 201
    # one tournament, not two
    page = client.get("/tournaments")
    assert page.text.count("Four Cup") == 1
    assert "Gold Ranch" in client.get(f"/tournaments/{tid}").text
    # an unchanged upload changes nothing
    same = upload(client, fixed).json()
    assert same["matches"] == b2["matches"]


def test_another_years_tournament_of_the_same_name_is_another_tournament(client: Any) -> None:
    a = upload(client, four_team_toml()).json()
    text = four_team_toml().replace("2026-12-05T", "2027-12-04T").replace("[2026]", "[2027]")
    text = text.replace("from = 2026-01-01", "from = 2027-01-01")
    r = upload(client, text)
    assert r.status_code == 201, r.text
    assert r.json()["tournament_id"] != a["tournament_id"]
    assert client.get("/tournaments").text.count("Four Cup") == 2


def test_a_second_upload_that_would_change_a_played_match_is_refused_with_a_link(
    client: Any,
) -> None:
    body = upload(client, four_team_toml()).json()
    tok = body["arenas"]["Arena 1"]["token"]
    assert post(client, "", body["matches"]["m1"], tok, {"type": "bowl_in"}).status_code == 201
    # m1 was reds v blues; the new file has blues v reds (team A is now the other team)
    changed = four_team_toml().replace('teams = ["reds", "blues"]', 'teams = ["blues", "reds"]', 1)
    r = upload(client, changed)
    assert r.status_code == 409, r.text
    j = r.json()
    assert j["code"] == "tournament_exists"
    assert j["url"].endswith(f"/tournaments/{body['tournament_id']}")
    assert [p["message"] for p in j["problems"]] == [
        "match m1: has been played; the new file changes its teams"
    ]
    assert j["problems"][0]["subject"] == {"code": "match", "id": "m1"}
    # and nothing changed
    assert client.get(f"/tournaments/{body['tournament_id']}/results.json").json()["matches"][0][
        "teams"
    ] == ["reds", "blues"]


def test_a_match_with_no_arena_is_not_an_arena(client: Any) -> None:
    text = four_team_toml().replace('arena = "Arena 2"\n', "")
    body = upload(client, text).json()
    assert set(body["arenas"]) == {"Arena 1"}
    assert all(a and a != "-" for a in body["arenas"])
    page = client.get(f"/tournaments/{body['tournament_id']}").text
    assert "<strong>—</strong>" not in page and "<strong>-</strong>" not in page
    # the committee runs a match with no arena (or moves it to one)
    m2 = body["matches"]["m2"]
    committee = body["committee_token"]
    assert post(client, "", m2, committee, {"type": "bowl_in"}).status_code == 201
    assert post(client, "", m2, body["arenas"]["Arena 1"]["token"], {"type": "goal", "team": "A"}
                ).status_code == 403  # fmt: skip


def test_the_example_tournament_uploaded_twice_is_one_tournament(client: Any) -> None:
    text = (Path(__file__).parents[2] / "examples" / "tournament" / "fall-classic.toml").read_text()
    first = upload(client, text)
    assert first.status_code == 201, first.text
    second = upload(client, text)
    assert second.status_code == 200, second.text
    assert second.json()["tournament_id"] == first.json()["tournament_id"]
    assert second.json()["matches"] == first.json()["matches"]
    assert client.get("/tournaments").text.count("Fall Arena Classic") == 1


def test_on_an_open_server_only_the_organiser_or_committee_update_a_tournament(
    client: Any,
) -> None:
    anyone = client.post("/tournaments/api", json={"text": four_team_toml()})
    assert anyone.status_code == 201  # an open server: anyone creates
    body = anyone.json()
    again = client.post("/tournaments/api", json={"text": four_team_toml()})
    assert again.status_code == 409
    j = again.json()
    assert j["code"] == "tournament_exists" and j["url"].endswith(body["tournament_id"])
    wrong = upload(client, four_team_toml(), {"authorization": "Bearer not-the-token"})
    assert wrong.status_code == 409
    committee = {"authorization": f"Bearer {body['committee_token']}"}
    ok = upload(client, four_team_toml(), committee)
    assert ok.status_code == 200 and ok.json()["tournament_id"] == body["tournament_id"]
    assert client.get("/tournaments").text.count("Four Cup") == 1
