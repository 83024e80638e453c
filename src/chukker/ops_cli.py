"""Operator commands: ``chukker config``, ``backup``, ``export`` and ``import``."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from chukker.config import ConfigError, Settings, describe, load

ConfigOpt = Annotated[Path | None, typer.Option(
    "--config", help="Settings file (TOML); default $CHUKKER_CONFIG.", show_default=False)]
DbOpt = Annotated[str | None, typer.Option(
    "--db", help="SQLite file or postgresql:// URL (default: the 'database' setting).",
    show_default=False)]

TOURNAMENTS = "tournaments"


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
    """Print the settings in force (as TOML) and where each came from."""
    typer.echo(describe(settings_or_exit(config)), nl=False)


def backup_cmd(
    file: Annotated[Path, typer.Argument(help="Where to write the copy (a new file).")],
    force: Annotated[bool, typer.Option(
        "--force", help="Replace FILE if it exists (a regular file only).")] = False,
    config: ConfigOpt = None,
    db: DbOpt = None,
) -> None:
    """A consistent copy of the SQLite database, safe while the server runs."""
    from chukker.store import StoreError, is_postgres_url
    from chukker.store.backup import PG_DUMP_HINT, backup_sqlite

    s = settings_or_exit(config, database=db)
    target = s.database_target()
    if is_postgres_url(target):
        _fail(PG_DUMP_HINT.format(schema=s.database_schema, url=target.split("@")[-1]
                                  if "@" in target else target), code=3)
    if target.startswith("sqlite:///"):
        target = target[len("sqlite:///"):]
    try:
        info = backup_sqlite(target, file, overwrite=force)
    except StoreError as e:
        _fail(str(e))
    typer.echo(f"chukker: backup of {target} written to {info.path} "
               f"({info.matches} matches, {info.events} events, {info.bytes} bytes)")


def export_cmd(
    folder: Annotated[Path, typer.Argument(help="New (or empty) folder to write into.")],
    config: ConfigOpt = None,
    db: DbOpt = None,
) -> None:
    """Write every match record (and the tournament files) to a folder."""
    from chukker.store import StoreError
    from chukker.store.backup import export_store

    s = settings_or_exit(config, database=db)
    try:
        extra = _tournament_files(s)
    except StoreError as e:
        _fail(str(e))
    store = _open_or_exit(s, create=False)
    try:
        info = export_store(store, folder, extra)
    except StoreError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"cannot write to {folder}: {e.strerror or e}")
    finally:
        store.close()
    typer.echo(f"chukker: exported {info.matches} matches ({info.events} events) "
               f"and {len(extra)} tournament files to {info.folder}")


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
    except Exception as e:
        _fail(f"cannot open the database {_shown(target)}: {e}")


def _shown(target: str) -> str:
    """A database target without its password."""
    return target.split("@")[-1] if "://" in target and "@" in target else target


def import_cmd(
    folder: Annotated[Path, typer.Argument(help="A folder written by 'chukker export'.")],
    config: ConfigOpt = None,
    db: DbOpt = None,
) -> None:
    """Load an export: all of it in one transaction, or nothing.

    Matches the database already holds as they are (same set-up, secrets and
    events) are left as they are, so importing the same export again is a no-op;
    one it holds differently is refused, naming it, and nothing is written.
    Tournament files likewise.
    """
    from chukker.store import StoreError
    from chukker.store.backup import read_export

    s = settings_or_exit(config, database=db)
    try:
        loaded, others = read_export(folder)  # check everything before opening the database
        files = _plan_tournament_files(s, others)
    except StoreError as e:
        _fail(str(e))
    target = s.database_target()
    plan = _import_into(s, loaded, folder)
    written = _write_tournament_files(files)
    where = _shown(target)
    added = len(plan.batch) - len(plan.extended)
    if not plan.batch and not written:
        typer.echo(f"chukker: nothing to import: {where} already holds the {len(loaded)} "
                   f"matches and {len(others)} tournament files of {folder} as they are")
        return
    parts = [f"imported {added} matches ({plan.events} events)"]
    if plan.extended:
        parts.append(f"the later events of {len(plan.extended)} more")
    parts.append(f"{written} tournament files into {where}")
    same = len(plan.unchanged)
    tail = f"; {same} matches were already there as they are" if same else ""
    typer.echo("chukker: " + ", ".join(parts) + tail)


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


def _import_into(s: Settings, loaded: list[Any], folder: Path) -> Any:
    """Write the import into the database of ``s``: one transaction into an existing
    database; a new SQLite file is written beside its place first and renamed into it
    only once complete, so a failure or a kill never leaves a database there."""
    from chukker.store import StoreError, is_postgres_url, open_store
    from chukker.store.backup import plan_import

    target = s.database_target()
    path = target[len("sqlite:///"):] if target.startswith("sqlite:///") else target
    if is_postgres_url(target) or os.path.exists(path):
        store = _open_or_exit(s, create=False)
        try:
            plan = plan_import(store, loaded, str(folder))
            if plan.batch and not is_postgres_url(target) and _served(path):
                _fail(f"{path} is being served by `chukker serve`; stop it first, or import "
                      "into a new database (--db new.sqlite3); nothing imported")
            if plan.batch:
                store.import_matches(plan.batch)
        except StoreError as e:
            _fail(str(e))
        except Exception as e:  # the database refused the transaction: nothing written
            _fail(f"nothing imported into {_shown(target)}: {type(e).__name__}: {e}"[:400])
        finally:
            store.close()
        return plan
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
        except Exception as e:
            _fail(f"cannot create the database {path}: {e}")
        try:
            plan = plan_import(store, loaded, str(folder))
            store.import_matches(plan.batch)
        except StoreError as e:
            _fail(str(e))
        except Exception as e:  # the database refused the transaction: nothing written
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
        return plan
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


def _tournament_files(s: Settings) -> dict[str, str]:
    """The tournament files kept in the ``tournaments_dir`` setting's folder (path -> text)."""
    from chukker.store import StoreError

    root = Path(s.tournaments_target())
    if not root.is_dir():
        return {}
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix in (".toml", ".json"):
            try:
                out[f"{TOURNAMENTS}/{p.relative_to(root).as_posix()}"] = p.read_text()
            except (OSError, UnicodeDecodeError) as e:
                raise StoreError(f"{p}: cannot read ({e})") from None
    return out


