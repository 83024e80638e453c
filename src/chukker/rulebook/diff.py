"""Compare two editions clause by clause: added, removed, changed, and the numbers that changed.

A clause of the newer edition is paired with the older edition's in three
steps, and each change says which one applied (:class:`Pairing`):

1. **number and heading** — the same clause number (``13(a)`` is ``13a``)
   and a similar heading, or, where a heading is missing, similar text;
2. **text, same rule** — otherwise each of its sentences is matched to the
   most similar sentence of the *same rule* of the older edition (RapidFuzz
   ``ratio`` over folded words, numbers masked), so the 2006 summary's
   ``5(b)`` is found as the 2026 page's ``5.tie-shootout-set-up``;
3. **moved** — a sentence with no counterpart in its own rule is looked
   for in the older edition's other rules, with a stricter threshold; a
   clause whose text comes from another rule is reported as *moved*.

The numbers in matched sentences are then compared.

>>> numbers_in("A shootout after a 2-minute interval, from the 25-yard line")
['2-minute', '25-yard']
>>> changes = number_changes("after a 2-minute interval", "after a 4-minute interval")
>>> [(c.before, c.after) for c in changes]
[('2-minute', '4-minute')]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import StrEnum

from rapidfuzz import fuzz, process

from chukker.rulebook.corpus import Corpus
from chukker.rulebook.model import Clause, Rule, fold
from chukker.rules.editions import EDITIONS

#: RapidFuzz ``ratio`` (0-100, folded words, numbers masked) for two sentences of one rule to pair
MATCH_THRESHOLD = 62.0
#: the same for a sentence found in another rule of the older edition (moved text)
MOVED_THRESHOLD = 85.0
#: heading similarity (``token_set_ratio``) for two clauses of the same number to pair
HEADING_THRESHOLD = 70.0

_SENT = re.compile(r"(?<=[.!?:;])\s+(?=[“\"(\[]?[A-ZÁÉÍÓÚÑ])")
_TOKEN = re.compile(r"\d[\d/½¼¾.,]*(?:-\d[\d/]*)*(?:-[^\W\d_]+)?|[^\W\d_]+(?:'[^\W\d_]+)?")
_NUM = re.compile(r"\d")


class ChangeKind(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"
    MOVED = "moved"


class Pairing(StrEnum):
    """Which rule paired a clause with the older edition's."""

    NUMBER_HEADING = "number+heading"
    NUMBER_TEXT = "number+text"
    TEXT = "text (same rule)"
    MOVED = "text (moved from another rule)"
    NONE = ""


@dataclass(frozen=True, slots=True)
class NumberChange:
    """A number that differs between two matched sentences."""

    before: str
    after: str
    #: the newer sentence, for context
    context: str


@dataclass(frozen=True, slots=True)
class ClauseChange:
    """One clause added, removed or changed between editions."""

    kind: ChangeKind
    rule: int
    #: the clause in the newer edition ("" when removed)
    clause: str
    heading: str
    #: the older edition's clauses it was paired with (the removed one when removed)
    was: tuple[str, ...]
    similarity: float
    numbers: tuple[NumberChange, ...] = ()
    #: how the clause was paired (``""`` for added and removed clauses)
    pairing: Pairing = Pairing.NONE
    #: the older edition's rules the text was moved from
    moved_from: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class RuleDiff:
    """How rule ``rule`` changed from ``edition_a`` to ``edition_b``."""

    rule: int
    edition_a: str
    edition_b: str
    changes: tuple[ClauseChange, ...]
    unchanged: tuple[str, ...]

    #: how each unchanged clause was paired: ``(clause, pairing)``
    pairings: tuple[tuple[str, Pairing], ...] = ()

    def change_for(self, clause_id: str) -> ClauseChange | None:
        """The change of a newer-edition clause, if it changed or is new."""
        return next((c for c in self.changes if c.clause == clause_id), None)


@dataclass(frozen=True, slots=True)
class ParamChange:
    """An engine parameter whose value differs between the editions."""

    name: str
    before: int
    after: int
    clause_a: str
    clause_b: str


@dataclass(frozen=True, slots=True)
class EditionDiff:
    """All compared rules of two editions."""

    edition_a: str
    edition_b: str
    rules: tuple[RuleDiff, ...]
    #: rules with text in only one of the two editions (not compared)
    only_in_a: tuple[int, ...]
    only_in_b: tuple[int, ...]
    params: tuple[ParamChange, ...]


def numbers_in(text: str) -> list[str]:
    """The number tokens of ``text`` (``7-1/2``, ``2-minute``, ``25-yard``)."""
    return [t for t in _TOKEN.findall(text) if _NUM.match(t)]


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(fold(text))


