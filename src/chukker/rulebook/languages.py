"""Languages of the rulebook: any language a document is written in.

A language comes from the document (its ``lang`` attribute, its original-text
marker, its title word) or from ``--lang``; there is no fixed list. The table
:data:`LANGUAGES` only adds what chukker knows beyond the code: the marker
(``Texto original``), the word for "Rule" and chukker's own interface labels.
A language without an entry still works: its name comes from Babel's locale
data, its labels fall back to English (:attr:`Language.has_labels` says so),
and search uses a Snowball stemmer when one exists for it.

>>> language("es").original_marker
'Texto original'
>>> language_of_rule_word("Regola").code
'it'
>>> de = language("de")
>>> de.name, de.has_labels, de.label(Label.RULES)
('Deutsch', False, 'Rules')
>>> stemmer("fr")("arbitres"), stemmer("tlh") is None
('arbitr', True)
>>> language("x1!")
Traceback (most recent call last):
...
ValueError: rules: unknown language 'x1!' (expected a language code such as fr or pt-BR)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

#: English is the language of the originals; it prevails.
ORIGINAL_LANG = "en"


class Label(StrEnum):
    """Interface labels shown on pages and in the terminal."""

    ORIGINAL_TEXT = "original_text"
    WHAT_HAPPENS = "what_happens"
    FOOTER = "footer"
    SUMMARY = "summary"
    ENGINE = "engine"
    SEARCH = "search"
    GLOSSARY = "glossary"
    RULES = "rules"
    NO_TEXT = "no_text"
    NO_TRANSLATION = "no_translation"
    FALLBACK = "fallback"
    NEW_IN = "new_in"
    CHANGED_IN = "changed_in"
    PERMALINK = "permalink"
    RESULTS = "results"
    NO_RESULTS = "no_results"
    LANGUAGE = "language"
    EDITION = "edition"
    VERDICT = "verdict"
    CLAUSE = "clause"
    FROM_CLAUSE = "from_clause"
    LABELS_FALLBACK = "labels_fallback"
    NO_ORIGINAL = "no_original"
    SOURCE = "source"
    MOVED_FROM = "moved_from"
    NOT_IN_TRANSLATION = "not_in_translation"
    ONLY_IN_TRANSLATION = "only_in_translation"
    SEARCH_BUTTON = "search_button"
    DID_YOU_MEAN = "did_you_mean"


@dataclass(frozen=True, slots=True)
class Language:
    """One language of the rulebook: its markers and its interface labels."""

    code: str
    name: str
    rule_word: str
    rule_words: tuple[str, ...]
    original_marker: str
    labels: tuple[tuple[Label, str], ...]

    @property
    def has_labels(self) -> bool:
        """Whether chukker's own words (labels, summaries) exist in this language."""
        return self.code in SITE_LANGS

    def label(self, key: Label) -> str:
        """The interface label ``key`` in this language (English if missing)."""
        for k, text in self.labels:
            if k == key:
                return text
        if self.code != ORIGINAL_LANG:
            return LANGUAGES[ORIGINAL_LANG].label(key)
        raise ValueError(f"rules: language {self.code!r} has no label {key.value!r}")


_EN = (
    (Label.ORIGINAL_TEXT, "Original text"),
    (Label.WHAT_HAPPENS, "What happens"),
    (
        Label.FOOTER,
        "Translations here help players and umpires learn the rules; they are not official. "
        "Where a translation and the English original differ, the original applies.",
    ),
    (Label.SUMMARY, "In short (chukker's summary)"),
    (Label.ENGINE, "What chukker does with it"),
    (Label.SEARCH, "Search the rules"),
    (Label.GLOSSARY, "Glossary"),
    (Label.RULES, "Rules"),
    (
        Label.NO_TEXT,
        "The rulebook text of this rule is not in the local database. "
        "Import it with `chukker rules import FILE...`.",
    ),
    (Label.NO_TRANSLATION, "No translation in this language yet; the original follows."),
    (Label.FALLBACK, "This edition's pages are silent on this rule; shown from"),
    (Label.NEW_IN, "New in"),
    (Label.CHANGED_IN, "Changed in"),
    (Label.PERMALINK, "Link to this clause"),
    (Label.RESULTS, "Results"),
    (Label.NO_RESULTS, "Nothing found."),
    (Label.LANGUAGE, "Language"),
    (Label.EDITION, "Edition"),
    (Label.VERDICT, "Verdict"),
    (Label.CLAUSE, "clause"),
    (Label.FROM_CLAUSE, "from clause"),
    (
        Label.LABELS_FALLBACK,
        "chukker's own texts (summaries, labels) are not translated into this language; "
        "they are shown in English.",
    ),
    (Label.NO_ORIGINAL, "The English original of this clause is not imported."),
    (Label.SOURCE, "Source"),
    (Label.MOVED_FROM, "Moved from Rule"),
    (Label.NOT_IN_TRANSLATION, "Clauses this translation does not have"),
    (
        Label.ONLY_IN_TRANSLATION,
        "Clauses of this translation that the original does not have (not aligned)",
    ),
    (Label.SEARCH_BUTTON, "Search"),
    (Label.DID_YOU_MEAN, "Did you mean"),
)

