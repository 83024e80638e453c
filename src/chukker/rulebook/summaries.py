"""chukker's own short summary of each rule (en, es, it) and what the engine takes from it.

The summaries are the project's words, shipped in ``data/summaries.json``;
the rulebook's text is imported by each user and prevails.

>>> summary(5, "es").title
'Duración y número de períodos'
>>> params = engine_params("uspa-arena-2026", 5)
>>> [(p.name, p.display) for p in params if p.name.startswith("shootout_i")]
[('shootout_interval_ms', '4 min')]
>>> format_value("split_after_ms", 210000), format_value("p2_spot_yd", 15)
('3 min 30 s', '15 yd')
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from chukker.rulebook.languages import ORIGINAL_LANG, SITE_LANGS
from chukker.rulebook.model import rule_of_clause_id
from chukker.rules.editions import EDITIONS, PeriodPlan

RULE_NUMBERS: tuple[int, ...] = tuple(range(1, 19))


@dataclass(frozen=True, slots=True)
class RuleSummary:
    """chukker's short summary of one rule in one language."""

    rule: int
    lang: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class EngineParam:
    """An engine parameter, its value for display, and the clause it comes from."""

    name: str
    label: str
    value: int | None
    display: str
    clause: str
    note: str


@cache
def _data(name: str) -> dict[str, Any]:
    text = resources.files("chukker.rulebook").joinpath("data", name).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _check_rule(rule: int) -> None:
    if rule not in RULE_NUMBERS:
        raise ValueError(f"rules: there is no Rule {rule} (the arena rules are numbered 1 to 18)")


def summary(rule: int, lang: str = ORIGINAL_LANG) -> RuleSummary:
    """chukker's summary of ``rule`` in ``lang``; in English where chukker has none in ``lang``.

    The returned :attr:`RuleSummary.lang` says which language it is in.

    >>> summary(16, "fr").lang
    'en'
    """
    _check_rule(rule)
    base = lang.split("-", 1)[0]
    if base not in SITE_LANGS:
        base = ORIGINAL_LANG
    title, text = _data("summaries.json")["rules"][str(rule)][base]
    lang = base
    return RuleSummary(rule, lang, str(title), str(text))


def summaries(lang: str = ORIGINAL_LANG) -> list[RuleSummary]:
    """All 18 summaries in ``lang``."""
    return [summary(n, lang) for n in RULE_NUMBERS]


def _ms(ms: int) -> str:
    m, s = divmod(ms // 1000, 60)
    if m and s:
        return f"{m} min {s} s"
    return f"{m} min" if m else f"{s} s"


def format_value(name: str, value: int) -> str:
    """A parameter value for people: durations in min/s, distances in yards."""
    if name.endswith("_ms"):
        return _ms(value)
    if name.endswith("_yd"):
        return f"{value} yd"
    return str(value)


def _plan(plan: PeriodPlan) -> str:
    intervals = ", ".join(_ms(x) for x in plan.intervals_ms)
    return f"{plan.count} × {_ms(plan.length_ms)}; intervals {intervals}"


def param_label(name: str, lang: str = ORIGINAL_LANG) -> str:
    """The name of an engine parameter in ``lang`` (the identifier if unknown)."""
    labels = _data("summaries.json")["params"].get(name, {})
    return str(labels.get(lang.split("-", 1)[0]) or labels.get(ORIGINAL_LANG) or name)


def engine_params(
    edition: str, rule: int | None = None, lang: str = ORIGINAL_LANG
) -> list[EngineParam]:
    """The engine's parameters for ``edition`` from clauses of ``rule`` (all if ``None``)."""
    if edition not in EDITIONS:
        known = ", ".join(EDITIONS)
        raise ValueError(f"rules: unknown edition {edition!r} (known: {known})")
    ed = EDITIONS[edition]
    out: list[EngineParam] = []

    def wanted(clause: str) -> bool:
        # A parameter set by the match-record contract ("contract:..."), not by a rule, is
        # not a rule's parameter: the rule pages leave it out.
        if clause.startswith("contract:"):
            return False
        return rule is None or rule_of_clause_id(clause) == rule

    for name, plan in (("regulation", ed.regulation), ("six", ed.six)):
        if wanted(plan.clause):
            out.append(
                EngineParam(name, param_label(name, lang), None, _plan(plan), plan.clause, "")
            )
    for name, p in ed.params().items():
        if wanted(p.clause):
            out.append(
                EngineParam(
                    name,
                    param_label(name, lang),
                    p.value,
                    format_value(name, p.value),
                    p.clause,
                    p.note,
                )
            )
    return out
