"""Errors with one base (issue 45): a refusal is a ``ChukkerError`` with a code and params
whose words are in one registry; the web alone maps a code to an HTTP status; an engine
that fails on an event (a bug, not a refusal) answers 500 with an incident id that is
also in the log beside the traceback, and the client is never told its event was wrong."""

from __future__ import annotations

import ast
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from chukker.engine.match import Match
from chukker.errors import API_TEMPLATES, TEMPLATES, ChukkerError, words
from chukker.live import EngineFailure, EventRefused, ServiceError
from chukker.record import RecordError
from chukker.web import create_app
from chukker.web.errors import STATUS, headers_of, status_of

SRC = Path(__file__).resolve().parents[2] / "src" / "chukker"


@pytest.mark.parametrize("boom", [ZeroDivisionError("division by zero"), KeyError("team"),
                                  AttributeError("'NoneType' object has no attribute 'x'")])
def test_an_engine_that_fails_answers_500_with_an_incident_logged_with_its_traceback(
        client: TestClient, make_match: Any, post: Any, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, boom: Exception) -> None:
    m = make_match(client)

    def fails(self: Match, ev: Mapping[str, Any], **typed: Any) -> dict[str, Any]:
        raise boom

    monkeypatch.setattr(Match, "apply", fails)
    with caplog.at_level(logging.ERROR, logger="chukker.live"):
        r = post(client, m, {"type": "bowl_in"})
    assert r.status_code == 500, r.text
    body = r.json()
    assert body["code"] == "server_error" and body["error"] == "server_error"
    incident = body["incident"]
    assert body["params"] == {"incident": incident} and len(incident) == 12
    assert "invalid" not in body["message"] and "event" not in body["message"]
    logged = [rec for rec in caplog.records if incident in rec.getMessage()]
    assert logged and logged[0].exc_info is not None
    assert logged[0].exc_info[0] is type(boom)
    # nothing stored, and the match takes the next event once the engine is well again
    monkeypatch.undo()
    assert client.get(f"/api/matches/{m.id}").json()["seq"] == 0
    assert post(client, m, {"type": "bowl_in"}).status_code == 201


def test_a_refusal_the_engine_raises_on_purpose_stays_a_422_with_its_code(
        client: TestClient, make_match: Any, post: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    m = make_match(client)

    def refuses(self: Match, ev: Mapping[str, Any], **typed: Any) -> dict[str, Any]:
        raise RecordError(code="field_type", path="event.team", expected="a string")

    monkeypatch.setattr(Match, "apply", refuses)
    r = post(client, m, {"type": "bowl_in"})
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "invalid_event" and r.json()["detail"] == "field_type"


def test_an_event_the_engine_refuses_is_a_409_with_the_engines_code(
        client: TestClient, make_match: Any, post: Any) -> None:
    m = make_match(client)
    r = post(client, m, {"type": "free_hit"})
    assert r.status_code == 409 and r.json()["code"] in TEMPLATES


def test_an_unexpected_error_anywhere_is_a_500_with_an_incident(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    app = create_app(tmp_path / "e.sqlite3")

    @app.get("/api/boom")
    async def boom() -> None:
        raise LookupError("a bug")

    with TestClient(app, raise_server_exceptions=False) as c, caplog.at_level(logging.ERROR):
        r = c.get("/api/boom")
    assert r.status_code == 500 and r.json()["code"] == "server_error"
    assert any(r.json()["incident"] in rec.getMessage() and rec.exc_info
               for rec in caplog.records)


def test_the_web_alone_maps_codes_to_statuses_and_retry_after_to_a_header() -> None:
    assert status_of(ServiceError("unknown_match", params={"match_id": "x"})) == 404
    assert status_of(EventRefused("ball_dead", params={"period": 1, "since_ms": 0})) == 409
    assert status_of(EngineFailure("abc")) == 500
    assert status_of(ServiceError("field_type")) == 422  # a record's code: the event's fault
    assert headers_of(ServiceError("busy", params={"retry_after": 1})) == {"retry-after": "1"}
    assert headers_of(ServiceError("too_many_bad_tokens", retry_after_s=60)) == {
        "retry-after": "60"}
    assert headers_of(ServiceError("no_token")) == {"www-authenticate": "Bearer"}
    assert set(STATUS) <= set(API_TEMPLATES)


def test_the_live_service_names_no_http_status() -> None:
    """``live/`` raises codes: no status, no header, no OpenAPI in its source."""
    for path in (SRC / "live").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in (
                    "ServiceError", "EventRefused"):
                assert node.args and isinstance(node.args[0], ast.Constant | ast.Attribute), (
                    path, node.lineno)
                assert not (isinstance(node.args[0], ast.Constant)
                            and isinstance(node.args[0].value, int)), (path, node.lineno)
            if isinstance(node, ast.keyword):
                assert node.arg not in ("status", "headers", "status_code"), (path, node.lineno)
        assert "openapi" not in path.read_text(encoding="utf-8").lower(), path


def _error_classes() -> list[tuple[str, str]]:
    """Every public exception class of the package: (module, name)."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                if bases & {"Exception", "ValueError", "RuntimeError"} or any(
                        b.endswith("Error") for b in bases):
                    mod = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
                    out.append((mod.removesuffix(".__init__"), node.name))
    return out


#: exceptions that are not refusals (control flow inside one module, a dependency missing
#: on this machine: a 503 with its own page), and the whistle's, whose detector imports
#: nothing of the project (tests/test_architecture.py)
NOT_REFUSALS = {
    ("chukker.whistle.wav", "WavError"),  # a ValueError; the console says it as it is
    ("chukker.engine.state", "Refused"),  # the compiled fold's own signal, never escapes
    ("chukker.web.demo", "DemoError"),  # the demo's start-up failing: a RuntimeError
    ("chukker.web.shared.sheet", "PdfUnavailable"),  # WeasyPrint missing: a RuntimeError
}


def test_every_refusal_and_failure_is_a_chukker_error_with_a_code_and_params() -> None:
    import importlib

    classes = _error_classes()
    assert len(classes) > 20
    for mod, name in classes:
        if (mod, name) in NOT_REFUSALS:
            continue
        cls = getattr(importlib.import_module(mod), name)
        assert issubclass(cls, ChukkerError) and issubclass(cls, ValueError), (mod, name)
        assert isinstance(cls.code, str) and cls.code, (mod, name)


def test_the_registry_holds_every_section_and_the_api_says_the_caps() -> None:
    assert words.SECTIONS["ENGINE"]["ball_dead"] == TEMPLATES["ball_dead"]
    assert API_TEMPLATES["too_deep"] == words.LIMITS["too_deep"]
    assert TEMPLATES["too_deep"] == words.RECORD["too_deep"]
    shared = [c for c in TEMPLATES if sum(c in s for s in words.SECTIONS.values()) > 1
              and len({s[c] for s in words.SECTIONS.values() if c in s}) > 1]
    assert set(shared) <= words.SHARED | set(words.CLUB)
