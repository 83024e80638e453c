"""Full-text search over originals and translations (SQLite FTS5).

Case-insensitive in every script, accent-insensitive for Latin letters
(``unicode61 remove_diacritics 2``); every word of the query must appear,
as a word or a word's beginning (``zigzag`` finds "Zigzagging"), or, where
the language has a Snowball stemmer, as another form of the same word
(``arbitres`` finds "arbitre"; column ``stems``). Hits are ranked by BM25
summed over the clause's original and translations, a heading match
weighing more; a newer edition wins a tie.

People type as they think, so :func:`lookup` (and :func:`search`, its hits)
also reads

* a **reference**: ``penalty 2``, ``p2``, ``Penal 2``, ``rule 13 b``, ``13b``,
  ``regola 13(b)``, ``13``: the clause it names comes first, in every edition
  that has it (see :func:`parse_reference`);
* a **misspelling**: when the words find nothing, each word that begins no
  indexed word is replaced by the closest word of the index (FTS5's own
  vocabulary, read through an ``fts5vocab`` table) within edit distance 2
  (1 for words of four letters or fewer; RapidFuzz's Damerau-Levenshtein
  distance, so a swapped pair of letters counts 1); the results are
  those of the corrected query, and the correction is offered as "did you
  mean" (:attr:`SearchResults.suggestion`).

>>> fts_query('Período "extra" de-5')
'"Período"* AND "extra"* AND "de"* AND "5"*'
>>> fts_query("arbitres", ["fr"])
'({heading body} : "arbitres"* OR stems : "arbitr")'
>>> fts_query("  ...  ")
''
>>> parse_reference("Penalty 2").ids, parse_reference("rule 13 b").ids
(('9.p2',), ('13b', '13(b)'))
"""

from __future__ import annotations

import bisect
import json
import os
import re
import time
from dataclasses import dataclass, field
from enum import StrEnum

from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from chukker.rulebook.corpus import Corpus
from chukker.rulebook.languages import stemmer
from chukker.rulebook.model import fold
from chukker.rulebook.summaries import RULE_NUMBERS

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
    #: found because the query names this clause ("penalty 2", "13b"), not by its words
    exact: bool = False

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


def fts_query(
    query: str,
    langs: list[str] | None = None,
    fixed: dict[str, str] | None = None,
    also: dict[str, tuple[str, ...]] | None = None,
) -> str:
    """The FTS5 MATCH expression for a user query: each word as a quoted prefix,
    or one of its stems in ``langs``; a word in ``fixed`` is replaced by its
    correction (a word of the index, as a prefix: no stems); a word in ``also`` may
    be any of its glossary synonyms instead (each as a quoted prefix).

    >>> fts_query("rigore", [], also={"rigore": ("penalty", "penal")})
    '("rigore"* OR "penalty"* OR "penal"*)'
    """
    parts = []
    for w in _WORD.findall(query):
        if fixed and w in fixed:
            parts.append(f'"{fixed[w]}"*')
            continue
        stems = _stems(w, langs or [])
        syn = "".join(f' OR "{x}"*' for x in (also or {}).get(w, ()))
        if not stems:
            parts.append(f'("{w}"*{syn})' if syn else f'"{w}"*')
            continue
        alts = " OR ".join(f'stems : "{s}"' for s in stems)
        parts.append(f'({{heading body}} : "{w}"* OR {alts}{syn})')
    return " AND ".join(parts)


def glossary_words(query: str) -> dict[str, tuple[str, ...]]:
    """The query's words that name a glossary term, with that term's words in en, es and it
    (quotes left out): "rigore" and "penal" look for "penalty" too.

    >>> "penalty" in glossary_words("rigore 2")["rigore"], glossary_words("gallop 13")
    (True, {})
    """
    from chukker.rulebook.glossary import synonyms

    out: dict[str, tuple[str, ...]] = {}
    for w in _WORD.findall(query):
        syn = tuple(x.replace('"', "") for x in synonyms(w))
        if syn:
            out[w] = syn
    return out


