"""Edition diff: clause-level added, removed, changed, with changed numbers picked out."""

from __future__ import annotations

import pytest

from chukker.rulebook.corpus import Corpus
from chukker.rulebook.diff import (
    ChangeKind,
    Pairing,
    diff_editions,
    number_changes,
    numbers_in,
    sentences,
)


def test_rule_5_shootout_interval_2_minutes_in_2006_4_in_2026(corpus: Corpus) -> None:
    d = diff_editions(corpus, "uspa-arena-2006", "uspa-arena-2026", rule=5)
    (rule5,) = d.rules
    ch = rule5.change_for("5.tie-shootout-set-up")
    assert ch is not None and ch.kind == ChangeKind.CHANGED
    assert ch.was == ("5(b)",)
    assert [(n.before, n.after) for n in ch.numbers] == [("2-minute", "4-minute")]
    # the one number change in Rule 5
    assert [(c.clause, n.before, n.after) for c in rule5.changes for n in c.numbers] == [
        ("5.tie-shootout-set-up", "2-minute", "4-minute")
    ]


def test_rule_5_split_periods_are_new_in_2026(corpus: Corpus) -> None:
    (rule5,) = diff_editions(corpus, "uspa-arena-2006", "uspa-arena-2026", rule=5).rules
    assert rule5.change_for("5.split-periods") is not None
    assert rule5.change_for("5.split-periods").kind == ChangeKind.ADDED  # type: ignore[union-attr]
    extra = rule5.change_for("5.tie-extra-periods")
    assert extra is not None and extra.was == ("5(a)",) and not extra.numbers


def test_rule_13_clauses_are_paired_by_text_not_by_letter(corpus: Corpus) -> None:
    (rule13,) = diff_editions(corpus, "uspa-arena-2006", "uspa-arena-2026", rule=13).rules
    zig = rule13.change_for("13b")
    assert zig is not None and zig.was == ("13(g)",)
    assert "13j" in rule13.unchanged  # the walls clause reads the same in both
    removed = {c.was[0] for c in rule13.changes if c.kind == ChangeKind.REMOVED}
    assert "13(d)" in removed


def test_diff_reports_the_engine_parameter_that_changed(corpus: Corpus) -> None:
    d = diff_editions(corpus, "uspa-arena-2006", "uspa-arena-2026")
    assert [(p.name, p.before, p.after) for p in d.params] == [
        ("shootout_interval_ms", 120_000, 240_000)
    ]
    assert 9 in d.only_in_a and not d.only_in_b
    assert [r.rule for r in d.rules] == [5, 13]


def test_an_edition_against_itself_has_no_changes(corpus: Corpus) -> None:
    d = diff_editions(corpus, "uspa-arena-2026", "uspa-arena-2026")
    assert all(not r.changes for r in d.rules)
    assert not d.params


def test_diff_of_an_unknown_edition_says_which(corpus: Corpus) -> None:
    with pytest.raises(ValueError, match="edition 'uspa-arena-1999' is not in the database"):
        diff_editions(corpus, "uspa-arena-1999", "uspa-arena-2026")
    with pytest.raises(ValueError, match="has text for Rule 19"):
        diff_editions(corpus, "uspa-arena-2006", "uspa-arena-2026", rule=19)


def test_numbers_and_sentences() -> None:
    assert numbers_in("four periods of 7-1/2 minutes, a 10-minute interval, 3 1/2 minutes") == [
        "7-1/2",
        "10-minute",
        "3",
        "1/2",
    ]
    assert number_changes("from the 25-yard line", "from the 15-yard line")[0].after == "15-yard"
    assert number_changes("a 10-minute interval", "a 10-minute interval") == []
    assert sentences("Goals: Two points. i.e. not three") == [
        "Goals:",
        "Two points. i.e. not three",
    ]


def test_rule_13_pairs_within_rule_13_first_and_reports_moved_text(corpus: Corpus) -> None:
    (rule13,) = diff_editions(corpus, "uspa-arena-2006", "uspa-arena-2026", rule=13).rules
    for ch in rule13.changes:
        if ch.kind in (ChangeKind.CHANGED, ChangeKind.MOVED):
            assert ch.pairing, ch.clause  # every pairing says which rule applied
        elsewhere = [w for w in ch.was if not w.startswith("13")]
        if ch.clause and elsewhere:  # text from 2006 Rules 14-16 only when it really moved
            assert ch.kind == ChangeKind.MOVED and ch.moved_from and ch.similarity >= 0.85
            assert ch.pairing == Pairing.MOVED
    ride_off = rule13.change_for("13a")
    assert ride_off is not None and ride_off.was == ("13(a)",)  # not 2006 Rule 16
    assert ride_off.pairing == Pairing.TEXT
    moved = {c.clause: c.moved_from for c in rule13.changes if c.kind == ChangeKind.MOVED}
    assert moved and set(moved.values()) <= {(14,), (15,), (16,)}
    assert dict(rule13.pairings)["13j"] == Pairing.NUMBER_TEXT


def test_same_number_and_heading_pair_first() -> None:
    from chukker.rulebook.diff import diff_rules
    from chukker.rulebook.model import Clause, ClauseKind, Passage, Rule

    def rule(ed: str, *clauses: tuple[str, str, str]) -> Rule:
        return Rule(ed, 3, (), tuple(
            Clause(ed, cid, 3, i, ClauseKind.RULE, head, (Passage(text),))
            for i, (cid, head, text) in enumerate(clauses, 1)
        ))  # fmt: skip

    old = rule("x-2000", ("3(a)", "Mallets", "A mallet is of cane."),
               ("3(b)", "Helmets", "A helmet is worn by every player on the field."))  # fmt: skip
    new = rule("x-2010", ("3a", "Mallets", "A mallet is of cane or of carbon."),
               ("3b", "Boots", "A helmet is worn by every player on the field."))  # fmt: skip
    d = diff_rules(old, new)
    a = d.change_for("3a")
    assert a is not None and a.pairing == Pairing.NUMBER_HEADING and a.was == ("3(a)",)
    assert dict(d.pairings) == {"3b": Pairing.TEXT}  # the heading differs: paired by its text
