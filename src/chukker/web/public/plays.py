"""Play diagram pages: the :data:`router` (an ``APIRouter``) the web app includes at
``/plays``.

* ``/`` lists the shipped scenarios; ``?clause=13b`` keeps those that illustrate
  that clause (rule pages link here).
* ``/{id}`` shows the animated diagram with play, pause and a scrub slider, the
  verdict and the detector's candidates; ``/{id}.svg`` and ``/{id}.png?t=2.6``
  are the files.

Links are made from :data:`PREFIX` below the app's ``root_path`` (behind a proxy).
:data:`app` is a tiny standalone app with the router at ``/plays``, for tests.
"""

from __future__ import annotations

import io
import math
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup

from chukker.plays.detectors import detect
from chukker.plays.render_png import render_png
from chukker.plays.render_svg import render_legend_svg, render_svg
from chukker.plays.scenario import LANGS, Scenario, ScenarioError, Verdict, load_shipped, shipped
from chukker.plays.scenario import text_in as _text
from chukker.plays.words import describe, player_name
from chukker.web.public.plays_base import (
    HERE,
    PREFIX,
    T,
    context,
    drawn_or_refusal,
    lang_of,
    page,
)
from chukker.web.public.plays_review import (
    review_csv,
    review_form,
    review_page,
    review_session,
)


def _verdict(s: Scenario, lang: str) -> str:
    if s.verdict is Verdict.FOUL and s.culprit is not None:
        return f"{T[lang]['foul']}: {s.label(s.culprit, lang)} ({s.clause})"
    return f"{T[lang]['no_foul']} ({s.clause})"


def _scenario(request: Request) -> Scenario | None:
    try:
        return load_shipped(str(request.path_params["sid"]))
    except ScenarioError:
        return None


def _missing(request: Request) -> HTMLResponse:
    lang = lang_of(request)
    return page("plays/index.html", 404, items=[], **context(request, lang))


async def index(request: Request) -> Response:
    lang = lang_of(request)
    clause = request.query_params.get("clause", "").strip().lower()
    items = [
        {
            "id": s.id,
            "title": _text(s.title, lang),
            "clauses": s.clauses,
            "verdict": _verdict(s, lang),
            "foul": s.verdict is Verdict.FOUL,
        }
        for s in shipped()
        if not clause or clause in s.clauses
    ]
    return page("plays/index.html", 200 if items or not clause else 404, items=items,
                 **context(request, lang, clause))  # fmt: skip



def scenario_parts(sid: str, lang: str) -> dict[str, Any]:
    """A shipped play's page: its drawing, legend and the detectors' candidates (in a
    worker of the drawings pool)."""
    s = load_shipped(sid)
    names = {str(pid): s.label(pid, lang) for pid, _ in s.players}
    cands = [c.to_json() | {"text": describe(c, lang, names),
                            "who": player_name(f"{c.team}:{c.player}", lang, names)}
             for c in detect(s.tracking())]
    return {"svg": render_svg(s, lang), "legend": render_legend_svg(s, lang),
            "candidates": cands}


def scenario_svg_text(sid: str, lang: str) -> str:
    """A shipped play's SVG (in a worker of the drawings pool)."""
    return render_svg(load_shipped(sid), lang)


def scenario_png_bytes(sid: str, t: float, lang: str) -> bytes:
    """A shipped play's PNG at ``t`` seconds (in a worker of the drawings pool)."""
    buf = io.BytesIO()
    render_png(load_shipped(sid), t, lang).save(buf, format="PNG")
    return buf.getvalue()


async def scenario_page(request: Request) -> Response:
    s = _scenario(request)
    if s is None:
        return _missing(request)
    lang = lang_of(request)
    parts = await drawn_or_refusal(request, ("page", s.id, lang), scenario_parts, [s.id, lang],
                                   lang=lang, page=True)
    if isinstance(parts, Response):
        return parts
    return page(
        "plays/scenario.html",
        id=s.id,
        title=_text(s.title, lang),
        clauses=s.clauses,
        svg=Markup(parts["svg"]),
        legend=Markup(parts["legend"]),
        duration=f"{s.duration:g}",
        verdict=_verdict(s, lang),
        foul=s.verdict is Verdict.FOUL,
        explanation=_text(s.explanation, lang),
        candidates=parts["candidates"],
        **context(request, lang),
    )


async def scenario_svg(request: Request) -> Response:
    s = _scenario(request)
    if s is None:
        return _missing(request)
    lang = lang_of(request)
    svg = await drawn_or_refusal(request, ("svg", s.id, lang), scenario_svg_text, [s.id, lang],
                                 lang=lang, page=False)
    if isinstance(svg, Response):
        return svg
    return Response(svg, media_type="image/svg+xml")


async def scenario_png(request: Request) -> Response:
    s = _scenario(request)
    if s is None:
        return _missing(request)
    try:
        t = float(request.query_params.get("t", s.render.png_at or 0.0))
    except ValueError:
        return Response("t must be a number of seconds", status_code=400)
    if not math.isfinite(t):
        return Response("t must be a number of seconds", status_code=400)
    lang = lang_of(request)
    png = await drawn_or_refusal(request, ("png", s.id, lang, t), scenario_png_bytes,
                                 [s.id, t, lang], lang=lang, page=False)
    if isinstance(png, Response):
        return png
    return Response(png, media_type="image/png")



_PLAYS_LABEL = {"en": "Plays", "es": "Jugadas", "it": "Azioni"}


def illustrating(clause: str, lang: str, base: str = "/plays") -> list[dict[str, Any]]:
    """The shipped plays that illustrate ``clause`` (for rule pages): title, page, drawing.

    ``primary`` marks a play whose own clause it is; they come first, the plainest (shortest
    id) first, and the first one's drawing goes in the rule's figure.
    """
    lang = lang if lang in LANGS else "en"
    plays = sorted(
        (s for s in shipped() if clause in s.clauses),
        key=lambda s: (s.clause != clause, len(s.id), s.id),  # the clause's own, plainest first
    )
    return [
        {
            "id": s.id,
            "title": _text(s.title, lang),
            "href": f"{base}/{s.id}?lang={lang}",
            "svg": f"{base}/{s.id}.svg?lang={lang}",
            "primary": s.clause == clause,
            "label": _PLAYS_LABEL[lang],
        }
        for s in plays
    ]



async def asset(request: Request) -> Response:
    name = str(request.path_params["name"])
    types = {"plays.js": "text/javascript", "plays.css": "text/css",
             "plays-devices.js": "text/javascript"}
    if name not in types:
        return Response("not found", status_code=404)
    return Response((HERE / "static" / name).read_text(encoding="utf-8"), media_type=types[name])


router = APIRouter(include_in_schema=False)
for _path, _endpoint, _methods in (
    ("/", index, ["GET"]),
    ("/assets/{name}", asset, ["GET"]),
    ("/review", review_form, ["GET", "POST"]),
    ("/review/{rid:str}.csv", review_csv, ["GET"]),
    ("/review/{rid:str}.toml", review_session, ["GET"]),
    ("/review/{rid:str}", review_page, ["GET"]),
    ("/{sid:str}.svg", scenario_svg, ["GET"]),
    ("/{sid:str}.png", scenario_png, ["GET"]),
    ("/{sid:str}", scenario_page, ["GET"]),
):
    router.add_route(_path, _endpoint, methods=_methods)


#: standalone app for tests and ``chukker plays review``: the router at ``/plays``
app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)
app.include_router(router, prefix=PREFIX)


@app.get("/", include_in_schema=False)
async def _home() -> Response:
    return RedirectResponse(PREFIX + "/")
