"""The timing questions' words: each kind's question and explanation in en, es and it,
and how a value is shown among the choices (a clock, seconds, minutes, a score, an
opening). The situations and the engine's answers are :mod:`chukker.education.timing`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from chukker.rules.editions import edition as get_edition


class Asked(Protocol):
    """What the words read of a situation (:class:`chukker.education.timing.Situation`)."""

    @property
    def kind(self) -> str: ...

    @property
    def edition(self) -> str: ...

    @property
    def params(self) -> Mapping[str, Any]: ...


TEAMS = {"en": ("Blue", "White"), "es": ("Azul", "Blanco"), "it": ("Blu", "Bianco")}


# --------------------------------------------------------------------------- formatting


def fmt_clock(ms: int) -> str:
    """A period clock reading: ``m:ss``, with tenths when they are not zero.

    >>> fmt_clock(450_000), fmt_clock(5_000), fmt_clock(4_200)
    ('7:30', '0:05', '0:04.2')
    """
    m, rest = divmod(ms, 60_000)
    s, milli = divmod(rest, 1000)
    tenth = milli // 100
    return f"{m}:{s:02d}" + (f".{tenth}" if tenth else "")


def fmt_seconds(ms: int, lang: str) -> str:
    """>>> fmt_seconds(4_200, "es"), fmt_seconds(5_000, "en")
    ('4,2 s', '5 s')
    """
    s = f"{ms / 1000:.1f}".removesuffix(".0")
    return (s.replace(".", ",") if lang != "en" else s) + " s"


def fmt_minutes(ms: int, lang: str) -> str:
    """>>> fmt_minutes(240_000, "it"), fmt_minutes(90_000, "en")
    ('4 min', '1 min 30 s')
    """
    m, s = divmod(ms // 1000, 60)
    return f"{m} min" + (f" {s} s" if s else "") if m else f"{s} s"


def late_penalty_words(s: Asked, lang: str, value: Any) -> tuple[str, str]:
    rem = fmt_seconds(s.params["rem"], lang)
    pen, p = s.params["pen"], s.params["period"]
    ans = fmt_seconds(value, lang)
    return {
        "en": (
            f"{rem} are left in period {p} when the umpire whistles a foul and awards a "
            f"Penalty {pen}. What does the clock show when the free hit is taken?",
            f"The clock shows {ans}. A penalty is taken in the period in which it is awarded, "
            "and with less than 5 seconds left the clock goes back to 5 seconds first.",
        ),
        "es": (
            f"Quedan {rem} en el período {p} cuando el umpire cobra una falta y da un "
            f"Penal {pen}. ¿Qué muestra el reloj al tirarse el tiro libre?",
            f"El reloj muestra {ans}. El penal se ejecuta en el período en que se otorgó, y "
            "con menos de 5 segundos el reloj vuelve antes a 5 segundos.",
        ),
        "it": (
            f"Mancano {rem} nel periodo {p} quando l'arbitro fischia un fallo e assegna una "
            f"Punizione {pen}. Cosa segna il cronometro al tiro libero?",
            f"Il cronometro segna {ans}. La punizione si batte nel periodo in cui è assegnata e, "
            "con meno di 5 secondi, il cronometro torna prima a 5 secondi.",
        ),
    }[lang]


def stop_words(s: Asked, lang: str, value: Any) -> tuple[str, str]:
    a, d, b = (fmt_minutes(s.params[k], lang) for k in ("a", "d", "b"))
    ans = fmt_clock(value)
    goal = s.kind == "goal_clock"
    if lang == "es":
        what = "se marca un gol" if goal else "el umpire toca el silbato"
        why = ("Un gol no detiene el reloj: el tiempo hasta el bowl-in también cuenta."
               if goal else "El silbato detiene el reloj: el tiempo detenido no se descuenta.")
        return (
            f"El primer período arranca con el reloj en 7:30. Tras {a} de juego {what}; {d} "
            f"después el umpire tira la bocha y se juega {b} más. ¿Qué muestra el reloj?",
            f"El reloj muestra {ans}. {why}",
        )
    if lang == "it":
        what = "viene segnato un gol" if goal else "l'arbitro fischia"
        why = ("Un gol non ferma il cronometro: anche il tempo fino al bowl-in conta."
               if goal else "Il fischio ferma il cronometro: il tempo fermo non si scala.")
        return (
            f"Il primo periodo parte con il cronometro a 7:30. Dopo {a} di gioco {what}; {d} "
            f"dopo l'arbitro lancia la palla e si gioca per altri {b}. Cosa segna il cronometro?",
            f"Il cronometro segna {ans}. {why}",
        )
    what = "a goal is scored" if goal else "the umpire blows the whistle"
    why = ("A goal does not stop the clock: the time until the bowl-in counts too."
           if goal else "The whistle stops the clock: time while play is stopped is not taken off.")
    return (
        f"The first period starts with 7:30 on the clock. After {a} of play {what}; {d} later "
        f"the umpire bowls the ball in and play goes on for {b}. What does the clock show?",
        f"The clock shows {ans}. {why}",
    )


def period_end_words(s: Asked, lang: str, value: Any) -> tuple[str, str]:
    s1, s2 = (fmt_minutes(s.params[k], lang) for k in ("s1", "s2"))
    ans = fmt_minutes(value, lang)
    return {
        "en": (
            f"A 7½-minute period starts with a bowl-in. The umpire stops play twice, for {s1} "
            f"and then for {s2}. How long after the opening bowl-in does the end horn sound?",
            f"After {ans}: the period's 7½ minutes of play plus the time play was stopped, "
            "since the whistle stops the clock.",
        ),
        "es": (
            f"Un período de 7½ minutos empieza con un bowl-in. El umpire detiene el juego dos "
            f"veces, {s1} y luego {s2}. ¿Cuánto después del bowl-in inicial suena la bocina final?",
            f"A los {ans}: los 7½ minutos de juego más el tiempo detenido, porque el silbato "
            "para el reloj.",
        ),
        "it": (
            f"Un periodo di 7½ minuti comincia con un bowl-in. L'arbitro ferma il gioco due "
            f"volte, per {s1} e poi per {s2}. Quanto dopo il bowl-in iniziale suona la sirena?",
            f"Dopo {ans}: i 7½ minuti di gioco più il tempo fermo, perché il fischio ferma il "
            "cronometro.",
        ),
    }[lang]


def _ordinal(p: int, lang: str) -> str:
    if lang == "en":
        return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}[p]
    if lang == "es":
        return {1: "primer", 2: "segundo", 3: "tercer", 4: "cuarto", 5: "quinto"}[p]
    return {1: "primo", 2: "secondo", 3: "terzo", 4: "quarto", 5: "quinto"}[p]


def interval_words(s: Asked, lang: str, value: Any) -> tuple[str, str]:
    p = s.params["p"]
    six = s.params["periods"] == "six"
    ans = fmt_minutes(value, lang)
    o = _ordinal(p, lang)
    if lang == "es":
        game = "de seis períodos de 5 minutos" if six else "reglamentario de cuatro períodos"
        return (
            f"En un partido {game}, suena la bocina del {o} período. ¿Cuánto tiempo debe "
            "pasar antes del bowl-in del período siguiente?",
            f"{ans}: el intervalo que fija la Regla 5 tras ese período.",
        )
    if lang == "it":
        game = "di sei periodi da 5 minuti" if six else "regolamentare di quattro periodi"
        return (
            f"In una partita {game} suona la sirena del {o} periodo. Quanto tempo deve "
            "passare prima del bowl-in del periodo successivo?",
            f"{ans}: l'intervallo che la Regola 5 prevede dopo quel periodo.",
        )
    game = "of six 5-minute periods" if six else "of four regulation periods"
    return (
        f"In a game {game}, the horn ends the {o} period. How long must pass before the "
        "next period's bowl-in?",
        f"{ans}: the interval Rule 5 sets after that period.",
    )


#: where each tie interval comes from (issue 25, reading 2: only the 2006 text sets the
#: interval before the first extra period; no edition's Rule 5 sets one between them)
_TIE_SOURCE = {
    "en": ("{ans}, as Rule 5 of this edition sets it.",
           "{ans}: Rule 5 sets no interval between extra periods (\"additional periods, as "
           "required\"); the 4 minutes are chukker's reading, from its match-record contract."),
    "es": ("{ans}, como fija la Regla 5 en esta edición.",
           "{ans}: la Regla 5 no fija intervalo entre períodos extra; los 4 minutos son la "
           "lectura de chukker, de su contrato del acta del partido."),
    "it": ("{ans}, come fissa la Regola 5 in questa edizione.",
           "{ans}: la Regola 5 non fissa un intervallo tra i supplementari; i 4 minuti sono la "
           "lettura di chukker, dal suo contratto del referto."),
}


_TIE_PARAM = {"extra-periods": "extra_first_interval_ms", "shootout": "shootout_interval_ms",
              "extra-periods-again": "extra_between_interval_ms"}


def _tie_source(s: Asked, lang: str, ans: str) -> str:
    """The explanation, saying where the interval comes from: the rule's text (10 minutes
    before the first extra period in both editions; the shootout's interval), or chukker's
    reading where the text sets none (between extra periods: the contract's 4 minutes)."""
    param = getattr(get_edition(s.edition), _TIE_PARAM[s.params["tiebreak"]])
    return _TIE_SOURCE[lang][0 if param.source == "rule" else 1].format(ans=ans)


def tie_words(s: Asked, lang: str, value: Any) -> tuple[str, str]:
    tb, g = s.params["tiebreak"], s.params["goals"]
    ans = fmt_minutes(value, lang)
    score = f"{g}-{g}"
    if lang == "es":
        q = {
            "extra-periods": f"El cuarto período termina {score}; el comité eligió períodos "
            "extra. ¿Cuánto después de la bocina puede ser el próximo bowl-in?",
            "shootout": f"El cuarto período termina {score}; el comité eligió el shootout. "
            "¿Cuánto después de la bocina puede tirarse el primer tiro?",
            "extra-periods-again": f"El primer período extra termina sin goles, todavía {score}. "
            "¿Cuánto después de la bocina puede ser el próximo bowl-in?",
        }[tb]
        return q, _tie_source(s, lang, ans)
    if lang == "it":
        q = {
            "extra-periods": f"Il quarto periodo finisce {score}; il comitato ha scelto i "
            "supplementari. Quanto dopo la sirena può esserci il prossimo bowl-in?",
            "shootout": f"Il quarto periodo finisce {score}; il comitato ha scelto lo shootout. "
            "Quanto dopo la sirena si può battere il primo tiro?",
            "extra-periods-again": f"Il primo supplementare finisce senza gol, ancora {score}. "
            "Quanto dopo la sirena può esserci il prossimo bowl-in?",
        }[tb]
        return q, _tie_source(s, lang, ans)
    q = {
        "extra-periods": f"The fourth period ends {score}; the committee chose extra periods. "
        "How long after the horn may the next bowl-in be?",
        "shootout": f"The fourth period ends {score}; the committee chose a shootout. "
        "How long after the horn may the first shot be hit?",
        "extra-periods-again": f"The first extra period ends with no goal, still {score}. "
        "How long after the horn may the next bowl-in be?",
    }[tb]
    return q, _tie_source(s, lang, ans)


def split_words(s: Asked, lang: str, value: Any) -> tuple[str, str]:
    stops = ", ".join(fmt_clock(x) for x in s.params["stops"])
    v = value
    ans = fmt_clock(v) if v >= 0 else "-"
    return {
        "en": (
            f"An event uses split periods. In the first period the umpire whistles after {stops} "
            "of play. After how much play does the split horn sound?",
            f"After {ans}: at the first stoppage once 3:30 of the period have been played.",
        ),
        "es": (
            f"Un evento usa períodos divididos. En el primer período el umpire silba a los {stops} "
            "de juego. ¿Tras cuánto juego suena la bocina de la división?",
            f"Tras {ans}: en la primera detención después de jugados 3:30 del período.",
        ),
        "it": (
            f"Un evento usa i periodi divisi. Nel primo periodo l'arbitro fischia dopo {stops} "
            "di gioco. Dopo quanto gioco suona la sirena della divisione?",
            f"Dopo {ans}: alla prima interruzione dopo 3:30 di gioco nel periodo.",
        ),
    }[lang]


def warning_words(s: Asked, lang: str, value: Any) -> tuple[str, str]:
    a, d = fmt_minutes(s.params["a"], lang), fmt_minutes(s.params["d"], lang)
    ans = fmt_minutes(value, lang)
    return {
        "en": (
            f"The arena has no visible clock, so a 30-second warning horn is used. Play starts "
            f"with a bowl-in; after {a} the umpire stops play for {d}. How long after the "
            "opening bowl-in does the warning horn sound?",
            f"After {ans}: 30 seconds of play before the end, and the stoppage does not count.",
        ),
        "es": (
            f"La arena no tiene reloj visible, así que se usa el aviso de 30 segundos. El juego "
            f"empieza con un bowl-in; a los {a} el umpire lo detiene durante {d}. ¿Cuánto "
            "después del bowl-in inicial suena el aviso?",
            f"A los {ans}: 30 segundos de juego antes del final; la detención no cuenta.",
        ),
        "it": (
            f"L'arena non ha un cronometro visibile, quindi si usa l'avviso dei 30 secondi. Il "
            f"gioco parte con un bowl-in; dopo {a} l'arbitro lo ferma per {d}. Quanto dopo il "
            "bowl-in iniziale suona l'avviso?",
            f"Dopo {ans}: 30 secondi di gioco prima della fine; l'interruzione non conta.",
        ),
    }[lang]


def handicap_words(s: Asked, lang: str, value: Any) -> tuple[str, str]:
    ha = ", ".join(map(str, s.params["ha"]))
    hb = ", ".join(map(str, s.params["hb"]))
    blue, white = TEAMS[lang]
    six = s.params["periods"] == "six"
    if lang == "es":
        game = "seis períodos de 5 minutos" if six else "cuatro períodos"
        return (
            f"Partido con handicap a {game}. Handicaps de {blue}: {ha}; de {white}: {hb}. "
            "¿Qué muestra el marcador al empezar?",
            "El handicap de cada equipo es la suma de sus jugadores (a otra cantidad de períodos, "
            "dividido por cuatro, por los períodos y redondeado); la diferencia se da en goles "
            "al de menor handicap.",
        )
    if lang == "it":
        game = "sei periodi da 5 minuti" if six else "quattro periodi"
        return (
            f"Partita a handicap su {game}. Handicap di {blue}: {ha}; di {white}: {hb}. "
            "Cosa segna il tabellone all'inizio?",
            "L'handicap di squadra è la somma dei giocatori (con un altro numero di periodi, "
            "diviso quattro, per i periodi e arrotondato); la differenza va in gol a chi ha "
            "l'handicap minore.",
        )
    game = "six 5-minute periods" if six else "four periods"
    return (
        f"A handicap game of {game}. {blue}'s handicaps: {ha}; {white}'s: {hb}. What does the "
        "scoreboard show at the start?",
        "A team's handicap is its players' total (for another number of periods, divided by "
        "four, times the periods and rounded); the difference goes as goals to the lower team.",
    )


def show_score(v: Any, s: Asked, lang: str) -> str:
    blue, white = TEAMS[lang]
    return f"{blue} {v[0]} – {white} {v[1]}"


def shootout_words(s: Asked, lang: str, value: Any) -> tuple[str, str]:
    g = s.params["g"]
    sa, sb = s.params["so"]
    blue, white = TEAMS[lang]
    return {
        "en": (
            f"Regulation ends {blue} {g} – {white} {g} and a shootout follows. In the shootout "
            f"{blue} scores {sa} and {white} {sb}. What is the final score of the game?",
            "The shootout's winner wins the game by one goal: the tied score plus one.",
        ),
        "es": (
            f"El tiempo reglamentario termina {blue} {g} – {white} {g} y sigue un shootout. En "
            f"el shootout {blue} convierte {sa} y {white} {sb}. ¿Cuál es el resultado final?",
            "El ganador del shootout gana el partido por un gol: el empate más uno.",
        ),
        "it": (
            f"Il tempo regolamentare finisce {blue} {g} – {white} {g} e segue lo shootout. Nello "
            f"shootout {blue} segna {sa} e {white} {sb}. Qual è il risultato finale?",
            "Chi vince lo shootout vince la partita per un gol: il pareggio più uno.",
        ),
    }[lang]


def between_words(s: Asked, lang: str, value: Any) -> tuple[str, str]:
    p, pen = s.params["p"], s.params["pen"]
    o = _ordinal(p, lang)
    return {
        "en": (
            f"During the interval after the {o} period the umpire awards a Penalty {pen}. "
            "How does the next period begin?",
            "A penalty awarded between periods is taken at the start of the following period: "
            "it opens with the free hit, the clock at the full period.",
        ),
        "es": (
            f"Durante el intervalo tras el {o} período el umpire otorga un Penal {pen}. "
            "¿Cómo empieza el período siguiente?",
            "Un penal otorgado entre períodos se ejecuta al comienzo del período siguiente: "
            "empieza con el tiro libre y el reloj completo.",
        ),
        "it": (
            f"Durante l'intervallo dopo il {o} periodo l'arbitro assegna una Punizione {pen}. "
            "Come comincia il periodo successivo?",
            "Una punizione assegnata tra i periodi si batte all'inizio del periodo successivo: "
            "si comincia con il tiro libero e il cronometro pieno.",
        ),
    }[lang]


_OPEN_TEXT = {
    "en": {
        "free_hit_full": "With the free hit, the clock showing the full period",
        "bowl_in_lost": "With a bowl-in at the centre; the penalty lapses",
        "free_hit_5": "With the free hit, the clock set to 5 seconds",
        "bowl_in_then_hit": "With a bowl-in; the free hit at the first stoppage",
    },
    "es": {
        "free_hit_full": "Con el tiro libre y el reloj con el período completo",
        "bowl_in_lost": "Con un bowl-in en el centro; el penal se pierde",
        "free_hit_5": "Con el tiro libre y el reloj en 5 segundos",
        "bowl_in_then_hit": "Con un bowl-in; el tiro libre en la primera detención",
    },
    "it": {
        "free_hit_full": "Con il tiro libero e il cronometro a periodo pieno",
        "bowl_in_lost": "Con un bowl-in al centro; la punizione decade",
        "free_hit_5": "Con il tiro libero e il cronometro a 5 secondi",
        "bowl_in_then_hit": "Con un bowl-in; il tiro libero alla prima interruzione",
    },
}


def show_ms_seconds(v: Any, s: Asked, lang: str) -> str:
    return fmt_seconds(int(v), lang)


def show_clock(v: Any, s: Asked, lang: str) -> str:
    return fmt_clock(int(v))


def show_minutes(v: Any, s: Asked, lang: str) -> str:
    return fmt_minutes(int(v), lang)


def show_opening(v: Any, s: Asked, lang: str) -> str:
    return _OPEN_TEXT[lang][str(v)]
