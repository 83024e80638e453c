"""Operator commands: ``chukker config``, ``backup``, ``export`` and ``import``."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from chukker.config import ConfigError, Settings, describe, load

ConfigOpt = Annotated[Path | None, typer.Option(
    "--config", help="Settings file (TOML); default $CHUKKER_CONFIG.", show_default=False)]
DbOpt = Annotated[str | None, typer.Option(
    "--db", help="SQLite file or postgresql:// URL (default: the 'database' setting, "
    "$CHUKKER_DATABASE).", show_default=False)]

TOURNAMENTS = "tournaments"
#: where a server without the ``organiser_token`` setting keeps its token: beside the
#: SQLite file (as ``chukker serve`` does; PostgreSQL servers need the setting)
ORGANISER_SUFFIX = ".organiser-token"


def _fail(msg: str, code: int = 2) -> NoReturn:
    sys.stderr.write(f"chukker: {msg}\n")
    raise typer.Exit(code)


def settings_or_exit(config: Path | None = None, **overrides: object) -> Settings:
    """The settings in force, or a one-line error naming the bad key and exit 2."""
    try:
        return load(file=config if config is not None else True, overrides=overrides)
    except ConfigError as e:
        _fail(f"bad setting {e}")


def config_cmd(config: ConfigOpt = None) -> None:
    """Print the settings in force (as TOML) and where each came from, and how many
    tournament files of ``tournaments_dir`` are in the database (imported) and not."""
    s = settings_or_exit(config)
    typer.echo(describe(s), nl=False)
    for line in folder_report(s):
        typer.echo("# " + line)


def backup_cmd(
    file: Annotated[Path, typer.Argument(help="Where to write the copy (a new file).")],
    force: Annotated[bool, typer.Option(
        "--force", help="Replace FILE if it exists (a regular file only).")] = False,
    config: ConfigOpt = None,
    db: DbOpt = None,
) -> None:
    """A consistent copy of the SQLite database (every match and tournament), safe while
    the server runs; for PostgreSQL it prints the pg_dump command to run."""
    from chukker.store import StoreError, is_postgres_url
    from chukker.store.backup import backup_sqlite, pg_dump_hint

    s = settings_or_exit(config, database=db)
    target = s.database_target()
    if is_postgres_url(target):
        _fail(pg_dump_hint(target, s.database_schema), code=3)
    if target.startswith("sqlite:///"):
        target = target[len("sqlite:///"):]
    try:
        info = backup_sqlite(target, file, overwrite=force)
    except StoreError as e:
        _fail(str(e))
    typer.echo(f"chukker: backup of {target} written to {info.path} "
               f"({info.matches} matches, {info.tournaments} tournaments, {info.events} "
               f"events, {info.bytes} bytes)")
    token, where = organiser_token(s, target)
    if token is not None and where.endswith(ORGANISER_SUFFIX):
        typer.echo(f"chukker: the organiser token is in {where}, not in the backup: keep a "
                   "copy of it with the backup, or a server restored from it makes a new one")


def export_cmd(
    folder: Annotated[Path, typer.Argument(help="New (or empty) folder to write into.")],
    config: ConfigOpt = None,
    db: DbOpt = None,
) -> None:
    """Write every match record and every tournament's log to a folder."""
    import hashlib

    from chukker.store import StoreError
    from chukker.store.backup import export_store

    s = settings_or_exit(config, database=db)
    store = _open_or_exit(s, create=False)
    try:
        pending, _skipped = folder_logs(store, Path(s.tournaments_target()))
        token, _ = organiser_token(s, s.database_target())
        digest = hashlib.sha256(token.encode()).hexdigest() if token else None
        info = export_store(store, folder, pending, digest)
    except StoreError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot write to {folder}: {e.strerror or e}")
    finally:
        store.close()
    held = info.tournaments - len(pending)
    tail = (f" ({len(pending)} of them files of tournaments_dir no server has imported yet)"
            if pending and held < info.tournaments else "")
    typer.echo(f"chukker: exported {info.matches} matches ({info.events} events) and "
               f"{info.tournaments} tournaments ({info.tournament_events} events){tail} "
               f"to {info.folder}")


