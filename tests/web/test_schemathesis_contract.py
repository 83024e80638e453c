"""The OpenAPI says every answer (issue 24, items 5-7): Schemathesis's status-code,
content-type, Allow-header and positive-data checks on the API and the tournament
operations, the document generated from the route inventory (web/guard.py).

Positive data is accepted: what the schema says is valid, the server takes (the match
header's schema comes from the record's one definition; a tournament's text has its own
``format``, generated here as valid tournament files). What JSON Schema cannot say of a
header (numbers and mount ids unique within a team, a mount on one team only,
``first_defends`` naming the two teams) its descriptions say, and
:func:`as_the_descriptions_say` makes the generated headers say it too. Half the
requests go to a real match, with the organiser's token, the match's timekeeper's, or
the generated one: positive data is checked past the lookup and the token."""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import json
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")

import tomli_w  # noqa: E402
from hypothesis import Phase, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
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

from chukker.record.definitions import FEATURE_OPTIONS  # noqa: E402
from chukker.rules.club import ClubError, club_edition  # noqa: E402
from chukker.web.guard_openapi import TOURNAMENT_JSON, TOURNAMENT_TOML  # noqa: E402

ORGANISER = "contract-organiser-token"
EXAMPLES = examples(12)
pytestmark = pytest.mark.xdist_group("schemathesis")

APP = throwaway_app("chukker-contract-", ORGANISER, tournaments=True)
schema = schema_of(APP, "^/(api|tournaments)/", EXAMPLES)

#: a real match and the tokens the requests carry (the organiser's, the match's
#: timekeeper's; filled by the fixture), so that positive data gets past the lookup and
#: the token to the checks of the body
KNOWN: dict[str, Any] = {}
to_the_real_match(schema, KNOWN)


@pytest.fixture(scope="module", autouse=True)
def known_match() -> dict[str, Any]:
    if not KNOWN:
        body = create_match(APP, ORGANISER)
        KNOWN.update(match_id=body["match_id"], tokens=[ORGANISER, body["timekeeper_token"]])
    return KNOWN


CHECKS = [
    schemathesis.checks.not_a_server_error,
    schemathesis.checks.status_code_conformance,
    schemathesis.checks.content_type_conformance,
    schemathesis.checks.response_schema_conformance,
    schemathesis.checks.allow_header_conformance,
    schemathesis.checks.positive_data_acceptance,
]

NAME = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1,
               max_size=30).filter(str.strip)


@st.composite
def tournament_files(draw: st.DrawFn) -> dict[str, Any]:
    """A valid ``chukker-tournament/1`` file (docs/tournament.md): a register whose
    players are registered and have a handicap in force on the day, two to four teams
    of three, one round robin and some of its matches."""
    year = draw(st.integers(2020, 2030))
    n = draw(st.integers(2, 4))
    teams = [f"t{i}" for i in range(n)]
    players, rosters = [], []
    for t in teams:
        ids = [f"{t}p{k}" for k in (1, 2, 3)]
        for pid in ids:
            players.append({"id": pid, "name": draw(NAME), "registered": [year],
                            "handicaps": [{"from": dt.date(year, 1, 1),
                                           "value": draw(st.integers(-2, 10))}]})
        rosters.append({"id": t, "name": draw(NAME), "players": ids,
                        "captain": draw(st.sampled_from(ids))})
    pairs = draw(st.lists(st.sampled_from(list(itertools.combinations(teams, 2))),
                          min_size=1, unique=True))
    day = dt.datetime(year, draw(st.integers(1, 12)), draw(st.integers(1, 28)), 9)
    matches = []
    for i, (a, b) in enumerate(pairs, 1):
        m: dict[str, Any] = {"id": f"m{i}", "stage": "pool",
                             "start": day + dt.timedelta(hours=i), "teams": [a, b]}
        arena = draw(st.sampled_from(["Arena 1", "Arena 2", None]))
        if arena is not None:
            m["arena"] = arena
        matches.append(m)
    return {
        "format": "chukker-tournament/1", "name": draw(NAME), "venue": draw(NAME),
        "rules": draw(st.sampled_from(["uspa-arena-2026", "uspa-arena-2006"])),
        "team_handicap": {"min": -6, "max": 30},
        "match_options": {"tiebreak": draw(st.sampled_from(["shootout", "extra-periods"])),
                          "handicap": draw(st.booleans())},
        "players": players, "teams": rosters,
        "stages": [{"id": "pool", "kind": "round-robin", "teams": teams}],
        "matches": matches,
    }


def _iso(v: Any) -> str:
    assert isinstance(v, dt.date)
    return v.isoformat()


schemathesis.openapi.format(TOURNAMENT_TOML, tournament_files().map(tomli_w.dumps))
schemathesis.openapi.format(TOURNAMENT_JSON, tournament_files().map(
    lambda d: json.dumps(d, default=_iso)))


