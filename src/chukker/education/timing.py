"""Timing questions made by a generator and answered by the engine.

A generator builds a *situation*: a match record (set-up and operator events) and
the instant the question is about. The answer is read from the engine's report
of that record (``Match``/``replay``), never worked out here, so every generated
question is right by construction: if the engine's reading of the rules changes,
the answers change with it. The wrong choices are the usual mistakes (forgetting
that a goal does not stop the clock, the other edition's interval, ...); a choice
equal to the answer is dropped, so the answer is unique among the choices.

>>> import random
>>> s = make("late_penalty", "uspa-arena-2026", random.Random(3))
>>> q = s.question()
>>> q.source, q.clauses
(<Source.TIMING: 'timing'>, {'uspa-arena-2026': ('5.penalties-at-the-end-of-a-period',)})
>>> q.choices("en")[q.answer] == fmt_seconds(reading(s), "en")
True
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chukker.education.model import Kind, Level, Question, Source, Text
from chukker.engine import Match, Setup, replay
from chukker.rules.editions import edition as get_edition

TEAMS = {"en": ("Blue", "White"), "es": ("Azul", "Blanco"), "it": ("Blu", "Bianco")}
_MIN = 60_000


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


def _players(hcps: Sequence[int]) -> list[dict[str, Any]]:
    return [{"no": i + 1, "handicap": h} for i, h in enumerate(hcps)]


def _record(
    ed: str,
    events: list[dict[str, Any]],
    options: Mapping[str, Any] | None = None,
    hcps: tuple[Sequence[int], Sequence[int]] = ((1, 1, 1), (1, 1, 1)),
) -> dict[str, Any]:
    opts = {"handicap": False}
    opts.update(options or {})
    return {
        "format": "chukker-match/1",
        "rules": ed,
        "options": opts,
        "teams": {
            "A": {"name": "Blue", "captain": 1, "players": _players(hcps[0])},
            "B": {"name": "White", "captain": 1, "players": _players(hcps[1])},
        },
        "events": events,
    }


def _ev(at_ms: int, type_: str, **fields: Any) -> dict[str, Any]:
    d: dict[str, Any] = {"at": at_ms / 1000, "type": type_}
    d.update(fields)
    return d


# --------------------------------------------------------------------------- situations


@dataclass(frozen=True, slots=True)
class Situation:
    """A generated match and the question asked about it."""

    kind: str
    edition: str
    record: Mapping[str, Any]
    #: the instant (ms since the record started) the answer is read at; None: run on
    at_ms: int | None
    #: values used in the wording (already formatted per language where needed)
    params: Mapping[str, Any]
    #: the engine's report -> the answer as a value (ms, a score, a choice key)
    read: Callable[[Mapping[str, Any]], Any] = field(compare=False)
    #: wrong values to offer beside the answer
    distractors: tuple[Any, ...]

    def report(self) -> dict[str, Any]:
        setup = Setup.from_dict(self.record)
        return replay(setup, list(self.record["events"]), self.at_ms)

    def answer_value(self) -> Any:
        return self.read(self.report())

    def id(self) -> str:
        blob = json.dumps([self.kind, self.edition, self.record, self.at_ms], sort_keys=True)
        return f"timing-{self.kind}-{hashlib.sha1(blob.encode()).hexdigest()[:10]}"

    def question(self) -> Question:
        spec = KINDS[self.kind]
        value = self.answer_value()
        values = [value] + [d for d in dict.fromkeys(self.distractors) if d != value]
        values = values[:4]
        order = random.Random(self.id()).sample(range(len(values)), len(values))
        shown = [values[i] for i in order]
        texts: dict[str, Text] = {}
        for lang in ("en", "es", "it"):
            prompt, expl = spec.words(self, lang, value)
            texts[lang] = Text(
                prompt, tuple(spec.show(v, self, lang) for v in shown), expl
            )
        return Question(
            self.id(),
            Kind.CHOICE,
            spec.levels,
            {self.edition: spec.clauses[self.edition]},
            shown.index(value),
            texts,
            Source.TIMING,
            None,
            self.kind,
            "timing generator",
        )


def reading(s: Situation) -> Any:
    """The engine's answer to situation ``s``."""
    return s.answer_value()


