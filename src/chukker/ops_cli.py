"""Operator commands: ``chukker config``, ``backup``, ``export`` and ``import``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, NoReturn

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
    file: Annotated[Path, typer.Argument(help="Where to write the copy.")],
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
        info = backup_sqlite(target, file)
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
    from chukker.store import StoreError, open_store
    from chukker.store.backup import export_store

    s = settings_or_exit(config, database=db)
    extra = _tournament_files(s)
    try:
        store = open_store(s.database_target(), pg_schema=s.database_schema)
    except Exception as e:
        _fail(f"cannot open the database: {e}")
    try:
        info = export_store(store, folder, extra)
    except StoreError as e:
        _fail(str(e))
    finally:
        store.close()
    typer.echo(f"chukker: exported {info.matches} matches ({info.events} events) "
               f"and {len(extra)} tournament files to {info.folder}")


def import_cmd(
    folder: Annotated[Path, typer.Argument(help="A folder written by 'chukker export'.")],
    config: ConfigOpt = None,
    db: DbOpt = None,
) -> None:
    """Load an export into an empty database (every match is replayed first)."""
    from chukker.store import StoreError, open_store
    from chukker.store.backup import import_store, read_export

    s = settings_or_exit(config, database=db)
    try:
        _, others = read_export(folder)  # check everything before creating the database
    except StoreError as e:
        _fail(str(e))
    try:
        store = open_store(s.database_target(), pg_schema=s.database_schema)
    except Exception as e:
        _fail(f"cannot open the database: {e}")
    try:
        info = import_store(store, folder)
    except StoreError as e:
        _fail(str(e))
    finally:
        store.close()
    written = _restore_tournament_files(s, others)
    typer.echo(f"chukker: imported {info.matches} matches ({info.events} events) "
               f"and {written} tournament files into {s.database_target()}")


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
    root = Path(s.tournaments_target())
    if not root.is_dir():
        return {}
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix in (".toml", ".json"):
            out[f"{TOURNAMENTS}/{p.relative_to(root).as_posix()}"] = p.read_text()
    return out


def _restore_tournament_files(s: Settings, files: dict[str, str]) -> int:
    n = 0
    for rel, text in files.items():
        if not rel.startswith(TOURNAMENTS + "/"):
            continue
        p = Path(s.tournaments_target()) / rel[len(TOURNAMENTS) + 1:]
        if p.exists():
            _fail(f"{p} exists; not overwritten")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        n += 1
    return n


def register(app: typer.Typer) -> None:
    """Add ``config``, ``backup``, ``export``, ``import`` and ``examples`` to ``chukker``."""
    app.command("config")(config_cmd)
    app.command("backup")(backup_cmd)
    app.command("export")(export_cmd)
    app.command("import")(import_cmd)
    app.command("examples")(examples_cmd)