def _open_or_exit(s: Settings, *, create: bool) -> Any:
    """The store of the settings, or one line and exit 2 (never a new empty SQLite file
    unless ``create``)."""
    from chukker.store import is_postgres_url, open_store

    target = s.database_target()
    path = target[len("sqlite:///"):] if target.startswith("sqlite:///") else target
    if not create and not is_postgres_url(target) and not os.path.isfile(path):
        _fail(f"no database at {path}")
    try:
        return open_store(target, pg_schema=s.database_schema)
    except Exception as e:  # noqa: BLE001 - any driver's error: one line, never a trace
        _fail(f"cannot open the database {_shown(target)}: {e}")


def _shown(target: str) -> str:
    """A database target without its password."""
    return target.split("@")[-1] if "://" in target and "@" in target else target


def import_cmd(
    folder: Annotated[Path, typer.Argument(help="A folder written by 'chukker export'.")],
    config: ConfigOpt = None,
    db: DbOpt = None,
) -> None:
    """Load an export: its matches and tournaments, all of it or nothing.

    Matches and tournaments the database already holds as they are (same set-up,
    secrets and events) are left as they are, so importing the same export again is
    a no-op; one it holds differently is refused, naming it, and nothing is written.
    An older export's tournament files are imported as a server's first start
    imports them from ``tournaments_dir``. It says whether the organiser token
    changed, and how to keep the old one.
    """
    from chukker.store import StoreError
    from chukker.store.backup import read_export_all

    s = settings_or_exit(config, database=db)
    try:
        export = read_export_all(folder)  # check everything before opening the database
        check_folds(export.tournaments, folder)
    except StoreError as e:
        _fail(str(e))
    target = s.database_target()
    done = _import_into(s, export, folder)
    where = _shown(target)
    plan, tplan = done.plan, done.tplan
    if not plan.batch and not tplan.batch:
        typer.echo(f"chukker: nothing to import: {where} already holds the "
                   f"{len(export.matches)} matches and {len(tplan.unchanged)} tournaments "
                   f"of {folder} as they are")
    else:
        added = len(plan.batch) - len(plan.extended)
        parts = [f"imported {added} matches ({plan.events} events)"]
        if plan.extended:
            parts.append(f"the later events of {len(plan.extended)} more")
        t_added = len(tplan.batch) - len(tplan.extended)
        parts.append(f"{t_added} tournaments ({tplan.events} events)")
        if tplan.extended:
            parts.append(f"the later events of {len(tplan.extended)} more tournaments")
        same = len(plan.unchanged)
        tail = f"; {same} matches were already there as they are" if same else ""
        typer.echo("chukker: " + ", ".join(parts) + f" into {where}" + tail)
    for name, why in done.skipped:
        typer.echo(f"chukker: {folder}/{name}: not imported: {why}")
    typer.echo("chukker: " + token_news(s, export.organiser_sha256))


def _served(path: str) -> bool:
    """Whether a `chukker serve` holds the SQLite file ``path`` (its lock beside it)."""
    import fcntl

    try:
        f = open(path + ".lock")  # noqa: SIM115 - closed below
    except OSError:
        return False
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        f.close()  # closing releases a lock taken here
    return False


@dataclass(frozen=True)
class _Done:
    plan: Any
    tplan: Any
    skipped: list[tuple[str, str]]


def _write_import(store: Any, export: Any, folder: Path, check: Any = None) -> _Done:
    """Plan the import against ``store`` (refusing any conflict before writing), then
    write the matches, then the tournaments (whose live matches are those matches)."""
    from chukker.store.backup import plan_import, plan_tournaments

    plan = plan_import(store, export.matches, str(folder))
    ids = {m.match_id for m in export.matches}
    old, skipped = legacy_logs(store, export.legacy, folder, ids)
    tplan = plan_tournaments(store, export.tournaments + old, str(folder))
    if check is not None and (plan.batch or tplan.batch):
        check()
    if plan.batch:
        store.import_matches(plan.batch)
    if tplan.batch:
        try:
            store.import_tournaments(tplan.batch)
        except Exception as e:  # re-raised, or said with what the matches' import did
            if not plan.batch:
                raise
            from chukker.store import StoreError

            raise StoreError(f"the matches are imported, the tournaments not ({e}); run the "
                             "same import again to import them") from None
    return _Done(plan, tplan, skipped)


