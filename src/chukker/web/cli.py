"""``chukker serve``: the live timekeeping and scoreboard service."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from chukker.web import holders

DEFAULT_DB = "chukker.sqlite3"


def serve(
    host: Annotated[str | None, typer.Option(
        help="Address to listen on (setting server.host; default 127.0.0.1).",
        show_default=False)] = None,
    port: Annotated[int | None, typer.Option(
        help="Port to listen on (setting server.port; default 8000).",
        show_default=False)]
    = None,
    db: Annotated[str | None, typer.Option(
        help="SQLite file or postgresql:// URL (setting database: $CHUKKER_DATABASE, "
        f"else ./{DEFAULT_DB}).")] = None,
    demo: Annotated[bool, typer.Option(
        "--demo/--no-demo",
        help="Seed demo content (a match to start, a finished match, the example "
        "tournament) into an empty database. Never without --demo: a real event's "
        "database holds only its own matches (--no-demo, the default, is kept for old "
        "scripts).")]
    = False,
    open_: Annotated[bool, typer.Option(
        "--open", help="Let anyone create matches (rate-limited per address); for demos.")]
    = False,
    config: Annotated[Path | None, typer.Option(
        "--config", help="Settings file (TOML); default $CHUKKER_CONFIG.",
        show_default=False)] = None,
    officials_port: Annotated[int | None, typer.Option(
        "--officials-port", min=1, max=65535,
        help="Port of the officials' plane: the API, the timekeeper's console and the "
        "officials' pages, the horns (setting server.officials_port; default --port + 1).",
        show_default=False)] = None,
    officials_host: Annotated[str | None, typer.Option(
        "--officials-host",
        help="Address of the officials' port (setting server.officials_host; default --host "
        "when it is loopback, else 127.0.0.1): the arena's private network, or the proxy's.",
        show_default=False)] = None,
    public_workers: Annotated[int | None, typer.Option(
        "--public-workers", min=0, max=64,
        help="Processes of the public plane on --port (every page, stream, export and "
        "feed), at a lower CPU priority (setting server.public_workers; default 1). "
        "0: one process serves both planes on --port (a laptop, a test).",
        show_default=False)] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, max=64, hidden=True,
        help="Old name of --public-workers (deprecated).", show_default=False)] = None,
) -> None:
    """Serve the timekeeper's console, big screen, phones, overlay and API.

    Two planes (docs/operations.md): the officials' process on --officials-port (API,
    console, officials' pages; it keeps the horns and runs the arena feeds) and the
    public processes on --port (every page, stream, export and feed; the API's writes
    too). Start-up order: the settings, then both ports (bound before anything else),
    then the database; only then are secrets printed and (with --demo) demo content
    seeded. A failure at any step is one line on stderr and exit 2, and leaves no new
    database behind. This process then supervises the others.
    """
    from chukker.ops_cli import settings_or_exit
    from chukker.store import is_postgres_url

    if workers is not None:
        typer.echo("chukker: --workers is deprecated: it is now --public-workers (the public "
                   "plane's processes; the officials' plane is always one process)", err=True)
        public_workers = workers if public_workers is None else public_workers
    s = settings_or_exit(config, **{"server.host": host, "server.port": port, "database": db,
                                    "open": True if open_ else None,
                                    "server.officials_port": officials_port,
                                    "server.officials_host": officials_host,
                                    "server.public_workers": public_workers})
    planes = s.server.public_workers > 0
    if planes and s.server.officials == s.server.port:
        _fail(f"--officials-port {s.server.officials} is --port: the two planes need two ports")
    # one server per port (issue 40): each bound once here, without SO_REUSEPORT, and
    # handed to the processes that serve it; the officials' on their own host (issue 41)
    sock = _bind(s.server.host, s.server.port)
    officials_sock = _bind(s.server.officials_address, s.server.officials) if planes else None
    target = s.database_target()
    note = _leave_note(s, sock, officials_sock)
    path = target[len("sqlite:///"):] if target.startswith("sqlite:///") else target
    new_file = not is_postgres_url(target) and not os.path.exists(path)
    kept = False

    def keep() -> None:
        nonlocal kept
        kept = True

    runtime: list[str] = []  # the workers' folder, once made
    try:
        _start(s, sock, demo=demo, on_serving=keep, officials_sock=officials_sock,
               runtime=runtime)
    except BaseException:
        if new_file and not kept:
            _remove_sqlite(path)
        raise
    finally:
        if runtime:
            from chukker.web.workers import release_runtime

            release_runtime(runtime[0])
        holders.take_note_away(note)
        for held in (sock, officials_sock):
            if held is not None:
                held.close()


def _remove_sqlite(path: str) -> None:
    """A database this start-up created, removed again after a failed start."""
    for suffix in ("", "-wal", "-shm", "-journal", ".organiser-token", ".lock"):
        with contextlib.suppress(OSError):
            os.unlink(path + suffix)


def _fail(msg: str) -> NoReturn:
    typer.echo(f"chukker: {msg}", err=True)
    raise typer.Exit(2)


def _bind(host: str, port: int) -> socket.socket | None:
    """The listening socket, bound (without ``SO_REUSEPORT``) and listening before
    anything is printed or written; one line naming the port's holder and exit 2 if the
    address cannot be had (port in use, no such address)."""
    try:
        return holders.listen(host, port)
    except OSError as e:
        why = (f"the port is in use by {holders.who_holds_port(host, port)}"
               if e.errno == errno.EADDRINUSE else (e.strerror or str(e)))
        _fail(f"cannot listen on {host}:{port}: {why}")
    except (OverflowError, UnicodeError) as e:
        _fail(f"cannot listen on {host}:{port}: {e}")


def _ports(sock: socket.socket | None, officials_sock: socket.socket | None) -> tuple[int, ...]:
    return tuple(int(x.getsockname()[1]) for x in (sock, officials_sock) if x is not None)


def _leave_note(s: Any, sock: socket.socket | None,
                officials_sock: socket.socket | None) -> Path | None:
    """This server's note (its pid, ports and database), read by a second server that
    finds a port taken; None if nothing is bound here."""
    if sock is None:
        return None
    return holders.leave_note(holders.Holder(
        "chukker serve", os.getpid(), s.server.host, _ports(sock, officials_sock),
        holders.shown_database(s.database_target())))


def _start(s: Any, sock: socket.socket | None, *, demo: bool,
           on_serving: Callable[[], None], officials_sock: socket.socket | None = None,
           runtime: list[str] | None = None) -> None:
    from chukker.store import is_postgres_url, open_store

    host, open_ = s.server.host, s.open
    port = sock.getsockname()[1] if sock is not None else s.server.port
    officials_port = (officials_sock.getsockname()[1] if officials_sock is not None
                      else s.server.officials)
    planes = s.server.public_workers > 0
    target = s.database_target()
    if not is_postgres_url(target):  # before the web's imports: a refusal comes at once
        try:
            os.makedirs(s.data_dir or ".", exist_ok=True)
        except OSError as e:
            _fail(f"cannot make the data folder {s.data_dir}: {e.strerror or e}")
        lock = _lock_sqlite_file(target)
        if lock is not None:  # who holds it, for a second server's refusal
            holders.write_lock_note(lock, holders.Holder(
                "chukker serve", os.getpid(), host, _ports(sock, officials_sock),
                holders.shown_database(target)))
    if planes:  # the workers' fork server imports its libraries while this process
        from chukker.web.workers import prepare_runtime  # opens the database and prints

        folder = prepare_runtime()
        if runtime is not None:
            runtime.append(folder)
    from chukker.live import LiveService
    from chukker.web.api.links import created_display_token
    from chukker.web.demo import DEMO_HEADER, DemoError, seed_finished_match, seed_tournament
    from chukker.web.ops.observe import process_settings
    from chukker.web.security import organiser_token
    from chukker.web.workers import supervise

    configured = process_settings(s)  # read once, handed to the app; nothing written
    try:
        store = open_store(target, pg_schema=s.database_schema)
    except Exception as e:  # noqa: BLE001 - any driver's error: one line, never a trace
        shown = target.split("@")[-1] if "@" in target else target
        _fail(f"cannot open the database {shown}: {type(e).__name__}: {e}"[:400])
    where = "PostgreSQL" if is_postgres_url(target) else os.path.abspath(target)
    shown_host = f"[{host}]" if ":" in host else host
    base = s.server.public_url.rstrip("/") or f"http://{shown_host}:{port}"
    # the officials' links (console, committee) on the officials' plane
    officials = (s.server.officials_url.rstrip("/") or f"http://{shown_host}:{officials_port}"
                 if planes else base)
    if s.config_file:
        typer.echo(f"chukker: settings from {s.config_file} (chukker config shows them)")
    typer.echo(f"chukker: event store {where}")
    try:
        token, created_now = ((s.organiser_token, False) if s.organiser_token
                              else organiser_token(target))
    except OSError as e:
        store.close()
        _fail(f"cannot keep the organiser token beside {where}: {e.strerror or e}")
    if open_:
        typer.echo("chukker: OPEN mode: anyone may create matches (rate-limited per address)")
    elif created_now:
        typer.echo("chukker: organiser token (needed to create matches; shown only now, "
                   "`chukker organiser-token` shows it again):")
        typer.echo(f"  {token}")
    empty = not store.list_matches(1)
    if demo and empty:
        on_serving()  # the demo content is wanted: keep it, whatever happens next
        created = asyncio.run(LiveService(store).create_match(DEMO_HEADER))
        m = created.match_id
        typer.echo("chukker: demo match created (its secrets are shown only now):")
        typer.echo(f"  timekeeper console  {officials}/m/{m}/console"
                   f"#token={created.timekeeper_token}")
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
                if link.startswith(base + "/"):
                    link = officials + link[len(base):]
                typer.echo(f"  {arena + ' console':<19} {link}")
    elif demo:
        typer.echo("chukker: no demo content: the database already holds matches")
    elif empty:
        typer.echo("chukker: the database holds no match yet; create them at "
                   f"{officials}/new (for demo content, start with --demo)")
    if planes:
        typer.echo(f"chukker: serving on {base}/ (the public: pages, streams, feeds, API: "
                   f"{base}/docs); the officials on {officials}/ (API, consoles, new match: "
                   f"{officials}/new)")
    else:
        typer.echo(f"chukker: serving on {base}/ (new match: {base}/new, API: {base}/docs)")
    on_serving()
    if planes:
        # the processes open the store themselves; this one holds both ports (and the
        # SQLite file's lock) and supervises them
        store.close()
        code = supervise(s, host, port, s.server.public_workers, organiser=token,
                         open_mode=open_, officials_port=officials_port,
                         listening={x.getsockname()[1]: x for x in (sock, officials_sock)
                                    if x is not None},
                         runtime=folder)
        if code:
            raise typer.Exit(code)
        return
    # one process serves both planes; a supervisor (above) never imports the app itself:
    # its workers do, forked from the fork server that imported most of it
    from chukker.ops.logging import configure
    from chukker.web.app import create_app
    from chukker.web.state import state_of
    from chukker.web.workers import uvicorn_config

    app = create_app(store, organiser=token, open_mode=open_, settings=s, warm=True,
                     configured=configured)
    server_config = uvicorn_config(app, host, port)
    configure(s.log.format, s.log.level)
    server = _Server(server_config, state_of(app).service)
    server.run(sockets=None if sock is None else [sock])


class _Server:
    """uvicorn's server, ending the live streams first when asked to stop."""

    def __new__(cls, config: Any, service: Any) -> Any:
        from chukker.web.workers import stopping_server

        return stopping_server(config, service)


