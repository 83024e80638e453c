"""Tests: draw N questions at random, grade them, export the results.

A test is drawn from the bank, the timing generator and the play questions that
hold for an edition and suit a level, without repeats. The same seed gives the
same questions, in the same order with the choices in the same order, in every
language, so a whole clinic can take one test, each candidate in his language.

>>> t = draw(QuizSpec(level="umpire", edition="uspa-arena-2026", lang="es", n=5, seed=42))
>>> [i.question.id for i in t.items] == [
...     i.question.id for i in draw(QuizSpec("umpire", "uspa-arena-2026", "it", 5, 42)).items]
True
>>> r = grade(t, [i.correct for i in t.items])
>>> r.percent, r.passed, r.wrong
(100.0, True, ())
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from chukker import csvsafe
from chukker.education.model import (
    EDITIONS,
    LANGS,
    Level,
    Question,
    clause_link,
    load_bank,
)

DEFAULT_PASS_MARK = 94.0
TIMING_POOL = 16


@dataclass(frozen=True, slots=True)
class QuizSpec:
    """What to draw: level, edition, language, how many, the seed, the pass mark."""

    level: str = Level.UMPIRE
    edition: str = EDITIONS[0]
    lang: str = "en"
    n: int = 20
    seed: int = 0
    pass_mark: float = DEFAULT_PASS_MARK
    #: time allowed in seconds (None: untimed)
    time_limit_s: int | None = None

    def __post_init__(self) -> None:
        if self.level not in {str(lv) for lv in Level}:
            raise ValueError(f"quiz: unknown level {self.level!r} (player, umpire, timekeeper)")
        if self.edition not in EDITIONS:
            raise ValueError(f"quiz: unknown edition {self.edition!r} ({', '.join(EDITIONS)})")
        if self.lang not in LANGS:
            raise ValueError(f"quiz: unknown language {self.lang!r} ({', '.join(LANGS)})")
        if self.n < 1:
            raise ValueError("quiz: a test has at least one question")
        if not 0 <= self.pass_mark <= 100:
            raise ValueError("quiz: the pass mark is a percentage, 0 to 100")


@dataclass(frozen=True, slots=True)
class Item:
    """A question as presented: ``order[i]`` is the question's choice shown at place i."""

    question: Question
    order: tuple[int, ...]

    def choices(self, lang: str) -> tuple[str, ...]:
        ch = self.question.choices(lang)
        return tuple(ch[i] for i in self.order)

    @property
    def correct(self) -> int:
        """The place of the right answer among the presented choices."""
        return self.order.index(self.question.answer)

    def prompt(self, lang: str) -> str:
        return self.question.prompt(lang)


@dataclass(frozen=True, slots=True)
class Quiz:
    spec: QuizSpec
    items: tuple[Item, ...]


@dataclass(frozen=True, slots=True)
class Mark:
    """One graded answer."""

    number: int
    item: Item
    given: int | None
    right: bool
    explanation: str
    clauses: tuple[str, ...]
    links: tuple[str, ...]

    @property
    def correct(self) -> int:
        return self.item.correct


@dataclass(frozen=True, slots=True)
class Result:
    spec: QuizSpec
    marks: tuple[Mark, ...]
    score: int
    total: int
    percent: float
    passed: bool
    pass_mark: float
    over_time: bool = False
    elapsed_s: float | None = field(default=None)

    @property
    def wrong(self) -> tuple[Mark, ...]:
        """Every wrong (or unanswered) question, with its explanation and clauses."""
        return tuple(m for m in self.marks if not m.right)


def pool(level: str, edition: str, seed: int, *, bank: Iterable[Question] | None = None,
         timing: int = TIMING_POOL, plays: bool = True) -> list[Question]:
    """Every question a test for ``level`` and ``edition`` may draw (ids unique)."""
    from chukker.education.timing import generate

    qs: list[Question] = list(bank if bank is not None else load_bank().values())
    if timing:
        qs += generate(edition, timing, seed)
    if plays:
        from chukker.education.playq import play_questions

        qs += play_questions()
    lv = Level(level)
    out: dict[str, Question] = {}
    for q in qs:
        if q.holds_for(edition) and lv in q.levels and q.id not in out:
            out[q.id] = q
    return sorted(out.values(), key=lambda q: q.id)