def _plan_tournament_files(s: Settings, files: dict[str, str]) -> list[tuple[Path, str]]:
    """The tournament files to write (those missing); an existing file with other
    content is a conflict, refused before anything is written."""
    from chukker.store import StoreError

    root = Path(s.tournaments_target())
    out: list[tuple[Path, str]] = []
    for rel, text in sorted(files.items()):
        if not rel.startswith(TOURNAMENTS + "/"):
            continue
        p = root / rel[len(TOURNAMENTS) + 1:]
        if root.resolve() not in p.resolve().parents:
            raise StoreError(f"manifest.json: {rel} is outside the tournaments folder")
        if p.exists():
            try:
                same = p.read_text() == text
            except (OSError, UnicodeDecodeError):
                same = False
            if not same:
                raise StoreError(f"{p} exists with other content; nothing imported "
                                 "(move it away, or import with another tournaments_dir "
                                 "or data_dir)")
            continue
        out.append((p, text))
    return out


def _write_tournament_files(files: list[tuple[Path, str]]) -> int:
    """Write each file beside itself first, then rename it into place."""
    for p, text in files:
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = p.with_name(p.name + ".part")
            tmp.write_text(text)
            os.replace(tmp, p)
        except OSError as e:
            _fail(f"cannot write {p}: {e.strerror or e} (the matches are imported; "
                  "run the same import again to write the tournament files)")
    return len(files)


def register(app: typer.Typer) -> None:
    """Add ``config``, ``backup``, ``export``, ``import`` and ``examples`` to ``chukker``."""
    app.command("config")(config_cmd)
    app.command("backup")(backup_cmd)
    app.command("export")(export_cmd)
    app.command("import")(import_cmd)
    app.command("examples")(examples_cmd)
