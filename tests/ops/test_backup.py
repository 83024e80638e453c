"""Backups while serving, exports and imports: a restored database replays to the same reports."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest

from chukker.store import StoreError, open_store
from chukker.store.backup import backup_sqlite, export_store, import_store, read_export

ROOT = Path(__file__).resolve().parents[2]


def chukker(*args: str, cwd: Path, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    full["PYTHONPATH"] = str(ROOT / "src")
    full.update(env or {})
    return subprocess.run([sys.executable, "-m", "chukker.cli", *args], cwd=cwd, env=full,
                          capture_output=True, text=True, timeout=120, check=False)


def play(c: Any, m: Any, post: Any) -> None:
    for ev in ({"type": "bowl_in"}, {"type": "goal", "team": "A", "player": 1},
               {"type": "goal", "team": "B", "player": 3}, {"type": "whistle"},
               {"type": "bowl_in"}):
        r = post(c, m, ev)
        assert r.status_code == 201, r.text


def test_backup_during_a_running_match_restores_and_replays_to_the_same_reports(
        tmp_path: Path, db_path: Path, ops_factory: Any, make_match: Any, post: Any,
        sse: Any) -> None:
    backup = tmp_path / "copies" / "during.sqlite3"
    with ops_factory(db_path) as srv, srv.client() as c:
        m = make_match(c)
        stream = sse(srv.url, m.id)
        play(c, m, post)
        # more events keep coming while the backup is taken
        stop = threading.Event()

        def keep_posting() -> None:
            while not stop.is_set():
                post(c, m, {"type": "whistle"})
                post(c, m, {"type": "bowl_in"})

        writer = threading.Thread(target=keep_posting)
        writer.start()
        try:
            p = chukker("backup", str(backup), "--db", str(db_path), cwd=tmp_path)
        finally:
            stop.set()
            writer.join(30)
        assert p.returncode == 0, p.stderr
        assert "backup of" in p.stdout
        assert stream.next("event")  # the live stream went on meanwhile
        copy = open_store(backup)
        saved = copy.events(m.id)
        copy.close()
        live = c.get(f"/api/matches/{m.id}/record").json()["events"]
        # a consistent snapshot: exactly a prefix of what the server holds
        assert len(saved) >= 5
        assert [e.event for e in saved] == live[: len(saved)]
        last_at = saved[-1].event["at"]
        times = [0.0, 0.5, last_at / 2, last_at, last_at + 3.0, 400.0]
        # what the server reports before the copy's last event (later events cannot count)
        full = {t: c.get(f"/api/matches/{m.id}", params={"at": t}).json() for t in times
                if t < last_at}
    with ops_factory(backup) as restored, restored.client() as rc:
        assert rc.get("/readyz").status_code == 200
        for t in times:
            rep = rc.get(f"/api/matches/{m.id}", params={"at": t}).json()
            assert rep["seq"] == len(saved)
            if t in full:
                same = {k: v for k, v in full[t].items() if k not in ("seq", "server_time")}
                assert {k: v for k, v in rep.items() if k not in ("seq", "server_time")} == same
        # the restored server still answers to the match's secrets
        r = post(rc, m, {"type": "whistle"})
        assert r.status_code in (201, 409), r.text
    # and the record replays offline to the report the restored server gave
    rec = tmp_path / "rec.json"
    rec.write_text(json.dumps({**m_header(backup, m.id), "events": [e.event for e in saved]}))
    p = chukker("replay", str(rec), "--json", "--at", str(last_at), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    offline = json.loads(p.stdout)
    assert offline["score"] == rep_at(backup, m.id, last_at)["score"]


def m_header(db: Path, match_id: str) -> dict[str, Any]:
    s = open_store(db)
    try:
        return s.get_match(match_id).header
    finally:
        s.close()


def rep_at(db: Path, match_id: str, at: float) -> dict[str, Any]:
    from chukker.engine import Match, Setup

    s = open_store(db)
    try:
        m = Match(Setup.from_dict(s.get_match(match_id).header))
        for e in s.events(match_id):
            m.apply(e.event)
        return dict(m.report(round(at * 1000)))
    finally:
        s.close()


def test_backup_refuses_to_overwrite_the_database_and_names_pg_dump_for_postgresql(
        tmp_path: Path, db_path: Path) -> None:
    open_store(db_path).close()
    with pytest.raises(StoreError, match="another file"):
        backup_sqlite(db_path, db_path)
    p = chukker("backup", str(tmp_path / "x"), "--db", "postgresql://u:secret@h/db",
                cwd=tmp_path)
    assert p.returncode == 3 and "pg_dump" in p.stderr and "secret" not in p.stderr
    p = chukker("backup", str(tmp_path / "x"), "--db", str(tmp_path / "none.sqlite3"),
                cwd=tmp_path)
    assert p.returncode == 2 and "no database" in p.stderr


def seeded(db: Path, header: dict[str, Any]) -> str:
    from chukker.store import HornRow, StoredEvent

    s = open_store(db)
    mid = "m" + uuid.uuid4().hex[:8]
    s.create_match(mid, header, 1000, "th", "ch")
    for i, ev in enumerate([{"type": "bowl_in", "at": 0.0},
                            {"type": "goal", "team": "A", "player": 2, "at": 12.5},
                            {"type": "whistle", "at": 30.0}], start=1):
        s.append(mid, StoredEvent(i, f"c{i}", ev, 5000 + i, "timekeeper"), 5000)
    s.record_horn(mid, HornRow(450_000, 1, "end", 455_003))
    s.create_match("fresh", header, 2000, "t2", "c2")
    s.close()
    return mid


def dump(db: Path | str) -> list[Any]:
    s = open_store(db)
    try:
        return [(r, s.events(r.id), s.horns(r.id)) for r in sorted(s.list_matches(100),
                                                                    key=lambda r: r.id)]
    finally:
        s.close()


def test_export_then_import_gives_the_same_store(tmp_path: Path, header: dict[str, Any]) -> None:
    src = tmp_path / "a.sqlite3"
    mid = seeded(src, header)
    data = tmp_path / "data"
    (data / "chukker-tournaments").mkdir(parents=True)
    (data / "chukker-tournaments" / "fall.json").write_text('{"format": "x"}\n')  # not one
    p = chukker("export", str(tmp_path / "out"), "--db", str(src),
                env={"CHUKKER_DATA_DIR": str(data)}, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "exported 2 matches (3 events) and 0 tournaments" in p.stdout
    out = tmp_path / "out"
    assert (out / "matches" / f"{mid}.json").is_file()
    assert not any((out / "tournaments").iterdir())  # tournaments/test_tournament_export.py
    # each exported record replays with chukker replay, from any folder
    r = chukker("replay", str(out / "matches" / f"{mid}.json"), "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    new_data = tmp_path / "restored"
    new_data.mkdir()
    p = chukker("import", str(out), env={"CHUKKER_DATA_DIR": str(new_data)}, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert dump(new_data / "chukker.sqlite3") == dump(src)
    # importing twice changes nothing, and says so
    p = chukker("import", str(out), env={"CHUKKER_DATA_DIR": str(new_data)}, cwd=tmp_path)
    assert p.returncode == 0 and "nothing to import" in p.stdout, p.stderr
    assert dump(new_data / "chukker.sqlite3") == dump(src)


def test_import_refuses_a_changed_export_before_writing(tmp_path: Path,
                                                        header: dict[str, Any]) -> None:
    src = tmp_path / "a.sqlite3"
    mid = seeded(src, header)
    s = open_store(src)
    export_store(s, tmp_path / "out")
    s.close()
    f = tmp_path / "out" / "matches" / f"{mid}.json"
    f.write_text(f.read_text().replace('"player": 2', '"player": 3'))
    with pytest.raises(StoreError, match="SHA-256"):
        read_export(tmp_path / "out")
    target = open_store(tmp_path / "b.sqlite3")
    with pytest.raises(StoreError):
        import_store(target, tmp_path / "out")
    assert target.list_matches(10) == []
    target.close()


def test_export_refuses_a_folder_with_files(tmp_path: Path, header: dict[str, Any]) -> None:
    src = tmp_path / "a.sqlite3"
    seeded(src, header)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "x").write_text("x")
    s = open_store(src)
    with pytest.raises(StoreError, match="not empty"):
        export_store(s, tmp_path / "out")
    s.close()


@pytest.mark.postgres
def test_export_from_sqlite_import_into_postgresql(tmp_path: Path, header: dict[str, Any],
                                                   pg_url: str, pg_schema: str) -> None:
    src = tmp_path / "a.sqlite3"
    seeded(src, header)
    s = open_store(src)
    export_store(s, tmp_path / "out")
    s.close()
    pg = open_store(pg_url, pg_schema=pg_schema)
    try:
        info = import_store(pg, tmp_path / "out")
        assert (info.matches, info.events) == (2, 3)
        got = [(r, pg.events(r.id), pg.horns(r.id))
               for r in sorted(pg.list_matches(10), key=lambda r: r.id)]
    finally:
        pg.close()
    assert got == dump(src)
