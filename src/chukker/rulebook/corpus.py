"""The rulebook corpus in SQLite: editions, rules, clauses, translations, full-text index.

The imported text lives only in the user's database (``$CHUKKER_RULES_DB``,
else ``rules.sqlite3`` in the user's data folder); the project ships none of it.

Every imported document is kept as parsed (table ``documents``); the rules
shown, searched and compared are *composed* from all documents of an
edition in a fixed order (originals and bilingual pages by language and file
name, then one-language translations aligned by rule and clause number).
So importing the same documents in any order gives the same database, and
re-importing changes nothing. Each document is stored in one transaction:
a failure halfway leaves the database as it was.

>>> from chukker.rulebook.reader import parse_text
>>> corpus = Corpus.open(":memory:")
>>> src = parse_text("RULE 1\\nFIELD:\\nA flat floor.\\n", "demo.txt", edition="demo-arena-2000")
>>> [r.status.value for r in corpus.store(src)]
['added']
>>> [r.status.value for r in corpus.store(src)]
['unchanged']
>>> corpus.rule("demo-arena-2000", 1).clauses[0].original
'A flat floor.'
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from chukker.rulebook.importers import ParsedSource, SourceKind
from chukker.rulebook.languages import ORIGINAL_LANG, stemmer
from chukker.rulebook.model import (
    Clause,
    ClauseKind,
    EditionInfo,
    Origin,
    Passage,
    Play,
    PlayStep,
    Rule,
    RuleText,
    fold,
    rule_of_clause_id,
)

DEFAULT_DB = "rules.sqlite3"
SCHEMA_VERSION = "2"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS editions (
  id TEXT PRIMARY KEY, title TEXT NOT NULL, year INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS rule_texts (
  edition TEXT NOT NULL, rule INTEGER NOT NULL, lang TEXT NOT NULL,
  title TEXT NOT NULL, name TEXT NOT NULL, subtitle TEXT NOT NULL, footer TEXT NOT NULL,
  PRIMARY KEY (edition, rule, lang));
CREATE TABLE IF NOT EXISTS clauses (
  edition TEXT NOT NULL, id TEXT NOT NULL, rule INTEGER NOT NULL, seq INTEGER NOT NULL,
  kind TEXT NOT NULL, heading TEXT NOT NULL, parent TEXT NOT NULL,
  PRIMARY KEY (edition, id));
CREATE INDEX IF NOT EXISTS clauses_rule ON clauses (edition, rule, seq);
CREATE TABLE IF NOT EXISTS passages (
  edition TEXT NOT NULL, clause TEXT NOT NULL, seq INTEGER NOT NULL, original TEXT NOT NULL,
  PRIMARY KEY (edition, clause, seq));
CREATE TABLE IF NOT EXISTS translations (
  edition TEXT NOT NULL, clause TEXT NOT NULL, seq INTEGER NOT NULL, lang TEXT NOT NULL,
  text TEXT NOT NULL, PRIMARY KEY (edition, clause, seq, lang));
CREATE TABLE IF NOT EXISTS extras (
  edition TEXT NOT NULL, clause TEXT NOT NULL, lang TEXT NOT NULL, seq INTEGER NOT NULL,
  kind TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (edition, clause, lang, seq));
CREATE TABLE IF NOT EXISTS documents (
  name TEXT NOT NULL, edition TEXT NOT NULL, kind TEXT NOT NULL, lang TEXT NOT NULL,
  title TEXT NOT NULL, year INTEGER NOT NULL, rules TEXT NOT NULL, digest TEXT NOT NULL,
  payload TEXT NOT NULL, PRIMARY KEY (name, edition));
CREATE TABLE IF NOT EXISTS unaligned (
  edition TEXT NOT NULL, rule INTEGER NOT NULL, lang TEXT NOT NULL, clause TEXT NOT NULL,
  side TEXT NOT NULL, PRIMARY KEY (edition, rule, lang, clause, side));
CREATE VIRTUAL TABLE IF NOT EXISTS clause_fts USING fts5(
  edition UNINDEXED, clause UNINDEXED, rule UNINDEXED, lang UNINDEXED, heading, body, stems,
  tokenize = "unicode61 remove_diacritics 2");
"""


