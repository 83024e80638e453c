"""The API agrees with the record's loader on whole numbers (issue 24, positive data): an
integral JSON number (``10.0``) where a whole number is required is taken and stored as
the int; ``10.5`` is refused with the code it always had. And the header's ``match_info``
has the definitions' limits (the event's name 120 characters), not the generic guard's."""

from __future__ import annotations

import json
from typing import Any

from tests.web.conftest import ORGANISER_AUTH, Match, post_event

from chukker.record import loads


def create(client: Any, header: dict[str, Any]) -> Any:
    return client.post("/api/matches", json=header, headers=ORGANISER_AUTH)


def test_a_header_with_integral_floats_is_stored_with_whole_numbers(
    client: Any, header: Any
) -> None:
    a = header["teams"]["A"]
    a["captain"] = 2.0
    a["players"][0].update(no=1.0, handicap=10.0)
    r = create(client, header)
    assert r.status_code == 201, r.text
    m = Match(r.json())
    text = client.get(f"/api/matches/{m.id}/record").text
    stored = json.loads(text)["teams"]["A"]
    assert stored["captain"] == 2 and type(stored["captain"]) is int
    assert stored["players"][0] == {"no": 1, "name": "Ann", "handicap": 10}
    assert type(stored["players"][0]["handicap"]) is int
    assert loads(text)["teams"] == json.loads(text)["teams"]  # the loader reads it back
    report = client.get(f"/api/matches/{m.id}").json()
    assert report["status"] == "pre_match"


def test_a_handicap_that_is_not_whole_stays_refused_as_an_invalid_header(
    client: Any, header: Any
) -> None:
    header["teams"]["A"]["players"][0]["handicap"] = 10.5
    r = create(client, header)
    assert r.status_code == 422 and r.json()["code"] == "invalid_header"
    assert r.json()["params"]["field"] == "teams.A.players[0].handicap"
    header["teams"]["A"]["players"][0]["handicap"] = 3
    header["teams"]["A"]["players"][1]["no"] = 2.5
    r = create(client, header)
    assert r.status_code == 422 and r.json()["code"] == "field_type"


def test_an_event_with_an_integral_float_is_stored_with_the_whole_number(
    client: Any, make_match: Any
) -> None:
    m = make_match(client)
    assert post_event(client, m, {"type": "bowl_in"}).status_code == 201
    r = post_event(client, m, {"type": "goal", "team": "A", "player": 2.0})
    assert r.status_code == 201, r.text
    assert r.json()["event"]["player"] == 2 and type(r.json()["event"]["player"]) is int
    record = json.loads(client.get(f"/api/matches/{m.id}/record").text)
    assert type(record["events"][-1]["player"]) is int
    assert client.get(f"/api/matches/{m.id}").json()["score"]["A"] >= 1
    r = post_event(client, m, {"type": "goal", "team": "A", "player": 2.5})
    assert r.status_code == 422 and r.json()["code"] == "invalid_event"
    assert r.json()["params"]["field"] == "event.player"


def test_match_info_has_the_definitions_limits(client: Any, header: Any) -> None:
    header["match_info"] = {"event": "e" * 120, "venue": "Pine Hill"}
    assert create(client, header).status_code == 201
    header["match_info"] = {"event": "e" * 121}
    r = create(client, header)
    assert r.status_code == 422 and r.json()["code"] == "field_too_long"
    header["match_info"] = {"venue": "Bl\ud800ue"}
    r = client.post(
        "/api/matches",
        content=json.dumps(header).encode(),
        headers={**ORGANISER_AUTH, "content-type": "application/json"},
    )
    assert r.status_code == 422 and r.json()["code"] == "bad_unicode"
