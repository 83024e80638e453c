"""The key press's lean path (issue 43): ``POST /api/matches/{id}/events`` takes a plain
body around FastAPI's dependencies and the model's validation, and answers every body
as FastAPI's full path does.

The guard's four questions, for this path (the route and its door are unchanged):
who may call it (the match's tokens, as before: ``test_..._answer_alike`` posts with no
token, another match's token and a committee token), how big its input may be (the
guard's body limit comes first: ``test_an_oversize_key_press_is_refused_before_either_
path``), server paths (none: the body names a command and an event), and what it may
delay (less work on the loop than before: ``benchmarks/post_cpu.py``, README).
"""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.web.conftest import OPEN, Match

from chukker.web import create_app
from chukker.web.api import routes
from chukker.web.api.routes import EventCommand, KeyPressRoute, plain_command

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

JSON = "application/json"

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-10**20, max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 0.0, 1e7, 1e7 + 1, -0.0, 5e-324, 9999999.999]),
    st.text(max_size=140), st.sampled_from(["k1", "a.b:c-d_e", "k1\n", "", "x" * 128,
                                            "x" * 129, "é", "3"]))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8)
_bodies = st.dictionaries(
    st.sampled_from(["command_id", "event", "at", "extra", "Event"]), _values, max_size=4)


@settings(max_examples=400, deadline=None)
@given(body=st.one_of(_bodies, _values))
def test_a_plain_command_is_one_the_model_takes_and_reads_alike(body: Any) -> None:
    """Whatever the lean path takes, FastAPI's model takes too, as the same command."""
    raw = json.dumps(body).encode()  # NaN and Infinity as Python's json writes them
    cmd = plain_command(raw, JSON)
    if cmd is None:
        return
    model = EventCommand.model_validate(json.loads(raw))
    assert (cmd.command_id, cmd.event) == (model.command_id, model.event)
    assert type(cmd.at) is type(model.at) and (cmd.at == model.at)
    assert cmd.at is None or math.isfinite(cmd.at)


@pytest.mark.parametrize("body", [
    b'{"command_id": "k", "event": {}, "at": true}',
    b'{"command_id": "k", "event": {}, "at": "2.5"}',
    b'{"command_id": "k", "event": {}, "at": -1}',
    b'{"command_id": "k", "event": {}, "at": NaN}',
    b'{"command_id": "k", "event": {}, "at": 1e400}',
    b'{"command_id": "k\\n", "event": {}}',
    b'{"command_id": "", "event": {}}',
    b'{"command_id": 7, "event": {}}',
    b'{"command_id": "k", "event": []}',
    b'{"command_id": "k"}',
    b'{"command_id": "k", "event": {}, "more": 1}',
    b'["command_id"]',
    b'{"command_id": "k", "event": {}',
    b"\xff\xfe{",
])
def test_a_body_that_is_not_plainly_a_command_takes_the_full_path(body: bytes) -> None:
    assert plain_command(body, JSON) is None


@pytest.mark.parametrize("ctype", [None, "text/plain", "application/json-seq",
                                   "application/vnd.x+json", "multipart/form-data"])
def test_only_a_json_body_takes_the_lean_path(ctype: str | None) -> None:
    body = b'{"command_id": "k", "event": {"type": "bowl_in"}}'
    assert plain_command(body, ctype) is None
    assert plain_command(body, "Application/JSON; charset=utf-8") is not None


def test_the_events_route_is_the_key_press_route() -> None:
    route = next(r for r in routes.router.routes
                 if getattr(r, "path", "") == "/api/matches/{match_id}/events")
    assert type(route) is KeyPressRoute


