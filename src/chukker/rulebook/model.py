"""The rulebook as values: edition -> rule -> clause.

A :class:`Clause` has the id printed in the rulebook (``13a(1)``,
``13b(9) interpretation``) or, where the source prints none, the rule number
and the slug of its heading (``5.split-periods``). Its text is a sequence of
:class:`Passage` s, each an English original with its translations. An
illustrated play inside a clause is a :class:`Play` attached to it.

>>> c = Clause("uspa-arena-2026", "13b", 13, 9, ClauseKind.RULE, "Zigzagging",
...            (Passage("Weaving in front.", (("it", "Serpeggiare davanti."),)),))
>>> c.original, c.translation("it"), c.translation("es")
('Weaving in front.', 'Serpeggiare davanti.', '')
>>> rule_of_clause_id("13b(9) interpretation"), rule_of_clause_id("5.split-periods")
(13, 5)
>>> slugify("Tie: shootout, set-up")
'tie-shootout-set-up'
>>> anchor("13b(9) interpretation")
'c-13b-9-interpretation'
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from enum import StrEnum


class ClauseKind(StrEnum):
    """What a clause is: rule text, an interpretation, examples or a lone illustrated play.

    An illustrated play printed inside a clause is attached to that clause
    (:attr:`Clause.plays`); ``illustrated-play`` is the kind of a clause that
    is nothing but a play.
    """

    RULE = "rule"
    INTERPRETATION = "interpretation"
    EXAMPLE = "example"
    ILLUSTRATED_PLAY = "illustrated-play"


@dataclass(frozen=True, slots=True)
class Passage:
    """One paragraph of a clause: the English original and its translations."""

    original: str
    translations: tuple[tuple[str, str], ...] = ()

    def translation(self, lang: str) -> str:
        """The translation into ``lang``, or ``""``."""
        for code, text in self.translations:
            if code == lang:
                return text
        return ""

    def only(self, lang: str) -> Passage:
        """This passage keeping only the translation into ``lang``."""
        return replace(self, translations=tuple(t for t in self.translations if t[0] == lang))


@dataclass(frozen=True, slots=True)
class PlayStep:
    """One line of an illustrated play's timeline."""

    at_ms: int
    text: str


@dataclass(frozen=True, slots=True)
class Play:
    """An illustrated play: legend, timeline and verdict, in one language."""

    lang: str
    legend: tuple[str, ...]
    timeline_label: str
    timeline: tuple[PlayStep, ...]
    setting: str
    verdict_label: str
    verdict: str
    caption: str


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a clause was read: the file, and its page and line, or its HTML element.

    >>> Origin("fr", "regles.pdf", page=3, line=12).describe()
    'regles.pdf, p. 3, l. 12'
    >>> Origin("en", "rules.html", line=40, element="li#r13b").describe()
    'rules.html, l. 40, <li#r13b>'
    """

    lang: str
    file: str
    page: int = 0
    line: int = 0
    element: str = ""

    def describe(self) -> str:
        parts = [self.file]
        if self.page:
            parts.append(f"p. {self.page}")
        if self.line:
            parts.append(f"l. {self.line}")
        if self.element:
            parts.append(f"<{self.element}>")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Clause:
    """One clause of a rule, with its printed id, heading, text and plays."""

    edition: str
    id: str
    rule: int
    seq: int
    kind: ClauseKind
    heading: str
    passages: tuple[Passage, ...]
    parent: str = ""
    plays: tuple[Play, ...] = ()
    #: notes printed in a translation beside the clause (e.g. a figure's caption)
    notes: tuple[tuple[str, str], ...] = ()
    #: the heading as a translated document prints it, by language
    headings: tuple[tuple[str, str], ...] = ()
    #: where each language's text of this clause was read
    origins: tuple[Origin, ...] = ()

    def heading_in(self, lang: str) -> str:
        """The heading in ``lang`` where a document printed one, else :attr:`heading`."""
        return next((h for code, h in self.headings if code == lang and h), self.heading)

    @property
    def original(self) -> str:
        """The English original, paragraphs separated by a blank line."""
        return "\n\n".join(p.original for p in self.passages)

    def translation(self, lang: str) -> str:
        """The translation into ``lang`` (paragraphs joined), or ``""``."""
        parts = [p.translation(lang) for p in self.passages]
        return "\n\n".join(parts) if any(parts) else ""

    def languages(self) -> tuple[str, ...]:
        """The languages this clause is translated into, sorted."""
        return tuple(sorted({c for p in self.passages for c, _ in p.translations}))

    def only(self, lang: str) -> Clause:
        """This clause with only the ``lang`` translation, plays, notes and origins."""
        return replace(
            self,
            passages=tuple(p.only(lang) for p in self.passages),
            plays=tuple(p for p in self.plays if p.lang == lang),
            notes=tuple(n for n in self.notes if n[0] == lang),
            headings=tuple(h for h in self.headings if h[0] == lang),
            origins=tuple(o for o in self.origins if o.lang == lang),
        )


@dataclass(frozen=True, slots=True)
class RuleText:
    """What a page prints about a whole rule in one language."""

    lang: str
    title: str
    name: str = ""
    subtitle: str = ""
    footer: str = ""


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule of an edition: its page texts by language and its clauses in order."""

    edition: str
    number: int
    texts: tuple[RuleText, ...]
    clauses: tuple[Clause, ...]
    source: str = ""

    def text(self, lang: str) -> RuleText | None:
        """The page texts in ``lang``, if that page was imported."""
        for t in self.texts:
            if t.lang == lang:
                return t
        return None

    def clause(self, clause_id: str) -> Clause:
        """The clause ``clause_id``; :class:`ValueError` if this rule has none such."""
        for c in self.clauses:
            if c.id == clause_id:
                return c
        raise ValueError(f"rules: {self.edition} Rule {self.number} has no clause {clause_id!r}")

    def only(self, lang: str) -> Rule:
        """This rule restricted to what a ``lang`` page carries."""
        return replace(
            self,
            texts=tuple(t for t in self.texts if t.lang == lang),
            clauses=tuple(c.only(lang) for c in self.clauses),
        )


@dataclass(frozen=True, slots=True)
class EditionInfo:
    """An edition known to the corpus."""

    id: str
    title: str
    year: int
    rules: tuple[int, ...] = field(default=())


_CLAUSE_RULE = re.compile(r"^(\d{1,2})(?=$|[^\d])")


def rule_of_clause_id(clause_id: str) -> int:
    """The rule number a clause id belongs to (its leading number).

    >>> rule_of_clause_id("9.p10")
    9
    >>> rule_of_clause_id("zigzag")
    Traceback (most recent call last):
    ...
    ValueError: rules: clause id 'zigzag' does not start with a rule number
    """
    m = _CLAUSE_RULE.match(clause_id.strip())
    if not m:
        raise ValueError(f"rules: clause id {clause_id!r} does not start with a rule number")
    return int(m.group(1))


def fold(text: str) -> str:
    """``text`` case-folded and without diacritics (for matching, not display).

    >>> fold("Período ÉXTRA")
    'periodo extra'
    """
    nfkd = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in nfkd if not unicodedata.combining(ch)).casefold()


def slugify(text: str) -> str:
    """A lowercase ASCII slug: words joined by ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", fold(text)).strip("-")


def anchor(clause_id: str) -> str:
    """The HTML anchor of a clause on its rule page (stable: a permalink)."""
    return "c-" + (slugify(clause_id) or "clause")
