"""The OpenAPI says every answer (issue 24, items 5-7): Schemathesis's status-code,
content-type, Allow-header and positive-data checks on the API and the tournament
operations, the document generated from the route inventory (web/guard.py)."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.python import asgi as st_asgi  # noqa: E402

from chukker.web import create_app  # noqa: E402

ORGANISER = "contract-organiser-token"
EXAMPLES = int(os.environ.get("CHUKKER_FUZZ_EXAMPLES", "12"))
pytestmark = pytest.mark.xdist_group("schemathesis")

_DIR = tempfile.mkdtemp(prefix="chukker-contract-")
atexit.register(shutil.rmtree, _DIR, True)
os.environ.setdefault("CHUKKER_TOURNAMENTS_DIR", str(Path(_DIR) / "tournaments"))
APP = create_app(Path(_DIR) / "c.sqlite3", organiser=ORGANISER)
APP.state.throttle.max_delay = 0.0

schema = schemathesis.openapi.from_asgi("/openapi.json", APP).include(
    path_regex="^/(api|tournaments)/")
schema.config.generation.update(max_examples=EXAMPLES)
schema.config.max_stream_events = 1  # a stream: its first message, then close

CHECKS = [
    schemathesis.checks.not_a_server_error,
    schemathesis.checks.status_code_conformance,
    schemathesis.checks.content_type_conformance,
    schemathesis.checks.response_schema_conformance,
    schemathesis.checks.allow_header_conformance,
]

OPERATIONS = sorted(f"{m.upper()} {p}" for p, ops in APP.openapi()["paths"].items()
                    if p.startswith(("/api/", "/tournaments/")) for m in ops)


@schema.hook
def flatmap_headers(ctx: Any, headers: dict[str, Any] | None) -> Any:
    base = dict(headers or {})
    return st.sampled_from([base, {**base, "authorization": "Bearer " + ORGANISER}])


@functools.cache
def cases(label: str) -> Any:
    method, path = label.split(" ", 1)
    op = schema[path][method]
    return st.one_of(op.as_strategy(GenerationMode.POSITIVE),
                     op.as_strategy(GenerationMode.NEGATIVE))


@pytest.mark.parametrize("label", OPERATIONS)
@settings(derandomize=True, deadline=None, database=None, max_examples=EXAMPLES,
          suppress_health_check=list(HealthCheck), phases=[Phase.explicit, Phase.generate])
@given(data=st.data())
def test_every_answer_of_an_operation_is_in_the_openapi(label: str, data: st.DataObject) -> None:
    case = data.draw(cases(label))
    case.call_and_validate(checks=CHECKS, timeout=10)


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
