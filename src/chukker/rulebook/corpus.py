"""The rulebook corpus in SQLite: editions, rules, clauses, translations, full-text index.

The imported text lives only in the user's database (``CHUKKER_RULES_DB``,
else ``./chukker-rules.sqlite3``); the project ships none of it. Imports
are idempotent: a page whose content is already stored changes nothing.

>>> from chukker.rulebook.importers import parse_text
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

import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

from chukker.rulebook.importers import ParsedSource
from chukker.rulebook.model import (
    Clause,
    ClauseKind,
    EditionInfo,
    Passage,
    Play,
    PlayStep,
    Rule,
    RuleText,
    rule_of_clause_id,
)

DEFAULT_DB = "chukker-rules.sqlite3"
SCHEMA_VERSION = "1"

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
CREATE TABLE IF NOT EXISTS sources (
  name TEXT NOT NULL, edition TEXT NOT NULL, kind TEXT NOT NULL, lang TEXT NOT NULL,
  rules TEXT NOT NULL, PRIMARY KEY (name, edition));
CREATE VIRTUAL TABLE IF NOT EXISTS clause_fts USING fts5(
  edition UNINDEXED, clause UNINDEXED, rule UNINDEXED, lang UNINDEXED, heading, body,
  tokenize = "unicode61 remove_diacritics 2");
"""


def default_db_path() -> Path:
    """``$CHUKKER_RULES_DB``, else ``./chukker-rules.sqlite3``."""
    return Path(os.environ.get("CHUKKER_RULES_DB") or DEFAULT_DB)


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


class Corpus:
    """A rulebook database. Use :meth:`open`; close with :meth:`close` or ``with``."""

    def __init__(self, conn: sqlite3.Connection, path: str, readonly: bool = False) -> None:
        self.conn = conn
        self.path = path
        self.readonly = readonly

    # ----------------------------------------------------------- lifecycle

    @classmethod
    def open(cls, path: str | Path | None = None) -> Corpus:
        """Open (creating if needed) the database at ``path`` (default :func:`default_db_path`)."""
        p = str(path if path is not None else default_db_path())
        conn = sqlite3.connect(p)
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
        except sqlite3.DatabaseError:
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
        """Store what one file holds; idempotent (unchanged rules are not rewritten)."""
        reports: list[StoreReport] = []
        with self._tx() as c:
            c.execute(
                "INSERT INTO editions (id, title, year) VALUES (?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET title = excluded.title, year = excluded.year "
                "WHERE editions.title <> excluded.title OR editions.year <> excluded.year",
                (parsed.edition, parsed.edition_title, parsed.year),
            )
            for rule in parsed.rules:
                reports.append(self._store_rule(rule, parsed.lang))
            c.execute(
                "INSERT INTO sources (name, edition, kind, lang, rules) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT(name, edition) DO UPDATE SET kind = excluded.kind, "
                "lang = excluded.lang, rules = excluded.rules "
                "WHERE sources.rules <> excluded.rules OR sources.kind <> excluded.kind "
                "OR sources.lang <> excluded.lang",
                (
                    Path(parsed.source).name,
                    parsed.edition,
                    parsed.kind.value,
                    parsed.lang,
                    ",".join(str(r.number) for r in parsed.rules),
                ),
            )
        return reports

    def _store_rule(self, new: Rule, lang: str) -> StoreReport:
        existing = self.rule(new.edition, new.number)
        plays = sum(len(c.plays) for c in new.clauses)
        if existing is not None and existing.only(lang) == new.only(lang):
            status = StoreStatus.UNCHANGED
            return StoreReport(new.edition, new.number, lang, len(new.clauses), plays, status)
        merged = new if existing is None else _merge(existing, new, lang)
        status = StoreStatus.ADDED if existing is None else StoreStatus.UPDATED
        self._write_rule(merged)
        return StoreReport(new.edition, new.number, lang, len(new.clauses), plays, status)

    def _write_rule(self, rule: Rule) -> None:
        c = self.conn
        ed, n = rule.edition, rule.number
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
            base = len(rows)
            rows += [
                (ed, cl.id, lg, base + i, "note", json.dumps(text, ensure_ascii=False))
                for i, (lg, text) in enumerate(cl.notes, 1)
            ]
            c.executemany("INSERT INTO extras VALUES (?, ?, ?, ?, ?, ?)", rows)
            for lg, heading, body in _fts_rows(cl):
                c.execute(
                    "INSERT INTO clause_fts (edition, clause, rule, lang, heading, body) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (ed, cl.id, n, lg, heading, body),
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
        for cid, lg, kind, data in c.execute(
            "SELECT e.clause, e.lang, e.kind, e.data FROM extras e JOIN clauses k "
            "ON k.edition = e.edition AND k.id = e.clause WHERE k.edition=? AND k.rule=? "
            "ORDER BY e.lang, e.seq",
            (edition, number),
        ):
            if kind == "play":
                plays.setdefault(cid, []).append(_play_from_json(lg, data))
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
        """Languages with translations in the database."""
        return [
            r[0] for r in self.conn.execute("SELECT DISTINCT lang FROM translations ORDER BY lang")
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
            "sources",
        ):
            out += [(t, *row) for row in self.conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2, 3")]
        out += [
            ("clause_fts", *row)
            for row in self.conn.execute("SELECT rowid, * FROM clause_fts ORDER BY rowid")
        ]
        return out


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
            )
        )
    texts = tuple(
        sorted((*(t for t in existing.texts if t.lang != lang), *new.texts), key=lambda t: t.lang)
    )
    return replace(new, texts=texts, clauses=tuple(clauses))


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
    rows = [("en", c.heading, c.original)]
    for lg in sorted({*c.languages(), *(p.lang for p in c.plays), *(n[0] for n in c.notes)}):
        body = [c.translation(lg)]
        body += [n for code, n in c.notes if code == lg]
        body += [play_text(p) for p in c.plays if p.lang == lg]
        rows.append((lg, c.heading, "\n\n".join(b for b in body if b)))
    return rows
