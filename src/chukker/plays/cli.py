"""``chukker plays``: candidate fouls from tracking or scenario files, and diagrams."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from chukker.plays.candidates import Candidate
from chukker.plays.tracking import Side, Tracking

app = typer.Typer(
    name="plays",
    help="Play diagrams and candidate fouls from tracking data.",
    no_args_is_help=True,
    add_completion=False,
)


def _parse_defends(values: list[str]) -> list[tuple[str, Side]]:
    out = []
    for v in values:
        team, _, side = v.partition("=")
        try:
            out.append((team.strip().lower(), Side(side.strip().lower())))
        except ValueError:
            raise typer.BadParameter(f"--defends {v!r}: expected TEAM=left or TEAM=right") from None
    return out


def _analyse(tr: Tracking) -> list[Candidate]:
    from chukker.plays.detectors import detect

    return detect(tr)


@app.command()
def analyze(
    files: Annotated[
        list[Path],
        typer.Argument(help="Tracking CSV/Parquet, scenario TOML or GPS session TOML files."),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    defends: Annotated[
        list[str] | None,
        typer.Option("--defends", help="TEAM=left|right: the end a team defends (for Penalty 5b)."),
    ] = None,
) -> None:
    """List the candidate fouls (moments worth a look) in FILES."""
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from chukker.plays import gps
    from chukker.plays.words import describe

    sides = _parse_defends(defends or [])
    results: list[tuple[Path, Candidate]] = []
    sessions: dict[Path, gps.GPSSession] = {}
    err = Console(stderr=True)

    def run(path: Path) -> list[Candidate]:
        try:
            if gps.is_session(path):
                ses = sessions[path] = gps.read_session(path)
                tr = ses.tracking
            else:
                from chukker.plays.review import load_any

                tr = load_any(path)
        except (OSError, ValueError) as exc:  # TrackingError, LimitError: refusals
            err.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
            raise typer.Exit(2) from None
        if sides:
            tr = tr.with_defends(list(tr.defends) + sides)
        cands = _analyse(tr)
        if path in sessions:
            cands = [c for c in cands if sessions[path].keeps(c)]
        return cands

    if as_json:
        for f in files:
            results.extend((f, c) for c in run(f))
        out: dict[str, object] = {
            "candidates": [
                c.to_json() | ({"file": str(p)} if len(files) > 1 else {}) for p, c in results
            ]
        }
        if len(files) == 1 and sessions:
            out["gps"] = next(iter(sessions.values())).to_json()
        elif sessions:
            out["gps"] = {str(p): s.to_json() for p, s in sessions.items()}
        typer.echo(json.dumps(out, ensure_ascii=False))
        return
    with Progress(console=err, transient=True) as progress:
        task = progress.add_task("analysing", total=len(files))
        for f in files:
            progress.update(task, description=f"analysing {f.name}")
            results.extend((f, c) for c in run(f))
            progress.advance(task)
    console = Console()
    for sp, ses in sessions.items():
        for u in ses.units:
            console.print(
                f"{sp.name}: unit {u.unit} ({u.entity}): {u.read} fixes read, {u.dropped} dropped, "
                f"{u.filled} filled, median interval {u.median_interval_s or 0:.3f} s",
                markup=False,
            )
            if u.device is not None:
                cut = u.dropped - u.cut_before - u.cut_after
                console.print(
                    f"{sp.name}: unit {u.unit}: {u.device} file, used from "
                    f"{gps.iso(u.first_used)} to {gps.iso(u.last_used)}; cut outside the "
                    f"arena: {u.cut_before} before, {u.cut_after} after, {cut} between",
                    markup=False,
                )
            if u.file is not None:
                why = ", ".join(f"{n} {k}" for k, n in u.file["dropped"].items()) or "none"
                console.print(
                    f"{sp.name}: unit {u.unit}: its file: {u.file['kept']} of "
                    f"{u.file['points']} points kept (dropped: {why})"
                    + "".join(f"; {n}" for n in u.file["notes"]), markup=False)
            for a, b in u.gaps:
                console.print(f"{sp.name}: unit {u.unit}: a gap of {b - a:.1f} s from "
                              f"{a:.1f} s to {b:.1f} s (no candidate of its rider across it)",
                              markup=False)
        for clause, why in sorted(ses.not_run.items()):
            console.print(f"{sp.name}: {clause} not run: {why}", markup=False)
    if not results:
        console.print("no candidate fouls")
        return
    table = Table(title="Candidate fouls")
    for col in ("file", "clause", "player", "start", "end", "evidence"):
        table.add_column(col)
    for p, c in results:
        j = c.to_json()
        span = (f"{j['start']:.2f}", f"{j['end']:.2f}")
        table.add_row(p.name, j["clause"], c.who, *span, describe(c))
    console.print(table)


@app.command()
def render(
    scenario: Annotated[
        Path, typer.Argument(help="A scenario TOML file, or the id of a shipped one.")
    ],
    output: Annotated[Path, typer.Option("-o", "--output", help="FILE.svg or FILE.png")],
    at: Annotated[
        float | None, typer.Option("--at", "--png-at", help="PNG: the instant (s).")
    ] = None,
    lang: Annotated[str, typer.Option("--lang", help="en, es or it")] = "en",
    scale: Annotated[float, typer.Option("--scale", help="PNG: 2 for print")] = 1.0,
) -> None:
    """Draw SCENARIO as an animated SVG, or as a PNG of one instant."""
    from chukker.plays.scenario import ScenarioError, load, load_shipped

    try:
        sc = load(scenario) if scenario.exists() else load_shipped(str(scenario))
    except (ScenarioError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    suffix = output.suffix.lower()
    if suffix == ".svg":
        from chukker.plays.render_svg import render_svg

        output.write_text(render_svg(sc, lang), encoding="utf-8")
    elif suffix == ".png":
        from chukker.plays.render_png import render_png

        t = at if at is not None else (sc.render.png_at if sc.render.png_at is not None else 0.0)
        render_png(sc, t, lang, scale).save(output)
    else:
        typer.echo(f"error: {output}: output must end in .svg or .png", err=True)
        raise typer.Exit(2)
    typer.echo(str(output))


@app.command()
def arena(
    file: Annotated[Path, typer.Argument(help="One device's GPX, FIT or TCX file.")],
) -> None:
    """Print a session's [arena] corners from one device carried round the arena.

    Stand still for five seconds at each corner in turn: sw (x = 0, y = 0), nw, ne, se.
    """
    from chukker.plays.devices import DeviceError, corners_from_walk, read_device

    try:
        corners = corners_from_walk(read_device(file))
    except DeviceError as exc:
        typer.echo(f"error: {file.name}: {exc}" if not str(exc).startswith(file.name)
                   else f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    typer.echo("[arena]")
    for name, (lat, lon) in corners.items():
        typer.echo(f"{name} = [{lat:.7f}, {lon:.7f}]")


def _arena_option(value: str) -> dict[str, tuple[float, float]]:
    """``--arena``: eight numbers (sw, nw, ne, se as lat,lon), or a file holding the
    ``[arena]`` table (a session TOML, or what ``chukker plays arena`` prints)."""
    import tomllib

    from chukker.plays.gps import CORNERS, GPSError
    from chukker.plays.gps_sessions import parse_corners

    p = Path(value)
    try:
        if p.is_file():
            if p.stat().st_size > 64 * 1024:
                raise typer.BadParameter(f"--arena {value}: larger than 64 KiB")
            text = p.read_text(encoding="utf-8")
            try:
                doc = tomllib.loads(text)
            except tomllib.TOMLDecodeError:
                doc = {}
            if isinstance(doc.get("arena"), dict) and "format" in doc:
                text = "\n".join(f"{c} = {list(doc['arena'].get(c, []))}" for c in CORNERS)
            return parse_corners(text, f"--arena {p.name}")
        nums = [float(v) for v in value.replace(";", ",").replace(" ", ",").split(",") if v]
        if len(nums) != 8:
            raise typer.BadParameter("--arena: expected 8 numbers (sw, nw, ne, se as "
                                     "lat,lon) or a file with the [arena] table")
        return {c: (nums[2 * i], nums[2 * i + 1]) for i, c in enumerate(CORNERS)}
    except (GPSError, ValueError, OSError) as exc:
        if isinstance(exc, typer.BadParameter):
            raise
        raise typer.BadParameter(f"--arena: {exc}") from None


def _inspect_text(r: dict[str, object]) -> list[str]:
    if "refused" in r:
        return [f"{r['file']}: refused: {r['refused']}"]
    dropped = r["dropped"]
    assert isinstance(dropped, dict)
    why = ", ".join(f"{n} {k}" for k, n in dropped.items()) or "none"
    box = r["bbox"]
    assert isinstance(box, dict)
    gaps = r["gaps"]
    assert isinstance(gaps, list)
    lines = [
        f"{r['file']}: {str(r['kind']).upper()}, {r['points']} points kept of {r['read']} "
        f"(dropped: {why}; merged repeats: {r['merged']})",
        f"  from {r['first']} to {r['last']} (UTC), {r['rate_hz'] or '?'} Hz",
        f"  box: south {box['south']:.6f}, west {box['west']:.6f}, north "
        f"{box['north']:.6f}, east {box['east']:.6f}",
    ]
    if gaps:
        lines.append(f"  gaps: {len(gaps)} (longest {max(g['s'] for g in gaps):g} s, first "
                     f"from {gaps[0]['from']} to {gaps[0]['to']})")
    notes = r["notes"]
    assert isinstance(notes, list)
    lines += [f"  note: {n}" for n in notes]
    if "enters_arena" in r:
        lines.append(f"  enters the arena: {'yes' if r['enters_arena'] else 'no'} "
                     f"({r['in_arena']} points inside)")
    return lines


@app.command()
def inspect(
    files: Annotated[list[Path], typer.Argument(help="Device files: GPX, FIT or TCX.")],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per file, a line "
                                                          "each.")] = False,
    arena: Annotated[str | None, typer.Option(
        "--arena", help="The arena's corners: 8 numbers (sw, nw, ne, se as lat,lon) or a "
                        "file with the [arena] table: does each track enter it?")] = None,
) -> None:
    """What chukker reads from each device file, before any session is written.

    Exit status 0 when every file was read, 1 when any was refused (a refused file
    never stops the others)."""
    from chukker.plays.inspect import FIELDS, inspect_files

    corners = _arena_option(arena) if arena is not None else None
    refused = False
    for f in files:
        (r,) = inspect_files([f], corners, [str(f)])
        refused |= "refused" in r
        if as_json:
            if "refused" not in r:
                r = {k: r[k] for k in FIELDS} | {k: v for k, v in r.items() if k not in FIELDS}
            typer.echo(json.dumps(r, ensure_ascii=False))
        else:
            for line in _inspect_text(r):
                typer.echo(line)
    if refused:
        raise typer.Exit(1)


@app.command("list")
def list_scenarios() -> None:
    """The shipped scenarios: id, clause and verdict."""
    from chukker.plays.scenario import shipped, text_in

    for s in shipped():
        typer.echo(f"{s.id}\t{s.clause}\t{s.verdict}\t{text_in(s.title, 'en')}")
