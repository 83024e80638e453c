"""Play diagram pages: a Starlette :data:`router` the web app mounts at ``/plays``.

* ``/`` lists the shipped scenarios; ``?clause=13b`` keeps those that illustrate
  that clause (rule pages link here).
* ``/{id}`` shows the animated diagram with play, pause and a scrub slider, the
  verdict and the detector's candidates; ``/{id}.svg`` and ``/{id}.png?t=2.6``
  are the files.

Links are made from the mount point (``root_path``). :data:`app` is a tiny
standalone ASGI app with the router at ``/plays``, for tests.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, Router

from chukker.plays.detectors import detect
from chukker.plays.render_png import render_png
from chukker.plays.render_svg import render_svg
from chukker.plays.scenario import LANGS, Scenario, ScenarioError, Verdict, load_shipped, shipped
from chukker.plays.scenario import text_in as _text
from chukker.plays.words import describe

HERE = Path(__file__).parent
_env = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(["html"]),
)

T: dict[str, dict[str, str]] = {
    "en": {
        "plays": "Plays", "language": "Language", "for_clause": "Scenarios for clause",
        "all": "all scenarios", "none": "No scenario illustrates this clause yet.",
        "clause": "Clause", "play": "Play", "pause": "Pause", "time": "Time",
        "candidates": "What the detectors find", "player": "Player", "from_to": "When",
        "evidence": "Evidence", "no_candidates": "No candidate foul.",
        "foul": "Foul", "no_foul": "No foul",
    },
    "es": {
        "plays": "Jugadas", "language": "Idioma", "for_clause": "Jugadas de la cláusula",
        "all": "todas las jugadas", "none": "Todavía no hay jugadas para esta cláusula.",
        "clause": "Cláusula", "play": "Reproducir", "pause": "Pausa", "time": "Tiempo",
        "candidates": "Lo que encuentran los detectores", "player": "Jugador",
        "from_to": "Cuándo", "evidence": "Pruebas", "no_candidates": "Ninguna posible falta.",
        "foul": "Falta", "no_foul": "Sin falta",
    },
    "it": {
        "plays": "Azioni", "language": "Lingua", "for_clause": "Azioni per il comma",
        "all": "tutte le azioni", "none": "Nessuna azione illustra ancora questo comma.",
        "clause": "Comma", "play": "Avvia", "pause": "Pausa", "time": "Tempo",
        "candidates": "Cosa trovano i rilevatori", "player": "Giocatore", "from_to": "Quando",
        "evidence": "Elementi", "no_candidates": "Nessun possibile fallo.",
        "foul": "Fallo", "no_foul": "Nessun fallo",
    },
}  # fmt: skip


def _lang(request: Request) -> str:
    lang = request.query_params.get("lang", "en")
    return lang if lang in LANGS else "en"


def _base(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/")


def _page(name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    return HTMLResponse(_env.get_template(name).render(**ctx), status_code=status)


def _ctx(request: Request, lang: str, clause: str = "") -> dict[str, Any]:
    return {"lang": lang, "langs": LANGS, "t": T[lang], "base": _base(request), "clause": clause}


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
    lang = _lang(request)
    return _page("plays/index.html", 404, items=[], **_ctx(request, lang))


async def index(request: Request) -> Response:
    lang = _lang(request)
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
    return _page("plays/index.html", 200 if items or not clause else 404, items=items,
                 **_ctx(request, lang, clause))  # fmt: skip


async def scenario_page(request: Request) -> Response:
    s = _scenario(request)
    if s is None:
        return _missing(request)
    lang = _lang(request)
    names = {str(pid): s.label(pid, lang) for pid, _ in s.players}
    cands = [c.to_json() | {"text": describe(c, lang, names)} for c in detect(s.tracking())]
    return _page(
        "plays/scenario.html",
        id=s.id,
        title=_text(s.title, lang),
        clauses=s.clauses,
        svg=Markup(render_svg(s, lang)),
        duration=f"{s.duration:g}",
        verdict=_verdict(s, lang),
        foul=s.verdict is Verdict.FOUL,
        explanation=_text(s.explanation, lang),
        candidates=cands,
        **_ctx(request, lang),
    )


async def scenario_svg(request: Request) -> Response:
    s = _scenario(request)
    if s is None:
        return _missing(request)
    return Response(render_svg(s, _lang(request)), media_type="image/svg+xml")


async def scenario_png(request: Request) -> Response:
    s = _scenario(request)
    if s is None:
        return _missing(request)
    try:
        t = float(request.query_params.get("t", s.render.png_at or 0.0))
    except ValueError:
        return Response("t must be a number of seconds", status_code=400)
    buf = io.BytesIO()
    render_png(s, t, _lang(request)).save(buf, format="PNG")
    return Response(buf.getvalue(), media_type="image/png")


async def asset(request: Request) -> Response:
    name = str(request.path_params["name"])
    types = {"plays.js": "text/javascript", "plays.css": "text/css"}
    if name not in types:
        return Response("not found", status_code=404)
    return Response((HERE / "static" / name).read_text(encoding="utf-8"), media_type=types[name])


router = Router(
    routes=[
        Route("/", index),
        Route("/assets/{name}", asset),
        Route("/{sid:str}.svg", scenario_svg),
        Route("/{sid:str}.png", scenario_png),
        Route("/{sid:str}", scenario_page),
    ]
)


async def _home(request: Request) -> Response:
    return RedirectResponse("/plays/")


#: standalone app for tests: the router at ``/plays``
app = Starlette(routes=[Route("/", _home), Mount("/plays", app=router)])
