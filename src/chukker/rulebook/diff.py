"""Compare two editions clause by clause: added, removed, changed, and the numbers that changed.

Clauses are paired by their text, not their ids (the 2006 summary's
``5(b)`` is the 2026 page's ``5.tie-shootout-set-up``): each sentence of
the newer edition is matched to the most similar sentence of the older one
(word-set overlap, numbers masked), and the numbers in matched sentences
are compared.

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

from chukker.rulebook.corpus import Corpus
from chukker.rulebook.model import Clause, Rule, fold
from chukker.rules.editions import EDITIONS

#: how similar (Dice coefficient of word sets, numbers masked) two sentences must be to pair
MATCH_THRESHOLD = 0.6

_SENT = re.compile(r"(?<=[.!?:;])\s+(?=[“\"(\[]?[A-ZÁÉÍÓÚÑ])")
_TOKEN = re.compile(r"\d[\d/½¼¾.,]*(?:-\d[\d/]*)*(?:-[^\W\d_]+)?|[^\W\d_]+(?:'[^\W\d_]+)?")
_NUM = re.compile(r"\d")


class ChangeKind(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"


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


@dataclass(frozen=True, slots=True)
class RuleDiff:
    """How rule ``rule`` changed from ``edition_a`` to ``edition_b``."""

    rule: int
    edition_a: str
    edition_b: str
    changes: tuple[ClauseChange, ...]
    unchanged: tuple[str, ...]

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


def _masked(tokens: list[str]) -> frozenset[str]:
    return frozenset(_stem(re.sub(r"^\d[\d/½¼¾.,]*(?:-\d[\d/]*)*", "#", t)) for t in tokens)


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
    masked: frozenset[str]


def _sents(clauses: tuple[Clause, ...] | list[Clause]) -> list[_Sent]:
    out = []
    for c in clauses:
        for s in sentences(c.original):
            toks = _tokens(s)
            if toks:
                out.append(_Sent(c.id, c.rule, s, tuple(toks), _masked(toks)))
    return out


def _dice(a: frozenset[str], b: frozenset[str]) -> float:
    return 2 * len(a & b) / (len(a) + len(b)) if a or b else 1.0


def _best(s: _Sent, pool: list[_Sent]) -> tuple[_Sent | None, float]:
    best, score = None, 0.0
    for t in pool:
        d = _dice(s.masked, t.masked)
        if d > score or (
            d == score and best is not None and t.rule == s.rule and best.rule != s.rule
        ):
            best, score = t, d
    return (best, score) if score >= MATCH_THRESHOLD else (None, score)


def diff_rules(
    a: Rule, b: Rule, a_pool: tuple[Clause, ...] = (), b_pool: tuple[Clause, ...] = ()
) -> RuleDiff:
    """Clause-level changes of rule ``b`` against rule ``a``.

    ``a_pool`` / ``b_pool`` are the other clauses of each edition: a clause
    moved between rules is paired across them rather than reported new.
    """
    sa = _sents([*a.clauses, *(c for c in a_pool if c.rule != a.number)])
    sb_all = _sents([*b.clauses, *(c for c in b_pool if c.rule != b.number)])
    matched_a: dict[str, set[str]] = {}
    changes: list[ClauseChange] = []
    unchanged: list[str] = []
    for c in b.clauses:
        mine = [s for s in sb_all if s.clause == c.id]
        was: list[str] = []
        sims: list[float] = []
        nums: list[NumberChange] = []
        same = bool(mine)
        for s in mine:
            t, score = _best(s, sa)
            sims.append(score if t else 0.0)
            if t is None:
                same = False
                continue
            matched_a.setdefault(t.clause, set()).add(c.id)
            if t.clause not in was:
                was.append(t.clause)
            if t.key != s.key:
                same = False
                nums += number_changes(t.text, s.text)
        if not mine:
            continue
        sim = sum(sims) / len(sims)
        if not was:
            changes.append(ClauseChange(ChangeKind.ADDED, b.number, c.id, c.heading, (), 0.0))
        elif same:
            unchanged.append(c.id)
        else:
            changes.append(
                ClauseChange(
                    ChangeKind.CHANGED,
                    b.number,
                    c.id,
                    c.heading,
                    tuple(was),
                    round(sim, 3),
                    tuple(nums),
                )
            )
    # a clause of the older rule is removed when none of its sentences lives on anywhere
    for c in a.clauses:
        if c.id in matched_a or not c.original:
            continue
        theirs = [s for s in sa if s.clause == c.id]
        if any(_best(s, sb_all)[0] is not None for s in theirs):
            continue
        changes.append(ClauseChange(ChangeKind.REMOVED, a.number, "", c.heading, (c.id,), 0.0))
    return RuleDiff(b.number, a.edition, b.edition, tuple(changes), tuple(unchanged))


def _param_changes(ea: str, eb: str) -> tuple[ParamChange, ...]:
    if ea not in EDITIONS or eb not in EDITIONS:
        return ()
    pa, pb = EDITIONS[ea].params(), EDITIONS[eb].params()
    return tuple(
        ParamChange(name, pa[name].value, pb[name].value, pa[name].clause, pb[name].clause)
        for name in pa
        if name in pb and pa[name].value != pb[name].value
    )


def _all_clauses(corpus: Corpus, edition: str, rules: tuple[int, ...]) -> tuple[Clause, ...]:
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
    pool_a = _all_clauses(corpus, edition_a, tuple(sorted(ra)))
    pool_b = _all_clauses(corpus, edition_b, tuple(sorted(rb)))
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
