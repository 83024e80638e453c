"""A misspelled key in a tournament file (issue 21.8): "unknown key `tiebrake`", with its
line and the key it was meant to be, once, not one line per match."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from chukker.cli import app
from chukker.tournament.check import check
from chukker.tournament.model import loads

EXAMPLE = Path(__file__).parents[2] / "examples" / "tournament"


def test_tournament_misspelled_match_option_reported_once_with_line_and_suggestion(
    tmp_path: Path,
) -> None:
    shutil.copytree(EXAMPLE / "matches", tmp_path / "matches")
    text = (EXAMPLE / "fall-classic.toml").read_text()
    assert "\ntiebreak =" in text
    bad = text.replace("\ntiebreak =", "\ntiebrake =", 1)
    line = bad.splitlines().index(next(ln for ln in bad.splitlines() if ln.startswith("tiebrake")))
    f = tmp_path / "fall-classic.toml"
    f.write_text(bad)
    res = CliRunner().invoke(app, ["tournament", "check", str(f)])
    out = res.stdout
    assert res.exit_code == 1
    assert out.count("tiebrake") == 1, out
    assert f"line {line + 1}: unknown key `tiebrake` (did you mean `tiebreak`?)" in out
    assert "record option" not in out


def test_tournament_unknown_key_in_every_table_named_where_it_is() -> None:
    text = """
format = "chukker-tournament/1"
name = "Cup"
vneue = "Pine Hill"
[[players]]
id = "ann"
nmae = "Ann"
handicaps = [{ from = 2026-01-01, valeu = 2 }]
[[teams]]
id = "t"
players = ["ann"]
captian = "ann"
[[stages]]
id = "p"
kind = "round-robin"
[[matches]]
id = "m1"
stage = "p"
arnea = "Arena 1"
teams = ["t", "t"]
"""
    t = loads(text)
    got = [str(p) for p in t.problems if p.code == "unknown_key"]
    assert got == [
        "tournament: line 4: unknown key `vneue` (did you mean `venue`?)",
        "player ann: line 7: unknown key `nmae` (did you mean `name`?)",
        "player ann: line 8: unknown key `valeu` (did you mean `value`?)",
        "team t: line 12: unknown key `captian` (did you mean `captain`?)",
        "match m1: line 19: unknown key `arnea` (did you mean `arena`?)",
    ]
    assert [p for p in check(t) if p.code == "unknown_key"] == [
        p for p in t.problems if p.code == "unknown_key"
    ]


def test_tournament_unknown_key_in_json_has_its_line_too() -> None:
    doc = {"format": "chukker-tournament/1", "name": "Cup", "match_options": {"tiebrake": "x"}}
    text = json.dumps(doc, indent=2)
    t = loads(text, "json")
    assert [str(p) for p in t.problems if p.code == "unknown_key"] == [
        "match_options: line 5: unknown key `tiebrake` (did you mean `tiebreak`?)"
    ]


def test_tournament_unknown_key_far_from_any_says_no_suggestion() -> None:
    t = loads('format = "chukker-tournament/1"\nname = "Cup"\nzzz = 1\n[[teams]]\nid = "a"\n')
    assert [str(p) for p in t.problems if p.code == "unknown_key"] == [
        "tournament: line 3: unknown key `zzz`"
    ]


def test_tournament_upload_with_a_misspelled_key_refused_once_with_line(
    tmp_path: Path, monkeypatch: Any
) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from tests.tournament.web_helpers import four_team_toml
    from tests.web.conftest import OPEN

    from chukker.web import create_app

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    text = four_team_toml().replace("tiebreak =", "tiebrake =")
    line = text.splitlines().index('tiebrake = "shootout"') + 1
    with TestClient(create_app(tmp_path / "live.sqlite3", **OPEN)) as c:
        r = c.post("/tournaments/api", json={"text": text})
    assert r.status_code == 422
    problems = [p["message"] for p in r.json()["problems"]]
    assert problems == [
        f"match_options: line {line}: unknown key `tiebrake` (did you mean `tiebreak`?)"
    ]


def test_tournament_misspelled_criterion_and_stage_kind_suggest_the_name() -> None:
    t = loads(
        'format = "chukker-tournament/1"\nname = "Cup"\n'
        '[order_of_finish]\ncriteria = ["wins", "head_to_haed"]\n'
        '[[stages]]\nid = "p"\nkind = "round-robbin"\n'
    )
    got = [str(p) for p in t.problems]
    assert any("unknown criterion 'head_to_haed' (did you mean `head_to_head`?)" in g for g in got)
    assert any("got 'round-robbin' (did you mean `round-robin`?)" in g for g in got)
