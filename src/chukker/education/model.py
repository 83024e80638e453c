"""Questions, the clause catalogue and the TOML bank format.

A question tests clauses of one or more editions, suits one or more levels
(player, umpire, timekeeper) and is written in every language (en, es, it):
a prompt, its choices and an explanation. The answer is the index of the
right choice; a true/false question has the two choices "True", "False".

>>> q = load_bank()["r13-zigzag-gallop"]
>>> q.kind, q.answer, sorted(q.clauses)
(<Kind.TRUE_FALSE: 'true_false'>, 0, ['uspa-arena-2006', 'uspa-arena-2026'])
>>> q.choices("es")
('Verdadero', 'Falso')
>>> clause_exists("uspa-arena-2026", "9.p3"), clause_exists("uspa-arena-2026", "13(g)")
(True, False)
>>> clause_link("uspa-arena-2026", "13b", "it")
'/rules/uspa-arena-2026/it/13#c-13b'
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from chukker.errors import ChukkerError
from chukker.rulebook.model import anchor, rule_of_clause_id

LANGS: tuple[str, ...] = ("en", "es", "it")
EDITIONS: tuple[str, ...] = ("uspa-arena-2026", "uspa-arena-2006")
LETTERS = "abcdefgh"


class Kind(StrEnum):
    CHOICE = "choice"
    TRUE_FALSE = "true_false"


class Level(StrEnum):
    PLAYER = "player"
    UMPIRE = "umpire"
    TIMEKEEPER = "timekeeper"


class Source(StrEnum):
    """Where a question comes from: the bank, the timing generator or a play."""

    BANK = "bank"
    TIMING = "timing"
    PLAY = "play"


TRUE_FALSE: dict[str, tuple[str, str]] = {
    "en": ("True", "False"),
    "es": ("Verdadero", "Falso"),
    "it": ("Vero", "Falso"),
}


class BankError(ChukkerError):
    """A bank file is malformed or inconsistent; the message names the file and question."""

    code = "bank_invalid"


@dataclass(frozen=True, slots=True)
class Text:
    """A question in one language."""

    prompt: str
    choices: tuple[str, ...]
    explanation: str


@dataclass(frozen=True, slots=True)
class PlayRef:
    """A play question's scenario and the instant (seconds) at which the play stops."""

    scenario: str
    at: float
    #: for "who" questions: the player id (``team:number``) behind each choice
    players: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Question:
    """One question, in every language."""

    id: str
    kind: Kind
    levels: frozenset[Level]
    #: edition -> the clauses it tests in that edition (the editions it holds for)
    clauses: Mapping[str, tuple[str, ...]]
    answer: int
    texts: Mapping[str, Text]
    source: Source = Source.BANK
    play: PlayRef | None = None
    topic: str = ""
    origin: str = field(default="", compare=False)

    def text(self, lang: str) -> Text:
        return self.texts.get(lang) or self.texts["en"]

    def choices(self, lang: str) -> tuple[str, ...]:
        if self.kind is Kind.TRUE_FALSE:
            return TRUE_FALSE.get(lang, TRUE_FALSE["en"])
        return self.text(lang).choices

    def prompt(self, lang: str) -> str:
        return self.text(lang).prompt

    def explanation(self, lang: str) -> str:
        return self.text(lang).explanation

    def holds_for(self, edition: str) -> bool:
        return edition in self.clauses

    def clauses_in(self, edition: str) -> tuple[str, ...]:
        return self.clauses.get(edition, ())

    def rules(self) -> frozenset[int]:
        """The rule numbers the question tests (in any edition)."""
        return frozenset(rule_of_clause_id(c) for cs in self.clauses.values() for c in cs)


# --------------------------------------------------------------------------- clauses