def _fts_search(
    corpus: Corpus,
    query: str,
    lang: str | None,
    edition: str | None,
    limit: int,
    fixed: dict[str, str] | None = None,
    also: dict[str, tuple[str, ...]] | None = None,
) -> list[SearchHit]:
    """Clauses matching every word of ``query`` (``fixed``: words replaced by a correction;
    ``also``: a word's glossary synonyms, any of which may match instead)."""
    langs = [lang] if lang is not None else corpus.languages()
    match = fts_query(query, langs, fixed, also)
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


class RefKind(StrEnum):
    """What a query that names a place in the rulebook names."""

    RULE = "rule"
    PENALTY = "penalty"


@dataclass(frozen=True, slots=True)
class Reference:
    """A rule, clause or penalty named by a query; ``ids`` are the corpus clause ids it may
    be stored under (the 2026 pages write ``13b``, the 2006 summary ``13(b)``)."""

    kind: RefKind
    rule: int
    ids: tuple[str, ...]


_PENALTY_WORD = r"(?:penalty|penalties|penalidad(?:es)?|penales|penal|penalita|punizion[ei]|pen|p)"
_RULE_WORD = r"(?:rules?|reglas?|regol[ae]|regles?|art|r)"
_PENALTY_REF = re.compile(
    rf"{_PENALTY_WORD}\.?\s*(?:no\.?\s*)?(\d{{1,2}})(?:\s*\.?\s*\(?[a-z]\)?)?"
)
_RULE_REF = re.compile(
    rf"(?:{_RULE_WORD}\.?\s*)?(\d{{1,2}})"
    r"(?:\s*\.?\s*\(?\s*([a-z])\s*\)?)?(?:\s*\(?\s*(\d{1,2})\s*\)?)?"
)


def parse_reference(query: str) -> Reference | None:
    """The rule, clause or penalty ``query`` names as a whole, or ``None``.

    Case, accents, spaces, dots and brackets are optional; the word for rule
    or penalty may be English, Spanish or Italian, or left out for a rule.

    >>> [parse_reference(q).ids for q in ("p2", "Penal 2", "penalty 10")]
    [('9.p2',), ('9.p2',), ('9.p10',)]
    >>> [parse_reference(q).ids for q in ("13b", "Regola 13(b)", "rule 13 b 2", "r13")]
    [('13b', '13(b)'), ('13b', '13(b)'), ('13b(2)', '13(b)(2)'), ('13',)]
    >>> parse_reference("penalty 11"), parse_reference("rule 19"), parse_reference("zigzag")
    (None, None, None)
    """
    q = re.sub(r"\s+", " ", fold(query)).strip(" .:;,-#§")
    m = _PENALTY_REF.fullmatch(q)
    if m is not None:
        n = int(m.group(1))
        return Reference(RefKind.PENALTY, 9, (f"9.p{n}",)) if 1 <= n <= 10 else None
    m = _RULE_REF.fullmatch(q)
    if m is None:
        return None
    rule, letter, sub = int(m.group(1)), m.group(2), m.group(3)
    if rule not in RULE_NUMBERS or (sub and not letter):
        return None
    if letter is None:
        return Reference(RefKind.RULE, rule, (str(rule),))
    if sub is None:
        return Reference(RefKind.RULE, rule, (f"{rule}{letter}", f"{rule}({letter})"))
    return Reference(
        RefKind.RULE, rule, (f"{rule}{letter}({int(sub)})", f"{rule}({letter})({int(sub)})")
    )


