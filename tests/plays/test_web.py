"""The plays pages: list, clause links, scenario page with play, pause and scrub."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from chukker.web.plays_pages import app, router

client = TestClient(app)


def test_router_is_a_starlette_router() -> None:
    from starlette.routing import Router

    assert isinstance(router, Router)


def test_rule_13b_clause_link_lists_the_zigzag() -> None:
    r = client.get("/plays/?clause=13b")
    assert r.status_code == 200
    assert 'href="/plays/13b-zigzag?lang=en"' in r.text
    assert "two-on-one" not in r.text


def test_rule_13_examples_listed_under_13() -> None:
    r = client.get("/plays/?clause=13&lang=es")
    assert r.status_code == 200
    assert r.text.count("<li>") == 4
    assert "Sin falta" in r.text


def test_unknown_clause_and_scenario_are_404() -> None:
    assert client.get("/plays/?clause=99z").status_code == 404
    assert client.get("/plays/nope").status_code == 404
    assert client.get("/plays/13b-zigzag.png?t=abc").status_code == 400


def test_scenario_page_has_inline_svg_and_controls() -> None:
    r = client.get("/plays/13b-zigzag?lang=it")
    assert r.status_code == 200
    assert "<svg" in r.text and 'class="play"' in r.text and 'class="scrub"' in r.text
    assert 'src="/plays/assets/plays.js"' in r.text
    assert "Fallo: Bianco 2 (13b)" in r.text
    assert client.get("/plays/assets/plays.js").status_code == 200
    assert client.get("/plays/13b-zigzag.svg").headers["content-type"] == "image/svg+xml"
    png = client.get("/plays/13b-zigzag.png?t=2.6")
    assert png.headers["content-type"] == "image/png" and png.content[:4] == b"\x89PNG"


CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def served() -> Iterator[str]:
    import socket

    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    th.join(timeout=5)


@pytest.mark.browser
def test_rule_13b_page_pause_and_scrub_in_browser(served: str) -> None:
    if not CHROMIUM.exists():
        if os.environ.get("CHUKKER_REQUIRE_BROWSER") == "1":
            pytest.fail("CHUKKER_REQUIRE_BROWSER=1 but /usr/bin/chromium is missing")
        pytest.skip("needs Debian chromium at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"]  # fmt: skip
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=args)
        try:
            page = browser.new_page()
            page.goto(f"{served}/plays/13b-zigzag")
            page.wait_for_function("document.querySelector('[data-play]').dataset.state")
            assert page.get_attribute("[data-play]", "data-state") == "playing"
            page.click("button.play")
            assert page.get_attribute("[data-play]", "data-state") == "paused"
            t1 = page.evaluate("document.querySelector('svg').getCurrentTime()")
            page.wait_for_timeout(300)
            t2 = page.evaluate("document.querySelector('svg').getCurrentTime()")
            assert t1 == t2  # paused
            # scrub to 2.72 s (after the 2.6 s foul): the marker shows
            page.fill("input.scrub", "2.72")
            page.dispatch_event("input.scrub", "input")
            t3 = page.evaluate("document.querySelector('svg').getCurrentTime()")
            assert abs(t3 - 2.72) < 1e-3  # SMIL clocks are float32
            page.wait_for_timeout(100)
            op = page.evaluate("getComputedStyle(document.querySelector('.foul-marker')).opacity")
            assert float(op) == 1.0
            page.fill("input.scrub", "1.0")
            page.dispatch_event("input.scrub", "input")
            page.wait_for_timeout(100)
            op = page.evaluate("getComputedStyle(document.querySelector('.foul-marker')).opacity")
            assert float(op) == 0.0
            assert page.text_content("output.time") == "1.00 s"
        finally:
            browser.close()
