"""Search: SQLite FTS5, accent- and case-insensitive, originals and translations, ranked."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.rulebook.corpus import Corpus
from chukker.rulebook.search import fts_query, like_search, matches, search


def test_rule_13b_zigzag_is_found_first(corpus: Corpus) -> None:
    hits = search(corpus, "zigzag")
    assert hits[0].clause == "13b" and hits[0].edition == "uspa-arena-2026"
    assert any(h.clause == "13(g)" and h.edition == "uspa-arena-2006" for h in hits)


def test_rule_5_shootout_in_spanish_finds_the_rule_5_sections(corpus: Corpus) -> None:
    hits = search(corpus, "shootout", lang="es")
    assert hits and all(h.rule == 5 and h.lang == "es" for h in hits)
    assert {
        "5.tie-shootout-set-up",
        "5.horses-and-players-in-the-shootout",
        "5.scoring-and-further-rounds",
        "5.moving-the-ball-closer",
    } <= {h.clause for h in hits}
    assert hits[0].clause == "5.tie-shootout-set-up"


def test_search_accents_and_case_are_optional(corpus: Corpus) -> None:
    plain = [h.clause for h in search(corpus, "periodo", lang="es")]
    accented = [h.clause for h in search(corpus, "PERÍODO", lang="es")]
    assert plain and plain == accented
    assert [h.clause for h in search(corpus, "arbitro", lang="it")] == [
        h.clause for h in search(corpus, "Àrbitro", lang="it")
    ]


def test_search_in_english_reads_the_originals(corpus: Corpus) -> None:
    hits = search(corpus, "shootout", lang="en")
    assert {h.edition for h in hits} == {"uspa-arena-2006", "uspa-arena-2026"}
    assert all(h.lang == "en" for h in hits)


def test_search_every_word_must_match_and_snippets_mark_them(corpus: Corpus) -> None:
    hits = search(corpus, "zigzag gallop")
    assert [h.clause for h in hits] == ["13b"]
    assert any(hl for _, hl in hits[0].snippet_parts())
    assert "[" in hits[0].plain_snippet()


def test_search_edition_filter(corpus: Corpus) -> None:
    assert {h.edition for h in search(corpus, "penalty", edition="uspa-arena-2006")} == {
        "uspa-arena-2006"
    }


def test_search_finds_what_the_like_baseline_finds(corpus: Corpus) -> None:
    for q in ("zigzag", "shootout", "whip", "bowl"):
        fts = {(h.edition, h.clause) for h in search(corpus, q, limit=200)}
        like = set(like_search(corpus, q, limit=200))
        assert like <= fts, q


def test_search_hits_really_contain_the_words(corpus: Corpus) -> None:
    for h in search(corpus, "dangerous ride", lang="en", limit=50):
        c = corpus.clause(h.edition, h.clause)
        assert c is not None and matches(c.heading + " " + c.original, "dangerous ride", "en")


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=60))
def test_any_query_is_safe(q: str) -> None:
    expr = fts_query(q)
    assert expr.count('"') % 2 == 0
    with Corpus.open(":memory:") as c:
        assert search(c, q) == []