@dataclass(frozen=True, slots=True)
class KindSpec:
    make: Callable[[str, random.Random], Situation]
    words: Callable[[Situation, str, Any], tuple[str, str]]
    show: Callable[[Any, Situation, str], str]
    clauses: Mapping[str, tuple[str, ...]]
    levels: frozenset[Level]


def _starts(ed: str, periods: str, upto: int) -> list[int]:
    """Earliest start (ms) of periods 1..upto when every period runs without stoppage."""
    plan = get_edition(ed).plan(periods)
    t, out = 0, []
    for p in range(1, upto + 1):
        out.append(t)
        if p < plan.count:
            t += plan.length_ms + plan.intervals_ms[p - 1]
    return out


def _bowl_ins(starts: list[int]) -> list[dict[str, Any]]:
    return [_ev(t, "bowl_in") for t in starts]


TK = frozenset({Level.TIMEKEEPER, Level.UMPIRE})


# 1. a late penalty: the clock reset to 5 s ------------------------------------------
def _late_penalty(ed: str, rng: random.Random) -> Situation:
    period = rng.randint(1, 4)
    rem = rng.randint(1, 99) * 100
    pen = rng.choice(["2", "3", "4", "5a"])
    starts = _starts(ed, "regulation", period)
    length = get_edition(ed).regulation.length_ms
    foul_at = starts[-1] + length - rem
    hit_at = foul_at + rng.randint(10, 60) * 1000
    events = [
        *_bowl_ins(starts),
        _ev(foul_at, "foul", team=rng.choice("AB"), penalty=pen),
        _ev(hit_at, "free_hit"),
    ]

    def read(r: Mapping[str, Any]) -> int:
        return int(r["clock"]["remaining_ms"])

    distract = (rem, 0, rem + 5000, 30_000, 10_000)
    return Situation(
        "late_penalty", ed, _record(ed, events), hit_at, {"rem": rem, "pen": pen, "period": period},
        read, distract,
    )


def _late_penalty_words(s: Situation, lang: str, value: Any) -> tuple[str, str]:
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


# 2./3. the clock after a whistle, or after a goal ------------------------------------
def _stop_then_play(kind: str) -> Callable[[str, random.Random], Situation]:
    def make(ed: str, rng: random.Random) -> Situation:
        a = rng.randint(20, 200) * 1000
        d = rng.randint(2, 9) * 10_000
        b = rng.randint(20, 150) * 1000
        team = rng.choice("AB")
        stop = _ev(a, "whistle") if kind == "whistle_clock" else _ev(a, "goal", team=team)
        events = [_ev(0, "bowl_in"), stop, _ev(a + d, "bowl_in")]
        at = a + d + b
        length = get_edition(ed).regulation.length_ms

        def read(r: Mapping[str, Any]) -> int:
            return int(r["clock"]["remaining_ms"])

        wrong = (length - a - b, length - a - d - b, a + b, length - b, a + d + b)
        return Situation(kind, ed, _record(ed, events), at, {"a": a, "d": d, "b": b}, read, wrong)

    return make


def _stop_words(s: Situation, lang: str, value: Any) -> tuple[str, str]:
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


# 4. when the period ends, after stoppages --------------------------------------------
def _period_end(ed: str, rng: random.Random) -> Situation:
    a1 = rng.randint(30, 200) * 1000
    a2 = a1 + rng.randint(30, 200) * 1000
    s1 = rng.randint(2, 20) * 5000
    s2 = rng.randint(2, 20) * 5000
    events = [
        _ev(0, "bowl_in"),
        _ev(a1, "whistle"),
        _ev(a1 + s1, "bowl_in"),
        _ev(a2 + s1, "whistle"),
        _ev(a2 + s1 + s2, "bowl_in"),
    ]

    def read(r: Mapping[str, Any]) -> int:
        return round(float(r["horns"][0]["at"]) * 1000)

    length = get_edition(ed).regulation.length_ms
    wrong = (length, length + s1, length + s2, length + s1 + s2 + 30_000, length - s1 - s2)
    return Situation(
        "period_end", ed, _record(ed, events), None, {"s1": s1, "s2": s2}, read, wrong
    )