def _import_into(s: Settings, export: Any, folder: Path) -> _Done:
    """Write the import into the database of ``s``: into an existing database, the
    matches in one transaction and the tournaments in the next; a new SQLite file is
    written beside its place first and renamed into it only once complete, so a
    failure or a kill never leaves a database there."""
    from chukker.store import StoreError, is_postgres_url, open_store

    target = s.database_target()
    path = target[len("sqlite:///"):] if target.startswith("sqlite:///") else target
    if is_postgres_url(target) or os.path.exists(path):
        store = _open_or_exit(s, create=False)

        def not_served() -> None:
            if not is_postgres_url(target) and _served(path):
                _fail(f"{path} is being served by `chukker serve`; stop it first, or import "
                      "into a new database (--db new.sqlite3); nothing imported")

        try:
            return _write_import(store, export, folder, not_served)
        except StoreError as e:
            _fail(str(e))
        except Exception as e:  # noqa: BLE001 - transaction refused: nothing written
            _fail(f"nothing imported into {_shown(target)}: {type(e).__name__}: {e}"[:400])
        finally:
            store.close()
    made: list[str] = []  # restoring onto a new machine: the data folder may not be there yet
    up = os.path.dirname(os.path.abspath(path))
    while not os.path.isdir(up):
        made.insert(0, up)
        up = os.path.dirname(up)
    for d in made:
        try:
            os.mkdir(d)
        except OSError as e:
            _fail(f"cannot make the folder {d}: {e.strerror or e}")
    part = path + ".import-part"
    import fcntl

    lock = open(part + ".lock", "a+")  # noqa: SIM115 - held for the import
    done = False
    try:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            _fail(f"another import into {path} is running")
        for suffix in ("", "-wal", "-shm", "-journal"):  # left by a killed import
            with contextlib.suppress(FileNotFoundError):
                os.unlink(part + suffix)
        try:
            store = open_store(part)
        except Exception as e:  # noqa: BLE001 - any driver's error: one line, never a trace
            _fail(f"cannot create the database {path}: {e}")
        try:
            result = _write_import(store, export, folder)
        except StoreError as e:
            _fail(str(e))
        except Exception as e:  # noqa: BLE001 - transaction refused: nothing written
            _fail(f"nothing imported into {path}: {type(e).__name__}: {e}"[:400])
        finally:
            store.close()
        import sqlite3

        db = sqlite3.connect(part)  # self-contained: the log folded into the file
        try:
            db.execute("PRAGMA journal_mode=DELETE")
        finally:
            db.close()
        try:
            os.link(part, path)  # never over a database that appeared meanwhile
        except FileExistsError:
            _fail(f"{path} appeared while importing; nothing imported (run it again)")
        except OSError as e:
            _fail(f"cannot put the database in place at {path}: {e.strerror or e}")
        done = True
        return result
    finally:
        for suffix in ("", "-wal", "-shm", "-journal", ".lock"):
            with contextlib.suppress(OSError):
                os.unlink(part + suffix)
        lock.close()
        if not done:
            for d in reversed(made):
                with contextlib.suppress(OSError):
                    os.rmdir(d)


def examples_dir() -> Path | None:
    """The example match records: installed beside the package, or in the source tree."""
    candidates = [Path(sys.prefix) / "share" / "chukker" / "examples",
                  Path(__file__).resolve().parents[2] / "examples"]
    return next((p for p in candidates if p.is_dir()), None)


def examples_cmd() -> None:
    """Print the folder of the example match records (try: chukker replay FOLDER/overtime.json)."""
    found = examples_dir()
    if found is None:
        _fail("the examples are not installed")
    typer.echo(str(found))


