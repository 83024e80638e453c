"""Browser tests: Playwright driving Debian's chromium against a live server.

Create a match from the form, run a period from the keyboard, watch the big
screen follow, undo a goal, reconnect a display.
"""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]





def test_create_match_run_period_from_keyboard_display_follows_undo_and_reconnect(
        browser: Any, live_server: Any, tmp_path: Any) -> None:
    from playwright.sync_api import expect

    shots = os.environ.get("CHUKKER_SCREENSHOTS")
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    tk = ctx.new_page()
    tk.goto(live_server.url + "/new")
    tk.fill("input[name=team_A_name]", "<script>alert(1)</script>")
    tk.fill("input[name=team_B_name]", "White")
    tk.fill("input[name=team_A_p1_name]", "Ann")
    tk.fill("input[name=team_A_p1_hcp]", "2")
    tk.fill("input[name=team_B_p1_hcp]", "2")
    tk.click("button[type=submit]")
    expect(tk.locator("h1")).to_contain_text("<script>alert(1)</script>")
    expect(tk.locator("#console-link")).to_have_attribute("href", re.compile("#token="))
    console_url = tk.locator("#console-link").get_attribute("href")
    assert console_url and "#token=" in console_url
    match_id = re.search(r"/m/([^/]+)/console", console_url).group(1)  # type: ignore[union-attr]

    screen = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    screen.goto(f"{live_server.url}/m/{match_id}/display")
    expect(screen.locator(".team-1 .name")).to_have_text("<script>alert(1)</script>")
    expect(screen.locator("[data-status]")).to_have_text("Pre-match")
    expect(screen.locator("[data-clock]")).to_have_text("7:30")

    tk.goto(console_url)
    expect(tk.locator("[data-status]")).to_have_text("Pre-match")
    assert "#token" not in tk.url  # the secret leaves the address bar
    tk.keyboard.press("Space")  # bowl in: the period starts
    expect(screen.locator("[data-status]")).to_have_text("In play")
    expect(screen.locator("[data-period]")).to_have_text("Period 1 of 4")
    tk.keyboard.press("1")  # goal, team A player 1
    expect(screen.locator('[data-score="A"]')).to_have_text("1")
    tk.keyboard.press("8")  # goal, team B player 2
    expect(screen.locator('[data-score="B"]')).to_have_text("1")
    expect(tk.locator("#event-log li")).to_have_count(3)
    # the console's own answer for the goal (the big screen may hear it first, by the
    # stream, while the POST is still queued, and an undo waits for the queue)
    expect(tk.locator("#message")).to_contain_text("#3")

    # undo the last goal: U twice
    tk.keyboard.press("u")
    expect(tk.locator("#message")).to_contain_text("U")
    tk.keyboard.press("u")
    expect(screen.locator('[data-score="B"]')).to_have_text("0")
    expect(tk.locator("#event-log li.cancelled")).to_have_count(1)

    # the display drops its connection; meanwhile play goes on; it reconnects
    screen.evaluate("window.chukker.source.close()")
    tk.keyboard.press("9")  # goal, team B player 3
    expect(tk.locator("#event-log li")).to_have_count(5)
    expect(screen.locator('[data-score="B"]')).to_have_text("0")
    screen.evaluate("window.chukker.reconnect()")
    expect(screen.locator('[data-score="B"]')).to_have_text("1")

    # stop the clock: the console reminds the timekeeper, the display holds the time
    tk.keyboard.press("Space")
    expect(screen.locator("[data-status]")).to_have_text("Clock stopped")
    expect(tk.locator(".stopped-banner")).to_be_visible()
    held = screen.locator("[data-clock]").inner_text()
    assert re.fullmatch(r"7:[0-3]\d", held)

    # a foul with its penalty from the dialog, then the free hit restarts the clock
    tk.keyboard.press("f")
    tk.keyboard.press("b")  # fouling team B
    tk.keyboard.press("3")  # penalty 3
    tk.fill("#foul-form input[name=clause]", "13b")
    tk.keyboard.press("Enter")  # records, wherever the focus is
    expect(screen.locator("[data-penalty]")).to_contain_text("Penalty 3")
    # the console's own stream has the penalty too: its Space button now says free hit
    expect(tk.locator("#start-label")).to_have_text(re.compile("free hit", re.I))
    tk.keyboard.press("Space")  # free hit
    expect(screen.locator("[data-status]")).to_have_text("In play")
    expect(screen.locator("[data-penalty]")).to_have_text("")

    phone = browser.new_context(viewport={"width": 390, "height": 844},
                                is_mobile=True).new_page()
    phone.goto(f"{live_server.url}/m/{match_id}")
    expect(phone.locator(".timeline li")).to_have_count(3)  # two goals and the foul
    sheet = ctx.new_page()
    sheet.goto(f"{live_server.url}/m/{match_id}/sheet")
    expect(sheet.locator(".sheet-result")).to_contain_text("<script>alert(1)</script>")
    if shots:
        screen.screenshot(path=os.path.join(shots, "display.png"))
        tk.screenshot(path=os.path.join(shots, "console.png"), full_page=True)
        phone.screenshot(path=os.path.join(shots, "spectator.png"), full_page=True)
        sheet.screenshot(path=os.path.join(shots, "sheet.png"), full_page=True)
        ov = browser.new_context(viewport={"width": 900, "height": 160}).new_page()
        ov.goto(f"{live_server.url}/m/{match_id}/overlay")
        ov.wait_for_timeout(500)
        ov.screenshot(path=os.path.join(shots, "overlay.png"), omit_background=True)


def test_spanish_and_italian_pages(browser: Any, live_server: Any) -> None:
    page = browser.new_page()
    page.goto(live_server.url + "/new?lang=es")
    assert page.locator("h1").inner_text() == "Nuevo partido"
    page.goto(live_server.url + "/new")  # the choice is remembered
    assert page.locator("h1").inner_text() == "Nuevo partido"
    page.goto(live_server.url + "/new?lang=it")
    assert page.locator("h1").inner_text() == "Nuova partita"
