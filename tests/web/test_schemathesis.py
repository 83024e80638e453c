"""Fuzz the live API from its own OpenAPI document with Schemathesis.

Every ``/api`` operation is called in-process (the ASGI app on a fresh SQLite
file) with generated requests, valid and invalid, without a token, with a bad
one and with the organiser's, timekeeper's and committee's tokens of a real
match. Checks: never a 5xx, every non-2xx is JSON with ``error`` and ``code``,
and responses match the schema the OpenAPI documents for them.

Bounded and deterministic (derandomized, 25 examples per operation);
``CHUKKER_FUZZ_EXAMPLES=500`` runs a longer fuzz locally (see docs/live.md).
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import Phase, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schemathesis.python import asgi as st_asgi  # noqa: E402
from tests.web.schemathesis_shared import (  # noqa: E402
    bearer,
    bounded,
    create_match,
    examples,
    operations,
    requests_of,
    schema_of,
    throwaway_app,
    to_the_real_match,
)

from chukker.web.api.routes import EVENT_TYPES  # noqa: E402
from chukker.web.demo import DEMO_HEADER  # noqa: E402

ORGANISER = "fuzz-organiser-token"
#: examples per operation (raise locally for a longer fuzz)
EXAMPLES = examples(25)

pytestmark = pytest.mark.xdist_group("schemathesis")

#: the created match and its tokens (organiser, timekeeper, committee), filled by the
#: fixture, read by the hooks
KNOWN: dict[str, Any] = {}

#: the app on a throw-away SQLite file (built at import: Schemathesis parametrizes from it)
APP = throwaway_app("chukker-fuzz-", ORGANISER)
schema = schema_of(APP, "^/api/", EXAMPLES)
# half the time the real match, so the operations get past the lookup; no token, the
# generated one, or each real token
to_the_real_match(schema, KNOWN, without_token=True)


@pytest.fixture(scope="module", autouse=True)
def known_match() -> dict[str, Any]:
    """A match with two events, created once; its id and tokens feed the hooks."""
    if not KNOWN:
        body = create_match(APP, ORGANISER, [{"type": "bowl_in"},
                                             {"type": "goal", "team": "A", "player": 1}])
        KNOWN.update(match_id=body["match_id"], tokens=[
            ORGANISER, body["timekeeper_token"], body["committee_token"]])
    return KNOWN


#: values an attacker might put anywhere in a body
HOSTILE = st.one_of(
    st.text(max_size=80), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(), st.none(),
    st.sampled_from(["Bl\ud800ue", "x" * 70, "\u00b2", "e\u0301", [[[[["deep"]]]]],
                     10**400, -3, 11, {"extra": 1}]),
)


def _hostile_header(draw: Any) -> dict[str, Any]:
    h = copy.deepcopy(DEMO_HEADER)
    where = draw(st.sampled_from(["name", "handicap", "player_name", "options", "extra",
                                  "rules", "none"]))
    value = draw(HOSTILE)
    team = h["teams"]["A"]
    if where == "name":
        team["name"] = value
    elif where == "handicap":
        team["players"][0]["handicap"] = value
    elif where == "player_name":
        team["players"][0]["name"] = value
    elif where == "options":
        h["options"] = {draw(st.text(max_size=20)): value}
    elif where == "extra":
        h[draw(st.text(max_size=20))] = value
    elif where == "rules":
        h["rules"] = value
    return h


def _hostile_event(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from([*sorted(EVENT_TYPES), "nope"]))
    ev: dict[str, Any] = {"type": kind}
    for key in draw(st.lists(st.sampled_from(["team", "player", "clause", "penalty",
                                              "card", "target", "reason", "extra"]),
                             max_size=3)):
        ev[key] = draw(st.one_of(st.sampled_from(["A", "B", 1, 2, 3, 0, "2"]), HOSTILE))
    return ev


@schema.hook
def flatmap_body(ctx: Any, body: Any) -> Any:
    """Beside the generated bodies, the stock header / well-formed events with one hostile value."""
    label = ctx.operation.label
    if label == "POST /api/matches":
        return st.one_of(st.just(body), st.composite(_hostile_header)())
    if label == "POST /api/matches/{match_id}/events" and isinstance(body, dict):
        return st.one_of(st.just(body), st.composite(_hostile_event)().map(
            lambda ev: {**body, "event": ev}))
    return st.just(body)


def error_is_json_with_code(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every non-2xx answer is JSON ``{"error": <code>, "code": <code>, ...}``."""
    if 200 <= response.status_code < 300:
        return None
    ctype = response.headers.get("content-type", [""])
    ctype = ctype[0] if isinstance(ctype, list) else ctype
    assert ctype.startswith("application/json"), (
        f"{response.status_code} answered as {ctype!r}: {response.text[:200]!r}")
    body = json.loads(response.text)
    assert isinstance(body, dict) and isinstance(body.get("code"), str), body
    assert body.get("error") == body["code"], body
    return None