def _reference_hits(
    corpus: Corpus, ref: Reference, lang: str | None, edition: str | None
) -> list[SearchHit]:
    """The clause ``ref`` names in each edition (newest first); for a rule with no clause of
    its own number (the 2026 Rule 5 pages), the rule's first clause."""
    marks = ",".join("?" for _ in ref.ids)
    ed_sql = "AND c.edition = ?" if edition is not None else ""
    ed_args: list[object] = [edition] if edition is not None else []
    rows = corpus.conn.execute(
        f"""SELECT c.edition, c.id, c.rule FROM clauses c LEFT JOIN editions e ON e.id = c.edition
            WHERE c.id IN ({marks}) {ed_sql} ORDER BY e.year DESC, c.edition""",
        (*ref.ids, *ed_args),
    ).fetchall()
    found: dict[str, tuple[str, int]] = {}
    for ed, cid, rule in rows:  # most specific id first within an edition
        if ed not in found or ref.ids.index(cid) < ref.ids.index(found[ed][0]):
            found[ed] = (cid, int(rule))
    if ref.kind is RefKind.RULE and len(ref.ids) == 1:
        for ed, cid, rule, _ in corpus.conn.execute(
            f"""SELECT c.edition, c.id, c.rule, MIN(c.seq) FROM clauses c
                WHERE c.rule = ? AND c.parent = '' {ed_sql} GROUP BY c.edition""",
            (ref.rule, *ed_args),
        ).fetchall():
            found.setdefault(ed, (cid, int(rule)))
    if not found:
        return []
    years = dict(corpus.conn.execute("SELECT id, year FROM editions").fetchall())
    order = sorted(found, key=lambda ed: (-int(years.get(ed, 0)), ed))
    hits = []
    for ed in order:
        cid, rule = found[ed]
        texts = corpus.conn.execute(
            "SELECT lang, heading, body FROM clause_fts WHERE edition = ? AND clause = ?",
            (ed, cid),
        ).fetchall()
        if lang is not None:
            texts = [t for t in texts if t[0] == lang] or []
            if not texts:
                continue
        texts.sort(key=lambda t: (t[0] != "en", t[0]))
        lg, heading, body = texts[0] if texts else ("en", "", "")
        snip = " ".join(str(body).split())
        snip = snip if len(snip) <= 160 else snip[:157].rsplit(" ", 1)[0] + " …"
        hits.append(SearchHit(ed, cid, rule, str(heading), str(lg), snip, -1e6, exact=True))
    return hits


@dataclass(frozen=True, slots=True)
class _Vocabulary:
    """The index's words (heading and body columns), sorted, with their document counts."""

    terms: tuple[str, ...]
    docs: dict[str, int] = field(hash=False)
    #: the terms by length: a word within distance d of ``w`` is d letters longer or
    #: shorter at most, so only those lengths are compared
    by_len: dict[int, tuple[str, ...]] = field(hash=False, default_factory=dict)

    def near_in_length(self, word: str, d: int) -> list[str]:
        if not self.by_len and self.terms:  # built by hand (doctests): all terms
            return list(self.terms)
        n = len(word)
        return [t for k in range(n - d, n + d + 1) for t in self.by_len.get(k, ())]


_VOCABULARIES: dict[tuple[object, ...], _Vocabulary] = {}


def _vocab_key(corpus: Corpus) -> tuple[object, ...] | None:
    try:
        stats = [os.stat(corpus.path)]
        if os.path.exists(corpus.path + "-wal"):
            stats.append(os.stat(corpus.path + "-wal"))
    except OSError:
        return None
    return (corpus.path, *((st.st_mtime_ns, st.st_size, st.st_ino) for st in stats))


def vocabulary(corpus: Corpus) -> _Vocabulary:
    """The words of the index (FTS5's ``fts5vocab``), cached while the database file is
    unchanged (the pages open the database once per request)."""
    key = _vocab_key(corpus)
    if key is not None and key in _VOCABULARIES:
        return _VOCABULARIES[key]
    conn = corpus.conn
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.clause_vocab"
        " USING fts5vocab(main, clause_fts, col)"
    )
    docs: dict[str, int] = {}
    for term, n in conn.execute(
        "SELECT term, SUM(doc) FROM temp.clause_vocab WHERE col IN ('heading', 'body') "
        "GROUP BY term"
    ):
        if not str(term).isdigit():
            docs[str(term)] = int(n)
    terms = tuple(sorted(docs))
    lengths: dict[int, list[str]] = {}
    for t in terms:
        lengths.setdefault(len(t), []).append(t)
    vocab = _Vocabulary(terms, docs, {k: tuple(v) for k, v in lengths.items()})
    if key is not None:
        if len(_VOCABULARIES) > 8:
            _VOCABULARIES.clear()
        _VOCABULARIES[key] = vocab
    return vocab


def _begins_a_word(vocab: _Vocabulary, word: str) -> bool:
    i = bisect.bisect_left(vocab.terms, word)
    return i < len(vocab.terms) and vocab.terms[i].startswith(word)


def _max_distance(word: str) -> int:
    return 0 if len(word) <= 2 else 1 if len(word) <= 4 else 2