@cache
def _catalogue() -> dict[str, Any]:
    data = resources.files("chukker.education").joinpath("data")
    text = data.joinpath("clauses.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def clause_ids(edition: str) -> frozenset[str]:
    """Every clause id that exists in ``edition`` (with the earlier edition's ids for the
    rules its own pages do not cover)."""
    cat = _catalogue()
    if edition not in cat:
        raise ValueError(f"quiz: unknown edition {edition!r} (known: {', '.join(cat)})")
    entry = cat[edition]
    own = frozenset(str(c) for c in entry["ids"])
    earlier = entry.get("earlier")
    if not earlier:
        return own
    covered = {int(r) for r in entry.get("rules", [])}
    inherited = {c for c in clause_ids(str(earlier)) if rule_of_clause_id(c) not in covered}
    return own | inherited


def clause_exists(edition: str, clause_id: str) -> bool:
    return clause_id in clause_ids(edition)


def clause_link(edition: str, clause_id: str, lang: str) -> str:
    """Where the clause is on the rule pages (``/rules/...#anchor``)."""
    return f"/rules/{edition}/{lang}/{rule_of_clause_id(clause_id)}#{anchor(clause_id)}"


# --------------------------------------------------------------------------- TOML


def _str(v: Any, where: str) -> str:
    if not isinstance(v, str) or not v.strip():
        raise BankError(f"{where}: expected a non-empty string")
    return v.strip()


def parse_question(raw: Mapping[str, Any], where: str) -> Question:
    """A :class:`Question` from one ``[[question]]`` table; :class:`BankError` says where."""
    qid = _str(raw.get("id"), f"{where}: id")
    w = f"{where}: question {qid}"
    try:
        kind = Kind(str(raw.get("kind", "choice")))
    except ValueError:
        raise BankError(f"{w}: kind must be 'choice' or 'true_false'") from None
    lv = raw.get("level")
    if not isinstance(lv, list) or not lv:
        raise BankError(f"{w}: level must be a list (player, umpire, timekeeper)")
    try:
        levels = frozenset(Level(str(x)) for x in lv)
    except ValueError:
        raise BankError(f"{w}: level must list player, umpire or timekeeper") from None
    cl = raw.get("clauses")
    if not isinstance(cl, Mapping) or not cl:
        raise BankError(f"{w}: clauses must be a table edition = [clause ids]")
    clauses: dict[str, tuple[str, ...]] = {}
    for ed, ids in cl.items():
        if not isinstance(ids, list) or not ids or not all(isinstance(c, str) for c in ids):
            raise BankError(f"{w}: clauses.{ed} must be a non-empty list of clause ids")
        clauses[str(ed)] = tuple(ids)
    texts: dict[str, Text] = {}
    for lang in LANGS:
        t = raw.get(lang)
        if t is None:
            continue
        if not isinstance(t, Mapping):
            raise BankError(f"{w}: [{lang}] must be a table")
        ch = t.get("choices", [])
        if not isinstance(ch, list) or not all(isinstance(c, str) for c in ch):
            raise BankError(f"{w}: {lang}.choices must be a list of strings")
        texts[lang] = Text(
            _str(t.get("prompt"), f"{w}: {lang}.prompt"),
            tuple(c.strip() for c in ch),
            _str(t.get("explanation"), f"{w}: {lang}.explanation"),
        )
    if "en" not in texts:
        raise BankError(f"{w}: the English text [en] is required")
    ans = raw.get("answer")
    if kind is Kind.TRUE_FALSE:
        if not isinstance(ans, bool):
            raise BankError(f"{w}: a true_false answer is true or false")
        answer = 0 if ans else 1
    else:
        if not isinstance(ans, str) or len(ans) != 1 or ans not in LETTERS:
            raise BankError(f"{w}: answer must be the letter of the right choice (a, b, ...)")
        answer = LETTERS.index(ans)
    return Question(
        qid,
        kind,
        levels,
        clauses,
        answer,
        texts,
        Source.BANK,
        None,
        str(raw.get("topic", "")),
        where,
    )


def parse_bank(text: str, where: str = "bank") -> list[Question]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BankError(f"{where}: not valid TOML: {e}") from None
    items = data.get("question", [])
    if not isinstance(items, list):
        raise BankError(f"{where}: expected [[question]] tables")
    return [parse_question(q, where) for q in items]


def load_files(paths: Iterable[str | Path]) -> list[Question]:
    out: list[Question] = []
    for p in paths:
        path = Path(p)
        files = sorted(path.glob("*.toml")) if path.is_dir() else [path]
        for f in files:
            if f.name == "clauses.toml":
                continue
            out.extend(parse_bank(f.read_text(encoding="utf-8"), str(f)))
    return out


@cache
def _shipped() -> tuple[Question, ...]:
    out: list[Question] = []
    d = resources.files("chukker.education").joinpath("data")
    for f in sorted(d.iterdir(), key=lambda x: x.name):
        if f.name.endswith(".toml") and f.name != "clauses.toml":
            out.extend(parse_bank(f.read_text(encoding="utf-8"), f"education/data/{f.name}"))
    return tuple(out)


def load_bank() -> dict[str, Question]:
    """The shipped bank by question id."""
    return {q.id: q for q in _shipped()}


# --------------------------------------------------------------------------- check


ClauseLookup = Callable[[str, str], bool]


def corpus_lookup(path: str | Path) -> ClauseLookup:
    """A clause test against an imported rulebook database (``chukker rules import``):
    a clause exists when the edition's rule holds it, or, for a rule the edition's own
    pages do not cover, the earlier edition's rule does."""
    from chukker.rulebook.corpus import Corpus

    corpus = Corpus.open_readonly(path)
    if corpus is None:
        raise BankError(f"{path}: no rulebook database (run 'chukker rules import' first)")
    cache: dict[tuple[str, int], frozenset[str]] = {}

    def exists(edition: str, clause_id: str) -> bool:
        try:
            n = rule_of_clause_id(clause_id)
        except ValueError:
            return False
        if (edition, n) not in cache:
            rule, _ = corpus.rule_or_earlier(edition, n)
            cache[(edition, n)] = frozenset(c.id for c in rule.clauses) if rule else frozenset()
        return clause_id in cache[(edition, n)]

    return exists


def check_question(
    q: Question, langs: Iterable[str] = LANGS, exists: ClauseLookup = clause_exists
) -> list[str]:
    """Every problem of one question (empty if none); ``exists`` says whether a clause
    exists in an edition (default: the shipped catalogue)."""
    where = f"{q.origin or q.source}: question {q.id}"
    problems: list[str] = []
    for ed, ids in q.clauses.items():
        if ed not in EDITIONS:
            problems.append(f"{where}: unknown edition {ed!r} (known: {', '.join(EDITIONS)})")
            continue
        for c in ids:
            if not exists(ed, c):
                problems.append(f"{where}: clause {c!r} does not exist in {ed}")
    for lang in langs:
        if lang not in q.texts:
            problems.append(f"{where}: no text in {lang!r}")
    n = {lang: len(t.choices) for lang, t in q.texts.items()}
    if q.kind is Kind.TRUE_FALSE:
        if any(n.values()):
            problems.append(f"{where}: a true_false question has no choices")
        if q.answer not in (0, 1):
            problems.append(f"{where}: the answer must be true or false")
    else:
        if len(set(n.values())) > 1:
            counts = ", ".join(f"{k} {v}" for k, v in n.items())
            problems.append(f"{where}: the languages have different numbers of choices ({counts})")
        for lang, t in q.texts.items():
            if len(t.choices) < 2:
                problems.append(f"{where}: {lang} needs at least two choices")
            if len(set(t.choices)) != len(t.choices):
                problems.append(f"{where}: {lang} repeats a choice")
            if not 0 <= q.answer < len(t.choices):
                problems.append(
                    f"{where}: answer {LETTERS[q.answer]!r} is not one of the {lang} choices"
                )
    return problems


def check_bank(
    questions: Iterable[Question],
    langs: Iterable[str] = LANGS,
    exists: ClauseLookup = clause_exists,
) -> list[str]:
    """Every problem of a bank: clauses, languages, answers, duplicate ids."""
    problems: list[str] = []
    seen: dict[str, str] = {}
    langs = tuple(langs)
    for q in questions:
        if q.id in seen:
            problems.append(f"{q.origin}: question id {q.id!r} also used in {seen[q.id]}")
        seen[q.id] = q.origin
        problems.extend(check_question(q, langs, exists))
    return problems