# ------------------------------------------------------------------ tournaments
def _legacy_log(text: str, name: str, made_ms: int, known: Any) -> tuple[str, list[Any]]:
    """The log of an older version's tournament file (the document, the tokens' hashes,
    the live matches): one upload, as :func:`chukker.live.tournaments.import_folder`
    makes it, with the live matches ``known(live id)`` says exist."""
    from chukker.live.tournaments import Kind, plain, web_tournament
    from chukker.store.base import TournamentEvent, verify_match_id

    d = json.loads(text)
    tid = str(d["id"])
    verify_match_id(tid, name)
    web_tournament(d["doc"])  # a file that no longer reads is left out, and said
    live = {str(k): str(v) for k, v in dict(d.get("live", {})).items()}
    body = {"doc": d["doc"], "committee_hash": str(d["committee_hash"]),
            "arena_hash": {str(k): str(v) for k, v in d["arena_hash"].items()},
            "made": {mid: lid for mid, lid in live.items() if known(lid)},
            "imported_from": name}
    return tid, [TournamentEvent(1, Kind.UPLOADED, plain(body), made_ms)]


_BAD_FILE = (ValueError, KeyError, TypeError, AttributeError, RecursionError)


def _has_match(store: Any, also: frozenset[str] | set[str] = frozenset()) -> Any:
    from chukker.store.base import UnknownMatch

    def known(live_id: str) -> bool:
        if live_id in also:
            return True
        try:
            store.get_match(live_id)
        except UnknownMatch:
            return False
        return True

    return known


def folder_logs(store: Any, folder: Path) -> tuple[list[tuple[str, list[Any]]],
                                                   list[tuple[str, str]]]:
    """The logs of the tournament files in ``folder`` that ``store`` does not hold yet
    (as a server's first start would import them), and the files left out, each with
    why. Reads only."""
    from chukker.live.tournaments import MAX_FILE_BYTES

    if not folder.is_dir():
        return [], []
    held = {tid for tid, _ in store.tournaments()}
    out: list[tuple[str, list[Any]]] = []
    skipped: list[tuple[str, str]] = []
    known = _has_match(store)
    for p in sorted(folder.glob("*.json")):
        try:
            if p.stat().st_size > MAX_FILE_BYTES:
                skipped.append((p.name, f"larger than {MAX_FILE_BYTES} bytes"))
                continue
            tid, events = _legacy_log(p.read_text(encoding="utf-8"), p.name,
                                      int(p.stat().st_mtime * 1000), known)
        except (OSError, UnicodeDecodeError, *_BAD_FILE) as e:
            skipped.append((p.name, f"{type(e).__name__}: {e}"[:200]))
            continue
        if tid not in held:
            out.append((tid, events))
    return out, skipped


def legacy_logs(store: Any, files: dict[str, str], folder: Path, ids: set[str]
                ) -> tuple[list[tuple[str, list[Any]]], list[tuple[str, str]]]:
    """The tournaments of an older export's files (``tournaments/<name>.json``, those
    of its server's ``tournaments_dir``) that ``store`` does not hold yet; their live
    matches are the export's (``ids``) or the store's. And the files left out."""
    held = {tid for tid, _ in store.tournaments()}
    out: list[tuple[str, list[Any]]] = []
    skipped: list[tuple[str, str]] = []
    known = _has_match(store, ids)
    for rel, text in sorted(files.items()):
        name = rel[len(TOURNAMENTS) + 1:]
        if "/" in name or not name.endswith(".json"):
            skipped.append((rel, "not a server's tournament file (tournaments/<id>.json)"))
            continue
        try:
            mtime = int((folder / rel).stat().st_mtime * 1000)
            tid, events = _legacy_log(text, name, mtime, known)
        except (OSError, *_BAD_FILE) as e:
            skipped.append((rel, f"{type(e).__name__}: {e}"[:200]))
            continue
        if tid not in held and tid not in {t for t, _ in out}:
            out.append((tid, events))
    return out, skipped


def check_folds(logs: list[tuple[str, list[Any]]], folder: Path) -> None:
    """Every tournament's log folds, as the server will fold it; else :class:`StoreError`
    naming its file and event. (Folded on copies: folding a move changes the document
    it folds into, which must not be the event's.)"""
    import copy

    from chukker.live.tournaments import apply
    from chukker.store import StoreError

    for tid, events in logs:
        lt = None
        for e in events:
            try:
                lt = apply(lt, tid, copy.deepcopy(e))
            except (*_BAD_FILE, StoreError) as err:
                raise StoreError(f"{folder}/{TOURNAMENTS}/{tid}.json: event {e.seq} does not "
                                 f"read: {type(err).__name__}: {err}"[:400]) from None


