"""The timekeeper's console, as a timekeeper uses it (Playwright on Debian's chromium).

F whistles at the key press and then asks the foul; every dialog records on Enter
and cancels on Escape; a click leaves nothing for Enter to repeat; buttons follow
what the engine allows; refusals in the page's language; a Wi-Fi drop loses nothing
and moves no event in time; a 503 is retried with the same command_id.
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import time
from typing import Any

import pytest

from chukker.web.demo import DEMO_HEADER

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

#: how long the Wi-Fi drop lasts in the test (the issue's 20 s works the same; the
#: console does not care how long it is offline: CHUKKER_WIFI_DROP_S=20 to try it)
WIFI_DROP_S = float(os.environ.get("CHUKKER_WIFI_DROP_S", "3"))




def create(server: Any, **options: Any) -> dict[str, Any]:
    h = copy.deepcopy(DEMO_HEADER)
    h["options"].update(options)
    with server.client() as c:
        r = c.post("/api/matches", json=h)
        assert r.status_code == 201, r.text
        body: dict[str, Any] = r.json()
    return body


def console(browser: Any, server: Any, m: dict[str, Any], lang: str = "en",
            route: tuple[str, Any] | None = None) -> Any:
    """The console of match ``m``; ``route``: a pattern and its handler, set on the
    browser's context before the page exists, so that no request of the page escapes it."""
    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
    if route is not None:
        ctx.route(*route)
    page = ctx.new_page()
    page.goto(f"{server.url}/m/{m['match_id']}/console?lang={lang}"
              f"#token={m['timekeeper_token']}")
    page.wait_for_function(
        "() => window.chukker && window.chukker.state && window.chukker.connected")
    return page


def record(server: Any, m: dict[str, Any]) -> list[dict[str, Any]]:
    with server.client() as c:
        events: list[dict[str, Any]] = c.get(f"/api/matches/{m['match_id']}/record"
                                             ).json()["events"]
    return events


def wait_events(server: Any, m: dict[str, Any], n: int, timeout: float = 10) -> list[Any]:
    end = time.monotonic() + timeout
    while True:
        ev = record(server, m)
        if len(ev) >= n or time.monotonic() > end:
            return ev
        time.sleep(0.05)


def server_takes_at(server: Any) -> bool:
    """Whether this server accepts a posted keypress instant (spec 1.1, `at`)."""
    m = create(server)
    with server.client() as c:
        auth = {"authorization": "Bearer " + m["timekeeper_token"]}
        url = f"/api/matches/{m['match_id']}/events"
        c.post(url, headers=auth, json={"command_id": "a1", "event": {"type": "bowl_in"}})
        r = c.post(url, headers=auth, json={"command_id": "a2", "at": 0.25,
                                             "event": {"type": "whistle"}})
        return bool(r.json().get("at_source") == "client" and r.json()["at"] == 0.25)


def test_foul_key_stops_clock_at_keypress(browser: Any, live_server: Any) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.keyboard.press("Space")
    expect(tk.locator("[data-status]")).to_have_text("In play")
    tk.wait_for_timeout(300)
    tk.keyboard.press("f")
    # the whistle is recorded at once, while the details are asked
    expect(tk.locator("#foul-dialog")).to_be_visible()
    ev = wait_events(live_server, m, 2)
    assert [e["type"] for e in ev] == ["bowl_in", "whistle"]
    expect(tk.locator("[data-status]")).to_have_text("Clock stopped")
    held = tk.locator("[data-clock]").inner_text()
    tk.wait_for_timeout(1200)  # the timekeeper takes a while to answer
    assert tk.locator("[data-clock]").inner_text() == held
    tk.keyboard.press("b")
    tk.keyboard.press("3")
    tk.keyboard.press("Enter")  # focus is on a radio button: Enter still records
    expect(tk.locator("#foul-dialog")).to_be_hidden()
    ev = wait_events(live_server, m, 3)
    foul = ev[2]
    assert foul["type"] == "foul" and foul["team"] == "B" and foul["penalty"] == "3"
    if server_takes_at(live_server):
        assert foul["at"] == ev[1]["at"]  # the foul keeps the whistle's instant
    expect(tk.locator("[data-penalty]")).to_contain_text("Penalty 3")


