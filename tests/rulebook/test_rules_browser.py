"""Browser: a rule page in Italian and in Spanish, in Debian's chromium, with JavaScript off."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests import ports

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def _need_browser() -> None:
    if CHROMIUM.exists():
        return
    if os.environ.get("CHUKKER_REQUIRE_BROWSER") == "1":
        pytest.fail(f"CHUKKER_REQUIRE_BROWSER=1 but {CHROMIUM} is missing")
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")


@pytest.fixture(scope="module")
def base_url(seeded_db: Path) -> Iterator[str]:
    _need_browser()
    import uvicorn

    from chukker.web.public.rules import make_app

    port = ports.free_port()
    server = uvicorn.Server(
        uvicorn.Config(make_app(seeded_db), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline:
            pytest.fail("the rules app did not start within 20 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page(base_url: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        context = browser.new_context(java_script_enabled=False)
        yield context.new_page()
        browser.close()


def test_rule_13_page_in_italian(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/rules/uspa-arena-2026/it/13")
    assert page.locator("h1.rule-title").inner_text() == "Regola 13 · USPA 2026 Arena Rules"
    assert page.locator("li.clause").count() == 31
    assert page.locator("p.original-label").first.inner_text().lower() == "testo originale"
    play = page.locator("#c-13b figure.play")
    assert play.locator("ol.timeline li").count() == 3
    assert play.is_visible()
    page.locator("#c-13b a.permalink").click()
    assert page.url.endswith("#c-13b")


def test_rule_5_page_in_spanish_via_the_language_switcher(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/rules/uspa-arena-2026/it/5")
    page.locator("nav.langs a[lang=es]").click()
    page.wait_for_url("**/uspa-arena-2026/es/5")
    assert page.locator("h1.rule-title").inner_text() == "Regla 5 · USPA 2026 Arena Rules"
    assert page.locator("li.clause").count() == 13
    assert page.locator("p.original-label").count() == 26
    flag = page.locator("#c-5-tie-shootout-set-up .flag")
    assert "4-minute" in flag.inner_text() and flag.is_visible()
    assert "vale el original" in page.locator("footer.rule-foot").inner_text()


def test_search_box_works_without_javascript(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/rules/uspa-arena-2026/es/5")
    page.fill("#q", "zigzag")
    page.press("#q", "Enter")
    page.wait_for_url("**/search?**")
    assert page.locator("li.hit .cid").first.inner_text() == "13b"


def test_print_media_hides_the_navigation(page: Any, base_url: str) -> None:
    page.goto(f"{base_url}/rules/uspa-arena-2026/it/13")
    page.emulate_media(media="print")
    assert not page.locator("header.site").is_visible()
    assert page.locator("li.clause").first.is_visible()
    page.emulate_media(media="screen")