def as_the_descriptions_say(case: Any) -> Any:
    """A generated header made to say what its schema's descriptions do and JSON Schema
    cannot: alternates' numbers and mount ids unique within a team, a mount on one team
    only (Rule 2), ``first_defends`` naming the two teams, a plan (record 1.3) keyed by
    the team's players and naming the team's own mounts."""
    body = case.body
    teams = body.get("teams") if isinstance(body, dict) else None
    if not isinstance(teams, dict):
        return case
    mounts: set[str] = set()
    for team in teams.values():
        alternates = {p["no"]: p for p in team.get("alternates", [])}
        if "alternates" in team:
            team["alternates"] = list(alternates.values())
        if "mounts" in team:
            kept = {m["id"]: m for m in team["mounts"] if m["id"] not in mounts}
            mounts.update(kept)
            team["mounts"] = list(kept.values())
    for team in teams.values():
        if isinstance(team.get("plan"), dict):
            mine = {m["id"] for m in team.get("mounts", [])}
            numbers = {p["no"] for p in [*team.get("players", []), *team.get("alternates", [])]}
            team["plan"] = {k: [m for m in v if m in mine] for k, v in team["plan"].items()
                            if int(k) in numbers}
    edition = body.get("edition")
    if body.get("rules") == "club" and isinstance(edition, dict):
        try:  # what the description says and JSON Schema cannot: a coherent period plan
            ed = club_edition(edition)
        except ClubError:
            body["edition"] = {"base": edition["base"], "name": edition["name"]}
            ed = club_edition(body["edition"])
        options = body.get("options")
        for feature, (option, value) in FEATURE_OPTIONS.items():
            if isinstance(options, dict) and not ed.has(feature) and options.get(option) == value:
                del options[option]  # not_in_edition: the club's edition lacks the feature
    ends = (body.get("options") or {}).get("first_defends")
    if isinstance(ends, dict):
        body["options"]["first_defends"] = dict(zip(teams, ends.values(), strict=True))
    return case


OPERATIONS = operations(APP, ("/api/", "/tournaments/"))


@functools.cache
def cases(label: str) -> Any:
    return requests_of(schema, label,
                       as_the_descriptions_say if label == "POST /api/matches" else None)


@pytest.mark.parametrize("label", OPERATIONS)
@bounded(EXAMPLES)
@given(data=st.data())
def test_every_answer_of_an_operation_is_in_the_openapi(label: str, data: st.DataObject) -> None:
    case = data.draw(cases(label))
    case.call_and_validate(checks=CHECKS, timeout=10)


@pytest.mark.parametrize("label", ["POST /api/matches", "POST /tournaments/api"])
@bounded(EXAMPLES, phases=[Phase.generate])
@given(data=st.data())
def test_positive_data_with_the_organisers_token_is_taken(label: str,
                                                          data: st.DataObject) -> None:
    """Not left to the token's draw: every valid header and tournament text, sent by the
    organiser, is created (201) or, the same tournament again, updated (200)."""
    method, path = label.split(" ", 1)
    case = data.draw(schema[path][method].as_strategy(GenerationMode.POSITIVE))
    if label == "POST /api/matches":
        case = as_the_descriptions_say(case)
    case.headers = {**(case.headers or {}), "authorization": bearer(ORGANISER)}
    r = case.call(timeout=10)
    assert r.status_code in (200, 201), (r.status_code, r.text[:500], case.body)


@pytest.mark.parametrize("method", ["OPTIONS", "TRACE", "DELETE", "PATCH"])
def test_another_method_answers_405_with_the_full_allow(method: str) -> None:
    with st_asgi.get_client(APP) as c:
        for path, allow in (("/api/matches", "GET, HEAD, POST"), ("/healthz", "GET, HEAD"),
                            ("/tournaments/api", "GET, HEAD, POST")):  # GET: /{tid}
            r = c.request(method, path)
            assert r.status_code == 405, (method, path, r.status_code)
            assert r.headers["allow"] == allow, (path, r.headers.get("allow"))
            assert r.json()["code"] == "method_not_allowed"


def test_the_openapi_carries_the_real_bodies_and_answers() -> None:
    doc = APP.openapi()
    paths = doc["paths"]
    create = paths["/api/matches"]["post"]
    assert create["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/MatchHeader")
    header = doc["components"]["schemas"]["MatchHeader"]
    assert header["type"] == "object" and "teams" in header["required"]
    assert "events" not in header["properties"]
    assert "401" in paths["/tournaments/api"]["post"]["responses"]
    assert "400" in paths["/api/matches/{match_id}/events"]["post"]["responses"]
    assert "application/toml" in paths["/api/matches/{match_id}/record"]["get"]["responses"][
        "200"]["content"]
    assert "404" in paths["/tournaments/{tid}/bracket.svg"]["get"]["responses"]


def test_schema_refuses_what_the_server_refuses() -> None:
    import jsonschema

    doc = APP.openapi()
    header = doc["components"]["schemas"]["MatchHeader"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(None, header)
    upload = doc["components"]["schemas"]["TournamentUpload"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({}, upload)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"tournament": {}}, upload)
