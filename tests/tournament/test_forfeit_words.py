"""Forfeits read as forfeits (issue 21.5): a double forfeit (Penalty 9 against both teams)
says "both forfeited" in the page's language wherever a result is shown, with no team
in bold; a single forfeit says "White forfeited"."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tests.tournament.web_helpers import RESULTS, four_team_toml, post
from tests.web.conftest import OPEN, ORGANISER_AUTH

from chukker.i18n import translations
from chukker.tournament.words import MESSAGES, forfeit_words, result_words
from chukker.web import create_app
from chukker.web.demo import DEMO_HEADER

BOTH = {"en": "both forfeited", "es": "ambos perdieron por abandono",
        "it": "entrambe hanno perso per forfait"}  # fmt: skip


@pytest.mark.parametrize("lang", ["es", "it"])
def test_result_words_are_translated(lang: str) -> None:
    tr = translations(lang)
    for msgid in MESSAGES:
        assert tr.gettext(msgid) != msgid, msgid
    assert forfeit_words(["Reds", "Blues"], ["Reds", "Blues"], tr.gettext) == BOTH[lang]
    one = forfeit_words(["Reds"], ["Reds", "Blues"], tr.gettext)
    assert one is not None and one.startswith("Reds ")


def test_result_words_rule_9_forfeits() -> None:
    assert result_words("final", (0, 3), None, ["A", "B"], ["A", "B"]) == "both forfeited"
    assert result_words("final", (0, 3), "B", ["A"], ["A", "B"]) == "A forfeited"
    assert result_words("final", (5, 3), "A", [], ["A", "B"]) == "5–3"
    # not final yet: the score as it stands
    assert result_words("in_play", (0, 3), None, ["A"], ["A", "B"]) == "0–3"


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with TestClient(create_app(tmp_path / "live.sqlite3", **OPEN)) as c:
        yield c


def _double_forfeit(client: Any, live: str, token: str) -> None:
    for ev in ({"type": "bowl_in"}, {"type": "goal", "team": "B"},
               {"type": "forfeit", "team": "A"}, {"type": "forfeit", "team": "B"}):  # fmt: skip
        r = post(client, "", live, token, ev)
        assert r.status_code == 201, r.text


def _row(html: str, match: str) -> str:
    m = re.search(rf'<tr data-match="{match}".*?</tr>', html, re.S)
    assert m is not None, match
    return m.group(0)


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_timekeeper_records_a_double_forfeit_every_tournament_page_says_both_forfeited(
    client: Any, lang: str
) -> None:
    body = client.post("/tournaments/api", json={"text": four_team_toml()}).json()
    tid = body["tournament_id"]
    a1 = body["arenas"]["Arena 1"]["token"]
    _double_forfeit(client, body["matches"]["m1"], a1)
    words = BOTH[lang]
    page = client.get(f"/tournaments/{tid}?lang={lang}").text
    row = _row(page, "m1")
    assert words in row and "0–1" not in row and 'class="winner"' not in row
    # the pool's table says which match was forfeited
    assert f"m1: Reds – Blues: {words}" in page
    card = client.get(f"/tournaments/{tid}/matches/m1?lang={lang}").text
    assert words in card and "0–1" not in card
    team = client.get(f"/tournaments/{tid}/teams/reds?lang={lang}").text
    assert words in team
    # the match's own pages: home page, score sheet
    live = body["matches"]["m1"]
    home = client.get(f"/?lang={lang}").text
    assert words in _row(home, live)
    sheet = client.get(f"/m/{live}/sheet?lang={lang}").text
    assert words in sheet


def test_single_forfeit_names_the_team_and_the_bracket_says_it(client: Any) -> None:
    body = client.post("/tournaments/api", json={"text": four_team_toml()}).json()
    tid = body["tournament_id"]
    tokens = {a: v["token"] for a, v in body["arenas"].items()}
    for mid, events in RESULTS.items():
        tok = tokens["Arena 1" if int(mid[1:]) % 2 else "Arena 2"]
        live = body["matches"][mid]
        assert post(client, "", live, tok, {"type": "bowl_in"}).status_code == 201
        for ev in events:
            assert post(client, "", live, tok, ev).status_code == 201
    page = client.get(f"/tournaments/{tid}").text
    assert "Blues forfeited" in _row(page, "m1")  # m1: Reds v Blues, Blues forfeited
    assert 'class="winner">Reds' in _row(page, "m1")
    # the final, both forfeited: the bracket says so, no one in bold
    final = client.get(f"/tournaments/{tid}/results.json").json()
    live_f1 = next(m for m in final["matches"] if m["id"] == "f1")["live"]
    _double_forfeit(client, live_f1, tokens["Arena 1"])
    svg = client.get(f"/tournaments/{tid}/bracket.svg?lang=es").text
    assert 'data-result="ambos perdieron por abandono"' in svg
    box = re.search(r'<g class="bm" data-match="f1".*?</g>', svg, re.S)
    assert box is not None and 'font-weight="bold"' not in box.group(0)


def test_a_match_page_forfeit_on_the_home_page_and_sheet(client: Any) -> None:
    r = client.post("/api/matches", json=DEMO_HEADER, headers=ORGANISER_AUTH)
    assert r.status_code == 201, r.text
    b = r.json()
    live, tok = b["match_id"], b["timekeeper_token"]
    for ev in ({"type": "bowl_in"}, {"type": "forfeit", "team": "A"}):
        assert post(client, "", live, tok, ev).status_code == 201
    name = DEMO_HEADER["teams"]["A"]["name"]
    home = client.get("/").text
    assert f"{name} forfeited" in _row(home, live)
    sheet = client.get(f"/m/{live}/sheet?lang=it").text
    assert f"{name} ha perso per forfait" in sheet


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_a_double_forfeit_on_the_match_pages_before_any_script_runs(client: Any, lang: str) -> None:
    r = client.post("/api/matches", json=DEMO_HEADER, headers=ORGANISER_AUTH)
    b = r.json()
    _double_forfeit(client, b["match_id"], b["timekeeper_token"])
    for view in ("", "/display", "/overlay"):
        html = client.get(f"/m/{b['match_id']}{view}?lang={lang}").text
        assert BOTH[lang] in html, view
