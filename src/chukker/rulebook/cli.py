"""``chukker rules``: import the rulebook, show a rule or clause, search, compare editions.

The database is ``--db``, else ``$CHUKKER_RULES_DB``, else ``rules.sqlite3``
in the user's data folder (platformdirs), so the commands work from any folder.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer

from chukker.rulebook.corpus import Corpus, default_db_path
from chukker.rulebook.diff import EditionDiff, diff_editions
from chukker.rulebook.importers import RulebookFormatError
from chukker.rulebook.languages import language
from chukker.rulebook.model import rule_of_clause_id
from chukker.rulebook.pages import DEFAULT_EDITION, render_clause, render_text, rule_page
from chukker.rulebook.reader import parse_file
from chukker.rulebook.search import lookup

app = typer.Typer(
    name="rules",
    help="The rulebook: import, show, search, diff.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

DbOpt = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="Rulebook database (default: $CHUKKER_RULES_DB, else rules.sqlite3 in the user's "
        "data folder).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)


def _dump(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))


def _check_lang(lang: str | None) -> None:
    if lang is not None:
        try:
            language(lang)
        except ValueError as exc:
            _fail(str(exc))


def _read_corpus(db: Path | None) -> Corpus | None:
    return Corpus.open_readonly(db if db is not None else default_db_path())


@app.command("import")
def import_(
    files: Annotated[
        list[Path],
        typer.Argument(help="Rulebooks: PDF, web pages (HTML), rule pages or summaries (text)."),
    ],
    db: DbOpt = None,
    edition: Annotated[
        str | None,
        typer.Option(help="Edition id, when the file does not say (e.g. uspa-arena-2006)."),
    ] = None,
    lang: Annotated[
        str | None,
        typer.Option(help="The documents' language, when they do not say (any code: fr, pt-BR)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Import rulebook documents into the database, each in one transaction.

    Importing the same documents again, in any order, changes nothing.
    """
    _check_lang(lang)
    path = db if db is not None else default_db_path()
    failed = False
    results: list[dict[str, Any]] = []
    try:
        corpus = Corpus.open(path)
    except ValueError as exc:
        _fail(str(exc))
        return
    with corpus:
        for f in files:
            try:
                if not f.is_file():
                    raise RulebookFormatError(str(f), 0, "no such file")
                parsed = parse_file(f, edition, lang)
                reports = corpus.store(parsed)
            except (RulebookFormatError, ValueError) as exc:
                failed = True
                typer.echo(f"error: {exc}", err=True)
                continue
            statuses = sorted({r.status.value for r in reports})
            clauses = sum(r.clauses for r in reports)
            results.append(
                {
                    "file": str(f),
                    "edition": parsed.edition,
                    "kind": parsed.kind.value,
                    "lang": parsed.lang,
                    "rules": [r.rule for r in reports],
                    "clauses": clauses,
                    "status": {s: sum(r.status == s for r in reports) for s in statuses},
                    "not_aligned": {
                        "missing": [c for r in reports for c in r.missing],
                        "extra": [c for r in reports for c in r.extra],
                    },
                }
            )
            if not as_json:
                what = ", ".join(f"{n} {s}" for s, n in results[-1]["status"].items())
                rules = f"Rule {reports[0].rule}" if len(reports) == 1 else f"{len(reports)} rules"
                typer.echo(
                    f"{f.name}: {parsed.edition} {rules} ({parsed.lang}), {clauses} clauses: {what}"
                )
                missing = [c for r in reports for c in r.missing]
                extra = [c for r in reports for c in r.extra]
                if missing:
                    typer.echo(f"  not in this translation: {', '.join(missing)}")
                if extra:
                    typer.echo(
                        f"  not aligned (no such clause in the original): {', '.join(extra)}"
                    )
    if as_json:
        _dump(results)
    if failed:
        raise typer.Exit(1)


