"""A hostile spectator on the stadium Wi-Fi: every reproduction of issue 8, named after
what the attacker does. Each now fails cleanly: a JSON 4xx with a code, nothing stored,
the match and the server go on."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from chukker.live import hash_token
from chukker.store import StoredEvent, open_store
from chukker.web import create_app
from chukker.web.security import Throttle

ORGANISER = "test-organiser-token"
ORGANISER_AUTH = {"authorization": "Bearer " + ORGANISER}


def assert_json_refusal(r: httpx.Response, status: int, code: str | None = None) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert body["error"] == body["code"] and isinstance(body["params"], dict)
    assert isinstance(body["message"], str) and body["message"]
    if code is not None:
        assert body["code"] == code, body


def events_of(client: Any, m: Any) -> list[dict[str, Any]]:
    rec: list[dict[str, Any]] = client.get(f"/api/matches/{m.id}/record").json()["events"]
    return rec


def nested(depth: int) -> Any:
    v: Any = "x"
    for _ in range(depth):
        v = [v]
    return v


# ------------------------------------------------------------- 1. deep nesting
def test_attacker_posts_a_foul_with_a_clause_nested_500_deep(
        client: Any, make_match: Any, post: Any) -> None:
    m = make_match(client)
    post(client, m, {"type": "bowl_in"})
    r = post(client, m, {"type": "foul", "team": "A", "penalty": "3", "clause": nested(500)})
    assert_json_refusal(r, 422, "invalid_event")
    assert [e["type"] for e in events_of(client, m)] == ["bowl_in"]
    assert post(client, m, {"type": "whistle"}).status_code == 201


def test_a_stored_match_that_cannot_be_replayed_is_quarantined_and_the_server_starts(
        db_path: Path, header: Any) -> None:
    store = open_store(db_path)
    store.create_match("bad1", header, 1, hash_token("tk"), hash_token("cm"))
    store.append("bad1", StoredEvent(1, "c1", {"type": "bowl_in", "at": 0.0}, 1, "timekeeper"), 1)
    deep = {"type": "foul", "team": "A", "penalty": "3", "clause": nested(500), "at": 1.0}
    store.append("bad1", StoredEvent(2, "c2", deep, 2, "timekeeper"), 1)
    store.create_match("good1", header, 2, hash_token("tk2"), hash_token("cm2"))
    store.close()
    from starlette.testclient import TestClient

    with TestClient(create_app(db_path, organiser=ORGANISER)) as c:  # starts
        assert_json_refusal(c.get("/api/matches/bad1"), 409, "quarantined")
        page = c.get("/m/bad1")
        assert page.status_code >= 400 and "cannot be replayed" in page.text
        assert c.get("/api/matches/good1").status_code == 200
        assert c.get("/").status_code == 200
        # the committee exports the raw events; nobody else does
        assert_json_refusal(c.get("/api/matches/bad1/record"), 409, "quarantined")
        r = c.get("/api/matches/bad1/record", headers={"authorization": "Bearer cm"})
        assert r.status_code == 200
        raw = json.loads(r.text)
        assert [e["type"] for e in raw["events"]] == ["bowl_in", "foul"] and raw["quarantined"]


# -------------------------------------------------------------- 2. lone surrogate
def test_attacker_names_a_team_with_a_lone_surrogate(client: Any, header: Any) -> None:
    header["teams"]["A"]["name"] = "Bl\ud800ue"
    body = json.dumps(header).encode()  # escaped as \ud800, as an attacker sends it
    r = client.post("/api/matches", content=body, headers={
        **ORGANISER_AUTH, "content-type": "application/json"})
    assert_json_refusal(r, 422, "invalid_header")
    assert client.get("/api/matches").json() == []
    assert client.get("/").status_code == 200


def test_a_lone_surrogate_stored_by_an_older_version_never_breaks_the_lists(
        db_path: Path, header: Any, client: Any) -> None:
    header["teams"]["A"]["name"] = "Bl\ud800ue"
    with sqlite3.connect(db_path) as db:
        db.execute("INSERT INTO matches VALUES (?, ?, 1, NULL, 'a', 'b')",
                   ("old1", json.dumps(header)))
    assert client.get("/api/matches").status_code == 200
    assert client.get("/").status_code == 200


def test_attacker_sends_a_lone_surrogate_in_an_event(client: Any, make_match: Any,
                                                     post: Any) -> None:
    m = make_match(client)
    post(client, m, {"type": "bowl_in"})
    r = client.post(f"/api/matches/{m.id}/events", headers={
        **m.tk, "content-type": "application/json"},
        content=b'{"command_id": "s1", "event": {"type": "whistle", "reason": "x\\udc00"}}')
    assert_json_refusal(r, 422, "invalid_event")
    assert len(events_of(client, m)) == 1


# ------------------------------------------------------- 3. unlimited creation
def test_attacker_creates_matches_without_the_organiser_token(closed_client: Any,
                                                              header: Any) -> None:
    assert_json_refusal(closed_client.post("/api/matches", json=header), 401,
                        "organiser_required")
    r = closed_client.post("/api/matches", json=header, headers={"authorization": "Bearer no"})
    assert_json_refusal(r, 403, "organiser_required")
    assert closed_client.get("/api/matches").json() == []
    r = closed_client.post("/api/matches", json=header, headers=ORGANISER_AUTH)
    assert r.status_code == 201


def test_attacker_floods_an_open_server_with_matches_and_is_rate_limited(
        db_path: Path, header: Any) -> None:
    from starlette.testclient import TestClient
    from tests.web.conftest import OPEN

    # open, its new matches rate-limited per address: a burst of 3, then 1 per 100 s
    with TestClient(create_app(db_path, **{**OPEN, "open_rate": (3, 0.01)})) as client:
        codes = [client.post("/api/matches", json=header).status_code for _ in range(5)]
        assert codes == [201, 201, 201, 429, 429]
        r = client.post("/api/matches", json=header)
        assert_json_refusal(r, 429, "rate_limited")
        assert int(r.headers["retry-after"]) >= 1
        # the organiser is never rate-limited
        assert client.post("/api/matches", json=header,
                           headers=ORGANISER_AUTH).status_code == 201


def test_attacker_posts_the_new_match_form_without_the_organiser_token(
        closed_client: Any) -> None:
    page = closed_client.get("/new").text
    assert 'name="organiser_token"' in page
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None
    form = {"team_A_name": "Blue", "team_B_name": "White", "csrf": csrf.group(1)}
    r = closed_client.post("/new", data=form)
    assert r.status_code == 401 and "organiser" in r.text
    assert closed_client.get("/api/matches").json() == []
    r = closed_client.post("/new", data={**form, "organiser_token": ORGANISER})
    assert r.status_code == 200 and len(closed_client.get("/api/matches").json()) == 1


def test_match_lists_are_paginated_newest_first(client: Any, make_match: Any) -> None:
    ids = [make_match(client).id for _ in range(5)]
    r = client.get("/api/matches?limit=2")
    first = [x["match_id"] for x in r.json()]
    r2 = client.get(f"/api/matches?limit=2&before={r.headers['x-next']}")
    second = [x["match_id"] for x in r2.json()]
    assert len(first) == len(second) == 2 and not set(first) & set(second)
    assert set(first + second) <= set(ids)
    assert_json_refusal(client.get("/api/matches?limit=100000"), 422, "bad_request")
    assert_json_refusal(client.get("/api/matches?before=zzz"), 422, "bad_request")


# ------------------------------------------------------------- 5. unknown ids
def test_attacker_probes_unknown_match_ids_and_nothing_is_kept(client: Any) -> None:
    svc = client.app.state.service
    for mid in ("nope", "x" * 60_000, "a" * 64, "%00", "é"):
        assert_json_refusal(client.get(f"/api/matches/{mid}"), 404, "unknown_match")
        r = client.post(f"/api/matches/{mid}/events", headers={"authorization": "Bearer x"},
                        json={"command_id": "c", "event": {"type": "bowl_in"}})
        assert_json_refusal(r, 404, "unknown_match")
    assert svc._loading == {} and svc._matches == {} and svc.quarantined == {}


# ------------------------------------------------------------- 6. bad tokens
def test_attacker_behind_the_venue_nat_cannot_lock_the_timekeeper_out(
        db_path: Path, make_match: Any, post: Any) -> None:
    from starlette.testclient import TestClient
    from tests.web.conftest import OPEN

    app = create_app(db_path, **OPEN, throttle=Throttle(free=1, block=3, max_delay=0.0))
    with TestClient(app) as client:
        m, other = make_match(client), make_match(client)
        bad = {"authorization": "Bearer guess"}
        codes = [post(client, m, {"type": "bowl_in"}, auth=bad).status_code for _ in range(5)]
        assert codes[-1] == 429
        assert post(client, m, {"type": "bowl_in"}).status_code == 201  # the real token passes
        # strikes are per (address, match): the other match is not blocked
        assert post(client, other, {"type": "bowl_in"}, auth=bad).status_code == 403


def test_attacker_with_many_addresses_evicts_only_the_oldest_strikes() -> None:
    t = Throttle(free=0, block=2, capacity=100)
    t.fail(("victim", "m"))
    t.fail(("victim", "m"))
    for i in range(150):
        t.fail((f"10.0.{i // 256}.{i % 256}", "m"))
    assert len(t) == 100  # bounded, never cleared at once
    assert t.blocked(("10.0.0.149", "m")) is False and len(t) == 100


# ----------------------------------------------------------- 7. plain-text 500s
def test_attacker_sends_an_event_type_that_is_a_list(client: Any, make_match: Any,
                                                      post: Any) -> None:
    m = make_match(client)
    assert_json_refusal(post(client, m, {"type": ["goal"]}), 422, "unknown_event_type")
    assert_json_refusal(post(client, m, {"type": {"a": 1}}), 422, "unknown_event_type")
    assert_json_refusal(post(client, m, {"type": None}), 422, "unknown_event_type")
    r = client.post(f"/api/matches/{m.id}/events", headers=m.tk,
                    json={"command_id": "c", "event": ["goal"]})
    assert_json_refusal(r, 422, "bad_request")


@pytest.mark.parametrize("at", ["inf", "-inf", "nan", "1e400", "-1", "abc"])
def test_attacker_asks_for_the_report_at_an_absurd_time(client: Any, make_match: Any,
                                                        at: str) -> None:
    m = make_match(client)
    assert_json_refusal(client.get(f"/api/matches/{m.id}?at={at}"), 422, "bad_request")


def test_attacker_resumes_a_stream_with_a_last_event_id_of_5000_digits(
        live_server: Any, make_match: Any) -> None:
    with live_server.client() as c:
        m = make_match(c)
        with c.stream("GET", f"/api/matches/{m.id}/stream",
                      headers={"last-event-id": "9" * 5000}) as r:
            assert r.status_code == 200
            for line in r.iter_lines():
                if line.startswith("event:"):
                    assert line == "event: state"
                    break
        assert_json_refusal(c.get(f"/api/matches/{m.id}/stream?last={'9' * 5000}"), 422)


def test_attacker_posts_the_new_match_form_with_a_superscript_captain(client: Any) -> None:
    page = client.get("/new").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page)
    assert csrf is not None
    r = client.post("/new", data={"team_A_captain": "²", "csrf": csrf.group(1)})
    assert r.status_code == 422 and "captain" in r.text
    assert client.get("/api/matches").json() == []


def test_attacker_adds_unknown_fields_to_an_event(client: Any, make_match: Any,
                                                  post: Any) -> None:
    m = make_match(client)
    post(client, m, {"type": "bowl_in"})
    r = post(client, m, {"type": "goal", "team": "A", "player": 2, "payload": "x"})
    assert_json_refusal(r, 422, "invalid_event")
    assert "payload" in r.json()["message"]
    r = client.post(f"/api/matches/{m.id}/events", headers=m.tk,
                    json={"command_id": "c", "event": {"type": "whistle"}, "extra": 1})
    assert_json_refusal(r, 422, "bad_request")
    assert len(events_of(client, m)) == 1


def test_attacker_sends_a_30000_character_name(client: Any, header: Any) -> None:
    header["teams"]["B"]["players"][0]["name"] = "n" * 30_000
    assert_json_refusal(client.post("/api/matches", json=header), 422, "invalid_header")
    header["teams"]["B"]["players"][0]["name"] = "n" * 61
    assert_json_refusal(client.post("/api/matches", json=header), 422, "invalid_header")
    header["teams"]["B"]["players"][0]["name"] = "n" * 60
    assert client.post("/api/matches", json=header).status_code == 201


@pytest.mark.parametrize("hcp", ["10" + "0" * 400, "11", "-3", "2.5", "true", '"2"'])
def test_attacker_sends_an_absurd_handicap(client: Any, header: Any, hcp: str) -> None:
    text = re.sub(r'"handicap": \d+', f'"handicap": {hcp}', json.dumps(header), count=1)
    assert text != json.dumps(header)
    r = client.post("/api/matches", content=text.encode(), headers={
        "content-type": "application/json"})
    assert_json_refusal(r, 422)
    assert client.get("/api/matches").json() == []


def test_attacker_sends_a_non_object_body(client: Any, make_match: Any) -> None:
    for body in (b"[]", b"1", b'"x"', b"null"):
        r = client.post("/api/matches", content=body, headers={
            "content-type": "application/json"})
        assert_json_refusal(r, 422)


# --------------------------------------------------------- 10. 503 and headers
def test_a_failed_write_answers_503_with_retry_after_and_nothing_is_applied(
        client: Any, make_match: Any, post: Any, monkeypatch: Any) -> None:
    m = make_match(client)
    post(client, m, {"type": "bowl_in"})
    store = client.app.state.service.store

    def broken(*a: Any, **k: Any) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(store, "append", broken)
    r = post(client, m, {"type": "goal", "team": "A", "player": 1}, command_id="g1")
    assert_json_refusal(r, 503, "busy")
    assert r.headers["retry-after"] == "1"
    monkeypatch.undo()
    assert client.get(f"/api/matches/{m.id}").json()["score"]["A"] == 0 + client.get(
        f"/api/matches/{m.id}").json()["handicap_goals"]["A"]
    r = post(client, m, {"type": "goal", "team": "A", "player": 1}, command_id="g1")
    assert r.status_code == 201 and r.json()["seq"] == 2


def test_no_page_may_be_framed_except_the_overlay(client: Any, make_match: Any) -> None:
    m = make_match(client)
    for path in ("/", "/new", f"/m/{m.id}", f"/m/{m.id}/console", "/api/matches"):
        r = client.get(path)
        assert r.headers["x-frame-options"] == "DENY", path
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"], path
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
    r = client.get(f"/m/{m.id}/overlay")
    assert "x-frame-options" not in r.headers
    assert "frame-ancestors *" in r.headers["content-security-policy"]


# ------------------------------------------------------------------ posted at
def test_posted_at_is_taken_when_plausible_else_the_server_stamps(
        client: Any, make_match: Any, post: Any) -> None:
    m = make_match(client)
    svc = client.app.state.service

    def send(at: Any, cid: str, ev: dict[str, Any]) -> dict[str, Any]:
        r = client.post(f"/api/matches/{m.id}/events", headers=m.tk,
                        json={"command_id": cid, "event": ev, "at": at})
        assert r.status_code == 201, r.text
        out: dict[str, Any] = r.json()
        return out

    first = send(5.0, "b", {"type": "bowl_in"})
    assert first["at"] == 0.0 and first["at_source"] == "server"
    lm = svc._matches[m.id]
    lm.row = lm.row.__class__(lm.row.id, lm.row.header, lm.row.created_ms,
                              lm.row.start_ms - 30_000, lm.row.timekeeper_hash,
                              lm.row.committee_hash)  # the period began 30 s ago
    g = send(12.345, "g", {"type": "goal", "team": "A", "player": 1})
    assert g["at"] == 12.345 and g["at_source"] == "client"
    early = send(10.0, "w", {"type": "whistle"})
    assert early["at_source"] == "server" and early["note"] == "at_before_last_event"
    future = send(10_000.0, "b2", {"type": "bowl_in"})
    assert future["at_source"] == "server" and future["note"] == "at_in_future"
    r = client.post(f"/api/matches/{m.id}/events", headers=m.tk,
                    json={"command_id": "x", "event": {"type": "whistle"}, "at": "inf"})
    assert_json_refusal(r, 422, "bad_request")


def test_attacker_reads_every_match_and_memory_stays_bounded(
        client: Any, make_match: Any, monkeypatch: Any) -> None:
    from chukker.live import service as live

    monkeypatch.setattr(live, "MAX_LOADED", 3)
    ids = [make_match(client).id for _ in range(6)]
    for mid in ids:
        assert client.get(f"/api/matches/{mid}").status_code == 200
    svc = client.app.state.service
    assert len(svc._matches) == 3 and set(svc._matches) == set(ids[3:])
    assert client.get(f"/api/matches/{ids[0]}").status_code == 200  # loads again


# ------------------------------------------------------------------------ CSP
_SCRIPT_TAG = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.S | re.I)
_LINK = re.compile(r'href="(/[^"#?]*)')


def site_pages(c: Any, m: Any, start: list[str]) -> dict[str, httpx.Response]:
    """Every same-site HTML page reachable from ``start`` (at most 300)."""
    seen: dict[str, httpx.Response] = {}
    todo = list(start)
    while todo and len(seen) < 300:
        path = todo.pop()
        if path in seen or path.startswith(("/static/", "/apidocs/", "/api/")):
            continue
        r = c.get(path)
        seen[path] = r
        if "text/html" in r.headers.get("content-type", ""):
            todo.extend(p for p in _LINK.findall(r.text) if p not in seen)
    return seen


def test_no_page_runs_inline_script_and_every_page_says_so(
        tmp_path: Path, monkeypatch: Any, make_match: Any) -> None:
    """``script-src 'self'`` (no 'unsafe-inline') on every page; no page has inline code
    (JSON data blocks only); the API docs' viewer is allowed by its hash alone."""
    from starlette.testclient import TestClient
    from tests.tournament.web_helpers import four_team_toml
    from tests.web.conftest import OPEN

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with TestClient(create_app(tmp_path / "live.sqlite3", **OPEN)) as c:
        m = make_match(c)
        t = c.post("/tournaments/api", json={"text": four_team_toml()})
        assert t.status_code == 201, t.text
        tid = t.json()["tournament_id"]
        arena = "/tournaments/" + t.json()["arenas"]["Arena 1"]["console"].split(
            "#")[0].split("/tournaments/")[1]
        pages = site_pages(c, m, [
            "/", "/new", f"/m/{m.id}", f"/m/{m.id}/console", f"/m/{m.id}/display",
            f"/m/{m.id}/overlay", f"/m/{m.id}/sheet", f"/m/{m.id}/created", "/tournaments",
            f"/tournaments/{tid}", arena, arena.replace("/console", "/display"), "/rules",
            "/plays", "/learn", "/docs", "/redoc", "/no-such-page"])
        html = {p: r for p, r in pages.items()
                if "text/html" in r.headers.get("content-type", "")}
        assert len(html) > 20
        assert pages[arena].status_code == 200 and pages["/docs"].status_code == 200
        for path, r in pages.items():
            csp = r.headers["content-security-policy"]
            assert "unsafe-inline" not in csp.split("script-src")[1].split(";")[0], path
            assert "script-src 'self'" in csp, path
        for path, r in html.items():
            csp = r.headers["content-security-policy"]
            for attrs, code in _SCRIPT_TAG.findall(r.text):
                if "src=" in attrs or not code.strip():
                    continue
                if path in ("/docs", "/redoc"):  # FastAPI's viewer: allowed by hash only
                    assert "'sha256-" in csp, path
                    continue
                assert 'type="application/json"' in attrs, (path, code[:80])
            assert not re.search(r"<[^>]+\son[a-z]+=", r.text), path  # no onclick= etc.


