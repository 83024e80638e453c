"""Behind a reverse proxy: forwarding headers believed only from trusted proxies."""

from __future__ import annotations

import io
import json
import logging
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import Request

from chukker.config import load
from chukker.ops.logging import configure
from chukker.ops.proxy import TrustedProxies, forwarded_for, parse_address
from chukker.web import create_app
from chukker.web.ops.observe import client_address

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

PROXIES = TrustedProxies.parse(["10.0.0.0/8", "fd00::/8"])


@pytest.mark.parametrize(("peer", "headers", "client"), [
    # a trusted proxy forwards for the client
    ("10.0.0.2", [("x-forwarded-for", "203.0.113.9")], "203.0.113.9"),
    # two trusted hops: the first untrusted address from the right is the client
    ("10.0.0.2", [("x-forwarded-for", "198.51.100.1, 203.0.113.9, 10.0.0.3")], "203.0.113.9"),
    # several header lines are one list, in order
    ("10.0.0.2", [("x-forwarded-for", "203.0.113.9"), ("x-forwarded-for", "10.9.9.9")],
     "203.0.113.9"),
    # an untrusted peer's headers are ignored, whatever they say
    ("192.0.2.50", [("x-forwarded-for", "203.0.113.9")], "192.0.2.50"),
    ("192.0.2.50", [("forwarded", "for=203.0.113.9")], "192.0.2.50"),
    # only the chosen header (proxy_header, default X-Forwarded-For) is read: the
    # client's own Forwarded, passed on by a proxy, is never believed (issue 41)
    ("10.0.0.2", [("forwarded", 'for=203.0.113.7;proto=https, for="10.0.0.8:3456"'),
                  ("x-forwarded-for", "198.51.100.4")], "198.51.100.4"),
    ("fd00::1", [("forwarded", 'for="[2001:db8:cafe::17]:4711"')], "fd00::1"),
    # garbage or "unknown" stops the walk at the last address we can believe
    ("10.0.0.2", [("x-forwarded-for", "unknown")], "10.0.0.2"),
    ("10.0.0.2", [("x-forwarded-for", "203.0.113.9, not-an-ip, 10.0.0.3")], "10.0.0.3"),
    # only trusted hops: the leftmost one
    ("10.0.0.2", [("x-forwarded-for", "10.1.1.1")], "10.1.1.1"),
    ("10.0.0.2", [], "10.0.0.2"),
])
def test_client_address(peer: str, headers: list[tuple[str, str]], client: str) -> None:
    assert PROXIES.client(peer, headers) == client


def test_no_trusted_proxies_means_headers_are_never_read() -> None:
    none = TrustedProxies()
    assert none.client("127.0.0.1", [("x-forwarded-for", "203.0.113.9")]) == "127.0.0.1"


def test_parsing_helpers() -> None:
    assert forwarded_for('for="_gazonk", For=unknown;by=x') == ["_gazonk", "unknown"]
    assert parse_address("::ffff:192.0.2.1") == parse_address("192.0.2.1")
    assert parse_address("[::1") is None


@pytest.fixture
def access_lines() -> Iterator[io.StringIO]:
    out = io.StringIO()
    handler = configure("json", "info", stream=out)
    yield out
    for name in ("chukker", "uvicorn.error"):
        logging.getLogger(name).removeHandler(handler)
        logging.getLogger(name).propagate = True


def clients_logged(out: io.StringIO) -> list[str]:
    return [json.loads(x)["client"] for x in out.getvalue().splitlines()
            if '"logger":"chukker.access"' in x]


def app_with(tmp_path: Path, trusted: str) -> Any:
    return create_app(tmp_path / "p.sqlite3",
                      settings=load(file=None, env={"CHUKKER_TRUSTED_PROXIES": trusted}))


