"""``chukker tournament``: new, check, standings, match, schedule, register.

Exit codes: 0 success; 1 problems found (``check``) or a refusal; 2 usage;
3 the file cannot be read (one line with its line and column). Never a traceback.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from chukker.tournament.model import MatchSpec, Stage, Tournament, TournamentError, load_path
from chukker.tournament.standings import MatchResult

if TYPE_CHECKING:
    from chukker.tournament.standings import Standings

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

EXIT_PROBLEMS = 1
EXIT_UNREADABLE = 3


def _fail(message: str, code: int) -> typer.Exit:
    sys.stderr.write(message.replace("\n", " ") + "\n")
    return typer.Exit(code)


def _load(path: Path) -> Tournament:
    try:
        return load_path(path)
    except TournamentError as e:
        raise _fail(f"{path}: {e}", EXIT_UNREADABLE) from None


FileArg = Annotated[Path, typer.Argument(help="The tournament file (.toml or .json).")]


def starting_doc(name: str, venue: str, dates: list[dt.date], arenas: list[str],
                 teams: list[str]) -> dict[str, object]:
    """A starting tournament (issue 42): the teams (three players each, to be named, at
    handicap 0 from the first day), one pool of them all, its matches over the arenas from
    9:00 on the first day (to 18:00 on each of the ``dates``). ``chukker tournament check``
    passes it; the committee edits names, handicaps and stages from there.

    >>> d = starting_doc("Cup", "Oak Hill", [dt.date(2026, 12, 5)], ["Arena 1"], ["Reds", "Blues"])
    >>> [t["id"] for t in d["teams"]], len(d["matches"])
    (['reds', 'blues'], 1)
    """
    import re

    from chukker.tournament.model import from_dict
    from chukker.tournament.schedule import plan_round_robins

    ids: list[str] = []
    for n in teams:
        base = re.sub(r"[^a-z0-9]+", "-", n.lower()).strip("-") or "team"
        tid, k = base, 2
        while tid in ids:
            tid, k = f"{base}-{k}", k + 1
        ids.append(tid)
    first = dates[0]
    players = [{"id": f"{tid}-{k}", "name": f"{name_} {k}", "registered": [first.year],
                "handicaps": [{"from": first, "value": 0}]}
               for tid, name_ in zip(ids, teams, strict=True) for k in (1, 2, 3)]
    doc: dict[str, object] = {
        "format": "chukker-tournament/1", "name": name, "rules": "uspa-arena-2026",
        "venue": venue, "team_handicap": {"min": 0, "max": 12},
        "players": players,
        "teams": [{"id": tid, "name": n, "players": [f"{tid}-{k}" for k in (1, 2, 3)],
                   "captain": f"{tid}-1"} for tid, n in zip(ids, teams, strict=True)],
        "stages": [{"id": "pool", "kind": "round-robin", "teams": ids}],
    }
    t = from_dict(doc)
    start = dt.datetime.combine(first, dt.time(9))
    end = dt.time(18) if len(dates) > 1 else None
    for m in plan_round_robins(t, start, arenas or ["Arena 1"], day_end=end):
        t.matches[m.id] = m
    out: dict[str, object] = t.to_dict()
    return out


@app.command("new")
def new_cmd(
    output: Annotated[Path, typer.Argument(help="The file to write (.toml or .json).")],
    name: Annotated[str | None, typer.Option("--name", help="The tournament's name.")] = None,
    venue: Annotated[str | None, typer.Option("--venue", help="Where it is played.")] = None,
    dates: Annotated[str | None, typer.Option(
        "--dates", help="The first day, or first and last: 2026-12-05[,2026-12-06].")] = None,
    arenas: Annotated[str | None, typer.Option(
        "--arenas", help="Arena names, comma-separated (default: Arena 1).")] = None,
    teams: Annotated[str | None, typer.Option(
        "--teams", help="Team names, comma-separated (2 or more).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing file.")] = False,
) -> None:
    """Write a starting tournament file from a few answers (asked when not given)."""
    from chukker.tournament.model import dumps, format_of, from_dict

    if output.exists() and not force:
        raise _fail(f"{output}: exists (use --force to replace it)", 2)
    ask = sys.stdin.isatty()

    def answer(value: str | None, question: str, default: str) -> str:
        if value is not None:
            return value.strip()
        return str(typer.prompt(question, default=default)).strip() if ask else default

    name_ = answer(name, "Tournament name", "Our tournament")[:120]
    venue_ = answer(venue, "Venue", "Our arena")[:120]
    days_raw = answer(dates, "Dates (first[,last])", dt.date.today().isoformat())
    arenas_ = [a.strip()[:60] for a in answer(arenas, "Arenas (comma-separated)",
                                              "Arena 1").split(",") if a.strip()][:20]
    teams_ = [x.strip()[:60] for x in answer(teams, "Teams (comma-separated)",
                                             "Team A,Team B,Team C,Team D").split(",")
              if x.strip()][:64]
    try:
        days = [dt.date.fromisoformat(x.strip()) for x in days_raw.split(",") if x.strip()]
    except ValueError:
        raise _fail(f"--dates: {days_raw[:40]!r} is not YYYY-MM-DD[,YYYY-MM-DD]", 2) from None
    if not days or len(days) > 2 or days != sorted(days):
        raise _fail("--dates: the first day, or the first and the last day", 2)
    if len(teams_) < 2 or len(set(teams_)) != len(teams_):
        raise _fail("--teams: at least two teams, each named once", 2)
    doc = starting_doc(name_, venue_, days, arenas_ or ["Arena 1"], teams_)
    t = from_dict(doc)
    output.write_text(dumps(t, format_of(output)), encoding="utf-8")
    sys.stderr.write(f"{output}: {name_}, {len(teams_)} teams, {len(t.matches)} pool matches "
                     f"on {', '.join(arenas_ or ['Arena 1'])} from {days[0]}; check it with "
                     f"`chukker tournament check {output}`\n")


@app.command("check")
def check_cmd(file: FileArg) -> None:
    """Every problem of the tournament, each naming its match, player, team or stage."""
    from chukker.tournament.check import check

    t = _load(file)
    problems = check(t)
    for p in problems:
        sys.stdout.write(f"{file}: {p}\n")
    if problems:
        raise typer.Exit(EXIT_PROBLEMS)
    sys.stdout.write(
        f"{file}: ok ({len(t.teams)} teams, {len(t.matches)} matches, "
        f"{sum(1 for m in t.matches.values() if m.record)} records)\n"
    )


#: a server's or an export's tournament file is read up to this size
MAX_STORED_BYTES = 64 << 20


def _stored(file: Path) -> tuple[Tournament, Standings] | None:
    """The standings of a file a server stores or exports: an export's
    ``tournaments/<id>.json`` (the tournament's log, folded as the server folds it; its
    results replayed from the export's ``matches/`` beside it) or an older version's
    ``tournaments_dir`` file (its document; results are in the server's database). None
    for any other file (a tournament file, read as such)."""
    from chukker.tournament.standings import standings

    if file.suffix.lower() != ".json":
        return None
    try:
        if file.stat().st_size > MAX_STORED_BYTES:
            raise _fail(f"{file}: larger than {MAX_STORED_BYTES} bytes", EXIT_UNREADABLE)
        d = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None  # read as a tournament file: its error says where
    if not isinstance(d, dict):
        return None
    from chukker.live.tournaments import apply, web_tournament
    from chukker.store.backup import TOURNAMENT_LOG, parse_tournament_log

    try:
        if d.get("format") == TOURNAMENT_LOG:
            tid, events = parse_tournament_log(file.read_text(encoding="utf-8"), str(file))
            lt = None
            for e in events:
                lt = apply(lt, tid, e)
            assert lt is not None  # a log has an event
            return lt.t, standings(lt.t, _exported_results(file, lt.t, lt.live))
        if "doc" in d and "committee_hash" in d:
            t = web_tournament(d["doc"])
            sys.stderr.write(f"{file}: a server's tournament file holds no results (they are "
                             "in its database): every match shows as scheduled; for the "
                             "results: chukker season show, or chukker export and this "
                             "command on the export's tournaments/<id>.json\n")
            return t, standings(t, {})
    except (KeyError, TypeError, ValueError, RecursionError) as e:
        raise _fail(f"{file}: {type(e).__name__}: {e}"[:400], EXIT_UNREADABLE) from None
    return None


def _exported_results(file: Path, t: Tournament, live: dict[str, str]) -> dict[str, Any]:
    """The results of an export's tournament: its live matches' records in the export's
    ``matches/`` folder, replayed (a record that does not replay counts as refused)."""
    from chukker.engine import EngineError
    from chukker.record import RecordError, replay
    from chukker.record import load_path as load_record
    from chukker.tournament.standings import played_from_record

    folder = file.resolve().parent.parent / "matches"
    played: dict[str, Any] = {}
    missing = 0
    for mid, live_id in live.items():
        if mid not in t.matches:
            continue
        p = folder / f"{live_id}.json"
        if not p.is_file():
            missing += 1
            continue
        try:
            rec = load_record(p)
            if rec.get("events"):
                played[mid] = played_from_record(rec, replay(rec, strict=False))
        except (RecordError, EngineError) as e:
            played[mid] = str(e)
    if missing:
        sys.stderr.write(f"{file}: {missing} live matches have no record in {folder}: "
                         "they show as scheduled\n")
    return played


@app.command("standings")
def standings_cmd(
    file: Annotated[Path, typer.Argument(help=(
        "The tournament file (.toml or .json), an export's tournaments/<id>.json, or a "
        "server's tournaments_dir file."))],
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as JSON.")] = False,
) -> None:
    """Tables and order of finish, derived from the match records (or, for an export's
    tournament, from the records of the export's matches)."""
    from chukker.tournament.standings import standings

    stored = _stored(file)
    if stored is not None:
        t, s = stored
    else:
        t = _load(file)
        s = standings(t)
    if not t.teams and not t.matches:
        raise _fail(f"{file}: holds no tournament (no teams, no matches): give a tournament "
                    "file, an export's tournaments/<id>.json or a server's tournament file",
                    EXIT_UNREADABLE)
    if as_json:
        sys.stdout.write(json.dumps(s.to_json(), ensure_ascii=False) + "\n")
        return
    con = Console()
    con.print(f"[bold]{t.name}[/bold]")
    for st in s.stages:
        if st.kind == "round-robin":
            tab = Table(title=f"{st.id} ({'complete' if st.complete else 'in progress'})")
            for col in ("place", "team", "P", "W", "L", "GF", "GA", "net", "decided by"):
                tab.add_column(col, justify="left" if col in ("team", "decided by") else "right")
            for r in st.table:
                tab.add_row(
                    str(r.place),
                    t.team_name(r.team),
                    str(r.played),
                    str(r.won),
                    str(r.lost),
                    str(r.goals_for),
                    str(r.goals_against),
                    f"{r.net_goals:+d}",
                    (r.decided_by or "").replace("_", " "),
                )
            con.print(tab)
            for mid in st.matches:
                mr = s.match(mid)
                if mr.final and mr.forfeited:
                    con.print(
                        f"  {mid}: {' v '.join(t.team_name(x) for x in mr.teams)}: {_result(t, mr)}"
                    )
            for reason in st.reasons:
                con.print(f"  {reason.text(t.team_name)}")
            waiting = {x for w in st.waiting for x in w.teams}
            by_place: dict[int, list[str]] = {}
            for r in st.table:
                by_place.setdefault(r.place, []).append(r.team)
            for place, tied in by_place.items():
                if len(tied) > 1 and not set(tied) & waiting:
                    con.print(
                        "  "
                        + ", ".join(t.team_name(x) for x in tied)
                        + f" share place {place}: equal on every criterion"
                    )
            for w in st.waiting:
                con.print(
                    f"  [yellow]waiting for a {w.by}:[/yellow] "
                    + ", ".join(t.team_name(x) for x in w.teams)
                )
        else:
            ms = [s.match(mid) for mid in st.matches]
            tab = Table(title=f"{st.id} ({'complete' if st.complete else 'in progress'})")
            for col in ("match", "teams", "score", "winner"):
                tab.add_column(col)
            for mr in ms:
                tab.add_row(
                    mr.id,
                    " v ".join(
                        t.team_name(x) if x else ref.describe()
                        for x, ref in zip(mr.teams, t.matches[mr.id].teams, strict=True)
                    ),
                    _result(t, mr),
                    t.team_name(mr.winner) if mr.winner else "",
                )
            con.print(tab)
            for b in st.byes:
                con.print(f"  {t.team_name(b['team']) if b['team'] else b['slot']}: bye")


@app.command("match")
def match_cmd(
    file: FileArg,
    match_id: Annotated[str, typer.Argument(help="The match id.")],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here.")] = None,
    fmt: Annotated[str, typer.Option("--format", help="json or toml")] = "json",
) -> None:
    """Write the match record header (rosters and handicaps from the register on the date)."""
    from chukker.record import dumps
    from chukker.tournament.records import NotReady, header
    from chukker.tournament.standings import standings

    t = _load(file)
    if match_id not in t.matches:
        raise _fail(f"{file}: no match {match_id!r}", EXIT_PROBLEMS)
    m = t.matches[match_id]
    s = standings(t)
    try:
        rec = header(t, m, s.match(match_id).teams)
    except NotReady as e:
        raise _fail(f"{file}: {e}", EXIT_PROBLEMS) from None
    for x in s.match(match_id).teams:
        if x is not None and len(t.teams[x].players) != 3:
            raise _fail(
                f"{file}: match {match_id}: team {x} does not have 3 players", EXIT_PROBLEMS
            )
    text = dumps(rec, "toml" if fmt == "toml" else "json")
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


def _parse_dt(value: str, what: str) -> dt.datetime:
    try:
        return dt.datetime.fromisoformat(value).replace(tzinfo=None)
    except ValueError:
        raise _fail(
            f"{what}: expected a local date-time like 2026-12-05T10:00, got {value!r}", 2
        ) from None


@app.command("schedule")
def schedule_cmd(
    file: FileArg,
    ics: Annotated[Path | None, typer.Option("--ics", help="Write an iCalendar file.")] = None,
    generate: Annotated[
        bool, typer.Option("--generate", help="Schedule round robins that have no matches.")
    ] = False,
    start: Annotated[str | None, typer.Option("--start", help="First slot (--generate).")] = None,
    arena: Annotated[
        list[str] | None, typer.Option("--arena", help="An arena (repeat for each).")
    ] = None,
    slot: Annotated[int | None, typer.Option("--slot", help="Slot length in minutes.")] = None,
    day_end: Annotated[
        str | None,
        typer.Option(
            "--day-end",
            help="No match ends after HH:MM (later slots go to the next day, with a warning); "
            "default: [venue_hours] day_end in the file.",
        ),
    ] = None,
    rest: Annotated[
        int,
        typer.Option(
            "--rest", min=0, max=20, help="--generate: at least N slots between a team's matches."
        ),
    ] = 1,
    move: Annotated[
        list[str] | None,
        typer.Option("--move", help="Committee edit ID=DATETIME[@ARENA] (repeatable)."),
    ] = None,
    bracket: Annotated[
        str | None,
        typer.Option(
            "--bracket",
            help="A single elimination STAGE=POOL,POOL[:N] seeded from the first N (2) of each "
            "pool, of any size (byes to the best seeds), from --bracket-start or after the "
            "last match.",
        ),
    ] = None,
    third_place: Annotated[
        bool, typer.Option("--third-place", help="--bracket: add a third-place match.")
    ] = False,
    consolation: Annotated[
        bool,
        typer.Option(
            "--consolation",
            help="--bracket: add a consolation bracket STAGE-consolation for the losers of "
            "the first round.",
        ),
    ] = False,
    bracket_start: Annotated[
        str | None, typer.Option("--bracket-start", help="First slot of the bracket.")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Write the edited tournament here.")
    ] = None,
) -> None:
    """The day's schedule by time and arena; generate round robins and brackets, edit
    slots, --ics."""
    from chukker.tournament import schedule as sch
    from chukker.tournament.model import dumps, format_of

    t = _load(file)
    if t.problems:
        for p in t.problems:
            sys.stderr.write(f"{file}: {p}\n")
        raise typer.Exit(EXIT_PROBLEMS)
    edited = False
    if generate:
        if start is None or not arena:
            raise _fail("--generate needs --start and at least one --arena", 2)
        end = sch.venue_day_end(t)
        if day_end is not None:
            try:
                end = dt.time.fromisoformat(day_end)
            except ValueError:
                raise _fail(f"--day-end: expected HH:MM, got {day_end!r}", 2) from None
        made = sch.plan_round_robins(t, _parse_dt(start, "--start"), arena, slot, end, rest)
        for m in made:
            t.matches[m.id] = m
        day = sch.summary(made, arena, slot or sch.slot_minutes(t))
        sys.stderr.write(f"{file}: {len(made)} pool matches, rest {rest}\n")
        for line in day.lines(end):
            sys.stderr.write(f"{file}: {line}\n")
        edited = True
    if bracket is not None:
        sid, _, spec = bracket.partition("=")
        try:
            pools, counts = _bracket_pools(spec)
        except ValueError as e:
            raise _fail(f"--bracket: {e}", 2) from None
        if not sid or not pools or any(p not in t.stages for p in pools) or sid in t.stages:
            raise _fail("--bracket: STAGE=POOL[:N],POOL[:N] with known pools and a new stage id", 2)
        minutes = slot or sch.slot_minutes(t)
        if bracket_start is not None:
            first = _parse_dt(bracket_start, "--bracket-start")
        else:
            # after each team's last pool match, with --rest's free slots too (issue 42)
            found = sch.bracket_start(t, pools, minutes, rest)
            if found is None:
                raise _fail("--bracket needs --bracket-start (no match has a start)", 2)
            first = found
        arenas = arena or sorted({m.arena for m in t.matches.values() if m.arena}) or []
        need = dict(zip(pools, counts, strict=True))
        short = [p for p in pools if t.stages[p].teams and len(t.stages[p].teams) < need[p]]
        if short:
            p0 = short[0]
            raise _fail(
                f"--bracket: {p0} has {len(t.stages[p0].teams)} teams; {need[p0]} cannot go on",
                2,
            )
        try:
            stage, ms = sch.bracket(sid, pools, counts, first, arenas, minutes, third_place)
            extra: list[tuple[Stage, list[MatchSpec]]] = [(stage, ms)]
            if consolation:
                after = max((m.start for m in ms if m.start is not None), default=first)
                extra.append(
                    sch.consolation(
                        f"{sid}-consolation",
                        ms,
                        after + dt.timedelta(minutes=minutes),
                        arenas,
                        minutes,
                    )
                )
        except ValueError as e:
            raise _fail(f"--bracket: {e}", 2) from None
        for stage, ms in extra:
            t.stages[stage.id] = stage
            for m in ms:
                t.matches[m.id] = m
        edited = True
    for edit in move or []:
        mid, _, to = edit.partition("=")
        when, _, where = to.partition("@")
        if mid not in t.matches:
            raise _fail(f"{file}: no match {mid!r}", EXIT_PROBLEMS)
        sch.move(t, mid, _parse_dt(when, "--move") if when else None, where or None)
        edited = True
    for c in sch.clashes(t, slot):
        sys.stderr.write(f"{file}: warning: {c}\n")
    if ics is not None:
        ics.write_bytes(sch.to_ics(t, slot))
    if edited:
        text = dumps(t, format_of(output or file))
        if output is None:
            sys.stdout.write(text)
        else:
            output.write_text(text, encoding="utf-8")
        return
    if ics is not None:
        return
    from chukker.tournament.standings import standings

    s = standings(t)
    con = Console()
    tab = Table(title=f"{t.name}: schedule")
    for col in ("time", "arena", "match", "stage", "teams", "result"):
        tab.add_column(col)
    ms = sorted(t.matches.values(), key=lambda m: (m.start or dt.datetime.max, m.arena or ""))
    for m in ms:
        r = s.match(m.id)
        names = " v ".join(
            t.team_name(x) if x is not None else ref.describe()
            for x, ref in zip(r.teams, m.teams, strict=True)
        )
        res = _result(t, r)
        tab.add_row(
            m.start.strftime("%a %d %b %H:%M") if m.start else "",
            m.arena or "",
            m.id,
            m.stage,
            names,
            res,
        )
    con.print(tab)


def _bracket_pools(spec: str) -> tuple[list[str], list[int]]:
    """``pool-a:4,pool-b:3`` -> the pools and how many of each go on. A pool without a
    number takes the number written after the last pool (``a,b:3``: three of each, as
    before), else 2.

    >>> _bracket_pools("pool-a:4,pool-b:3"), _bracket_pools("a,b:3"), _bracket_pools("a,b")
    ((['pool-a', 'pool-b'], [4, 3]), (['a', 'b'], [3, 3]), (['a', 'b'], [2, 2]))
    """
    pools: list[str] = []
    given: list[int | None] = []
    for part in spec.split(","):
        name, sep, n_s = part.strip().partition(":")
        if not name:
            continue
        n: int | None = None
        if sep:
            try:
                n = int(n_s)
            except ValueError:
                raise ValueError(f"N must be a whole number, got {n_s!r}") from None
            if n < 1:
                raise ValueError(f"N must be 1 or more, got {n}")
        pools.append(name)
        given.append(n)
    default = given[-1] if given and given[-1] is not None else 2
    return pools, [n if n is not None else default for n in given]


def _result(t: Tournament, r: MatchResult) -> str:
    """The result in words (a forfeit reads as one), else the status."""
    from chukker.tournament.words import result_words

    names = [t.team_name(x) if x else "?" for x in r.teams]
    words = result_words(r.status, r.score, None, [t.team_name(x) for x in r.forfeited], names)
    return words if words is not None else r.status


@app.command("register")
def register_cmd(
    file: FileArg,
    csv_file: Annotated[
        Path, typer.Option("--csv", help="Players: id, name, registered, handicap, from.")
    ],
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here.")] = None,
) -> None:
    """Import the register of players (handicap history) from a CSV file."""
    from chukker.tournament.model import dumps, format_of
    from chukker.tournament.register import read_csv, what_changed

    t = _load(file)
    try:
        players = read_csv(csv_file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise _fail(f"{csv_file}: cannot read: {e}", EXIT_UNREADABLE) from None
    except TournamentError as e:
        raise _fail(f"{csv_file}: {e}", EXIT_UNREADABLE) from None
    said = what_changed(t.players, players)
    t.players.update(players)
    text = dumps(t, format_of(output or file))
    sys.stderr.write(f"{csv_file}: {said}; written to {output or 'standard output'}\n")
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


@app.command("export")
def export_cmd(
    file: FileArg,
    what: Annotated[str, typer.Option("--what", help="matches, standings or all (JSON)")] = "all",
    fmt: Annotated[str, typer.Option("--format", help="csv or json")] = "json",
) -> None:
    """Results for the association's database: CSV or JSON of matches and standings."""
    from chukker.tournament.export import matches_csv, results_json, standings_csv
    from chukker.tournament.standings import standings

    t = _load(file)
    s = standings(t)
    if fmt == "csv":
        if what not in ("matches", "standings"):
            raise _fail("--format csv needs --what matches or --what standings", 2)
        sys.stdout.write(matches_csv(t, s) if what == "matches" else standings_csv(s))
        return
    doc = results_json(t, s)
    if what == "matches":
        doc = {"name": doc["name"], "matches": doc["matches"]}
    elif what == "standings":
        doc = {"name": doc["name"], "stages": doc["stages"]}
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
