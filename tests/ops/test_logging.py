"""Structured logs: JSON lines with match id and the request's facts, never a token."""

from __future__ import annotations

import io
import json
import logging
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from chukker.ops.logging import JsonFormatter, TextFormatter, configure, redact
from chukker.web import create_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.fixture
def log_out() -> Iterator[io.StringIO]:
    out = io.StringIO()
    handler = configure("json", "info", stream=out)
    yield out
    for name in ("chukker", "uvicorn.error"):
        logging.getLogger(name).removeHandler(handler)
        logging.getLogger(name).propagate = True


def lines(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(x) for x in out.getvalue().splitlines()]


def test_access_lines_carry_match_id_status_and_code_and_no_secret(
        tmp_path: Path, log_out: io.StringIO, header: dict[str, Any]) -> None:
    organiser = "organiser-" + "o" * 20
    app = create_app(tmp_path / "l.sqlite3", organiser=organiser)
    with TestClient(app) as c:
        created = c.post("/api/matches", json=header,
                         headers={"authorization": f"Bearer {organiser}"}).json()
        mid, tk = created["match_id"], created["timekeeper_token"]
        ok = c.post(f"/api/matches/{mid}/events", headers={"authorization": f"Bearer {tk}"},
                    json={"command_id": "cmd-1", "event": {"type": "bowl_in"}})
        assert ok.status_code == 201
        bad = c.post(f"/api/matches/{mid}/events?token={tk}",
                     headers={"authorization": "Bearer not-the-token"},
                     json={"command_id": "cmd-2", "event": {"type": "whistle"}})
        assert bad.status_code == 403
        c.get(f"/m/{mid}/console?token={tk}")
    text = log_out.getvalue()
    assert tk not in text and created["committee_token"] not in text and organiser not in text
    assert "not-the-token" not in text
    got = [x for x in lines(log_out) if x["logger"] == "chukker.access"]
    posts = [x for x in got if x["method"] == "POST" and x["path"].endswith("/events")]
    assert [(x["status"], x["match_id"]) for x in posts] == [(201, mid), (403, mid)]
    assert posts[1]["code"] == "bad_token"
    assert (posts[0]["role"], posts[0]["command_id"]) == ("timekeeper", "cmd-1")
    assert "role" not in posts[1]  # the token was refused: no role
    assert all(x["level"] == "info" and x["ts"].endswith("Z") and x["ms"] >= 0 for x in got)


def test_records_with_secrets_in_their_text_are_redacted() -> None:
    rec = logging.LogRecord("chukker.live", logging.WARNING, __file__, 1,
                            "retrying with Authorization: Bearer %s", ("abc123",), None)
    rec.match_id, rec.role, rec.command_id = "m1", "timekeeper", "c9"
    out = json.loads(JsonFormatter().format(rec))
    assert out["msg"] == "retrying with Authorization: Bearer [redacted]"
    assert (out["match_id"], out["role"], out["command_id"]) == ("m1", "timekeeper", "c9")
    assert "abc123" not in TextFormatter().format(rec)


@pytest.mark.parametrize("text", [
    "postgresql://chukker:hunter2@db:5432/chukker",
    'body {"committee_token": "hunter2"}',
    "/m/abc/console#token=hunter2",
    "organiser_token=hunter2",
])
def test_redact(text: str) -> None:
    assert "hunter2" not in redact(text)
