"""``chukker rules import|show|search|diff``."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from chukker.rulebook.cli import app

runner = CliRunner()


def _run(*args: str) -> tuple[int, str, str]:
    r = runner.invoke(app, list(args))
    return r.exit_code, r.stdout, r.stderr


def test_import_is_idempotent(tmp_path: Path, seeds: list[Path]) -> None:
    db = str(tmp_path / "r.sqlite3")
    code, out, _ = _run("import", "--db", db, *map(str, seeds))
    assert code == 0 and out.count("added") == 3
    code, out, _ = _run("import", "--db", db, *map(str, seeds))
    assert code == 0 and "added" not in out and out.count("unchanged") == 3


def test_import_of_a_foreign_file_fails_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "menu.txt"
    bad.write_text("Lunch menu\nSoup\n", encoding="utf-8")
    code, _, err = _run("import", "--db", str(tmp_path / "r.sqlite3"), str(bad))
    assert code == 1
    assert err.strip().count("\n") == 0
    assert err.startswith(f"error: {bad}:1: ")


def test_import_reads_the_database_from_the_environment(
    tmp_path: Path, seeds: list[Path], monkeypatch: object
) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    db = tmp_path / "env.sqlite3"
    monkeypatch.setenv("CHUKKER_RULES_DB", str(db))
    code, _, _ = _run("import", str(seeds[0]))
    assert code == 0 and db.is_file()


def test_show_rule_5_in_spanish(seeded_db: Path) -> None:
    code, out, _ = _run("show", "5", "--lang", "es", "--db", str(seeded_db))
    assert code == 0
    assert out.startswith("Regla 5 · USPA 2026 Arena Rules")
    assert out.count("Texto original:") == 26
    assert "Intervalo antes del shootout: 4 min  [5.tie-shootout-set-up]" in out


def test_show_clause_json(seeded_db: Path) -> None:
    code, out, _ = _run("show", "13b", "--lang", "it", "--json", "--db", str(seeded_db))
    assert code == 0
    data = json.loads(out)
    assert data["clause"]["id"] == "13b" and len(data["clause"]["plays"]) == 1


def test_show_falls_back_to_2006_where_2026_is_silent(seeded_db: Path) -> None:
    code, out, _ = _run("show", "9.p3", "--db", str(seeded_db))
    assert code == 0 and out.startswith("[9.p3] Penalty 3")


def test_show_without_a_database_gives_the_summary_and_how_to_import(tmp_path: Path) -> None:
    code, out, _ = _run("show", "13", "--lang", "it", "--db", str(tmp_path / "none.sqlite3"))
    assert code == 0
    assert "chukker rules import" in out and "Regola 13" in out
    assert not (tmp_path / "none.sqlite3").exists()


def test_show_unknown_clause_lists_the_known_ones(seeded_db: Path) -> None:
    code, _, err = _run("show", "13z", "--db", str(seeded_db))
    assert code == 1 and "no clause '13z'" in err and "13b" in err


def test_search_json(seeded_db: Path) -> None:
    code, out, _ = _run("search", "zigzag", "--json", "--db", str(seeded_db))
    assert code == 0
    assert json.loads(out)[0]["clause"] == "13b"
    code, out, _ = _run("search", "shootout", "--lang", "es", "--db", str(seeded_db))
    assert code == 0 and out.splitlines()[0].startswith("uspa-arena-2026  5.tie-shootout-set-up")


def test_search_misspelled_says_did_you_mean_and_a_number_goes_to_its_clause(
    seeded_db: Path,
) -> None:
    code, out, _ = _run("search", "peanlty", "--db", str(seeded_db))
    assert code == 0 and "did you mean 'penalty'?" in out.splitlines()[0]
    code, out, _ = _run("search", "penalty 2", "--db", str(seeded_db))
    assert code == 0 and out.splitlines()[0].startswith("uspa-arena-2006  9.p2  Penalty 2")


def test_diff_rule_5_reports_the_shootout_interval(seeded_db: Path) -> None:
    code, out, _ = _run(
        "diff", "uspa-arena-2006", "uspa-arena-2026", "--rule", "5", "--db", str(seeded_db)
    )
    assert code == 0
    assert "number: 2-minute → 4-minute" in out
    code, out, _ = _run(
        "diff",
        "uspa-arena-2006",
        "uspa-arena-2026",
        "--rule",
        "5",
        "--json",
        "--db",
        str(seeded_db),
    )
    data = json.loads(out)
    nums = [n for c in data["rules"][0]["changes"] for n in c["numbers"]]
    assert [(n["before"], n["after"]) for n in nums] == [("2-minute", "4-minute")]


def test_bad_language_is_refused(seeded_db: Path) -> None:
    code, _, err = _run("search", "x", "--lang", "x1!", "--db", str(seeded_db))
    assert code == 1 and "unknown language 'x1!'" in err
