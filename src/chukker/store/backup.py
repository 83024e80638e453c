"""Backups, exports and imports of an event store.

* :func:`backup_sqlite` copies a live SQLite database with SQLite's online
  backup API: a consistent snapshot while the server keeps appending (WAL
  readers do not block writers). For PostgreSQL, ``pg_dump`` does the same
  (:data:`PG_DUMP_HINT`).
* :func:`export_store` writes every match as a replayable record
  (``matches/<id>.json``, the match record format) beside what only the store
  knows (``matches/<id>.store.json``: token hashes, command ids, arrival
  times, actors, the horns sounded), and ``manifest.json`` with a SHA-256 of
  each file.
* :func:`import_store` loads such a folder into an empty store, checking the
  hashes and replaying every match with the engine before writing anything.

>>> import tempfile, os
>>> from chukker.store import open_store, StoredEvent
>>> d = tempfile.mkdtemp()
>>> s = open_store(os.path.join(d, "a.sqlite3"))
>>> _ = s.create_match("m1", {"format": "chukker-match/1"}, 1000, "h1", "h2")
>>> backup_sqlite(s, os.path.join(d, "b.sqlite3")).matches
1
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chukker.store.base import Backend, EventStore, HornRow, MatchRow, StoredEvent, StoreError

FORMAT = "chukker-export/1"
ALL = 10**9

PG_DUMP_HINT = (
    "PostgreSQL: back up with pg_dump, e.g. "
    "pg_dump --format=custom --schema={schema} --file=chukker.dump '{url}'; "
    "restore with pg_restore --clean --if-exists --dbname='{url}' chukker.dump"
)


@dataclass(frozen=True, slots=True)
class BackupInfo:
    path: str
    matches: int
    events: int
    bytes: int


def _count(db: sqlite3.Connection) -> tuple[int, int]:
    m = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    e = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    return int(m), int(e)


def backup_sqlite(source: EventStore | str | Path, dest: str | Path,
                  pages_per_step: int = 256) -> BackupInfo:
    """Copy a SQLite store (open or by path) to ``dest``, consistently, while it is in use.

    Written to a temporary file beside ``dest`` first, checked (``PRAGMA
    integrity_check``), then renamed over ``dest``: a failed backup leaves no
    half-written file.
    """
    if isinstance(source, str | Path):
        src_path = str(source)
    else:
        if source.backend is not Backend.SQLITE:
            raise StoreError("not a SQLite store; " + PG_DUMP_HINT.format(
                schema=getattr(source, "schema", "chukker"), url="postgresql://..."))
        src_path = str(getattr(source, "path"))  # noqa: B009 - SQLiteStore.path
    if not os.path.exists(src_path):
        raise StoreError(f"no database at {src_path}")
    dest = Path(dest)
    if dest.resolve() == Path(src_path).resolve():
        raise StoreError("the backup must go to another file than the database")
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=dest.name + ".", suffix=".part", dir=dest.parent)
    os.close(fd)
    try:
        src = sqlite3.connect(f"file:{src_path}?mode=ro", uri=True, timeout=30.0)
        try:
            out = sqlite3.connect(tmp)
            try:
                # steps of a few pages; a writer in between makes SQLite restart the copy
                src.backup(out, pages=pages_per_step)
                out.execute("PRAGMA journal_mode=DELETE")
                ok = out.execute("PRAGMA integrity_check").fetchone()[0]
                if ok != "ok":  # pragma: no cover - a disk problem
                    raise StoreError(f"the copy fails its integrity check: {ok}")
                matches, events = _count(out)
            finally:
                out.close()
        finally:
            src.close()
        os.replace(tmp, dest)
    except BaseException:
        with _suppress():
            os.unlink(tmp)
        raise
    return BackupInfo(str(dest), matches, events, dest.stat().st_size)


class _suppress:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return True


# ------------------------------------------------------------------ export

def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write(path: Path, text: str) -> str:
    data = text.encode()
    path.write_bytes(data)
    return _sha256(data)


@dataclass(frozen=True, slots=True)
class ExportInfo:
    folder: str
    matches: int
    events: int
    files: int


def all_matches(store: EventStore, page: int = 500) -> list[MatchRow]:
    """Every match of ``store``, read page by page (newest first)."""
    out: list[MatchRow] = []
    before: tuple[int, str] | None = None
    while True:
        rows = store.list_matches(page, before=before)
        out.extend(rows)
        if len(rows) < page:
            return out
        before = (rows[-1].created_ms, rows[-1].id)


def match_record(header: dict[str, Any], events: list[StoredEvent]) -> dict[str, Any]:
    """The replayable match record of a stored match."""
    rec = {k: v for k, v in header.items() if k != "events"}
    rec["events"] = [dict(e.event) for e in events]
    return rec


def export_store(store: EventStore, folder: str | Path,
                 extra: dict[str, str] | None = None) -> ExportInfo:
    """Write every match of ``store`` to ``folder`` (created; must be empty if it exists).

    ``extra``: more files to write (relative path -> text), e.g. tournaments.
    """
    from chukker.store._engine import dumps

    root = Path(folder)
    if root.exists() and any(root.iterdir()):
        raise StoreError(f"{root} is not empty; export into a new folder")
    (root / "matches").mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    n_events = 0
    rows = sorted(all_matches(store), key=lambda r: (r.created_ms, r.id))
    for row in rows:
        events = store.events(row.id)
        n_events += len(events)
        rec = match_record(row.header, events)
        name = f"matches/{row.id}.json"
        files[name] = _write(root / name, dumps(rec, "json"))
        meta = {
            "id": row.id,
            "created_ms": row.created_ms,
            "start_ms": row.start_ms,
            "timekeeper_hash": row.timekeeper_hash,
            "committee_hash": row.committee_hash,
            "events": [{"seq": e.seq, "command_id": e.command_id,
                        "recorded_ms": e.recorded_ms, "actor": e.actor} for e in events],
            "horns": [{"at_ms": h.at_ms, "period": h.period, "kind": h.kind,
                       "sounded_ms": h.sounded_ms} for h in store.horns(row.id)],
        }
        sname = f"matches/{row.id}.store.json"
        files[sname] = _write(root / sname, json.dumps(meta, indent=1) + "\n")
    for rel, text in (extra or {}).items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        files[rel] = _write(p, text)
    from chukker import __version__

    manifest = {"format": FORMAT, "chukker": __version__,
                "matches": [r.id for r in rows], "files": files}
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return ExportInfo(str(root), len(rows), n_events, len(files) + 1)


@dataclass(frozen=True, slots=True)
class _Loaded:
    match_id: str
    header: dict[str, Any]
    meta: dict[str, Any]
    events: list[StoredEvent]
    horns: list[HornRow]


def read_export(folder: str | Path) -> tuple[list[_Loaded], dict[str, str]]:
    """Read and check an export: hashes, record format, every match replays.

    Returns the matches and the other files (relative path -> text).
    """
    from chukker.store._engine import Match, Setup, loads

    root = Path(folder)
    try:
        manifest = json.loads((root / "manifest.json").read_text())
    except (OSError, ValueError) as e:
        raise StoreError(f"{root}: no readable manifest.json ({e})") from None
    if manifest.get("format") != FORMAT:
        raise StoreError(f"{root}/manifest.json: format is not {FORMAT}")
    texts: dict[str, str] = {}
    for rel, digest in manifest.get("files", {}).items():
        p = (root / rel).resolve()
        if root.resolve() not in p.parents:
            raise StoreError(f"manifest.json: {rel} is outside the export")
        data = p.read_bytes()
        if _sha256(data) != digest:
            raise StoreError(f"{rel}: its SHA-256 differs from manifest.json (changed or damaged)")
        texts[rel] = data.decode()
    out: list[_Loaded] = []
    for mid in manifest.get("matches", []):
        rel, srel = f"matches/{mid}.json", f"matches/{mid}.store.json"
        if rel not in texts or srel not in texts:
            raise StoreError(f"manifest.json names match {mid} but its files are missing")
        try:
            rec = loads(texts[rel], "json")
        except ValueError as e:
            raise StoreError(f"{rel}: {e}") from None
        meta = json.loads(texts[srel])
        evs = rec.get("events", [])
        metas = meta.get("events", [])
        if len(evs) != len(metas):
            raise StoreError(f"{srel}: {len(metas)} events, the record has {len(evs)}")
        header = {k: v for k, v in rec.items() if k != "events"}
        m = Match(Setup.from_dict(header))
        stored = []
        for ev, em in zip(evs, metas, strict=True):
            try:
                m.apply(ev)
            except ValueError as e:
                raise StoreError(f"{rel}: event {em.get('seq')}: {e}") from None
            stored.append(StoredEvent(int(em["seq"]), str(em["command_id"]), ev,
                                      int(em["recorded_ms"]), str(em["actor"])))
        horns = [HornRow(int(h["at_ms"]), int(h["period"]), str(h["kind"]), int(h["sounded_ms"]))
                 for h in meta.get("horns", [])]
        out.append(_Loaded(mid, header, meta, stored, horns))
    others = {k: v for k, v in texts.items() if not k.startswith("matches/")}
    return out, others


def import_store(store: EventStore, folder: str | Path) -> ExportInfo:
    """Load an export into ``store``, which must hold no match yet."""
    if store.list_matches(1):
        raise StoreError("the database already holds matches; import into an empty one")
    loaded, others = read_export(folder)
    n_events = 0
    for m in loaded:
        meta = m.meta
        store.create_match(m.match_id, m.header, int(meta["created_ms"]),
                           str(meta["timekeeper_hash"]), str(meta["committee_hash"]))
        start = meta.get("start_ms")
        for e in m.events:
            store.append(m.match_id, e, int(start) if start is not None else e.recorded_ms)
        for h in m.horns:
            store.record_horn(m.match_id, h)
        n_events += len(m.events)
    return ExportInfo(str(folder), len(loaded), n_events, len(others))
