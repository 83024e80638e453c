"""Issue 42, the club committee in a browser: the New match form says the club edition's
periods and warning once it is chosen; the console names the club beside the period."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from chukker.web.demo import DEMO_HEADER

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

OAK_TOML = """base = "uspa-arena-2026"
name = "Oak Hill winter league"
warning_at_s = 20
split_after_s = 150
[regulation]
count = 3
length_s = 360
intervals_s = [120, 180]
"""


def test_club_rules_the_form_and_the_console_say_the_clubs_periods_warning_and_name(
        browser: Any, live_server: Any) -> None:
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    page = ctx.new_page()
    page.goto(f"{live_server.url}/new?lang=en")
    page.select_option("select[name=rules]", "club")
    page.fill("textarea[name=club_edition]", OAK_TOML)
    expect(page.locator("select[name=periods] option[value=regulation]")).to_have_text(
        "3 periods of 6:00")
    expect(page.locator("[data-warning-label]")).to_have_text("Warning horn at 20 s")
    expect(page.locator("[data-club-summary]")).to_contain_text("Oak Hill winter league")
    page.select_option("select[name=rules]", "uspa-arena-2026")
    expect(page.locator("[data-warning-label]")).to_have_text("Warning horn at 30 s")

    h = copy.deepcopy(DEMO_HEADER)
    h.update(rules="club", edition={"base": "uspa-arena-2026", "name": "Oak Hill winter league",
                                    "regulation": {"count": 3, "length_s": 360,
                                                   "intervals_s": [120, 180]}})
    with live_server.client() as c:
        m = c.post("/api/matches", json=h).json()
    page.goto(f"{live_server.url}/m/{m['match_id']}/console?lang=en"
              f"#token={m['timekeeper_token']}")
    page.wait_for_function("() => window.chukker && window.chukker.connected")
    page.keyboard.press("Space")
    expect(page.locator("[data-period]").first).to_have_text(
        "Period 1 of 3 · Oak Hill winter league")
    ctx.close()
