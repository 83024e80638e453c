"""Issue 41: a page cache that keeps only what the page reads, links that never come from
``Host``, one forwarding header believed, and no officials' form on an edge.

The guard's four questions for what changed: who may call (the cache answers anonymous
doors only; a token's answer is ``no-store``), how big (nothing of a request's raw
cookie or ``Accept-Language`` is kept; the cache is bounded in bytes, keys counted), no
server path from the client (links come from the settings or a trusted proxy, never the
request's ``Host``), and the clock every screen measures is never cached."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tests.web.conftest import OPEN, ORGANISER_AUTH, Match

from chukker.config import ConfigError, LimitSettings, Settings, load
from chukker.ops.proxy import TrustedProxies, forwarded_origin
from chukker.web import create_app
from chukker.web.cache import PageCache
from chukker.web.lang import language
from chukker.web.planes import Addresses
from chukker.web.security import public_link


def cache_of(c: TestClient) -> PageCache:
    app: Any = c.app.middleware_stack  # type: ignore[attr-defined]
    while not isinstance(app, PageCache):
        app = app.app
    return app


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Match]]:
    from chukker.web.demo import DEMO_HEADER

    tmp = tmp_path_factory.mktemp("issue41")
    with TestClient(create_app(tmp / "c.sqlite3", **OPEN)) as c:
        m = Match(c.post("/api/matches", json=DEMO_HEADER, headers=ORGANISER_AUTH).json())
        yield c, m


def lang_of_page(text: str) -> str:
    return text.split('<html lang="', 1)[1].split('"', 1)[0]


# ------------------------------------------------------------------ the language
def test_two_lang_values_give_the_last_and_the_next_visitor_their_own(
        world: tuple[TestClient, Match]) -> None:
    c, _ = world
    c.cookies.clear()
    first = c.get("/learn/?lang=es&lang=it")
    assert lang_of_page(first.text) == "it"
    assert "chukker_lang=it" in first.headers["set-cookie"]
    c.cookies.clear()
    spanish = c.get("/learn/?lang=es")
    assert lang_of_page(spanish.text) == "es"
    assert "chukker_lang=es" in spanish.headers["set-cookie"]
    c.cookies.clear()


def test_two_language_cookies_are_read_as_the_page_reads_them(
        world: tuple[TestClient, Match]) -> None:
    c, _ = world
    c.cookies.clear()
    mixed = c.get("/learn/", headers={"cookie": "chukker_lang=es; chukker_lang=it"})
    assert lang_of_page(mixed.text) == "it"
    spanish = c.get("/learn/", headers={"cookie": "chukker_lang=es"})
    assert lang_of_page(spanish.text) == "es"


@settings(max_examples=60, deadline=None)
@given(asked=st.lists(st.sampled_from(["en", "es", "it", "xx", ""]), max_size=3),
       cookies=st.lists(st.sampled_from(["en", "es", "it", "zz"]), max_size=3),
       accept=st.sampled_from(["", "es", "it-IT,it;q=0.9", "fr", "de, es;q=0.5"]))
def test_the_cache_key_and_the_page_choose_the_language_with_one_function(
        asked: list[str], cookies: list[str], accept: str) -> None:
    """Whatever the values, the page's language is the last valid ``lang``, else the
    last cookie, else Accept-Language: the function both the page and the key call."""
    query = "&".join(f"lang={v}" for v in asked).encode()
    cookie = "; ".join(f"chukker_lang={v}" for v in cookies).encode() or None
    got, by_query = language(query, cookie, accept.encode() or None)
    if asked and asked[-1] in ("en", "es", "it"):
        assert (got, by_query) == (asked[-1], True)
    elif cookies and cookies[-1] in ("en", "es", "it"):
        assert (got, by_query) == (cookies[-1], False)
    else:
        assert not by_query and got in ("en", "es", "it")


# ------------------------------------------------------------------ what is kept
def test_a_huge_cookie_or_accept_language_is_never_kept(
        world: tuple[TestClient, Match]) -> None:
    c, _ = world
    cache = cache_of(c)
    before = cache.bytes
    for i in range(30):
        r = c.get("/learn/", headers={"accept-language": f"es,{'x' * 100_000}{i}",
                                      "cookie": f"chukker_lang={'y' * 50_000}{i}"})
        assert r.status_code == 200
    assert cache.bytes - before < 200_000  # one page, not 30 requests' headers
    for key in cache.entries:
        assert all(len(str(part)) < 2000 for part in key)
    assert all(len(p) <= 256 for _, p in cache.doors)


def test_the_cache_is_bounded_in_bytes_keys_included(tmp_path: Path) -> None:
    with TestClient(create_app(tmp_path / "b.sqlite3", **OPEN)) as c:
        cache = cache_of(c)
        cache.max_bytes = 300_000
        for i in range(40):
            assert c.get(f"/learn/?q={'z' * 3000}{i}").status_code == 200
            assert cache.bytes <= cache.max_bytes
        assert cache.bytes == sum(e.size for e in cache.entries.values())
        assert all(e.size > len(e.body) for e in cache.entries.values())


def test_nothing_is_kept_before_the_rate_is_checked(tmp_path: Path) -> None:
    s = Settings(limits=LimitSettings(visitor_rate=0.01))  # a burst of 0.1: nothing passes
    with TestClient(create_app(tmp_path / "r.sqlite3", settings=s, **OPEN)) as c:
        cache = cache_of(c)
        for i in range(5):
            r = c.get(f"/learn/?lang=es&q={i}", headers={"cookie": f"chukker_lang={'k' * 9000}"})
            assert r.status_code == 429
        assert not cache.entries and cache.bytes == 0


@pytest.mark.parametrize("path", ["/api/time", "/readyz", "/healthz"])
def test_the_clock_and_health_are_never_cached(world: tuple[TestClient, Match],
                                               path: str) -> None:
    c, _ = world
    cache = cache_of(c)
    for _ in range(3):
        r = c.get(path)
        assert r.status_code == 200
        assert r.headers["cache-control"] == "no-store"
        assert "etag" not in r.headers
    assert not any(k[0] == path for k in cache.entries)


def test_the_clock_moves_between_two_asks(world: tuple[TestClient, Match]) -> None:
    c, _ = world
    first = c.get("/api/time").json()["server_time"]
    seen = first
    for _ in range(2000):  # a cached answer would repeat for two seconds
        seen = c.get("/api/time").json()["server_time"]
        if seen != first:
            break
    assert seen > first


def test_tokens_and_personal_answers_are_no_store(world: tuple[TestClient, Match]) -> None:
    c, m = world
    for path, headers in ((f"/m/{m.id}/console", {}),
                          (f"/api/matches/{m.id}/display-token", m.tk),
                          (f"/m/{m.id}?ticket=abc", {}),
                          (f"/api/matches/{m.id}", {"authorization": "Bearer x"})):
        r = c.get(path, headers=headers)
        assert r.headers.get("cache-control") == "no-store", (path, r.status_code)
    from chukker.web.demo import DEMO_HEADER

    created = c.post("/api/matches", json=DEMO_HEADER, headers=ORGANISER_AUTH)
    assert created.status_code == 201 and created.headers.get("cache-control") == "no-store"


# ------------------------------------------------------------------ absolute links
def test_one_host_header_never_poisons_the_big_screen(tmp_path: Path) -> None:
    from chukker.web.demo import DEMO_HEADER

    app = create_app(tmp_path / "q.sqlite3", **OPEN,
                     addresses=Addresses(public_url="https://arena.example"))
    with TestClient(app) as c:
        m = Match(c.post("/api/matches", json=DEMO_HEADER, headers=ORGANISER_AUTH).json())
        assert "evil.example" not in c.get(f"/m/{m.id}/display",
                                           headers={"host": "evil.example"}).text
        for _ in range(16):
            page = c.get(f"/m/{m.id}/display").text
            assert "evil.example" not in page and f"https://arena.example/m/{m.id}" in page


def test_links_come_from_a_trusted_proxy_only_with_its_chosen_header() -> None:
    from types import SimpleNamespace as NS

    proxies = TrustedProxies.parse(["10.0.0.0/8"])
    headers = [(b"host", b"evil.example"), (b"x-forwarded-host", b"scores.example.org"),
               (b"x-forwarded-proto", b"https"), (b"forwarded", b"host=evil.example")]
    behind = NS(app=NS(state=NS(public_url="", trusted_proxies=proxies)),
                scope={"client": ("10.0.0.9", 1), "headers": headers})
    assert public_link(behind, "/m/x") == "https://scores.example.org/m/x"
    direct = NS(app=NS(state=NS(public_url="", trusted_proxies=proxies)),
                scope={"client": ("203.0.113.5", 1), "headers": headers})
    assert public_link(direct, "/m/x") == "/m/x"
    fwd = TrustedProxies.parse(["10.0.0.0/8"], header="forwarded")
    assert forwarded_origin(fwd, {"client": ("10.0.0.9", 1), "headers": [
        (b"x-forwarded-host", b"evil.example"),
        (b"forwarded", b'for=1.2.3.4;host="arena.example";proto=https')]}) == \
        "https://arena.example"
    assert forwarded_origin(proxies, {"client": ("10.0.0.9", 1), "headers": [
        (b"x-forwarded-host", b"evil.example/<script>")]}) is None


# ------------------------------------------------------------------ one proxy header
def test_the_client_s_own_forwarded_never_dodges_the_rate(tmp_path: Path) -> None:
    """Behind a trusted proxy that sets X-Forwarded-For, a client's Forwarded header
    (passed on) is ignored: it neither escapes its own rate nor spends a victim's."""
    s = Settings(trusted_proxies=TrustedProxies.parse(["10.0.0.0/8"]).networks,
                 limits=LimitSettings(visitor_rate=0.5))  # a burst of 5
    app = create_app(tmp_path / "p.sqlite3", settings=s, **OPEN)
    with TestClient(app, client=("10.0.0.5", 1)) as c:
        codes = [c.get(f"/learn/?n={i}", headers={
            "x-forwarded-for": "203.0.113.66", "forwarded": f"for=198.51.100.{i}"}).status_code
            for i in range(8)]
        assert codes.count(429) == 3  # one address, whatever Forwarded says
        victim = c.get("/learn/", headers={"x-forwarded-for": "198.51.100.1"})
        assert victim.status_code == 200


