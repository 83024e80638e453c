"""What people see on the match-day screens (issue 21.6), measured in the browser.

A spectator sees "Clock corrected" while the corrected clock stands still, not through
the interval; a timekeeper's reloaded console keeps the clock times on its event list
and says how long the clock has been stopped with a unit; when one team's name wraps,
both scores stay on one baseline at 1920x1080 and 1280x720, and the overlay draws both
names at one size; the home page shows spectators the matches, the officials' links
behind a small disclosure; the play diagram's legend is readable on a 390 px phone.

``CHUKKER_SCREENS_OUT=DIR`` also writes what each test looked at as PNGs.
"""

from __future__ import annotations

import copy
import os
import re
import uuid
from pathlib import Path
from typing import Any

import pytest

from chukker.web.demo import DEMO_HEADER

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

SHORT, LONG = "Los Potros", "Saint Giles Arena Polo Club of the Upper Thames Valley Shire"


def _shot(page: Any, name: str) -> None:
    out = os.environ.get("CHUKKER_SCREENS_OUT")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(out) / f"{name}.png"))


def create(server: Any, names: tuple[str, str] | None = None) -> dict[str, Any]:
    h = copy.deepcopy(DEMO_HEADER)
    if names is not None:
        for (_k, t), n in zip(h["teams"].items(), names, strict=True):
            t["name"] = n
    with server.client() as c:
        r = c.post("/api/matches", json=h)
        assert r.status_code == 201, r.text
        body: dict[str, Any] = r.json()
    return body


def post(server: Any, m: dict[str, Any], event: dict[str, Any]) -> None:
    with server.client() as c:
        r = c.post(f"/api/matches/{m['match_id']}/events",
                   headers={"authorization": "Bearer " + m["timekeeper_token"]},
                   json={"command_id": uuid.uuid4().hex, "event": event})  # fmt: skip
        assert r.status_code == 201, r.text


def open_screen(browser: Any, server: Any, m: dict[str, Any], path: str,
                size: tuple[int, int] = (1366, 768)) -> Any:  # fmt: skip
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    frag = f"#token={m['timekeeper_token']}" if path == "/console" else ""
    page.goto(f"{server.url}/m/{m['match_id']}{path}?lang=en{frag}")
    page.wait_for_function("() => window.chukker && window.chukker.state")
    return page


SCREENS = ("/display", "/overlay", "", "/console")


def test_spectator_sees_clock_corrected_until_play_resumes(browser: Any, live_server: Any
                                                          ) -> None:  # fmt: skip
    m = create(live_server)
    post(live_server, m, {"type": "bowl_in"})
    post(live_server, m, {"type": "whistle"})
    pages = {p: open_screen(browser, live_server, m, p) for p in SCREENS}
    post(live_server, m, {"type": "clock", "remaining": 300.0, "reason": "late whistle"})
    for path, page in pages.items():
        page.wait_for_function("() => document.querySelector('[data-corrections]')"
                               ".textContent === 'Clock corrected'")  # fmt: skip
        assert page.locator("[data-corrections]").first.is_visible(), path
        _shot(page, f"corrected{path.replace('/', '-') or '-phone'}")
    post(live_server, m, {"type": "bowl_in"})  # play resumes: the new time is simply the time
    for path, page in pages.items():
        page.wait_for_function("() => window.chukker.state.clock.running && document"
                               ".querySelector('[data-corrections]').textContent === ''")
        assert page.locator("[data-corrections]").first.inner_text() == "", path
    console = pages["/console"]
    assert "Clock" in console.locator("#event-log").inner_text()  # the log keeps it
    for page in pages.values():
        page.close()
    with live_server.client() as c:  # and the score sheet keeps it for good
        html = c.get(f"/m/{m['match_id']}/sheet?lang=en").text
    assert "Clock corrections" in html and "late whistle" in html


def test_timekeeper_reloaded_console_keeps_the_clock_times_on_its_event_list(
    browser: Any, live_server: Any
) -> None:
    m = create(live_server)
    post(live_server, m, {"type": "bowl_in"})
    post(live_server, m, {"type": "goal", "team": "A", "player": 1})
    page = open_screen(browser, live_server, m, "/console")
    page.wait_for_function("() => document.querySelectorAll('#event-log li').length === 2")
    lines = page.locator("#event-log li").all_inner_texts()
    page.reload()
    page.wait_for_function("() => document.querySelectorAll('#event-log li').length === 2")
    again = page.locator("#event-log li").all_inner_texts()
    assert again == lines
    bowl = again[-1]
    assert re.match(r"Bowl in · P1 7:[23]\d", bowl), bowl
    assert re.search(r"P1 \d:\d\d", again[0]), again[0]
    page.close()


