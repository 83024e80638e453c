"""Issue 35, item 2: every anonymous page costs almost nothing (web/cache.py).

A repeated page is answered from memory with a strong ETag, 304 on If-None-Match and a
short max-age; a match's pages change with its seq; an unknown language or a query
parameter the page does not read makes no new entry; nothing personal is kept; every
anonymous door has a per-address rate. The guard's four questions: who may call (anyone:
the cache only answers anonymous doors), how big (entries and bytes bounded, LRU), no
server path from the client (the key is the routed path), and a key press is never
behind it (a POST of an event passes straight on, and clears nothing)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tests.web.conftest import OPEN, ORGANISER_AUTH, Match, post_event

from chukker.config import LimitSettings, Settings
from chukker.web import create_app
from chukker.web.cache import PageCache


def cache_of(c: TestClient) -> PageCache:
    app: Any = c.app.middleware_stack  # type: ignore[attr-defined]
    while not isinstance(app, PageCache):
        app = app.app
    return app


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Match]]:
    from chukker.web.demo import DEMO_HEADER

    tmp = tmp_path_factory.mktemp("cache")
    with TestClient(create_app(tmp / "c.sqlite3", **OPEN)) as c:
        m = Match(c.post("/api/matches", json=DEMO_HEADER, headers=ORGANISER_AUTH).json())
        yield c, m


def test_a_repeat_is_answered_from_memory_with_etag_304_and_max_age(
        world: tuple[TestClient, Match]) -> None:
    c, m = world
    for path in ("/", f"/m/{m.id}/sheet", f"/m/{m.id}/sheet.json", "/openapi.json",
                 f"/api/matches/{m.id}/feed.json", f"/m/{m.id}/goals.csv", "/learn/"):
        first = c.get(path)
        assert first.status_code == 200, path
        assert "etag" in first.headers, (path, dict(first.headers), c.cookies)
        etag = first.headers["etag"]
        assert etag.startswith('"') and "max-age=" in first.headers["cache-control"]
        hits = cache_of(c).hits
        again = c.get(path)
        assert again.headers["etag"] == etag and again.content == first.content
        assert cache_of(c).hits == hits + 1
        not_modified = c.get(path, headers={"if-none-match": etag})
        assert not_modified.status_code == 304 and not_modified.content == b""


def test_a_match_page_changes_with_its_seq(world: tuple[TestClient, Match]) -> None:
    c, m = world
    before = c.get(f"/m/{m.id}/sheet.json").headers["etag"]
    assert post_event(c, m, {"type": "whistle"}).status_code in (201, 409)
    assert post_event(c, m, {"type": "bowl_in"}).status_code == 201
    after = c.get(f"/m/{m.id}/sheet.json")
    assert after.headers["etag"] != before and after.json()


def test_an_unknown_language_or_parameter_makes_no_new_entry(
        world: tuple[TestClient, Match]) -> None:
    c, m = world
    c.get(f"/api/matches/{m.id}/feed.json")
    n = len(cache_of(c).entries)
    for i in range(20):
        c.get(f"/api/matches/{m.id}/feed.json?lang=x{i}")
        c.get(f"/tournaments/?utm={i}")
    assert len(cache_of(c).entries) <= n + 1  # /tournaments/ once


def test_nothing_personal_is_kept(world: tuple[TestClient, Match]) -> None:
    c, m = world
    cache = cache_of(c)
    n = len(cache.entries)
    assert "etag" not in c.get("/new").headers  # a form with its CSRF cookie
    assert "etag" not in c.get(f"/m/{m.id}/sheet", headers=m.cm).headers  # a token
    c.cookies.clear()
    assert "etag" not in c.get(f"/m/{m.id}/console").headers
    assert len(cache.entries) == n


def test_a_cached_form_carries_each_visitors_own_csrf_token(
        world: tuple[TestClient, Match]) -> None:
    c, m = world
    c.cookies.clear()
    mine = c.get(f"/m/{m.id}/sheet", headers={"cookie": "chukker_csrf=mine-0123456789abcdef"})
    c.cookies.clear()
    theirs = c.get(f"/m/{m.id}/sheet",
                   headers={"cookie": "chukker_csrf=theirs-0123456789abcd"})
    assert 'value="mine-0123456789abcdef"' in mine.text
    assert 'value="theirs-0123456789abcd"' in theirs.text and "mine-" not in theirs.text
    assert mine.headers["cache-control"].startswith("private")
    c.cookies.clear()
    fresh = c.get(f"/m/{m.id}/sheet")
    assert "chukker_csrf=" in fresh.headers["set-cookie"] and "csrf-mark" not in fresh.text
    c.cookies.clear()


def test_a_key_press_passes_straight_through(world: tuple[TestClient, Match]) -> None:
    """A POST of an event is never answered from memory and never waits for a render."""
    c, m = world
    cache = cache_of(c)
    before = (cache.hits, cache.misses)
    r = post_event(c, m, {"type": "whistle"}, command_id="cache-press-1")
    again = post_event(c, m, {"type": "whistle"}, command_id="cache-press-1")
    assert r.status_code in (201, 409) and again.status_code in (200, 201, 409)
    assert (cache.hits, cache.misses) == before


def test_the_cache_is_bounded_in_entries() -> None:
    sent: list[Any] = []

    async def page(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": scope["path"].encode()})

    import asyncio

    cache = PageCache(page, capacity=3)

    async def get(path: str) -> None:
        async def send(msg: Any) -> None:
            sent.append(msg)

        async def receive() -> Any:
            return {"type": "http.request", "body": b""}

        await cache({"type": "http", "method": "GET", "path": path, "headers": [],
                     "query_string": b""}, receive, send)

    for i in range(10):
        asyncio.run(get(f"/rules/glossary/x{i}"))
    assert len(cache.entries) == 3


def test_every_anonymous_door_has_a_rate_per_address(tmp_path: Path) -> None:
    s = Settings(limits=LimitSettings(visitor_rate=0.5))  # 5 at once, then one in 2 s
    with TestClient(create_app(tmp_path / "r.sqlite3", settings=s, **OPEN)) as c:
        codes = [c.get("/tournaments/").status_code for _ in range(8)]
        assert codes[:5] == [200] * 5 and 429 in codes[5:]
        refused = c.get("/")
        assert refused.status_code in (200, 429)
        limited = c.get("/tournaments/")
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1


def test_a_request_pays_no_telemetry_bridge_chukker_does_not_use(
        world: tuple[TestClient, Match], monkeypatch: pytest.MonkeyPatch) -> None:
    """FastAPI's own OpenTelemetry bridge (where the installed FastAPI has one) is off:
    a cached page is a few microseconds, and the bridge asked the environment three
    times a request whether a tracer or meter was configured."""
    c, m = world
    app: Any = c.app
    bridge = getattr(app, "_native_telemetry", None)
    if bridge is not None:
        assert not bridge.enabled()
        monkeypatch.setenv("OTEL_PYTHON_TRACER_PROVIDER", "sdk_tracer_provider")
        assert not bridge.enabled()  # not even when the environment names a provider
    assert c.get(f"/m/{m.id}/sheet.json").status_code == 200
