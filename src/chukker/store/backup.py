"""Backups, exports and imports of an event store.

* :func:`backup_sqlite` copies a live SQLite database with SQLite's online
  backup API: a consistent snapshot while the server keeps appending (WAL
  readers do not block writers). For PostgreSQL, ``pg_dump`` does the same
  (:data:`PG_DUMP_HINT`).
* :func:`export_store` writes every match as a replayable record
  (``matches/<id>.json``, the match record format) beside what only the store
  knows (``matches/<id>.store.json``: token hashes, command ids, arrival
  times, actors, the horns sounded), every tournament's event log
  (``tournaments/<id>.json``, :data:`TOURNAMENT_LOG`), and ``manifest.json``
  with a SHA-256 of each file.
* :func:`import_store` loads such a folder into a store,
  checking the hashes and ids and replaying every match with the engine before
  writing anything; matches and tournaments the store already holds as they
  are change nothing, a conflicting one refuses the whole import
  (:func:`plan_import`, :func:`plan_tournaments`).

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

from chukker.store.base import (
    Backend,
    EventStore,
    HornRow,
    MatchImport,
    MatchRow,
    StoredEvent,
    StoreError,
    TournamentEvent,
    UnknownMatch,
    verify_match_id,
)

#: an export's format: ``/2`` carries each tournament's event log (``/1``, read too,
#: carried the files of the ``tournaments_dir`` folder)
FORMAT = "chukker-export/2"
READS = (FORMAT, "chukker-export/1")
#: the format of a tournament's file in an export: its id and its events, in order
TOURNAMENT_LOG = "chukker-tournament-log/1"
TOURNAMENTS = "tournaments"
ALL = 10**9

PG_DUMP_HINT = (
    "PostgreSQL: back up with pg_dump (every match and tournament; consistent while "
    "serving), as printed:\n"
    "  pg_dump --format=custom --schema={schema} --file=chukker.dump {url}\n"
    "restore into the same database with:\n"
    "  pg_restore --clean --if-exists --no-owner --dbname={url} chukker.dump"
)


def pg_dump_hint(url: str, schema: str) -> str:
    """:data:`PG_DUMP_HINT` for the database ``url``, runnable as printed: the URL with
    its scheme, user, host, port, database and options, only its password left out
    (``pg_dump`` reads ``$PGPASSWORD`` or ``~/.pgpass``), each word quoted for the shell.

    >>> hint = pg_dump_hint("postgresql://chukker:s3cret@db:5433/c", "chukker").splitlines()
    >>> print(hint[1])
      pg_dump --format=custom --schema=chukker --file=chukker.dump postgresql://chukker@db:5433/c
    >>> hint[-1]
    '(the password: $PGPASSWORD or ~/.pgpass)'

    """
    import re
    import shlex

    bare = re.sub(r"^([a-z]+://[^:/@]+):[^@]*@", r"\1@", url)
    hint = PG_DUMP_HINT.format(schema=shlex.quote(schema), url=shlex.quote(bare))
    if bare != url:
        hint += "\n(the password: $PGPASSWORD or ~/.pgpass)"
    return hint


@dataclass(frozen=True, slots=True)
class BackupInfo:
    path: str
    matches: int
    events: int
    bytes: int
    tournaments: int = 0


def _count(db: sqlite3.Connection) -> tuple[int, int, int]:
    m = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    e = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    try:
        t = db.execute("SELECT COUNT(*) FROM tournaments").fetchone()[0]
    except sqlite3.OperationalError:  # a database of a version before tournaments were stored
        t = 0
    return int(m), int(e), int(t)


def verify_backup_target(dest: str | Path, overwrite: bool = False) -> Path:
    """Raise :class:`StoreError` unless a backup may be written to ``dest``: an
    existing file only with ``overwrite``, and never anything but a regular file
    (``/proc/self/mem``, a device, a folder)."""
    p = Path(dest)
    try:
        st = p.stat()
    except FileNotFoundError:
        return p
    except OSError as e:
        raise StoreError(f"cannot write the backup to {p}: {e.strerror or e}") from None
    import stat

    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise StoreError(f"cannot write the backup to {p}: it is {kind}")
    if not overwrite:
        raise StoreError(f"{p} exists; not overwritten (add --force to replace it)")
    return p


def backup_sqlite(source: EventStore | str | Path, dest: str | Path,
                  pages_per_step: int = 256, *, overwrite: bool = True) -> BackupInfo:
    """Copy a SQLite store (open or by path) to ``dest``, consistently, while it is in use.

    Written to a temporary file beside ``dest`` first, checked (``PRAGMA
    integrity_check``), then renamed over ``dest``: a failed backup leaves no
    half-written file. Without ``overwrite`` an existing ``dest`` is refused
    (also if it appears while the copy is made); a ``dest`` that is not a
    regular file is always refused. Every failure is a :class:`StoreError`.
    """
    if isinstance(source, str | Path):
        src_path = str(source)
    else:
        if source.backend is not Backend.SQLITE:
            raise StoreError("not a SQLite store; " + PG_DUMP_HINT.format(
                schema=getattr(source, "schema", "chukker"), url="postgresql://USER@HOST/DB"))
        src_path = str(getattr(source, "path"))  # noqa: B009 - SQLiteStore.path
    if not os.path.isfile(src_path):
        raise StoreError(f"no database at {src_path}")
    dest = Path(dest)
    if dest.resolve() == Path(src_path).resolve():
        raise StoreError("the backup must go to another file than the database")
    verify_backup_target(dest, overwrite)
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=dest.name + ".", suffix=".part", dir=dest.parent)
    except OSError as e:
        raise StoreError(f"cannot write the backup to {dest}: {e.strerror or e}") from None
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
                matches, events, tournaments = _count(out)
            finally:
                out.close()
        finally:
            src.close()
        if overwrite:
            os.replace(tmp, dest)
        else:
            os.link(tmp, dest)  # fails if dest appeared meanwhile: never overwritten
            os.unlink(tmp)
    except FileExistsError:
        with _suppress():
            os.unlink(tmp)
        raise StoreError(f"{dest} exists; not overwritten (add --force to replace it)") from None
    except (OSError, sqlite3.Error) as e:
        with _suppress():
            os.unlink(tmp)
        if isinstance(e, sqlite3.Error):
            raise StoreError(f"cannot back up {src_path}: {e}") from None
        raise StoreError(f"cannot write the backup to {dest}: {e.strerror or e}") from None
    except BaseException:
        with _suppress():
            os.unlink(tmp)
        raise
    return BackupInfo(str(dest), matches, events, dest.stat().st_size, tournaments)


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
    tournaments: int = 0
    #: the tournaments' events
    tournament_events: int = 0


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


def tournament_log_text(tournament_id: str, events: list[TournamentEvent]) -> str:
    """A tournament's file in an export: its id and its whole log (:data:`TOURNAMENT_LOG`).

    >>> print(tournament_log_text("t1", [TournamentEvent(1, "moved", {"match": "p1"}, 5)]))
    {"format": "chukker-tournament-log/1", "id": "t1", "events": [
    {"seq": 1, "kind": "moved", "recorded_ms": 5, "body": {"match": "p1"}}
    ]}
    """
    lines = [json.dumps({"seq": e.seq, "kind": e.kind, "recorded_ms": e.recorded_ms,
                         "body": e.body}, ensure_ascii=False) for e in events]
    head = json.dumps({"format": TOURNAMENT_LOG, "id": tournament_id})[:-1]
    return head + ', "events": [\n' + ",\n".join(lines) + "\n]}\n"


def parse_tournament_log(text: str, where: str) -> tuple[str, list[TournamentEvent]]:
    """A tournament's file of an export: its id and events, checked (numbered 1, 2, ...
    with no gap, each a kind, a body and a time); :class:`StoreError` naming ``where``.

    >>> parse_tournament_log(tournament_log_text("t1", []), "x.json")
    Traceback (most recent call last):
    ...
    chukker.store.base.StoreError: x.json: a tournament's log with no event
    """
    d = _json(text, where)
    if not isinstance(d, dict) or d.get("format") != TOURNAMENT_LOG:
        raise StoreError(f"{where}: not a tournament's log (format {TOURNAMENT_LOG})")
    tid = d.get("id")
    verify_match_id(str(tid) if isinstance(tid, str) else repr(tid), where)
    raw = d.get("events")
    if not isinstance(raw, list) or not raw:
        raise StoreError(f"{where}: a tournament's log with no event")
    out: list[TournamentEvent] = []
    for i, e in enumerate(raw, start=1):
        if not isinstance(e, dict) or e.get("seq") != i:
            raise StoreError(f"{where}: event {i} is missing or numbered otherwise")
        kind, body, ms = e.get("kind"), e.get("body"), e.get("recorded_ms")
        if not isinstance(kind, str) or not 0 < len(kind) <= 32 or not isinstance(body, dict) \
                or not isinstance(ms, int) or isinstance(ms, bool):
            raise StoreError(f"{where}: event {i} needs a kind, a body and recorded_ms")
        out.append(TournamentEvent(i, kind, body, ms))
    return str(tid), out


def export_store(store: EventStore, folder: str | Path,
                 pending: list[tuple[str, list[TournamentEvent]]] | None = None,
                 organiser_sha256: str | None = None) -> ExportInfo:
    """Write every match and tournament of ``store`` to ``folder`` (created; must be
    empty if it exists).

    ``pending``: tournaments to carry besides the store's (the logs of
    ``tournaments_dir`` files a server has not imported yet). A tournament's file
    larger than an import reads (:data:`MAX_FILE_BYTES`) is refused, naming it.
    ``organiser_sha256``: the SHA-256 of the server's organiser token, kept in the
    manifest so that an import can say whether the token changed (never the token).
    """
    from chukker.store.engine import dumps

    root = Path(folder)
    if root.exists() and any(root.iterdir()):
        raise StoreError(f"{root} is not empty; export into a new folder")
    logs: list[tuple[str, str, int]] = []  # checked before anything is written
    held = store.tournaments()
    ids = {tid for tid, _ in held}
    for tid, tevents in [(tid, store.tournament_events(tid)) for tid, _ in held] + [
            (tid, evs) for tid, evs in (pending or []) if tid not in ids]:
        text = tournament_log_text(tid, tevents)
        if len(text.encode()) > MAX_FILE_BYTES:
            raise StoreError(f"tournament {tid}: its log is larger than {MAX_FILE_BYTES} "
                             "bytes, more than an import reads; nothing exported")
        logs.append((tid, text, len(tevents)))
    (root / "matches").mkdir(parents=True, exist_ok=True)
    (root / TOURNAMENTS).mkdir(exist_ok=True)
    files: dict[str, str] = {}
    n_events = 0
    rows = sorted(all_matches(store), key=lambda r: (r.created_ms, r.id))
    archived = store.archived()
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
            "archived": row.id in archived,
        }
        sname = f"matches/{row.id}.store.json"
        files[sname] = _write(root / sname, json.dumps(meta, indent=1) + "\n")
    for tid, text, _n in logs:
        name = f"{TOURNAMENTS}/{tid}.json"
        files[name] = _write(root / name, text)
    from chukker import __version__

    manifest = {"format": FORMAT, "chukker": __version__,
                "matches": [r.id for r in rows], "tournaments": [tid for tid, _, _ in logs],
                "files": files}
    if organiser_sha256:
        manifest["organiser_token_sha256"] = organiser_sha256
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return ExportInfo(str(root), len(rows), n_events, len(files) + 1, len(logs),
                      sum(n for _, _, n in logs))


#: an export's files are match records and tournaments: larger than this is not one
MAX_FILE_BYTES = 64 << 20


@dataclass(frozen=True, slots=True)
class _Loaded:
    match_id: str
    header: dict[str, Any]
    meta: dict[str, Any]
    events: list[StoredEvent]
    horns: list[HornRow]


def _json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise StoreError(f"{where}: nested too deeply") from None
    except ValueError as e:
        raise StoreError(f"{where}: not JSON ({e})") from None


def _read_member(root: Path, rel: str) -> bytes:
    """The bytes of the export's file ``rel``, refusing anything outside the export."""
    where = f"{root}/{rel}"
    if not isinstance(rel, str) or rel.startswith("/") or "\\" in rel:
        raise StoreError(f"{root}/manifest.json: {rel!r} is not a file of the export")
    p = root / rel
    try:
        real = p.resolve()
        if root.resolve() not in real.parents:
            raise StoreError(f"{root}/manifest.json: {rel} is outside the export")
        if not real.is_file():
            raise StoreError(f"{where}: missing or not a regular file")
        if real.stat().st_size > MAX_FILE_BYTES:
            raise StoreError(f"{where}: larger than {MAX_FILE_BYTES} bytes")
        return real.read_bytes()
    except OSError as e:
        raise StoreError(f"{where}: cannot read ({e.strerror or e})") from None


