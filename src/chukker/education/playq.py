"""Play questions from the shipped play scenarios (``chukker.plays``).

The animated play stops at an instant and asks: foul or no foul? who fouled? who
has the right of way? which penalty? The answers come from the scenario's verdict
and culprit, from the plays' right-of-way model (Rule 12) at that instant, and from
the detectors' evidence (the penalty of a delay of game), never from this module.

>>> qs = {q.id: q for q in play_questions()}
>>> q = qs["play-13b-zigzag-verdict"]
>>> q.choices("es")[q.answer], q.play.at
('Falta', 2.6)
>>> q = qs["play-12-row-cross-row"]
>>> q.choices("en")[q.answer]
'Blue 3'
"""

from __future__ import annotations

from functools import cache

from chukker.education.model import Kind, Level, PlayRef, Question, Source, Text, clause_exists
from chukker.plays import Scenario, Verdict, detect, shipped
from chukker.plays.frames import event_frame, frames
from chukker.plays.scenario import text_in
from chukker.plays.scene import EVENT_TEXT
from chukker.plays.tracking import EventKind

LANGS = ("en", "es", "it")
LEVELS = frozenset({Level.PLAYER, Level.UMPIRE})

W: dict[str, dict[str, str]] = {
    "en": {
        "stops": "The play stops at {t} s.",
        "so_far": "So far:",
        "verdict_q": "Foul or no foul?",
        "foul": "Foul",
        "no_foul": "No foul",
        "who_q": "Who committed the foul?",
        "row_q": "Who has the right of way at this instant?",
        "row_expl": (
            "{p} has the right of way in chukker's reading of Rules 11 and 12 (its "
            "right-of-way model): of the players riding near the ball, on or close to the "
            "line of the ball, he is the one following it most nearly."
        ),
        "team_q": "Which team committed the foul?",
        "pen_q": "Which penalty should the umpire award?",
        "pen": "Penalty {p}",
        "pen_expl": (
            "Penalty {p}: the delay happened in the half the team in possession defends."
        ),
        "nothing": "Nothing has happened yet.",
    },
    "es": {
        "stops": "La jugada se detiene a los {t} s.",
        "so_far": "Hasta ahora:",
        "verdict_q": "¿Falta o no falta?",
        "foul": "Falta",
        "no_foul": "Sin falta",
        "who_q": "¿Quién cometió la falta?",
        "row_q": "¿Quién tiene el derecho de paso en este instante?",
        "row_expl": (
            "{p} tiene el derecho de paso según la lectura de chukker de las Reglas 11 y 12 "
            "(su modelo del derecho de paso): de los jugadores que cabalgan cerca de la "
            "bocha, sobre la línea de la bocha o cerca de ella, es quien la sigue más de cerca."
        ),
        "team_q": "¿Qué equipo cometió la falta?",
        "pen_q": "¿Qué penal debería otorgar el umpire?",
        "pen": "Penal {p}",
        "pen_expl": "Penal {p}: la demora ocurrió en la mitad que defiende el equipo con la bocha.",
        "nothing": "Todavía no pasó nada.",
    },
    "it": {
        "stops": "L'azione si ferma a {t} s.",
        "so_far": "Finora:",
        "verdict_q": "Fallo o nessun fallo?",
        "foul": "Fallo",
        "no_foul": "Nessun fallo",
        "who_q": "Chi ha commesso il fallo?",
        "row_q": "Chi ha il diritto di passaggio in questo istante?",
        "row_expl": (
            "{p} ha il diritto di passaggio secondo la lettura di chukker delle Regole 11 e 12 "
            "(il suo modello del diritto di passaggio): tra i giocatori che cavalcano vicino "
            "alla palla, sulla linea della palla o vicino a essa, è quello che la segue più "
            "da vicino."
        ),
        "team_q": "Quale squadra ha commesso il fallo?",
        "pen_q": "Quale punizione dovrebbe assegnare l'arbitro?",
        "pen": "Punizione {p}",
        "pen_expl": (
            "Punizione {p}: la perdita di tempo è avvenuta nella metà difesa dalla squadra "
            "in possesso della palla."
        ),
        "nothing": "Non è ancora successo niente.",
    },
}

_HIDDEN = {EventKind.FOUL, EventKind.WHISTLE}
#: fouls the rule lays on a team, naming no rider (Rule 13f: two players of one team riding
#: off one opponent): the question asks which team fouled (issue 25, reading 2)
TEAM_FOULS = frozenset({"13f-two-on-one"})


def _fmt_t(t: float, lang: str) -> str:
    s = f"{t:g}"
    return s.replace(".", ",") if lang != "en" else s


