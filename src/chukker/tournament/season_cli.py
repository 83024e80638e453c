"""``chukker season export``: one CSV line per match of the season; ``season show``: the
roll of honour, goals per player, penalties per player and per clause.

From the tournaments the server holds (its database: each tournament's log folded as
``chukker serve`` folds it, read only), or from tournament files given on the command
line (their records beside them). Exit codes: 0 written; 2 usage or a bad setting; 3 a file or the
database cannot be read (one line). Never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from chukker.tournament.model import TournamentError
from chukker.tournament.season import (
    Season,
    SeasonTournament,
    add_headers,
    from_file,
    season,
    season_csv,
)
from chukker.tournament.standings import Played, played_from_record, standings

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

def _fail(message: str, code: int) -> typer.Exit:
    sys.stderr.write("chukker: " + message.replace("\n", " ") + "\n")
    return typer.Exit(code)


def stored_tournament(tid: str, events: list[Any], store: Any) -> SeasonTournament | None:
    """One tournament of the store: its log folded (as the server folds it, writing
    nothing), its results replayed from its live matches' events. None if its log does
    not fold (the server logs that too)."""
    from chukker.engine import EngineError
    from chukker.live.tournaments import apply
    from chukker.record import RecordError, replay
    from chukker.store.base import StoreError

    lt = None
    try:
        for e in events:
            lt = apply(lt, tid, e)
    except (KeyError, TypeError, ValueError):
        return None
    if lt is None:
        return None
    t = lt.t  # its records are never read: results come from the store only
    played: dict[str, Played | str] = {}
    headers: dict[str, Mapping[str, Any]] = {}
    for mid, live_id in lt.live.items():
        if mid not in t.matches:
            continue
        try:
            row = store.get_match(str(live_id))
            evs = [e.event for e in store.events(str(live_id))]
        except StoreError:  # the store lost it: shown as scheduled
            continue
        rec = dict(row.header)
        rec["events"] = evs
        headers[mid] = rec
        if not evs:
            continue
        try:
            played[mid] = played_from_record(rec, replay(rec, strict=False))
        except (RecordError, EngineError) as err:
            played[mid] = str(err)
    s = standings(t, played)
    add_headers(t, s, headers)
    return SeasonTournament(tid, t, s, headers)


def server_tournaments(store: Any, folder: Path | None = None) -> list[SeasonTournament]:
    """Every tournament the server's store holds, oldest first (:func:`stored_tournament`),
    then those of the older version's files in ``folder`` (its ``tournaments_dir``) that
    the store does not hold yet: the server's next start imports them; read here as it
    will import them, without writing."""
    from chukker.ops_cli import folder_logs

    logs = [(tid, store.tournament_events(tid)) for tid, _seq in store.tournaments()]
    if folder is not None:
        logs += folder_logs(store, folder)[0]
    out = []
    for tid, events in logs:
        st = stored_tournament(tid, events, store)
        if st is not None:
            out.append(st)
    return out


FilesArg = Annotated[
    list[Path] | None,
    typer.Argument(help="Tournament files (.toml or .json); default: the server's."),
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option("--config", help="Settings file (TOML); default $CHUKKER_CONFIG.",
                 show_default=False),
]  # fmt: skip
DbOpt = Annotated[
    str | None,
    typer.Option("--db", help="SQLite file or postgresql:// URL (default: the 'database' "
                 "setting, $CHUKKER_DATABASE).", show_default=False),
]  # fmt: skip


def _gather(files: list[Path] | None, config: Path | None, db: str | None) -> Season:
    if files:
        got = []
        for f in files:
            try:
                got.append(from_file(f))
            except TournamentError as e:
                raise _fail(f"{f}: {e}", 3) from None
        return season(got)
    from chukker.config import ConfigError, load
    from chukker.store import open_store

    try:
        s = load(file=config if config is not None else True, overrides={"database": db})
    except ConfigError as e:
        raise _fail(f"bad setting {e}", 2) from None
    from chukker.store import is_postgres_url

    target = s.database_target()
    path = target[len("sqlite:///"):] if target.startswith("sqlite:///") else target
    if not is_postgres_url(target) and not Path(path).is_file():
        raise _fail(f"no database at {path} (name it with --db or $CHUKKER_DATABASE)", 3)
    try:
        store = open_store(target, pg_schema=s.database_schema)
    except Exception as e:  # noqa: BLE001 - any driver's error: one line, never a trace
        raise _fail(f"cannot open the database: {e}", 3) from None
    try:
        return season(server_tournaments(store, Path(s.tournaments_target())))
    except Exception as e:  # noqa: BLE001 - database gone: one line, no trace
        raise _fail(f"cannot read the database: {e}", 3) from None
    finally:
        store.close()


@app.command("export")
def export_cmd(
    files: FilesArg = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the CSV here (default stdout).")
    ] = None,
    config: ConfigOpt = None,
    db: DbOpt = None,
) -> None:
    """One CSV line per match: tournament, date, arena, teams, rosters with handicaps,
    score, winner and how decided (from the server's tournaments, or the FILES given)."""
    text = season_csv(_gather(files, config, db).rows)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


@app.command("show")
def show_cmd(
    files: FilesArg = None,
    top: Annotated[int, typer.Option("--top", help="Players listed per table.")] = 20,
    config: ConfigOpt = None,
    db: DbOpt = None,
) -> None:
    """The roll of honour, goals per player, penalties per player and per clause."""
    from rich.console import Console
    from rich.table import Table

    sn = _gather(files, config, db)
    con = Console()
    tab = Table(title="Roll of honour")
    for col in ("tournament", "winner", "runner-up", "third"):
        tab.add_column(col)
    for h in sn.honours:
        tab.add_row(h.tournament, *(x or "-" for x in (h.winner, h.runner_up, h.third)))
    con.print(tab)
    tab = Table(title="Goals per player")
    for col in ("player", "team", "goals", "points", "matches"):
        tab.add_column(col, justify="left" if col in ("player", "team") else "right")
    for g in sn.goals[:top]:
        tab.add_row(g.player, g.team, str(g.goals), str(g.points), str(g.matches))
    con.print(tab)
    tab = Table(title="Penalties per player")
    for col in ("player", "team", "fouls", "by penalty"):
        tab.add_column(col)
    for p in sn.penalties[:top]:
        by = ", ".join(f"Penalty {k} x {n}" for k, n in p.by_penalty)
        tab.add_row(p.player, p.team, str(p.fouls), by)
    con.print(tab)
    tab = Table(title="Penalties per clause")
    for col in ("clause", "fouls", "by penalty"):
        tab.add_column(col)
    for c in sn.clauses:
        tab.add_row(f"Rule {c.clause}", str(c.fouls),
                    ", ".join(f"Penalty {k} x {n}" for k, n in c.by_penalty))  # fmt: skip
    con.print(tab)
