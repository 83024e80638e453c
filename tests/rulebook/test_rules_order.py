"""Property: importing the same documents in any order gives the same database; again, nothing.

The documents: the seed pages (when present) and the documents written for
the tests (a French page, an English web page and its French translation, a
Dutch page, a two-column PDF and its French translation), so originals,
bilingual pages and aligned translations of every kind meet.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from chukker.rulebook.cli import app as cli
from chukker.rulebook.corpus import Corpus, StoreStatus, default_db_path
from chukker.rulebook.importers import ParsedSource
from chukker.rulebook.reader import parse_file, parse_text

from .conftest import SEEDS
from .docs_for_tests import DUTCH_PAGE, ENGLISH_HTML, FRENCH_HTML, FRENCH_PAGE, two_column_pdf


def _documents() -> list[ParsedSource]:
    docs = [parse_file(f) for f in sorted(SEEDS.glob("*.txt"))] if SEEDS.is_dir() else []
    docs += [
        parse_text(FRENCH_PAGE, "regle-16.fr.txt"),
        parse_text(DUTCH_PAGE, "regel-17.nl.txt", lang="nl"),
        parse_text(ENGLISH_HTML, "rules-2031.html"),
        parse_text(FRENCH_HTML, "regles-2031.fr.html"),
    ]
    with tempfile.TemporaryDirectory() as tmp:  # a two-column PDF and its French translation
        en, fr = Path(tmp) / "rules-2032.pdf", Path(tmp) / "regles-2032.pdf"
        two_column_pdf(en)
        two_column_pdf(
            fr,
            [(7, "Sécurité des chevaux", [("a.", "Un cheval boiteux quitte l'arène.")])],
            title="Règles USPA 2032",
            rule_word="Règle",
        )
        docs += [parse_file(en), parse_file(fr)]
    return docs


DOCS = _documents()


def _store_all(docs: list[ParsedSource]) -> tuple[list[object], list[StoreStatus]]:
    with Corpus.open(":memory:") as corpus:
        for d in docs:
            corpus.store(d)
        dump = corpus.dump()
        again = [r.status for d in docs for r in corpus.store(d)]
        assert corpus.dump() == dump
    return dump, again


REFERENCE = _store_all(DOCS)[0]


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.permutations(range(len(DOCS))))
def test_any_order_gives_the_same_database_and_reimport_changes_nothing(order: list[int]) -> None:
    dump, again = _store_all([DOCS[i] for i in order])
    assert dump == REFERENCE
    assert set(again) == {StoreStatus.UNCHANGED}


def test_the_database_is_the_users_wherever_the_command_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CHUKKER_RULES_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_db_path() == tmp_path / "data" / "chukker" / "rules.sqlite3"
    page = tmp_path / "regle-16.fr.txt"
    page.write_text(FRENCH_PAGE, encoding="utf-8")
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    monkeypatch.chdir(a)
    assert CliRunner().invoke(cli, ["import", str(page)]).exit_code == 0
    monkeypatch.chdir(b)
    r = CliRunner().invoke(cli, ["search", "defenseurs"])
    assert r.exit_code == 0 and "16b" in r.stdout
    assert not list(a.iterdir()) and not list(b.iterdir())
