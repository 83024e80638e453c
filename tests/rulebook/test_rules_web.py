"""The /rules pages: laid out like the seeds, permalinks, switchers, flags, glossary, no JS."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from chukker.web.public.rules import make_app, make_router

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def client(seeded_db: Path) -> TestClient:
    return TestClient(make_app(seeded_db))


def test_rule_5_page_in_spanish_is_laid_out_like_the_seed(client: TestClient) -> None:
    r = client.get("/rules/uspa-arena-2026/es/5")
    assert r.status_code == 200
    html = r.text
    assert '<html lang="es">' in html
    assert '<h1 class="rule-title">Regla 5 · USPA 2026 Arena Rules</h1>' in html
    assert html.count('<p class="original-label">Texto original</p>') == 26
    assert len(re.findall(r'<li class="clause [^"]*" id="c-5-', html)) == 13
    assert 'id="c-5-tie-shootout-set-up"' in html
    assert "<del>2-minute</del> → <ins>4-minute</ins>" in html
    assert "Nuevo en 2026" in html
    assert "Qué hace chukker con esta regla" in html
    assert "vale el original" in html  # the footer: the original prevails
    assert "<script" not in html


def test_rule_13_page_in_italian_has_31_clauses_and_the_play(client: TestClient) -> None:
    html = client.get("/rules/uspa-arena-2026/it/13").text
    assert html.count('<p class="original-label">Testo originale</p>') == 31
    assert html.count('<figure class="play" lang="it">') == 1
    assert html.count("<time>") == 3
    assert 'href="#c-13b"' in html
    # cross-reference to another rule becomes a link (2006 Rule 16 in the 2026 edition)
    assert 'href="/rules/uspa-arena-2026/it/16"' in html


def test_cross_reference_to_a_penalty_links_its_clause(client: TestClient) -> None:
    html = client.get("/rules/uspa-arena-2026/en/13").text
    assert 'href="/rules/uspa-arena-2026/en/9#c-9-p5"' in html


def test_language_switcher_and_edition_switcher(client: TestClient) -> None:
    html = client.get("/rules/uspa-arena-2026/it/13").text
    assert 'href="/rules/uspa-arena-2026/es/13"' in html
    assert 'href="/rules/uspa-arena-2026/en/13"' in html
    assert 'href="/rules/uspa-arena-2006/it/13"' in html


def test_english_page_shows_the_original_without_a_translation(client: TestClient) -> None:
    html = client.get("/rules/uspa-arena-2026/en/5").text
    assert "Original text</p>" not in html and 'class="original" lang="en"' in html


def test_page_in_a_language_without_translation_says_so(client: TestClient) -> None:
    html = client.get("/rules/uspa-arena-2026/it/5").text
    assert "Nessuna traduzione in questa lingua" in html


def test_silent_rule_falls_back_to_2006(client: TestClient) -> None:
    html = client.get("/rules/uspa-arena-2026/es/9").text
    assert 'id="c-9-p10"' in html and "uspa-arena-2006" in html


def test_clause_permalink_redirects_to_its_anchor(client: TestClient) -> None:
    r = client.get("/rules/uspa-arena-2026/it/13/13b(9) interpretation", follow_redirects=False)
    assert r.status_code == 308
    assert r.headers["location"] == "/rules/uspa-arena-2026/it/13#c-13b-9-interpretation"


def test_index_search_and_glossary(client: TestClient) -> None:
    assert client.get("/rules").status_code == 200
    idx = client.get("/rules/?lang=it").text
    assert "Regola 13 · Gioco pericoloso e scorretto" in idx
    s = client.get("/rules/search", params={"q": "zigzag", "lang": "it"}).text
    assert re.search(r'<li class="hit"><a href="/rules/uspa-arena-2026/it/13#c-13b">', s)
    for lang, word in (
        ("en", "bowl-in"),
        ("es", "derecho de paso"),
        ("it", "diritto di passaggio"),
    ):
        g = client.get(f"/rules/glossary/{lang}")
        assert g.status_code == 200 and word in g.text


def test_everything_is_escaped(client: TestClient) -> None:
    s = client.get("/rules/search", params={"q": '<script>alert("x")</script>'}).text
    assert "<script>" not in s and "&lt;script&gt;" in s


def test_unknown_pages_are_404(client: TestClient) -> None:
    assert client.get("/rules/uspa-arena-2026/es/19").status_code == 404
    assert client.get("/rules/uspa-arena-1999/es/5").status_code == 404
    assert client.get("/rules/uspa-arena-2026/de/5").status_code == 404


def test_print_stylesheet(client: TestClient) -> None:
    css = client.get("/rules/static/rules.css")
    assert css.status_code == 200 and "@media print" in css.text


def test_pages_work_without_an_imported_rulebook(tmp_path: Path) -> None:
    c = TestClient(make_app(tmp_path / "missing.sqlite3"))
    html = c.get("/rules/uspa-arena-2026/es/5").text
    assert "chukker rules import" in html
    assert "Cuánto dura un partido" in html  # the built-in summary
    assert "Intervalo antes del shootout" in html
    assert c.get("/rules/search", params={"q": "x"}).status_code == 200
    assert not (tmp_path / "missing.sqlite3").exists()


def test_router_links_follow_its_mount_point(seeded_db: Path) -> None:
    app = Starlette(routes=[Mount("/regole", app=make_router(seeded_db))])
    html = TestClient(app).get("/regole/uspa-arena-2026/it/13").text
    assert 'href="/regole/static/rules.css"' in html
    assert 'href="/regole/uspa-arena-2026/es/13"' in html


def test_search_page_says_did_you_mean_and_puts_the_named_penalty_first(
    client: TestClient,
) -> None:
    s = client.get("/rules/search", params={"q": "peanlty", "lang": "es"}).text
    assert "Quizás quiso decir" in s and "q=penalty" in s and 'class="hit"' in s
    s = client.get("/rules/search", params={"q": "penalty 2"}).text
    first = re.search(r'<li class="hit"><a href="[^"]+"><span class="cid">([^<]+)</span>', s)
    assert first is not None and first.group(1) == "9.p2"
    assert "Did you mean" not in s
    # one search box on the search page (the header's is left out)
    assert s.count('type="search"') == 1
