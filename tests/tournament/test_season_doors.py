"""The season's doors (CONTRIBUTING): who may call them, how big their input can be, that
they never read a server path a client names, and that they cannot hold up a key press."""

from __future__ import annotations

import json
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tests.tournament.web_helpers import four_team_toml, post
from tests.web.conftest import ORGANISER

from chukker.cli import app
from chukker.web import create_app


@pytest.fixture
def closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with TestClient(create_app(tmp_path / "live.sqlite3", organiser=ORGANISER)) as c:
        yield c


def test_season_page_anyone_may_read_no_body_no_client_path(closed: Any) -> None:
    # the upload stays the organiser's; reading the season is anyone's
    auth = {"authorization": f"Bearer {ORGANISER}"}
    text = four_team_toml().replace('teams = ["reds", "blues"]\n', 'teams = ["reds", "blues"]\n'
                                    'record = "/etc/passwd"\n', 1)  # fmt: skip
    assert closed.post("/tournaments/api", json={"text": text}).status_code in (401, 403)
    r = closed.post("/tournaments/api", json={"text": text}, headers=auth)
    assert r.status_code == 201, r.text
    page = closed.get("/tournaments/season?path=/etc/passwd&file=../../etc/passwd")
    assert page.status_code == 200 and "root:" not in page.text
    csv_text = closed.get("/tournaments/season.csv?path=/etc/passwd").text
    assert "root:" not in csv_text and ",scheduled," in csv_text  # m1's record is never read
    # GET only: a body is not taken
    assert closed.post("/tournaments/season", content=b"x" * 100).status_code in (404, 405)


def test_season_is_computed_off_the_event_loop(
    closed: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import chukker.tournament.season as season_mod

    threads: list[str] = []
    real = season_mod.season

    def spy(ts: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real(ts)

    monkeypatch.setattr(season_mod, "season", spy)
    auth = {"authorization": f"Bearer {ORGANISER}"}
    body = closed.post("/tournaments/api", json={"text": four_team_toml()}, headers=auth).json()
    tok = body["arenas"]["Arena 1"]["token"]
    assert closed.get("/tournaments/season").status_code == 200
    # a key press is taken between two season pages, and the next page shows it
    assert post(closed, "", body["matches"]["m1"], tok, {"type": "bowl_in"}).status_code == 201
    assert closed.get("/tournaments/season").status_code == 200
    assert len(threads) == 2
    assert all(name != threading.main_thread().name for name in threads)


def test_season_export_skips_what_is_not_a_servers_tournament(tmp_path: Path) -> None:
    folder = tmp_path / "tournaments"
    folder.mkdir()
    (folder / "big.json").write_bytes(b"{" + b" " * (5 * 1024 * 1024) + b"}")  # over 4 MiB
    (folder / "list.json").write_text(json.dumps([1, 2, 3]))
    (folder / "bad-doc.json").write_text(json.dumps({"id": "x", "doc": [], "live": {}}))
    from chukker.store import open_store

    open_store(tmp_path / "db.sqlite3").close()  # the server's database (a missing one: exit 3)
    res = CliRunner().invoke(
        app,
        ["season", "export", "--db", str(tmp_path / "db.sqlite3")],
        env={"CHUKKER_TOURNAMENTS_DIR": str(folder)},
    )
    assert res.exit_code == 0, res.output
    assert res.stdout.count("\n") == 1  # the header line only


def test_season_show_prints_the_roll_of_honour() -> None:
    example = Path(__file__).parents[2] / "examples" / "tournament" / "fall-classic.toml"
    res = CliRunner().invoke(app, ["season", "show", str(example)], env={"COLUMNS": "120"})
    assert res.exit_code == 0, res.output
    assert "Roll of honour" in res.stdout and "Giles Farm" in res.stdout
