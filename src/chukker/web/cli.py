"""``chukker serve``: the live timekeeping and scoreboard service."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path
from types import FrameType
from typing import Annotated, Any

import typer

DEFAULT_DB = "chukker.sqlite3"


def serve(
    host: Annotated[str | None, typer.Option(
        help="Address to listen on (setting server.host; default 127.0.0.1).",
        show_default=False)] = None,
    port: Annotated[int | None, typer.Option(
        help="Port to listen on (setting server.port; default 8000).", show_default=False)]
    = None,
    db: Annotated[str | None, typer.Option(
        help="SQLite file or postgresql:// URL (setting database: $CHUKKER_DATABASE_URL, "
        f"else ./{DEFAULT_DB}).")] = None,
    demo: Annotated[bool, typer.Option(help="Create a demo match if the database is empty.")]
    = True,
    open_: Annotated[bool, typer.Option(
        "--open", help="Let anyone create matches (rate-limited per address); for demos.")]
    = False,
    config: Annotated[Path | None, typer.Option(
        "--config", help="Settings file (TOML); default $CHUKKER_CONFIG.",
        show_default=False)] = None,
) -> None:
    """Serve the timekeeper's console, big screen, phones, overlay and API."""
    import uvicorn

    from chukker.live import LiveService
    from chukker.ops.logging import configure
    from chukker.ops_cli import settings_or_exit
    from chukker.store import is_postgres_url, open_store
    from chukker.web.api.routes import created_display_token
    from chukker.web.app import create_app
    from chukker.web.demo import DEMO_HEADER, DemoError, seed_finished_match, seed_tournament
    from chukker.web.limits import uvicorn_options
    from chukker.web.ops.observe import apply_process_settings
    from chukker.web.security import organiser_token

    s = settings_or_exit(config, **{"server.host": host, "server.port": port, "database": db,
                                    "open": True if open_ else None})
    host, port, open_ = s.server.host, s.server.port, s.open
    target = s.database_target()
    if not is_postgres_url(target):
        os.makedirs(s.data_dir or ".", exist_ok=True)
        _lock_sqlite_file(target)
    apply_process_settings(s)
    store = open_store(target, pg_schema=s.database_schema)
    where = "PostgreSQL" if is_postgres_url(target) else os.path.abspath(target)
    base = f"http://{host}:{port}"
    if s.config_file:
        typer.echo(f"chukker: settings from {s.config_file} (chukker config shows them)")
    typer.echo(f"chukker: event store {where}")
    token, created_now = ((s.organiser_token, False) if s.organiser_token
                          else organiser_token(target))
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
        shown = created_display_token(m, created.timekeeper_token, created.committee_token)
        typer.echo(f"  big screen          {base}/m/{m}/display#display={shown}")
        typer.echo(f"  spectators          {base}/m/{m}")
        typer.echo(f"  overlay             {base}/m/{m}/overlay#display={shown}")
        typer.echo(f"  score sheet         {base}/m/{m}/sheet")
        done = seed_finished_match(store, int(time.time() * 1000))
        typer.echo(f"chukker: a finished demo match: {base}/m/{done} (sheet: /m/{done}/sheet)")
        try:
            tour = seed_tournament(store, base, int(time.time() * 1000))
        except DemoError as e:
            typer.echo(f"chukker: no demo tournament: {e}")
        else:
            typer.echo(f"chukker: demo tournament {tour.name} ({len(tour.played)} matches played, "
                       f"{', '.join(tour.to_play)} to play; its secrets are shown only now):")
            typer.echo(f"  tournament          {tour.url}")
            typer.echo(f"  committee token     {tour.committee_token}")
            for arena, link in tour.consoles.items():
                typer.echo(f"  {arena + ' console':<19} {link}")
    typer.echo(f"chukker: serving on {base}/ (new match: {base}/new, API: {base}/docs)")
    app = create_app(store, organiser=token, open_mode=open_, settings=s)
    # the client's address behind proxies is chukker's (setting trusted_proxies), not
    # uvicorn's; requests are logged by chukker's access log, without secrets
    server_config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                                   timeout_graceful_shutdown=2, proxy_headers=False,
                                   access_log=False, log_config=None, **uvicorn_options())
    configure(s.log.format, s.log.level)
    _Server(server_config, app.state.service).run()


class _Server:
    """uvicorn's server, ending the live streams first when asked to stop."""

    def __new__(cls, config: Any, service: Any) -> Any:
        import uvicorn

        class Server(uvicorn.Server):
            def handle_exit(self, sig: int, frame: FrameType | None) -> None:
                service.stopped = True  # /readyz answers 503 from now on
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
    from chukker.store import is_postgres_url
    from chukker.web.security import organiser_token

    target = db or os.environ.get("CHUKKER_DATABASE_URL") or DEFAULT_DB
    token, _ = organiser_token(target, create=not is_postgres_url(target))
    if token is None:
        typer.echo("chukker: with PostgreSQL the organiser token is $CHUKKER_ORGANISER_TOKEN "
                   "(the same for every server); it is not set.", err=True)
        raise typer.Exit(1)
    typer.echo(token)


def plays_review(
    file: Annotated[
        Path, typer.Argument(help="Tracking CSV/Parquet, scenario TOML or GPS session TOML.")
    ],
    port: Annotated[int, typer.Option("--port", help="Port of the local page.")] = 8765,
    lang: Annotated[str, typer.Option("--lang", help="en, es or it")] = "en",
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="Open the page in a browser.")
    ] = True,
) -> None:
    """Analyse FILE and open its review page (timeline, evidence, diagrams, CSV export)."""
    import threading
    import webbrowser

    import uvicorn

    from chukker.plays.review import analyse_file
    from chukker.plays.tracking import TrackingError
    from chukker.web.pages.plays import app as pages

    try:
        rv = analyse_file(file)
    except (TrackingError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    url = f"http://127.0.0.1:{port}/plays/review/{rv.id}?lang={lang}"
    typer.echo(f"{len(rv.candidates)} candidates; review at {url} (Ctrl-C to stop)")
    if open_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(pages, host="127.0.0.1", port=port, log_level="warning")


def register_plays(plays: typer.Typer) -> None:
    """Add ``review`` (the analysis served as local pages) to ``chukker plays``: the
    plays package knows nothing of the web, so the command lives here."""
    if not any(c.name == "review" for c in plays.registered_commands):
        plays.command("review")(plays_review)


def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``organiser-token`` to the ``chukker`` command."""
    app.command("serve")(serve)
    app.command("organiser-token")(organiser_token_command)