@dataclass(frozen=True, slots=True)
class ExportRead:
    """An export, read and checked: its matches, its tournaments' logs, the tournament
    files of an older export (``chukker-export/1``: the files of its server's
    ``tournaments_dir``, relative path -> text), and its other files."""

    matches: list[_Loaded]
    tournaments: list[tuple[str, list[TournamentEvent]]]
    legacy: dict[str, str]
    others: dict[str, str]
    format: str
    #: the SHA-256 of the exported server's organiser token, if the export says it
    organiser_sha256: str | None = None


def read_export(folder: str | Path) -> tuple[list[_Loaded], dict[str, str]]:
    """The matches of an export and its other files (:func:`read_export_all`)."""
    r = read_export_all(folder)
    return r.matches, r.others


def read_export_all(folder: str | Path) -> ExportRead:
    """Read and check an export: hashes, ids, record format, every match replays, every
    tournament's log is numbered without a gap.

    Every problem is a :class:`StoreError` naming the file; nothing is written.
    """
    from chukker.store.engine import Match, Setup, loads

    root = Path(folder)
    if not root.is_dir():
        raise StoreError(f"{root}: no such folder (an export written by 'chukker export')")
    manifest = _json(_read_member(root, "manifest.json").decode("utf-8", "replace"),
                     f"{root}/manifest.json")
    if not isinstance(manifest, dict) or manifest.get("format") not in READS:
        raise StoreError(f"{root}/manifest.json: format is not {FORMAT}")
    files, ids = manifest.get("files", {}), manifest.get("matches", [])
    if not isinstance(files, dict) or not isinstance(ids, list):
        raise StoreError(f"{root}/manifest.json: 'files' and 'matches' are missing")
    for mid in ids:
        verify_match_id(mid, f"{root}/manifest.json")
    if len(set(ids)) != len(ids):
        raise StoreError(f"{root}/manifest.json: a match is listed twice")
    texts: dict[str, str] = {}
    for rel, digest in files.items():
        data = _read_member(root, rel)
        if _sha256(data) != digest:
            raise StoreError(f"{root}/{rel}: its SHA-256 differs from manifest.json "
                             "(changed or damaged)")
        try:
            texts[rel] = data.decode("utf-8")
        except UnicodeDecodeError:
            raise StoreError(f"{root}/{rel}: not UTF-8 text") from None
    out: list[_Loaded] = []
    for mid in ids:
        rel, srel = f"matches/{mid}.json", f"matches/{mid}.store.json"
        if rel not in texts or srel not in texts:
            raise StoreError(f"{root}/manifest.json names match {mid} but its files are missing")
        try:
            rec = loads(texts[rel], "json")
        except RecursionError:
            raise StoreError(f"{root}/{rel}: nested too deeply") from None
        except ValueError as e:
            raise StoreError(f"{root}/{rel}: {e}") from None
        meta = _json(texts[srel], f"{root}/{srel}")
        try:
            if not isinstance(meta, dict) or meta.get("id") != mid:
                raise ValueError(f"not the store file of match {mid}")
            evs = rec.get("events", [])
            metas = meta.get("events", [])
            if len(evs) != len(metas):
                raise ValueError(f"{len(metas)} events, the record has {len(evs)}")
            header = {k: v for k, v in rec.items() if k != "events"}
            m = Match(Setup.from_dict(header))
            stored = []
            for i, (ev, em) in enumerate(zip(evs, metas, strict=True), start=1):
                if int(em["seq"]) != i:
                    raise ValueError(f"event {i} is numbered {em['seq']}")
                try:
                    m.apply(ev)
                except ValueError as e:
                    raise StoreError(f"{root}/{rel}: event {i}: {e}") from None
                stored.append(StoredEvent(i, str(em["command_id"]), ev,
                                          int(em["recorded_ms"]), str(em["actor"])))
            if len({e.command_id for e in stored}) != len(stored):
                raise ValueError("a command_id is used twice")
            horns = [HornRow(int(h["at_ms"]), int(h["period"]), str(h["kind"]),
                             int(h["sounded_ms"])) for h in meta.get("horns", [])]
            int(meta["created_ms"]), str(meta["timekeeper_hash"]), str(meta["committee_hash"])
        except StoreError:
            raise
        except RecursionError:
            raise StoreError(f"{root}/{rel}: nested too deeply") from None
        except (KeyError, TypeError, ValueError) as e:
            raise StoreError(f"{root}/{srel}: {type(e).__name__}: {e}"[:300]) from None
        out.append(_Loaded(mid, header, meta, stored, horns))
    others = {k: v for k, v in texts.items() if not k.startswith("matches/")}
    logs: list[tuple[str, list[TournamentEvent]]] = []
    legacy: dict[str, str] = {}
    if manifest["format"] == FORMAT:
        tids = manifest.get("tournaments", [])
        if not isinstance(tids, list) or len(set(map(str, tids))) != len(tids):
            raise StoreError(f"{root}/manifest.json: 'tournaments' is not a list of ids")
        for tid in tids:
            verify_match_id(tid, f"{root}/manifest.json")
            rel = f"{TOURNAMENTS}/{tid}.json"
            if rel not in texts:
                raise StoreError(f"{root}/manifest.json names tournament {tid} but its file "
                                 "is missing")
            got, events = parse_tournament_log(texts[rel], f"{root}/{rel}")
            if got != tid:
                raise StoreError(f"{root}/{rel}: holds tournament {got}, not {tid}")
            logs.append((tid, events))
        stray = sorted(k for k in texts if k.startswith(TOURNAMENTS + "/")
                       and k[len(TOURNAMENTS) + 1:-5] not in set(tids))
        if stray:
            raise StoreError(f"{root}/{stray[0]}: not a tournament manifest.json names")
    else:
        legacy = {k: v for k, v in texts.items() if k.startswith(TOURNAMENTS + "/")}
    said = manifest.get("organiser_token_sha256")
    return ExportRead(out, logs, legacy, others, str(manifest["format"]),
                      said if isinstance(said, str) else None)