_ES = (
    (Label.ORIGINAL_TEXT, "Texto original"),
    (Label.WHAT_HAPPENS, "Qué pasa"),
    (
        Label.FOOTER,
        "Las traducciones sirven para que jugadores y umpires aprendan el reglamento; no son "
        "oficiales. Si una traducción y el original en inglés difieren, vale el original.",
    ),
    (Label.SUMMARY, "En resumen (resumen de chukker)"),
    (Label.ENGINE, "Qué hace chukker con esta regla"),
    (Label.SEARCH, "Buscar en el reglamento"),
    (Label.GLOSSARY, "Glosario"),
    (Label.RULES, "Reglas"),
    (
        Label.NO_TEXT,
        "El texto de esta regla no está en la base de datos local. "
        "Impórtelo con `chukker rules import ARCHIVO...`.",
    ),
    (Label.NO_TRANSLATION, "Aún no hay traducción a este idioma; sigue el original."),
    (Label.FALLBACK, "Las páginas de esta edición no tratan esta regla; se muestra de"),
    (Label.NEW_IN, "Nuevo en"),
    (Label.CHANGED_IN, "Cambió en"),
    (Label.PERMALINK, "Enlace a esta cláusula"),
    (Label.RESULTS, "Resultados"),
    (Label.NO_RESULTS, "Sin resultados."),
    (Label.LANGUAGE, "Idioma"),
    (Label.EDITION, "Edición"),
    (Label.VERDICT, "Decisión"),
    (Label.CLAUSE, "cláusula"),
    (Label.FROM_CLAUSE, "según la cláusula"),
    (
        Label.LABELS_FALLBACK,
        "Los textos propios de chukker (resúmenes, etiquetas) no están traducidos a este "
        "idioma; se muestran en inglés.",
    ),
    (Label.NO_ORIGINAL, "El original en inglés de esta cláusula no está importado."),
    (Label.SOURCE, "Fuente"),
    (Label.MOVED_FROM, "Trasladado desde la Regla"),
    (Label.NOT_IN_TRANSLATION, "Cláusulas que esta traducción no tiene"),
    (
        Label.ONLY_IN_TRANSLATION,
        "Cláusulas de esta traducción que el original no tiene (sin alinear)",
    ),
    (Label.SEARCH_BUTTON, "Buscar"),
    (Label.DID_YOU_MEAN, "Quizás quiso decir"),
)

_IT = (
    (Label.ORIGINAL_TEXT, "Testo originale"),
    (Label.WHAT_HAPPENS, "Cosa succede"),
    (
        Label.FOOTER,
        "Le traduzioni aiutano giocatori e arbitri a imparare le regole; non sono ufficiali. "
        "Se una traduzione e l'originale inglese non coincidono, vale l'originale.",
    ),
    (Label.SUMMARY, "In breve (riassunto di chukker)"),
    (Label.ENGINE, "Cosa fa chukker con questa regola"),
    (Label.SEARCH, "Cerca nel regolamento"),
    (Label.GLOSSARY, "Glossario"),
    (Label.RULES, "Regole"),
    (
        Label.NO_TEXT,
        "Il testo di questa regola non è nel database locale. "
        "Importalo con `chukker rules import FILE...`.",
    ),
    (Label.NO_TRANSLATION, "Nessuna traduzione in questa lingua; segue l'originale."),
    (Label.FALLBACK, "Le pagine di questa edizione non trattano questa regola; mostrata da"),
    (Label.NEW_IN, "Nuovo nel"),
    (Label.CHANGED_IN, "Cambiato nel"),
    (Label.PERMALINK, "Link a questa clausola"),
    (Label.RESULTS, "Risultati"),
    (Label.NO_RESULTS, "Nessun risultato."),
    (Label.LANGUAGE, "Lingua"),
    (Label.EDITION, "Edizione"),
    (Label.VERDICT, "Decisione"),
    (Label.CLAUSE, "clausola"),
    (Label.FROM_CLAUSE, "dalla clausola"),
    (
        Label.LABELS_FALLBACK,
        "I testi propri di chukker (riassunti, etichette) non sono tradotti in questa "
        "lingua; sono mostrati in inglese.",
    ),
    (Label.NO_ORIGINAL, "L'originale inglese di questa clausola non è importato."),
    (Label.SOURCE, "Fonte"),
    (Label.MOVED_FROM, "Spostato dalla Regola"),
    (Label.NOT_IN_TRANSLATION, "Clausole che questa traduzione non ha"),
    (
        Label.ONLY_IN_TRANSLATION,
        "Clausole di questa traduzione che l'originale non ha (non allineate)",
    ),
    (Label.SEARCH_BUTTON, "Cerca"),
    (Label.DID_YOU_MEAN, "Forse cercavi"),
)