def draw(spec: QuizSpec, *, bank: Iterable[Question] | None = None,
         timing: int = TIMING_POOL, plays: bool = True) -> Quiz:
    """Draw ``spec.n`` different questions (fewer if the pool is smaller), reproducibly."""
    qs = pool(spec.level, spec.edition, spec.seed, bank=bank, timing=timing, plays=plays)
    rng = random.Random(f"quiz:{spec.seed}:{spec.level}:{spec.edition}")
    chosen = rng.sample(qs, min(spec.n, len(qs)))
    items = []
    for q in chosen:
        k = len(q.choices("en"))
        order = tuple(range(k)) if q.kind == "true_false" else tuple(rng.sample(range(k), k))
        items.append(Item(q, order))
    return Quiz(spec, tuple(items))


def grade(test: Quiz, answers: Sequence[int | None], *, pass_mark: float | None = None,
          elapsed_s: float | None = None) -> Result:
    """Grade presented-choice ``answers`` (``None``: not answered)."""
    spec = test.spec
    mark = spec.pass_mark if pass_mark is None else pass_mark
    marks = []
    for i, item in enumerate(test.items):
        given = answers[i] if i < len(answers) else None
        ok = given is not None and given == item.correct
        cl = item.question.clauses_in(spec.edition)
        marks.append(
            Mark(
                i + 1,
                item,
                given,
                ok,
                item.question.explanation(spec.lang),
                cl,
                tuple(clause_link(spec.edition, c, spec.lang) for c in cl),
            )
        )
    score = sum(m.right for m in marks)
    total = len(marks)
    percent = round(100.0 * score / total, 1) if total else 0.0
    over = spec.time_limit_s is not None and elapsed_s is not None and elapsed_s > spec.time_limit_s
    return Result(spec, tuple(marks), score, total, percent, percent >= mark and not over, mark,
                  over, elapsed_s)


def letter(i: int | None) -> str:
    return "" if i is None else "abcdefgh"[i]


def parse_answer(text: str, n_choices: int) -> int | None:
    """``"b"``, ``"B"``, ``"2"`` -> 1; blank or anything else -> ``None``."""
    t = text.strip().lower()
    if len(t) == 1 and "a" <= t <= "h":
        i = ord(t) - ord("a")
    elif t.isdigit():
        i = int(t) - 1
    else:
        return None
    return i if 0 <= i < n_choices else None


CSV_FIELDS = (
    "candidate", "seed", "level", "edition", "lang", "number", "question", "given", "correct",
    "right", "clauses", "score", "total", "percent", "pass_mark", "passed",
)


def results_csv(results: Iterable[tuple[str, Result]], header: bool = True) -> str:
    """One row per question per candidate, for a clinic organiser."""
    buf = io.StringIO()
    w = csvsafe.writer(buf, lineterminator="\n")
    if header:
        w.writerow(CSV_FIELDS)
    for name, r in results:
        s = r.spec
        for m in r.marks:
            w.writerow([
                name, s.seed, s.level, s.edition, s.lang, m.number, m.item.question.id,
                letter(m.given), letter(m.correct), "yes" if m.right else "no",
                " ".join(m.clauses), r.score, r.total, f"{r.percent:.1f}", f"{r.pass_mark:g}",
                "yes" if r.passed else "no",
            ])
    return buf.getvalue()


def spec_from(params: Mapping[str, str], *, default_seed: int) -> QuizSpec:
    """A :class:`QuizSpec` from form or query parameters (strings); ValueError if bad."""
    try:
        n = int(params.get("n", "10") or 10)
        seed = int(params.get("seed") or default_seed)
        pm = float(params.get("pass_mark", "") or DEFAULT_PASS_MARK)
        tl_raw = params.get("time_limit", "")
        tl = int(tl_raw) if tl_raw else None
    except ValueError:
        raise ValueError("quiz: n, seed, pass mark and time limit must be numbers") from None
    return QuizSpec(
        level=params.get("level", Level.UMPIRE) or Level.UMPIRE,
        edition=params.get("edition", EDITIONS[0]) or EDITIONS[0],
        lang=params.get("lang", "en") or "en",
        n=max(1, min(n, 100)),
        seed=seed,
        pass_mark=pm,
        time_limit_s=tl,
    )
