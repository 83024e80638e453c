"""``chukker quiz``: take a test in the terminal, or check a question bank.

``chukker quiz [--level L] [--edition E] [--lang L] [-n N] [--seed S]`` asks the
questions one by one (Rich); answers are letters. When stdin is not a terminal the
answers are read from it, one per line, so a test can be scripted::

    printf 'a\\nb\\n' | chukker quiz -n 2 --seed 7 --csv result.csv

``chukker quiz check [FILE|DIR ...]`` validates bank files (the shipped bank when
none is given) and exits 1 listing every problem; a file or folder it cannot read,
or a folder with no bank file, is one line naming it (exit 1).

Exit codes of a test: ``0`` the candidate passed, ``1`` the candidate failed (below
the pass mark), ``2`` a usage error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from chukker.education.model import (
    EDITIONS,
    LANGS,
    BankError,
    Level,
    check_bank,
    clause_exists,
    corpus_lookup,
    load_bank,
    load_files,
)

app = typer.Typer(
    name="quiz",
    help="Rules tests for players, umpires and timekeepers; check a question bank.",
    add_completion=False,
    invoke_without_command=True,
)


@app.command("check")
def check_cmd(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Bank TOML files or folders (default: shipped)")
    ] = None,
    lang: Annotated[
        list[str] | None, typer.Option("--lang", help="Languages required (default en, es, it)")
    ] = None,
    db: Annotated[
        Path | None,
        typer.Option(help="Check the clauses against this imported rulebook database instead"),
    ] = None,
) -> None:
    """Check a bank: every clause exists in its edition, every language, answers consistent."""
    try:
        for path in paths or []:
            _readable_bank(path)
        qs = load_files(paths) if paths else list(load_bank().values())
        exists = corpus_lookup(db) if db is not None else clause_exists
    except BankError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    except OSError as e:  # a file that vanished or cannot be read: its name and why, in words
        why = (e.strerror or str(e)).lower()
        typer.echo(f"error: cannot read {e.filename or 'the bank'}: {why}", err=True)
        raise typer.Exit(1) from None
    problems = check_bank(qs, tuple(lang) if lang else LANGS, exists)
    for p in problems:
        typer.echo(p)
    if problems:
        typer.echo(f"{len(problems)} problem(s) in {len(qs)} questions", err=True)
        raise typer.Exit(1)
    typer.echo(f"ok: {len(qs)} questions")


def _readable_bank(path: Path) -> None:
    """Refuse, in one line, a path that is not a bank file or a folder holding some."""
    if not path.exists():
        raise BankError(f"{path}: no such file or folder")
    if path.is_dir() and not any(f.name != "clauses.toml" for f in path.glob("*.toml")):
        raise BankError(f"{path}: a folder with no question bank file (*.toml) in it")


@app.callback()
def take(
    ctx: typer.Context,
    level: Annotated[Level, typer.Option(help="player, umpire or timekeeper")] = Level.UMPIRE,
    edition: Annotated[str, typer.Option(help="Rules edition")] = EDITIONS[0],
    lang: Annotated[str, typer.Option(help="Language: en, es or it")] = "en",
    n: Annotated[int, typer.Option("-n", "--count", help="Number of questions")] = 20,
    seed: Annotated[int | None, typer.Option(help="Fixed seed: same questions for all")] = None,
    pass_mark: Annotated[float, typer.Option(help="Pass mark in percent")] = 94.0,
    name: Annotated[str, typer.Option(help="Candidate's name (for the CSV)")] = "",
    csv_out: Annotated[Path | None, typer.Option("--csv", help="Append the result as CSV")] = None,
) -> None:
    """Take a test (the default command)."""
    if ctx.invoked_subcommand is not None:
        return
    from chukker.education.terminal import run_test

    if edition not in EDITIONS:
        raise typer.BadParameter(f"--edition: one of {', '.join(EDITIONS)}")
    if lang not in LANGS:
        raise typer.BadParameter(f"--lang: one of {', '.join(LANGS)}")
    code = run_test(
        level=level,
        edition=edition,
        lang=lang,
        n=n,
        seed=seed,
        pass_mark=pass_mark,
        name=name,
        csv_out=csv_out,
        stdin=sys.stdin,
    )
    raise typer.Exit(code)