_LOCKS: list[Any] = []


def _lock_sqlite_file(target: str) -> Any:
    """One SQLite file, one server: hold an exclusive lock beside it while serving (with
    workers, the supervisor holds it for all of them); the lock file, held."""
    import fcntl

    path = target[len("sqlite:///"):] if target.startswith("sqlite:///") else target
    f = open(path + ".lock", "a+")  # noqa: SIM115 - held until the process ends
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        other = holders.lock_holder(f)
        f.close()
        who = other.words(with_database=False) if other else "another `chukker serve`"
        _fail(f"{os.path.abspath(path)} is already served by {who}. "
              "One SQLite file takes one server; for several servers on one database use "
              "PostgreSQL (--db postgresql://...).")
    _LOCKS.append(f)
    return f


def organiser_token_command(
    db: Annotated[str | None, typer.Option(
        help="SQLite file or postgresql:// URL (default: $CHUKKER_DATABASE, "
        f"else ./{DEFAULT_DB}).")] = None,
) -> None:
    """Print the organiser token (needed to create matches) of a database."""
    from chukker.store import is_postgres_url
    from chukker.web.security import organiser_token

    # one name for the database everywhere (issue 42): $CHUKKER_DATABASE, the old name too
    target = (db or os.environ.get("CHUKKER_DATABASE") or os.environ.get("CHUKKER_DATABASE_URL")
              or DEFAULT_DB)
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
    port: Annotated[
        int,
        typer.Option("--port", min=1, max=65535, help="Port of the local review server."),
    ] = 8765,
    lang: Annotated[str, typer.Option("--lang", help="en, es or it")] = "en",
    open_browser: Annotated[
        bool, typer.Option("--open/--no-open", help="Open the page in a browser.")
    ] = True,
) -> None:
    """Analyse FILE and open its review page (timeline, evidence, diagrams, CSV export).

    Starts a local web server on 127.0.0.1:PORT (8765 unless --port) and keeps
    running until Ctrl-C."""
    import threading
    import webbrowser

    import uvicorn

    from chukker.plays.review import analyse_file
    from chukker.plays.tracking import TrackingError
    from chukker.web.public.plays import app as pages

    try:
        rv = analyse_file(file)
    except (TrackingError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    url = f"http://127.0.0.1:{port}/plays/review/{rv.id}?lang={lang}"
    import socket

    with socket.socket() as probe:  # say so now, not with a traceback from the server
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            typer.echo(f"error: port {port} is in use; choose another with --port", err=True)
            raise typer.Exit(2) from None
    typer.echo(f"{len(rv.candidates)} candidates; review at {url}")
    typer.echo(
        f"starting a local web server on 127.0.0.1:{port} (only this computer can reach it); "
        "it runs until you press Ctrl-C"
    )
    if open_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(pages, host="127.0.0.1", port=port, log_level="warning")


def register_plays(plays: typer.Typer) -> None:
    """Add ``review`` (the analysis served as local pages) to ``chukker plays``: the
    plays package knows nothing of the web, so the command lives here."""
    if not any(c.name == "review" for c in plays.registered_commands):
        plays.command("review")(plays_review)


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``chukker`` command (``edge`` is :mod:`chukker.web.edge`'s own:
    a ``serve`` that refuses, its port taken, does not import the web app first)."""
    app.command("serve")(serve)
