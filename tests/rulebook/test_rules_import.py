"""Importers: the seed pages and the 2006 summary, found from their text; idempotent re-import."""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chukker.rulebook.corpus import Corpus, StoreStatus
from chukker.rulebook.importers import (
    ParsedSource,
    RulebookFormatError,
    SourceKind,
)
from chukker.rulebook.model import ClauseKind
from chukker.rulebook.reader import parse_file, parse_text

RULE_13_IDS = [
    "13", "13a", "13a(1)", "13a(2)", "13a(3)", "13a(4)", "13a(5)", "13a(6)", "13b", "13c",
    "13d", "13e", "13f", "13g", "13h", "13i", "13j", "13k", "13l", "13m", "13n", "13o", "13p",
    "13p(1)", "13p(2)", "13p(3)", "13q", "13b(9) interpretation", "13 examples",
    "13k interpretation", "13p(1) interpretation",
]  # fmt: skip
RULE_5_IDS = [
    "5.regulation-game", "5.split-periods", "5.six-periods-of-5-minutes",
    "5.the-horn-ends-the-period", "5.tie-extra-periods", "5.tie-shootout-set-up",
    "5.horses-and-players-in-the-shootout", "5.taking-the-shot", "5.scoring-and-further-rounds",
    "5.moving-the-ball-closer", "5.whistle-stops-the-clock", "5.goals",
    "5.penalties-at-the-end-of-a-period",
]  # fmt: skip


def test_rule_13_page_yields_31_clauses_with_printed_ids(rule13_page: ParsedSource) -> None:
    rule = rule13_page.rules[0]
    assert (rule13_page.edition, rule13_page.lang, rule.number) == ("uspa-arena-2026", "it", 13)
    assert [c.id for c in rule.clauses] == RULE_13_IDS
    assert all(c.original and c.translation("it") for c in rule.clauses)


def test_rule_13_interpretations_and_examples_have_their_kind(rule13_page: ParsedSource) -> None:
    rule = rule13_page.rules[0]
    kinds = {c.id: c.kind for c in rule.clauses}
    assert kinds["13b(9) interpretation"] == ClauseKind.INTERPRETATION
    assert kinds["13p(1) interpretation"] == ClauseKind.INTERPRETATION
    assert kinds["13 examples"] == ClauseKind.EXAMPLE
    assert kinds["13b"] == ClauseKind.RULE
    assert rule.clause("13a(1)").parent == "13a"
    assert rule.clause("13k interpretation").parent == "13k"


def test_rule_13_headings_are_optional(rule13_page: ParsedSource) -> None:
    rule = rule13_page.rules[0]
    assert rule.clause("13b").heading == "Zigzagging"
    assert rule.clause("13a(1)").heading == ""


def test_rule_13b_carries_the_illustrated_play(rule13_page: ParsedSource) -> None:
    c = rule13_page.rules[0].clause("13b")
    assert len(c.plays) == 1
    play = c.plays[0]
    assert play.lang == "it"
    assert len(play.legend) == 4
    assert [s.at_ms for s in play.timeline] == [400, 2600, 2900]
    assert play.timeline_label and play.verdict_label and play.verdict
    assert "13b" in play.caption and " · " in play.setting
    others = [x for x in rule13_page.rules[0].clauses if x.id != "13b"]
    assert not any(x.plays for x in others)


def test_rule_13_page_title_name_subtitle_footer(rule13_page: ParsedSource) -> None:
    text = rule13_page.rules[0].text("it")
    assert text is not None
    assert text.title == "Regola 13 · USPA 2026 Arena Rules"
    assert text.name and text.subtitle and text.footer
    assert not text.footer.startswith("Regola")


def test_rule_5_page_yields_13_sections_holding_26_pairs(rule5_page: ParsedSource) -> None:
    rule = rule5_page.rules[0]
    assert (rule5_page.edition, rule5_page.lang) == ("uspa-arena-2026", "es")
    assert [c.id for c in rule.clauses] == RULE_5_IDS
    pairs = [p for c in rule.clauses for p in c.passages]
    assert len(pairs) == 26
    assert all(p.original and p.translation("es") for p in pairs)
    assert [len(c.passages) for c in rule.clauses] == [1, 3, 1, 5, 1, 5, 1, 2, 2, 2, 1, 1, 1]


