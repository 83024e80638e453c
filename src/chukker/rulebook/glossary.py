"""chukker's glossary of arena polo terms in English, Spanish and Italian.

>>> term("bowl-in", "it").term
'bowl-in'
>>> [t.id for t in glossary("es")][:2]
['chukker', 'interval']

A word people type for a term in any language (its term, or another word for it, such as
``rigore`` or ``penal`` for a penalty) gives the term's words in every language, which the
search looks for too:

>>> sorted(synonyms("Rigore"))[:4]
['penal', 'penales', 'penalidad', 'penalidades']
>>> title_in("Penalty 2", "it"), title_in("Penalty 2", "es"), title_in("Zigzagging", "es")
('Punizione 2', 'Penal 2', 'Zigzagging')
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from chukker.rulebook.languages import ORIGINAL_LANG, SITE_LANGS
from chukker.rulebook.model import fold


@dataclass(frozen=True, slots=True)
class GlossaryEntry:
    """A term, its short definition in one language, and the rules it belongs to."""

    id: str
    lang: str
    term: str
    definition: str
    rules: tuple[int, ...]


@cache
def _terms() -> list[dict[str, Any]]:
    text = (
        resources.files("chukker.rulebook")
        .joinpath("data", "glossary.json")
        .read_text(encoding="utf-8")
    )
    terms: list[dict[str, Any]] = json.loads(text)["terms"]
    return terms


def glossary(lang: str = ORIGINAL_LANG) -> list[GlossaryEntry]:
    """Every glossary entry in ``lang`` (``en``, ``es`` or ``it``), in teaching order."""
    if lang not in SITE_LANGS:
        raise ValueError(f"rules: no glossary in {lang!r} (available: {', '.join(SITE_LANGS)})")
    return [
        GlossaryEntry(t["id"], lang, t[lang][0], t[lang][1], tuple(t["rules"])) for t in _terms()
    ]


def term(term_id: str, lang: str = ORIGINAL_LANG) -> GlossaryEntry:
    """One glossary entry by id; :class:`ValueError` if there is none."""
    for e in glossary(lang):
        if e.id == term_id:
            return e
    raise ValueError(f"rules: no glossary term {term_id!r}")


def terms_for_rule(rule: int, lang: str = ORIGINAL_LANG) -> list[GlossaryEntry]:
    """The glossary entries that belong to ``rule``."""
    return [e for e in glossary(lang) if rule in e.rules]


def _words_of(entry: dict[str, Any], lang: str) -> list[str]:
    """A term's words in ``lang``: each name of "a / b", without a bracketed gloss, and
    the other words for it (``also``)."""
    out = []
    for part in str(entry[lang][0]).split("/"):
        name = re.sub(r"\(.*?\)", "", part).strip()
        if name:
            out.append(name)
    out += [str(x) for x in (entry.get("also") or {}).get(lang, ())]
    return out


@cache
def _by_word() -> dict[str, tuple[str, ...]]:
    """Each folded word of a term (any language) -> every word of that term."""
    out: dict[str, set[str]] = {}
    for t in _terms():
        words = [w for lg in SITE_LANGS for w in _words_of(t, lg)]
        for w in words:
            out.setdefault(fold(w), set()).update(words)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def synonyms(word: str) -> tuple[str, ...]:
    """The words of the glossary term that ``word`` names (in en, es or it, accents and case
    optional), other than ``word`` itself; ``()`` when it names none."""
    w = fold(word.strip())
    return tuple(x for x in _by_word().get(w, ()) if fold(x) != w)


#: clause titles made of a term and a number ("Penalty 2"), said in the page's language
_NUMBERED = re.compile(r"(?i)(penalty)\s+(\d{1,2}[a-z]?)")


def title_in(heading: str, lang: str) -> str:
    """A clause's English title in ``lang`` where chukker can say it itself: "Penalty 2"
    is "Penal 2" in es and "Punizione 2" in it (the glossary's word); other titles as
    they are."""
    m = _NUMBERED.fullmatch(heading.strip())
    if m is None or lang == ORIGINAL_LANG or lang not in SITE_LANGS:
        return heading
    word = term(m.group(1).lower(), lang).term.split("/")[0].strip()
    return f"{word[:1].upper()}{word[1:]} {m.group(2)}"
