"""The language a page is rendered in: one function for the page and for its cache key.

The page (:func:`chukker.web.shared.render.lang_of`) and the page cache
(:mod:`chukker.web.cache`) both call :func:`language_of_scope`, so that a request can
never be rendered in one language and kept under another (issue 41: the cache keyed on
the first ``lang`` while the page read the last). The choice is, in order:

* the **last** ``lang`` query value, when it is one of the site's languages (``asked``:
  the page then sets the language cookie to it);
* the language cookie's value (the last ``chukker_lang`` of the ``Cookie`` header, as
  Starlette's ``request.cookies`` reads it), when it is one of them;
* the best of ``Accept-Language`` (its first :data:`ACCEPT_CHARS` characters);
* the default, ``en``.

>>> language(b"lang=es&lang=it", None, None)
('it', True)
>>> language(b"", b"chukker_lang=es; chukker_lang=it", None)
('it', False)
>>> language(b"lang=xx", b"chukker_lang=zz", b"es-AR,es;q=0.9")
('es', False)
"""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import cookie_parser

from chukker import i18n
from chukker.web.state import found_state

LANG_COOKIE = "chukker_lang"
#: the part of ``Accept-Language`` read (a header of megabytes is no more choice)
ACCEPT_CHARS = 200
#: where a request's choice is kept once made (the cache's and the page's, the same)
SCOPE_KEY = "chukker.lang"


@functools.lru_cache(maxsize=512)
def _accepted(accept: str, langs: tuple[str, ...]) -> str:
    return i18n.pick_language(None, None, accept, langs)


def language(query_string: bytes, cookie: bytes | None,
             accept: bytes | None, languages: tuple[str, ...] | None = None
             ) -> tuple[str, bool]:
    """``(language, asked)`` of a request's raw query, ``Cookie`` and
    ``Accept-Language`` (see the module); ``asked``: chosen by a ``lang`` parameter.
    ``languages``: the app's (setting ``languages``), else :data:`chukker.i18n.LANGUAGES`."""
    langs = i18n.LANGUAGES if languages is None else languages
    asked = None
    if b"lang=" in query_string:
        for k, v in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True):
            if k == "lang":
                asked = v
    if asked in langs:
        return str(asked), True
    if cookie and LANG_COOKIE.encode() in cookie:
        kept = cookie_parser(cookie.decode("latin-1")).get(LANG_COOKIE)
        if kept in langs:
            return str(kept), False
    if accept:
        found = _accepted(accept.decode("latin-1")[:ACCEPT_CHARS], tuple(langs))
        if found in langs:
            return found, False
    return "en", False


def _first(scope: Any, name: bytes) -> bytes | None:
    for k, v in scope.get("headers", []):
        if k == name:
            return bytes(v)
    return None


def language_of_scope(scope: Any) -> tuple[str, bool]:
    """:func:`language` of an ASGI request, worked out once and kept in its scope."""
    found = scope.get(SCOPE_KEY)
    if found is None:
        state = found_state(scope.get("app"))
        offered = state.configured.languages if state is not None else None
        found = scope[SCOPE_KEY] = language(scope.get("query_string", b"") or b"",
                                            _first(scope, b"cookie"),
                                            _first(scope, b"accept-language"), offered)
    return found  # type: ignore[no-any-return]
