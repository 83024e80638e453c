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
>>> from chukker.education.timing_words import fmt_seconds
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
from chukker.education.timing_words import (
    between_words,
    handicap_words,
    interval_words,
    late_penalty_words,
    period_end_words,
    shootout_words,
    show_clock,
    show_minutes,
    show_ms_seconds,
    show_opening,
    show_score,
    split_words,
    stop_words,
    tie_words,
    warning_words,
)
from chukker.engine import Match, Setup, replay
from chukker.rules.editions import edition as get_edition

_MIN = 60_000


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


def _both(c26: tuple[str, ...], c06: tuple[str, ...] | None) -> dict[str, tuple[str, ...]]:
    out = {"uspa-arena-2026": c26}
    if c06 is not None:
        out["uspa-arena-2006"] = c06
    return out


ALL = frozenset(Level)
KINDS: dict[str, KindSpec] = {
    "late_penalty": KindSpec(
        _late_penalty, late_penalty_words, show_ms_seconds,
        _both(("5.penalties-at-the-end-of-a-period",), None), TK,
    ),
    "whistle_clock": KindSpec(
        _stop_then_play("whistle_clock"), stop_words, show_clock,
        _both(("5.whistle-stops-the-clock",), ("7", "8")), TK,
    ),
    "goal_clock": KindSpec(
        _stop_then_play("goal_clock"), stop_words, show_clock,
        _both(("5.goals",), None), TK,
    ),
    "period_end": KindSpec(
        _period_end, period_end_words, show_minutes,
        _both(("5.whistle-stops-the-clock", "5.the-horn-ends-the-period"), ("5", "7", "8")), TK,
    ),
    "interval": KindSpec(
        _interval, interval_words, show_minutes,
        _both(("5.regulation-game", "5.six-periods-of-5-minutes"), ("5",)), ALL,
    ),
    "tie": KindSpec(
        _tie, tie_words, show_minutes,
        _both(("5.tie-extra-periods", "5.tie-shootout-set-up", "5.regulation-game"),
              ("5", "5(a)", "5(b)")),
        ALL,
    ),
    "split": KindSpec(
        _split, split_words, show_clock, _both(("5.split-periods",), None), TK,
    ),
    "warning": KindSpec(
        _warning, warning_words, show_minutes,
        _both(("5.the-horn-ends-the-period", "5.whistle-stops-the-clock"), ("5",)), TK,
    ),
    "handicap": KindSpec(
        _handicap, handicap_words, show_score, _both(("17",), ("17",)), ALL,
    ),
    "shootout": KindSpec(
        _shootout, shootout_words, show_score,
        _both(("5.scoring-and-further-rounds",), None), ALL,
    ),
    "between": KindSpec(
        _between, between_words, show_opening,
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
