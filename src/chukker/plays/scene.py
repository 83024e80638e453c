"""What a diagram shows, independent of the output format (SVG or PNG).

>>> from chukker.plays.scenario import load_shipped
>>> sc = build(load_shipped("13b-zigzag"))
>>> sc.timeline[0]
(0.4, '0.4 s Blue 1 hits the ball.')
>>> sc.verdict_title
'Foul: White 2 (13b)'
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np

from chukker.plays.candidates import Candidate
from chukker.plays.detectors import detect
from chukker.plays.frames import Frames, frames
from chukker.plays.geometry import Arena
from chukker.plays.params import DEFAULT_PARAMS, Params
from chukker.plays.scenario import Scenario, Verdict, text_in
from chukker.plays.tracking import Event, EventKind, Tracking

UI: dict[str, dict[str, str]] = {
    "en": {
        "line": "Line of the ball",
        "row": "Right of way",
        "row_note": "schematic: the rulebook sets no width",
        "ball": "Ball",
        "foul": "Foul",
        "no_foul": "No foul",
        "verdict": "Verdict",
        "timeline": "What happens",
        "legend": "Legend",
        "foul_by": "Foul: {p} ({c})",
        "candidate_by": "Candidate: {p} ({c})",
    },
    "es": {
        "line": "Línea de la bocha",
        "row": "Derecho de paso",
        "row_note": "esquema: el reglamento no fija el ancho",
        "ball": "Bocha",
        "foul": "Falta",
        "no_foul": "Sin falta",
        "verdict": "Veredicto",
        "timeline": "Qué pasa",
        "legend": "Referencias",
        "foul_by": "Falta: {p} ({c})",
        "candidate_by": "Posible falta: {p} ({c})",
    },
    "it": {
        "line": "Linea della palla",
        "row": "Diritto di passaggio",
        "row_note": "schema: il regolamento non fissa la larghezza",
        "ball": "Palla",
        "foul": "Fallo",
        "no_foul": "Nessun fallo",
        "verdict": "Verdetto",
        "timeline": "Cosa succede",
        "legend": "Legenda",
        "foul_by": "Fallo: {p} ({c})",
        "candidate_by": "Possibile fallo: {p} ({c})",
    },
}

EVENT_TEXT: dict[str, dict[EventKind, str]] = {
    "en": {
        EventKind.HIT: "{p} hits the ball.",
        EventKind.MISS: "{p} swings and misses.",
        EventKind.BOWL_IN: "The umpire bowls the ball in.",
        EventKind.BACKSWING: "{p} starts the backswing.",
        EventKind.STROKE: "{p}'s mallet head moves towards the ball.",
        EventKind.DRIBBLE: "{p} dribbles the ball.",
        EventKind.HOOK: "{p} hooks {o}.",
        EventKind.CONTACT: "{p} meets {o}.",
        EventKind.FOUL: "Foul by {p}.",
        EventKind.WHISTLE: "Whistle.",
    },
    "es": {
        EventKind.HIT: "{p} golpea la bocha.",
        EventKind.MISS: "{p} le erra a la bocha.",
        EventKind.BOWL_IN: "El árbitro tira la bocha.",
        EventKind.BACKSWING: "{p} empieza a armar el golpe.",
        EventKind.STROKE: "El taco de {p} va hacia la bocha.",
        EventKind.DRIBBLE: "{p} conduce la bocha.",
        EventKind.HOOK: "{p} engancha a {o}.",
        EventKind.CONTACT: "{p} se junta con {o}.",
        EventKind.FOUL: "Falta de {p}.",
        EventKind.WHISTLE: "Silbato.",
    },
    "it": {
        EventKind.HIT: "{p} colpisce la palla.",
        EventKind.MISS: "{p} manca la palla.",
        EventKind.BOWL_IN: "L'arbitro lancia la palla.",
        EventKind.BACKSWING: "{p} inizia la caricata.",
        EventKind.STROKE: "La mazza di {p} va verso la palla.",
        EventKind.DRIBBLE: "{p} porta la palla.",
        EventKind.HOOK: "{p} aggancia {o}.",
        EventKind.CONTACT: "{p} si affianca a {o}.",
        EventKind.FOUL: "Fallo di {p}.",
        EventKind.WHISTLE: "Fischio.",
    },
}


def ui(lang: str) -> dict[str, str]:
    return UI.get(lang, UI["en"])


def event_line(sc: Scenario, e: Event, lang: str) -> str:
    """``"0.4 s Blue 1 hits the ball."`` in ``lang``."""
    own = e.text_in(lang) or e.text_in("en")
    if own is None:
        tmpl = EVENT_TEXT.get(lang, EVENT_TEXT["en"])[e.kind]
        p = sc.label(e.player, lang) if e.player else "?"
        o = sc.label(e.on, lang) if e.on else "?"
        own = tmpl.format(p=p, o=o)
    return f"{e.t:g} s {own}"


@dataclass(frozen=True, slots=True, eq=False)
class Scene:
    scenario: Scenario
    lang: str
    arena: Arena
    tracking: Tracking
    frames: Frames
    candidates: tuple[Candidate, ...]
    timeline: tuple[tuple[float, str], ...]
    verdict_title: str
    verdict_lines: tuple[str, ...]
    foul_at: tuple[float, float, float] | None  # t, x, y
    params: Params

    @property
    def duration(self) -> float:
        return self.scenario.duration

    def frame_at(self, t: float) -> int:
        return int(np.clip(round(t * 25.0), 0, self.tracking.frames - 1))

    def corridor(self, f: int) -> list[tuple[float, float]] | None:
        """Corner points of the right-of-way corridor at frame ``f`` (yards), or None."""
        h = int(self.frames.holder[f])
        if h < 0 or not self.frames.live[f]:
            return None
        px, py = self.frames.pos[f, h]
        ux, uy = self.frames.head[f, h]
        hw = self.params.row_half_width_yd.value
        a0, a1 = self.params.row_front_yd.value, self.params.row_length_yd.value
        nx, ny = -uy, ux
        return [
            (float(px + ux * a + nx * s * hw), float(py + uy * a + ny * s * hw))
            for a, s in ((a0, -1), (a1, -1), (a1, 1), (a0, 1))
        ]

    def line(self, f: int) -> tuple[tuple[float, float], tuple[float, float]] | None:
        if self.frames.line_id[f] < 0:
            return None
        o = self.frames.line_origin[f]
        d = self.frames.line_dir[f]
        return self.arena.clip_line((float(o[0]), float(o[1])), (float(d[0]), float(d[1])))


def build(sc: Scenario, lang: str = "en", params: Params = DEFAULT_PARAMS) -> Scene:
    tr = sc.tracking()
    fr = frames(tr, params)
    cands = tuple(detect(tr, params))
    u = ui(lang)
    timeline = tuple((e.t, event_line(sc, e, lang)) for e in sc.events)
    if sc.verdict is Verdict.FOUL and sc.culprit is not None:
        title = u["foul_by"].format(p=sc.label(sc.culprit, lang), c=sc.clause)
    elif sc.verdict is Verdict.CANDIDATE and sc.culprit is not None:
        title = u["candidate_by"].format(p=sc.label(sc.culprit, lang), c=sc.clause)
    else:
        title = f"{u['no_foul']} ({sc.clause})"
    lines = tuple(textwrap.wrap(text_in(sc.explanation, lang), 46))
    foul_at = None
    fouls = [e for e in sc.events if e.kind is EventKind.FOUL]
    if sc.verdict in (Verdict.FOUL, Verdict.CANDIDATE) and sc.culprit is not None:
        ft = fouls[0].t if fouls else (cands[0].start if cands else sc.duration)
        x, y = dict(sc.players)[sc.culprit].at(ft)
        foul_at = (ft, x, y)
    arena = Arena.from_edition(sc.edition)
    return Scene(sc, lang, arena, tr, fr, cands, timeline, title, lines, foul_at, params)
