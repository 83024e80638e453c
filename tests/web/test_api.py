"""The HTTP API of the live service (issue 3): matches, events, reports, records, refusals."""

from __future__ import annotations

import json
import threading
import warnings
from pathlib import Path
from typing import Any

from tests.web.conftest import OPEN

from chukker.record import loads, replay
from chukker.web import create_app
from chukker.web.security import Throttle

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def test_create_match_returns_201_match_id_and_two_secrets(client: Any, header: Any) -> None:
    r = client.post("/api/matches", json=header)
    assert r.status_code == 201
    body = r.json()
    assert body["match_id"] and body["timekeeper_token"] != body["committee_token"]
    assert len(body["timekeeper_token"]) >= 40
    assert body["urls"]["console"].endswith("#token=" + body["timekeeper_token"])


def test_create_match_stores_only_token_hashes(client: Any, header: Any, db_path: Any) -> None:
    body = client.post("/api/matches", json=header).json()
    raw = db_path.read_bytes()
    assert body["timekeeper_token"].encode() not in raw
    assert body["committee_token"].encode() not in raw


def test_create_match_refuses_bad_roster_naming_the_field(client: Any, header: Any) -> None:
    header["teams"]["A"]["players"] = header["teams"]["A"]["players"][:2]
    r = client.post("/api/matches", json=header)
    assert r.status_code == 422
    assert r.json()["error"] in {"bad_setup", "players_count"}  # the engine's Rule 3 code
    assert "teams.A" in r.json()["message"]


def test_create_match_with_events_refused(client: Any, header: Any) -> None:
    header["events"] = [{"at": 0, "type": "bowl_in"}]
    assert client.post("/api/matches", json=header).status_code == 422


def test_event_needs_a_token_401_and_the_right_one_403(client: Any, make_match: Any,
                                                        post: Any) -> None:
    m = make_match(client)
    other = make_match(client)
    r = client.post(f"/api/matches/{m.id}/events",
                    json={"command_id": "c1", "event": {"type": "bowl_in"}})
    assert r.status_code == 401 and r.json()["error"] == "no_token"
    assert r.headers["www-authenticate"] == "Bearer"
    r = post(client, m, {"type": "bowl_in"}, auth=other.tk)
    assert r.status_code == 403 and r.json()["error"] == "bad_token"
    assert client.get(f"/api/matches/{m.id}").json()["seq"] == 0


def test_event_is_stamped_by_the_server_with_seq_and_at(client: Any, make_match: Any,
                                                         post: Any) -> None:
    m = make_match(client)
    r = post(client, m, {"type": "bowl_in"})
    assert r.status_code == 201
    assert r.json()["seq"] == 1 and r.json()["at"] == 0.0
    r = post(client, m, {"type": "goal", "team": "A", "player": 2})
    assert r.status_code == 201
    assert r.json()["seq"] == 2 and r.json()["at"] >= 0.0
    rep = client.get(f"/api/matches/{m.id}").json()
    assert rep["seq"] == 2 and rep["status"] == "in_play"
    assert rep["score"] == {"A": 3, "B": 0}  # 1 goal + 2 handicap goals (Rule 17)


def test_event_with_at_is_refused_the_server_stamps_time(client: Any, make_match: Any,
                                                         post: Any) -> None:
    m = make_match(client)
    r = post(client, m, {"type": "bowl_in", "at": 12.0})
    assert r.status_code == 422 and r.json()["error"] == "at_not_allowed"


def test_unknown_event_type_422(client: Any, make_match: Any, post: Any) -> None:
    m = make_match(client)
    r = post(client, m, {"type": "touchdown"})
    assert r.status_code == 422 and "touchdown" in r.json()["message"]


def test_engine_refusal_409_with_reason_and_nothing_applied(client: Any, make_match: Any,
                                                            post: Any) -> None:
    m = make_match(client)
    post(client, m, {"type": "bowl_in"})
    r = post(client, m, {"type": "free_hit"})
    assert r.status_code == 409
    body = r.json()
    assert body["error"] == body["code"] != "" and body["index"] == 2  # the engine's code
    assert body["message"].startswith("event 2 (free_hit at ")
    assert "pending" in body["reason"]
    rec = client.get(f"/api/matches/{m.id}/record").json()
    assert [e["type"] for e in rec["events"]] == ["bowl_in"]


def test_command_id_is_idempotent_for_the_whole_match(client: Any, make_match: Any,
                                                      post: Any) -> None:
    m = make_match(client)
    post(client, m, {"type": "bowl_in"}, command_id="start")
    a = post(client, m, {"type": "goal", "team": "B", "player": 1}, command_id="g1")
    post(client, m, {"type": "whistle"}, command_id="w1")
    again = post(client, m, {"type": "goal", "team": "B", "player": 1}, command_id="g1")
    assert a.status_code == 201 and again.status_code == 200
    assert again.json()["duplicate"] is True and again.json()["seq"] == a.json()["seq"] == 2
    reused = post(client, m, {"type": "goal", "team": "A"}, command_id="g1")
    assert reused.status_code == 409 and reused.json()["error"] == "command_reused"
    assert client.get(f"/api/matches/{m.id}").json()["seq"] == 3


def test_race_two_clients_same_command_id_make_one_event(live_server: Any, make_match: Any,
                                                         post: Any) -> None:
    with live_server.client() as c:
        m = make_match(c)
        post(c, m, {"type": "bowl_in"})
        results: list[int] = []
        barrier = threading.Barrier(8)

        def send() -> None:
            with live_server.client() as c2:
                barrier.wait()
                r = post(c2, m, {"type": "goal", "team": "A", "player": 1}, command_id="same")
                results.append(r.status_code)

        threads = [threading.Thread(target=send) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results) == [200] * 7 + [201]
        events = c.get(f"/api/matches/{m.id}/record").json()["events"]
        assert [e["type"] for e in events] == ["bowl_in", "goal"]


