"""Browser test: a tournament of four teams, its pool played through the API, a
spectator's page following the table and the bracket over Server-Sent Events."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from tests.tournament.web_helpers import RESULTS, four_team_toml, post

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


def test_pool_played_through_the_api_spectator_page_follows(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playwright.sync_api import expect
    from tests.web.conftest import LiveServer

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with LiveServer(tmp_path / "live.sqlite3") as server, server.client() as c:
        r = c.post(f"{server.url}/tournaments/api", json={"text": four_team_toml()})
        assert r.status_code == 201, r.text
        body = r.json()
        tid = body["tournament_id"]
        tokens = {a: v["token"] for a, v in body["arenas"].items()}

        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(f"{server.url}/tournaments/{tid}?lang=en")
        expect(page.locator("h1")).to_have_text("Four Cup")
        expect(page.locator('section.pool tr[data-team="reds"] td').nth(3)).to_have_text("0")
        expect(page.locator(".bracket .bm")).to_have_count(1)
        expect(page.locator('.bracket [data-team="reds"]')).to_have_count(0)

        for mid, events in RESULTS.items():
            live = body["matches"][mid]
            arena = "Arena 1" if int(mid[1:]) % 2 else "Arena 2"
            for ev in [{"type": "bowl_in"}, *events]:
                assert post(c, server.url, live, tokens[arena], ev).status_code == 201
            if mid == "m1":  # the first result reaches the page without a reload
                expect(page.locator('tr[data-match="m1"]')).to_have_attribute(
                    "data-status", "final"
                )
                expect(page.locator('tr[data-team="reds"] td').nth(3)).to_have_text("1")

        rows = page.locator("section.pool tbody tr")
        expect(rows.nth(0)).to_have_attribute("data-team", "reds")
        expect(rows.nth(1)).to_have_attribute("data-team", "blues")
        expect(page.locator('section.pool tr[data-team="reds"] td').nth(3)).to_have_text("3")
        expect(page.locator("section.pool .reasons li").first).to_contain_text("Reds above Blues")
        # the final now has its teams, in the bracket and as a live match
        expect(page.locator('.bracket [data-team="reds"]')).to_have_count(1)
        expect(page.locator('.bracket [data-team="blues"]')).to_have_count(1)
        expect(page.locator('tr[data-match="f1"] a', has_text="QR")).to_have_count(1)


def test_spectator_sees_a_six_team_bracket_with_byes(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playwright.sync_api import expect
    from tests.tournament.web_helpers import six_team_toml
    from tests.web.conftest import LiveServer

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with LiveServer(tmp_path / "live.sqlite3") as server, server.client() as c:
        r = c.post(f"{server.url}/tournaments/api", json={"text": six_team_toml()})
        assert r.status_code == 201, r.text
        tid = r.json()["tournament_id"]
        page = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        page.goto(f"{server.url}/tournaments/{tid}?lang=en")
        expect(page.locator(".bracket .bm")).to_have_count(5)
        byes = page.locator(".bracket g.bye")
        expect(byes).to_have_count(2)
        expect(byes.first).to_contain_text("bye")
        expect(byes.first).to_contain_text("Pool A, place 1")
        # each bye box is drawn beside (left of) the match its seed enters. The stream's
        # first message replaces the standings' HTML (tournament-show.js) whenever it
        # comes: a box measured at that moment is of a detached element (None), so the
        # two are measured again, from the page as it is then
        target = page.locator('.bracket g.bm[data-match="ko-r2-1"]')
        deadline = time.monotonic() + 10
        while True:
            box, to = byes.first.bounding_box(), target.bounding_box()
            if (box is not None and to is not None) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert box is not None and to is not None and box["x"] < to["x"]


FORFEIT_WORDS = [("en", "both forfeited"), ("it", "entrambe hanno perso per forfait")]


@pytest.mark.parametrize(("lang", "words"), FORFEIT_WORDS)
def test_double_forfeit_final_on_the_phone_display_and_overlay(
    browser: Any, tmp_path: Path, lang: str, words: str
) -> None:
    from playwright.sync_api import expect
    from tests.web.conftest import ORGANISER_AUTH, LiveServer

    from chukker.web.demo import DEMO_HEADER

    with LiveServer(tmp_path / "live.sqlite3") as server, server.client() as c:
        r = c.post(f"{server.url}/api/matches", json=DEMO_HEADER, headers=ORGANISER_AUTH)
        assert r.status_code == 201, r.text
        b = r.json()
        live, tok = b["match_id"], b["timekeeper_token"]
        ctx = browser.new_context(viewport={"width": 1280, "height": 720})
        overlay = ctx.new_page()
        overlay.goto(f"{server.url}/m/{live}/overlay?lang={lang}")
        for ev in ({"type": "bowl_in"}, {"type": "goal", "team": "B"},
                   {"type": "forfeit", "team": "A"}, {"type": "forfeit", "team": "B"}):  # fmt: skip
            assert post(c, server.url, live, tok, ev).status_code == 201
        # the overlay follows the stream to the final: a forfeit, not a win
        expect(overlay.locator("[data-phase]")).to_contain_text(words)
        for view in ("", "/display"):
            page = ctx.new_page()
            page.goto(f"{server.url}/m/{live}{view}?lang={lang}")
            expect(page.locator("[data-status]").first).to_contain_text(words)
            expect(page.locator("body.forfeit")).to_have_count(1)


def test_the_new_tournament_form_lists_each_problem_in_the_pages_language(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from playwright.sync_api import expect
    from tests.web.conftest import LiveServer

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    bad = four_team_toml().replace(
        'players = ["reds1", "reds2", "reds3"]', 'players = ["reds1", "reds2", "zed"]'
    ).replace("tiebreak =", "tiebrake =")
    with LiveServer(tmp_path / "live.sqlite3") as server:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(f"{server.url}/tournaments?lang=es")
        page.fill("#tournament-text", bad)
        page.click("#new-tournament button[type=submit]")
        err = page.locator("#create-error")
        expect(err.locator("li")).to_have_count(2)
        expect(err).to_contain_text("el archivo del torneo tiene problemas:")
        expect(err.locator("li").nth(1)).to_have_text(
            "equipo reds: el jugador zed no está en el padrón")
        expect(err.locator("li").nth(0)).to_contain_text("clave desconocida `tiebrake`")
