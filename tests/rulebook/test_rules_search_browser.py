"""Browser: rules search on a phone (issue 21.7): one search box, a placeholder that fits
in every language, "did you mean" for a misspelling, a named penalty first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

#: how wide the placeholder's text is, and the room the box gives it (canvas measure)
FITS = """(el) => {
  const cs = getComputedStyle(el);
  const ctx = document.createElement("canvas").getContext("2d");
  ctx.font = cs.fontStyle + " " + cs.fontWeight + " " + cs.fontSize + " " + cs.fontFamily;
  const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  return {text: ctx.measureText(el.placeholder).width, room};
}"""


@pytest.fixture
def site(serve_asgi: Any, seeded_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
         ) -> str:  # fmt: skip
    from chukker.web import create_app

    monkeypatch.setenv("CHUKKER_RULES_DB", str(seeded_db))
    url: str = serve_asgi(create_app(tmp_path / "live.sqlite3", organiser="t"))
    return url


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_a_player_on_a_phone_sees_one_search_box_with_its_whole_placeholder(
    browser: Any, site: str, lang: str
) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        for path in (f"/rules/uspa-arena-2026/{lang}/13", f"/rules/search?lang={lang}&q=zigzag"):
            page.goto(site + path)
            boxes = page.locator("input[type=search]")
            visible = [i for i in range(boxes.count()) if boxes.nth(i).is_visible()]
            assert len(visible) == 1, (path, boxes.count())
            got = boxes.nth(visible[0]).evaluate(FITS)
            assert got["text"] <= got["room"], (path, got)
            width = page.evaluate("() => document.documentElement.scrollWidth")
            assert width <= 390, (path, width)
    finally:
        page.close()


def test_a_player_typing_peanlty_is_asked_did_you_mean_penalty(browser: Any, site: str) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto(site + "/rules/uspa-arena-2026/it/13")
        page.fill("#q", "peanlty")
        page.press("#q", "Enter")
        page.wait_for_url("**/search?**")
        assert page.locator("p.did-you-mean").inner_text() == "Forse cercavi: penalty?"
        assert page.locator("li.hit").count() > 0
        page.fill("#q", "penalty 2")
        page.press("#q", "Enter")
        page.wait_for_url("**q=penalty+2**")
        assert page.locator("li.hit .cid").first.inner_text() == "9.p2"
    finally:
        page.close()


def test_results_follow_the_box_as_a_player_types(browser: Any, site: str) -> None:
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        page.goto(site + "/rules/search?lang=en")
        page.locator("#q").press_sequentially("zigzg", delay=30)  # no Enter
        page.wait_for_selector("p.did-you-mean")
        assert "zigzag" in page.locator("p.did-you-mean").inner_text()
        assert page.locator("li.hit .cid").first.inner_text() == "13b"
        page.locator("#q").fill("")
        page.locator("#q").press_sequentially("13b", delay=30)
        page.wait_for_function("() => !document.querySelector('p.did-you-mean')")
        page.wait_for_function("() => (document.querySelector('li.hit .cid') || {})"
                               ".textContent === '13b'")  # fmt: skip
        assert "q=13b" in page.url
    finally:
        page.close()
