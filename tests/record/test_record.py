"""The match record contract: formats, round trips, `chukker replay`, `check`, `schema`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from chukker.cli import app
from chukker.record import RecordError, check, dumps, load_path, loads, replay, schema

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.*"))
runner = CliRunner()


def record(events: list[dict[str, Any]] | None = None, **options: Any) -> dict[str, Any]:
    players = [{"no": n, "name": f"P{n}", "handicap": n - 1} for n in (1, 2, 3)]
    return {
        "format": "chukker-match/1",
        "rules": "uspa-arena-2026",
        "options": options,
        "teams": {
            "A": {"name": "Blue", "captain": 2, "players": players},
            "B": {"name": "White", "captain": 1, "players": players},
        },
        "events": events or [],
    }


def write(tmp_path: Path, doc: dict[str, Any], name: str = "m.json") -> Path:
    p = tmp_path / name
    p.write_text(dumps(doc, "toml" if name.endswith(".toml") else "json"), encoding="utf-8")
    return p


def test_examples_cover_the_required_matches() -> None:
    names = {p.stem for p in EXAMPLES}
    assert {
        "split-periods-regulation",
        "six-periods-handicap",
        "overtime",
        "shootout",
        "penalty-at-end-of-period",
    } <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_replay_and_round_trip(path: Path) -> None:
    doc = load_path(path)
    assert check(doc) == []
    r = replay(doc)
    for fmt in ("json", "toml"):
        again = loads(dumps(doc, fmt), fmt)  # type: ignore[arg-type]
        assert again == doc
        assert replay(again) == r


def test_canonical_json_text_round_trips_exactly() -> None:
    doc = record(
        [{"at": 0.0, "type": "bowl_in"}, {"at": 61.25, "type": "goal", "team": "A", "player": 2}]
    )
    text = dumps(doc)
    assert dumps(loads(text)) == text
    assert text.count("\n    {") == 2  # one event per line


def test_malformed_json_names_line_and_column() -> None:
    with pytest.raises(RecordError) as e:
        loads('{\n  "teams": {,\n}')
    assert (e.value.line, e.value.column) == (2, 13)


def test_malformed_toml_names_line_and_column() -> None:
    with pytest.raises(RecordError) as e:
        loads('format = "chukker-match/1"\nrules = \n', "toml")
    assert e.value.line == 2


def test_bad_header_is_a_record_error_naming_the_field() -> None:
    doc = record()
    doc["options"] = {"periods": "eight"}
    with pytest.raises(RecordError, match=r"options.periods: unknown value 'eight'"):
        replay(doc)


def test_schema_is_valid_json_schema_and_accepts_the_examples() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    s = schema()
    jsonschema.Draft202012Validator.check_schema(s)
    for p in EXAMPLES:
        jsonschema.validate(load_path(p), s)


# ------------------------------------------------------------- the CLI
def test_replay_json_prints_the_contract_object(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        record(
            [{"at": 0, "type": "bowl_in"}, {"at": 61.25, "type": "goal", "team": "A", "player": 2}]
        ),
    )
    res = runner.invoke(app, ["replay", str(p), "--json"])
    assert res.exit_code == 0, res.output
    r = json.loads(res.stdout)
    for key in (
        "status",
        "period",
        "clock",
        "score",
        "handicap_goals",
        "winner",
        "decided_by",
        "horns",
        "periods",
    ):
        assert key in r
    assert r["horns"][0] == {"at": 450.0, "period": 1, "kind": "end"}
    res = runner.invoke(app, ["replay", str(p), "--json", "--at", "100"])
    r = json.loads(res.stdout)
    assert r["status"] == "in_play" and r["clock"] == {"remaining_ms": 350000, "running": True}


def test_replay_refused_record_prints_one_line_naming_the_event(tmp_path: Path) -> None:
    p = write(
        tmp_path, record([{"at": 0, "type": "bowl_in"}, {"at": 450, "type": "goal", "team": "A"}])
    )
    proc = subprocess.run(
        [sys.executable, "-m", "chukker.cli", "replay", str(p), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "event 2 (goal at 450.000 s): the ball is dead: period 1 ended at 450.000 s" in lines[0]
    assert "Traceback" not in proc.stderr


def test_replay_malformed_file_exit_3_with_line_and_column(tmp_path: Path) -> None:
    p = tmp_path / "bad.json"
    p.write_text('{"teams": [1, 2,]}')
    res = runner.invoke(app, ["replay", str(p)])
    assert res.exit_code == 3
    assert "line 1, column 17" in res.stderr
    res = runner.invoke(app, ["replay", str(tmp_path / "missing.json")])
    assert res.exit_code == 3


def test_replay_summary_is_readable(tmp_path: Path) -> None:
    res = runner.invoke(app, ["replay", str(ROOT / "examples" / "shootout.json")])
    assert res.exit_code == 0
    assert "winner: Blue (shootout)" in res.stdout


def test_check_lists_every_problem_with_its_event_number(tmp_path: Path) -> None:
    p = write(
        tmp_path,
        record(
            [
                {"at": 0, "type": "bowl_in"},
                {"at": 5, "type": "goal", "team": "C"},
                {"at": 6, "type": "free_hit"},
                {"at": 7, "type": "goal", "team": "A"},
            ]
        ),
        "m.toml",
    )
    res = runner.invoke(app, ["check", str(p)])
    assert res.exit_code == 1
    out = res.stdout.strip().splitlines()
    assert len(out) == 2
    assert "event 2 (goal at 5.000 s)" in out[0] and "event 3 (free_hit at 6.000 s)" in out[1]


def test_schema_command_prints_the_schema() -> None:
    res = runner.invoke(app, ["schema"])
    assert res.exit_code == 0
    assert json.loads(res.stdout)["properties"]["format"]["const"] == "chukker-match/1"