#: the fuzzed operations, one test each ("GET /api/time", ...)
OPERATIONS = operations(APP, ("/api/",))


@functools.cache
def cases(label: str) -> Any:
    """Valid and invalid requests of one operation (the hooks above applied)."""
    return requests_of(schema, label)


@pytest.mark.parametrize("label", OPERATIONS)
@bounded(EXAMPLES)
@given(data=st.data())
def test_api_operation(label: str, data: st.DataObject) -> None:
    case = data.draw(cases(label))
    case.call_and_validate(
        checks=[schemathesis.checks.not_a_server_error,
                schemathesis.checks.response_schema_conformance],
        additional_checks=[error_is_json_with_code],
        timeout=10,
    )


# What the fuzzing found: the OpenAPI described FastAPI's ``HTTPValidationError``
# for every 422 (the API never sends it) and no 404 on match operations; both now
# document the refusal body (``ApiError``), which Schemathesis checks above.

def test_openapi_documents_the_refusal_body_for_every_api_error() -> None:
    doc = APP.openapi()
    ref = {"$ref": "#/components/schemas/ApiError"}
    for path, ops in doc["paths"].items():
        if not path.startswith("/api/"):
            continue
        for op in ops.values():
            if "{match_id}" in path:
                assert "404" in op["responses"], path
            for status, resp in op["responses"].items():
                if status[0] in "45":
                    assert resp["content"]["application/json"]["schema"] == ref, (path, status)


@pytest.mark.parametrize("name", ["attacker_sends_a_lone_surrogate_team_name",
                                  "attacker_sends_a_huge_handicap",
                                  "attacker_sends_an_unknown_header_key"])
def test_hostile_setups_are_json_refusals_matching_the_schema(name: str) -> None:
    import jsonschema

    from chukker.web.errors import ERROR_SCHEMA

    h = copy.deepcopy(DEMO_HEADER)
    if "surrogate" in name:
        h["teams"]["A"]["name"] = "Bl\ud800ue"
    elif "handicap" in name:
        h["teams"]["A"]["players"][0]["handicap"] = 10**400
    else:
        h["x"] = [[[[["deep"]]]]]
    with st_asgi.get_client(APP) as c:
        r = c.post("/api/matches", data=json.dumps(h),
                   headers={"authorization": bearer(ORGANISER),
                            "content-type": "application/json"})
        assert r.status_code == 422, r.text
        jsonschema.validate(r.json(), ERROR_SCHEMA)
        # a refusal of the request model itself (FastAPI's validation) has the same shape
        # (with a token: without one the guard answers the declared 401 first)
        r = c.post("/api/matches/x/events", json={"command_id": "", "event": []},
                   headers={"authorization": bearer("some-token")})
        assert r.status_code == 422
        jsonschema.validate(r.json(), ERROR_SCHEMA)


# A sequence phase, hand-written (the OpenAPI has no links for Schemathesis'
# state machine): a match gets a run of plausible and hostile events, some
# command_ids reused; after every answer the store holds exactly the events
# answered 201 ("no answer other than 2xx for a committed event").