def test_trusted_forwarder_gives_the_client_address(tmp_path: Path,
                                                    access_lines: io.StringIO) -> None:
    app = app_with(tmp_path, "10.0.0.0/8")
    with TestClient(app, client=("10.0.0.5", 40000)) as c:
        # two pages (a repeat is answered by the page cache, in front of the access log)
        c.get("/api/matches?limit=1", headers={"x-forwarded-for": "203.0.113.9"})
        c.get("/api/matches?limit=2", headers={"forwarded": "for=198.51.100.7"})
    # Forwarded is not the chosen header (proxy_header): the proxy itself is logged
    assert clients_logged(access_lines) == ["203.0.113.9", "10.0.0.5"]


def test_untrusted_forwarder_is_logged_as_itself(tmp_path: Path,
                                                 access_lines: io.StringIO) -> None:
    app = app_with(tmp_path, "10.0.0.0/8")
    with TestClient(app, client=("192.0.2.50", 40000)) as c:
        # two pages (a repeat is answered by the page cache, in front of the access log)
        c.get("/api/matches?limit=1", headers={"x-forwarded-for": "203.0.113.9"})
        c.get("/api/matches?limit=2", headers={"forwarded": "for=198.51.100.7"})
    assert clients_logged(access_lines) == ["192.0.2.50", "192.0.2.50"]


def test_client_address_function_reads_the_worked_out_address(tmp_path: Path) -> None:
    app = app_with(tmp_path, "10.0.0.0/8")
    seen: list[str] = []

    @app.get("/who")
    async def who(request: Request) -> dict[str, str]:
        seen.append(client_address(request))
        return {}

    with TestClient(app, client=("10.0.0.5", 1)) as c:
        c.get("/who", headers={"x-forwarded-for": "203.0.113.1"})
    with TestClient(app, client=("192.0.2.1", 1)) as c:
        c.get("/who", headers={"x-forwarded-for": "203.0.113.1"})
    assert seen == ["203.0.113.1", "192.0.2.1"]


def test_live_stream_survives_proxies_no_buffering_and_keepalive_comments(
        ops_server: Any, make_match: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    with ops_server.client() as c:
        m = make_match(c)
    url = f"{ops_server.url}/api/matches/{m.id}/stream"
    with httpx.Client(timeout=10) as h, h.stream("GET", url) as r:
        assert r.headers["x-accel-buffering"] == "no"
        assert "no-cache" in r.headers["cache-control"]
        assert r.headers["content-type"].startswith("text/event-stream")
        assert "content-encoding" not in r.headers
        # the whole state arrives at once, unbuffered (the keep-alive comments from one
        # timer are tested in tests/web/test_stream.py)
        assert any(line.startswith("event: state") for line in r.iter_lines())


def test_bad_token_limits_count_the_forwarded_client_only_behind_a_trusted_proxy(
        tmp_path: Path, header: dict[str, Any]) -> None:
    settings = load(file=None, env={"CHUKKER_TRUSTED_PROXIES": "10.0.0.0/8",
                                    "CHUKKER_LIMITS_BAD_TOKENS_FREE": "0",
                                    "CHUKKER_LIMITS_BAD_TOKENS_BLOCK": "2"})
    organiser = "organiser-" + "p" * 20
    app = create_app(tmp_path / "t.sqlite3", organiser=organiser, settings=settings)
    bad = {"authorization": "Bearer wrong"}

    def attempt(c: Any, mid: str, forwarded_for: str) -> int:
        r = c.post(f"/api/matches/{mid}/events",
                   headers={**bad, "x-forwarded-for": forwarded_for},
                   json={"command_id": uuid.uuid4().hex, "event": {"type": "whistle"}})
        return int(r.status_code)

    with TestClient(app, client=("10.0.0.5", 1)) as proxy:
        mid = proxy.post("/api/matches", json=header,
                         headers={"authorization": f"Bearer {organiser}"}).json()["match_id"]
        # behind the trusted proxy: each client has its own count
        assert [attempt(proxy, mid, "203.0.113.1") for _ in range(3)] == [403, 403, 429]
        assert attempt(proxy, mid, "203.0.113.2") == 403
    with TestClient(app, client=("192.0.2.66", 1)) as direct:
        # an untrusted peer cannot spread its attempts over made-up addresses
        assert [attempt(direct, mid, f"198.51.100.{i}") for i in range(3)] == [403, 403, 429]