def test_rule_5_caption_glued_to_a_heading_becomes_a_note(rule5_page: ParsedSource) -> None:
    rule = rule5_page.rules[0]
    assert rule.clause("5.split-periods").heading == "Split periods"
    notes = rule.clause("5.regulation-game").notes
    assert len(notes) == 1 and notes[0][0] == "es"
    assert "Split periods" not in notes[0][1]


def test_rule_5_page_title_and_footer(rule5_page: ParsedSource) -> None:
    text = rule5_page.rules[0].text("es")
    assert text is not None
    assert text.title == "Regla 5 · USPA 2026 Arena Rules"
    assert text.name and text.footer and text.subtitle


def test_summary_2006_has_the_18_rules(summary_2006: ParsedSource) -> None:
    assert summary_2006.edition == "uspa-arena-2006"
    assert [r.number for r in summary_2006.rules] == list(range(1, 19))
    assert all(
        r.clauses[0].id == str(r.number) and r.clauses[0].heading for r in summary_2006.rules
    )


def test_summary_2006_rule_9_penalties_are_sub_clauses(summary_2006: ParsedSource) -> None:
    rule9 = summary_2006.rules[8]
    ids = [c.id for c in rule9.clauses]
    assert ids == ["9", *(f"9.p{n}" for n in range(1, 11))]
    # Penalty 8 is printed on Penalty 7's line; "Penalty No. 1" inside 6 is not a new item
    assert not rule9.clause("9.p7").original.rstrip().endswith("Penalty 8.")
    assert "Penalty No. 1" in rule9.clause("9.p6").original


def test_summary_2006_lettered_items_are_sub_clauses(summary_2006: ParsedSource) -> None:
    by_rule = {r.number: [c.id for c in r.clauses] for r in summary_2006.rules}
    assert by_rule[5] == ["5", "5(a)", "5(b)"]
    assert by_rule[13] == ["13", *(f"13({x})" for x in "abcdefghijkl")]
    assert by_rule[7] == ["7", *(f"7({x})" for x in "abcde")]
    rule5b = summary_2006.rules[4].clause("5(b)").original
    assert "2-minute" in rule5b


def test_reimport_changes_nothing(tmp_path: Path, seeds: list[Path]) -> None:
    db = tmp_path / "r.sqlite3"
    with Corpus.open(db) as corpus:
        first = [r.status for f in seeds for r in corpus.store(parse_file(f))]
        before = corpus.dump()
        again = [r.status for f in seeds for r in corpus.store(parse_file(f))]
        assert corpus.dump() == before
    assert set(first) == {StoreStatus.ADDED}
    assert set(again) == {StoreStatus.UNCHANGED}


def test_import_order_does_not_matter(tmp_path: Path, seeds: list[Path]) -> None:
    dumps = []
    for name, order in (("a", seeds), ("b", list(reversed(seeds)))):
        with Corpus.open(tmp_path / f"{name}.sqlite3") as corpus:
            for f in order:
                corpus.store(parse_file(f))
            dumps.append([row for row in corpus.dump()])
    assert dumps[0] == dumps[1]