def _stem(t: str) -> str:
    return t[:-1] if len(t) > 3 and t.endswith("s") and not t.endswith("ss") else t


def sentences(text: str) -> list[str]:
    """``text`` split into sentences (a colon before a capital ends one too).

    >>> sentences("A thing, as follows: Each player hits. Then i.e. more")
    ['A thing, as follows:', 'Each player hits.', 'Then i.e. more']
    """
    out: list[str] = []
    for para in re.split(r"\n+", text):
        out += [s.strip() for s in _SENT.split(para) if s.strip()]
    return out


def number_changes(before: str, after: str) -> list[NumberChange]:
    """Numbers replaced between two versions of a sentence."""
    ta, tb = _TOKEN.findall(before), _TOKEN.findall(after)
    sm = SequenceMatcher(None, [fold(t) for t in ta], [fold(t) for t in tb], autojunk=False)
    out: list[NumberChange] = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op not in ("replace", "delete", "insert"):
            continue
        na = [t for t in ta[i1:i2] if _NUM.match(t)]
        nb = [t for t in tb[j1:j2] if _NUM.match(t)]
        if na and nb and na != nb:
            out.append(NumberChange(" ".join(na), " ".join(nb), after))
    return out


@dataclass(frozen=True, slots=True)
class _Sent:
    clause: str
    rule: int
    text: str
    key: tuple[str, ...]
    #: folded words, numbers masked, for fuzzy matching
    masked: str


def _mask(tokens: list[str]) -> str:
    return " ".join(_stem(re.sub(r"^\d[\d/½¼¾.,]*(?:-\d[\d/]*)*", "#", t)) for t in tokens)


def _sents(clauses: tuple[Clause, ...] | list[Clause]) -> list[_Sent]:
    out = []
    for c in clauses:
        for s in sentences(c.original):
            toks = _tokens(s)
            if toks:
                out.append(_Sent(c.id, c.rule, s, tuple(toks), _mask(toks)))
    return out


def normal_number(clause_id: str) -> str:
    """A clause number written one way: ``13(a)`` and ``13a`` are both ``13a``.

    >>> [normal_number(x) for x in ("13(a)", "13a(1)", "5(b)", "13 examples", "9.p3")]
    ['13a', '13a(1)', '5b', '13 examples', '9.p3']
    """
    return re.sub(r"^(\d+)\(([a-z]{1,2})\)", r"\1\2", clause_id)


def _best(s: _Sent, pool: list[_Sent], cutoff: float) -> tuple[_Sent | None, float]:
    if not pool:
        return None, 0.0
    found = process.extractOne(
        s.masked, [t.masked for t in pool], scorer=fuzz.ratio, score_cutoff=cutoff
    )
    if found is None:
        return None, 0.0
    _, score, idx = found
    return pool[idx], float(score)


def _text_score(a: Clause, b: Clause) -> float:
    return float(fuzz.token_set_ratio(fold(a.original), fold(b.original)))


def _by_number(a: Rule, c: Clause) -> tuple[Clause | None, Pairing]:
    """Step 1: the older clause of the same number, if its heading (or text) agrees."""
    old = next((x for x in a.clauses if normal_number(x.id) == normal_number(c.id)), None)
    if old is None or not old.original or not c.original:
        return None, Pairing.NONE
    if old.heading and c.heading:
        if fuzz.token_set_ratio(fold(old.heading), fold(c.heading)) >= HEADING_THRESHOLD:
            return old, Pairing.NUMBER_HEADING
        return None, Pairing.NONE
    if _text_score(old, c) >= 75.0:
        return old, Pairing.NUMBER_TEXT
    return None, Pairing.NONE


