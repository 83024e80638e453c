"""Issue 30, "The console and the screens": a focused control keeps Space and Enter (a
link does not: Space there is the clock); queued goals show as pending while offline;
after a goal the console says the clock runs on and play restarts with a bowl-in at
centre (Rules 5 and 6); a time-out shows with its team or reason; final screens say how
the match was decided; a practice never shows a winner."""

from __future__ import annotations

from typing import Any

import pytest
from tests.web.test_console_keyboard import tab_to
from tests.web.test_matchday_console import console, create, wait_events

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def test_rule_5_6_console_after_a_goal_offline_pending_and_a_time_out_in_words(
        browser: Any, live_server: Any) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.keyboard.press("Space")  # bowl-in
    tk.wait_for_function("() => window.chukker.state.clock.running")
    # offline: the goal waits in the queue, shown as pending in the score and the state
    tk.context.set_offline(True)
    tk.keyboard.press("2")
    expect(tk.locator('[data-hcp="A"]')).to_have_attribute("data-pending", "+1 pending")
    expect(tk.locator("#pending-state")).to_contain_text("Pending, not recorded yet: Goal")
    tk.context.set_offline(False)
    ev = wait_events(live_server, m, 2, timeout=15)
    assert [e["type"] for e in ev] == ["bowl_in", "goal"]
    expect(tk.locator("#message")).to_contain_text(
        "restart: bowl-in at centre (Rule 6)", timeout=10_000)
    expect(tk.locator("#message")).to_contain_text("time is not taken out for a goal")
    assert "server's time" not in tk.locator("#message").inner_text()
    expect(tk.locator('[data-hcp="A"]')).to_have_attribute("data-pending", "")
    expect(tk.locator("#pending-state")).to_be_hidden()
    # Space on a focused link is no link's key: it stays the clock (a whistle)
    tab_to(tk, "a[href]")
    tk.keyboard.press("Space")
    assert [e["type"] for e in wait_events(live_server, m, 3)][-1] == "whistle"
    # a time-out: its team and reason on the console and the big screen
    tk.evaluate("() => document.activeElement.blur()")
    tk.wait_for_function("() => !window.chukker.state.clock.running")
    tk.keyboard.press("Space")  # bowl-in again
    tk.wait_for_function("() => window.chukker.state.clock.running")
    tk.keyboard.press("t")
    tk.locator("#timeout-form select[name=team]").select_option("B")
    tk.locator("#timeout-form select[name=reason]").select_option("injury")  # opens empty
    tk.keyboard.press("Enter")
    assert wait_events(live_server, m, 5)[-1]["type"] == "timeout"
    expect(tk.locator("[data-status]")).to_have_text("Time-out · White · injury")
    big = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    big.goto(f"{live_server.url}/m/{m['match_id']}/display")
    expect(big.locator("[data-status]")).to_have_text("Time-out · White · injury",
                                                      timeout=10_000)
    ov = big.context.new_page()
    ov.goto(f"{live_server.url}/m/{m['match_id']}/overlay")
    expect(ov.locator("[data-phase]")).to_have_text("Period 1 of 4 · Time-out · White · injury",
                                                    timeout=10_000)
    # the final screens say how the match was decided; an extra period is named so
    final = """(r) => window.chukker.update(Object.assign({}, window.chukker.state, r))"""
    big.evaluate(final, {"status": "final", "period": 5, "winner": "A",
                         "decided_by": "extra-period", "score": {"A": 2, "B": 1}})
    expect(big.locator("[data-status]")).to_have_text(
        "Final · Winner: Blue · golden goal in extra period 1")
    expect(big.locator("[data-period]")).to_have_text("Extra period 1")
    big.evaluate(final, {"status": "final", "period": 4, "winner": "B",
                         "decided_by": "shootout", "score": {"A": 2, "B": 3},
                         "shootout": {"score": {"A": 2, "B": 3}, "next": None}})
    expect(big.locator("[data-status]")).to_have_text(
        "Final · Winner: White · shootout 2–3")
    big.evaluate(final, {"status": "final", "period": 4, "winner": "A",
                         "decided_by": "regulation", "score": {"A": 1, "B": 0},
                         "practice": {"period_s": 10, "interval_s": 3}})
    expect(big.locator("[data-status]")).to_have_text("Final · Practice: 1–0")
    ov.evaluate(final, {"status": "final", "period": 4, "winner": "A",
                        "decided_by": "regulation", "score": {"A": 1, "B": 0},
                        "practice": {"period_s": 10, "interval_s": 3}})
    expect(ov.locator("[data-phase]")).to_have_text("Final · Practice: 1–0")
    big.context.close()


def test_keyboard_o_sets_the_shootouts_batting_order(browser: Any, db_path: Any,
                                                     server_factory: Any) -> None:
    from playwright.sync_api import expect
    from tests.web.test_console_keyboard import _shootout_match

    from chukker.store import open_store

    store = open_store(db_path)
    mid = _shootout_match(store)
    store.close()
    m = {"match_id": mid, "timekeeper_token": "tk-" + mid}
    with server_factory(db_path) as srv:
        tk = console(browser, srv, m)
        expect(tk.locator("#shootout")).to_be_visible(timeout=10_000)
        tk.keyboard.press("o")
        tk.keyboard.type("3,1,2")
        tk.keyboard.press("Tab")
        tk.keyboard.press("Control+a")
        tk.keyboard.type("2 3 1")
        tk.keyboard.press("Enter")
        ev = wait_events(srv, m, 5)
        assert ev[4]["type"] == "shootout_order"
        assert ev[4]["order"] == {"A": [3, 1, 2], "B": [2, 3, 1]}
