"""Stream tickets: the match's own screens (console, big screen, overlay, committee) keep
their reserved share of the live streams when spectators have filled theirs.

EventSource sends no header and the screens keep their tokens out of URLs, so a
screen exchanges its token (timekeeper, committee, or the display token) for a
short-lived single-use ticket bound to the match, and puts that in the stream's URL.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.web.conftest import OPEN

from chukker.ops.logging import JsonFormatter
from chukker.web.limits import StreamCaps
from chukker.web.security import StreamTickets


def auth(token: str) -> dict[str, str]:
    return {"authorization": "Bearer " + token}


def ticket(c: httpx.Client, match_id: str, token: str, ttl: float = 60.0) -> str:
    r = c.post(f"/api/matches/{match_id}/stream-ticket", headers=auth(token))
    assert r.status_code == 200, r.text
    assert r.json()["expires_in"] == ttl
    return str(r.json()["ticket"])


@contextlib.contextmanager
def stream(c: httpx.Client, match_id: str, **params: str) -> Iterator[int]:
    """Open a live stream; yield its status (its first line read when it is 200)."""
    with c.stream("GET", f"/api/matches/{match_id}/stream", params=params) as r:
        # keep the iterator: dropping a started one closes the connection (httpcore)
        lines = r.iter_lines()
        if r.status_code == 200:
            next(lines)
        else:
            r.read()
        yield r.status_code


@contextlib.contextmanager
def filled(server_factory: Any, db_path: Path, make_match: Any,
           **parts: Any) -> Iterator[tuple[Any, httpx.Client, Any]]:
    """A server whose spectators' share (1 stream) is taken; 2 kept for the screens
    (``parts``: more of the app's parts, given at start)."""
    caps = StreamCaps(total=3, per_address=100, reserved=2)
    with server_factory(db_path, **OPEN, streams=caps, **parts) as srv, srv.client() as c:
        m = make_match(c)
        with stream(c, m.id) as first:
            assert first == 200
            yield srv, c, m


@pytest.fixture
def full(server_factory: Any, db_path: Path,
         make_match: Any) -> Iterator[tuple[Any, httpx.Client, Any]]:
    with filled(server_factory, db_path, make_match) as it:
        yield it


def test_with_the_spectators_share_full_the_console_and_the_display_still_connect(
        full: Any) -> None:
    _, c, m = full
    with stream(c, m.id) as spectator:
        assert spectator == 503
    display = m.body["display_token"]
    assert m.body["urls"]["display"].endswith("/display#display=" + display)
    assert m.body["urls"]["overlay"].endswith("/overlay#display=" + display)
    with stream(c, m.id, ticket=ticket(c, m.id, m.body["timekeeper_token"])) as console, \
            stream(c, m.id, ticket=ticket(c, m.id, display)) as big_screen:
        assert (console, big_screen) == (200, 200)


def test_the_committee_gets_a_ticket_too(full: Any) -> None:
    _, c, m = full
    with stream(c, m.id, ticket=ticket(c, m.id, m.body["committee_token"])) as committee:
        assert committee == 200


def test_a_ticket_opens_one_stream_only(full: Any) -> None:
    _, c, m = full
    t = ticket(c, m.id, m.body["timekeeper_token"])
    with stream(c, m.id, ticket=t) as once:
        assert once == 200
    with stream(c, m.id, ticket=t) as twice:
        assert twice == 503  # a spectator now, and the spectators' share is full


def test_a_ticket_is_bound_to_its_match(full: Any, make_match: Any) -> None:
    _, c, m = full
    other = make_match(c)
    with stream(c, other.id) as spectator:
        assert spectator == 503
    with stream(c, other.id, ticket=ticket(c, m.id, m.body["timekeeper_token"])) as r:
        assert r == 503
    with stream(c, other.id, ticket=ticket(c, other.id, other.body["display_token"])) as r:
        assert r == 200


def test_an_expired_or_forged_ticket_gives_no_precedence(
        server_factory: Any, db_path: Path, make_match: Any) -> None:
    with filled(server_factory, db_path, make_match,
                stream_tickets=StreamTickets(ttl=-1.0)) as (_, c, m):  # born expired
        with stream(c, m.id, ticket=ticket(c, m.id, m.body["timekeeper_token"], -1.0)) as r:
            assert r == 503
        for forged in ("9999999999999.abc.def", "x", "1.2.3.4"):
            with stream(c, m.id, ticket=forged) as r:
                assert r == 503


def test_tickets_expire_and_are_single_use_and_bound_to_their_match() -> None:
    t = StreamTickets(ttl=60)
    k1, k2 = b"1" * 32, b"2" * 32
    a = t.issue("m1", k1, now=1000.0)
    assert t.redeem(a, "m1", k2, now=1001.0) == "wrong_match"  # another match's key
    assert t.redeem(a, "m2", k1, now=1001.0) == "wrong_match"
    assert t.redeem(a, "m1", k1, now=1059.0) is None
    assert t.redeem(a, "m1", k1, now=1059.5) == "used"
    b = t.issue("m1", k1, now=1000.0)
    assert t.redeem(b, "m1", k1, now=1060.5) == "expired"
    # used tickets are forgotten once expired: memory stays bounded
    assert t.redeem(t.issue("m1", k1, now=2000.0), "m1", k1, now=2001.0) is None
    assert len(t._used) == 1


def test_without_a_match_token_no_ticket(live_server: Any, make_match: Any) -> None:
    with live_server.client() as c:
        m, other = make_match(c), make_match(c)
        url = f"/api/matches/{m.id}/stream-ticket"
        assert c.post(url).status_code == 401
        assert c.post(url, headers=auth("nope")).status_code == 403
        assert c.post(url, headers=auth(other.body["display_token"])).status_code == 403
        assert c.post(url, headers=auth(other.body["timekeeper_token"])).status_code == 403


def test_the_display_token_only_opens_streams(live_server: Any, make_match: Any) -> None:
    with live_server.client() as c:
        m = make_match(c)
        r = c.post(f"/api/matches/{m.id}/events", headers=auth(m.body["display_token"]),
                   json={"command_id": "c1", "event": {"type": "whistle"}})
        assert r.status_code == 403
        url = f"/api/matches/{m.id}/display-token"
        assert c.get(url, headers=auth(m.body["display_token"])).status_code == 403
        again = c.get(url, headers=auth(m.body["committee_token"]))
        assert again.status_code == 200
        assert again.json()["display_token"] == m.body["display_token"]
        assert again.json()["urls"]["display"] == m.body["urls"]["display"]


def test_tickets_never_appear_in_logs(full: Any) -> None:
    _, c, m = full
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(lambda r: not r.name.startswith(("httpx", "httpcore")))
    raw: list[str] = []

    class Raw(logging.Handler):  # the server's records before any redaction
        def emit(self, record: logging.LogRecord) -> None:
            if not record.name.startswith(("httpx", "httpcore")):  # the test's client
                raw.append(record.getMessage() + json.dumps(record.__dict__, default=str))

    root = logging.getLogger()
    chukker = logging.getLogger("chukker")
    saved = root.level, chukker.level
    root.addHandler(handler)
    root.addHandler(Raw())
    root.setLevel(logging.DEBUG)
    chukker.setLevel(logging.DEBUG)
    try:
        t = ticket(c, m.id, m.body["timekeeper_token"])
        with stream(c, m.id, ticket=t) as r:
            assert r == 200
        with stream(c, m.id, ticket=t) as r:
            assert r == 503
    finally:
        root.removeHandler(handler)
        for h in [h for h in root.handlers if isinstance(h, Raw)]:
            root.removeHandler(h)
        root.setLevel(saved[0])
        chukker.setLevel(saved[1])
    text = out.getvalue()
    assert "/stream" in text  # the stream requests were logged
    assert t not in text and t.split(".")[2] not in text
    assert not any(t.split(".")[2] in line for line in raw)
    assert m.body["timekeeper_token"] not in text


@pytest.mark.browser
@pytest.mark.xdist_group("browser")
def test_in_the_browser_the_console_and_the_big_screen_connect_when_spectators_are_full(
        full: Any) -> None:
    path = "/usr/bin/chromium"
    if not os.path.exists(path):
        if os.environ.get("CHUKKER_REQUIRE_BROWSER") == "1":
            pytest.fail("CHUKKER_REQUIRE_BROWSER=1 but /usr/bin/chromium is missing")
        pytest.skip("browser tests need Debian's chromium at /usr/bin/chromium")
    from playwright.sync_api import expect, sync_playwright

    srv, _, m = full
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            phone = b.new_page()
            phone.goto(f"{srv.url}/m/{m.id}")
            expect(phone.locator("body")).to_have_class(re.compile("offline"))  # 503
            screen = b.new_page()
            screen.goto(m.body["urls"]["display"])
            expect(screen.locator("[data-status]")).to_have_text("Pre-match")
            assert "#display" not in screen.url  # the token leaves the address bar
            expect(screen.locator("body")).not_to_have_class(re.compile("offline"))
            console = b.new_page()
            console.goto(m.body["urls"]["console"])
            expect(console.locator("body")).not_to_have_class(re.compile("offline"))
            console.keyboard.press("Space")  # bowl in: the big screen follows
            expect(screen.locator("[data-status]")).to_have_text("In play")
            assert srv.app.state.streams.open == 3
        finally:
            b.close()
