"""Issue 30, operators: ``chukker organiser-token`` reads the database the server would
open (``--db``, ``$CHUKKER_DATA_DIR``, ``$CHUKKER_DATABASE``) and, with no database there,
refuses (exit 2) rather than mint a token no server reads."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chukker.cli import build_app
from chukker.store import open_store

ARGS = ["organiser-token"]


def run(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(build_app(ARGS), [*ARGS, *args], env=env)
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, str]:
    for k in list(os.environ):
        if k.startswith("CHUKKER_"):
            monkeypatch.delenv(k)
    monkeypatch.chdir(tmp_path)  # the default database, ./chukker.sqlite3, is not here
    return {}


def test_organiser_token_with_no_database_refuses_and_mints_nothing(
        clean_env: dict[str, str], tmp_path: Path) -> None:
    code, out, err = run(clean_env)
    assert code == 2 and out == ""
    assert "no database at" in err and "no token made" in err
    assert not list(tmp_path.glob("*.organiser-token"))
    code, _, err = run(clean_env, "--db", str(tmp_path / "nope.sqlite3"))
    assert code == 2 and "nope.sqlite3" in err
    assert not (tmp_path / "nope.sqlite3").exists()


def test_organiser_token_respects_chukker_data_dir_and_db(
        clean_env: dict[str, str], tmp_path: Path) -> None:
    data = tmp_path / "srv"
    data.mkdir()
    open_store(str(data / "chukker.sqlite3")).close()
    code, out, err = run({"CHUKKER_DATA_DIR": str(data)})
    assert code == 0, err
    token = out.strip()
    assert token and (data / "chukker.sqlite3.organiser-token").read_text().strip() == token
    # the same again, and through --db (relative to the data folder, as the server's)
    assert run({"CHUKKER_DATA_DIR": str(data)})[1].strip() == token
    assert run({"CHUKKER_DATA_DIR": str(data)}, "--db", "chukker.sqlite3")[1].strip() == token
    assert run(clean_env, "--db", str(data / "chukker.sqlite3"))[1].strip() == token
    # $CHUKKER_DATABASE names the file too (the setting's variable)
    other = tmp_path / "other.sqlite3"
    open_store(str(other)).close()
    code, out, _ = run({"CHUKKER_DATABASE": str(other)})
    assert code == 0 and out.strip() != token
