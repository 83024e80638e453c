"""Full-text search over originals and translations (SQLite FTS5).

Case-insensitive in every script, accent-insensitive for Latin letters
(``unicode61 remove_diacritics 2``); every word of the query must appear,
as a word or a word's beginning (``zigzag`` finds "Zigzagging"), or, where
the language has a Snowball stemmer, as another form of the same word
(``arbitres`` finds "arbitre"; column ``stems``). Hits are ranked by BM25
summed over the clause's original and translations, a heading match
weighing more; a newer edition wins a tie.

>>> fts_query('Período "extra" de-5')
'"Período"* AND "extra"* AND "de"* AND "5"*'
>>> fts_query("arbitres", ["fr"])
'({heading body} : "arbitres"* OR stems : "arbitr")'
>>> fts_query("  ...  ")
''
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from chukker.rulebook.corpus import Corpus
from chukker.rulebook.languages import stemmer
from chukker.rulebook.model import fold

_WORD = re.compile(r"\w+", re.UNICODE)
HIT_START, HIT_END = "\x02", "\x03"


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One clause found: where it is, a snippet in the matched language, its score."""

    edition: str
    clause: str
    rule: int
    heading: str
    lang: str
    snippet: str
    score: float

    def snippet_parts(self) -> list[tuple[str, bool]]:
        """The snippet as ``(text, highlighted)`` pieces (for safe rendering)."""
        out: list[tuple[str, bool]] = []
        for i, chunk in enumerate(re.split(f"[{HIT_START}{HIT_END}]", self.snippet)):
            if chunk:
                out.append((chunk, i % 2 == 1))
        return out

    def plain_snippet(self, start: str = "[", end: str = "]") -> str:
        return self.snippet.replace(HIT_START, start).replace(HIT_END, end)


def _stems(word: str, langs: list[str]) -> list[str]:
    out: list[str] = []
    for lg in langs:
        stem = stemmer(lg)
        if stem is not None:
            s = fold(stem(word.casefold()))
            if s and s not in out:
                out.append(s)
    return out


def fts_query(query: str, langs: list[str] | None = None) -> str:
    """The FTS5 MATCH expression for a user query: each word as a quoted prefix,
    or one of its stems in ``langs``."""
    parts = []
    for w in _WORD.findall(query):
        stems = _stems(w, langs or [])
        if not stems:
            parts.append(f'"{w}"*')
            continue
        alts = " OR ".join(f'stems : "{s}"' for s in stems)
        parts.append(f'({{heading body}} : "{w}"* OR {alts})')
    return " AND ".join(parts)


def search(
    corpus: Corpus,
    query: str,
    lang: str | None = None,
    edition: str | None = None,
    limit: int = 20,
) -> list[SearchHit]:
    """Clauses matching every word of ``query``, best first.

    ``lang`` restricts matching to that language's text (``en``: the
    originals); ``None`` searches originals and all translations.
    """
    langs = [lang] if lang is not None else corpus.languages()
    match = fts_query(query, langs)
    if not match:
        return []
    where = ["clause_fts MATCH ?"]
    args: list[object] = [match]
    if lang is not None:
        where.append("lang = ?")
        args.append(lang)
    if edition is not None:
        where.append("edition = ?")
        args.append(edition)
    sql = f"""
        WITH hits AS (
          SELECT edition, clause, rule, lang, heading,
                 bm25(clause_fts, 4.0, 1.0, 1.0) AS score,
                 snippet(clause_fts, 5, '{HIT_START}', '{HIT_END}', '…', 16) AS snip
          FROM clause_fts WHERE {" AND ".join(where)}
        ),
        ranked AS (
          SELECT edition, clause, rule, heading, SUM(score) AS total,
                 MIN(score) AS best
          FROM hits GROUP BY edition, clause
        )
        SELECT r.edition, r.clause, r.rule, r.heading, h.lang, h.snip, r.total
        FROM ranked r
        JOIN hits h ON h.edition = r.edition AND h.clause = r.clause AND h.score = r.best
        LEFT JOIN editions e ON e.id = r.edition
        GROUP BY r.edition, r.clause
        ORDER BY r.total, e.year DESC, r.rule, r.clause
        LIMIT ?
    """
    rows = corpus.conn.execute(sql, (*args, limit)).fetchall()
    return [
        SearchHit(ed, cl, int(rule), heading, lg, snip, float(total))
        for ed, cl, rule, heading, lg, snip, total in rows
    ]


def like_search(
    corpus: Corpus, query: str, lang: str | None = None, limit: int = 20
) -> list[tuple[str, str]]:
    """The baseline: a plain ``LIKE`` scan over originals and translations.

    Case-insensitive for ASCII only and blind to accents; kept for the
    benchmark, which measures :func:`search` against it in the same run.
    """
    words = _WORD.findall(query)
    if not words:
        return []
    conds = " AND ".join("(heading || ' ' || body) LIKE ?" for _ in words)
    args: list[object] = [f"%{w}%" for w in words]
    sql = f"""
        SELECT edition, id FROM (
          SELECT k.edition, k.id, k.heading, p.original AS body, 'en' AS lang
          FROM clauses k JOIN passages p ON p.edition = k.edition AND p.clause = k.id
          UNION ALL
          SELECT k.edition, k.id, k.heading, t.text AS body, t.lang
          FROM clauses k JOIN translations t ON t.edition = k.edition AND t.clause = k.id
        ) WHERE {conds} {"AND lang = ?" if lang else ""}
        GROUP BY edition, id LIMIT ?
    """
    if lang:
        args.append(lang)
    args.append(limit)
    return [(str(a), str(b)) for a, b in corpus.conn.execute(sql, args)]


def timed(fn: object, *args: object) -> float:  # pragma: no cover - used by the benchmark
    """Seconds one call of ``fn(*args)`` takes."""
    assert callable(fn)
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def matches(text: str, query: str, lang: str = "") -> bool:
    """Whether every query word begins a word of ``text``, or shares its stem in ``lang``,
    ignoring case and accents.

    The same rule the index applies, for checking results in pure Python.

    >>> matches("Zigzagging in front", "zigzag"), matches("Período", "periodo")
    (True, True)
    >>> matches("riding off", "ride"), matches("riding off", "ride", "en")
    (False, True)
    """
    raw = [w.casefold() for w in _WORD.findall(text)]
    words = [fold(w) for w in raw]
    stem = stemmer(lang) if lang else None
    stems = {fold(stem(w)) for w in raw} if stem is not None else set()

    def found(q: str) -> bool:
        fq = fold(q)
        if any(w.startswith(fq) for w in words):
            return True
        return stem is not None and fold(stem(q.casefold())) in stems

    return all(found(q) for q in _WORD.findall(query))
