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
) -> None:
    """Serve the timekeeper's console, big screen, phones, overlay and API."""
    import uvicorn

    from chukker.store import is_postgres_url, open_store
    from chukker.web.app import create_app
    from chukker.web.demo import DEMO_HEADER, seed_finished_match
    from chukker.web.live import LiveService

    target = db or os.environ.get("CHUKKER_DATABASE_URL") or DEFAULT_DB
    store = open_store(target, pg_schema=os.environ.get("CHUKKER_DATABASE_SCHEMA", "chukker"))
    where = "PostgreSQL" if is_postgres_url(target) else os.path.abspath(target)
    base = f"http://{host}:{port}"
    typer.echo(f"chukker: event store {where}")
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
    app = create_app(store)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=2)
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


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``chukker`` command."""
    app.command("serve")(serve)
