"""The timekeeper's console after issue 42 (Playwright on Debian's chromium): every dialog
opens empty and Enter asks for what is missing; an undo asks first and says what it would
change, or the engine's words when it is refused; "Not possible now: Bowl in" says why and
goes; the bar says "Connected"; an event sent from the queue after a restart shows its
period and clock; the favicon passes the page's security policy; the arena console keeps
the finished match on screen until the timekeeper moves on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.web.test_matchday_console import console, create, record, wait_events

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def types(server: Any, m: dict[str, Any], n: int) -> list[str]:
    return [e["type"] for e in wait_events(server, m, n)]


def test_foul_dialog_opens_empty_after_a_foul_and_enter_asks_for_the_team(
        browser: Any, live_server: Any) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m)
    expect(tk.locator("#net-text")).to_have_text("Connected")  # as the guide says
    tk.keyboard.press("Space")
    tk.wait_for_function("() => window.chukker.state.clock.running")
    tk.keyboard.press("f")
    tk.keyboard.press("b")
    tk.keyboard.press("1")
    tk.locator("#foul-form select[name=player]").select_option("2")
    tk.keyboard.press("Enter")
    assert types(live_server, m, 3) == ["bowl_in", "whistle", "foul"]
    tk.wait_for_function("() => window.chukker.state.seq === 3")
    tk.keyboard.press("f")  # the ball is dead: the dialog alone, and empty
    dlg = tk.locator("#foul-dialog")
    expect(dlg).to_be_visible()
    assert tk.evaluate("""() => { const f = document.getElementById('foul-form');
        return [f.querySelector('input[name=team]:checked'), f.elements.player.value,
                f.elements.penalty.value, f.elements.card.value]; }""") == [None, "", "", ""]
    tk.keyboard.press("Enter")
    expect(dlg.locator(".dlg-ask")).to_have_text("Still to fill in: Fouling team")
    tk.keyboard.press("a")
    tk.keyboard.press("Enter")
    expect(dlg.locator(".dlg-ask")).to_have_text("Still to fill in: Penalty")
    tk.keyboard.press("Escape")
    expect(dlg).to_be_hidden()
    assert len(record(live_server, m)) == 3  # nobody's foul was recorded


def test_undo_from_the_list_asks_first_says_what_changes_and_the_second_press_does_it(
        browser: Any, live_server: Any) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.keyboard.press("Space")
    tk.wait_for_function("() => window.chukker.state.clock.running")
    tk.keyboard.press("2")  # a goal for Blue's player 2
    assert types(live_server, m, 2) == ["bowl_in", "goal"]
    tk.wait_for_function("() => document.querySelectorAll('#event-log li button').length == 2")
    tk.locator("#event-log li:nth-child(1) button").click()
    msg = tk.locator("#message")
    expect(msg).to_contain_text("it would change: score Blue 3 → 2")
    expect(tk.locator("#event-log li:nth-child(1) button")).to_have_text("Confirm undo")
    tk.wait_for_timeout(300)
    assert len(record(live_server, m)) == 2  # one press undid nothing
    tk.keyboard.press("Enter")  # Enter confirms
    ev = wait_events(live_server, m, 3)
    assert ev[2]["type"] == "undo" and ev[2]["event"] == 2

    # a refusal (the engine's, issue 42) is said in its words, and nothing is armed
    def refused(route: Any) -> None:
        route.fulfill(status=200, content_type="application/json", body=json.dumps({
            "event": 1, "refused": {"code": "nope", "reason": "it would move event 4 (foul) "
                                    "into period 1", "params": {}}}))

    tk.route("**/m/*/undo?event=*", refused)
    tk.keyboard.press("w")
    types(live_server, m, 4)
    tk.wait_for_function("() => document.querySelectorAll('#event-log li button').length == 2")
    tk.locator("#event-log li:last-child button").click()
    expect(msg).to_contain_text("This undo is refused")
    expect(msg).to_contain_text("it would move event 4 (foul) into period 1")
    tk.keyboard.press("Enter")
    tk.wait_for_timeout(300)
    assert len(record(live_server, m)) == 4


def test_not_possible_now_says_the_intervals_time_left_and_goes(
        browser: Any, live_server: Any) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.evaluate("""() => { const s = window.chukker.state;
        window.chukker.update(Object.assign({}, s, {status: 'interval', allowed: ['mount'],
          interval: {kind: 'regular', remaining_ms: 95000}})); }""")
    tk.keyboard.press("Space")
    msg = tk.locator("#message")
    expect(msg).to_contain_text("Not possible now: Bowl in · the interval has 1:3")
    tk.evaluate("""() => { const s = window.chukker.state;
        window.chukker.update(Object.assign({}, s, {status: 'interval', allowed: ['bowl_in'],
          interval: {kind: 'regular', remaining_ms: 0}})); }""")
    expect(msg).to_have_text("")


def test_an_event_sent_from_the_queue_after_a_restart_shows_its_period_and_clock(
        browser: Any, live_server: Any) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.keyboard.press("Space")
    types(live_server, m, 1)
    tk.wait_for_function("() => window.chukker.state.clock.running")
    # the tab was restarted with a whistle still queued (sessionStorage keeps the queue)
    tk.evaluate("""(id) => sessionStorage.setItem('chukker-queue-' + id, JSON.stringify(
        [{command_id: 'q-restart-1', event: {type: 'whistle'}, at: null}]))""",
                m["match_id"])
    tk.reload()
    types(live_server, m, 2)
    expect(tk.locator("#message")).to_contain_text(
        __import__("re").compile(r"#2 Whistle · P1 \d:\d\d"))
    expect(tk.locator("#event-log li").first).to_contain_text("P1 ")


def test_the_favicon_passes_the_pages_security_policy(browser: Any, live_server: Any) -> None:
    m = create(live_server)
    ctx = browser.new_context()
    page = ctx.new_page()
    problems: list[str] = []
    page.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    icons: list[int] = []
    page.on("response", lambda r: icons.append(r.status) if "favicon" in r.url else None)
    page.goto(f"{live_server.url}/m/{m['match_id']}/console#token={m['timekeeper_token']}")
    page.wait_for_function("() => window.chukker && window.chukker.connected")
    page.wait_for_timeout(300)
    assert page.locator("link[rel=icon]").count() == 1
    assert icons and all(s == 200 for s in icons), icons
    assert not [p for p in problems if "Content Security Policy" in p or "favicon" in p]
    ctx.close()


#: the arena page's stream and window, replaced so that the test says what the board is
FAKE_ARENA = """
window.__es = null;
window.EventSource = class { constructor(u) { this.l = {}; window.__es = this; }
  addEventListener(k, f) { this.l[k] = f; } close() {} };
