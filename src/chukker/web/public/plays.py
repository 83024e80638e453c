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
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from chukker.plays.detectors import detect
from chukker.plays.render_png import render_png
from chukker.plays.render_svg import render_legend_svg, render_svg
from chukker.plays.scenario import LANGS, Scenario, ScenarioError, Verdict, load_shipped, shipped
from chukker.plays.scenario import text_in as _text
from chukker.plays.words import describe, player_name
from chukker.web.heavy import Busy, OverLimit, Recent

T_ = TypeVar("T_")

HERE = Path(__file__).parent.parent  # chukker/web: templates/ and static/
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
        "review": "Review",
        "devices": "Device files only (GPX, FIT, TCX): the session is written for you",
        "devices_files": "Device files",
        "corners": "Arena corners (sw, nw, ne, se), clicked on the tracks or pasted from chukker plays arena",  # noqa: E501
        "entity": "Rider (team:number)", "offset": "Clock offset (s)",
        "session_written": "The session written for your device files",
        "session_download": "Download session.toml", "click_corner": "Click the corner",
        "corners_done": "Four corners set",
        "tracks_help": "Pick the files: their tracks are drawn here; click the four corners in order sw, nw, ne, se.",  # noqa: E501
        "corners_reset": "Clear the corners", "review_title": "Review of",
        "upload": "Analyse a file",
        "upload_help": "A tracking CSV or Parquet, a scenario TOML, or a GPS session TOML "
                       "with its fixes file.", "file": "File", "fixes": "Fixes (GPS session)",
        "analyse": "Analyse", "timeline": "Candidates by clause and player",
        "rule_text": "rule text", "export": "Export the candidates (CSV)",
        "duration": "Duration", "units": "GPS units", "unit": "Unit", "read": "read",
        "dropped": "dropped", "filled": "filled", "interval": "median interval",
        "not_run": "Not run", "moment": "The moment", "show": "show",
        "unknown_review": "No such review: analyse the file again.",
        "bad_file": "This file cannot be analysed",
        "inspect": "Inspect the files first",
        "inspected": "What chukker reads from each file",
        "kind": "Kind", "points": "Points kept", "first": "First (UTC)", "last": "Last (UTC)",
        "rate": "Rate (Hz)", "gaps": "Gaps", "notes": "Notes", "refused": "refused",
        "enters": "Enters the arena", "yes": "yes", "no": "no", "box": "Box",
        "coach": "For the coach: distance, gallop and where each player rode",
        "period": "Period", "distance": "Distance", "gallop": "At a gallop",
        "top_speed": "Top speed", "heat": "Heat map",
    },
    "es": {
        "plays": "Jugadas", "language": "Idioma", "for_clause": "Jugadas de la cláusula",
        "all": "todas las jugadas", "none": "Todavía no hay jugadas para esta cláusula.",
        "clause": "Cláusula", "play": "Reproducir", "pause": "Pausa", "time": "Tiempo",
        "candidates": "Lo que encuentran los detectores", "player": "Jugador",
        "from_to": "Cuándo", "evidence": "Pruebas", "no_candidates": "Ninguna posible falta.",
        "foul": "Falta", "no_foul": "Sin falta",
        "review": "Revisión",
        "devices": "Solo archivos de dispositivos (GPX, FIT, TCX): la sesión se escribe por usted",
        "devices_files": "Archivos de dispositivos",
        "corners": "Esquinas de la arena (sw, nw, ne, se), marcadas en los recorridos o pegadas de chukker plays arena",  # noqa: E501
        "entity": "Jinete (equipo:número)", "offset": "Desfase del reloj (s)",
        "session_written": "La sesión escrita para sus archivos de dispositivos",
        "session_download": "Descargar session.toml", "click_corner": "Marque la esquina",
        "corners_done": "Cuatro esquinas marcadas",
        "tracks_help": "Elija los archivos: sus recorridos se dibujan aquí; marque las cuatro esquinas en orden sw, nw, ne, se.",  # noqa: E501
        "corners_reset": "Borrar las esquinas", "review_title": "Revisión de",
        "upload": "Analizar un archivo",
        "upload_help": "Un CSV o Parquet de seguimiento, un TOML de jugada o un TOML de "
                       "sesión GPS con su archivo de posiciones.", "file": "Archivo",
        "fixes": "Posiciones (sesión GPS)", "analyse": "Analizar",
        "timeline": "Posibles faltas por cláusula y jugador", "rule_text": "texto de la regla",
        "export": "Exportar las posibles faltas (CSV)", "duration": "Duración",
        "units": "Unidades GPS", "unit": "Unidad", "read": "leídas", "dropped": "descartadas",
        "filled": "rellenadas", "interval": "intervalo mediano", "not_run": "No ejecutado",
        "moment": "El momento", "show": "ver",
        "unknown_review": "No existe esa revisión: vuelva a analizar el archivo.",
        "bad_file": "Este archivo no se puede analizar",
        "inspect": "Inspeccionar primero los archivos",
        "inspected": "Lo que chukker lee de cada archivo",
        "kind": "Tipo", "points": "Puntos conservados", "first": "Primero (UTC)",
        "last": "Último (UTC)", "rate": "Frecuencia (Hz)", "gaps": "Huecos", "notes": "Notas",
        "refused": "rechazado", "enters": "Entra en la cancha", "yes": "sí", "no": "no",
        "box": "Recuadro",
        "coach": "Para el entrenador: distancia, galope y por dónde anduvo cada jugador",
        "period": "Chukker", "distance": "Distancia", "gallop": "Al galope",
        "top_speed": "Velocidad máxima", "heat": "Mapa de calor",
    },
    "it": {
        "plays": "Azioni", "language": "Lingua", "for_clause": "Azioni per il comma",
        "all": "tutte le azioni", "none": "Nessuna azione illustra ancora questo comma.",
        "clause": "Comma", "play": "Avvia", "pause": "Pausa", "time": "Tempo",
        "candidates": "Cosa trovano i rilevatori", "player": "Giocatore", "from_to": "Quando",
        "evidence": "Elementi", "no_candidates": "Nessun possibile fallo.",
        "foul": "Fallo", "no_foul": "Nessun fallo",
        "review": "Revisione",
        "devices": "Solo file dei dispositivi (GPX, FIT, TCX): la sessione viene scritta per voi",
        "devices_files": "File dei dispositivi",
        "corners": "Angoli dell'arena (sw, nw, ne, se), cliccati sui tracciati o incollati da chukker plays arena",  # noqa: E501
        "entity": "Giocatore (squadra:numero)", "offset": "Scarto dell'orologio (s)",
        "session_written": "La sessione scritta per i vostri file dei dispositivi",
        "session_download": "Scarica session.toml", "click_corner": "Cliccate l'angolo",
        "corners_done": "Quattro angoli fissati",
        "tracks_help": "Scegliete i file: i loro tracciati sono disegnati qui; cliccate i quattro angoli in ordine sw, nw, ne, se.",  # noqa: E501
        "corners_reset": "Cancella gli angoli", "review_title": "Revisione di",
        "upload": "Analizza un file",
        "upload_help": "Un CSV o Parquet di tracciamento, un TOML di azione o un TOML di "
                       "sessione GPS con il suo file di posizioni.", "file": "File",
        "fixes": "Posizioni (sessione GPS)", "analyse": "Analizza",
        "timeline": "Possibili falli per comma e giocatore", "rule_text": "testo della regola",
        "export": "Esporta i possibili falli (CSV)", "duration": "Durata",
        "units": "Unità GPS", "unit": "Unità", "read": "lette", "dropped": "scartate",
        "filled": "riempite", "interval": "intervallo mediano", "not_run": "Non eseguito",
        "moment": "Il momento", "show": "vedi",
        "unknown_review": "Revisione inesistente: analizzare di nuovo il file.",
        "bad_file": "Questo file non si può analizzare",
        "inspect": "Esamina prima i file",
        "inspected": "Che cosa chukker legge da ogni file",
        "kind": "Tipo", "points": "Punti tenuti", "first": "Primo (UTC)",
        "last": "Ultimo (UTC)", "rate": "Frequenza (Hz)", "gaps": "Interruzioni",
        "notes": "Note", "refused": "rifiutato", "enters": "Entra nel campo", "yes": "sì",
        "no": "no", "box": "Riquadro",
        "coach": "Per l'allenatore: distanza, galoppo e dove è andato ogni giocatore",
        "period": "Tempo", "distance": "Distanza", "gallop": "Al galoppo",
        "top_speed": "Velocità massima", "heat": "Mappa di calore",
    },
}  # fmt: skip


