"""Tournaments travel with the store (issue 40, "the season, the roll of honour and the
exports read the store"): `chukker export` writes each tournament's log, `chukker import`
writes it back all or nothing, an older export's tournament files come along, the season
and `chukker tournament standings` read what the server stores or exports, `chukker
config` says how many tournament files of tournaments_dir are in the database, and an
import says whether the organiser token changed (issue 42, the operator)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from chukker.store import StoreError, TournamentEvent, open_store
from chukker.store.backup import (
    export_store,
    import_store,
    parse_tournament_log,
    read_export_all,
    tournament_log_text,
)

pytestmark = pytest.mark.xdist_group("ops-tournament-export")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for k in list(os.environ):
        if k.startswith("CHUKKER_"):
            monkeypatch.delenv(k)


def chukker(*args: str, **env: str) -> Any:
    from chukker.cli import build_app

    return CliRunner().invoke(build_app(list(args)), list(args), env=env or None)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory,
           tournament_seeder: Any) -> Iterator[tuple[Path, str]]:
    """A server's data folder: its database holds the example tournament (two results,
    a move) and its live matches."""
    data = tmp_path_factory.mktemp("event")
    s = open_store(data / "chukker.sqlite3")
    try:
        tid = tournament_seeder(s)
    finally:
        s.close()
    (data / "chukker.sqlite3.organiser-token").write_text("old-organiser-token-0123456789\n")
    yield data, tid


def logs(db: Path | str, schema: str = "chukker") -> list[tuple[str, list[TournamentEvent]]]:
    s = open_store(db, pg_schema=schema)
    try:
        return [(tid, s.tournament_events(tid)) for tid, _ in s.tournaments()]
    finally:
        s.close()


def season_standings(db: Path | str, schema: str = "chukker") -> list[Any]:
    from chukker.tournament.season_cli import server_tournaments

    s = open_store(db, pg_schema=schema)
    try:
        return [(st.id, st.standings.to_json()) for st in server_tournaments(s)]
    finally:
        s.close()


def test_export_import_round_trip_gives_the_same_tournaments_and_standings(
        tmp_path: Path, seeded: tuple[Path, str]) -> None:
    data, tid = seeded
    out = tmp_path / "export"
    r = chukker("export", str(out), CHUKKER_DATA_DIR=str(data))
    assert r.exit_code == 0, r.output
    assert "and 1 tournaments" in r.output
    assert (out / "tournaments" / f"{tid}.json").is_file()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == "chukker-export/2" and manifest["tournaments"] == [tid]
    assert manifest["organiser_token_sha256"] == hashlib.sha256(
        b"old-organiser-token-0123456789").hexdigest()
    restored = tmp_path / "restored"
    r = chukker("import", str(out), CHUKKER_DATA_DIR=str(restored))
    assert r.exit_code == 0, r.output
    assert "1 tournaments (" in r.output
    assert "organiser token: changed" in r.output and "organiser-token" in r.output
    assert logs(restored / "chukker.sqlite3") == logs(data / "chukker.sqlite3")
    before = season_standings(data / "chukker.sqlite3")
    assert before and any(m["status"] == "final" for m in before[0][1]["matches"])
    assert season_standings(restored / "chukker.sqlite3") == before
    # the same import again is a no-op that says so; with the old token kept, unchanged
    shutil.copy(data / "chukker.sqlite3.organiser-token",
                restored / "chukker.sqlite3.organiser-token")
    r = chukker("import", str(out), CHUKKER_DATA_DIR=str(restored))
    assert r.exit_code == 0 and "nothing to import" in r.output, r.output
    assert "1 tournaments of" in r.output and "organiser token: unchanged" in r.output
    # `chukker tournament standings` reads the export's file: the same standings
    r = chukker("tournament", "standings", str(out / "tournaments" / f"{tid}.json"), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == before[0][1]


def test_export_import_round_trip_between_sqlite_and_postgresql(
        tmp_path: Path, seeded: tuple[Path, str], pg_url: str, pg_schema: str) -> None:
    data, _tid = seeded
    s = open_store(data / "chukker.sqlite3")
    export_store(s, tmp_path / "a")
    s.close()
    pg = open_store(pg_url, pg_schema=pg_schema)
    try:
        info = import_store(pg, tmp_path / "a")
        assert info.tournaments == 1 and info.tournament_events > 1
        export_store(pg, tmp_path / "b")
    finally:
        pg.close()
    assert logs(pg_url, pg_schema) == logs(data / "chukker.sqlite3")
    assert season_standings(pg_url, pg_schema) == season_standings(data / "chukker.sqlite3")
    back = open_store(tmp_path / "back.sqlite3")
    try:
        import_store(back, tmp_path / "b")
    finally:
        back.close()
    assert logs(tmp_path / "back.sqlite3") == logs(data / "chukker.sqlite3")


def _old_export(tmp_path: Path, data: Path, tid: str) -> tuple[Path, dict[str, str]]:
    """An export as an older version wrote it: format /1, the tournament as the file its
    server kept in tournaments_dir (document, token hashes, live matches)."""
    s = open_store(data / "chukker.sqlite3")
    try:
        export_store(s, tmp_path / "old")
        first = s.tournament_events(tid)[0]
    finally:
        s.close()
    old = tmp_path / "old"
    from chukker.live.tournaments import apply

    lt = apply(None, tid, first)
    for e in logs(data / "chukker.sqlite3")[0][1][1:]:
        lt = apply(lt, tid, e)
    live = dict(lt.live)
    live["zz"] = "not-in-the-export"  # a live match the old server had lost
    (old / "tournaments" / f"{tid}.json").unlink()
    text = json.dumps({"id": tid, "doc": lt.doc, "committee_hash": lt.committee_hash,
                       "arena_hash": lt.arena_hash, "live": live})
    (old / "tournaments" / "fall.json").write_text(text)
    m = json.loads((old / "manifest.json").read_text())
    m["format"] = "chukker-export/1"
    del m["tournaments"]
    m["files"] = {k: v for k, v in m["files"].items() if not k.startswith("tournaments/")}
    m["files"]["tournaments/fall.json"] = hashlib.sha256(text.encode()).hexdigest()
    (old / "manifest.json").write_text(json.dumps(m))
    return old, live


def test_import_of_an_older_export_imports_its_tournament_files_once(
        tmp_path: Path, seeded: tuple[Path, str]) -> None:
    data, tid = seeded
    old, live = _old_export(tmp_path, data, tid)
    restored = tmp_path / "restored"
    r = chukker("import", str(old), CHUKKER_DATA_DIR=str(restored))
    assert r.exit_code == 0, r.output
    assert "1 tournaments (1 events)" in r.output
    (got_tid, events), = logs(restored / "chukker.sqlite3")
    assert got_tid == tid and events[0].kind == "uploaded"
    made = events[0].body["made"]
    assert "zz" not in made and made == {k: v for k, v in live.items() if k != "zz"}
    # its results come from the live matches it carried: the same standings as the server's
    assert season_standings(restored / "chukker.sqlite3") == season_standings(
        data / "chukker.sqlite3")
    r = chukker("import", str(old), CHUKKER_DATA_DIR=str(restored))
    assert r.exit_code == 0 and "nothing to import" in r.output, r.output


def test_import_refuses_a_tournament_the_database_holds_otherwise_and_writes_nothing(
        tmp_path: Path, seeded: tuple[Path, str]) -> None:
    data, tid = seeded
    s = open_store(data / "chukker.sqlite3")
    export_store(s, tmp_path / "out")
    s.close()
    target = tmp_path / "other.sqlite3"
    t = open_store(target)
    first = logs(data / "chukker.sqlite3")[0][1][0]
    t.import_tournaments([(tid, [TournamentEvent(1, first.kind, first.body,
                                                 first.recorded_ms + 1)])])
    t.close()
    r = chukker("import", str(tmp_path / "out"), "--db", str(target))
    assert r.exit_code == 2 and f"tournament {tid}: event 1 differs" in r.output, r.output
    t = open_store(target)
    try:
        assert t.list_matches(10) == []  # all or nothing: not even the matches
        assert [len(e) for _, e in [(x, t.tournament_events(x)) for x, _ in t.tournaments()]] \
            == [1]
    finally:
        t.close()


def _rewrite(root: Path, rel: str, text: str) -> None:
    (root / rel).write_text(text)
    m = json.loads((root / "manifest.json").read_text())
    m["files"][rel] = hashlib.sha256(text.encode()).hexdigest()
    (root / "manifest.json").write_text(json.dumps(m))


def test_import_refuses_a_log_that_does_not_fold_before_writing(
        tmp_path: Path, seeded: tuple[Path, str]) -> None:
    data, tid = seeded
    s = open_store(data / "chukker.sqlite3")
    export_store(s, tmp_path / "out")
    s.close()
    rel = f"tournaments/{tid}.json"
    events = logs(data / "chukker.sqlite3")[0][1]
    bad = [TournamentEvent(1, "moved", events[-1].body, 5)]
    _rewrite(tmp_path / "out", rel, tournament_log_text(tid, bad))
    r = chukker("import", str(tmp_path / "out"), "--db", str(tmp_path / "n.sqlite3"))
    assert r.exit_code == 2 and "event 1 does not read" in r.output, r.output
    assert not (tmp_path / "n.sqlite3").exists()
    gap = tournament_log_text(tid, [events[0], events[2]]).replace('"seq": 3', '"seq": 2', 0)
    _rewrite(tmp_path / "out", rel, gap)
    with pytest.raises(StoreError, match="event 2 is missing or numbered otherwise"):
        read_export_all(tmp_path / "out")


def test_tournament_log_is_bounded_and_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               seeded: tuple[Path, str]) -> None:
    import chukker.store.backup as backup

    for text, msg in [("[]", "not a tournament's log"),
                      ('{"format": "chukker-tournament-log/1", "id": "a b", "events": []}',
                       "is not a match id"),
                      (tournament_log_text("t1", []), "no event"),
                      ('{"format": "chukker-tournament-log/1", "id": "t1", "events": '
                       '[{"seq": 1, "kind": "uploaded", "body": [], "recorded_ms": 1}]}',
                       "needs a kind, a body")]:
        with pytest.raises(StoreError, match=msg):
            parse_tournament_log(text, "x.json")
    data, tid = seeded
    monkeypatch.setattr(backup, "MAX_FILE_BYTES", 1000)
    s = open_store(data / "chukker.sqlite3")
    try:
        with pytest.raises(StoreError, match=f"tournament {tid}: its log is larger than 1000"):
            export_store(s, tmp_path / "big")
    finally:
        s.close()
    assert not (tmp_path / "big").exists()  # refused before anything is written


def test_config_says_how_many_tournament_files_are_in_the_database(
        tmp_path: Path, seeded: tuple[Path, str]) -> None:
    data, tid = seeded
    work = tmp_path / "data"
    shutil.copytree(data, work)
    folder = work / "chukker-tournaments"
    folder.mkdir()
    s = open_store(work / "chukker.sqlite3")
    doc = s.tournament_events(tid)[0].body["doc"]
    s.close()
    (folder / "held.json").write_text(json.dumps(
        {"id": tid, "doc": doc, "committee_hash": "c", "arena_hash": {}}))
    (folder / "new.json").write_text(json.dumps(
        {"id": "beef0001", "doc": doc, "committee_hash": "c", "arena_hash": {}}))
    (folder / "junk.json").write_text("not json")
    r = chukker("config", CHUKKER_DATA_DIR=str(work))
    assert r.exit_code == 0, r.output
    assert "3 tournament files of an older version: 1 imported into the database, 2 not" \
        in r.output
    assert "the next `chukker serve` imports them): beef0001" in r.output
    assert "not importable: junk.json" in r.output
    import tomllib

    tomllib.loads(r.stdout)  # still a valid settings file
    # the season and the export carry the file not imported yet, as the next start will
    r = chukker("export", str(tmp_path / "out"), CHUKKER_DATA_DIR=str(work))
    assert r.exit_code == 0 and "2 tournaments" in r.output, r.output
    assert "(1 of them files of tournaments_dir" in r.output
    r = chukker("season", "export", CHUKKER_DATA_DIR=str(work))
    assert r.exit_code == 0, r.output


def test_standings_reads_a_servers_file_and_is_never_silent(
        tmp_path: Path, seeded: tuple[Path, str]) -> None:
    data, tid = seeded
    s = open_store(data / "chukker.sqlite3")
    doc = s.tournament_events(tid)[0].body["doc"]
    s.close()
    f = tmp_path / "abcd.json"
    f.write_text(json.dumps({"id": "abcd", "doc": doc, "committee_hash": "c",
                             "arena_hash": {}, "live": {}}))
    r = chukker("tournament", "standings", str(f))
    assert r.exit_code == 0 and "holds no results" in r.output, r.output
    assert "Fall" in r.output
    for text in ("{}", "[]", '{"id": "x", "doc": {}, "committee_hash": "c"}'):
        f.write_text(text)
        r = chukker("tournament", "standings", str(f))
        assert r.exit_code == 3 and r.output.strip(), (text, r.output)


def test_backup_counts_tournaments_and_the_copy_holds_them(
        tmp_path: Path, seeded: tuple[Path, str]) -> None:
    data, _tid = seeded
    r = chukker("backup", str(tmp_path / "b.sqlite3"), CHUKKER_DATA_DIR=str(data))
    assert r.exit_code == 0, r.output
    assert " 1 tournaments," in r.output and "organiser token is in" in r.output
    assert logs(tmp_path / "b.sqlite3") == logs(data / "chukker.sqlite3")


def test_backup_on_postgresql_prints_a_pg_dump_command_that_runs_as_printed(
        tmp_path: Path, pg_url: str, pg_schema: str, tournament_seeder: Any) -> None:
    import subprocess

    s = open_store(pg_url, pg_schema=pg_schema)
    try:
        tournament_seeder(s, played=())
    finally:
        s.close()
    r = chukker("backup", "x.sqlite3", CHUKKER_DATABASE=pg_url,
                CHUKKER_DATABASE_SCHEMA=pg_schema)
    assert r.exit_code == 3, r.output
    line = next(x.strip() for x in r.output.splitlines() if x.strip().startswith("pg_dump"))
    assert "postgresql://" in line and "@" in line  # scheme and user, as the URL has them
    p = subprocess.run(line, shell=True, cwd=tmp_path, capture_output=True, text=True,
                       timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    listing = subprocess.run(["pg_restore", "--list", str(tmp_path / "chukker.dump")],
                             capture_output=True, text=True, timeout=60, check=True).stdout
    assert "tournament_events" in listing
