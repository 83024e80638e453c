"""The timekeeper's key card at /help/keys: one A4 page in en, es and it, from the one
table the console's keys are tested against (tests/test_docs.py) and the docs print."""

from __future__ import annotations

from typing import Any

import pytest

from chukker.i18n import translations
from chukker.web.keys import CONSOLE_KEYS, GROUP_TITLES


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_timekeeper_prints_the_key_card_on_one_a4_page(client: Any, lang: str) -> None:
    r = client.get(f"/help/keys?lang={lang}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    html = r.text
    tr = translations(lang)
    for k in CONSOLE_KEYS:
        assert tr.gettext(k.action).replace("'", "&#39;") in html, k.action
    assert 'class="bar"' in html or "shared" in html or "<nav" in html  # the shared layout
    pytest.importorskip("weasyprint")
    from chukker.web.shared.sheet import PdfUnavailable, render_pdf

    try:
        _pdf, pages = render_pdf(html)
    except PdfUnavailable as e:  # pragma: no cover - Pango missing
        pytest.skip(f"WeasyPrint cannot load: {e}")
    assert pages == 1, f"the {lang} key card takes {pages} A4 pages"


@pytest.mark.parametrize("lang", ["es", "it"])
def test_key_card_is_said_in_the_timekeepers_language(lang: str) -> None:
    tr = translations(lang)
    words = [*GROUP_TITLES.values(), *(x for k in CONSOLE_KEYS for x in (k.action, k.note) if x)]
    same_in_every_language = {"Shootout", "Time-out"}
    missing = [w for w in words if tr.gettext(w) == w and w not in same_in_every_language]
    assert missing == []


def test_key_card_door_anyone_reads_it_and_it_takes_nothing_else(client: Any) -> None:
    assert client.get("/help/keys").status_code == 200  # no token: it holds no match data
    assert client.post("/help/keys", json={"x": 1}).status_code == 405
    assert client.get("/help/keys?lang=xx").text.count("Bowl in, start or stop the clock") == 1
    assert client.get("/help/keys/../../etc/passwd").status_code == 404  # names no file
    long = client.get("/help/keys", params={"lang": "e" * 5000})
    assert long.status_code in (200, 414, 431)


def test_timekeeper_finds_the_key_card_from_the_console(client: Any, make_match: Any) -> None:
    m = make_match(client)
    html = client.get(f"/m/{m.id}/console?lang=it").text
    assert 'href="/help/keys?lang=it"' in html and "Stampare la scheda dei tasti" in html