@dataclass(frozen=True, slots=True)
class ImportPlan:
    """What importing an export into a store would do: the writes (one transaction),
    the matches already there as they are, and those the import extends."""

    batch: list[MatchImport]
    unchanged: list[str]
    extended: list[str]

    @property
    def events(self) -> int:
        return sum(len(m.events) for m in self.batch)


def _canonical(header: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    from chukker.store.engine import dumps, loads

    return dict(loads(dumps({**header, "events": events}, "json"), "json"))


def plan_import(store: EventStore, loaded: list[_Loaded], where: str = "") -> ImportPlan:
    """Compare an export with what ``store`` holds, match by match.

    A match the store does not hold is written whole. One it holds with the same
    set-up and secrets, whose events are a prefix of the export's (or the
    export's of its own), gets the missing events, or nothing. Anything else is
    a conflict: :class:`StoreError` naming the match, and nothing is written.
    """
    batch: list[MatchImport] = []
    unchanged: list[str] = []
    extended: list[str] = []
    head = f"{where}: " if where else ""
    for m in loaded:
        meta = m.meta
        start = meta.get("start_ms")
        row = MatchRow(m.match_id, m.header, int(meta["created_ms"]),
                       int(start) if start is not None else None,
                       str(meta["timekeeper_hash"]), str(meta["committee_hash"]))
        archived_ms = row.created_ms if meta.get("archived") else None
        try:
            have = store.get_match(m.match_id)
        except UnknownMatch:
            batch.append(MatchImport(row, m.events, m.horns, archived_ms, new=True))
            continue
        if (have.timekeeper_hash, have.committee_hash) != (row.timekeeper_hash,
                                                           row.committee_hash):
            raise StoreError(f"{head}match {m.match_id}: the database holds another match "
                             "with this id (other secrets); nothing imported")
        stored = store.events(m.match_id)
        mine = _canonical(have.header, [e.event for e in stored])
        theirs = _canonical(m.header, [e.event for e in m.events])
        if {k: v for k, v in mine.items() if k != "events"} != {
                k: v for k, v in theirs.items() if k != "events"}:
            raise StoreError(f"{head}match {m.match_id}: the database holds it with another "
                             "set-up; nothing imported")
        n = min(len(stored), len(m.events))
        for i in range(n):
            a, b = stored[i], m.events[i]
            if (a.command_id, a.actor, mine["events"][i]) != (b.command_id, b.actor,
                                                               theirs["events"][i]):
                raise StoreError(f"{head}match {m.match_id}: event {i + 1} differs from the "
                                 "database's; nothing imported")
        if len(m.events) > len(stored):
            extended.append(m.match_id)
            batch.append(MatchImport(row, m.events[len(stored):], m.horns, archived_ms,
                                     new=False))
        else:
            unchanged.append(m.match_id)
    return ImportPlan(batch, unchanged, extended)


@dataclass(frozen=True, slots=True)
class TournamentPlan:
    """What importing tournaments' logs would write (one transaction): each
    tournament's events after those stored; those already there as they are; those
    the import extends."""

    batch: list[tuple[str, list[TournamentEvent]]]
    unchanged: list[str]
    extended: list[str]

    @property
    def events(self) -> int:
        return sum(len(evs) for _, evs in self.batch)


def _same_event(a: TournamentEvent, b: TournamentEvent) -> bool:
    def canon(e: TournamentEvent) -> tuple[int, str, str, int]:
        return e.seq, e.kind, json.dumps(e.body, sort_keys=True), e.recorded_ms

    return canon(a) == canon(b)


def plan_tournaments(store: EventStore, logs: list[tuple[str, list[TournamentEvent]]],
                     where: str = "") -> TournamentPlan:
    """Compare tournaments' logs with what ``store`` holds: a tournament it does not
    hold is written whole; one whose stored events are the same as the log's first
    ones gets the rest (or nothing); any other is a conflict, :class:`StoreError`
    naming the tournament and its first differing event, and nothing is written."""
    head = f"{where}: " if where else ""
    batch: list[tuple[str, list[TournamentEvent]]] = []
    unchanged: list[str] = []
    extended: list[str] = []
    for tid, events in logs:
        stored = store.tournament_events(tid)
        for a, b in zip(stored, events, strict=False):
            if not _same_event(a, b):
                raise StoreError(f"{head}tournament {tid}: event {a.seq} differs from the "
                                 "database's; nothing imported")
        if len(events) <= len(stored):
            unchanged.append(tid)
            continue
        if stored:
            extended.append(tid)
        batch.append((tid, events[len(stored):]))
    return TournamentPlan(batch, unchanged, extended)


def import_store(store: EventStore, folder: str | Path) -> ExportInfo:
    """Load an export into ``store`` (see :func:`plan_import` and
    :func:`plan_tournaments`): everything is checked before anything is written; the
    matches in one transaction, then the tournaments in one; importing it again
    changes nothing. (An older export's tournament files are left to ``chukker
    import``, which reads them as a server's first start does.)"""
    r = read_export_all(folder)
    plan = plan_import(store, r.matches, str(folder))
    tplan = plan_tournaments(store, r.tournaments, str(folder))
    if plan.batch:
        store.import_matches(plan.batch)
    if tplan.batch:
        store.import_tournaments(tplan.batch)
    return ExportInfo(str(folder), len(plan.batch), plan.events, len(r.others),
                      len(tplan.batch), tplan.events)