def _relayout(text: str, blank: bool) -> str:
    """The same page with every line trimmed, and blank lines all removed or doubled."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return ("\n\n" if blank else "\n").join(lines) + "\n"


@pytest.mark.parametrize("blank", [True, False])
def test_pages_are_read_from_their_text_not_their_layout(
    seeds: list[Path], parsed: list[ParsedSource], blank: bool
) -> None:
    for f, p in zip(seeds, parsed, strict=True):
        again = parse_text(_relayout(f.read_text(encoding="utf-8"), blank), str(f))
        if p.kind == SourceKind.BILINGUAL_PAGE:  # the same clauses; only their line numbers move

            def unsourced(ps: ParsedSource) -> list[object]:
                return [replace(c, origins=()) for r in ps.rules for c in r.clauses]

            assert unsourced(again) == unsourced(p)
            assert [r.texts for r in again.rules] == [r.texts for r in p.rules]
        else:  # a summary's paragraphs are its blank lines: compare the words of each clause

            def words(ps: ParsedSource) -> list[tuple[str, str]]:
                return [(c.id, " ".join(c.original.split())) for r in ps.rules for c in r.clauses]

            assert words(again) == words(p)


def test_a_second_language_of_rule_5_adds_translations_and_keeps_the_first(
    tmp_path: Path, seeded_db: Path, rule5_page: ParsedSource
) -> None:
    db = tmp_path / "r.sqlite3"
    shutil.copy(seeded_db, db)
    rule = rule5_page.rules[0]
    lines = ["Regola 5 · USPA 2026 Arena Rules", "Durata", "A subtitle."]
    for c in rule.clauses:
        lines.append(c.heading)
        for i, p in enumerate(c.passages):
            lines += [f"Traduzione {c.id} {i}.", "Testo originale", p.original]
    lines.append("Nota finale.")
    with Corpus.open(db) as corpus:
        reports = corpus.store(parse_text("\n".join(lines), "rule-05.it.txt"))
        assert [r.status for r in reports] == [StoreStatus.UPDATED]
        stored = corpus.rule("uspa-arena-2026", 5)
    assert stored is not None
    assert [c.id for c in stored.clauses] == [c.id for c in rule.clauses]
    for c in stored.clauses:
        assert c.languages() == ("es", "it")
        assert c.translation("es") == rule.clause(c.id).translation("es")
    assert {t.lang for t in stored.texts} == {"es", "it"}


def test_adding_a_language_is_a_table_entry() -> None:
    page = "\n".join(
        [
            "Règle 7 · USPA 2026 Arena Rules",
            "Balle morte",
            "When the ball is out of play.",
            "7a",
            "Sifflet",
            "Au coup de sifflet, la balle est morte.",
            "Texte original",
            "At the whistle the ball is dead.",
            "Traduction pédagogique.",
        ]
    )
    p = parse_text(page, "rule-07.fr.txt")
    assert (p.lang, p.edition) == ("fr", "uspa-arena-2026")
    c = p.rules[0].clause("7a")
    assert (c.heading, c.translation("fr"), c.original) == (
        "Sifflet",
        "Au coup de sifflet, la balle est morte.",
        "At the whistle the ball is dead.",
    )


def test_a_file_that_fits_neither_layout_is_refused_in_one_line_with_its_line_number(
    tmp_path: Path,
) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("\n\nSome notes about polo.\nMore.\n", encoding="utf-8")
    with pytest.raises(RulebookFormatError) as err:
        parse_file(f)
    assert err.value.line == 3
    assert str(err.value).startswith(f"{f}:3: ")
    assert "\n" not in str(err.value)


def test_a_marker_without_an_original_is_refused_at_its_line() -> None:
    text = "Regla 5 · USPA 2026 Arena Rules\nNombre\nGoals\nUna traducción.\nTexto original\n"
    with pytest.raises(RulebookFormatError, match=r"^p\.txt:5: 'Texto original' is not followed"):
        parse_text(text, "p.txt")


def test_summary_rule_repeated_is_refused_with_both_lines() -> None:
    text = "Rules 2006\nRULE 1\nA:\nx\nRULE 1\nB:\ny\n"
    with pytest.raises(
        RulebookFormatError, match=r"^s\.txt:5: RULE 1 appears twice \(first at line 2\)"
    ):
        parse_text(text, "s.txt")


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=400))
def test_importer_on_any_text_imports_or_refuses_cleanly(text: str) -> None:
    try:
        p = parse_text(text, "x.txt")
    except RulebookFormatError as exc:
        assert re.match(r"^x\.txt:\d+: ", str(exc))
    else:
        assert p.kind in (SourceKind.BILINGUAL_PAGE, SourceKind.SUMMARY)


_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9)
_sentence = st.lists(_word, min_size=2, max_size=10).map(lambda ws: " ".join(ws).capitalize() + ".")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(
                st.just(""), st.lists(_word, min_size=1, max_size=4).map(" ".join).map(str.title)
            ),
            _sentence,
            _sentence,
        ),
        min_size=1,
        max_size=8,
    )
)
def test_bilingual_page_round_trip(clauses: list[tuple[str, str, str]]) -> None:
    """A page written from clauses reads back as the same clauses."""
    lines = ["Regla 3 · USPA 2031 Arena Rules", "Jugadores", "Who plays."]
    for i, (heading, tr, orig) in enumerate(clauses):
        lines.append(f"{i + 1}. 3{chr(ord('a') + i)}")
        if heading:
            lines.append(heading)
        lines += [tr, "Texto original", orig]
    lines.append("Pie de página.")
    p = parse_text("\n\n".join(lines), "gen.txt")
    rule = p.rules[0]
    assert p.edition == "uspa-arena-2031"
    got = [(c.heading, c.translation("es"), c.original) for c in rule.clauses]
    assert got == clauses
    assert rule.texts[0].footer == "Pie de página."
