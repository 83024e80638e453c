"""The console from the keyboard alone: Tab to a control, press Enter or Space, and the
control does what a click does (issue 24). Shortcuts run only when no control has the
focus, or when they do not collide with the focused control's own keys; a control
clicked with the mouse gives its focus back, so Space after a click is still the clock.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from tests.web.test_matchday_console import console, create, record, wait_events

from chukker.web.demo import DEMO_HEADER

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def tab_to(page: Any, selector: str, limit: int = 120) -> None:
    """Press Tab until the focused element matches ``selector``, as a keyboard user does."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => !!document.activeElement && document.activeElement.matches(s)",
                         selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def types(server: Any, m: dict[str, Any]) -> list[str]:
    return [e["type"] for e in record(server, m)]


def wait_types(server: Any, m: dict[str, Any], n: int) -> list[str]:
    return [e["type"] for e in wait_events(server, m, n)]


def test_keyboard_enter_on_a_focused_bowl_in_whistle_and_goal_records_each(
        browser: Any, live_server: Any) -> None:
    m = create(live_server)
    tk = console(browser, live_server, m)
    tab_to(tk, "#btn-start")
    tk.keyboard.press("Enter")
    assert wait_types(live_server, m, 1) == ["bowl_in"]
    tk.wait_for_function("() => window.chukker.state.clock.running")
    tab_to(tk, "button.goal[data-team=A][data-player='1']:not([disabled])")
    tk.keyboard.press("Enter")
    assert wait_types(live_server, m, 2) == ["bowl_in", "goal"]
    tab_to(tk, "#btn-whistle:not([disabled])")
    tk.keyboard.press("Enter")
    assert wait_types(live_server, m, 3) == ["bowl_in", "goal", "whistle"]


def test_keyboard_space_on_a_focused_goal_button_records_the_goal_not_the_clock(
        browser: Any, live_server: Any) -> None:
    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.keyboard.press("Space")  # nothing focused: the clock's shortcut
    assert wait_types(live_server, m, 1) == ["bowl_in"]
    tk.wait_for_function("() => window.chukker.state.clock.running")
    tab_to(tk, "button.goal[data-team=B][data-player='2']:not([disabled])")
    tk.keyboard.press("Space")
    assert wait_types(live_server, m, 2) == ["bowl_in", "goal"]
    tk.wait_for_timeout(300)
    assert types(live_server, m) == ["bowl_in", "goal"]  # the clock was not stopped
    assert tk.evaluate("() => window.chukker.state.clock.running")


def test_keyboard_space_on_the_horn_sound_box_toggles_it_and_records_nothing(
        browser: Any, live_server: Any) -> None:
    m = create(live_server)
    tk = console(browser, live_server, m)
    tab_to(tk, "#horn-sound")
    tk.keyboard.press("Space")
    assert tk.locator("#horn-sound").is_checked()
    assert tk.evaluate("() => document.activeElement.id") == "horn-sound"  # focus stays
    tk.keyboard.press("Space")
    assert not tk.locator("#horn-sound").is_checked()
    tk.wait_for_timeout(300)
    assert types(live_server, m) == []


def test_keyboard_enter_twice_on_undo_last_undoes_the_last_event(
        browser: Any, live_server: Any) -> None:
    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.keyboard.press("Space")
    assert wait_types(live_server, m, 1) == ["bowl_in"]
    tab_to(tk, "#btn-undo")
    tk.keyboard.press("Enter")
    tk.keyboard.press("Enter")  # the second press confirms, as U twice does
    ev = wait_events(live_server, m, 2)
    assert ev[1]["type"] == "undo" and ev[1]["event"] == 1


def test_keyboard_enter_on_a_log_entrys_undo_undoes_that_event(
        browser: Any, live_server: Any) -> None:
    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.keyboard.press("Space")
    wait_types(live_server, m, 1)
    tk.keyboard.press("KeyW")
    wait_types(live_server, m, 2)
    tk.wait_for_function("() => document.querySelectorAll('#event-log li button').length == 2")
    # the log lists the newest first: its first button undoes event 2, the whistle (the
    # bowl-in's undo would leave the whistle standing on nothing: refused, issue 42)
    target = "#event-log li:nth-child(1) button"
    tab_to(tk, target)
    tk.keyboard.press("Enter")  # asks first (issue 42)
    tk.keyboard.press("Enter")  # the second press undoes
    ev = wait_events(live_server, m, 3)
    assert ev[2]["type"] == "undo" and ev[2]["event"] == 2