@pytest.mark.browser
@pytest.mark.xdist_group("browser")
def test_pages_work_in_the_browser_under_the_strict_csp(
        tmp_path: Path, monkeypatch: Any, server_factory: Any, make_match: Any) -> None:
    """No page of each kind trips the CSP (chromium reports violations on the console)."""
    import os

    path = "/usr/bin/chromium"
    if not os.path.exists(path):
        if os.environ.get("CHUKKER_REQUIRE_BROWSER") == "1":
            pytest.fail("CHUKKER_REQUIRE_BROWSER=1 but /usr/bin/chromium is missing")
        pytest.skip("browser tests need Debian's chromium at /usr/bin/chromium")
    from playwright.sync_api import expect, sync_playwright
    from tests.tournament.web_helpers import four_team_toml

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with server_factory(tmp_path / "live.sqlite3") as srv, srv.client() as c:
        m = make_match(c)
        t = c.post("/tournaments/api", json={"text": four_team_toml()}).json()
        arena = t["arenas"]["Arena 1"]["console"]
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=path, args=[
                "--headless", "--no-sandbox", "--disable-gpu"])
            try:
                page = b.new_page()
                bad: list[str] = []
                page.on("console", lambda msg: bad.append(msg.text)
                        if "Content Security Policy" in msg.text else None)
                page.on("pageerror", lambda e: bad.append(str(e)))
                for url, ready in [
                    ("/", "body"), ("/new", "form"), (f"/m/{m.id}", "[data-clock]"),
                    (m.body["urls"]["console"], "#event-log"),
                    (m.body["urls"]["display"], "[data-clock]"),
                    (f"/m/{m.id}/overlay", "[data-clock]"), (f"/m/{m.id}/sheet", "body"),
                    (f"/tournaments/{t['tournament_id']}", "#live"),
                    (arena, "#arena-open"), (arena.split("#")[0].replace(
                        "/console", "/display"), "[data-b]"),
                    ("/tournaments", "#new-tournament"), ("/rules", "body"),
                    ("/plays", "body"), ("/docs", ".swagger-ui .info")]:
                    page.goto(url if url.startswith("http") else srv.url + url)
                    expect(page.locator(ready).first).to_be_attached()
                    if "[data-clock]" in ready:  # live.js ran: the clock is drawn
                        expect(page.locator("[data-clock]").first).not_to_be_empty()
                page.wait_for_timeout(200)
                assert bad == []
            finally:
                b.close()
