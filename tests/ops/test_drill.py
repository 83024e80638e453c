"""The restore drill of docs/operations.md, run as written: its commands are taken from the
Markdown and run in order in a temporary folder, next to a live `chukker serve --demo`
(issue 21 item 2)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from tests import ports

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operations.md"


def drill_blocks() -> tuple[list[str], list[str]]:
    """The ```sh blocks of the drill's section: those for SQLite, those for PostgreSQL."""
    text = DOC.read_text()
    start = text.index("## The restore drill")
    end = text.find("\n## ", start + 10)
    section = text[start:end if end != -1 else None]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    sqlite = [b for b in blocks if "pg_dump" not in b]
    pg = [b for b in blocks if "pg_dump" in b]
    return sqlite, pg


def free_port() -> int:
    return ports.free_port(2)


def env(**extra: str) -> dict[str, str]:
    e = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    e["PATH"] = f"{Path(sys.executable).parent}:{e.get('PATH', '/usr/bin:/bin')}"
    e["PYTHONPATH"] = str(ROOT / "src")
    e.update(extra)
    return e


def run_drill(blocks: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    script = "\n".join(blocks)
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=cwd,
                          env=env(**extra), capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[str]:
    """The event's server, as on the night before: `chukker serve --demo` in its folder."""
    port = free_port()
    p = subprocess.Popen(["chukker", "serve", "--demo", "--port", str(port)], cwd=tmp_path,
                         env=env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(400):
            try:
                if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if p.poll() is not None:
                raise AssertionError(p.stdout.read() if p.stdout else "serve ended")
            time.sleep(0.05)
        yield base
    finally:
        p.terminate()
        p.wait(20)


def test_the_drill_has_its_steps() -> None:
    sqlite, pg = drill_blocks()
    text = "\n".join(sqlite)
    for command in ("chukker backup", "chukker export", "chukker import", "chukker serve",
                    "diff -r", "/readyz", "/tournaments", "tournaments\"", "matches, $("):
        assert command in text, command
    assert pg and "pg_restore" in pg[0]


def test_restore_drill_as_written_restores_every_match_and_tournament(
        tmp_path: Path, live: str) -> None:
    sqlite, _ = drill_blocks()
    matches = httpx.get(live + "/api/matches").json()
    assert len(matches) >= 2  # the demo's matches, and its tournament's
    p = run_drill(sqlite, tmp_path, CHECK_PORT=str(free_port()))
    assert p.returncode == 0, p.stdout + p.stderr
    # it says so with counts: every match of the server, and the demo's tournament
    assert (f"restore OK: every match and tournament: {len(matches)} matches, 1 tournaments"
            in p.stdout), p.stdout
    assert "1 tournaments, " in p.stdout  # the backup holds it too
    assert "organiser token: unchanged" in p.stdout  # the drill put the old one back
    assert '"status":"ok"' in p.stdout  # the restored server said it was ready
    assert (tmp_path / "backups" / "night-before.sqlite3").is_file()
    exported = tmp_path / "backups" / "night-before-export"
    assert len(list((exported / "matches").glob("*.store.json"))) == len(matches)
    assert len(list((exported / "tournaments").glob("*.json"))) == 1  # the demo tournament
    assert not (tmp_path / "restore-check").exists()  # step 5 cleaned up
    # the drill says a second run stops at the backup: the file is not overwritten
    again = run_drill(sqlite[:1], tmp_path)
    assert again.returncode == 2 and "not overwritten" in again.stderr


@pytest.mark.postgres
def test_restore_drill_with_postgresql_as_written(tmp_path: Path, pg_url: str,
                                                   pg_schema: str,
                                                   tournament_seeder: Any) -> None:
    from chukker.store import HornRow, StoredEvent, open_store
    from chukker.web.demo import DEMO_HEADER

    s = open_store(pg_url, pg_schema=pg_schema)
    try:
        for k in range(3):
            s.create_match(f"pg{k}", DEMO_HEADER, 1000 + k, f"t{k}", f"c{k}")
            s.append(f"pg{k}", StoredEvent(1, "c1", {"type": "bowl_in", "at": 0.0}, 5, "tk"), 5)
        s.record_horn("pg0", HornRow(450_000, 1, "end", 455_000))
        tournament_seeder(s, played=("a1",))
        n = len(s.list_matches(100))
    finally:
        s.close()
    check_db = "chukker_check_" + uuid.uuid4().hex[:10]
    _, pg = drill_blocks()
    try:
        p = run_drill(pg, tmp_path, CHUKKER_DATABASE=pg_url,
                      CHUKKER_DATABASE_SCHEMA=pg_schema, CHECK_DB=check_db)
        assert p.returncode == 0, p.stdout + p.stderr
        # the pg_dump held the tournament: restored, and said with counts
        assert (f"restore OK: every match and tournament: {n} matches, 1 tournaments"
                in p.stdout), p.stdout
        assert len(list((tmp_path / "backups" / "night-before-pg-export" / "matches")
                        .glob("*.store.json"))) == n
    finally:
        with psycopg.connect(pg_url, autocommit=True) as db:
            db.execute(f"DROP DATABASE IF EXISTS {check_db}".encode())


def test_readme_export_and_import_beside_a_running_server(tmp_path: Path, live: str,
                                                          header: dict[str, Any]) -> None:
    """As the README writes it, while the event's server runs: a no-op that says so; an
    import that would write into the served file is refused (stop the server first)."""
    p = subprocess.run("chukker export DIR && chukker import DIR", shell=True, cwd=tmp_path,
                       env=env(), capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 0 and "nothing to import" in p.stdout, p.stdout + p.stderr
    from chukker.store import open_store
    from chukker.store.backup import export_store

    other = open_store(tmp_path / "other.sqlite3")
    other.create_match("elsewhere", header, 1, "t", "c")
    export_store(other, tmp_path / "other-export")
    other.close()
    p = subprocess.run(["chukker", "import", "other-export"], cwd=tmp_path, env=env(),
                       capture_output=True, text=True, timeout=120, check=False)
    assert p.returncode == 2 and "being served" in p.stderr, p.stdout + p.stderr
    assert all(m["match_id"] != "elsewhere" for m in httpx.get(live + "/api/matches").json())