def default_db_path() -> Path:
    """``$CHUKKER_RULES_DB``, else ``rules.sqlite3`` in the user's data folder (platformdirs).

    The same database whatever the current folder, so ``chukker rules search``
    works from anywhere.
    """
    env = os.environ.get("CHUKKER_RULES_DB")
    if env:
        return Path(env)
    from platformdirs import user_data_path

    return user_data_path("chukker", appauthor=False) / DEFAULT_DB


class StoreStatus(StrEnum):
    ADDED = "added"
    UPDATED = "updated"
    UNCHANGED = "unchanged"


@dataclass(frozen=True, slots=True)
class StoreReport:
    """What storing one rule did."""

    edition: str
    rule: int
    lang: str
    clauses: int
    plays: int
    status: StoreStatus
    #: for a translation: clauses of the original it has no text for
    missing: tuple[str, ...] = ()
    #: for a translation: its clauses that no clause of the original matches
    extra: tuple[str, ...] = ()


class Corpus:
    """A rulebook database. Use :meth:`open`; close with :meth:`close` or ``with``."""

    def __init__(self, conn: sqlite3.Connection, path: str, readonly: bool = False) -> None:
        self.conn = conn
        self.path = path
        self.readonly = readonly
        self._langs: list[str] | None = None

    # ----------------------------------------------------------- lifecycle

    @classmethod
    def open(cls, path: str | Path | None = None) -> Corpus:
        """Open (creating if needed) the database at ``path`` (default :func:`default_db_path`)."""
        p = str(path if path is not None else default_db_path())
        if p != ":memory:":
            Path(p).parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(p)
        row = None
        with suppress(sqlite3.DatabaseError):
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if row is not None and row[0] != SCHEMA_VERSION:
            conn.close()
            raise ValueError(
                f"rules: {p} holds a rulebook database of schema {row[0]} (this chukker writes "
                f"{SCHEMA_VERSION}); import the documents into a new file"
            )
        conn.executescript(_SCHEMA)
        conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (SCHEMA_VERSION,)
        )
        conn.commit()
        return cls(conn, p)

    @classmethod
    def open_readonly(cls, path: str | Path | None = None) -> Corpus | None:
        """Open an existing database without writing; ``None`` if there is none yet."""
        p = Path(path if path is not None else default_db_path())
        if not p.is_file():
            return None
        conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)
        try:
            conn.execute("SELECT 1 FROM clauses LIMIT 1")
            row = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        except sqlite3.DatabaseError:
            conn.close()
            return None
        if row is None or row[0] != SCHEMA_VERSION:  # an older chukker's: as good as none
            conn.close()
            return None
        return cls(conn, str(p), readonly=True)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Corpus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self.conn:
            yield self.conn

    # --------------------------------------------------------------- write

    def store(self, parsed: ParsedSource) -> list[StoreReport]:
        """Store one document (one transaction) and recompose the rules it touches.

        Idempotent: a document stored before with the same content is not
        rewritten and its rules are reported ``unchanged``.
        """
        payload = json.dumps(
            [_rule_to_json(r) for r in parsed.rules], ensure_ascii=False, sort_keys=True
        )
        digest = hashlib.sha256(
            "\x00".join((parsed.kind.value, parsed.lang, parsed.edition_title, payload)).encode()
        ).hexdigest()
        name = Path(parsed.source).name
        numbers = sorted({r.number for r in parsed.rules})
        self._langs = None
        with self._tx() as c:
            old = c.execute(
                "SELECT digest, rules FROM documents WHERE name=? AND edition=?",
                (name, parsed.edition),
            ).fetchone()
            if old is None or old[0] != digest:
                c.execute(
                    "INSERT OR REPLACE INTO documents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        name,
                        parsed.edition,
                        parsed.kind.value,
                        parsed.lang,
                        parsed.edition_title,
                        parsed.year,
                        ",".join(map(str, numbers)),
                        digest,
                        payload,
                    ),
                )
            before = {int(x) for x in old[1].split(",") if x} if old is not None else set()
            self._refresh_edition(parsed.edition)
            reports = [
                self._recompose(parsed.edition, n, parsed.lang) for n in sorted({*numbers, *before})
            ]
        return [r for r in reports if r.rule in numbers]

    def _documents(self, edition: str, number: int) -> list[tuple[str, str, str, Rule]]:
        """``(name, kind, lang, rule)`` of the documents holding rule ``number``, in order."""
        docs: list[tuple[bool, str, str, str, Rule]] = []
        for name, kind, lang, payload in self.conn.execute(
            "SELECT name, kind, lang, payload FROM documents WHERE edition=? "
            "AND (',' || rules || ',') LIKE ?",
            (edition, f"%,{number},%"),
        ):
            for d in json.loads(payload):
                if d["number"] == number:
                    translation = (
                        kind in (SourceKind.HTML, SourceKind.PDF) and lang != ORIGINAL_LANG
                    )
                    docs.append((translation, lang, name, kind, _rule_from_json(d)))
        docs.sort(key=lambda d: (d[0], d[1], d[2]))
        return [(name, kind, lang, rule) for translation, lang, name, kind, rule in docs]

    def _refresh_edition(self, edition: str) -> None:
        rows = self.conn.execute(
            "SELECT kind, lang, name, title, year FROM documents WHERE edition=?", (edition,)
        ).fetchall()
        if not rows:
            self.conn.execute("DELETE FROM editions WHERE id=?", (edition,))
            return
        rows.sort(
            key=lambda r: (
                r[0] in (SourceKind.HTML, SourceKind.PDF) and r[1] != ORIGINAL_LANG,
                r[1],
                r[2],
            )
        )
        _, _, _, title, year = rows[0]
        self.conn.execute(
            "INSERT INTO editions (id, title, year) VALUES (?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET title = excluded.title, year = excluded.year "
            "WHERE editions.title <> excluded.title OR editions.year <> excluded.year",
            (edition, title, year),
        )

    def _recompose(self, edition: str, number: int, lang: str) -> StoreReport:
        docs = self._documents(edition, number)
        composed, unaligned = compose(docs)
        existing = self.rule(edition, number)
        old_unaligned = set(
            self.conn.execute(
                "SELECT lang, clause, side FROM unaligned WHERE edition=? AND rule=?",
                (edition, number),
            ).fetchall()
        )
        mine = [u for u in unaligned if u[0] == lang]
        missing = tuple(c for lg, c, side in mine if side == "missing")
        extra = tuple(c for lg, c, side in mine if side == "extra")
        n_clauses = sum(len(r.clauses) for _, _, lg, r in docs if lg == lang)
        plays = sum(len(c.plays) for _, _, lg, r in docs if lg == lang for c in r.clauses)
        if existing == composed and old_unaligned == set(unaligned):
            status = StoreStatus.UNCHANGED
        else:
            status = StoreStatus.ADDED if existing is None else StoreStatus.UPDATED
            self.conn.execute("DELETE FROM unaligned WHERE edition=? AND rule=?", (edition, number))
            self.conn.executemany(
                "INSERT INTO unaligned VALUES (?, ?, ?, ?, ?)",
                [(edition, number, lg, c, side) for lg, c, side in unaligned],
            )
            self._write_rule(composed, edition, number)
        return StoreReport(edition, number, lang, n_clauses, plays, status, missing, extra)

    def _write_rule(self, rule: Rule | None, ed: str, n: int) -> None:
        c = self.conn
        ids = [
            r[0] for r in c.execute("SELECT id FROM clauses WHERE edition=? AND rule=?", (ed, n))
        ]
        for table in ("passages", "translations", "extras"):
            c.executemany(
                f"DELETE FROM {table} WHERE edition=? AND clause=?", [(ed, i) for i in ids]
            )
        c.execute("DELETE FROM clauses WHERE edition=? AND rule=?", (ed, n))
        c.execute("DELETE FROM rule_texts WHERE edition=? AND rule=?", (ed, n))
        c.execute("DELETE FROM clause_fts WHERE edition=? AND rule=?", (ed, n))
        if rule is None:
            return
        c.executemany(
            "INSERT INTO rule_texts VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(ed, n, t.lang, t.title, t.name, t.subtitle, t.footer) for t in rule.texts],
        )
        for cl in rule.clauses:
            c.execute(
                "INSERT INTO clauses VALUES (?, ?, ?, ?, ?, ?, ?)",
                (ed, cl.id, n, cl.seq, cl.kind.value, cl.heading, cl.parent),
            )
            for seq, p in enumerate(cl.passages, 1):
                c.execute("INSERT INTO passages VALUES (?, ?, ?, ?)", (ed, cl.id, seq, p.original))
                c.executemany(
                    "INSERT INTO translations VALUES (?, ?, ?, ?, ?)",
                    [(ed, cl.id, seq, lg, text) for lg, text in p.translations],
                )
            rows = [
                (ed, cl.id, pl.lang, i, "play", _play_json(pl)) for i, pl in enumerate(cl.plays, 1)
            ]
            more: list[tuple[str, str, str]] = [
                (lg, "note", json.dumps(text, ensure_ascii=False)) for lg, text in cl.notes
            ]
            more += [
                (lg, "heading", json.dumps(text, ensure_ascii=False)) for lg, text in cl.headings
            ]
            more += [
                (o.lang, "origin", json.dumps(asdict(o), ensure_ascii=False, sort_keys=True))
                for o in cl.origins
            ]
            base = len(rows)
            rows += [(ed, cl.id, lg, base + i, k, d) for i, (lg, k, d) in enumerate(more, 1)]
            c.executemany("INSERT INTO extras VALUES (?, ?, ?, ?, ?, ?)", rows)
            for lg, heading, body in _fts_rows(cl):
                c.execute(
                    "INSERT INTO clause_fts (edition, clause, rule, lang, heading, body, stems) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (ed, cl.id, n, lg, heading, body, stem_text(f"{heading}\n{body}", lg)),
                )

    # ---------------------------------------------------------------- read

    def editions(self) -> list[EditionInfo]:
        """The editions in the database, oldest first, with the rules each holds."""
        out = []
        for ed, title, year in self.conn.execute(
            "SELECT id, title, year FROM editions ORDER BY year, id"
        ):
            rules = tuple(
                r[0]
                for r in self.conn.execute(
                    "SELECT DISTINCT rule FROM clauses WHERE edition=? ORDER BY rule", (ed,)
                )
            )
            out.append(EditionInfo(ed, title, year, rules))
        return out

    def edition_info(self, edition: str) -> EditionInfo | None:
        for e in self.editions():
            if e.id == edition:
                return e
        return None

    def previous_edition(self, edition: str) -> str | None:
        """The newest edition older than ``edition`` in the database, if any."""
        eds = self.editions()
        me = next((e for e in eds if e.id == edition), None)
        if me is None:
            return None
        older = [e for e in eds if e.year < me.year]
        return older[-1].id if older else None

    def rule(self, edition: str, number: int) -> Rule | None:
        """Rule ``number`` of ``edition`` as stored, or ``None``."""
        c = self.conn
        texts = tuple(
            RuleText(*row)
            for row in c.execute(
                "SELECT lang, title, name, subtitle, footer FROM rule_texts "
                "WHERE edition=? AND rule=? ORDER BY lang",
                (edition, number),
            )
        )
        rows = c.execute(
            "SELECT id, seq, kind, heading, parent FROM clauses "
            "WHERE edition=? AND rule=? ORDER BY seq",
            (edition, number),
        ).fetchall()
        if not rows and not texts:
            return None
        passages: dict[str, dict[int, str]] = {}
        for cid, seq, original in c.execute(
            "SELECT p.clause, p.seq, p.original FROM passages p JOIN clauses k "
            "ON k.edition = p.edition AND k.id = p.clause WHERE k.edition=? AND k.rule=?",
            (edition, number),
        ):
            passages.setdefault(cid, {})[seq] = original
        trans: dict[tuple[str, int], list[tuple[str, str]]] = {}
        for cid, seq, lg, text in c.execute(
            "SELECT t.clause, t.seq, t.lang, t.text FROM translations t JOIN clauses k "
            "ON k.edition = t.edition AND k.id = t.clause WHERE k.edition=? AND k.rule=? "
            "ORDER BY t.lang",
            (edition, number),
        ):
            trans.setdefault((cid, seq), []).append((lg, text))
        plays: dict[str, list[Play]] = {}
        notes: dict[str, list[tuple[str, str]]] = {}
        headings: dict[str, list[tuple[str, str]]] = {}
        origins: dict[str, list[Origin]] = {}
        for cid, lg, kind, data in c.execute(
            "SELECT e.clause, e.lang, e.kind, e.data FROM extras e JOIN clauses k "
            "ON k.edition = e.edition AND k.id = e.clause WHERE k.edition=? AND k.rule=? "
            "ORDER BY e.lang, e.seq",
            (edition, number),
        ):
            if kind == "play":
                plays.setdefault(cid, []).append(_play_from_json(lg, data))
            elif kind == "origin":
                origins.setdefault(cid, []).append(Origin(**json.loads(data)))
            elif kind == "heading":
                headings.setdefault(cid, []).append((lg, str(json.loads(data))))
            else:
                notes.setdefault(cid, []).append((lg, str(json.loads(data))))
        clauses = tuple(
            Clause(
                edition=edition,
                id=cid,
                rule=number,
                seq=seq,
                kind=ClauseKind(kind),
                heading=heading,
                passages=tuple(
                    Passage(orig, tuple(trans.get((cid, s), ())))
                    for s, orig in sorted(passages.get(cid, {}).items())
                ),
                parent=parent,
                plays=tuple(plays.get(cid, ())),
                notes=tuple(notes.get(cid, ())),
                headings=tuple(headings.get(cid, ())),
                origins=tuple(origins.get(cid, ())),
            )
            for cid, seq, kind, heading, parent in rows
        )
        return Rule(edition, number, texts, clauses)

    def rule_or_earlier(self, edition: str, number: int) -> tuple[Rule | None, str]:
        """Rule ``number`` of ``edition``, else of the newest earlier edition that has it.

        Returns the rule and the edition it came from ("where the 2026 pages
        are silent, the 2006 text is what exists").
        """
        r = self.rule(edition, number)
        if r is not None and r.clauses:
            return r, edition
        prev = self.previous_edition(edition)
        while prev is not None:
            r = self.rule(prev, number)
            if r is not None and r.clauses:
                return r, prev
            prev = self.previous_edition(prev)
        return None, edition

    def clause(self, edition: str, clause_id: str) -> Clause | None:
        """One clause by its id, or ``None``."""
        try:
            n = rule_of_clause_id(clause_id)
        except ValueError:
            return None
        r = self.rule(edition, n)
        if r is None:
            return None
        return next((c for c in r.clauses if c.id == clause_id), None)

    def languages(self) -> list[str]:
        """Languages with text in the database (English first when there are originals)."""
        if self._langs is not None:
            return list(self._langs)
        rows = self.conn.execute(
            "SELECT lang FROM rule_texts UNION SELECT lang FROM documents ORDER BY lang"
        ).fetchall()
        langs = [str(r[0]) for r in rows]
        if ORIGINAL_LANG in langs:
            langs.remove(ORIGINAL_LANG)
            langs.insert(0, ORIGINAL_LANG)
        self._langs = langs
        return list(langs)

    def unaligned(self, edition: str, number: int) -> list[tuple[str, str, str]]:
        """``(lang, clause, side)`` of rule ``number``: ``missing`` from a translation, or
        ``extra`` in it (no clause of that number in the original)."""
        return [
            (str(a), str(b), str(c))
            for a, b, c in self.conn.execute(
                "SELECT lang, clause, side FROM unaligned WHERE edition=? AND rule=? "
                "ORDER BY lang, side, clause",
                (edition, number),
            )
        ]

    def documents(self) -> list[tuple[str, str, str, str]]:
        """``(name, edition, kind, lang)`` of every imported document."""
        return [
            (str(a), str(b), str(c), str(d))
            for a, b, c, d in self.conn.execute(
                "SELECT name, edition, kind, lang FROM documents ORDER BY edition, name"
            )
        ]

    def counts(self) -> dict[str, int]:
        """Row counts by table (for reports and tests)."""
        tables = (
            "editions",
            "rule_texts",
            "clauses",
            "passages",
            "translations",
            "extras",
            "clause_fts",
        )
        return {
            t: int(self.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in tables
        }

    def dump(self) -> list[tuple[object, ...]]:
        """Every row of every table, ordered: equal dumps mean equal databases."""
        out: list[tuple[object, ...]] = []
        for t in (
            "editions",
            "rule_texts",
            "clauses",
            "passages",
            "translations",
            "extras",
            "documents",
            "unaligned",
        ):
            rows = self.conn.execute(f"SELECT * FROM {t}").fetchall()
            out += [(t, *row) for row in sorted(rows, key=_row_key)]
        # the index's rows by content (their rowids follow the order of writing)
        rows = self.conn.execute("SELECT * FROM clause_fts").fetchall()
        out += [("clause_fts", *row) for row in sorted(rows, key=_row_key)]
        return out


def _row_key(row: tuple[object, ...]) -> tuple[str, ...]:
    return tuple(f"{x:020d}" if isinstance(x, int) else str(x) for x in row)


def _merge(existing: Rule, new: Rule, lang: str) -> Rule:
    """``new`` (one language's page) laid over ``existing``: keep other languages' text."""
    old_by_id = {c.id: c for c in existing.clauses}
    clauses = []
    for c in new.clauses:
        old = old_by_id.get(c.id)
        if old is None:
            clauses.append(c)
            continue
        passages = []
        for i, p in enumerate(c.passages):
            kept: tuple[tuple[str, str], ...] = ()
            if i < len(old.passages) and old.passages[i].original == p.original:
                kept = tuple(t for t in old.passages[i].translations if t[0] != lang)
            passages.append(replace(p, translations=tuple(sorted(kept + p.translations))))
        clauses.append(
            replace(
                c,
                passages=tuple(passages),
                plays=tuple(
                    sorted(
                        (*(x for x in old.plays if x.lang != lang), *c.plays), key=lambda x: x.lang
                    )
                ),
                notes=tuple(sorted((*(x for x in old.notes if x[0] != lang), *c.notes))),
                headings=tuple(sorted((*(x for x in old.headings if x[0] != lang), *c.headings))),
                origins=tuple(
                    sorted(
                        (*(o for o in old.origins if o.lang != lang), *c.origins),
                        key=lambda o: (o.lang, o.file),
                    )
                ),
            )
        )
    texts = tuple(
        sorted((*(t for t in existing.texts if t.lang != lang), *new.texts), key=lambda t: t.lang)
    )
    return replace(new, texts=texts, clauses=tuple(clauses))


def _align(base: Rule, tr: Rule, lang: str) -> tuple[Rule, list[str], list[str]]:
    """A one-language translation laid on ``base`` clause by clause (same rule, same id).

    Paragraphs pair one to one when both have as many; otherwise the whole
    translation goes with the first paragraph. Returns the rule, the ids of
    ``base`` the translation lacks and the ids of the translation ``base`` lacks.
    """
    by_id = {c.id: c for c in tr.clauses}
    missing: list[str] = []
    clauses = []
    for c in base.clauses:
        t = by_id.get(c.id)
        if t is None:
            missing.append(c.id)
            clauses.append(c)
            continue
        texts = [p.translation(lang) or p.original for p in t.passages]
        texts = [x for x in texts if x]
        olds = list(c.passages) or [Passage("")]
        if len(texts) != len(olds):
            texts = ["\n\n".join(texts)] + [""] * (len(olds) - 1)
        passages = tuple(
            replace(
                p,
                translations=tuple(
                    sorted(
                        [
                            *(x for x in p.translations if x[0] != lang),
                            *([(lang, tx)] if tx else []),
                        ]
                    )
                ),
            )
            for p, tx in zip(olds, texts, strict=True)
        )
        heads = tuple(h for h in c.headings if h[0] != lang)
        if t.heading:
            heads = tuple(sorted((*heads, (lang, t.heading))))
        clauses.append(
            replace(
                c,
                passages=passages,
                headings=heads,
                origins=tuple(sorted((*c.origins, *t.origins), key=lambda o: (o.lang, o.file))),
            )
        )
    known = {c.id for c in base.clauses}
    extra = [c.id for c in tr.clauses if c.id not in known]
    by_lang = {x.lang: x for x in base.texts}
    for x in tr.texts:
        by_lang[x.lang] = x
    rule = replace(base, texts=tuple(by_lang[k] for k in sorted(by_lang)), clauses=tuple(clauses))
    return rule, missing, extra


def compose(
    docs: list[tuple[str, str, str, Rule]],
) -> tuple[Rule | None, list[tuple[str, str, str]]]:
    """One rule from the documents that hold it, given in compose order.

    Originals and bilingual pages are laid over each other first; then each
    one-language translation is aligned with the result. Returns the rule
    and the unaligned clauses as ``(lang, clause, "missing" | "extra")``.
    """
    acc: Rule | None = None
    unaligned: list[tuple[str, str, str]] = []
    for _name, kind, lang, one in docs:
        rule = replace(one, source="")  # a composed rule has many sources: its clauses' origins
        translation = kind in (SourceKind.HTML, SourceKind.PDF) and lang != ORIGINAL_LANG
        if acc is None:
            acc = rule
        elif not translation:
            acc = _merge(acc, rule, lang)
        else:
            acc, missing, extra = _align(acc, rule, lang)
            unaligned += [(lang, c, "missing") for c in missing]
            unaligned += [(lang, c, "extra") for c in extra]
    return acc, sorted(set(unaligned))


def _rule_to_json(r: Rule) -> dict[str, Any]:
    return asdict(r)


def _rule_from_json(d: dict[str, Any]) -> Rule:
    def clause(c: dict[str, Any]) -> Clause:
        return Clause(
            edition=c["edition"],
            id=c["id"],
            rule=c["rule"],
            seq=c["seq"],
            kind=ClauseKind(c["kind"]),
            heading=c["heading"],
            passages=tuple(
                Passage(p["original"], tuple((a, b) for a, b in p["translations"]))
                for p in c["passages"]
            ),
            parent=c["parent"],
            plays=tuple(
                Play(
                    lang=p["lang"],
                    legend=tuple(p["legend"]),
                    timeline_label=p["timeline_label"],
                    timeline=tuple(PlayStep(s["at_ms"], s["text"]) for s in p["timeline"]),
                    setting=p["setting"],
                    verdict_label=p["verdict_label"],
                    verdict=p["verdict"],
                    caption=p["caption"],
                )
                for p in c["plays"]
            ),
            notes=tuple((a, b) for a, b in c["notes"]),
            headings=tuple((a, b) for a, b in c["headings"]),
            origins=tuple(Origin(**o) for o in c["origins"]),
        )

    return Rule(
        edition=d["edition"],
        number=d["number"],
        texts=tuple(RuleText(**t) for t in d["texts"]),
        clauses=tuple(clause(c) for c in d["clauses"]),
        source=d["source"],
    )


def stem_text(text: str, lang: str) -> str:
    """The Snowball stems of ``text``'s words in ``lang`` (``""`` without a stemmer).

    Indexed beside the text, so a search finds other forms of a word
    (``arbitres`` and ``arbitre``) where the language is known.

    >>> stem_text("Les arbitres sifflent", "fr")
    'le arbitr sifflent'
    """
    stem = stemmer(lang)
    if stem is None:
        return ""
    # stem the word as written (``й`` is a letter, not an accented ``и``), then fold the stem
    return " ".join(fold(stem(w)) for w in re.findall(r"\w+", text.casefold()))


def _play_json(p: Play) -> str:
    return json.dumps(
        {
            "legend": list(p.legend),
            "timeline_label": p.timeline_label,
            "timeline": [[s.at_ms, s.text] for s in p.timeline],
            "setting": p.setting,
            "verdict_label": p.verdict_label,
            "verdict": p.verdict,
            "caption": p.caption,
        },
        ensure_ascii=False,
        sort_keys=True,
    )


def _play_from_json(lang: str, data: str) -> Play:
    d = json.loads(data)
    return Play(
        lang=lang,
        legend=tuple(d["legend"]),
        timeline_label=d["timeline_label"],
        timeline=tuple(PlayStep(int(t), str(x)) for t, x in d["timeline"]),
        setting=d["setting"],
        verdict_label=d["verdict_label"],
        verdict=d["verdict"],
        caption=d["caption"],
    )


def play_text(p: Play) -> str:
    """All words of a play, for the full-text index."""
    parts = [*p.legend, p.timeline_label, *(s.text for s in p.timeline), p.setting]
    parts += [p.verdict_label, p.verdict, p.caption]
    return "\n".join(x for x in parts if x)


def _fts_rows(c: Clause) -> list[tuple[str, str, str]]:
    rows = [("en", c.heading, c.original)] if c.original.strip() else []
    for lg in sorted({*c.languages(), *(p.lang for p in c.plays), *(n[0] for n in c.notes)}):
        body = [c.translation(lg)]
        body += [n for code, n in c.notes if code == lg]
        body += [play_text(p) for p in c.plays if p.lang == lg]
        rows.append((lg, c.heading_in(lg), "\n\n".join(b for b in body if b)))
    return rows
