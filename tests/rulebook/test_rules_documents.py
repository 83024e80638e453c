"""Documents as clubs have them: a French page, web pages, a two-column PDF; any language.

Every document here is written for the tests (``docs_for_tests.py``), in
chukker's own words. Each is taken from import to ``show``, ``search`` and the
web pages.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from chukker.rulebook.cli import app as cli
from chukker.rulebook.corpus import Corpus
from chukker.rulebook.documents import parse_pdf
from chukker.rulebook.importers import RulebookFormatError, SourceKind
from chukker.rulebook.reader import parse_file, parse_text
from chukker.web.public.rules import make_app

from .docs_for_tests import (
    DUTCH_PAGE,
    ENGLISH_HTML,
    FRENCH_HTML,
    FRENCH_PAGE,
    RUSSIAN_PAGE,
    two_column_pdf,
)


def _run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args))
    return r.exit_code, r.stdout, r.stderr


def _write(folder: Path, name: str, text: str) -> Path:
    f = folder / name
    f.write_text(text, encoding="utf-8")
    return f


# ------------------------------------------------------------ any language


def test_french_page_shows_searches_and_has_pages(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite3"
    page = _write(tmp_path, "regle-16.fr.txt", FRENCH_PAGE)
    code, out, err = _run("import", str(page), "--db", str(db))
    assert code == 0, err
    assert "Rule 16 (fr), 4 clauses" in out

    code, out, err = _run("show", "16", "--lang", "fr", "--db", str(db))
    assert code == 0, err
    lines = out.splitlines()
    # the page's own title and name, not chukker's English ones
    assert lines[:2] == ["Règle 16 · USPA 2026 Arena Rules", "Coups francs et pénalités"]
    assert "shown in English" in out  # chukker's own words fall back, and say so
    assert "Texte original:" in out and "Distance des défenseurs" not in lines[0]
    assert "regle-16.fr.txt, l. 4" in out  # where clause 16a was read

    code, out, _ = _run("show", "16c", "--lang", "fr", "--db", str(db))
    assert code == 0 and "Le jeu reprend" in out

    # accent-free and another form of the word (Snowball's French stemmer)
    for q in ("defenseurs", "défenseur", "DEFENSEUR"):
        code, out, _ = _run("search", q, "--lang", "fr", "--json", "--db", str(db))
        hits = json.loads(out)
        assert [h["clause"] for h in hits] == ["16b"], q
        assert hits[0]["heading"] == "Distance des défenseurs"

    with TestClient(make_app(db)) as client:
        r = client.get("/rules/uspa-arena-2026/fr/16")
        assert r.status_code == 200
        assert "Règle 16 · USPA 2026 Arena Rules" in r.text
        assert "Coups francs et pénalités" in r.text
        assert 'lang="fr"' in r.text and "Texte original" in r.text
        assert "shown in English" in r.text
        r = client.get("/rules/search", params={"q": "arbitres", "in": "fr"})
        assert r.status_code == 200 and "16c interpretation" in r.text
        r = client.get("/rules/", params={"lang": "fr"})
        assert r.status_code == 200 and "Français" in r.text and "shown in English" in r.text
        r = client.get("/rules/glossary/fr")  # chukker's glossary, in English
        assert r.status_code == 200 and "bowl-in" in r.text


def test_a_language_without_a_table_entry_comes_from_lang(tmp_path: Path) -> None:
    with pytest.raises(RulebookFormatError, match="give the page's language with --lang"):
        parse_text(DUTCH_PAGE, "regel-17.txt")
    p = parse_text(DUTCH_PAGE, "regel-17.txt", lang="nl")
    assert p.lang == "nl" and [c.id for c in p.rules[0].clauses] == ["17a", "17b"]
    db = tmp_path / "r.sqlite3"
    with Corpus.open(db) as corpus:
        corpus.store(p)
    code, out, _ = _run("show", "17", "--lang", "nl", "--db", str(db))
    assert code == 0 and out.startswith("Regel 17 · USPA 2026 Arena Rules\nScheidsrechters")
    assert "Oorspronkelijke tekst" not in out  # chukker has no Dutch labels: English ones
    assert "Original text:" in out
    code, out, _ = _run("search", "scheidsrechter", "--lang", "nl", "--json", "--db", str(db))
    assert [h["clause"] for h in json.loads(out)] == ["17a", "17b"]
    with TestClient(make_app(db)) as client:
        assert client.get("/rules/uspa-arena-2026/nl/17").status_code == 200
        assert client.get("/rules/uspa-arena-2026/de/17").status_code == 404


def test_cyrillic_page_with_lang_finds_other_forms_of_a_word(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite3"
    page = _write(tmp_path, "pravilo-18.txt", RUSSIAN_PAGE)
    code, out, err = _run("import", str(page), "--lang", "ru", "--db", str(db))
    assert code == 0 and "Rule 18 (ru), 2 clauses" in out, err
    code, out, _ = _run("show", "18", "--lang", "ru", "--db", str(db))
    assert out.startswith("Правило 18 · USPA 2026 Arena Rules\nСвисток судьи")
    # another case of the word, in capitals: case folding and the Russian stemmer
    code, out, _ = _run("search", "ИГРУ", "--lang", "ru", "--json", "--db", str(db))
    assert {h["clause"] for h in json.loads(out)} == {"18a", "18b"}
    code, out, _ = _run("search", "остановкой", "--lang", "ru", "--json", "--db", str(db))
    assert [h["clause"] for h in json.loads(out)] == ["18a"]


def test_a_translation_without_its_original_is_shown_and_says_so(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite3"
    code, _, err = _run("import", str(_write(tmp_path, "fr.html", FRENCH_HTML)), "--db", str(db))
    assert code == 0, err
    code, out, _ = _run(
        "show", "4", "--lang", "fr", "--edition", "uspa-arena-2031", "--db", str(db)
    )
    assert "Un casque avec jugulaire" in out
    assert "The English original of this clause is not imported." in out
    code, out, _ = _run("search", "casque", "--lang", "en", "--json", "--db", str(db))
    assert json.loads(out) == []


def test_show_in_a_language_with_nothing_imported_falls_back(tmp_path: Path) -> None:
    db = tmp_path / "r.sqlite3"
    _run("import", str(_write(tmp_path, "p.txt", FRENCH_PAGE)), "--db", str(db))
    code, out, err = _run("show", "16", "--lang", "pt", "--db", str(db))
    assert code == 0, err
    assert "No translation in this language yet" in out and "shown in English" in out


# ------------------------------------------------------------------ HTML


def test_html_with_nested_lists_round_trip(tmp_path: Path) -> None:
    en = _write(tmp_path, "rules-2031.html", ENGLISH_HTML)
    fr = _write(tmp_path, "regles-2031.fr.html", FRENCH_HTML)
    p = parse_file(en)
    assert (p.kind, p.lang, p.edition) == (SourceKind.HTML, "en", "uspa-arena-2031")
    r4 = p.rules[0]
    assert r4.texts[0].name == "Mallets and helmets"
    assert [(c.id, c.parent, c.heading) for c in r4.clauses] == [
        ("4", "", ""),
        ("4a", "4", "Helmets"),
        ("4a(1)", "4a", ""),
        ("4a(2)", "4a", ""),
        ("4b", "4", "Mallets"),
        ("4c", "4", ""),
        ("4c interpretation", "4c", ""),
    ]
    assert r4.clause("4a(2)").original == "A broken helmet is changed at the next stoppage."
    assert r4.clause("4a").original == "A helmet with a chin strap is worn at all times."
    assert r4.clause("4c interpretation").kind == "interpretation"
    assert r4.clause("4c").origins[0].element == "li#r4c"
    assert r4.clause("4a(1)").origins[0].line == 13
    assert [c.id for c in p.rules[1].clauses] == ["5a", "5b", "5b examples"]

    db = tmp_path / "r.sqlite3"
    code, out, err = _run("import", str(en), str(fr), "--db", str(db))
    assert code == 0, err
    assert "not in this translation: 4a(2)" in out
    assert "not aligned (no such clause in the original): 4d" in out

    code, out, _ = _run(
        "show", "4", "--lang", "fr", "--edition", "uspa-arena-2031", "--db", str(db)
    )
    assert "[4a] Casques" in out and "Un casque avec jugulaire" in out
    assert "A helmet with a chin strap" in out
    assert "Clauses this translation does not have (fr): 4a(2)" in out

    code, out, _ = _run("search", "jugulaire", "--json", "--db", str(db))
    assert {h["clause"] for h in json.loads(out)} == {"4a", "4a(1)"}

    with TestClient(make_app(db)) as client:
        r = client.get("/rules/uspa-arena-2031/fr/4")
        assert r.status_code == 200
        assert "RÈGLE 4" in r.text and "Maillets et casques" in r.text
        assert "regles-2031.fr.html, l. 12, &lt;li&gt;" in r.text
        assert 'class="unaligned-extra" data-clause="4d"' in r.text
        r = client.get("/rules/uspa-arena-2031/en/4")
        assert "A broken helmet" in r.text and "rules-2031.html" in r.text


# ------------------------------------------------------------------- PDF


def test_two_column_pdf_round_trip(tmp_path: Path) -> None:
    pdf = tmp_path / "rules-2032.pdf"
    assert two_column_pdf(pdf) == 1
    p = parse_file(pdf)
    assert (p.kind, p.lang, p.edition) == (SourceKind.PDF, "en", "uspa-arena-2032")
    r7, r8 = p.rules
    assert r7.texts[0].name == "Safety of horses"
    assert [c.id for c in r7.clauses] == ["7", "7a", "7b", "7b(1)", "7c"]
    assert [c.id for c in r8.clauses] == ["8a", "8b", "8b interpretation"]
    # wrapped lines are joined, the running head and page number are left out
    assert r7.clause("7a").original == (
        "A lame horse leaves the arena and does not come back that day."
    )
    assert all("2032" not in c.original for r in p.rules for c in r.clauses)
    o = r7.clause("7b").origins[0]
    assert (o.file, o.page) == ("rules-2032.pdf", 1) and o.line > 1

    db = tmp_path / "r.sqlite3"
    code, _, err = _run("import", str(pdf), "--db", str(db))
    assert code == 0, err
    code, out, _ = _run("show", "7b(1)", "--edition", "uspa-arena-2032", "--db", str(db))
    assert code == 0 and "buckles" in out and "rules-2032.pdf, p. 1" in out
    code, out, _ = _run("search", "bleeding horse", "--json", "--db", str(db))
    assert [h["clause"] for h in json.loads(out)] == ["7c"]
    with TestClient(make_app(db)) as client:
        r = client.get("/rules/uspa-arena-2032/en/8")
        assert r.status_code == 200 and "a tired horse is not a hurt horse" in r.text


def test_two_column_pdf_is_read_column_by_column(tmp_path: Path) -> None:
    long_rules = [
        (n, f"Topic {n}", [(f"{m}.", f"Item {n}{m} of the rule, long enough to wrap. " * 2)
                           for m in "abcdef"])
        for n in range(1, 9)
    ]  # fmt: skip
    pdf = tmp_path / "long.pdf"
    assert two_column_pdf(pdf, long_rules) >= 2
    p = parse_pdf(pdf)
    assert [r.number for r in p.rules] == list(range(1, 9))
    for r in p.rules:
        assert [c.id for c in r.clauses] == [f"{r.number}{m}" for m in "abcdef"]
        for c in r.clauses:
            assert c.original == (f"Item {c.id} of the rule, long enough to wrap. " * 2).strip()
    pages = {c.origins[0].page for r in p.rules for c in r.clauses}
    assert pages == set(range(1, max(pages) + 1))


def test_french_pdf_translation_is_aligned_with_the_english_one(tmp_path: Path) -> None:
    en, fr = tmp_path / "en.pdf", tmp_path / "fr.pdf"
    two_column_pdf(en)
    two_column_pdf(
        fr,
        [(7, "Sécurité des chevaux", [("a.", "Un cheval boiteux quitte l'arène."),
                                      ("b.", "Bandes et guêtres sont permises.")])],
        title="Règles USPA 2032", rule_word="Règle",
    )  # fmt: skip
    db = tmp_path / "r.sqlite3"
    code, _out, err = _run("import", str(fr), str(en), "--db", str(db))
    assert code == 0, err
    with Corpus.open_readonly(db) as corpus:  # type: ignore[union-attr]
        rule = corpus.rule("uspa-arena-2032", 7)
        assert rule is not None
        assert rule.clause("7a").translation("fr") == "Un cheval boiteux quitte l'arène."
        assert rule.clause("7a").original.startswith("A lame horse")
        assert {x[1] for x in corpus.unaligned("uspa-arena-2032", 7)} == {"7", "7b(1)", "7c"}
        assert corpus.edition_info("uspa-arena-2032").title == "USPA 2032 Arena Rules"  # type: ignore[union-attr]


def test_a_broken_pdf_is_refused_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.4\nnot really a pdf\n")
    code, _, err = _run("import", str(bad), "--db", str(tmp_path / "r.sqlite3"))
    assert code == 1 and err.startswith(f"error: {bad}:0: not a readable PDF")


# ------------------------------------------------------ transactions, order


def test_a_document_failing_halfway_leaves_the_database_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "r.sqlite3"
    with Corpus.open(db) as corpus:
        corpus.store(parse_text(FRENCH_PAGE, "p.txt"))
        before = corpus.dump()
        calls = []
        real = Corpus._write_rule

        def failing(self: Corpus, rule: object, ed: str, n: int) -> None:
            calls.append(n)
            if len(calls) == 2:
                raise sqlite3.OperationalError("disk went away")
            real(self, rule, ed, n)  # type: ignore[arg-type]

        monkeypatch.setattr(Corpus, "_write_rule", failing)
        with pytest.raises(sqlite3.OperationalError):
            corpus.store(parse_file(_write(tmp_path, "rules.html", ENGLISH_HTML)))
        assert calls == [4, 5]
        assert corpus.dump() == before