def test_dialogs_record_on_enter_cancel_on_escape(browser: Any, live_server: Any) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.keyboard.press("Space")
    expect(tk.locator("[data-status]")).to_have_text("In play")
    tk.keyboard.press("t")
    expect(tk.locator("#timeout-dialog")).to_be_visible()
    assert tk.evaluate("() => document.activeElement.name") == "reason"  # where the hand is
    tk.keyboard.press("Escape")
    expect(tk.locator("#timeout-dialog")).to_be_hidden()
    tk.wait_for_timeout(300)
    assert [e["type"] for e in record(live_server, m)] == ["bowl_in"]
    tk.keyboard.press("t")
    tk.keyboard.press("Enter")  # the dialog opens empty: Enter asks for the reason
    expect(tk.locator("#timeout-dialog .dlg-ask")).to_have_text("Still to fill in: Reason")
    tk.locator("#timeout-form select[name=reason]").select_option("injury")
    tk.keyboard.press("Enter")  # a select has the focus: Enter records, never opens it
    expect(tk.locator("#timeout-dialog")).to_be_hidden()
    ev = wait_events(live_server, m, 2)
    assert ev[1]["type"] == "timeout" and ev[1]["reason"] == "injury"
    # the clock correction dialog: stopped in a period
    if tk.evaluate("() => (window.chukker.state.allowed || []).includes('clock')"):  # spec 1.1
        tk.keyboard.press("c")
        expect(tk.locator("#clock-dialog")).to_be_visible()
        tk.fill("#clock-form input[name=remaining]", "5:00")
        tk.fill("#clock-form input[name=reason]", "umpire direction")
        tk.keyboard.press("Enter")
        ev = wait_events(live_server, m, 3)
        assert ev[2]["type"] == "clock" and ev[2]["remaining"] == 300


def test_enter_after_clicking_a_goal_does_not_record_it_again(browser: Any,
                                                              live_server: Any) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.keyboard.press("Space")
    expect(tk.locator("[data-status]")).to_have_text("In play")
    tk.locator("button.goal[data-team=B][data-player='2']").click()
    expect(tk.locator('[data-score="B"]')).to_have_text("1")
    tk.keyboard.press("Enter")
    tk.keyboard.press("NumpadEnter")
    tk.wait_for_timeout(500)
    ev = record(live_server, m)
    assert [e["type"] for e in ev] == ["bowl_in", "goal"]
    expect(tk.locator('[data-score="B"]')).to_have_text("1")


def test_buttons_follow_what_the_engine_allows(browser: Any, live_server: Any) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m)
    if tk.evaluate("() => Array.isArray(window.chukker.state.allowed)"):
        # pre-match: the engine allows a bowl-in, not a goal
        expect(tk.locator("button.goal").first).to_be_disabled()
        expect(tk.locator("#btn-start")).to_be_enabled()
        tk.keyboard.press("1")
        expect(tk.locator("#message")).to_contain_text("Not possible now")
    # whatever the engine says is what the buttons show
    tk.evaluate("() => { window.chukker.state.allowed = ['bowl_in']; }")
    expect(tk.locator("button.goal").first).to_be_disabled()
    expect(tk.locator("#btn-foul")).to_be_disabled()
    expect(tk.locator("#btn-start")).to_be_enabled()
    tk.evaluate("() => { delete window.chukker.state.allowed; }")  # an older engine: all enabled
    expect(tk.locator("button.goal").first).to_be_enabled()


def test_wifi_drop_keeps_keypress_instants(browser: Any, live_server: Any) -> None:
    """The network goes for WIFI_DROP_S seconds in the middle of a period; the
    timekeeper scores, whistles and bowls in meanwhile; on reconnect the record holds
    the three at their key presses, in order, each once."""
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.keyboard.press("Space")
    expect(tk.locator("[data-status]")).to_have_text("In play")
    tk.wait_for_timeout(500)
    tk.context.set_offline(True)
    step = WIFI_DROP_S / 4
    tk.keyboard.press("2")  # goal, team A player 2
    tk.wait_for_timeout(step * 1000)
    tk.keyboard.press("w")  # whistle
    expect(tk.locator("#net-text")).to_contain_text("Offline")
    expect(tk.locator("#queued")).to_contain_text("2 queued")
    held = tk.locator("[data-clock]").inner_text()
    tk.wait_for_timeout(step * 1000)
    assert tk.locator("[data-clock]").inner_text() == held  # the whistle holds the clock
    tk.keyboard.press("Space")  # bowl-in
    expect(tk.locator("#queued")).to_contain_text("3 queued")
    queued = tk.evaluate("() => window.chukker.queue()")
    tk.wait_for_timeout(step * 2000)
    tk.context.set_offline(False)
    ev = wait_events(live_server, m, 4, timeout=15)
    assert [e["type"] for e in ev] == ["bowl_in", "goal", "whistle", "bowl_in"]
    expect(tk.locator("#queued")).to_be_hidden()
    expect(tk.locator("#net-text")).to_have_text("Connected", timeout=10_000)
    with live_server.client() as c:
        rec = c.get(f"/api/matches/{m['match_id']}/record").json()
    assert len(rec["events"]) == 4  # nothing applied twice
    if server_takes_at(live_server):
        assert [e["at"] for e in ev[1:]] == [q["at"] for q in queued]
        gaps = [round(b["at"] - a["at"], 1) for a, b in itertools.pairwise(ev[1:])]
        assert all(g >= step * 0.8 for g in gaps), gaps
    expect(tk.locator("[data-status]")).to_have_text("In play")