_PLAUSIBLE = st.one_of(
    st.just({"type": "bowl_in"}), st.just({"type": "whistle"}), st.just({"type": "free_hit"}),
    st.builds(lambda t, p: {"type": "goal", "team": t, "player": p},
              st.sampled_from("AB"), st.integers(1, 3)),
    st.builds(lambda t, p, pen: {"type": "foul", "team": t, "player": p, "penalty": pen},
              st.sampled_from("AB"), st.integers(1, 3),
              st.sampled_from(["1", "2", "3", "4", "5", "6", "penalty_1", "x"])),
    st.builds(lambda t: {"type": "timeout", "team": t}, st.sampled_from("AB")),
    st.builds(lambda n: {"type": "undo", "event": n}, st.integers(-1, 12)),
    st.builds(lambda r: {"type": "clock", "remaining": r}, st.floats(-10, 500)),
)
_SEQUENCE_EVENT = st.one_of(
    _PLAUSIBLE,
    st.tuples(_PLAUSIBLE, st.sampled_from(["team", "player", "extra", "type"]), HOSTILE)
    .map(lambda t: {**t[0], t[1]: t[2]}),
)


@bounded(max(4, EXAMPLES // 2), phases=tuple(Phase))  # every phase: shrunk when it fails
@given(steps=st.lists(st.tuples(_SEQUENCE_EVENT, st.integers(0, 5), st.booleans()),
                      min_size=1, max_size=12))
def test_sequence_only_2xx_events_are_committed(
        steps: list[tuple[dict[str, Any], int, bool]]) -> None:
    with st_asgi.get_client(APP) as c:
        r = c.post("/api/matches", json=copy.deepcopy(DEMO_HEADER),
                   headers={"authorization": bearer(ORGANISER)})
        assert r.status_code == 201, r.text
        created = r.json()
        mid = created["match_id"]
        tokens = [created["timekeeper_token"], created["committee_token"]]
        committed = 0
        for i, (event, reuse, committee) in enumerate(steps):
            command_id = f"c{reuse}" if reuse < 2 else f"n{i}"
            r = c.post(f"/api/matches/{mid}/events",
                       headers={"authorization": bearer(tokens[committee])},
                       data=json.dumps({"command_id": command_id, "event": event}))
            assert r.status_code in (200, 201, 409, 422), (event, r.status_code, r.text)
            if r.status_code == 201:
                committed += 1
            else:
                assert r.headers["content-type"].startswith("application/json")
                body = r.json()
                if r.status_code != 200:
                    assert body["error"] == body["code"], body
                else:
                    assert body["duplicate"] is True
            report = c.get(f"/api/matches/{mid}").json()
            assert report["seq"] == committed, (event, r.text)
        record = c.get(f"/api/matches/{mid}/record").json()
        assert len(record["events"]) == committed


@pytest.mark.parametrize("raw", [
    '{"command_id": "nan1", "event": {"type": "goal", "team": "A", "player": NaN}}',
    '{"command_id": "inf1", "event": {"type": "clock", "remaining": Infinity}}',
    '{"command_id": "inf2", "event": {"type": "bowl_in"}, "at": -Infinity}',
    '{"command_id": "big1", "event": {"type": "undo", "event": 1e999}}',
])
def test_attacker_sends_non_finite_numbers_in_an_event(raw: str) -> None:
    mid = KNOWN["match_id"]
    with st_asgi.get_client(APP) as c:
        before = c.get(f"/api/matches/{mid}").json()["seq"]
        r = c.post(f"/api/matches/{mid}/events", data=raw,
                   headers={"authorization": bearer(KNOWN["tokens"][1]),
                            "content-type": "application/json"})
        assert r.status_code == 422, r.text
        assert r.json()["error"] == r.json()["code"]
        assert c.get(f"/api/matches/{mid}").json()["seq"] == before


def test_attacker_sends_another_method_or_an_unparsable_body() -> None:
    """Found by the fuzz: these answered with the body limit as their params."""
    mid = KNOWN["match_id"]
    with st_asgi.get_client(APP) as c:
        r = c.delete(f"/api/matches/{mid}")
        assert r.status_code == 405
        assert r.json()["code"] == "method_not_allowed" and r.json()["params"] == {}
        r = c.post(f"/api/matches/{mid}/events", data=b"u\xfd\xc8\xf1",
                   headers={"authorization": bearer(KNOWN["tokens"][1]),
                            "content-type": "multipart/form-data"})
        assert 400 <= r.status_code < 500, r.text
        assert r.json()["error"] == r.json()["code"] and "limit" not in r.json()["params"]