def _prompt(sc: Scenario, at: float, lang: str, question: str) -> str:
    w = W[lang]
    # the generic wording of each event: a scenario's own captions may give the verdict away
    lines = []
    for e in sc.events:
        tmpl = EVENT_TEXT[lang][e.kind]
        if e.t < at and e.kind not in _HIDDEN and (e.on is not None or "{o}" not in tmpl):
            p = sc.label(e.player, lang) if e.player else "?"
            o = sc.label(e.on, lang) if e.on else "?"
            what = tmpl.format(p=p, o=o)
            lines.append(f"{_fmt_t(e.t, lang)} s {what}")
    so_far = f"{w['so_far']} " + " ".join(lines) if lines else w["nothing"]
    return f"{w['stops'].format(t=_fmt_t(at, lang))} {so_far} {question}"


def _clauses(sc: Scenario, extra: tuple[str, ...] = ()) -> dict[str, tuple[str, ...]]:
    ids = tuple(c for c in dict.fromkeys((*sc.clauses, *extra)) if clause_exists(sc.edition, c))
    return {sc.edition: ids or ("13",)}


def _verdict_at(sc: Scenario) -> float:
    fouls = [e.t for e in sc.events if e.kind is EventKind.FOUL]
    if fouls:
        return fouls[0]
    return max(e.t for e in sc.events) if sc.events else sc.duration


def _texts(
    sc: Scenario, at: float, key: str, choices: dict[str, list[str]], expl: dict[str, str]
) -> dict[str, Text]:
    return {
        lang: Text(_prompt(sc, at, lang, W[lang][key]), tuple(choices[lang]), expl[lang])
        for lang in LANGS
    }


def questions_for(sc: Scenario) -> list[Question]:
    """The play questions of one scenario."""
    out: list[Question] = []
    at = _verdict_at(sc)
    expl = {lang: text_in(sc.explanation, lang) for lang in LANGS}
    foul = sc.verdict is Verdict.FOUL
    choices = {lang: [W[lang]["foul"], W[lang]["no_foul"]] for lang in LANGS}
    out.append(
        Question(
            f"play-{sc.id}-verdict", Kind.CHOICE, LEVELS, _clauses(sc), 0 if foul else 1,
            _texts(sc, at, "verdict_q", choices, expl), Source.PLAY, PlayRef(sc.id, at),
            "play-verdict", "plays",
        )
    )
    tr = sc.tracking()
    players = [str(p) for p in tr.players]
    labels = {lang: [sc.label(p, lang) for p in tr.players] for lang in LANGS}
    if foul and sc.culprit is not None and sc.id in TEAM_FOULS:
        teams = [t.name for t in sc.teams]
        tlabels = {lang: [text_in(t.label, lang) for t in sc.teams] for lang in LANGS}
        out.append(
            Question(
                f"play-{sc.id}-culprit", Kind.CHOICE, LEVELS, _clauses(sc),
                teams.index(sc.culprit.team), _texts(sc, at, "team_q", tlabels, expl),
                Source.PLAY, PlayRef(sc.id, at), "play-team", "plays",
            )
        )
    elif foul and sc.culprit is not None:
        out.append(
            Question(
                f"play-{sc.id}-culprit", Kind.CHOICE, LEVELS, _clauses(sc),
                players.index(str(sc.culprit)), _texts(sc, at, "who_q", labels, expl),
                Source.PLAY, PlayRef(sc.id, at, tuple(players)), "play-culprit", "plays",
            )
        )
    fr = frames(tr)
    for e in sc.events:
        h = int(fr.holder[event_frame(tr.t, e.t)])
        if h >= 0:
            p_expl = {lang: W[lang]["row_expl"].format(p=labels[lang][h]) for lang in LANGS}
            out.append(
                Question(
                    f"play-{sc.id}-row", Kind.CHOICE, LEVELS, _clauses(sc, ("11", "12")), h,
                    _texts(sc, e.t, "row_q", labels, p_expl), Source.PLAY,
                    PlayRef(sc.id, e.t, tuple(players)), "play-right-of-way", "plays",
                )
            )
            break
    for c in detect(tr):
        pen = c.to_json()["evidence"].get("penalty")
        if pen:
            pens = [str(pen)] + [p for p in ("1", "2", "3") if p != pen]
            pch = {lang: [W[lang]["pen"].format(p=p) for p in pens] for lang in LANGS}
            pex = {lang: W[lang]["pen_expl"].format(p=pen) + " " + expl[lang] for lang in LANGS}
            out.append(
                Question(
                    f"play-{sc.id}-penalty", Kind.CHOICE, frozenset({Level.UMPIRE}),
                    _clauses(sc, ("9.p5",)), 0, _texts(sc, at, "pen_q", pch, pex), Source.PLAY,
                    PlayRef(sc.id, at), "play-penalty", "plays",
                )
            )
            break
    return out


@cache
def play_questions() -> tuple[Question, ...]:
    """Every play question of the shipped scenarios."""
    return tuple(q for sc in shipped() for q in questions_for(sc))
