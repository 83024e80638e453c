"""``chukker serve``: the live timekeeping and scoreboard service."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from types import FrameType
from typing import Annotated, Any

import typer

DEFAULT_DB = "chukker.sqlite3"


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: Annotated[str | None, typer.Option(
        help="SQLite file or postgresql:// URL (default: $CHUKKER_DATABASE_URL, "
        f"else ./{DEFAULT_DB}).")] = None,
    demo: Annotated[bool, typer.Option(help="Create a demo match if the database is empty.")]
    = True,
    open_: Annotated[bool, typer.Option(
        "--open", help="Let anyone create matches (rate-limited per address); for demos.")]
    = False,
) -> None:
    """Serve the timekeeper's console, big screen, phones, overlay and API."""
    import uvicorn

    from chukker.store import is_postgres_url, open_store
    from chukker.web.app import create_app
    from chukker.web.demo import DEMO_HEADER, seed_finished_match
    from chukker.web.limits import uvicorn_options
    from chukker.web.live import LiveService
    from chukker.web.security import organiser_token

    target = db or os.environ.get("CHUKKER_DATABASE_URL") or DEFAULT_DB
    if not is_postgres_url(target):
        _lock_sqlite_file(target)
    store = open_store(target, pg_schema=os.environ.get("CHUKKER_DATABASE_SCHEMA", "chukker"))
    where = "PostgreSQL" if is_postgres_url(target) else os.path.abspath(target)
    base = f"http://{host}:{port}"
    typer.echo(f"chukker: event store {where}")
    token, created_now = organiser_token(target)
    if open_:
        typer.echo("chukker: OPEN mode: anyone may create matches (rate-limited per address)")
    elif created_now:
        typer.echo("chukker: organiser token (needed to create matches; shown only now, "
                   "`chukker organiser-token` shows it again):")
        typer.echo(f"  {token}")
    if demo and not store.list_matches(1):
        created = asyncio.run(LiveService(store).create_match(DEMO_HEADER))
        m = created.match_id
        typer.echo("chukker: demo match created (its secrets are shown only now):")
        typer.echo(f"  timekeeper console  {base}/m/{m}/console#token={created.timekeeper_token}")
        typer.echo(f"  timekeeper token    {created.timekeeper_token}")
        typer.echo(f"  committee token     {created.committee_token}")
        typer.echo(f"  big screen          {base}/m/{m}/display")
        typer.echo(f"  spectators          {base}/m/{m}")
        typer.echo(f"  overlay             {base}/m/{m}/overlay")
        typer.echo(f"  score sheet         {base}/m/{m}/sheet")
        done = seed_finished_match(store, int(time.time() * 1000))
        typer.echo(f"chukker: a finished demo match: {base}/m/{done} (sheet: /m/{done}/sheet)")
    typer.echo(f"chukker: serving on {base}/ (new match: {base}/new, API: {base}/docs)")
    app = create_app(store, organiser=token, open_mode=open_)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=2, **uvicorn_options())
    _Server(config, app.state.service).run()


class _Server:
    """uvicorn's server, ending the live streams first when asked to stop."""

    def __new__(cls, config: Any, service: Any) -> Any:
        import uvicorn

        class Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: FrameType | None) -> None:
                with contextlib.suppress(RuntimeError):
                    loop = asyncio.get_running_loop()
                    loop.call_soon_threadsafe(service.close_streams)
                super().handle_exit(sig, frame)

        return Server(config)


_LOCKS: list[Any] = []


def _lock_sqlite_file(target: str) -> None:
    """One SQLite file, one server: hold an exclusive lock beside it while serving."""
    import fcntl

    path = target[len("sqlite:///"):] if target.startswith("sqlite:///") else target
    f = open(path + ".lock", "a+")  # noqa: SIM115 - held until the process ends
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        typer.echo(f"chukker: {os.path.abspath(path)} is already served by another "
                   "`chukker serve`. One SQLite file takes one server; for several servers "
                   "on one database use PostgreSQL (--db postgresql://...).", err=True)
        raise typer.Exit(1) from None
    _LOCKS.append(f)


def organiser_token_command(
    db: Annotated[str | None, typer.Option(
        help="SQLite file or postgresql:// URL (default: $CHUKKER_DATABASE_URL, "
        f"else ./{DEFAULT_DB}).")] = None,
) -> None:
    """Print the organiser token (needed to create matches) of a database."""
    from chukker.web.security import organiser_token

    target = db or os.environ.get("CHUKKER_DATABASE_URL") or DEFAULT_DB
    token, _ = organiser_token(target)
    typer.echo(token)


def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``organiser-token`` to the ``chukker`` command."""
    app.command("serve")(serve)
    app.command("organiser-token")(organiser_token_command)
