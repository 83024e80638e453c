"""`chukker import` is all or nothing and can be retried; `export && import` works as the
README writes it; `backup` never overwrites by surprise (issue 19 items 5, 9, 10, 13;
issue 21 item 2)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from chukker.store import HornRow, MatchImport, MatchRow, StoredEvent, StoreError, open_store
from chukker.store.backup import export_store, import_store

ROOT = Path(__file__).resolve().parents[2]
EVENTS = [{"type": "bowl_in", "at": 0.0}, {"type": "goal", "team": "A", "player": 2, "at": 12.5},
          {"type": "whistle", "at": 30.0}]


def chukker(*args: str, cwd: Path, env: dict[str, str] | None = None,
            code: str | None = None) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    full["PYTHONPATH"] = str(ROOT / "src")
    full.update(env or {})
    cmd = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "chukker.cli",
                                                            *args]
    return subprocess.run(cmd, cwd=cwd, env=full, capture_output=True, text=True, timeout=120,
                          check=False)


def seed(db: Path, header: dict[str, Any], n: int = 4, events: int = 3) -> list[str]:
    s = open_store(db)
    ids = []
    for k in range(n):
        mid = f"m{k}"
        s.create_match(mid, header, 1000 + k, f"t{k}", f"c{k}")
        for i, ev in enumerate(EVENTS[:events], start=1):
            s.append(mid, StoredEvent(i, f"c{i}", ev, 5000 + i, "timekeeper"), 5000)
        s.record_horn(mid, HornRow(450_000, 1, "end", 455_003))
        ids.append(mid)
    s.close()
    return ids


def dump(db: Path | str) -> list[Any]:
    s = open_store(db)
    try:
        return [(r, s.events(r.id), s.horns(r.id))
                for r in sorted(s.list_matches(100), key=lambda r: r.id)]
    finally:
        s.close()


def rehash(out: Path) -> None:
    """Make manifest.json agree with files edited by hand (as a careless operator would)."""
    mf = json.loads((out / "manifest.json").read_text())
    mf["files"] = {rel: hashlib.sha256((out / rel).read_bytes()).hexdigest()
                   for rel in mf["files"] if (out / rel).exists()}
    (out / "manifest.json").write_text(json.dumps(mf))


def exported(tmp_path: Path, header: dict[str, Any], n: int = 4) -> tuple[Path, Path]:
    src = tmp_path / "live.sqlite3"
    seed(src, header, n)
    s = open_store(src)
    export_store(s, tmp_path / "export")
    s.close()
    return src, tmp_path / "export"


def test_import_of_an_export_whose_last_match_is_broken_writes_nothing_and_can_be_retried(
        tmp_path: Path, header: dict[str, Any]) -> None:
    src, out = exported(tmp_path, header)
    last = out / "matches" / "m3.json"
    good = last.read_text()
    last.write_text(good.replace('"team": "A"', '"team": "Z"'))
    rehash(out)
    new = tmp_path / "new.sqlite3"
    p = chukker("import", str(out), "--db", str(new), cwd=tmp_path)
    assert p.returncode == 2 and "m3.json" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1
    assert not new.exists()  # nothing behind
    last.write_text(good)
    rehash(out)
    p = chukker("import", str(out), "--db", str(new), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert dump(new) == dump(src)


@pytest.mark.parametrize("existing", [True, False], ids=["into-an-empty-database",
                                                           "into-a-new-file"])
def test_import_killed_mid_transaction_leaves_nothing_and_the_retry_restores_all(
        tmp_path: Path, header: dict[str, Any], existing: bool) -> None:
    src, out = exported(tmp_path, header, n=6)
    new = tmp_path / "new.sqlite3"
    if existing:
        open_store(new).close()  # an existing, empty database: the import is one transaction
    kill = textwrap.dedent("""
        import os, signal, sys
        from chukker.store import backup
        plan = backup.plan_import
        class Bomb(list):
            def __iter__(self):
                os.kill(os.getpid(), signal.SIGKILL)  # kill -9 with 3 matches written
                return super().__iter__()
        def planned(*a, **k):
            p = plan(*a, **k)
            p.batch[3] = backup.MatchImport(p.batch[3].row, Bomb(p.batch[3].events),
                                            p.batch[3].horns)
            return p
        backup.plan_import = planned
        from chukker.cli import main
        sys.argv = ["chukker", *sys.argv[1:]]
        main()
    """)
    p = chukker("import", str(out), "--db", str(new), cwd=tmp_path, code=kill)
    assert p.returncode == -9, (p.returncode, p.stderr)
    if existing:
        assert dump(new) == []
    else:
        assert not new.exists()  # a new database is renamed into place only once complete
    p = chukker("import", str(out), "--db", str(new), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert dump(new) == dump(src)
    assert sorted(x.name for x in tmp_path.iterdir() if x.name.startswith("new")) == [
        "new.sqlite3"]  # nothing of the killed attempt is left beside it


def test_import_refuses_ids_the_api_refuses_naming_the_file(tmp_path: Path,
                                                            header: dict[str, Any]) -> None:
    _, out = exported(tmp_path, header, n=2)
    bad = "x y<b>"
    for suffix in (".json", ".store.json"):
        (out / "matches" / f"m1{suffix}").rename(out / "matches" / f"{bad}{suffix}")
    meta = json.loads((out / "matches" / f"{bad}.store.json").read_text())
    meta["id"] = bad
    (out / "matches" / f"{bad}.store.json").write_text(json.dumps(meta))
    mf = json.loads((out / "manifest.json").read_text())
    mf["matches"] = ["m0", bad]
    mf["files"] = {k.replace("m1", bad): v for k, v in mf["files"].items()}
    (out / "manifest.json").write_text(json.dumps(mf))
    rehash(out)
    new = tmp_path / "new.sqlite3"
    p = chukker("import", str(out), "--db", str(new), cwd=tmp_path)
    assert p.returncode == 2 and "manifest.json" in p.stderr and "x y<b>" in p.stderr, p.stderr
    assert "not a match id" in p.stderr and not new.exists()


def test_readme_export_and_import_as_written_is_a_no_op_that_says_so(
        tmp_path: Path, header: dict[str, Any]) -> None:
    seed(tmp_path / "chukker.sqlite3", header)
    (tmp_path / "chukker-tournaments").mkdir()
    (tmp_path / "chukker-tournaments" / "fall.json").write_text('{"id": "fall"}\n')
    before = dump(tmp_path / "chukker.sqlite3")
    p = subprocess.run("chukker export DIR && chukker import DIR", shell=True, cwd=tmp_path,
                       capture_output=True, text=True, timeout=120, check=False,
                       env={**{k: v for k, v in os.environ.items()
                               if not k.startswith("CHUKKER_")},
                            "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
                            "PYTHONPATH": str(ROOT / "src")})
    assert p.returncode == 0, p.stderr
    assert "exported 4 matches (12 events) and 0 tournaments" in p.stdout  # fall.json: not one
    assert "nothing to import" in p.stdout
    assert dump(tmp_path / "chukker.sqlite3") == before


def test_import_into_a_new_database_restores_matches_and_tournaments(
        tmp_path: Path, header: dict[str, Any]) -> None:
    src, _ = exported(tmp_path, header, n=2)
    live = tmp_path / "live"
    live.mkdir()
    shutil.move(src, live / "chukker.sqlite3")
    p = chukker("export", str(tmp_path / "x"), cwd=live)
    assert p.returncode == 0, p.stderr
    restored = tmp_path / "restored"  # a new machine's data folder: made by the import
    p = chukker("import", str(tmp_path / "x"), cwd=tmp_path,
                env={"CHUKKER_DATA_DIR": str(restored)})
    assert p.returncode == 0, p.stderr
    assert "imported 2 matches (6 events), 0 tournaments" in p.stdout
    assert dump(restored / "chukker.sqlite3") == dump(live / "chukker.sqlite3")
    # (tournaments: tests/ops/test_tournament_export.py) beside the live one
    p = chukker("import", str(tmp_path / "x"), "--db", "new.sqlite3", cwd=live)
    assert p.returncode == 0, p.stderr
    assert dump(live / "new.sqlite3") == dump(live / "chukker.sqlite3")


def test_import_refuses_a_conflicting_match_or_tournament_and_writes_nothing(
        tmp_path: Path, header: dict[str, Any]) -> None:
    _, out = exported(tmp_path, header, n=3)
    other = tmp_path / "other.sqlite3"
    s = open_store(other)
    s.create_match("m1", header, 1, "t1", "c1")
    s.append("m1", StoredEvent(1, "zz", {"type": "bowl_in", "at": 0.0}, 1, "timekeeper"), 1)
    s.close()
    before = dump(other)
    p = chukker("import", str(out), "--db", str(other), cwd=tmp_path)
    assert p.returncode == 2 and "match m1" in p.stderr and "event 1 differs" in p.stderr
    assert dump(other) == before
    # another match's secrets under the same id
    s = open_store(tmp_path / "third.sqlite3")
    s.create_match("m2", header, 1, "other", "secrets")
    s.close()
    p = chukker("import", str(out), "--db", str(tmp_path / "third.sqlite3"), cwd=tmp_path)
    assert p.returncode == 2 and "match m2" in p.stderr
    # a file in tournaments/ that the manifest does not name as a tournament
    (out / "tournaments" / "t.json").write_text('{"id": "t"}')
    rehash_with = json.loads((out / "manifest.json").read_text())
    rehash_with["files"]["tournaments/t.json"] = ""
    (out / "manifest.json").write_text(json.dumps(rehash_with))
    rehash(out)
    p = chukker("import", str(out), "--db", str(tmp_path / "fourth.sqlite3"), cwd=tmp_path)
    assert p.returncode == 2 and "tournaments/t.json: not a tournament" in p.stderr, p.stderr
    assert not (tmp_path / "fourth.sqlite3").exists()


def test_import_adds_the_events_a_database_is_missing(tmp_path: Path,
                                                      header: dict[str, Any]) -> None:
    src, out = exported(tmp_path, header, n=2)
    behind = tmp_path / "behind.sqlite3"
    seed(behind, header, n=2, events=1)
    info = None
    s = open_store(behind)
    try:
        info = import_store(s, out)
    finally:
        s.close()
    assert info.events == 4  # two events of each match
    assert dump(behind) == dump(src)


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgresql",
                                                                marks=pytest.mark.postgres)])
def test_store_import_is_one_transaction_on_every_backend(
        tmp_path: Path, header: dict[str, Any], request: Any, backend: str) -> None:
    if backend == "sqlite":
        s = open_store(tmp_path / "t.sqlite3")
    else:
        s = open_store(request.getfixturevalue("pg_url"),
                       pg_schema=request.getfixturevalue("pg_schema"))
    try:
        row = MatchRow("a", header, 1, 5, "t", "c")
        dup = StoredEvent(1, "x", {"type": "bowl_in", "at": 0.0}, 1, "timekeeper")
        batch = [MatchImport(row, [dup], []),
                 MatchImport(MatchRow("b", header, 2, 5, "t", "c"), [dup, dup], [])]
        with pytest.raises(Exception):  # noqa: B017 - the backend's own integrity error
            s.import_matches(batch)
        assert s.list_matches(10) == []
    finally:
        s.close()


def test_backup_never_overwrites_by_surprise(tmp_path: Path, header: dict[str, Any]) -> None:
    db = tmp_path / "live.sqlite3"
    seed(db, header, n=1)
    copy = tmp_path / "copy.sqlite3"
    copy.write_text("keep me")
    p = chukker("backup", str(copy), "--db", str(db), cwd=tmp_path)
    assert p.returncode == 2 and "exists" in p.stderr and "--force" in p.stderr
    assert copy.read_text() == "keep me"
    p = chukker("backup", str(copy), "--db", str(db), "--force", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert dump(copy) == dump(db)
    p = chukker("backup", str(tmp_path / "fresh.sqlite3"), "--db", str(db), cwd=tmp_path)
    assert p.returncode == 0 and dump(tmp_path / "fresh.sqlite3") == dump(db)


@pytest.mark.parametrize("target", ["/proc/self/mem", "/dev/null", "{tmp}", "/proc/self/x.db"])
@pytest.mark.parametrize("force", [False, True])
def test_backup_to_a_special_or_unwritable_target_is_a_clear_refusal(
        tmp_path: Path, header: dict[str, Any], target: str, force: bool) -> None:
    db = tmp_path / "live.sqlite3"
    seed(db, header, n=1)
    args = ["backup", target.format(tmp=tmp_path), "--db", str(db)] + (["--force"] if force
                                                                       else [])
    p = chukker(*args, cwd=tmp_path)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stderr.startswith("chukker: ") and len(p.stderr.strip().splitlines()) == 1


def test_import_of_a_folder_that_is_not_an_export_names_it(tmp_path: Path) -> None:
    p = chukker("import", str(tmp_path / "nope"), "--db", str(tmp_path / "n.sqlite3"),
                cwd=tmp_path)
    assert p.returncode == 2 and "nope" in p.stderr and not (tmp_path / "n.sqlite3").exists()
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    p = chukker("import", str(tmp_path / "deep"), "--db", str(tmp_path / "n.sqlite3"),
                cwd=tmp_path)
    assert p.returncode == 2 and "manifest.json" in p.stderr, p.stderr


def test_store_import_refuses_an_export_changed_after_the_check(tmp_path: Path,
                                                                 header: dict[str, Any]) -> None:
    _, out = exported(tmp_path, header, n=1)
    (out / "matches" / "m0.store.json").write_text("{}")
    s = open_store(tmp_path / "n.sqlite3")
    try:
        with pytest.raises(StoreError, match="SHA-256"):
            import_store(s, out)
        assert s.list_matches(1) == []
    finally:
        s.close()


@pytest.mark.parametrize("rel", ["../outside.json", "/etc/passwd", "matches/../../outside.json",
                                 "link.json"])
def test_import_reads_only_files_inside_the_export(tmp_path: Path, header: dict[str, Any],
                                                   rel: str) -> None:
    _, out = exported(tmp_path, header, n=1)
    (tmp_path / "outside.json").write_text("{}")
    (out / "link.json").symlink_to(tmp_path / "outside.json")
    mf = json.loads((out / "manifest.json").read_text())
    mf["files"][rel] = hashlib.sha256(b"{}").hexdigest()
    (out / "manifest.json").write_text(json.dumps(mf))
    p = chukker("import", str(out), "--db", str(tmp_path / "n.sqlite3"), cwd=tmp_path)
    assert p.returncode == 2 and "manifest.json" in p.stderr, p.stderr
    assert not (tmp_path / "n.sqlite3").exists()


def test_import_is_idempotent_and_completes_any_prefix_the_database_holds(
        header: dict[str, Any]) -> None:
    """For any match and any prefix of it already stored, importing the export gives the
    whole match, and importing it again changes nothing (a property, by Hypothesis)."""
    import tempfile

    from hypothesis import given, settings
    from hypothesis import strategies as st

    @settings(max_examples=15, deadline=None)
    @given(n=st.integers(1, 12), data=st.data())
    def prop(n: int, data: Any) -> None:
        k = data.draw(st.integers(0, n), label="stored already")
        kinds = [("bowl_in" if i % 2 else "whistle") for i in range(1, n + 1)]
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            src = open_store(root / "src.sqlite3")
            src.create_match("m", header, 1, "t", "c")
            for i, kind in enumerate(kinds, start=1):
                src.append("m", StoredEvent(i, f"c{i}", {"type": kind, "at": float(i)}, i,
                                            "timekeeper"), 1)
            export_store(src, root / "x")
            want = dump(root / "src.sqlite3")
            src.close()
            dst = open_store(root / "dst.sqlite3")
            try:
                if k:
                    dst.create_match("m", header, 1, "t", "c")
                    for i in range(1, k + 1):
                        dst.append("m", StoredEvent(i, f"c{i}", {"type": kinds[i - 1],
                                                                 "at": float(i)}, i,
                                                    "timekeeper"), 1)
                first = import_store(dst, root / "x")
                assert first.events == n - k
                again = import_store(dst, root / "x")
                assert (again.matches, again.events) == (0, 0)
            finally:
                dst.close()
            got = dump(root / "dst.sqlite3")
            assert [(r.id, r.header, r.timekeeper_hash) for r, _, _ in got] == [
                (r.id, r.header, r.timekeeper_hash) for r, _, _ in want]
            assert [e for _, e, _ in got] == [e for _, e, _ in want]

    prop()
