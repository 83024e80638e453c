"""Issue 30, umpires' search: a typo corrected, then the number rule ("peanlty 2" is
Penalty 2 first); the words for penalty in Italian and Spanish ("rigore", "penal") find the
penalties through the glossary; clause titles said in the page's language."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient

from chukker.rulebook.corpus import Corpus
from chukker.rulebook.glossary import synonyms, title_in
from chukker.rulebook.search import lookup
from chukker.web.public.rules import make_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_rule_9_peanlty_2_is_corrected_then_read_as_penalty_2_first(corpus: Corpus) -> None:
    found = lookup(corpus, "peanlty 2")
    assert found.suggestion == "penalty 2"
    assert found.hits[0].clause == "9.p2" and found.hits[0].exact
    assert found.reference is not None and found.reference.ids == ("9.p2",)


@pytest.mark.parametrize("word", ["rigore", "penal", "Rigori", "penales"])
def test_rule_9_the_italian_and_spanish_words_for_penalty_find_the_penalties(
        corpus: Corpus, word: str) -> None:
    found = lookup(corpus, word)
    assert found.suggestion is None  # a glossary word, not a misspelling ("regole")
    clauses = [h.clause for h in found.hits]
    assert any(c.startswith("9.p") for c in clauses), clauses
    assert "penalty" in synonyms(word)


def test_rule_9_rigore_on_the_italian_text_finds_the_italian_penalties(corpus: Corpus) -> None:
    hits = lookup(corpus, "rigore", lang="it").hits
    assert hits and all(h.lang == "it" for h in hits)
    assert {h.clause for h in hits} == {h.clause for h in lookup(corpus, "punizione", "it").hits}


def test_rule_9_clause_titles_in_spanish_and_italian_on_the_search_page(
        seeded_db: Path) -> None:
    assert title_in("Penalty 2", "es") == "Penal 2"
    assert title_in("Penalty 2", "en") == "Penalty 2"
    client = TestClient(make_app(seeded_db))
    es = client.get("/rules/search", params={"q": "penalty 2", "lang": "es"}).text
    it = client.get("/rules/search", params={"q": "penalty 2", "lang": "it"}).text
    assert "Penal 2</a>" in es and "Punizione 2</a>" in it
    assert "Penalty 2</a>" not in es + it