def test_keyboard_enter_on_the_foul_button_opens_its_dialog_and_enter_records_it(
        browser: Any, live_server: Any) -> None:
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.keyboard.press("Space")
    wait_types(live_server, m, 1)
    tk.wait_for_function("() => window.chukker.state.clock.running")
    tab_to(tk, "#btn-foul:not([disabled])")
    tk.keyboard.press("Enter")
    expect(tk.locator("#foul-dialog")).to_be_visible()
    tk.keyboard.press("a")  # the dialog opens empty: the team and the penalty are asked
    tk.keyboard.press("2")
    tk.keyboard.press("Enter")
    expect(tk.locator("#foul-dialog")).to_be_hidden()
    assert wait_types(live_server, m, 3) == ["bowl_in", "whistle", "foul"]


def test_keyboard_the_two_point_box_toggles_with_space_and_keeps_the_focus(
        browser: Any, live_server: Any) -> None:
    m = create(live_server)
    tk = console(browser, live_server, m)
    tab_to(tk, "#two-point")
    tk.keyboard.press("Space")
    assert tk.locator("#two-point").is_checked()
    assert tk.evaluate("() => document.activeElement.id") == "two-point"
    assert types(live_server, m) == []


def test_keyboard_a_mouse_click_gives_the_focus_back_so_space_is_the_clock_again(
        browser: Any, live_server: Any) -> None:
    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.locator("#horn-sound").click()
    assert tk.locator("#horn-sound").is_checked()
    tk.keyboard.press("Space")  # the clock's shortcut, not the box
    assert wait_types(live_server, m, 1) == ["bowl_in"]
    assert tk.locator("#horn-sound").is_checked()


def _shootout_match(store: Any) -> str:
    """A practice match (10-s periods, 3-s intervals), tied 0-0, whose four periods were
    played in the last minute: the shootout is about to begin."""
    from chukker.live import Clock, hash_token, new_match_id
    from chukker.store import StoredEvent

    h = copy.deepcopy(DEMO_HEADER)
    h["options"].update(warning_horn=False, tiebreak="shootout", handicap=False,
                        practice={"period_s": 10, "interval_s": 3})
    now = Clock().now_ms()
    start = now - 60_000
    mid = new_match_id()
    store.create_match(mid, h, start, hash_token("tk-" + mid), hash_token("cm-" + mid))
    for i, at in enumerate((0.0, 13.0, 26.0, 39.0), start=1):
        store.append(mid, StoredEvent(i, f"b{i}", {"type": "bowl_in", "at": at},
                                      start + round(at * 1000), "timekeeper"),
                     start + round(at * 1000))
    return mid


def test_keyboard_shootout_order_and_shots_from_the_keyboard(
        browser: Any, db_path: Any, server_factory: Any) -> None:
    from playwright.sync_api import expect

    from chukker.store import open_store

    store = open_store(db_path)
    mid = _shootout_match(store)
    store.close()
    m = {"match_id": mid, "timekeeper_token": "tk-" + mid}
    with server_factory(db_path) as srv:
        tk = console(browser, srv, m)
        expect(tk.locator("#shootout")).to_be_visible(timeout=10_000)
        tab_to(tk, "#order-form button[type=submit]")
        tk.keyboard.press("Enter")
        ev = wait_events(srv, m, 5)
        assert ev[4]["type"] == "shootout_order"
        tab_to(tk, "#end-wall")
        tk.keyboard.press("Space")
        assert tk.locator("#end-wall").is_checked()
        tab_to(tk, "button.shot[data-result=goal]:not([disabled])")
        tk.keyboard.press("Enter")
        ev = wait_events(srv, m, 6)
        assert ev[5]["type"] == "shot" and ev[5]["result"] == "goal"


def test_keyboard_space_right_after_a_foul_takes_the_free_hit_before_the_stream_says_so(
        browser: Any, live_server: Any) -> None:
    """F, the penalty, Enter, then Space at once: the console's own stream has not yet
    brought the foul's state (here it is held back for 400 ms), so Space waits for it
    and sends the free hit, stamped at the key press, instead of a refused bowl-in."""
    from playwright.sync_api import expect

    m = create(live_server)
    tk = console(browser, live_server, m)
    tk.keyboard.press("Space")
    wait_types(live_server, m, 1)
    tk.wait_for_function("() => window.chukker.state.clock.running")
    tk.evaluate("window.chukker.source.close()")  # the console's stream stops for a while
    tk.keyboard.press("f")
    expect(tk.locator("#foul-dialog")).to_be_visible()
    tk.keyboard.press("b")
    tk.keyboard.press("3")
    tk.keyboard.press("Enter")
    expect(tk.locator("#foul-dialog")).to_be_hidden()
    assert wait_types(live_server, m, 3) == ["bowl_in", "whistle", "foul"]
    tk.evaluate("setTimeout(() => window.chukker.reconnect(), 400)")
    tk.keyboard.press("Space")
    assert wait_types(live_server, m, 4) == ["bowl_in", "whistle", "foul", "free_hit"]
