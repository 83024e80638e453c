"""Built-in summaries, glossary, engine parameters and their clauses; no seed sentences shipped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chukker.rulebook.corpus import Corpus
from chukker.rulebook.glossary import glossary, terms_for_rule
from chukker.rulebook.languages import SITE_LANGS, Label, language
from chukker.rulebook.summaries import engine_params, summaries, summary
from chukker.rules.editions import EDITIONS

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("lang", SITE_LANGS)
def test_each_of_the_18_rules_has_a_summary(lang: str) -> None:
    got = summaries(lang)
    assert [s.rule for s in got] == list(range(1, 19))
    assert all(s.title and 20 < len(s.text) < 300 for s in got)


def test_summaries_differ_by_language() -> None:
    assert len({summary(13, lang).text for lang in SITE_LANGS}) == 3


def test_unknown_rule_or_language_says_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="no Rule 19"):
        summary(19)
    # chukker has no German summaries: the English one, saying so by its language
    assert summary(1, "de").lang == "en" and summary(1, "de").text == summary(1).text


def test_glossary_covers_the_same_terms_in_three_languages() -> None:
    ids = [[e.id for e in glossary(lang)] for lang in SITE_LANGS]
    assert ids[0] == ids[1] == ids[2]
    assert {"chukker", "bowl-in", "ride-off", "right-of-way", "shootout"} <= set(ids[0])
    assert "shootout" in [e.id for e in terms_for_rule(5, "it")]


def test_every_engine_parameter_names_a_clause_of_an_arena_rule() -> None:
    for ed in EDITIONS:
        params = engine_params(ed)
        from_rules = [
            p for p in EDITIONS[ed].params().values() if not p.clause.startswith("contract:")
        ]
        assert len(params) == len(from_rules) + 2
        for p in params:
            assert 1 <= int(re.match(r"\d+", p.clause).group(0)) <= 18  # type: ignore[union-attr]
            assert p.display and p.label


def test_engine_parameter_clauses_exist_in_the_imported_rulebook(corpus: Corpus) -> None:
    """Each cited clause exists (the 2006 edition cites 2026 where its summary is silent)."""
    for ed in EDITIONS:
        for p in engine_params(ed):
            n = int(re.match(r"\d+", p.clause).group(0))  # type: ignore[union-attr]
            rule, _ = corpus.rule_or_earlier(ed, n)
            assert rule is not None, p
            ids = {c.id for e in EDITIONS for c in (corpus.rule(e, n) or rule).clauses}
            assert p.clause in ids, (ed, p.name, p.clause)


def test_rule_5_page_says_what_chukker_does_with_the_shootout_interval() -> None:
    by_name = {p.name: p for p in engine_params("uspa-arena-2026", 5, "es")}
    assert by_name["shootout_interval_ms"].display == "4 min"
    assert by_name["shootout_interval_ms"].clause == "5.tie-shootout-set-up"
    assert by_name["shootout_interval_ms"].label == "Intervalo antes del shootout"
    assert engine_params("uspa-arena-2006", 5)[0].clause == "5"


def test_every_language_has_every_label() -> None:
    for lang in SITE_LANGS:
        assert all(language(lang).label(k) for k in Label)


def test_the_project_ships_none_of_the_seed_sentences(seeds: list[Path]) -> None:
    shipped = ""
    for folder in ("src", "docs", "benchmarks", "tests"):
        for f in (REPO / folder).rglob("*"):
            if f.is_file() and f.suffix in {
                ".py",
                ".json",
                ".toml",
                ".html",
                ".md",
                ".css",
                ".txt",
            }:
                shipped += f.read_text(encoding="utf-8", errors="replace") + "\n"
    shipped = " ".join(shipped.split())
    for seed in seeds:
        for line in seed.read_text(encoding="utf-8").splitlines():
            for sent in re.split(r"(?<=[.;:])\s+", line.strip()):
                if len(sent) >= 48:
                    assert sent not in shipped, f"{seed.name}: {sent[:60]!r} is in the repository"
