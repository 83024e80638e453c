"""Screens that fit: the big screen, the overlay, the phone view and the console at
every size, with the longest names allowed (60 characters), two-digit scores and
every state. Measured in the browser: no sideways scrolling, no element past the
edge or with its text cut, nothing below the edge of a screen that cannot scroll,
and the clock in the same place in every state.

One page per screen: the states are fed to the page's one rendering entry point
(``chukker.update``) as the engine reports them, and the viewport is resized.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from chukker.web.demo import DEMO_HEADER, state_reports

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

DESKTOP = [(1280, 720), (1366, 768), (1920, 1080), (3840, 2160)]
PHONES = [(360, 740), (390, 844), (430, 932)]
#: the longest names the record allows (60 characters), one with a long word
LONG_NAMES = ("Club Atlético de Polo de Arena San Martín de los Andes Norte",
              "Saint Giles Arena Polo Club of the Upper Thames Valley Shire")
assert all(len(n) <= 60 for n in LONG_NAMES)

MEASURE = (Path(__file__).parent / "measure_screen.js").read_text(encoding="utf-8")

SHOW = """(rep) => {
  rep = JSON.parse(JSON.stringify(rep));
  rep.server_time = window.chukker.serverNow();
  window.chukker.update(rep, { kind: "state" });
}"""




def long_named_match(server: Any) -> dict[str, Any]:
    h = {**DEMO_HEADER, "teams": {k: {**t, "name": n} for (k, t), n in zip(
        DEMO_HEADER["teams"].items(), LONG_NAMES, strict=True)}}
    with server.client() as c:
        r = c.post("/api/matches", json=h)
        assert r.status_code == 201, r.text
        body: dict[str, Any] = r.json()
    return body


SCREENS = {"display": ("/display", DESKTOP, True), "overlay": ("/overlay", DESKTOP, True),
           "spectator": ("", DESKTOP + PHONES, False),
           "console": ("/console", DESKTOP + PHONES, False)}


@pytest.mark.parametrize("screen", list(SCREENS))
def test_screens_fit_every_size_and_state_with_long_names(browser: Any, live_server: Any,
                                                          screen: str) -> None:
    path, sizes, no_scroll = SCREENS[screen]
    m = long_named_match(live_server)
    reports = state_reports(LONG_NAMES, score=(14, 12))
    page = browser.new_page(viewport={"width": sizes[0][0], "height": sizes[0][1]})
    page.goto(f"{live_server.url}/m/{m['match_id']}{path}")
    page.wait_for_function("() => window.chukker && window.chukker.state")
    problems: list[str] = []
    for w, h in sizes:
        page.set_viewport_size({"width": w, "height": h})
        page.wait_for_function(f"() => window.innerWidth === {w} && window.innerHeight === {h}")
        page.evaluate("() => document.fonts.ready.then(() => true)")
        where: dict[str, list[int]] = {}
        # the running state last as well: the reference is measured once the page has
        # settled at its new size (a loaded machine lays out the first frame late)
        for state, rep in [*reports.items(), ("running again", reports["running"])]:
            page.evaluate(SHOW, rep)
            page.evaluate("() => new Promise((r) => requestAnimationFrame(() => "
                          "requestAnimationFrame(r)))")
            got = page.evaluate(MEASURE, no_scroll)
            problems += [f"{screen} {w}x{h} {state}: {b}" for b in got["bad"]]
            where[state] = got["clock"]
        ref = where.pop("running again")
        moved = {s: c for s, c in where.items() if c != ref}
        if moved:
            problems.append(f"{screen} {w}x{h}: the clock moves: running at {ref}, {moved}")
    page.close()
    assert not problems, "\n".join(problems[:40])



CLOCK_AT = """() => { const c = document.querySelector("[data-clock]").getBoundingClientRect();
  return [Math.round(c.left), Math.round(c.top + window.scrollY), Math.round(c.width)]; }"""


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_console_clock_stays_put_when_the_network_drops(browser: Any, live_server: Any,
                                                        lang: str) -> None:
    """The console says it is offline and how many commands it holds, in the network bar,
    which keeps its box: the clock does not move when the network drops, at any size and
    in each language (the offline sentence is longest in Spanish)."""
    m = long_named_match(live_server)
    sizes = [*PHONES, (601, 900), (700, 900), (800, 900), *DESKTOP[:2]]
    page = browser.new_page(viewport={"width": sizes[0][0], "height": sizes[0][1]})
    page.goto(f"{live_server.url}/m/{m['match_id']}/console?lang={lang}"
              f"#token={m['timekeeper_token']}")
    page.wait_for_function("() => window.chukker && window.chukker.state && "
                           "window.chukker.connected")
    page.keyboard.press("Space")  # bowl-in: the clock runs
    page.wait_for_function("() => window.chukker.state.clock.running")
    frames = ("() => new Promise((r) => requestAnimationFrame(() => "
              "requestAnimationFrame(r)))")
    online: dict[tuple[int, int], list[int]] = {}
    for w, h in sizes:
        page.set_viewport_size({"width": w, "height": h})
        page.evaluate(frames)
        online[(w, h)] = page.evaluate(CLOCK_AT)
    page.context.set_offline(True)
    page.keyboard.press("2")  # a goal and a whistle, held until the network is back
    page.keyboard.press("w")
    page.wait_for_function("() => document.body.classList.contains('offline') && "
                           "!document.getElementById('queued').hidden")
    problems = []
    for w, h in sizes:
        page.set_viewport_size({"width": w, "height": h})
        page.evaluate(frames)
        got = page.evaluate(CLOCK_AT)
        bad = page.evaluate(MEASURE, False)
        if got != online[(w, h)]:
            problems.append(f"{lang} {w}x{h}: the clock moves offline: {online[(w, h)]} -> {got}")
        problems += [f"{lang} {w}x{h} offline: {b}" for b in bad["bad"]]
    text = page.locator(".netbar").inner_text()
    page.context.set_offline(False)
    page.close()
    assert not problems, "\n".join(problems)
    assert "2" in text, text


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_console_clock_stays_put_as_the_stopped_time_grows(browser: Any, live_server: Any,
                                                           lang: str) -> None:
    """The banner over a stopped clock keeps its box whether it says nothing yet, "4 s" or
    "59:59 min", in each language and at every size: the clock under it never moves (a
    360 px phone wrapped the longer time onto a second line and pushed the clock 25 px)."""
    m = long_named_match(live_server)
    sizes = [*PHONES, (601, 900), (799, 900), (800, 900), *DESKTOP]
    page = browser.new_page(viewport={"width": sizes[0][0], "height": sizes[0][1]})
    page.goto(f"{live_server.url}/m/{m['match_id']}/console?lang={lang}")
    page.wait_for_function("() => window.chukker && window.chukker.state")
    page.evaluate(SHOW, state_reports(LONG_NAMES)["stopped"])
    frames = ("() => new Promise((r) => requestAnimationFrame(() => "
              "requestAnimationFrame(r)))")
    say = ("(t) => document.querySelectorAll('[data-stopped-for]')"
           ".forEach((e) => { e.textContent = t; })")
    problems = []
    for w, h in sizes:
        page.set_viewport_size({"width": w, "height": h})
        where = {}
        for text in ("", "4 s", "59:59 min"):
            page.evaluate(say, text)
            page.evaluate(frames)
            where[text] = page.evaluate(CLOCK_AT)
            bad = page.evaluate(MEASURE, False)["bad"]
            problems += [f"{lang} {w}x{h} {text!r}: {b}" for b in bad]
        if len({tuple(v) for v in where.values()}) != 1:
            problems.append(f"{lang} {w}x{h}: the clock moves with the stopped time: {where}")
    page.close()
    assert not problems, "\n".join(problems)


def test_interval_is_the_main_countdown_and_says_when_it_has_run_out(
        browser: Any, live_server: Any) -> None:
    m = long_named_match(live_server)
    reports = state_reports()
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(f"{live_server.url}/m/{m['match_id']}/display")
    page.wait_for_function("() => window.chukker && window.chukker.state")
    page.evaluate(SHOW, reports["interval"])
    page.wait_for_timeout(100)
    # the interval's own countdown, give or take the clock offset a loaded machine measures
    assert page.locator("[data-clock]").inner_text() in ("3:12", "3:11", "3:10", "3:09", "3:08")
    assert page.locator("[data-interval]").inner_text() == "Before period 2"
    page.evaluate(SHOW, reports["interval_over"])
    page.wait_for_timeout(100)
    assert page.locator("[data-clock]").inner_text() == "0:00"
    assert "Interval over" in page.locator("[data-interval]").inner_text()
    page.goto(f"{live_server.url}/m/{m['match_id']}/overlay?lang=es")
    page.wait_for_function("() => window.chukker && window.chukker.state")
    page.evaluate(SHOW, reports["final"])
    page.wait_for_timeout(100)
    assert page.locator("[data-phase]").inner_text() == "Final"
    page.close()


@pytest.mark.parametrize("width,height", [(360, 740), (1366, 768)])
def test_other_pages_fit_phones_and_laptops(browser: Any, live_server: Any, store_at: Any,
                                            tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            width: int, height: int) -> None:
    import time

    from chukker.web.demo import seed_finished_match

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    m = long_named_match(live_server)
    done = seed_finished_match(store_at, int(time.time() * 1000))
    toml = (Path(__file__).parents[2] / "examples/tournament/fall-classic.toml").read_text(
        encoding="utf-8")
    with live_server.client() as c:
        t = c.post("/tournaments/api", json={"text": toml}).json()
    tid, first = t["tournament_id"], sorted(t["matches"])[0]
    page = browser.new_page(viewport={"width": width, "height": height})
    wide = []
    for path in ("/", "/new", f"/m/{done}", f"/m/{done}/sheet", f"/m/{m['match_id']}/created",
                 "/rules/", "/rules/uspa-arena-2026/en/5", "/rules/glossary/en",
                 "/rules/search?q=penalty", "/rules/search?q=penalty&lang=it", "/plays/",
                 "/m/nosuchmatch",
                 "/tournaments", f"/tournaments/{tid}", f"/tournaments/{tid}/teams/potros",
                 f"/tournaments/{tid}/matches/{first}",
                 "/learn/", "/learn/test?seed=260885&level=umpire",
                 "/?lang=es", f"/m/{done}/sheet?lang=it", f"/tournaments/{tid}?lang=es"):
        page.goto(live_server.url + path)
        got = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth, "
                            "!!document.querySelector('header.bar .langs a')]")
        if got[0] > got[1] + 1:
            wide.append(f"{path}: {got[0]} > {got[1]}")
        assert got[2], f"{path}: no language switch in the shared bar"
    page.close()
    assert not wide, wide


def test_home_page_follows_each_match(browser: Any, live_server: Any) -> None:
    from playwright.sync_api import expect

    m = long_named_match(live_server)
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(live_server.url + "/")
    row = page.locator(f"tr[data-match='{m['match_id']}']")
    expect(row.locator("[data-home-status]")).to_have_text("Pre-match")
    with live_server.client() as c:
        r = c.post(f"/api/matches/{m['match_id']}/events", json={
            "command_id": "b1", "event": {"type": "bowl_in"}},
            headers={"authorization": "Bearer " + m["timekeeper_token"]})
        assert r.status_code == 201
    expect(row.locator("[data-home-status]")).to_have_text("Period 1 · In play",
                                                           timeout=10_000)
    expect(row.locator("[data-home-clock]")).to_have_text(re.compile(r"7:[0-3]\d"))
    page.close()


def test_big_screen_qr_reads_as_the_phone_page(browser: Any, server_factory: Any,
                                               db_path: Path) -> None:
    """The QR code as a phone camera sees it: decoded from the big screen's pixels."""
    zxingcpp = pytest.importorskip("zxingcpp", reason="no QR decoder (pip install zxing-cpp)")
    import io

    from PIL import Image
    from tests.web.conftest import OPEN

    from chukker.web.planes import Addresses

    # absolute links come from the public_url setting, never from Host (issue 41)
    with server_factory(db_path, at_url=lambda url: {
            **OPEN, "addresses": Addresses(public_url=url)}) as live_server:
        m = long_named_match(live_server)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.goto(f"{live_server.url}/m/{m['match_id']}/display")
        png = page.locator(".phone-qr svg").screenshot()
        assert page.locator(".overlay .phone-qr, body.overlay svg").count() == 0
        page.close()
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))
    assert [b.text for b in found] == [f"{live_server.url}/m/{m['match_id']}"]
