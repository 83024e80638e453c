"""`chukker serve --demo` on an empty database seeds a demo tournament (the worked example of
docs/tournament.md) played up to its final, once: restarting seeds nothing more."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from chukker.cli import app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tournament" / "fall-classic.toml"
runner = CliRunner()


@pytest.fixture
def serve(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """`chukker serve` up to the point it would listen: returns its output and its app."""
    import chukker.ops.logging as web_logging
    import chukker.web.cli as web_cli

    apps: list[Any] = []

    class NoServer:
        def __init__(self, config: Any, service: Any) -> None:
            apps.append(config.app)

        def run(self, sockets: Any = None) -> None:
            pass

    monkeypatch.setattr(web_cli, "_Server", NoServer)
    monkeypatch.setattr(web_cli, "_bind", lambda host, port: None)
    monkeypatch.setattr(web_cli, "_lock_sqlite_file", lambda target: None)
    monkeypatch.setattr(web_logging, "configure", lambda *a, **k: None)
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    monkeypatch.setenv("CHUKKER_RULES_DB", str(tmp_path / "rules.sqlite3"))
    monkeypatch.delenv("CHUKKER_CONFIG", raising=False)
    monkeypatch.delenv("CHUKKER_DATABASE_URL", raising=False)

    def run() -> tuple[str, Any]:
        r = runner.invoke(app, ["serve", "--demo", "--db", str(tmp_path / "demo.sqlite3"),
                                "--port", "8123", "--public-workers", "0"])
        assert r.exit_code == 0, r.output
        return r.output, apps[-1]

    return run


def test_serve_seeds_the_tournament_once_with_the_cli_standings(
        serve: Any, tmp_path: Path) -> None:
    out, web = serve()
    m = re.search(r"tournament +http://127\.0\.0\.1:8123/tournaments/(\w+)\n", out)
    assert m, out
    tid = m.group(1)
    assert re.search(rf"Arena 1 console +http://127\.0\.0\.1:8123/tournaments/{tid}/arena/"
                     r"\w+/console#token=\S+", out)
    assert "f1 to play" in out
    cli = runner.invoke(app, ["tournament", "standings", str(EXAMPLE), "--json"])
    assert cli.exit_code == 0, cli.output
    expected = json.loads(cli.stdout)
    with TestClient(web) as c:
        listing = c.get("/tournaments")
        assert "Fall Arena Classic" in listing.text and f"/tournaments/{tid}" in listing.text
        got = c.get(f"/tournaments/{tid}/standings.json").json()
        page = c.get(f"/tournaments/{tid}")
        assert page.status_code == 200 and "Halcones" in page.text
    # the played stages (pools and semi-finals) as the command line has them
    for sid in ("pool-a", "pool-b", "semis"):
        [want] = [s for s in expected["stages"] if s["id"] == sid]
        [have] = [s for s in got["stages"] if s["id"] == sid]
        assert have == want, sid
    results = {x["id"]: x for x in got["matches"]}
    for mid, want in ((x["id"], x) for x in expected["matches"]):
        if mid == "f1":  # the final is still to play, between the semi-finals' winners
            assert results[mid]["status"] == "scheduled"
            assert results[mid]["teams"] == want["teams"]
        else:
            assert results[mid] == want, mid
    # a restart finds the database in use: no second demo (nor tournament)
    again, _ = serve()
    assert "demo match" not in again and "demo tournament" not in again
    from chukker.store import open_store

    st = open_store(tmp_path / "demo.sqlite3")  # issue 40: the tournament is in the store
    try:
        assert [tid for tid, _ in st.tournaments()] == [tid]
    finally:
        st.close()


def test_a_database_holding_the_demo_tournament_gets_no_second_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 40: the tournament is in the database (a new database is a new house: its
    own demo); seeding the same database again is refused and writes nothing."""
    from chukker.store import open_store
    from chukker.web.demo import DemoError, seed_tournament

    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    first = open_store(tmp_path / "a.sqlite3")
    try:
        seed_tournament(first, "http://127.0.0.1:8123", 1_800_000_000_000, EXAMPLE)
        held = len(first.list_matches(1000))
        with pytest.raises(DemoError, match="already holds the tournament 'Fall Arena Classic'"):
            seed_tournament(first, "http://127.0.0.1:8123", 1_800_000_000_000, EXAMPLE)
        assert len(first.list_matches(1000)) == held and len(first.tournaments()) == 1
    finally:
        first.close()