def test_busy_server_is_retried_with_the_same_command_id(browser: Any,
                                                          live_server: Any) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    seen: list[str] = []

    def busy_once(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        body = json.loads(route.request.post_data or "{}")
        seen.append(body["command_id"])
        if len(seen) == 1:
            route.fulfill(status=503, headers={"retry-after": "1"},
                          content_type="application/json",
                          body=json.dumps({"error": "busy", "code": "busy",
                                           "message": "busy; try again"}))
        else:
            route.continue_()

    tk = console(browser, live_server, m, route=("**/api/matches/*/events", busy_once))
    tk.keyboard.press("Space")
    expect(tk.locator("[data-status]")).to_have_text("In play", timeout=10_000)
    end = time.monotonic() + 10  # the route's handler runs when Playwright is next waited on
    while len(seen) < 2 and time.monotonic() < end:
        tk.wait_for_timeout(50)
    assert len(seen) == 2 and seen[0] == seen[1]
    assert [e["type"] for e in record(live_server, m)] == ["bowl_in"]


def test_refusal_shown_in_the_pages_language_from_its_code(browser: Any,
                                                           live_server: Any) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m, lang="es")
    expect(tk.locator("#btn-start")).to_contain_text("Saque")
    templates = tk.evaluate("() => window.chukker.cfg.refusals")
    assert isinstance(templates, dict)
    # whatever the catalogs hold for a code is what the timekeeper reads; try one
    tk.evaluate("""() => { window.chukker.cfg.refusals.no_free_hit_pending =
        "no hay ningún tiro libre pendiente"; }""")
    tk.evaluate("() => window.chukker.enqueue({type: 'free_hit'}, window.chukker.serverNow())")
    msg = tk.locator("#message")
    expect(msg).to_contain_text("Tiro libre")
    code = tk.evaluate("""async () => { const r = await fetch(location.pathname.replace(
        '/m/', '/api/matches/').replace('/console', '')); return (await r.json()).status; }""")
    assert code == "pre_match"
    assert "no hay ningún tiro libre pendiente" in msg.inner_text()
    assert "event 1" not in msg.inner_text()  # never the record's raw seconds


def test_practice_period_ends_with_a_horn_cue_and_the_interval_counts_down(
        browser: Any, db_path: Any, backdate: Any, server_factory: Any) -> None:
    """A practice match (20-second periods, 6-second intervals) started 12 s ago: the
    console flashes its horn cue, the interval becomes the main countdown and says when
    it has run out. (The margins leave a loaded CI machine 8 s to start the server and
    open the page before the horn, and 6 s to see the interval.)"""
    from playwright.sync_api import expect

    from chukker.store import open_store

    h = copy.deepcopy(DEMO_HEADER)
    h["options"].update(warning_horn=False, practice={"period_s": 20, "interval_s": 6})
    store = open_store(db_path)
    mid = backdate(store, h, ago_ms=12_000)
    store.close()
    with server_factory(db_path) as srv:
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.goto(f"{srv.url}/m/{mid}/console#token=tk-{mid}")
        expect(page.locator(".practice-badge").first).to_be_visible()
        expect(page.locator(".horn-cue")).to_be_visible(timeout=12_000)
        expect(page.locator("#horn-kind")).to_contain_text("end of period")
        expect(page.locator("[data-interval]")).to_have_text("Before period 2")
        expect(page.locator("[data-interval]")).to_contain_text("Interval over", timeout=12_000)
        expect(page.locator("[data-clock]")).to_have_text("0:00")
        page.close()