_FR = (
    (Label.ORIGINAL_TEXT, "Texte original"),
    (Label.WHAT_HAPPENS, "Ce qui se passe"),
)

LANGUAGES: dict[str, Language] = {
    "en": Language("en", "English", "Rule", ("Rule", "Rules"), "Original text", _EN),
    "es": Language("es", "Español", "Regla", ("Regla", "Reglas"), "Texto original", _ES),
    "it": Language("it", "Italiano", "Regola", ("Regola", "Regole"), "Testo originale", _IT),
    "fr": Language("fr", "Français", "Règle", ("Règle", "Règles"), "Texte original", _FR),
}

#: The languages the site and the built-in summaries cover.
SITE_LANGS: tuple[str, ...] = ("en", "es", "it")


_CODE = re.compile(r"^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$")


def valid_code(code: str) -> bool:
    """Whether ``code`` is shaped like a language tag (``fr``, ``pt-BR``, ``gsw``)."""
    return bool(_CODE.match(code))


@cache
def _babel_names(code: str) -> tuple[str, str]:
    """(name in the language itself, English name) from Babel's locale data, or ``("", "")``."""
    try:
        from babel import Locale, UnknownLocaleError

        loc = Locale.parse(code.replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return "", ""
    own = loc.get_display_name(loc) or ""
    return own[:1].upper() + own[1:], loc.english_name or ""


@cache
def language(code: str) -> Language:
    """The :class:`Language` for ``code``: the table's entry, else one made from the code.

    Raises :class:`ValueError` only for a malformed code.
    """
    if code in LANGUAGES:
        return LANGUAGES[code]
    if not valid_code(code):
        raise ValueError(
            f"rules: unknown language {code!r} (expected a language code such as fr or pt-BR)"
        )
    base = code.split("-", 1)[0]
    if base in LANGUAGES:
        known = LANGUAGES[base]
        return Language(
            code, known.name, known.rule_word, known.rule_words, known.original_marker, known.labels
        )
    own, _ = _babel_names(code)
    return Language(code, own or code, "Rule", ("Rule", "Rules"), "", ())


@cache
def stemmer(code: str) -> Callable[[str], str] | None:
    """A Snowball stemmer for ``code``'s language, or ``None`` where Snowball has none."""
    import snowballstemmer  # type: ignore[import-untyped]

    _, english = _babel_names(code.split("-", 1)[0])
    name = english.split(" (")[0].lower()
    if not name or name not in snowballstemmer.algorithms():
        return None
    st = snowballstemmer.stemmer(name)  # PyStemmer's C code underneath when installed
    seen: dict[str, str] = {}

    def stem(word: str) -> str:
        found = seen.get(word)
        if found is None:
            found = seen[word] = str(st.stemWord(word))
        return found

    return stem


def language_of_rule_word(word: str) -> Language | None:
    """The language whose word for "Rule" is ``word`` (case-insensitive), if any."""
    w = word.casefold()
    for lang in LANGUAGES.values():
        if any(w == x.casefold() for x in lang.rule_words):
            return lang
    return None


def language_of_marker(line: str) -> Language | None:
    """The language whose original-text marker is exactly ``line`` (trimmed), if any."""
    s = line.strip().casefold()
    for lang in LANGUAGES.values():
        if lang.code != ORIGINAL_LANG and s == lang.original_marker.casefold():
            return lang
    return None