@app.command()
def show(
    ident: Annotated[
        str, typer.Argument(metavar="ID", help="A rule number (5) or clause id (13b).")
    ],
    edition: Annotated[str, typer.Option(help="Edition id.")] = DEFAULT_EDITION,
    lang: Annotated[
        str, typer.Option(help="Language of the translation: any code (en, es, it, fr, pt-BR...).")
    ] = "en",
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show a rule (with chukker's summary and engine parameters) or one clause."""
    _check_lang(lang)
    corpus = _read_corpus(db)
    try:
        number = rule_of_clause_id(ident)
        page = rule_page(corpus, edition, number, lang)
    except ValueError as exc:
        _fail(str(exc))
        return
    if ident.strip() == str(number):
        if as_json:
            _dump(asdict(page))
        else:
            typer.echo(render_text(page))
        return
    clause = next((c for c in page.clauses if c.id == ident.strip()), None)
    if clause is None:
        where = page.source_edition
        known = ", ".join(c.id for c in page.clauses) or "none imported"
        _fail(f"no clause {ident!r} in {where} Rule {number} (clauses: {known})")
        return
    if as_json:
        _dump({"edition": page.source_edition, "lang": lang, "clause": asdict(clause)})
    else:
        typer.echo("\n".join(render_clause(clause, lang, page.changes)))


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="Words to find (accents and case optional).")],
    lang: Annotated[
        str | None, typer.Option(help="Only this language's text (en: the originals).")
    ] = None,
    edition: Annotated[str | None, typer.Option(help="Only this edition.")] = None,
    limit: Annotated[int, typer.Option(min=1, max=200)] = 20,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Full-text search of originals and translations, best match first."""
    _check_lang(lang)
    corpus = _read_corpus(db)
    if corpus is None:
        _fail("no rulebook database yet: import the rules with `chukker rules import FILE...`")
        return
    found = lookup(corpus, query, lang=lang, edition=edition, limit=limit)
    hits = found.hits
    if as_json:
        _dump([{**asdict(h), "snippet": h.plain_snippet("", "")} for h in hits])
        return
    if not hits:
        typer.echo("nothing found")
        return
    if found.suggestion is not None:
        typer.echo(f"nothing found for {query!r}; did you mean {found.suggestion!r}? Its results:")
    for h in hits:
        head = f"{h.edition}  {h.clause}"
        if h.heading:
            head += f"  {h.heading}"
        typer.echo(f"{head}  ({h.lang})\n    {h.plain_snippet()}")


def _diff_json(d: EditionDiff) -> dict[str, Any]:
    return asdict(d)


@app.command()
def diff(
    edition_a: Annotated[str, typer.Argument(help="The older edition.")],
    edition_b: Annotated[str, typer.Argument(help="The newer edition.")],
    rule: Annotated[int | None, typer.Option(help="Only this rule.")] = None,
    db: DbOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Clauses added, removed and changed between two editions, with changed numbers."""
    corpus = _read_corpus(db)
    if corpus is None:
        _fail("no rulebook database yet: import the rules with `chukker rules import FILE...`")
        return
    try:
        d = diff_editions(corpus, edition_a, edition_b, rule)
    except ValueError as exc:
        _fail(str(exc))
        return
    if as_json:
        _dump(_diff_json(d))
        return
    typer.echo(f"{edition_a} → {edition_b}")
    for rd in d.rules:
        typer.echo(f"\nRule {rd.rule}: {len(rd.changes)} changes, {len(rd.unchanged)} unchanged")
        for cid, paired in rd.pairings:
            typer.echo(f"  = {cid}  [paired by {paired.value}]")
        for ch in rd.changes:
            mark = {"added": "+", "removed": "-", "changed": "~", "moved": ">"}[ch.kind.value]
            was = f" (was {', '.join(ch.was)})" if ch.was and ch.clause else ""
            name = ch.clause or ", ".join(ch.was)
            heading = f"  {ch.heading}" if ch.heading else ""
            how = f"  [paired by {ch.pairing.value}]" if ch.pairing else ""
            if ch.moved_from:
                how += f" moved from Rule {', '.join(map(str, ch.moved_from))}"
            typer.echo(f"  {mark} {name}{heading}{was}{how}")
            for n in ch.numbers:
                typer.echo(f"      number: {n.before} → {n.after}   “{n.context}”")
    if d.only_in_a or d.only_in_b:
        typer.echo("")
    if d.only_in_a:
        rules = ", ".join(map(str, d.only_in_a))
        typer.echo(f"only {edition_a} has text for Rules {rules}; not compared")
    if d.only_in_b:
        rules = ", ".join(map(str, d.only_in_b))
        typer.echo(f"only {edition_b} has text for Rules {rules}; not compared")
    if d.params:
        typer.echo("\nengine parameters:")
        for p in d.params:
            typer.echo(f"  {p.name}: {p.before} [{p.clause_a}] → {p.after} [{p.clause_b}]")