def _period_end_words(s: Situation, lang: str, value: Any) -> tuple[str, str]:
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


# 5. the interval after a period --------------------------------------------------------
def _interval(ed: str, rng: random.Random) -> Situation:
    periods = rng.choice(["regulation", "six"])
    plan = get_edition(ed).plan(periods)
    p = rng.randint(1, plan.count - 1)
    starts = _starts(ed, periods, p)
    end = starts[-1] + plan.length_ms
    events = _bowl_ins(starts)

    def read(r: Mapping[str, Any]) -> int:
        iv = r["interval"]
        return round(float(iv["end"] - iv["start"]) * 1000)

    wrong = (4 * _MIN, 10 * _MIN, 2 * _MIN, 5 * _MIN, 15 * _MIN)
    return Situation(
        "interval", ed, _record(ed, events, {"periods": periods}), end + 1000,
        {"periods": periods, "p": p}, read, wrong,
    )


def _ordinal(p: int, lang: str) -> str:
    if lang == "en":
        return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}[p]
    if lang == "es":
        return {1: "primer", 2: "segundo", 3: "tercer", 4: "cuarto", 5: "quinto"}[p]
    return {1: "primo", 2: "secondo", 3: "terzo", 4: "quarto", 5: "quinto"}[p]


def _interval_words(s: Situation, lang: str, value: Any) -> tuple[str, str]:
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