def test_proxy_header_setting_is_one_of_two(tmp_path: Path) -> None:
    assert load(env={"CHUKKER_PROXY_HEADER": "forwarded"}).proxy_header == "forwarded"
    with pytest.raises(ConfigError):
        load(env={"CHUKKER_PROXY_HEADER": "x-real-ip"})
    with pytest.raises(ValueError):
        TrustedProxies((), "x-real-ip")


@pytest.mark.parametrize("name", ["Caddyfile", "nginx.conf"])
def test_shipped_proxy_configs_set_the_header_and_drop_the_client_s(name: str) -> None:
    text = (Path(__file__).resolve().parents[2] / "deploy" / name).read_text()
    if name == "nginx.conf":
        sets = text.count("proxy_set_header X-Forwarded-For $remote_addr;")
        assert sets >= 4 and text.count('proxy_set_header Forwarded "";') == sets
        assert "$proxy_add_x_forwarded_for" not in text
        assert "large_client_header_buffers 4 16k;" in text
    else:
        assert text.count("reverse_proxy ") == text.count("header_up -Forwarded") == 2
        assert "max_header_size 16KB" in text


# ------------------------------------------------------------------ an edge's forms
class _Replica:
    behind = False


async def _page(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/html")]})
    await send({"type": "http.response.body", "body": b"<form>the form</form>"})


@pytest.mark.parametrize("path", ["/new", "/m/abc/created"])
def test_an_edge_serves_no_officials_form(path: str) -> None:
    from chukker.web.edge import ReadOnly

    app = ReadOnly(_page, "https://officials.example", _Replica())  # type: ignore[arg-type]
    c = TestClient(app)  # type: ignore[arg-type]
    r = c.get(path + "?lang=es", follow_redirects=False)
    assert r.status_code == 307
    assert r.headers["location"] == f"https://officials.example{path}?lang=es"
    assert "<form" not in r.text
    assert c.get("/").text == "<form>the form</form>"  # a public page passes
    bare = ReadOnly(_page, None, _Replica())  # type: ignore[arg-type]
    r = TestClient(bare).get(path, headers={"accept-language": "es"},  # type: ignore[arg-type]
                             follow_redirects=False)
    assert r.status_code == 403 and "<form" not in r.text
    assert "nodo público" in r.text and r.headers["cache-control"] == "no-store"