def diff_rules(
    a: Rule, b: Rule, a_pool: tuple[Clause, ...] = (), b_pool: tuple[Clause, ...] = ()
) -> RuleDiff:
    """Clause-level changes of rule ``b`` against rule ``a``.

    ``a_pool`` / ``b_pool`` are the other clauses of each edition: text
    moved between rules is paired across them (and reported as moved)
    rather than reported new.
    """
    sa = _sents(list(a.clauses))
    sa_other = _sents([c for c in a_pool if c.rule != a.number])
    sb_other = _sents([c for c in b_pool if c.rule != b.number])
    matched_a: set[str] = set()
    changes: list[ClauseChange] = []
    unchanged: list[str] = []
    pairings: list[tuple[str, Pairing]] = []
    for c in b.clauses:
        mine = _sents([c])
        if not mine:
            continue
        old, pairing = _by_number(a, c)
        # sentences are matched within the paired clause, else the same rule, else elsewhere
        pool = [s for s in sa if s.clause == old.id] if old is not None else sa
        was: list[str] = []
        sims: list[float] = []
        nums: list[NumberChange] = []
        moved: list[int] = []
        same = True
        for s in mine:
            t, score = _best(s, pool, MATCH_THRESHOLD)
            if t is None and old is not None:
                t, score = _best(s, sa, MATCH_THRESHOLD)
            if t is None:
                t, score = _best(s, sa_other, MOVED_THRESHOLD)
                if t is not None and t.rule not in moved:
                    moved.append(t.rule)
            sims.append(score)
            if t is None:
                same = False
                continue
            matched_a.add(t.clause)
            if t.clause not in was:
                was.append(t.clause)
            if t.key != s.key:
                same = False
                nums += number_changes(t.text, s.text)
        if old is not None and old.id not in was:
            was.insert(0, old.id)
            matched_a.add(old.id)
        if old is None and was:
            own = {x.clause for x in sa}
            pairing = Pairing.TEXT if any(w in own for w in was) else Pairing.MOVED
        sim = sum(sims) / len(sims) / 100.0
        if not was:
            changes.append(ClauseChange(ChangeKind.ADDED, b.number, c.id, c.heading, (), 0.0))
        elif same and not moved:
            unchanged.append(c.id)
            pairings.append((c.id, pairing))
        else:
            kind = ChangeKind.MOVED if pairing == Pairing.MOVED else ChangeKind.CHANGED
            changes.append(
                ClauseChange(
                    kind,
                    b.number,
                    c.id,
                    c.heading,
                    tuple(was),
                    round(sim, 3),
                    tuple(nums),
                    pairing,
                    tuple(moved),
                )
            )
    # a clause of the older rule is removed when none of its sentences lives on anywhere
    sb_all = [*_sents(list(b.clauses)), *sb_other]
    for c in a.clauses:
        if c.id in matched_a or not c.original:
            continue
        theirs = [s for s in sa if s.clause == c.id]
        if any(_best(s, sb_all, MATCH_THRESHOLD)[0] is not None for s in theirs):
            continue
        changes.append(ClauseChange(ChangeKind.REMOVED, a.number, "", c.heading, (c.id,), 0.0))
    return RuleDiff(
        b.number, a.edition, b.edition, tuple(changes), tuple(unchanged), tuple(pairings)
    )


def _param_changes(ea: str, eb: str) -> tuple[ParamChange, ...]:
    if ea not in EDITIONS or eb not in EDITIONS:
        return ()
    pa, pb = EDITIONS[ea].params(), EDITIONS[eb].params()
    return tuple(
        ParamChange(name, pa[name].value, pb[name].value, pa[name].clause, pb[name].clause)
        for name in pa
        if name in pb and pa[name].value != pb[name].value
    )


def all_clauses(
    corpus: Corpus, edition: str, rules: tuple[int, ...] | None = None
) -> tuple[Clause, ...]:
    """Every clause of ``edition`` (of ``rules`` only, if given), rule by rule."""
    if rules is None:
        info = corpus.edition_info(edition)
        rules = info.rules if info is not None else ()
    out: list[Clause] = []
    for n in rules:
        r = corpus.rule(edition, n)
        if r is not None:
            out += r.clauses
    return tuple(out)


def diff_editions(
    corpus: Corpus, edition_a: str, edition_b: str, rule: int | None = None
) -> EditionDiff:
    """Compare two editions in ``corpus`` (every rule both have text for, or just ``rule``)."""
    infos = {e.id: e for e in corpus.editions()}
    for ed in (edition_a, edition_b):
        if ed not in infos:
            known = ", ".join(infos) or "none imported"
            raise ValueError(f"rules diff: edition {ed!r} is not in the database (known: {known})")
    ra, rb = set(infos[edition_a].rules), set(infos[edition_b].rules)
    wanted = sorted(ra | rb) if rule is None else [rule]
    if rule is not None and rule not in ra | rb:
        raise ValueError(
            f"rules diff: neither {edition_a} nor {edition_b} has text for Rule {rule}"
        )
    pool_a = all_clauses(corpus, edition_a, tuple(sorted(ra)))
    pool_b = all_clauses(corpus, edition_b, tuple(sorted(rb)))
    diffs = []
    for n in wanted:
        if n in ra and n in rb:
            a, b = corpus.rule(edition_a, n), corpus.rule(edition_b, n)
            assert a is not None and b is not None
            diffs.append(diff_rules(a, b, pool_a, pool_b))
    return EditionDiff(
        edition_a,
        edition_b,
        tuple(diffs),
        tuple(n for n in wanted if n in ra and n not in rb),
        tuple(n for n in wanted if n in rb and n not in ra),
        _param_changes(edition_a, edition_b),
    )
