"""What the plays' pages share: their words (:data:`T`), language, links and page
rendering, and the drawings made in the drawings pool (:func:`drawn`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from fastapi import Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape

from chukker.plays.scenario import LANGS
from chukker.web.heavy import Busy, OverLimit, Recent

T_ = TypeVar("T_")


HERE = Path(__file__).parent.parent  # chukker/web: templates/ and static/
ENV = Environment(
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


def gettext_in(lang: str, text: str) -> str:
    from chukker.i18n import translations

    return text if lang == "en" else str(translations(lang).gettext(text))


def lang_of(request: Request) -> str:
    lang = request.query_params.get("lang", "en")
    return lang if lang in LANGS else "en"


#: where the app includes :data:`router`
PREFIX = "/plays"


def base_of(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/") + PREFIX


def page(name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    return HTMLResponse(ENV.get_template(name).render(**ctx), status_code=status)


def context(request: Request, lang: str, clause: str = "") -> dict[str, Any]:
    return {"lang": lang, "langs": LANGS, "t": T[lang], "base": base_of(request), "clause": clause}


# ------------------------------------------------------------------ drawings, in a pool
#: drawings already made, by what they show (a shipped play is the same drawing for everyone)
DRAWN: Recent[tuple[Any, ...], Any] = Recent(512)


async def drawn(request: Request, key: tuple[Any, ...], fn: Callable[..., T_],
                args: list[Any]) -> T_:
    """``fn(*args)`` from :data:`DRAWN`, else made by a worker process of the drawings
    pool (:mod:`chukker.web.heavy`): SVG, PNG and heat maps never run on the event loop,
    so they cannot delay a key press, a horn or the fan-out. Raises the pool's
    :class:`~chukker.web.heavy.Busy` or :class:`~chukker.web.heavy.OverLimit`."""
    from chukker.web.heavy import Kind
    from chukker.web.security import client_address
    from chukker.web.state import pools

    hit = DRAWN.get(key)
    if hit is not None:
        return cast(T_, hit)
    got = await pools(request.app).run(Kind.DRAWINGS, client_address(request), fn,
                                                args)
    DRAWN.put(key, got)
    return got


async def drawn_or_refusal(request: Request, key: tuple[Any, ...], fn: Callable[..., T_],
                           args: list[Any], *, lang: str, page: bool) -> T_ | Response:
    """:func:`drawn`, or the drawings pool's refusal in ``lang`` as the answer: 503 with
    ``Retry-After`` when the pool is full, 422 past a worker's limit; the review upload
    page with the sentence (``page``), else the sentence as plain text."""
    from chukker.web.shared.render import pool_refusal

    try:
        return await drawn(request, key, fn, args)
    except (Busy, OverLimit) as exc:
        return pool_refusal(exc, lang, lambda status, text: (
            refused(request, lang, status, text) if page
            else PlainTextResponse(text + "\n", status)))

def refused(request: Request, lang: str, status: int, text: str,
             code: str = "bad_file") -> HTMLResponse:
    """The upload page with the refusal: its words, and its ``code`` on the alert
    (``data-code``) and in the ``x-chukker-refusal`` header."""
    resp = page("plays/review_upload.html", status, error=f"{T[lang]['bad_file']}: {text}",
                 error_code=code, **context(request, lang))  # fmt: skip
    resp.headers["x-chukker-refusal"] = code
    return resp


