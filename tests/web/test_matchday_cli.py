"""`chukker replay` with several files: one report each, failures named, the rest kept."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from chukker.cli import app

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


def test_replay_several_files_one_json_object_each() -> None:
    files = [str(ROOT / "examples" / n) for n in ("overtime.json", "shootout.json")]
    r = runner.invoke(app, ["replay", *files, "--json"])
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["decided_by"] for x in lines] == ["extra-period", "shootout"]


def test_replay_several_files_goes_on_past_a_bad_one(tmp_path: Path) -> None:
    good = str(ROOT / "examples" / "overtime.json")
    r = runner.invoke(app, ["replay", good, str(tmp_path / "missing.json"), good, "--json"])
    assert r.exit_code == 3
    assert len(r.stdout.splitlines()) == 2
    assert "missing.json: cannot read" in r.stderr
