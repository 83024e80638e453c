"""Rule 5 at the timekeeper's table (issue 31): chromium's fake microphone plays a
recording with whistles at known instants into the console; the match's record then has
those whistles (``"source": "audio"``), spaced as in the recording, and no others."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.web.test_matchday_console import create, record

from chukker.whistle import synthetic as S

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

SR = 48000
#: the whistles' onsets in the recording (s); the test bowls in again between them
WHISTLES = (1.5, 4.3, 7.1)
LENGTH = 8.5


def _recording(path: Path) -> None:
    rng = np.random.default_rng(31)
    x = 0.25 * S._norm(S.crowd(SR, LENGTH, 1) + 0.6 * S.hooves(SR, LENGTH, 2))
    for at, w in ((0.3, 0.6 * S.horn(SR, 0.9, 370.0)), (2.6, 0.5 * S.lip_whistle(SR, 1.2, 2300.0)),
                  (5.4, 0.6 * S.horn(SR, 1.0, 300.0))):
        i = int(at * SR)
        x[i : i + len(w)] += w
    for k, at in enumerate(WHISTLES):
        w = 0.5 * S.pealess_whistle(SR, 0.5, S.PEALESS[k % 3], int(rng.integers(99)))
        i = int(at * SR)
        x[i : i + len(w)] += w
    S.write_wav(path, 0.8 * x / np.max(np.abs(x)), SR)


@pytest.fixture
def mic_browser(tmp_path: Path) -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CHUKKER_REQUIRE_BROWSER") == "1":
            pytest.fail(f"CHUKKER_REQUIRE_BROWSER=1 but {CHROMIUM} is missing")
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    wav = tmp_path / "arena.wav"
    _recording(wav)
    args = [*CHROMIUM_ARGS, "--use-fake-device-for-media-stream",
            "--use-fake-ui-for-media-stream", f"--use-file-for-fake-audio-capture={wav}%noloop",
            "--autoplay-policy=no-user-gesture-required"]
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=args)
        yield b
        b.close()


def _console(browser: Any, server: Any, m: dict[str, Any]) -> Any:
    ctx = browser.new_context(viewport={"width": 1366, "height": 900})
    ctx.grant_permissions(["microphone"], origin=server.url)
    page = ctx.new_page()
    page.goto(f"{server.url}/m/{m['match_id']}/console?lang=en#token={m['timekeeper_token']}")
    page.wait_for_function(
        "() => window.chukker && window.chukker.state && window.chukker.connected")
    return page


def test_rule_5_whistles_heard_by_the_microphone_stop_the_clock_at_their_onsets(
        mic_browser: Any, live_server: Any) -> None:
    m = create(live_server)
    tk = _console(mic_browser, live_server, m)
    tk.keyboard.press("Space")
    tk.wait_for_function("() => window.chukker.state.clock.running")
    tk.locator("#whistle-on").check()  # the fake microphone starts the recording now
    tk.wait_for_function("() => window.chukker.whistle.on")
    end = time.monotonic() + LENGTH + 6
    seen = 0
    while time.monotonic() < end:
        ev = record(live_server, m)
        heard = [e for e in ev if e["type"] == "whistle"]
        if len(heard) > seen:  # stopped: the umpire bowls in again, as in a match
            seen = len(heard)
            tk.wait_for_function("() => !window.chukker.state.clock.running")
            if seen == len(WHISTLES):
                break
            tk.keyboard.press("Space")
            tk.wait_for_function("() => window.chukker.state.clock.running")
        time.sleep(0.05)
    tk.wait_for_timeout(1500)  # nothing more comes (the horns and the lip whistle are not one)
    ev = record(live_server, m)
    whistles = [e for e in ev if e["type"] == "whistle"]
    assert [e.get("source") for e in whistles] == ["audio"] * len(WHISTLES), ev
    got = np.diff([e["at"] for e in whistles])
    want = np.diff(WHISTLES)
    assert np.all(np.abs(got - want) <= 0.1), (got, want)
    # the console shows it, with one key to undo the last
    assert tk.locator("#whistle-heard").is_visible()
    tk.keyboard.press("z")
    tk.wait_for_function(f"() => window.chukker.state.seq >= {len(ev) + 1}")
    last = record(live_server, m)[-1]
    assert last["type"] == "undo" and last["event"] == len(ev)


def test_rule_5_a_clipping_microphone_is_shown_and_never_posts(
        tmp_path: Path, live_server: Any) -> None:
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    x = np.zeros(int(SR * 3.5))
    for at in (1.0, 2.2):
        w = S.pealess_whistle(SR, 0.6, S.PEALESS[0])
        x[int(at * SR) : int(at * SR) + len(w)] += w
    wav = tmp_path / "clipped.wav"
    S.write_wav(wav, np.clip(4 * x + 0.01, -1, 1), SR)  # the gain far too high
    args = [*CHROMIUM_ARGS, "--use-fake-device-for-media-stream",
            "--use-fake-ui-for-media-stream", f"--use-file-for-fake-audio-capture={wav}%noloop"]
    m = create(live_server)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=args)
        tk = _console(b, live_server, m)
        tk.keyboard.press("Space")
        tk.wait_for_function("() => window.chukker.state.clock.running")
        tk.locator("#whistle-on").check()
        tk.wait_for_function("() => document.getElementById('whistle-panel').dataset.mic "
                             "=== 'clipped'", timeout=10000)
        tk.wait_for_timeout(2500)
        assert "clipping" in tk.locator("#whistle-mic").inner_text()
        assert [e["type"] for e in record(live_server, m)] == ["bowl_in"]
        b.close()


def test_rule_5_microphone_refused_says_how_to_allow_it_and_keys_go_on(
        browser: Any, live_server: Any) -> None:
    m = create(live_server)
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(f"{live_server.url}/m/{m['match_id']}/console?lang=it"
              f"#token={m['timekeeper_token']}")
    page.wait_for_function("() => window.chukker && window.chukker.state && "
                           "window.chukker.connected")
    page.evaluate("""() => { navigator.mediaDevices.getUserMedia = () =>
        Promise.reject(new DOMException("denied", "NotAllowedError")); }""")
    page.locator("#whistle-on").click()  # the box unchecks itself when refused
    page.wait_for_function("() => !document.getElementById('whistle-on').checked && "
                           "document.getElementById('whistle-status').className.includes('bad')")
    assert "consentire il microfono" in page.locator("#whistle-status").inner_text()
    page.keyboard.press("Space")
    page.wait_for_function("() => window.chukker.state.clock.running")
    assert [e["type"] for e in record(live_server, m)] == ["bowl_in"]
    ctx.close()


def test_rule_5_first_of_key_and_microphone_wins_and_the_consoles_horn_is_no_whistle(
        browser: Any, live_server: Any) -> None:
    m = create(live_server)
    ctx = browser.new_context()
    tk = ctx.new_page()
    tk.goto(f"{live_server.url}/m/{m['match_id']}/console?lang=en#token={m['timekeeper_token']}")
    tk.wait_for_function(
        "() => window.chukker && window.chukker.state && window.chukker.connected")
    blast = "() => window.chukker.whistle.feed({type: 'blast', at: 0, score: 1, tones: []})"
    running = "() => window.chukker.state.clock.running && !window.chukker.holdAt"

    def types() -> list[tuple[str, Any]]:
        return [(e["type"], e.get("source")) for e in record(live_server, m)]

    tk.keyboard.press("Space")
    tk.wait_for_function(running)
    # the console's own horn: nothing is posted while it sounds and just after
    tk.evaluate("() => window.chukker.localHorn({kind: 'split', period: 1})")
    tk.evaluate(blast)
    assert "horn" in tk.locator("#whistle-log").inner_text()
    # the microphone first: the key a moment later is not posted again
    tk.evaluate("() => new Promise((r) => setTimeout(r, 2900))")  # the guard is over
    tk.evaluate(blast)
    tk.keyboard.press("w")
    tk.wait_for_function("() => !window.chukker.state.clock.running")
    tk.wait_for_timeout(400)
    assert types() == [("bowl_in", None), ("whistle", "audio")]
    assert tk.locator("#whistle-heard").is_visible()
    # the key first: the microphone a moment later posts nothing
    tk.keyboard.press("Space")
    tk.wait_for_function(running)
    tk.keyboard.press("w")
    tk.evaluate(blast)
    tk.wait_for_function("() => !window.chukker.state.clock.running")
    tk.wait_for_timeout(400)
    assert types() == [("bowl_in", None), ("whistle", "audio"), ("bowl_in", None),
                       ("whistle", None)]
    # while the clock is stopped a blast does nothing
    tk.evaluate(blast)
    tk.wait_for_timeout(300)
    assert len(types()) == 4
    ctx.close()