def test_rule_18_undo_after_the_final_needs_the_committee_token(client: Any, make_match: Any,
                                                                post: Any) -> None:
    m = make_match(client)
    post(client, m, {"type": "bowl_in"})
    assert post(client, m, {"type": "forfeit", "team": "B"}, auth=m.cm).status_code == 201
    assert client.get(f"/api/matches/{m.id}").json()["status"] == "final"
    r = post(client, m, {"type": "undo", "event": 2})
    assert r.status_code == 403 and r.json()["error"] == "committee_only"
    r = post(client, m, {"type": "undo", "event": 2}, auth=m.cm)
    assert r.status_code == 201
    assert client.get(f"/api/matches/{m.id}").json()["status"] != "final"


def test_undo_is_a_compensating_event_the_goal_stays_in_the_record(
        client: Any, make_match: Any, post: Any) -> None:
    m = make_match(client, options={"handicap": False})
    post(client, m, {"type": "bowl_in"})
    g = post(client, m, {"type": "goal", "team": "A", "player": 2}).json()
    assert client.get(f"/api/matches/{m.id}").json()["score"] == {"A": 1, "B": 0}
    assert post(client, m, {"type": "undo", "event": g["seq"]}).status_code == 201
    assert client.get(f"/api/matches/{m.id}").json()["score"] == {"A": 0, "B": 0}
    events = client.get(f"/api/matches/{m.id}/record").json()["events"]
    assert [e["type"] for e in events] == ["bowl_in", "goal", "undo"]


def test_report_at_a_past_instant_and_record_replays_to_it(client: Any, make_match: Any,
                                                          post: Any) -> None:
    m = make_match(client)
    post(client, m, {"type": "bowl_in"})
    post(client, m, {"type": "goal", "team": "A", "player": 1})
    post(client, m, {"type": "foul", "team": "B", "player": 3, "penalty": "2", "clause": "13b"})
    at = client.get(f"/api/matches/{m.id}").json()["at"]
    live = client.get(f"/api/matches/{m.id}", params={"at": at}).json()
    record = client.get(f"/api/matches/{m.id}/record").json()
    offline = replay(record, at_ms=round(at * 1000))
    for key, value in offline.items():
        assert live[key] == value, key
    assert live["pending_penalty"]["penalty"] == "2"


def test_record_toml_form(client: Any, make_match: Any, post: Any) -> None:
    m = make_match(client)
    post(client, m, {"type": "bowl_in"})
    r = client.get(f"/api/matches/{m.id}/record", params={"format": "toml"})
    assert r.status_code == 200
    as_json = client.get(f"/api/matches/{m.id}/record").json()
    assert loads(r.text, "toml") == loads(json.dumps(as_json))


def test_unknown_match_404_json(client: Any) -> None:
    r = client.get("/api/matches/nope")
    assert r.status_code == 404 and r.json()["error"] == "unknown_match"


def test_openapi_document_is_served(client: Any) -> None:
    doc = client.get("/openapi.json").json()
    assert "/api/matches/{match_id}/events" in doc["paths"]
    assert client.get("/docs").status_code == 200


def test_request_body_over_64_kib_refused_413(client: Any, make_match: Any) -> None:
    m = make_match(client)
    big = {"command_id": "x", "event": {"type": "whistle", "reason": "x" * 70_000}}
    r = client.post(f"/api/matches/{m.id}/events", headers=m.tk, json=big)
    assert r.status_code == 413 and r.json()["error"] == "too_large"

    def chunks() -> Any:
        for _ in range(80):
            yield b"x" * 1024

    r = client.post("/api/matches", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_malformed_json_body_is_a_clear_json_error(client: Any, make_match: Any) -> None:
    m = make_match(client)
    r = client.post(f"/api/matches/{m.id}/events", headers={**m.tk,
                    "content-type": "application/json"}, content=b"{not json")
    assert r.status_code == 422 and r.json()["error"] == "bad_request"
    r = client.post(f"/api/matches/{m.id}/events", headers=m.tk, json={"event": {}})
    assert r.status_code == 422 and "command_id" in r.json()["message"]


def test_repeated_bad_tokens_are_slowed_down_then_refused_429_but_the_real_token_passes(
        db_path: Path, make_match: Any, post: Any) -> None:
    app = create_app(db_path, **OPEN, throttle=Throttle(free=1, block=4, max_delay=0.0))
    with TestClient(app) as client:
        m = make_match(client)
        bad = {"authorization": "Bearer wrong"}
        codes = [post(client, m, {"type": "bowl_in"}, auth=bad).status_code for _ in range(5)]
        assert codes == [403, 403, 403, 403, 429]
        # the real timekeeper behind the same address is not locked out
        assert post(client, m, {"type": "bowl_in"}).status_code == 201


def test_throttle_delays_grow_after_the_free_attempts() -> None:
    t = Throttle(free=2, block=100, max_delay=1.0)
    delays = [t.fail(("1.2.3.4", "m1")) for _ in range(8)]
    assert delays[:2] == [0.0, 0.0]
    assert delays[2:] == sorted(delays[2:]) and delays[-1] == 1.0
    assert t.fail(("5.6.7.8", "m1")) == 0.0


def test_server_time_endpoint(client: Any) -> None:
    assert client.get("/api/time").json()["server_time"] > 1_600_000_000_000


def test_list_matches_shows_public_data_only(client: Any, make_match: Any) -> None:
    m = make_match(client)
    rows = client.get("/api/matches").json()
    assert rows[0]["match_id"] == m.id and rows[0]["teams"] == {"A": "Blue", "B": "White"}
    assert "token" not in str(rows)