def correct_word(vocab: _Vocabulary, word: str) -> str | None:
    """The index's word closest to ``word`` (folded) within the allowed edit distance;
    ties go to the word in more clauses. ``None`` when ``word`` begins a word of the index
    already, or nothing is close enough.

    >>> v = _Vocabulary(("penalties", "penalty", "umpire"), {"penalty": 9, "penalties": 3})
    >>> correct_word(v, "peanlty"), correct_word(v, "umpier"), correct_word(v, "pen")
    ('penalty', 'umpire', None)
    """
    w = fold(word)
    limit = _max_distance(w)
    if not limit or w.isdigit() or _begins_a_word(vocab, w):
        return None
    found = process.extract(
        w,
        vocab.near_in_length(w, limit),
        scorer=DamerauLevenshtein.distance,
        score_cutoff=limit,
        limit=12,
    )
    if not found:
        return None
    best = min(int(d) for _, d, _ in found)
    return min(
        (str(t) for t, d, _ in found if int(d) == best),
        key=lambda t: (-vocab.docs.get(t, 0), t),
    )


@dataclass(frozen=True, slots=True)
class SearchResults:
    """What a search shows: the hits, and a correction of the query when it found nothing."""

    query: str
    hits: tuple[SearchHit, ...]
    #: "did you mean": the query with its misspelled words corrected (the hits are its hits)
    suggestion: str | None = None
    #: the clause the query names ("penalty 2"), if it names one
    reference: Reference | None = None


def lookup(
    corpus: Corpus,
    query: str,
    lang: str | None = None,
    edition: str | None = None,
    limit: int = 20,
) -> SearchResults:
    """Search as people type: a named clause first, then the words' hits; misspelled words
    corrected when the query as typed finds nothing.

    ``lang`` restricts matching to that language's text (``en``: the
    originals); ``None`` searches originals and all translations.
    """
    ref = parse_reference(query)
    hits = _reference_hits(corpus, ref, lang, edition) if ref is not None else []
    also = glossary_words(query)  # "rigore", "penal": the glossary's penalty too
    words = _fts_search(corpus, query, lang, edition, limit, None, also)
    suggestion = None
    if not words and not hits:
        vocab = vocabulary(corpus)
        fixed = {}
        for w in _WORD.findall(query):
            if w in also:
                continue  # a glossary word is no misspelling
            c = correct_word(vocab, w)
            if c is not None:
                fixed[w] = c
        if fixed:
            corrected = _WORD.sub(lambda m: fixed.get(m.group(0), m.group(0)), query)
            # typo correction first, then the number rule: "peanlty 2" is Penalty 2
            ref2 = parse_reference(corrected)
            if ref2 is not None:
                hits = _reference_hits(corpus, ref2, lang, edition)
                ref = ref2
            words = _fts_search(corpus, query, lang, edition, limit, fixed, also)
            if words or hits:
                suggestion = corrected
    seen = {(h.edition, h.clause) for h in hits}
    hits += [h for h in words if (h.edition, h.clause) not in seen]
    return SearchResults(query, tuple(hits[:limit]), suggestion, ref)


def titles_in(corpus: Corpus, hits: list[SearchHit] | tuple[SearchHit, ...], lang: str
              ) -> dict[tuple[str, str], str]:
    """Each hit's clause title in ``lang``: the title its document printed in that language,
    else chukker's own words for it ("Penal 2"; :func:`chukker.rulebook.glossary.title_in`),
    else its title as stored."""
    from chukker.rulebook.glossary import title_in

    out: dict[tuple[str, str], str] = {}
    for h in hits:
        row = corpus.conn.execute(
            "SELECT data FROM extras WHERE edition = ? AND clause = ? AND lang = ? "
            "AND kind = 'heading' LIMIT 1",
            (h.edition, h.clause, lang),
        ).fetchone()
        printed = str(json.loads(row[0])) if row is not None else ""
        out[(h.edition, h.clause)] = printed or title_in(h.heading, lang)
    return out


def search(
    corpus: Corpus,
    query: str,
    lang: str | None = None,
    edition: str | None = None,
    limit: int = 20,
) -> list[SearchHit]:
    """Clauses matching ``query``, best first (the hits of :func:`lookup`).

    ``lang`` restricts matching to that language's text (``en``: the
    originals); ``None`` searches originals and all translations.
    """
    return list(lookup(corpus, query, lang, edition, limit).hits)


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
