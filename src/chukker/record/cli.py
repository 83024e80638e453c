"""``chukker replay``, ``chukker check`` and ``chukker schema``.

Exit codes: 0 success; 1 the record was refused (a header error or a refused
event: one line on stderr naming it); 2 usage error; 3 the file cannot be read
or is not well-formed JSON/TOML (one line with line and column).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from chukker.engine import EngineError
from chukker.engine import replay as replay_events
from chukker.record import check, parse, replay, schema
from chukker.record.errors import RecordError
from chukker.record.io import format_of, read_typed

EXIT_REFUSED = 1
EXIT_UNREADABLE = 3


def _fail(message: str, code: int) -> typer.Exit:
    sys.stderr.write(message.replace("\n", " ") + "\n")
    return typer.Exit(code)


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise _fail(f"{path}: cannot read: {e.strerror or e}", EXIT_UNREADABLE) from None
    except UnicodeDecodeError:
        raise _fail(f"{path}: not UTF-8 text", EXIT_UNREADABLE) from None


def _parsed(path: Path, text: str) -> dict[str, Any]:
    try:
        return parse(text, format_of(path))
    except RecordError as e:
        raise _fail(f"{path}: {e}", EXIT_UNREADABLE) from None


def _read(path: Path) -> dict[str, Any]:
    return _parsed(path, _text(path))


def _replayed(path: Path, at_ms: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The record's header (or whole record) and its report: a JSON record read once, its
    events straight into their classes (:func:`chukker.record.io.read_typed`), any other
    parsed and replayed as a dict. Refused: exit 3."""
    text = _text(path)
    try:
        got = read_typed(text) if format_of(path) == "json" else None
        if got is not None:
            return got[0], replay_events(got[1], got[2], at_ms)
        record = _parsed(path, text)
        return record, replay(record, at_ms)
    except (EngineError, RecordError) as e:
        raise _fail(f"{path}: {e}", EXIT_REFUSED) from None


def _seconds_to_ms(at: float | None) -> int | None:
    if at is None:
        return None
    if at < 0:
        raise _fail("--at must not be negative", 2)
    return round(at * 1000)


