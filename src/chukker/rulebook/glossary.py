"""chukker's glossary of arena polo terms in English, Spanish and Italian.

>>> term("bowl-in", "it").term
'bowl-in'
>>> [t.id for t in glossary("es")][:2]
['chukker', 'interval']
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from chukker.rulebook.languages import ORIGINAL_LANG, SITE_LANGS


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
