"""Cross-references in rule text: "Rule 5.c(2)", "Reglas 5.c(2)(v) y 5.c(2)(ix)", "Penalty 5.b".

>>> [(r.text, r.rule, r.target) for r in find_refs("see Rules 5.c(2)(v) and 5.c(2)(ix) below")]
[('5.c(2)(v)', 5, '5.c(2)(v)'), ('5.c(2)(ix)', 5, '5.c(2)(ix)')]
>>> [(r.text, r.target) for r in find_refs("una Punizione 5.b all'altra squadra")]
[('Punizione 5.b', '9.p5')]
>>> [(r.text, r.rule) for r in find_refs("Subject to Rule 18; Regola 13b; Rules 2026")]
[('Rule 18', 18), ('Regola 13b', 13)]
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from chukker.rulebook.languages import LANGUAGES

PENALTY_WORDS: tuple[str, ...] = ("Penalty", "Penal", "Punizione", "Pénalité")

_REF = r"\d{1,2}(?!\d)(?:\.?[a-z](?![a-z]))?(?:\([0-9a-z]{1,4}\))*"
_RULE_WORDS = sorted(
    {w for lang in LANGUAGES.values() for w in lang.rule_words}, key=len, reverse=True
)
_RULES = re.compile(
    rf"\b(?P<word>{'|'.join(map(re.escape, _RULE_WORDS))})\s+(?P<first>{_REF})"
    rf"(?P<more>(?:(?:,\s*|\s+(?:and|or|y|o|e|et|ou)\s+)(?:{_REF}))*)"
)
_MORE = re.compile(_REF)
_PENALTY = re.compile(
    rf"\b(?:{'|'.join(PENALTY_WORDS)})\s+(?:No\.\s*)?(?P<n>\d{{1,2}})(?!\d)(?:\.(?P<sub>[a-z])(?![a-z]))?"
)


@dataclass(frozen=True, slots=True)
class CrossRef:
    """A reference found in text: its span, the rule it points to and the printed target."""

    start: int
    end: int
    text: str
    rule: int
    #: the referenced clause as printed ("5.c(2)") or a corpus id ("9.p5")
    target: str


def find_refs(text: str) -> list[CrossRef]:
    """Every cross-reference in ``text``, in order."""
    out: list[CrossRef] = []
    for m in _RULES.finditer(text):
        first = m.group("first")
        if m.group("more"):
            out.append(CrossRef(m.start("first"), m.end("first"), first, _lead(first), first))
            base = m.start("more")
            for x in _MORE.finditer(m.group("more")):
                s, e = base + x.start(), base + x.end()
                out.append(CrossRef(s, e, x.group(0), _lead(x.group(0)), x.group(0)))
        else:
            out.append(CrossRef(m.start(), m.end(), m.group(0), _lead(first), first))
    for m in _PENALTY.finditer(text):
        if any(r.start <= m.start() < r.end for r in out):
            continue
        out.append(CrossRef(m.start(), m.end(), m.group(0), 9, f"9.p{int(m.group('n'))}"))
    return sorted(out, key=lambda r: r.start)


def _lead(ref: str) -> int:
    return int(re.match(r"\d+", ref).group(0))  # type: ignore[union-attr]


def link_segments(
    text: str, href: Callable[[CrossRef], str | None]
) -> list[tuple[str, str | None]]:
    """``text`` cut into ``(piece, link)`` pairs; ``link`` is ``None`` for plain text.

    >>> link_segments("as in Rule 7.", lambda r: f"/rules/{r.rule}")
    [('as in ', None), ('Rule 7', '/rules/7'), ('.', None)]
    """
    out: list[tuple[str, str | None]] = []
    pos = 0
    for r in find_refs(text):
        link = href(r)
        if link is None:
            continue
        if r.start > pos:
            out.append((text[pos : r.start], None))
        out.append((text[r.start : r.end], link))
        pos = r.end
    if pos < len(text):
        out.append((text[pos:], None))
    return out


def candidate_ids(target: str) -> list[str]:
    """Corpus clause ids a printed target may be stored under, most specific first.

    >>> candidate_ids("5.c(2)(v)")
    ['5.c(2)(v)', '5c(2)(v)', '5.c(2)', '5c(2)', '5.c', '5c', '5']
    """
    out: list[str] = []
    t = target
    while t:
        for x in (t, t.replace(".", "", 1)):
            if x not in out:
                out.append(x)
        if t.endswith(")"):
            t = t[: t.rfind("(")]
        elif re.search(r"\.?[a-z]$", t):
            t = re.sub(r"\.?[a-z]$", "", t)
        else:
            break
    return out
