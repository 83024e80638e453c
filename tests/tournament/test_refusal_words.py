"""The tournament API's refusals: a stable code, its params, the English message and the
same sentence in the caller's language (en, es, it), by the match API's mechanism."""

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

from tests.tournament.web_helpers import four_team_toml
from tests.web.conftest import OPEN

from chukker.i18n import translations
from chukker.tournament.refusals import MESSAGES
from chukker.web import create_app
from chukker.web.refusals import refusal_message, templates

WEB = Path(__file__).resolve().parents[2] / "src" / "chukker" / "web"
#: the tournament's doors: the officials', the public's and what both serve
PAGES = [WEB / "officials" / "arena.py", WEB / "public" / "tournaments.py",
         WEB / "shared" / "tournament_view.py"]


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with TestClient(create_app(tmp_path / "live.sqlite3", **OPEN)) as c:
        yield c


def test_every_code_the_tournament_api_refuses_with_has_a_template_in_en_es_and_it() -> None:
    source = "".join(p.read_text(encoding="utf-8") for p in PAGES)
    service = "".join((WEB.parent / "live" / f).read_text(encoding="utf-8")
                      for f in ("tournaments.py", "tournament_log.py"))
    sent = set(re.findall(r'_bad\(\s*request,\s*"(\w+)"', source))
    sent |= set(re.findall(r'TournamentRefused\(\s*"(\w+)"', service))  # the service's
    sent |= set(re.findall(r'\(\s*"(\w+)",\s*\{', source)) & set(MESSAGES)  # from the worker
    sent |= set(re.findall(r'"code":\s*"(\w+)"', source + service))  # nested causes
    assert {"unreadable_tournament", "tournament_exists", "unknown_tournament"} <= sent
    assert "_bad(\"" not in source  # every refusal goes through the translated path
    known = templates()
    for code in sorted(sent):
        assert code in known, code
        for lang in ("es", "it"):
            assert translations(lang).gettext(known[code]) != known[code], (lang, code)


@pytest.mark.parametrize(("lang", "words"), [
    ("en", "the tournament file cannot be read"),
    ("es", "no se puede leer el archivo del torneo"),
    ("it", "il file del torneo non si può leggere"),
])
def test_an_unreadable_tournament_is_refused_in_the_callers_language(
    client: Any, lang: str, words: str,
) -> None:
    r = client.post(f"/tournaments/api?lang={lang}", json={"text": "name = \n"})
    j = r.json()
    assert r.status_code == 422 and j["code"] == j["error"] == "unreadable_tournament"
    assert j["message"].startswith("the tournament file cannot be read: line 1")  # English
    assert j["text"].startswith(words)
    assert j["text"] == refusal_message(j["code"], j["params"], lang)
    assert j["line"] == 1  # the fields the clients read stay


def test_an_existing_tournament_is_refused_with_its_link_and_the_nested_reason_in_spanish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    app = create_app(tmp_path / "live.sqlite3", organiser="org-token", open_mode=True,
                     open_rate=(1000.0, 1000.0))
    with TestClient(app) as c:
        assert c.post("/tournaments/api", json={"text": four_team_toml()}).status_code == 201
        r = c.post("/tournaments/api", json={"text": four_team_toml()},
                   headers={"accept-language": "es-AR,es;q=0.9"})
    j = r.json()
    assert r.status_code == 409 and j["code"] == "tournament_exists", j
    assert j["text"].startswith("este torneo ya existe (") and "token del comité" in j["text"]
    assert "committee token" in j["message"] and j["url"] in j["message"]


def test_unknown_tournament_and_match_are_said_in_italian(client: Any) -> None:
    r = client.get("/tournaments/nope/standings.json?lang=it")
    assert r.status_code == 404 and r.json()["text"] == "nessun torneo con id nope"
    assert r.json()["message"] == "no tournament with id nope"


@pytest.mark.parametrize(("lang", "text"), [
    ("es", "no se puede leer el archivo del torneo: línea 1, columna 8: "
           "el texto no está bien formado: Invalid value"),
    ("it", "il file del torneo non si può leggere: riga 1, colonna 8: "
           "il testo non è ben formato: Invalid value"),
])
def test_an_unreadable_tournament_says_where_and_why_in_the_callers_language_the_readers_words_last(
    client: Any, lang: str, text: str,
) -> None:
    """Our sentence, the line and column and what is wrong are translated; only the TOML
    reader's own words (``Invalid value``) stay English, after them."""
    r = client.post(f"/tournaments/api?lang={lang}", json={"text": "name = \n"})
    j = r.json()
    assert r.status_code == 422 and j["code"] == "unreadable_tournament", j
    assert j["text"] == text
    assert j["message"] == ("the tournament file cannot be read: line 1, column 8: "
                            "the text is not well-formed: Invalid value")  # English, as before
    assert j["params"]["detail"] == j["message"].removeprefix(
        "the tournament file cannot be read: ")  # the reader's whole English line stays
    assert (j["line"], j["column"]) == (1, 8)


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "the tournament file cannot be read: a tournament file is a table (an object in "
           "JSON)"),
    ("es", "no se puede leer el archivo del torneo: un archivo de torneo es una tabla (un "
           "objeto en JSON)"),
    ("it", "il file del torneo non si può leggere: un file di torneo è una tabella (un oggetto "
           "in JSON)"),
])
def test_a_json_tournament_that_is_not_an_object_is_refused_in_the_callers_language(
    client: Any, lang: str, text: str,
) -> None:
    r = client.post(f"/tournaments/api?lang={lang}", json={"text": "[1, 2]", "format": "json"})
    j = r.json()
    assert r.status_code == 422 and j["code"] == "unreadable_tournament", j
    assert j["text"] == text and j["line"] is None  # no line: the whole text is not a table


def test_every_cause_of_an_unreadable_tournament_is_translated_in_es_and_it() -> None:
    known = templates()
    for code in ("unreadable_tournament", "at_line", "tournament_not_a_table",
                 "not_well_formed", "too_deep", "unreadable", "not_utf8"):
        for lang in ("es", "it"):
            assert translations(lang).gettext(known[code]) != known[code], (lang, code)
