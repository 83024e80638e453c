"""The console's mount dialog (issue 25): a key like every action; the team's string with
the mounts in use greyed out; Enter records, Escape cancels (Playwright, Debian chromium)."""

from __future__ import annotations

import copy
import time
from typing import Any

import pytest

from chukker.web.demo import DEMO_HEADER

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def create(server: Any, plan: dict[str, list[str]] | None = None) -> dict[str, Any]:
    h = copy.deepcopy(DEMO_HEADER)
    a = next(iter(h["teams"]))
    h["teams"][a]["mounts"] = [{"id": "bay", "name": "Bay"}, {"id": "chico", "name": "Chico"},
                               {"id": "dora", "name": "Dora"}]
    if plan:
        h["teams"][a]["plan"] = plan
    with server.client() as c:
        r = c.post("/api/matches", json=h)
        assert r.status_code == 201, r.text
        body: dict[str, Any] = r.json()
    body["team"] = a
    return body


def events(server: Any, m: dict[str, Any], n: int) -> list[dict[str, Any]]:
    end = time.monotonic() + 10
    while True:
        with server.client() as c:
            ev: list[dict[str, Any]] = c.get(f"/api/matches/{m['match_id']}/record"
                                             ).json()["events"]
        if len(ev) >= n or time.monotonic() > end:
            return ev
        time.sleep(0.05)


def test_timekeeper_gives_mounts_with_the_r_key_and_in_use_ones_are_greyed(
    browser: Any, live_server: Any
) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    page.goto(f"{live_server.url}/m/{m['match_id']}/console#token={m['timekeeper_token']}")
    page.wait_for_function(
        "() => window.chukker && window.chukker.state && window.chukker.connected")
    page.keyboard.press("r")
    dlg = page.locator("#mount-dialog")
    expect(dlg).to_be_visible()
    page.select_option("#mount-form select[name=team]", m["team"])  # opens empty
    expect(dlg.locator("[data-mount-list] input")).to_have_count(3)
    page.select_option("#mount-form select[name=player]", "1")
    dlg.locator("[data-mount-list] input[value=bay]").check()
    page.keyboard.press("Enter")  # player 1 on Bay
    expect(dlg).to_be_hidden()
    ev = events(live_server, m, 1)
    assert ev[0] == {**ev[0], "type": "mount", "team": m["team"], "player": 1, "mount": "bay"}
    page.wait_for_function("() => window.chukker.state.mounts && "
                           f"window.chukker.state.mounts['{m['team']}'].bay.rider === 1")
    page.keyboard.press("r")
    expect(dlg).to_be_visible()
    page.select_option("#mount-form select[name=team]", m["team"])
    page.select_option("#mount-form select[name=player]", "2")
    bay = dlg.locator("[data-mount-list] input[value=bay]")
    expect(bay).to_be_disabled()  # ridden by a teammate: greyed out
    expect(dlg.locator("[data-mount-list] label.in-use")).to_have_count(1)
    page.keyboard.press("Escape")
    expect(dlg).to_be_hidden()
    page.wait_for_timeout(300)
    assert len(events(live_server, m, 1)) == 1


def test_record_1_3_the_mount_dialog_offers_the_planned_horse_by_name(
    browser: Any, live_server: Any
) -> None:
    """Issue 30: the dialog names the horses (never ids) and chooses the player's next
    horse in the grooms' plan first; a horse in use says who rides it, by name."""
    from playwright.sync_api import expect

    m = create(live_server, {"1": ["dora", "bay"]})
    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    page.goto(f"{live_server.url}/m/{m['match_id']}/console#token={m['timekeeper_token']}")
    page.wait_for_function(
        "() => window.chukker && window.chukker.state && window.chukker.connected")
    page.keyboard.press("r")
    dlg = page.locator("#mount-dialog")
    expect(dlg).to_be_visible()
    page.select_option("#mount-form select[name=team]", m["team"])
    page.select_option("#mount-form select[name=player]", "1")
    expect(dlg.locator("[data-mount-list]")).to_contain_text("Dora")
    expect(dlg.locator("[data-mount-list] input[value=dora]")).to_be_checked()
    page.keyboard.press("Enter")
    expect(dlg).to_be_hidden()
    assert events(live_server, m, 1)[0]["mount"] == "dora"
    page.wait_for_function("() => window.chukker.state.mounts && "
                           f"window.chukker.state.mounts['{m['team']}'].dora.rider === 1")
    page.keyboard.press("r")
    page.select_option("#mount-form select[name=team]", m["team"])
    page.select_option("#mount-form select[name=player]", "2")
    label = dlg.locator("[data-mount-list] label.in-use")
    expect(label).to_contain_text("Dora")
    assert "dora" not in label.inner_text()  # the name, never the id
    page.keyboard.press("Escape")


def test_horses_as_planned_before_the_first_bowl_in_one_confirmation_a_mount_each(
    browser: Any, live_server: Any
) -> None:
    """Issue 42: before the first bowl-in the console offers "Horses as planned": the first
    press lists them, the second records a `mount` event per planned player."""
    from playwright.sync_api import expect

    m = create(live_server, {"1": ["dora", "bay"], "2": ["chico"]})
    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    page.goto(f"{live_server.url}/m/{m['match_id']}/console#token={m['timekeeper_token']}")
    page.wait_for_function(
        "() => window.chukker && window.chukker.state && window.chukker.connected")
    button = page.locator("#btn-planned")
    expect(button).to_be_visible()
    button.click()
    expect(page.locator("#message")).to_contain_text("Dora")
    page.wait_for_timeout(200)
    assert events(live_server, m, 0) == []
    button.click()
    ev = events(live_server, m, 2)
    assert [(e["type"], e["player"], e["mount"]) for e in ev] == [
        ("mount", 1, "dora"), ("mount", 2, "chico")]
    expect(button).to_be_hidden()  # after that, only the changes (R)