window.__board = (b) => window.__es.l.standings({data: JSON.stringify({boards: {"Arena 1": b}})});
window.__win = {closed: false, location: {href: ""}};
window.open = (u) => { window.__win.location.href = u; return window.__win; };
"""


def test_arena_console_keeps_the_finished_match_until_the_timekeeper_moves_on(
        browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from playwright.sync_api import expect
    from tests.tournament.web_helpers import four_team_toml
    from tests.web.conftest import LiveServer

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with LiveServer(tmp_path / "live.sqlite3") as server, server.client() as c:
        r = c.post(f"{server.url}/tournaments/api", json={"text": four_team_toml()})
        assert r.status_code == 201, r.text
        url = r.json()["arenas"]["Arena 1"]["console"].split("#")[0]
        ctx = browser.new_context()
        ctx.add_init_script(FAKE_ARENA)
        page = ctx.new_page()
        page.goto(url + "?lang=en#token=t")
        page.wait_for_function("() => !!window.__es")
        page.evaluate("""() => window.__board({live: 'L1', teams: ['Reds', 'Blues'],
            score: [2, 1], status: 'in_play', status_text: 'In play'})""")
        page.locator("#arena-open").click()
        assert "/m/L1/console" in page.evaluate("() => window.__win.location.href")
        # the final horn: the arena's board moves on to the next match
        page.evaluate("""() => window.__board({live: 'L2', teams: ['Greens', 'Golds'],
            score: [0, 0], status: 'scheduled', status_text: 'Scheduled'})""")
        expect(page.locator("#arena-final")).to_be_visible()
        expect(page.locator("#arena-final-result")).to_have_text("Final: Reds 2 – 1 Blues")
        page.wait_for_timeout(2500)
        assert "/m/L1/console" in page.evaluate("() => window.__win.location.href")
        page.locator("#arena-next").click()
        assert "/m/L2/console" in page.evaluate("() => window.__win.location.href")
        expect(page.locator("#arena-final")).to_be_hidden()
        ctx.close()


def test_undo_preview_door_needs_the_officials_token_and_records_nothing(
        client: Any, make_match: Any) -> None:
    """/m/ID/undo: what an undo would change (the clock, the score, the period), or the
    engine's refusal; a timekeeper's or committee's token; a number of an event; nothing
    is recorded (issue 42)."""
    from tests.web.conftest import post_event

    m = make_match(client)
    post_event(client, m, {"type": "bowl_in"})
    post_event(client, m, {"type": "goal", "team": "B", "player": 1})
    assert client.get(f"/m/{m.id}/undo?event=2").status_code == 401
    assert client.get(f"/m/{m.id}/undo?event=2",
                      headers={"authorization": "Bearer nope"}).status_code == 403
    for bad in ("0", "3", "-1", "x" * 50):
        assert client.get(f"/m/{m.id}/undo?event={bad}", headers=m.tk).status_code == 422
    r = client.get(f"/m/{m.id}/undo?event=2", headers=m.tk)
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    score = r.json()["changes"]["score"]
    assert list(score) == ["B"] and score["B"][0] - score["B"][1] == 1
    # undoing the bowl-in would leave the goal standing on nothing: the engine's refusal
    refused = client.get(f"/m/{m.id}/undo?event=1", headers=m.cm).json()["refused"]
    assert refused["code"] == "undo_leaves_refused" and refused["params"]["event"] == 2
    assert len(client.get(f"/api/matches/{m.id}/record").json()["events"]) == 2


def test_an_undo_the_engine_refuses_gives_the_engines_code_and_params() -> None:
    """The refusal is read typed from the engine's error (issue 45: no getattr)."""
    from chukker.store.engine import Setup
    from chukker.web.demo import DEMO_HEADER
    from chukker.web.officials.console import undo_changes

    said = undo_changes(Setup.from_dict(DEMO_HEADER), [], 5, 0)
    assert said["event"] == 5
    assert said["refused"]["code"] == "undo_not_earlier"
    assert said["refused"]["params"] == {"target": 5, "index": 1}
    assert said["refused"]["reason"]