def test_timekeeper_sees_how_long_the_clock_has_been_stopped_with_its_unit(
    browser: Any, live_server: Any
) -> None:
    m = create(live_server)
    post(live_server, m, {"type": "bowl_in"})
    post(live_server, m, {"type": "whistle"})
    page = open_screen(browser, live_server, m, "/console")
    page.wait_for_function("() => document.querySelector('[data-stopped-for]').textContent")
    assert re.fullmatch(r"\d+ s", page.locator("[data-stopped-for]").inner_text())
    banner = page.locator(".stopped-banner").inner_text()
    assert re.search(r"stopped for \d+ s", banner), banner
    said = page.evaluate("() => [2200, 59999, 65000, 600000].map(window.chukker.fmtSince)")
    assert said == ["2 s", "59 s", "1:05 min", "10:00 min"]
    page.close()


#: how many lines each name takes (one client rectangle per line of its text)
LINES = """(sel) => [...document.querySelectorAll(sel)].map((el) => {
  const r = document.createRange(); r.selectNodeContents(el);
  return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size;
})"""

BOTTOMS = """() => [...document.querySelectorAll('[data-score]')].map((el) => {
  const r = document.createRange(); r.selectNodeContents(el);
  const box = r.getBoundingClientRect();
  return {bottom: Math.round(box.bottom), size: getComputedStyle(el).fontSize};
})"""


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
@pytest.mark.parametrize("path", ["/display", "/overlay", "", "/console"])
def test_spectator_sees_both_scores_on_one_baseline_when_one_name_wraps(
    browser: Any, live_server: Any, size: tuple[int, int], path: str
) -> None:
    for names in ((SHORT, LONG), (LONG, SHORT)):
        m = create(live_server, names)
        page = open_screen(browser, live_server, m, path, size)
        name_sel = ".ov-team" if path == "/overlay" else ".team .name"
        lines = page.evaluate(LINES, name_sel)
        if path != "/overlay":  # one name does wrap (the overlay sizes both for the longer)
            assert min(lines) == 1 and max(lines) >= 2, (path, size, lines)
        scores = page.evaluate(BOTTOMS)
        assert len(scores) == 2 and scores[0]["size"] == scores[1]["size"]
        assert abs(scores[0]["bottom"] - scores[1]["bottom"]) <= 1, (path, size, scores)
        if path == "/overlay":  # both names drawn at one size
            sizes = page.evaluate("() => [...document.querySelectorAll('.ov-team')]"
                                  ".map((e) => getComputedStyle(e).fontSize)")  # fmt: skip
            assert sizes[0] == sizes[1], sizes
        _shot(page, f"baseline{path.replace('/', '-') or '-phone'}-{size[0]}x{size[1]}")
        page.close()


@pytest.mark.parametrize("size", [(390, 844), (1366, 768)])
def test_spectator_on_the_home_page_sees_the_match_and_officials_links_behind_a_disclosure(
    browser: Any, live_server: Any, size: tuple[int, int]
) -> None:
    m = create(live_server)
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.goto(f"{live_server.url}/?lang=en")
    row = page.locator(f"tr[data-match='{m['match_id']}']")
    visible = [a for a in row.locator("a").all() if a.is_visible()]
    assert [a.get_attribute("href") for a in visible] == [f"/m/{m['match_id']}"]
    timekeeper = row.get_by_role("link", name="Timekeeper")
    assert not timekeeper.is_visible()
    _shot(page, f"home-{size[0]}x{size[1]}")
    row.locator("summary", has_text="Officials").click()
    assert timekeeper.is_visible() and row.get_by_role("link", name="Big screen").is_visible()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= size[0]
    _shot(page, f"home-officials-{size[0]}x{size[1]}")
    page.close()


LEGEND_TEXT = """(sel) => [...document.querySelectorAll(sel + ' text')]
  .filter((t) => t.getClientRects().length)
  .map((t) => t.getBoundingClientRect().height)"""


def test_player_on_a_phone_reads_the_play_diagrams_legend(browser: Any, live_server: Any
                                                         ) -> None:  # fmt: skip
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(f"{live_server.url}/plays/13b-zigzag?lang=en")
    heights = page.evaluate(LEGEND_TEXT, ".legend-phone svg")
    assert heights and min(heights) >= 12, heights  # as tall as the page's small print
    assert page.evaluate(LEGEND_TEXT, ".diagram svg .legend") == []  # not drawn twice
    _shot(page, "play-legend-390x844")
    page.set_viewport_size({"width": 1366, "height": 768})
    assert page.evaluate(LEGEND_TEXT, ".diagram svg .legend")  # a wide screen: in the diagram
    assert not page.locator(".legend-phone").is_visible()
    page.close()
