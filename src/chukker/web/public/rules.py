"""The rulebook pages: ``/rules``, ``/rules/{edition}/{lang}/{rule}``, search and glossary.

A Starlette :data:`router` that the web app mounts at ``/rules``; links are
made from the mount point (``root_path``), so the router works wherever it
is mounted. Pages are server-rendered (Jinja2, everything escaped) and need
no JavaScript. :data:`app` is a standalone ASGI app serving just these
pages, for tests and previews.

The database is read-only here: ``$CHUKKER_RULES_DB``, else
``./chukker-rules.sqlite3`` (see :func:`make_router` to pass another). With no
imported text the pages show chukker's summaries and say how to import.

>>> from starlette.testclient import TestClient
>>> with TestClient(make_app("/nonexistent/rules.sqlite3")) as client:
...     r = client.get("/rules/uspa-arena-2026/es/5")
>>> r.status_code, "Regla 5 · USPA 2026 Arena Rules" in r.text
(200, True)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, Router
from starlette.staticfiles import StaticFiles

from chukker.rulebook.corpus import Corpus, default_db_path
from chukker.rulebook.crossrefs import CrossRef, candidate_ids, link_segments
from chukker.rulebook.diff import ClauseChange
from chukker.rulebook.glossary import glossary, title_in
from chukker.rulebook.languages import (
    ORIGINAL_LANG,
    SITE_LANGS,
    Label,
    Language,
    language,
    valid_code,
)
from chukker.rulebook.model import Clause, anchor, rule_of_clause_id
from chukker.rulebook.pages import (
    DEFAULT_EDITION,
    RulePage,
    clause_depth,
    edition_title,
    known_editions,
    rule_page,
)
from chukker.rulebook.search import SearchResults, lookup, titles_in
from chukker.rulebook.summaries import RULE_NUMBERS, summaries

HERE = Path(__file__).parent.parent  # chukker/web: templates/ and static/
_env = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
#: a clause title chukker can say in the page's language ("Penalty 2" -> "Penal 2")
_env.filters["title_in"] = title_in


class _Langs:
    """The languages a page offers (chukker's own and the imported documents'),
    looked up by code like a dict."""

    def __init__(self, codes: Sequence[str]) -> None:
        self.codes = list(dict.fromkeys(codes))

    def __getitem__(self, code: str) -> Language:
        return language(code)

    def __iter__(self) -> Iterator[str]:
        return iter(self.codes)

    def __contains__(self, code: object) -> bool:
        return code in self.codes


def _page_langs(corpus: Corpus | None) -> list[str]:
    """chukker's languages, then every language of the imported documents."""
    return list(dict.fromkeys([*SITE_LANGS, *(corpus.languages() if corpus is not None else [])]))


LANGUAGES = _Langs(SITE_LANGS)
def _plays_for(clause: str, lang: str) -> list[dict[str, Any]]:
    """Shipped plays illustrating ``clause`` (links and the figure's drawing)."""
    from chukker.web.public.plays import illustrating

    return illustrating(clause, lang)


def _year(edition: str) -> str:
    return edition.rsplit("-", 1)[-1]


class _Ctx:
    """Per-request helpers for the templates."""

    def __init__(self, request: Request, lang: str) -> None:
        self.base = request.scope.get("root_path", "").rstrip("/")
        self.lang = lang
        self.language = language(lang)
        self.path = request.url.path

    def url(self, *parts: str | int, query: str = "") -> str:
        tail = "/".join(quote(str(p), safe="") for p in parts)
        return f"{self.base}/{tail}" + (f"?{query}" if query else "")

    def rule_url(self, edition: str, lang: str, rule: int, clause: str = "") -> str:
        u = self.url(edition, lang, rule)
        return f"{u}#{anchor(clause)}" if clause else u

    def label(self, key: str) -> str:
        return self.language.label(Label(key))


def _paras_factory(ctx: _Ctx, page: RulePage | None) -> Callable[[str], Markup]:
    ids = {c.id for c in page.clauses} if page is not None else set()
    edition = page.edition if page is not None else DEFAULT_EDITION

    def href(ref: CrossRef) -> str | None:
        if page is not None and ref.rule == page.rule:
            for cand in candidate_ids(ref.target):
                if cand in ids:
                    return "#" + anchor(cand)
            return None
        if ref.rule not in RULE_NUMBERS:
            return None
        target = ref.target if ref.target.startswith("9.p") else ""
        return ctx.rule_url(edition, ctx.lang, ref.rule, target)

    def paras(text: str) -> Markup:
        out = []
        for line in text.split("\n"):
            if not line.strip():
                continue
            pieces = []
            for piece, link in link_segments(line, href):
                if link is None:
                    pieces.append(str(escape(piece)))
                else:
                    pieces.append(f'<a class="xref" href="{escape(link)}">{escape(piece)}</a>')
            out.append("<p>" + "".join(pieces) + "</p>")
        return Markup("\n".join(out))

    return paras