# 6. a tie: extra periods or a shootout ----------------------------------------------
def _tie(ed: str, rng: random.Random) -> Situation:
    tiebreak = rng.choice(["extra-periods", "shootout", "extra-periods-again"])
    opts = {"tiebreak": "shootout" if tiebreak == "shootout" else "extra-periods"}
    plan = get_edition(ed).regulation
    n = plan.count + (1 if tiebreak == "extra-periods-again" else 0)
    starts = list(_starts(ed, "regulation", plan.count))
    if n > plan.count:
        starts.append(starts[-1] + plan.length_ms + get_edition(ed).extra_first_interval_ms.value)
    events = _bowl_ins(starts[:1])
    goals = rng.randint(0, 3)
    for k in range(goals):
        events += [_ev(10_000 + k * 40_000, "goal", team="A"),
                   _ev(30_000 + k * 40_000, "goal", team="B")]
    events += _bowl_ins(starts[1:])
    end = starts[-1] + plan.length_ms

    def read(r: Mapping[str, Any]) -> int:
        iv = r["interval"]
        return round(float(iv["end"] - iv["start"]) * 1000)

    wrong = (2 * _MIN, 4 * _MIN, 10 * _MIN, 5 * _MIN, 15 * _MIN)
    return Situation(
        "tie", ed, _record(ed, events, opts), end + 1000,
        {"tiebreak": tiebreak, "goals": goals}, read, wrong,
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


def _tie_source(s: Situation, lang: str, ans: str) -> str:
    """The explanation, saying where the interval comes from: the rule's text (10 minutes
    before the first extra period in both editions; the shootout's interval), or chukker's
    reading where the text sets none (between extra periods: the contract's 4 minutes)."""
    param = getattr(get_edition(s.edition), _TIE_PARAM[s.params["tiebreak"]])
    return _TIE_SOURCE[lang][0 if param.source == "rule" else 1].format(ans=ans)


def _tie_words(s: Situation, lang: str, value: Any) -> tuple[str, str]:
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


# 7. split periods -------------------------------------------------------------------
def _split(ed: str, rng: random.Random) -> Situation:
    stops: list[int] = []
    running = 0
    for k in range(3):
        running += rng.randint(30, 130 if k < 2 else 100) * 1000
        stops.append(running)
    # whistles stop the clock for 20 s each; a bowl-in resumes play
    events = [_ev(0, "bowl_in")]
    wall = prev = 0
    for r in stops:
        wall += r - prev
        events.append(_ev(wall, "whistle"))
        wall += 20_000
        events.append(_ev(wall, "bowl_in"))
        prev = r

    def read(r: Mapping[str, Any]) -> int:
        split = [h for h in r["horns"] if h["kind"] == "split"]
        if not split:
            return -1
        return _running_at(ed, events, round(split[0]["at"] * 1000))

    wrong = (*stops, 210_000)
    rec = _record(ed, events, {"split_periods": True})
    return Situation("split", ed, rec, wall + 1000, {"stops": tuple(stops)}, read, wrong)


def _running_at(ed: str, events: list[dict[str, Any]], at_ms: int) -> int:
    rec = _record(ed, events, {"split_periods": True})
    r = replay(Setup.from_dict(rec), events, at_ms)
    return int(r["running_ms"][-1])


def _split_words(s: Situation, lang: str, value: Any) -> tuple[str, str]:
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


# 8. the 30-second warning horn ---------------------------------------------------------
def _warning(ed: str, rng: random.Random) -> Situation:
    a = rng.randint(30, 300) * 1000
    d = rng.randint(2, 12) * 10_000
    events = [_ev(0, "bowl_in"), _ev(a, "whistle"), _ev(a + d, "bowl_in")]

    def read(r: Mapping[str, Any]) -> int:
        w = [h for h in r["horns"] if h["kind"] == "warning"]
        return round(w[0]["at"] * 1000) if w else -1

    length = get_edition(ed).regulation.length_ms
    warn = get_edition(ed).warning_at_ms.value
    wrong = (length - warn, length + d, length - warn - d, length - 2 * warn + d)
    rec = _record(ed, events, {"warning_horn": True})
    return Situation("warning", ed, rec, None, {"a": a, "d": d}, read, wrong)


def _warning_words(s: Situation, lang: str, value: Any) -> tuple[str, str]:
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


# 9. handicap goals -------------------------------------------------------------------
def _handicap(ed: str, rng: random.Random) -> Situation:
    periods = rng.choice(["regulation", "six", "six"])
    while True:
        ha = [rng.randint(0, 6) for _ in range(3)]
        hb = [rng.randint(0, 6) for _ in range(3)]
        if sum(ha) != sum(hb):
            break
    rec = _record(ed, [], {"periods": periods, "handicap": True}, (ha, hb))

    def read(r: Mapping[str, Any]) -> tuple[int, int]:
        g = r["handicap_goals"]
        return (int(g["A"]), int(g["B"]))

    diff = abs(sum(ha) - sum(hb))
    lower_a = sum(ha) < sum(hb)
    scaled = diff * 6 // 4 if periods == "six" else diff * 3 // 2

    def pair(n: int, to_a: bool) -> tuple[int, int]:
        return (n, 0) if to_a else (0, n)

    wrong = (
        pair(diff, lower_a), pair(diff, not lower_a), pair(scaled, lower_a),
        pair(diff + 1, lower_a), (0, 0), pair(max(diff - 1, 1), lower_a),
    )
    return Situation(
        "handicap", ed, rec, 0, {"ha": tuple(ha), "hb": tuple(hb), "periods": periods}, read, wrong
    )


def _handicap_words(s: Situation, lang: str, value: Any) -> tuple[str, str]:
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


def _show_score(v: Any, s: Situation, lang: str) -> str:
    blue, white = TEAMS[lang]
    return f"{blue} {v[0]} – {white} {v[1]}"


# 10. the shootout's final score --------------------------------------------------------
def _shootout(ed: str, rng: random.Random) -> Situation:
    plan = get_edition(ed).regulation
    starts = _starts(ed, "regulation", plan.count)
    g = rng.randint(1, 4)
    events = _bowl_ins(starts[:1])
    for k in range(g):
        events += [_ev(10_000 + k * 40_000, "goal", team="A"),
                   _ev(30_000 + k * 40_000, "goal", team="B")]
    events += _bowl_ins(starts[1:])
    t = starts[-1] + plan.length_ms + get_edition(ed).shootout_interval_ms.value + 5_000
    first = rng.choice("AB")
    order = {"A": rng.sample([1, 2, 3], 3), "B": rng.sample([1, 2, 3], 3)}
    events.append(_ev(t, "shootout_order", first=first, order=order))
    second = "B" if first == "A" else "A"
    so = {"A": 0, "B": 0}
    for rnd in range(5):
        if rnd:
            t += get_edition(ed).shootout_round_interval_ms.value
        for k in range(3):
            for team in (first, second):
                t += 60_000
                res = "goal" if rng.random() < 0.4 else "miss"
                so[team] += res == "goal"
                events.append(_ev(t, "shot", team=team, player=order[team][k], result=res,
                                  reached_end_wall=True))
        if so["A"] != so["B"]:
            break
    else:
        # keep it short: the last shooter of the second team scores or misses to decide
        last = events[-1]
        last["result"] = "miss" if last["result"] == "goal" else "goal"
        so[second] += 1 if last["result"] == "goal" else -1

    def read(r: Mapping[str, Any]) -> tuple[int, int]:
        return (int(r["score"]["A"]), int(r["score"]["B"]))

    wa, wb = g + so["A"], g + so["B"]
    wrong = ((wa, wb), (g, g), (g + 1, g) if so["A"] < so["B"] else (g, g + 1),
             (g + 2, g) if so["A"] > so["B"] else (g, g + 2))
    rec = _record(ed, events, {"tiebreak": "shootout"})
    return Situation(
        "shootout", ed, rec, None, {"g": g, "so": (so["A"], so["B"])}, read, wrong
    )


def _shootout_words(s: Situation, lang: str, value: Any) -> tuple[str, str]:
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


# 11. a penalty awarded between periods -------------------------------------------------
OPENINGS = ("free_hit_full", "bowl_in_lost", "free_hit_5", "bowl_in_then_hit")


def _between(ed: str, rng: random.Random) -> Situation:
    p = rng.randint(1, 3)
    plan = get_edition(ed).regulation
    starts = _starts(ed, "regulation", p)
    end = starts[-1] + plan.length_ms
    pen = rng.choice(["2", "3", "4"])
    foul_at = end + rng.randint(5, 100) * 1000
    hit_at = end + plan.intervals_ms[p - 1] + rng.randint(0, 30) * 1000
    events = [
        *_bowl_ins(starts),
        _ev(foul_at, "foul", team=rng.choice("AB"), penalty=pen),
        _ev(hit_at, "free_hit"),
    ]

    def read(r: Mapping[str, Any]) -> str:
        if r["period"] != p + 1 or r["status"] != "in_play":
            return "bowl_in_lost"
        rem = r["clock"]["remaining_ms"]
        if rem == plan.length_ms:
            return "free_hit_full"
        return "free_hit_5" if rem == 5000 else "bowl_in_then_hit"

    return Situation(
        "between", ed, _record(ed, events), hit_at, {"p": p, "pen": pen}, read, OPENINGS
    )


def _between_words(s: Situation, lang: str, value: Any) -> tuple[str, str]:
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


def _show_ms_seconds(v: Any, s: Situation, lang: str) -> str:
    return fmt_seconds(int(v), lang)


def _show_clock(v: Any, s: Situation, lang: str) -> str:
    return fmt_clock(int(v))


def _show_minutes(v: Any, s: Situation, lang: str) -> str:
    return fmt_minutes(int(v), lang)


def _show_opening(v: Any, s: Situation, lang: str) -> str:
    return _OPEN_TEXT[lang][str(v)]


def _both(c26: tuple[str, ...], c06: tuple[str, ...] | None) -> dict[str, tuple[str, ...]]:
    out = {"uspa-arena-2026": c26}
    if c06 is not None:
        out["uspa-arena-2006"] = c06
    return out


ALL = frozenset(Level)
KINDS: dict[str, KindSpec] = {
    "late_penalty": KindSpec(
        _late_penalty, _late_penalty_words, _show_ms_seconds,
        _both(("5.penalties-at-the-end-of-a-period",), None), TK,
    ),
    "whistle_clock": KindSpec(
        _stop_then_play("whistle_clock"), _stop_words, _show_clock,
        _both(("5.whistle-stops-the-clock",), ("7", "8")), TK,
    ),
    "goal_clock": KindSpec(
        _stop_then_play("goal_clock"), _stop_words, _show_clock,
        _both(("5.goals",), None), TK,
    ),
    "period_end": KindSpec(
        _period_end, _period_end_words, _show_minutes,
        _both(("5.whistle-stops-the-clock", "5.the-horn-ends-the-period"), ("5", "7", "8")), TK,
    ),
    "interval": KindSpec(
        _interval, _interval_words, _show_minutes,
        _both(("5.regulation-game", "5.six-periods-of-5-minutes"), ("5",)), ALL,
    ),
    "tie": KindSpec(
        _tie, _tie_words, _show_minutes,
        _both(("5.tie-extra-periods", "5.tie-shootout-set-up", "5.regulation-game"),
              ("5", "5(a)", "5(b)")),
        ALL,
    ),
    "split": KindSpec(
        _split, _split_words, _show_clock, _both(("5.split-periods",), None), TK,
    ),
    "warning": KindSpec(
        _warning, _warning_words, _show_minutes,
        _both(("5.the-horn-ends-the-period", "5.whistle-stops-the-clock"), ("5",)), TK,
    ),
    "handicap": KindSpec(
        _handicap, _handicap_words, _show_score, _both(("17",), ("17",)), ALL,
    ),
    "shootout": KindSpec(
        _shootout, _shootout_words, _show_score,
        _both(("5.scoring-and-further-rounds",), None), ALL,
    ),
    "between": KindSpec(
        _between, _between_words, _show_opening,
        _both(("5.penalties-at-the-end-of-a-period",), None), TK,
    ),
}


def kinds_for(edition: str) -> list[str]:
    """The situation kinds that hold for ``edition`` (where its rules speak)."""
    return [k for k, spec in KINDS.items() if edition in spec.clauses]


def make(kind: str, edition: str, rng: random.Random) -> Situation:
    """One situation of ``kind`` for ``edition``, drawn with ``rng``."""
    if edition not in KINDS[kind].clauses:
        raise ValueError(f"quiz: timing kind {kind!r} does not hold for {edition}")
    return KINDS[kind].make(edition, rng)


def generate(edition: str, count: int, seed: int | str) -> list[Question]:
    """``count`` timing questions for ``edition``, the kinds in turn, reproducible for ``seed``."""
    rng = random.Random(f"timing:{edition}:{seed}")
    kinds = kinds_for(edition)
    out: list[Question] = []
    seen: set[str] = set()
    i = 0
    while len(out) < count and i < count * 4:
        s = make(kinds[i % len(kinds)], edition, rng)
        i += 1
        q = s.question()
        if q.id not in seen:
            seen.add(q.id)
            out.append(q)
    return out


def check_situation(s: Situation) -> None:
    """Raise ``AssertionError`` unless the situation replays without refusal (every
    event accepted, one by one) and its answer is unique among the choices."""
    m = Match(Setup.from_dict(s.record))
    for ev in s.record["events"]:
        m.apply(ev)
    q = s.question()
    for lang in ("en", "es", "it"):
        ch = q.choices(lang)
        assert len(set(ch)) == len(ch) >= 2, (s.kind, ch)
        assert ch[q.answer] == KINDS[s.kind].show(s.answer_value(), s, lang)
