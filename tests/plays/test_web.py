"""The plays pages: list, clause links, scenario page with play, pause and scrub."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from starlette.testclient import TestClient

from chukker.web.public.plays import app, router

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




@pytest.fixture(scope="module")
def served(serve_asgi: Callable[[Any], str]) -> str:
    return serve_asgi(app)


@pytest.mark.browser
def test_rule_13b_page_pause_and_scrub_in_browser(served: str, browser: Any) -> None:
    page = browser.new_page()
    try:
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
        page.close()