def _gettext(lang: str, text: str) -> str:
    from chukker.i18n import translations

    return text if lang == "en" else str(translations(lang).gettext(text))


def _lang(request: Request) -> str:
    lang = request.query_params.get("lang", "en")
    return lang if lang in LANGS else "en"


#: where the app includes :data:`router`
PREFIX = "/plays"


def _base(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/") + PREFIX


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


# ------------------------------------------------------------------ drawings, in a pool
#: drawings already made, by what they show (a shipped play is the same drawing for everyone)
DRAWN: Recent[tuple[Any, ...], Any] = Recent(512)


async def drawn(request: Request, key: tuple[Any, ...], fn: Callable[..., T_],
                args: list[Any]) -> T_:
    """``fn(*args)`` from :data:`DRAWN`, else made by a worker process of the drawings
    pool (:mod:`chukker.web.heavy`): SVG, PNG and heat maps never run on the event loop,
    so they cannot delay a key press, a horn or the fan-out. Raises the pool's
    :class:`~chukker.web.heavy.Busy` or :class:`~chukker.web.heavy.OverLimit`."""
    from chukker.web.heavy import Kind, pools_of
    from chukker.web.security import client_address

    hit = DRAWN.get(key)
    if hit is not None:
        return cast(T_, hit)
    got = await pools_of(request.app.state).run(Kind.DRAWINGS, client_address(request), fn,
                                                args)
    DRAWN.put(key, got)
    return got


async def drawn_or_refusal(request: Request, key: tuple[Any, ...], fn: Callable[..., T_],
                           args: list[Any], *, lang: str, page: bool) -> T_ | Response:
    """:func:`drawn`, or the drawings pool's refusal in ``lang`` as the answer: 503 with
    ``Retry-After`` when the pool is full, 422 past a worker's limit; the review upload
    page with the sentence (``page``), else the sentence as plain text."""
    from chukker.web.refusals import refusal_message

    try:
        return await drawn(request, key, fn, args)
    except (Busy, OverLimit) as exc:
        status = 503 if isinstance(exc, Busy) else 422
        text = refusal_message(exc.code, exc.params, lang)
        resp: Response = (_refused(request, lang, status, text) if page
                          else PlainTextResponse(text + "\n", status))  # fmt: skip
        if isinstance(exc, Busy):
            resp.headers["retry-after"] = str(exc.retry_after)
        return resp


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
    lang = _lang(request)
    parts = await drawn_or_refusal(request, ("page", s.id, lang), scenario_parts, [s.id, lang],
                                   lang=lang, page=True)
    if isinstance(parts, Response):
        return parts
    return _page(
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
        **_ctx(request, lang),
    )


async def scenario_svg(request: Request) -> Response:
    s = _scenario(request)
    if s is None:
        return _missing(request)
    lang = _lang(request)
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
    lang = _lang(request)
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


async def review_form(request: Request) -> Response:
    lang = _lang(request)
    if request.method == "POST":
        return await _upload(request, lang)
    return _page("plays/review_upload.html", **_ctx(request, lang))


def analyse_upload(folder: str, main: str, names: dict[str, str]) -> Any:
    """Analyse the upload kept in ``folder`` (run in the plays pool's worker process).

    ``main`` is the file's name, ``names`` the request's other files: the only ones
    a GPS session may name. The review is kept by the server, not by the worker."""
    from chukker.plays.review import analyse_file

    root = Path(folder)
    files = {name: root / stored for name, stored in names.items()}
    return analyse_file(root / "main" / main, main, files, keep=False)


def inspect_upload(folder: str, names: list[str], corners: str | None) -> list[dict[str, Any]]:
    """``chukker plays inspect`` on the device files of an upload (run in the plays pool's
    worker process): ``names`` are the files' own names, stored as ``f0``, ``f1``, ...
    in ``folder`` (a name never becomes a path)."""
    from chukker.plays.gps import parse_corners
    from chukker.plays.inspect import inspect_files

    arena = parse_corners(corners) if corners else None
    paths = [Path(folder) / f"f{i}" for i in range(len(names))]
    return inspect_files(paths, arena, names)


async def _inspect(request: Request, lang: str, form: Any,
                   uploads: list[tuple[str, Any]]) -> Response:
    """The "device files alone" form's *Inspect* button: the same summary per file as
    ``chukker plays inspect``, before any session is written. The door is the upload's
    (anonymous, body and files capped, the plays pool: see :func:`_upload`)."""
    import shutil
    import tempfile

    from starlette.concurrency import run_in_threadpool

    from chukker.limits import REVIEW_BODY_BYTES, LimitError
    from chukker.plays.tracking import TrackingError
    from chukker.web.heavy import Busy, Kind, OverLimit, pools_of
    from chukker.web.refusals import refusal_message
    from chukker.web.security import client_address

    devices = [up for k, up in uploads if k == "devices"]
    if not devices:
        return _refused(request, lang, 400, T[lang]["devices_files"])
    corners = form.get("corners")
    corners = corners.strip() if isinstance(corners, str) and corners.strip() else None
    names = [Path(str(up.filename)).name or f"file{i}" for i, up in enumerate(devices)]
    tmp = tempfile.mkdtemp(prefix="chukker-inspect-")
    try:
        for i, up in enumerate(devices):
            await run_in_threadpool(_copy_upload, up.file, Path(tmp) / f"f{i}",
                                    REVIEW_BODY_BYTES)
        rows = await pools_of(request.app.state).run(
            Kind.PLAYS, client_address(request), inspect_upload, [tmp, names, corners])
    except LimitError as exc:
        return _refused(request, lang, 413, refusal_message(exc.code, exc.params, lang),
                        exc.code)
    except Busy as exc:
        resp = _refused(request, lang, 503, refusal_message(exc.code, exc.params, lang),
                        exc.code)
        resp.headers["retry-after"] = str(exc.retry_after)
        return resp
    except OverLimit as exc:
        return _refused(request, lang, 422, refusal_message(exc.code, exc.params, lang),
                        exc.code)
    except (TrackingError, ValueError) as exc:
        return _refused(request, lang, 400, str(exc)[:300])
    finally:
        await run_in_threadpool(shutil.rmtree, tmp, True)
        await form.close()
    return _page("plays/review_upload.html", 200, inspected=rows, has_arena=corners is not None,
                 corners_text=corners or "",
                 **_ctx(request, lang))  # fmt: skip


def _copy_upload(src: Any, dest: Path, cap: int) -> int:
    """Copy a spooled upload to ``dest`` in chunks; the bytes copied (refused over ``cap``)."""
    from chukker.limits import verify_size

    n = 0
    with dest.open("wb") as out:
        while chunk := src.read(1 << 20):
            n += len(chunk)
            verify_size(n, cap, dest.name)
            out.write(chunk)
    return n


def _refused(request: Request, lang: str, status: int, text: str,
             code: str = "bad_file") -> HTMLResponse:
    """The upload page with the refusal: its words, and its ``code`` on the alert
    (``data-code``) and in the ``x-chukker-refusal`` header."""
    resp = _page("plays/review_upload.html", status, error=f"{T[lang]['bad_file']}: {text}",
                 error_code=code, **_ctx(request, lang))  # fmt: skip
    resp.headers["x-chukker-refusal"] = code
    return resp


async def _upload(request: Request, lang: str) -> Response:
    """``POST /plays/review``: anonymous, but bounded so that it cannot matter.

    The body is capped (:data:`chukker.limits.REVIEW_BODY_BYTES`, by the app's guard)
    and spooled to disk by the form parser; the files are copied to a private folder
    and analysed by the plays pool (:mod:`chukker.web.heavy`: a worker process with a
    memory cap and a wall clock, one request per address, 503 when full). A GPS
    session may name only files of the same request."""
    import shutil
    import tempfile

    from starlette.concurrency import run_in_threadpool

    from chukker.limits import REVIEW_BODY_BYTES, LimitError
    from chukker.plays.review import remember
    from chukker.plays.tracking import TrackingError
    from chukker.web.heavy import Busy, Kind, OverLimit, pools_of
    from chukker.web.refusals import refusal_message
    from chukker.web.security import client_address

    try:
        size = int(request.headers.get("content-length", "0"))
    except ValueError:
        size = 0
    if size > REVIEW_BODY_BYTES:
        return _refused(request, lang, 413, f"> {REVIEW_BODY_BYTES // 2**20} MB")
    form = await request.form(max_files=MAX_REVIEW_FILES, max_fields=2 * MAX_REVIEW_FILES + 4)
    uploads = [(k, v) for k, v in form.multi_items() if not isinstance(v, str) and v.filename]
    main = form.get("file")
    if form.get("inspect"):
        return await _inspect(request, lang, form, uploads)
    written: str | None = None
    if main is None or isinstance(main, str) or not main.filename:
        try:
            written = _written_session(form, uploads)
        except ValueError as exc:
            return _refused(request, lang, 400, str(exc)[:300])
        if written is None:
            return _page("plays/review_upload.html", 400, error=T[lang]["bad_file"],
                         **_ctx(request, lang))  # fmt: skip
    tmp = tempfile.mkdtemp(prefix="chukker-review-")
    try:
        (Path(tmp) / "main").mkdir()
        if written is not None:
            name = "session.toml"
            (Path(tmp) / "main" / name).write_text(written, encoding="utf-8")
        else:
            assert main is not None and not isinstance(main, str)
            name = Path(str(main.filename)).name or "upload"
        names: dict[str, str] = {}
        for i, (key, up) in enumerate(uploads):
            base = Path(str(up.filename)).name or f"file{i}"
            if key == "file" and up is main:
                dest = Path(tmp) / "main" / name
            else:
                names[base] = f"f{i}"
                dest = Path(tmp) / f"f{i}"
            await run_in_threadpool(_copy_upload, up.file, dest, REVIEW_BODY_BYTES)
        rv = await pools_of(request.app.state).run(
            Kind.PLAYS, client_address(request), analyse_upload, [tmp, name, names]
        )
    except LimitError as exc:
        status = 400 if exc.code == "not_in_upload" else 413
        return _refused(request, lang, status, refusal_message(exc.code, exc.params, lang),
                        exc.code)
    except Busy as exc:
        resp = _refused(request, lang, 503, refusal_message(exc.code, exc.params, lang),
                        exc.code)
        resp.headers["retry-after"] = str(exc.retry_after)
        return resp
    except OverLimit as exc:
        return _refused(request, lang, 422, refusal_message(exc.code, exc.params, lang),
                        exc.code)
    except (TrackingError, OSError, ValueError) as exc:
        text = str(exc).replace(tmp + "/main/", "").replace(tmp + "/", "")
        return _refused(request, lang, 400, text[:300])
    finally:
        await run_in_threadpool(shutil.rmtree, tmp, True)
        await form.close()
    remember(rv)
    if written is not None:
        WRITTEN[rv.id] = written
        while len(WRITTEN) > 64:
            WRITTEN.pop(next(iter(WRITTEN)))
    return RedirectResponse(f"{_base(request)}/review/{rv.id}?lang={lang}", status_code=303)


MAX_REVIEW_FILES = 16
"""Files in one review upload: a session, its fixes or ball, or one file per device."""

WRITTEN: dict[str, str] = {}
"""The sessions written for device files alone, by review id (the newest 64)."""


def _written_session(form: Any, uploads: list[tuple[str, Any]]) -> str | None:
    """The session TOML for device files picked alone (``devices``), their entities
    (``entity:NAME``, team:number), offsets (``offset:NAME``, seconds) and the four
    corners (``corners``: clicked on the drawn tracks, or pasted from
    ``chukker plays arena``); ``None`` when the form holds no such files."""
    from chukker.plays.gps import device_session_text, parse_corners

    names = [Path(str(up.filename)).name for k, up in uploads if k == "devices"]
    if not names:
        return None
    corners = form.get("corners")
    if not isinstance(corners, str) or not corners.strip():
        raise ValueError("corners: click the four corners (sw, nw, ne, se) on the tracks, "
                         "or paste the [arena] of 'chukker plays arena'")
    units: dict[str, tuple[str, float]] = {}
    for n in names:
        ent = form.get(f"entity:{n}")
        if not isinstance(ent, str) or not ent.strip():
            raise ValueError(f"{n}: choose its rider (team:number)")
        off = form.get(f"offset:{n}") or "0"
        try:
            offset = float(str(off))
        except ValueError:
            raise ValueError(f"{n}: offset: expected seconds") from None
        units[n] = (ent.strip(), offset)
    return device_session_text(units, parse_corners(corners))


async def review_session(request: Request) -> Response:
    """``GET /plays/review/{rid}.toml``: the session written for a device-files upload."""
    text = WRITTEN.get(str(request.path_params["rid"]))
    if text is None:
        return PlainTextResponse("no such session\n", 404)
    return PlainTextResponse(text, media_type="application/toml", headers={
        "content-disposition": 'attachment; filename="session.toml"'})


def _review(request: Request) -> Any:
    from chukker.plays.review import REVIEWS

    return REVIEWS.get(str(request.path_params["rid"]))


def review_parts(rv: Any, lang: str, pick: int, period: str) -> dict[str, Any]:
    """What a review page draws: the candidates, the picked moment's diagram, the timeline
    and the coach's figures with a heat map per player (in a worker of the drawings pool:
    a long session's heat maps and moments are seconds of NumPy and SVG)."""
    from chukker.plays.coach import heat_svg, periods
    from chukker.plays.review import moment, rows, rule_number, utc
    from chukker.plays.words import number

    dur = max(rv.duration, 1e-9)
    cands = []
    for i, c in enumerate(rv.candidates):
        cands.append(
            {
                "i": i,
                "clause": str(c.clause),
                "who": player_name(c.who, lang),
                "start": f"{c.start:.2f}",
                "end": f"{c.end:.2f}",
                "utc": utc(rv, c.start),
                "text": describe(c, lang),
                "left": f"{100 * c.start / dur:.3f}",
                "width": f"{max(0.4, 100 * (c.end - c.start) / dur):.3f}",
                "rule": f"/rules/uspa-arena-2026/{lang}/{rule_number(str(c.clause))}/{c.clause}",
            }
        )
    svg = None
    if 0 <= pick < len(rv.candidates):
        sc = moment(rv, pick, lang)
        svg = {"svg": render_svg(sc, lang), "duration": f"{sc.duration:g}", **cands[pick]}
    timeline = [
        {
            "clause": r.clause,
            "who": player_name(r.player, lang),
            "items": [cands[i] for i in r.items],
        }
        for r in rows(rv)
    ]
    pers = periods(rv.tracking)
    try:
        pk = min(max(1, int(period)), max(1, len(pers)))
    except ValueError:
        pk = 1
    coach = None
    if pers:
        per = pers[pk - 1]
        coach = {
            "numbers": [p.number for p in pers],
            "picked": pk,
            "span": f"{per.start:.0f}–{per.end:.0f} s",
            "players": [
                {
                    "who": player_name(str(st.player), lang),
                    "distance": number(st.distance_yd, lang, 0),
                    "gallop": number(st.gallop_s, lang, 1),
                    "top": number(st.max_speed_yd_s, lang, 1),
                    "heat": heat_svg(
                        st,
                        f"{T[lang]['heat']}: {player_name(str(st.player), lang)}",
                        rv.tracking.length,
                        rv.tracking.width,
                        2.0,
                    ),
                }
                for st in per.stats
            ],
        }
    return {"candidates": cands, "moment": svg, "timeline": timeline, "coach": coach}


async def review_page(request: Request) -> Response:
    lang = _lang(request)
    rv = _review(request)
    if rv is None:
        return _page("plays/review_upload.html", 404, error=T[lang]["unknown_review"],
                     **_ctx(request, lang))  # fmt: skip
    try:
        pick = int(request.query_params.get("c", "0"))
    except ValueError:
        pick = 0
    period = request.query_params.get("p", "1")[:8]
    parts = await drawn_or_refusal(request, ("review", rv.id, lang, pick, period), review_parts,
                                   [rv, lang, pick, period], lang=lang, page=True)
    if isinstance(parts, Response):
        return parts
    svg = parts["moment"]
    if svg is not None:
        svg = svg | {"svg": Markup(svg["svg"])}
    coach = parts["coach"]
    if coach is not None:
        coach = coach | {"players": [p | {"heat": Markup(p["heat"])} for p in coach["players"]]}
    units = [u.to_json() | {"unit": u.unit} for u in rv.session.units] if rv.session else []
    return _page(
        "plays/review.html",
        rv=rv,
        rid=rv.id,
        written=WRITTEN.get(rv.id),
        file_name=rv.name,
        duration=f"{rv.duration:.1f}",
        candidates=parts["candidates"],
        timeline=parts["timeline"],
        moment=svg,
        pick=pick,
        units=units,
        coach=coach,
        not_run=[(c, _gettext(lang, why)) for c, why in sorted(rv.not_run.items())],
        **_ctx(request, lang),
    )


async def review_csv(request: Request) -> Response:
    from chukker.plays.review import candidates_csv

    rv = _review(request)
    if rv is None:
        return Response("no such review", status_code=404)
    return Response(
        candidates_csv(rv, _lang(request)),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{rv.id}-candidates.csv"'},
    )


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