#: the most bytes of a club edition file (a whole one is well under 4 KiB)
EDITION_FILE_MAX = 64 * 1024


def _club_file(path: Path) -> Any:
    """A club edition read from a TOML or JSON file (exit 2 naming the file if it cannot
    be read, is too big or is not TOML/JSON)."""
    import tomllib

    from chukker.rules.club import club_edition

    try:
        with path.open("rb") as f:
            raw = f.read(EDITION_FILE_MAX + 1)
    except OSError as e:
        typer.echo(f"error: {path}: {e.strerror or e}", err=True)
        raise typer.Exit(2) from None
    if len(raw) > EDITION_FILE_MAX:
        typer.echo(f"error: {path}: larger than {EDITION_FILE_MAX // 1024} KiB: not a club "
                   "edition", err=True)
        raise typer.Exit(2)
    try:
        text = raw.decode("utf-8")
        doc = json.loads(text) if path.suffix.lower() == ".json" else tomllib.loads(text)
    except (UnicodeDecodeError, ValueError) as e:
        typer.echo(f"error: {path}: not a TOML or JSON club edition: {str(e)[:120]}", err=True)
        raise typer.Exit(2) from None
    if isinstance(doc, dict) and isinstance(doc.get("edition"), dict):
        doc = doc["edition"]  # a whole match header, or a tournament's club edition
    try:
        return club_edition(doc)
    except ValueError as e:
        typer.echo(f"error: {path}: {e}", err=True)
        raise typer.Exit(1) from None


@app.command("edition")
def edition_(
    which: Annotated[str, typer.Argument(
        help="A known edition (uspa-arena-2026, uspa-arena-2006) or a club edition file "
        "(TOML or JSON).")],
    as_toml: Annotated[bool, typer.Option(
        "--toml", help="Print a starting club edition file: every parameter and its "
        "clause.")] = False,
    against: Annotated[str | None, typer.Option(
        "--diff", help="Show what the edition changes from this known edition.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """An edition's parameters with their clauses; a club's starting file; what a club
    changed (record 1.3, docs/engine.md "Club rules")."""
    from chukker.rules.club import differences, starting_toml
    from chukker.rules.editions import EDITIONS

    ed = EDITIONS.get(which)
    if ed is None:
        ed = _club_file(Path(which))
    if as_toml:
        typer.echo(starting_toml(ed), nl=False)
        return
    if against is not None:
        base = EDITIONS.get(against)
        if base is None:
            typer.echo(f"error: --diff: unknown edition {against!r} (known: "
                       f"{', '.join(EDITIONS)})", err=True)
            raise typer.Exit(2)
        rows = differences(ed, base)
        if as_json:
            _dump([{"parameter": p, "base": a, "club": b, "clause": c} for p, a, b, c in rows])
            return
        typer.echo(f"{ed.title} against {base.id}: {len(rows)} changes")
        for p, a, b, c in rows:
            typer.echo(f"  {p}: {a} -> {b}   [{c}]")
        return
    params = [{"parameter": k, "value": v.value, "clause": v.clause, "note": v.note}
              for k, v in ed.params().items()]
    plans = [{"parameter": k, "count": ed.plan(k).count, "length_ms": ed.plan(k).length_ms,
              "intervals_ms": list(ed.plan(k).intervals_ms), "clause": ed.plan(k).clause}
             for k in ("regulation", "six")]
    if as_json:
        _dump({"edition": str(ed.id), "title": ed.title, "features": sorted(ed.features),
               "plans": plans, "params": params})
        return
    typer.echo(f"{ed.title} ({ed.id})")
    for pl in plans:
        typer.echo(f"  {pl['parameter']}: {pl['count']} x {pl['length_ms']} ms, intervals "
                   f"{pl['intervals_ms']}   [{pl['clause']}]")
    for pa in params:
        typer.echo(f"  {pa['parameter']}: {pa['value']}   [{pa['clause']}] {pa['note']}")


def main() -> None:  # pragma: no cover
    app(prog_name="chukker rules")


if __name__ == "__main__":  # pragma: no cover
    main()