def _posts(m: Match, other: Match) -> list[tuple[dict[str, str], bytes, str | None]]:
    """(headers, body, content type): every answer a key press can get, in order."""
    tk, cm = m.tk, m.cm

    def cmd(cid: str, event: dict[str, Any], **more: Any) -> bytes:
        return json.dumps({"command_id": cid, "event": event, **more}).encode()

    return [
        ({}, cmd("c0", {"type": "bowl_in"}), JSON),                      # no token: 401
        (other.tk, cmd("c0", {"type": "bowl_in"}), JSON),                # another match's
        (cm, cmd("c0", {"type": "goal", "team": "A", "player": 1}), JSON),
        (tk, cmd("c1", {"type": "bowl_in"}), JSON),                      # 201
        (tk, cmd("c1", {"type": "bowl_in"}), JSON),                      # duplicate: 200
        (tk, cmd("c2", {"type": "goal", "team": "A", "player": 2}), JSON),
        (tk, cmd("c3", {"type": "nope"}), JSON),                         # unknown type
        (tk, cmd("c4", {"type": "goal", "at": 3}), JSON),                # at in the event
        (tk, cmd("c5", {"type": "goal", "team": "Z", "player": 2}), JSON),
        (tk, cmd("c6", {"type": "whistle"}, at=5.0), JSON),              # at ahead: note
        (tk, cmd("c7", {"type": "whistle"}, at="1"), JSON),              # the model's 1.0
        (tk, cmd("c8", {"type": "whistle"}, extra=1), JSON),             # extra: 422
        (tk, cmd("c9", {"type": "whistle"}), "text/plain"),              # not JSON: 422
        (tk, b'{"command_id": "c10", ', JSON),                           # bad JSON: 422
        (tk, cmd("c\n", {"type": "whistle"}), JSON),                     # bad id: 422
    ]


def _answer(r: Any) -> tuple[int, Any]:
    """Status and body, less the instants (the server stamps its own) and the match's
    own id."""
    body = json.loads(re.sub(r"at \d+\.\d+ s", "at _ s", r.text))
    if isinstance(body, dict):
        body.pop("at", None)
        body.pop("recorded_ms", None)
        if isinstance(body.get("event"), dict):
            body["event"].pop("at", None)
        if isinstance(body.get("params"), dict):
            body["params"].pop("match_id", None)
    return r.status_code, body


def test_a_key_press_gets_the_same_answer_on_either_path(
        tmp_path: Path, make_match: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[bool] = []

    def spy(body: bytes, ctype: str | None) -> EventCommand | None:
        cmd = plain_command(body, ctype)
        taken.append(cmd is not None)
        return cmd

    with TestClient(create_app(tmp_path / "k.sqlite3", **OPEN)) as c:
        lean, full, other = make_match(c), make_match(c), make_match(c)
        answers: dict[str, list[tuple[int, Any]]] = {"lean": [], "full": []}
        for name, m in (("lean", lean), ("full", full)):
            monkeypatch.setattr(routes, "plain_command",
                                spy if name == "lean" else lambda body, ctype: None)
            for headers, body, ctype in _posts(m, other):
                h = {**headers, **({"content-type": ctype} if ctype else {})}
                answers[name].append(
                    _answer(c.post(f"/api/matches/{m.id}/events", content=body, headers=h)))
        assert answers["lean"] == answers["full"]
        statuses = [s for s, _ in answers["lean"]]
        # the committee's goal before the bowl-in and team Z are the engine's 409s; the
        # model reads at="1" as 1.0 (the full path, which the lean one leaves it to)
        assert statuses == [401, 403, 409, 201, 200, 201, 422, 422, 409, 201, 201,
                            422, 422, 422, 422], statuses
        assert any(taken) and not all(taken)  # both paths were walked
        assert c.get(f"/api/matches/{lean.id}").json()["score"] == \
            c.get(f"/api/matches/{full.id}").json()["score"]


def test_an_unknown_match_is_404_on_either_path(
        client: Any, make_match: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    m = make_match(client)
    body = b'{"command_id": "u1", "event": {"type": "bowl_in"}}'
    h = {**m.tk, "content-type": JSON}
    lean = _answer(client.post("/api/matches/nosuchmatch1/events", content=body, headers=h))
    monkeypatch.setattr(routes, "plain_command", lambda body, ctype: None)
    full = _answer(client.post("/api/matches/nosuchmatch1/events", content=body, headers=h))
    assert lean == full and lean[0] == 404


def test_an_oversize_key_press_is_refused_before_either_path(
        client: Any, make_match: Any) -> None:
    m = make_match(client)
    pad = "x" * (65 * 1024)
    r = client.post(f"/api/matches/{m.id}/events", headers=m.tk,
                    json={"command_id": "big", "event": {"type": "bowl_in"}, "pad": pad})
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    assert client.get(f"/api/matches/{m.id}").json()["seq"] == 0


def test_the_key_press_is_still_documented_as_before(client: Any) -> None:
    op = client.get("/openapi.json").json()["paths"]["/api/matches/{match_id}/events"]["post"]
    assert op["operationId"].startswith("post_event")
    schema = op["requestBody"]["content"][JSON]["schema"]
    assert schema["$ref"].endswith("/EventCommand")
    assert {"200", "201", "401", "403", "409", "422", "429", "503"} <= set(op["responses"])
