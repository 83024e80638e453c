"""Page languages (en, es, it) through Babel message catalogs.

The catalogs are the ``.po`` files in ``web/locales/<lang>/LC_MESSAGES``: every
file there is read (``messages.po`` for the pages, one file per concern beside
it, e.g. ``refusals.po``, ``tournament.po``), merged into one catalog, and
compiled in memory when first needed, so the package ships no binary files.

>>> translations("es").gettext("Score sheet")
'Acta del partido'
>>> pick_language("it", None, "es-AR,es;q=0.9"), pick_language(None, None, "fr, es;q=0.5")
('it', 'es')
"""

from __future__ import annotations

import functools
import io
from pathlib import Path

from babel import Locale, negotiate_locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

LANGUAGES = ("en", "es", "it")
LOCALES = Path(__file__).parent / "web" / "locales"


def _compiled(po: Path, lang: str) -> Translations:
    with po.open("rb") as f:
        catalog = read_po(f, locale=lang)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf)


@functools.cache
def translations(lang: str) -> NullTranslations:
    files = sorted((LOCALES / lang / "LC_MESSAGES").glob("*.po"))
    if lang == "en" or not files:
        return NullTranslations()
    merged = _compiled(files[0], lang)
    for po in files[1:]:
        merged.merge(_compiled(po, lang))
    return merged


def language_name(lang: str) -> str:
    """>>> language_name("es")
    'español'
    """
    return str(Locale.parse(lang).get_display_name(lang))


def pick_language(query: str | None, cookie: str | None, accept: str | None,
                  languages: tuple[str, ...] | None = None) -> str:
    """The language of a request among ``languages`` (default :data:`LANGUAGES`).

    >>> pick_language(None, None, "es,it;q=0.8", ("en", "it"))
    'it'
    """
    langs = LANGUAGES if languages is None else languages
    for choice in (query, cookie):
        if choice in langs:
            return choice
    if accept:
        wanted = [p.split(";")[0].strip().replace("-", "_") for p in accept.split(",")]
        found = negotiate_locale(wanted, list(langs), sep="_")
        if found:
            return found.split("_")[0]
    return "en"