def replay_cmd(
    files: Annotated[list[Path], typer.Argument(
        help="Match records (.json or .toml); several give one report each, in order.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    at: Annotated[float | None, typer.Option("--at", help="Report the state at T seconds.")] = None,
) -> None:
    """Replay match records and report the state (as of --at T, else run on).

    With several files: one report each (with --json one JSON object per line); a file
    refused or unreadable gets its line on stderr, the others are still reported, and
    the exit code is that of the first failure.
    """
    at_ms = _seconds_to_ms(at)
    failed: int | None = None
    for file in files:
        try:
            record, report = _replayed(file, at_ms)
        except typer.Exit as ex:
            if len(files) == 1:
                raise
            failed = failed if failed is not None else ex.exit_code
            continue
        if as_json:
            sys.stdout.write(json.dumps(report, ensure_ascii=False) + "\n")
            continue
        if len(files) > 1:
            Console().print(f"[bold]{file}[/bold]")
        _summary(record, report)
    if failed is not None:
        raise typer.Exit(failed)


def check_cmd(
    file: Annotated[Path, typer.Argument(help="The match record (.json or .toml).")],
) -> None:
    """List every problem in a record (each refused event with its number)."""
    record = _read(file)
    problems = check(record)
    for p in problems:
        sys.stdout.write(f"{file}: {p}\n")
    if problems:
        raise typer.Exit(EXIT_REFUSED)
    sys.stdout.write(f"{file}: ok ({len(record.get('events', []))} events)\n")


def schema_cmd() -> None:
    """Print the JSON Schema of the match record."""
    sys.stdout.write(json.dumps(schema(), indent=2) + "\n")


def register(app: typer.Typer) -> None:
    app.command("replay")(replay_cmd)
    app.command("check")(check_cmd)
    app.command("schema")(schema_cmd)


def _clock(ms: int) -> str:
    s = (ms + 999) // 1000
    return f"{s // 60}:{s % 60:02d}"


def _summary(record: dict[str, Any], r: dict[str, Any]) -> None:
    con = Console()
    teams = record.get("teams", {})
    names = {k: (v.get("name") or k) for k, v in teams.items()}
    title = " vs ".join(f"{names[k]} {r['score'][k]}" for k in r["score"])
    con.print(f"[bold]{title}[/bold]")
    if r.get("practice"):
        pr = r["practice"]
        con.print(
            f"[yellow]practice[/yellow]: periods of {pr['period_s']:g} s, "
            f"intervals of {pr['interval_s']:g} s (not a result)"
        )
    rules = r.get("rules") or {}
    if rules.get("edition") == "club":
        con.print(f"rules: {escape(str(rules['name']))} (club rules on {rules['base']}; "
                  f"changed: {', '.join(rules['changed']) or 'nothing'})", highlight=False)
    status = r["status"]
    line = f"status: {status}, period {r['period']}, clock {_clock(r['clock']['remaining_ms'])}"
    if r["clock"]["running"]:
        line += " (running)"
    con.print(line)
    if r["winner"] is not None or r["decided_by"]:
        w = names.get(r["winner"], "none") if r["winner"] else "none"
        con.print(f"winner: {w} ({r['decided_by']})")
    hg = {k: v for k, v in r["handicap_goals"].items() if v}
    if hg:
        con.print("handicap goals: " + ", ".join(f"{names[k]} {v}" for k, v in hg.items()))

    t = Table(title="Periods")
    t.add_column("period", justify="right")
    t.add_column("start", justify="right")
    t.add_column("end", justify="right")
    for k in r["score"]:
        t.add_column(names[k], justify="right")
    for p in r["periods"]:
        row = [str(p["number"]), f"{p['start']:.3f}", "" if p["end"] is None else f"{p['end']:.3f}"]
        for k in r["score"]:
            row.append(
                str(
                    sum(
                        g["points"]
                        for g in r["goals"]
                        if g["team"] == k and g["period"] == p["number"]
                    )
                )
            )
        t.add_row(*row)
    con.print(t)

    by_player: dict[tuple[str, Any], int] = {}
    for g in r["goals"]:
        key = (g["team"], g["player"] if g["kind"] == "field" else "penalty")
        by_player[key] = by_player.get(key, 0) + g["points"]
    if by_player:
        g_t = Table(title="Goals by player")
        g_t.add_column("team")
        g_t.add_column("player")
        g_t.add_column("goals", justify="right")
        for (team, pl), n in sorted(by_player.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
            g_t.add_row(names[team], "?" if pl is None else str(pl), str(n))
        con.print(g_t)
    if r["horns"]:
        con.print(
            "horns: " + ", ".join(f"{h['kind']} p{h['period']} {h['at']:.3f} s" for h in r["horns"])
        )
    if r["fouls"]:
        f_t = Table(title="Penalties")
        for c in ("at", "period", "team", "player", "penalty", "clause"):
            f_t.add_column(c)
        for f in r["fouls"]:
            f_t.add_row(
                f"{f['at']:.3f}",
                str(f["period"]),
                names.get(f["team"], f["team"]),
                str(f["player"] or ""),
                str(f["penalty"]),
                str(f["clause"] or ""),
            )
        con.print(f_t)
    if r.get("shootout"):
        so = r["shootout"]
        con.print(
            "shootout: "
            + ", ".join(f"{names[k]} {v}" for k, v in so["score"].items())
            + f" after {len(so['shots'])} shots"
        )
    if r.get("restart"):
        rs = r["restart"]
        spot = rs.get("spot")
        where = f" at ({spot[0]:g}, {spot[1]:g}) yd" if spot else ""
        pen = f" (penalty {rs['penalty']})" if rs.get("penalty") else ""
        con.print(f"next restart: {rs['kind']}{pen}{where}")
    for c in r.get("corrections", []):
        con.print(
            f"[yellow]clock corrected[/yellow] {c['at']:.3f} s, period {c['period']}: "
            f"{_clock(c['from_ms'])} -> {_clock(c['to_ms'])} ({c['reason']})"
        )
    for n in r.get("notices", []):
        con.print(f"[yellow]notice[/yellow] {n['at']:.3f} s: {n['text']} (Rule {n['clause']})")