def _render(name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    html = _env.get_template(f"rules/{name}").render(**ctx)
    return HTMLResponse(html, status_code=status)


def _not_found(request: Request, lang: str, message: str) -> HTMLResponse:
    ctx = _Ctx(request, lang if lang in SITE_LANGS else ORIGINAL_LANG)
    return _render(
        "notfound.html", status=404, ctx=ctx, message=message, langs=SITE_LANGS, LANGUAGES=LANGUAGES
    )


def _rule_page(db: str, request: Any) -> Response:
    edition = request.path_params["edition"]
    lang = request.path_params["lang"]
    number = request.path_params["rule"]
    if not valid_code(lang):
        return _not_found(request, ORIGINAL_LANG, f"No pages in language {lang!r}.")
    if number not in RULE_NUMBERS:
        return _not_found(
            request, ORIGINAL_LANG, f"There is no Rule {number}; the rules are 1 to 18."
        )
    corpus = Corpus.open_readonly(db)
    try:
        langs = _page_langs(corpus)
        if lang not in langs:
            return _not_found(request, ORIGINAL_LANG, f"No pages in language {lang!r}.")
        if edition not in known_editions(corpus):
            return _not_found(request, lang, f"Unknown edition {edition!r}.")
        page = rule_page(corpus, edition, number, lang)
        editions = [(e, edition_title(corpus, e)) for e in known_editions(corpus)]
    finally:
        if corpus is not None:
            corpus.close()
    ctx = _Ctx(request, lang)

    def change_for(c: Clause) -> ClauseChange | None:
        return page.changes.change_for(c.id) if page.changes is not None else None

    return _render(
        "rule.html",
        ctx=ctx,
        page=page,
        langs=langs,
        LANGUAGES=_Langs(langs),
        editions=editions,
        paras=_paras_factory(ctx, page),
        anchor=anchor,
        depth=lambda c: clause_depth(c, page.clauses),
        change_for=change_for,
        year=_year,
        page_ids={c.id for c in page.clauses},
        rule_of=rule_of_clause_id,
        plays_for=_plays_for,
    )


def _search_page(db: str, request: Any) -> Response:
    q = request.query_params.get("q", "").strip()[:200]
    hits: list[Any] = []
    found: SearchResults | None = None
    has_db = False
    corpus = Corpus.open_readonly(db)
    langs = _page_langs(corpus)
    lang = _ui_lang(request, langs)
    ctx = _Ctx(request, lang)
    only = request.query_params.get("in", "")
    only = only if only in langs else ""
    titles: dict[str, str] = {}
    heads: dict[tuple[str, str], str] = {}
    if corpus is not None:
        has_db = True
        try:
            if q:
                found = lookup(corpus, q, lang=only or None, limit=50)
                hits = list(found.hits)
                titles = {h.edition: edition_title(corpus, h.edition) for h in hits}
                heads = titles_in(corpus, hits, lang)
        finally:
            corpus.close()
    return _render(
        "search.html",
        titles=titles,
        ctx=ctx,
        langs=langs,
        LANGUAGES=_Langs(langs),
        q=q,
        only=only,
        hits=hits,
        heads=heads,
        suggestion=found.suggestion if found is not None else None,
        has_db=has_db,
    )



@dataclass(frozen=True, slots=True)
class _Req:
    """What a rule page or search reads of its request, sent to a worker of the rules pool."""

    root_path: str
    path: str
    path_params: dict[str, Any]
    query_params: dict[str, str]

    @property
    def scope(self) -> dict[str, Any]:
        return {"root_path": self.root_path}

    @property
    def url(self) -> SimpleNamespace:
        return SimpleNamespace(path=self.path)


def _ui_lang(request: Any, langs: Sequence[str] = SITE_LANGS) -> str:
    lang = request.query_params.get("lang", ORIGINAL_LANG)
    return lang if lang in langs else ORIGINAL_LANG


def _html_of(
    fn: Callable[[str, Any], Response], db: str, req: _Req
) -> tuple[int, bytes]:  # runs in a worker of the rules pool
    resp = fn(db, req)
    return resp.status_code, bytes(resp.body)


async def _in_pool(
    request: Request, fn: Callable[[str, Any], Response], db: str | Path | None
) -> Response:
    """A rule page or a search rendered by the rules pool (web/heavy.py): Jinja and the
    corpus of an 18 MB rulebook never hold the server's event loop."""
    from chukker.web.heavy import Busy, Kind, OverLimit
    from chukker.web.security import client_address
    from chukker.web.shared.render import pool_refusal
    from chukker.web.state import pools

    req = _Req(str(request.scope.get("root_path", "")), request.url.path,
               dict(request.path_params), dict(request.query_params))  # fmt: skip
    where = str(db if db is not None else default_db_path())
    try:
        status, body = await pools(request.app).run(
            Kind.RULES, client_address(request), _html_of, [fn, where, req]
        )
    except (Busy, OverLimit) as exc:
        lang = _ui_lang(request)
        ctx = _Ctx(request, lang)
        return pool_refusal(exc, lang, lambda status, words: _render(
            "notfound.html", status=status, ctx=ctx, message=words, langs=SITE_LANGS,
            LANGUAGES=LANGUAGES))
    return HTMLResponse(body, status_code=status)


def make_router(db: str | Path | None = None) -> Router:
    """The ``/rules`` pages reading the rulebook database ``db`` (default: as the CLI)."""

    def open_corpus() -> Corpus | None:
        return Corpus.open_readonly(db if db is not None else default_db_path())

    def ui_lang(request: Request, langs: Sequence[str] = SITE_LANGS) -> str:
        lang = request.query_params.get("lang", ORIGINAL_LANG)
        return lang if lang in langs else ORIGINAL_LANG

    async def index(request: Request) -> Response:
        corpus = open_corpus()
        try:
            langs = _page_langs(corpus)
            editions = [(e, edition_title(corpus, e)) for e in known_editions(corpus)]
            imported = {e.id: e.rules for e in corpus.editions()} if corpus else {}
        finally:
            if corpus is not None:
                corpus.close()
        lang = ui_lang(request, langs)
        ctx = _Ctx(request, lang)
        return _render(
            "index.html",
            ctx=ctx,
            langs=langs,
            LANGUAGES=_Langs(langs),
            editions=editions,
            imported=imported,
            summaries=summaries(lang),
            default_edition=DEFAULT_EDITION,
        )

    async def rule(request: Request) -> Response:
        return await _in_pool(request, _rule_page, db)

    async def clause_permalink(request: Request) -> Response:
        p = request.path_params
        ctx = _Ctx(request, p["lang"] if valid_code(p["lang"]) else ORIGINAL_LANG)
        target = ctx.rule_url(p["edition"], p["lang"], p["rule"], p["clause"])
        return RedirectResponse(target, status_code=308)

    async def search_page(request: Request) -> Response:
        return await _in_pool(request, _search_page, db)

    async def glossary_page(request: Request) -> Response:
        lang = request.path_params["lang"]
        if not valid_code(lang):
            return _not_found(request, ORIGINAL_LANG, f"No glossary in language {lang!r}.")
        ctx = _Ctx(request, lang)
        # chukker's glossary is its own words: in English where it has none in ``lang``
        return _render(
            "glossary.html",
            ctx=ctx,
            langs=SITE_LANGS,
            LANGUAGES=_Langs([*SITE_LANGS, lang]),
            entries=glossary(lang if lang in SITE_LANGS else ORIGINAL_LANG),
            default_edition=DEFAULT_EDITION,
        )

    return Router(
        routes=[
            Route("/", index, name="rules_index"),
            Route("/search", search_page, name="rules_search"),
            Route("/glossary/{lang}", glossary_page, name="rules_glossary"),
            Mount("/static", StaticFiles(directory=HERE / "static"), name="rules_static"),
            Route("/{edition}/{lang}/{rule:int}", rule, name="rules_rule"),
            Route("/{edition}/{lang}/{rule:int}/{clause:path}", clause_permalink),
        ]
    )


def make_app(db: str | Path | None = None) -> Starlette:
    """A standalone ASGI app: the rulebook pages mounted at ``/rules`` (``/`` redirects there)."""

    async def home(request: Request) -> Response:
        return RedirectResponse("/rules/", status_code=307)

    return Starlette(routes=[Route("/", home), Mount("/rules", app=make_router(db))])


router = make_router()
app = make_app()
