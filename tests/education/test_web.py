"""The /learn pages: choose, take, grade, export; every string in es and it."""

from __future__ import annotations

import csv
import io
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from babel.messages.pofile import read_po

from chukker.education.quiz import QuizSpec, draw
from chukker.web import create_app

WEB = Path(__file__).resolve().parents[2] / "src" / "chukker" / "web"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "learn.sqlite3")) as c:
        yield c


def _answers(spec: QuizSpec, right: bool) -> dict[str, str]:
    q = draw(spec)
    out = {}
    for k, it in enumerate(q.items, 1):
        i = it.correct if right else (it.correct + 1) % len(it.order)
        out[f"q{k}"] = "abcdefgh"[i]
    return out


def _form(spec: QuizSpec) -> dict[str, str]:
    return {"level": spec.level, "edition": spec.edition, "n": str(spec.n),
            "seed": str(spec.seed), "pass_mark": f"{spec.pass_mark:g}"}


def test_rule_13_learn_index_offers_levels_editions_and_languages(client: TestClient) -> None:
    r = client.get("/learn/?lang=it")
    assert r.status_code == 200
    assert "Test sulle regole" in r.text and "Cronometrista" in r.text
    assert 'value="uspa-arena-2006"' in r.text
    assert '<a href="/learn/?lang=it" aria-current="page">Impara</a>' in r.text


def test_rule_13_learn_test_without_seed_redirects_to_a_seeded_address(client: TestClient) -> None:
    r = client.get("/learn/test?level=umpire&edition=uspa-arena-2026&n=3&lang=es",
                   follow_redirects=False)
    assert r.status_code == 303
    assert re.search(r"seed=\d+", r.headers["location"])


def test_rule_13_learn_test_page_shows_the_drawn_questions_in_spanish(client: TestClient) -> None:
    spec = QuizSpec("umpire", "uspa-arena-2026", "es", 12, 77)
    r = client.get("/learn/test", params={**_form(spec), "lang": "es"})
    assert r.status_code == 200
    for it in draw(spec).items:
        assert it.prompt("es").split("«")[0][:40].replace("'", "&#39;") in r.text
    assert r.text.count('class="question"') == 12


def test_rule_13_learn_result_grades_and_explains_wrong_answers(client: TestClient) -> None:
    spec = QuizSpec("umpire", "uspa-arena-2026", "es", 6, 5)
    answers = _answers(spec, right=True)
    answers["q2"] = "abcdefgh"[(draw(spec).items[1].correct + 1) % len(draw(spec).items[1].order)]
    r = client.post("/learn/result?lang=es", data={**_form(spec), **answers})
    assert r.status_code == 200
    assert "Puntaje: 5 de 6 (83.3%)" in r.text and "No aprobado" in r.text
    assert r.text.count('class="explanation"') == 1
    q = draw(spec).items[1].question
    assert q.explanation("es").replace("'", "&#39;")[:50] in r.text
    assert 'href="/rules/uspa-arena-2026/es/' in r.text
    r = client.post("/learn/result?lang=es", data={**_form(spec), **_answers(spec, True),
                                                   "pass_mark": "100"})
    assert "Aprobado" in r.text and "Todas las respuestas son correctas." in r.text


def test_rule_13_learn_result_csv(client: TestClient) -> None:
    spec = QuizSpec("player", "uspa-arena-2006", "it", 4, 9)
    r = client.post("/learn/result.csv?lang=it",
                    data={**_form(spec), **_answers(spec, True), "name": "Ann"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert len(rows) == 4 and {x["right"] for x in rows} == {"yes"} and rows[0]["lang"] == "it"


def test_rule_13_learn_refuses_a_bad_spec_and_an_unknown_play(client: TestClient) -> None:
    r = client.get("/learn/test?level=umpire&edition=uspa-arena-1999&seed=1")
    assert r.status_code == 400 and "uspa-arena-1999" in r.text
    assert client.get("/learn/play/nope.png?t=1").status_code == 404
    again = client.get("/learn/result?lang=it", follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == "/learn/?lang=it"
    png = client.get("/learn/play/13b-zigzag.png?t=2.6&lang=es")
    assert png.status_code == 200 and png.content[:4] == b"\x89PNG"


def test_rule_13_learn_every_page_string_has_es_and_it() -> None:
    msgids: set[str] = set()
    for f in (WEB / "templates" / "education").glob("*.html"):
        msgids |= set(re.findall(r"""_\(\s*"([^"]+)"\s*\)""", f.read_text(encoding="utf-8")))
        msgids |= set(re.findall(r"""_\(\s*'([^']+)'\s*\)""", f.read_text(encoding="utf-8")))
    msgids |= {"Player", "Umpire", "Timekeeper"}
    for lang in ("es", "it"):
        with (WEB / "locales" / lang / "LC_MESSAGES" / "education.po").open("rb") as fh:
            cat = read_po(fh, locale=lang)
        have = {m.id for m in cat if m.id and m.string}
        assert msgids <= have, (lang, sorted(msgids - have))
