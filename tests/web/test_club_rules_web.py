"""Issue 33 on the web: a club's edition through the API, its refusals in the caller's
language, the screens counting the club's periods, and the sheet naming the club's rules."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.web.conftest import ORGANISER_AUTH

SIX = {"base": "uspa-arena-2026", "name": "School league",
       "six": {"count": 6, "length_s": 300, "intervals_s": [120, 120, 300, 120, 120]}}


def club_header(header: dict[str, Any], edition: Any = SIX) -> dict[str, Any]:
    return {**header, "rules": "club", "edition": edition,
            "options": {**header["options"], "periods": "six", "split_periods": False}}


def test_club_rules_a_match_is_created_with_its_edition_and_counts_its_periods(
        client: Any, header: dict[str, Any]) -> None:
    r = client.post("/api/matches", json=club_header(header), headers=ORGANISER_AUTH)
    assert r.status_code == 201, r.text
    mid = r.json()["match_id"]
    state = client.get(f"/api/matches/{mid}").json()
    report = state.get("report", state)
    assert report["rules"]["name"] == "School league"
    for lang, words in (("en", "Period {n} of {count}"), ("es", "Período {n} de {count}")):
        page = client.get(f"/m/{mid}/display?lang={lang}").text
        m = re.search(r'<script id="cfg" type="application/json">(.*?)</script>', page)
        assert m is not None
        cfg = json.loads(m.group(1))
        assert cfg["regular_periods"] == 6 and cfg["labels"]["period_of"] == words


def test_club_rules_the_sheet_prints_the_clubs_name_and_changes(
        client: Any, header: dict[str, Any]) -> None:
    mid = client.post("/api/matches", json=club_header(header),
                      headers=ORGANISER_AUTH).json()["match_id"]
    en = client.get(f"/m/{mid}/sheet").text
    assert "School league (club rules on USPA Arena Rules 2026)" in en
    assert "6 periods of 5:00" in en and "intervals 2:00 and 5:00" in en  # words (issue 42)
    es = client.get(f"/m/{mid}/sheet?lang=es").text
    assert "School league (reglas del club sobre USPA Arena Rules 2026)" in es
    assert "Cambios del club" in es


def test_club_rules_a_bad_edition_is_refused_with_its_path_in_the_callers_language(
        client: Any, header: dict[str, Any]) -> None:
    bad = {**SIX, "six": {"count": 6, "length_s": 300, "intervals_s": [120, 120]}}
    r = client.post("/api/matches?lang=es", json=club_header(header, bad),
                    headers=ORGANISER_AUTH)
    assert r.status_code == 422, r.text
    j = r.json()
    assert "edition.six.intervals_s" in json.dumps(j)
    assert "6 períodos tienen 5 intervalos" in j.get("text", ""), j


def test_club_rules_a_name_with_markup_never_reaches_a_page(
        client: Any, header: dict[str, Any]) -> None:
    bad = {**SIX, "name": '<img src=x onerror="alert(1)">'}
    r = client.post("/api/matches", json=club_header(header, bad), headers=ORGANISER_AUTH)
    assert r.status_code == 422
    assert "<img" not in r.text or "edition.name" in r.text


PINE_TOML = '''base = "uspa-arena-2026"
name = "Pine Hill winter league"
[regulation]
count = 4
length_s = 360
intervals_s = [180, 300, 180]
'''


def test_club_rules_the_new_match_form_takes_a_saved_club_edition(client: Any) -> None:
    import html

    from tests.web.test_setup_refusals import FORM, csrf_of

    r = client.post("/new?lang=en", data={**FORM, "rules": "club", "club_edition": PINE_TOML,
                                          "csrf": csrf_of(client)}, follow_redirects=False)
    assert r.status_code == 303, r.text[:500]
    mid = r.headers["location"].split("/")[2]
    report = client.get(f"/api/matches/{mid}").json()
    report = report.get("report", report)
    assert report["rules"]["name"] == "Pine Hill winter league"
    for bad, lang, words in (("not = [toml", "es", "pegue o cargue la edición del club"),
                             ("x" * 20_000, "en", "at most 16384 characters"),
                             (PINE_TOML.replace("360", "30"), "it",
                              "edition.regulation.length_s: deve essere un numero di secondi")):
        r = client.post(f"/new?lang={lang}", data={**FORM, "rules": "club", "club_edition": bad,
                                                   "csrf": csrf_of(client)})
        assert r.status_code == 422
        assert words in html.unescape(r.text)


def test_club_rules_the_form_page_offers_club_rules_and_its_box(client: Any) -> None:
    page = client.get("/new?lang=es").text
    assert 'value="club"' in page and "Reglas del club" in page
    assert 'maxlength="16384"' in page and "club-edition.js" in page


OAK = {"base": "uspa-arena-2026", "name": "Oak Hill winter league", "warning_at_s": 20,
       "split_after_s": 150, "regulation": {"count": 3, "length_s": 360,
                                            "intervals_s": [120, 180]}}


def test_club_rules_the_sheet_says_the_clubs_changes_in_words_in_its_language(
        client: Any, header: dict[str, Any]) -> None:
    h = {**header, "rules": "club", "edition": OAK,
         "options": {**header["options"], "periods": "regulation", "split_periods": True}}
    r = client.post("/api/matches", json=h, headers=ORGANISER_AUTH)
    assert r.status_code == 201, r.text
    mid = r.json()["match_id"]
    en = client.get(f"/m/{mid}/sheet").text
    assert ("3 periods of 6:00 (USPA: 4 of 7:30); intervals 2:00 and 3:00; split after 2:30; "
            "warning horn at 0:20") in en
    es = client.get(f"/m/{mid}/sheet?lang=es").text
    assert ("3 períodos de 6:00 (USPA: 4 de 7:30); intervalos de 2:00 y 3:00; cambio de "
            "caballo a los 2:30; bocina de aviso a 0:20 del final") in es
    # the console's warning label is the club's own time, and the club is named
    page = client.get(f"/m/{mid}/console?lang=en").text
    m = re.search(r'<script id="cfg" type="application/json">(.*?)</script>', page)
    assert m is not None
    cfg = json.loads(m.group(1))
    assert cfg["labels"]["horn_warning"] == "20 seconds"
    assert cfg["club_name"] == "Oak Hill winter league"