def folder_report(s: Settings) -> list[str]:
    """What ``chukker config`` says of the tournament files in ``tournaments_dir``: how
    many the database holds (imported) and how many not, naming those and why."""
    folder = Path(s.tournaments_target())
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not files:
        return []
    head = f"tournaments_dir {folder}: {len(files)} tournament files of an older version"
    from chukker.store import is_postgres_url, open_store

    target = s.database_target()
    path = target[len("sqlite:///"):] if target.startswith("sqlite:///") else target
    if not is_postgres_url(target) and not os.path.isfile(path):
        return [f"{head}; none in the database yet ({path} does not exist): the first "
                "`chukker serve` imports them"]
    try:
        store = open_store(target, pg_schema=s.database_schema)
    except Exception as e:  # noqa: BLE001 - any driver's error: said in the report's line
        return [f"{head}; cannot tell how many are imported: cannot open the database "
                f"{_shown(target)}: {e}"[:300]]
    try:
        pending, skipped = folder_logs(store, folder)
    except Exception as e:  # noqa: BLE001 - any driver's error: said in the report's line
        return [f"{head}; cannot tell how many are imported: {e}"[:300]]
    finally:
        store.close()
    imported = len(files) - len(pending) - len(skipped)
    lines = [f"{head}: {imported} imported into the database, "
             f"{len(pending) + len(skipped)} not"]
    if pending:
        lines.append("not yet imported (the next `chukker serve` imports them): "
                     + ", ".join(tid for tid, _ in pending))
    lines += [f"not importable: {name}: {why}" for name, why in skipped]
    return lines


# ---------------------------------------------------------------- organiser token
def organiser_token(s: Settings, target: str) -> tuple[str | None, str]:
    """The organiser token a server on ``target`` uses and where it is kept: the
    ``organiser_token`` setting, else (SQLite) the file beside the database."""
    from chukker.store import is_postgres_url

    if s.organiser_token:
        return s.organiser_token, f"the setting organiser_token ({s.source('organiser_token')})"
    if is_postgres_url(target):
        return None, "$CHUKKER_ORGANISER_TOKEN"
    path = target[len("sqlite:///"):] if target.startswith("sqlite:///") else target
    where = path + ORGANISER_SUFFIX
    try:
        return Path(where).read_text(encoding="ascii").strip() or None, where
    except (OSError, UnicodeDecodeError):
        return None, where


def token_news(s: Settings, exported_sha256: str | None) -> str:
    """Whether the organiser token changed with this import, and how to keep the old one.

    The export keeps the SHA-256 of its server's token (never the token)."""
    import hashlib

    token, where = organiser_token(s, s.database_target())
    keep = (f"to keep the old one, put it in {where} (mode 0600; it is the file "
            f"<database>{ORGANISER_SUFFIX} beside the old database) or set "
            "$CHUKKER_ORGANISER_TOKEN to it")
    if where == "$CHUKKER_ORGANISER_TOKEN":
        keep = "to keep the old one, set $CHUKKER_ORGANISER_TOKEN to it for every server"
    if token is None:
        return ("organiser token: changed: the export holds none, and the first `chukker "
                f"serve` on this database makes a new one; {keep}, before starting it")
    mine = hashlib.sha256(token.encode()).hexdigest()
    if exported_sha256 is None:
        return (f"organiser token: {where} (the export does not say the old one's, so "
                f"whether it changed is unknown); {keep}")
    if mine == exported_sha256:
        return f"organiser token: unchanged ({where} is the exported server's)"
    return f"organiser token: changed: {where} is not the exported server's; {keep}"


def register(app: typer.Typer) -> None:
    """Add ``config``, ``backup``, ``export``, ``import`` and ``examples`` to ``chukker``."""
    app.command("config")(config_cmd)
    app.command("backup")(backup_cmd)
    app.command("export")(export_cmd)
    app.command("import")(import_cmd)
    app.command("examples")(examples_cmd)
