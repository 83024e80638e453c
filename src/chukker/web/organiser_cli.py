"""``chukker organiser-token``: print the organiser token of the server's database.

The database is the one ``chukker serve`` would open: ``--db``, else the settings
(``database`` under ``data_dir``: ``$CHUKKER_DATABASE``, ``$CHUKKER_DATA_DIR``, the
settings file). With no database there it refuses (exit 2) rather than mint a token that
no server would ever read (issue 30).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

#: the exit code of a refusal (nothing to print a token for), as the server's start-up
EXIT_NO_DATABASE = 2


def organiser_token_command(
    db: Annotated[str | None, typer.Option(
        help="SQLite file or postgresql:// URL (default: the setting database, "
        "$CHUKKER_DATABASE, under data_dir, $CHUKKER_DATA_DIR).")] = None,
    config: Annotated[Path | None, typer.Option(
        "--config", help="Settings file (default: $CHUKKER_CONFIG).")] = None,
) -> None:
    """Print the organiser token (needed to create matches) of a database."""
    from chukker.ops_cli import settings_or_exit
    from chukker.store import is_postgres_url
    from chukker.web.security import organiser_token

    s = settings_or_exit(config, database=db)
    target = s.database_target()
    if s.organiser_token:  # set for every server ($CHUKKER_ORGANISER_TOKEN, the file)
        typer.echo(s.organiser_token)
        return
    if is_postgres_url(target):
        typer.echo("chukker: with PostgreSQL the organiser token is $CHUKKER_ORGANISER_TOKEN "
                   "(the same for every server); it is not set.", err=True)
        raise typer.Exit(1)
    path = target[len("sqlite:///"):] if target.startswith("sqlite:///") else target
    if not os.path.isfile(path):
        typer.echo(f"chukker: no database at {path}: start `chukker serve` with it first, "
                   "or name it with --db (or $CHUKKER_DATA_DIR, $CHUKKER_DATABASE); "
                   "no token made.", err=True)
        raise typer.Exit(EXIT_NO_DATABASE)
    try:
        token, _ = organiser_token(target)
    except OSError as e:
        typer.echo(f"chukker: cannot keep the organiser token beside {path}: "
                   f"{e.strerror or e}", err=True)
        raise typer.Exit(EXIT_NO_DATABASE) from None
    typer.echo(token)


def register(app: typer.Typer) -> None:
    """Add ``organiser-token`` to the ``chukker`` command."""
    app.command("organiser-token")(organiser_token_command)
