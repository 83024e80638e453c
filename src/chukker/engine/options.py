"""The committee's options (Rule 5, Rule 17) as the set-up reads them from a record's
header, and what the set-up's value classes share (internal).

>>> read_options({"periods": "six", "tiebreak": "shootout"}, ("A", "B")).periods
<PeriodsOption.SIX: 'six'>
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from chukker.engine.errors import SetupError, show
from chukker.engine.types import End, PeriodsOption, ShootoutPlayers, Tiebreak, TwoPointLine


def by_fields(obj: Any) -> tuple[Any, ...]:
    """``__reduce__`` of a frozen dataclass: rebuilt from its fields, in order. Compiled by
    mypyc, a frozen class cannot be rebuilt attribute by attribute, as pickle and
    ``copy.deepcopy`` do by default; every value class here (and the record's ``Field``)
    says so."""
    return (type(obj), tuple(getattr(obj, f.name) for f in dataclasses.fields(obj)))


@dataclass(frozen=True, slots=True)
class Options:
    """Committee options (defaults are those of the contract's example)."""

    periods: PeriodsOption = PeriodsOption.REGULATION
    split_periods: bool = False
    tiebreak: Tiebreak = Tiebreak.EXTRA_PERIODS
    shootout_players: ShootoutPlayers = ShootoutPlayers.ALL
    handicap: bool = True
    warning_horn: bool = False
    two_point_line: TwoPointLine = TwoPointLine.CENTER
    #: which goal each team defends in period 1 (Rule 8: by lot), ``None``: first team west
    first_defends: tuple[tuple[str, End], ...] | None = None
    #: practice: (period length, interval length) in ms, ``None`` for a real match
    practice: tuple[int, int] | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return by_fields(self)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "periods": str(self.periods),
            "split_periods": self.split_periods,
            "tiebreak": str(self.tiebreak),
            "shootout_players": str(self.shootout_players),
            "handicap": self.handicap,
            "warning_horn": self.warning_horn,
            "two_point_line": str(self.two_point_line),
        }
        if self.first_defends is not None:
            out["first_defends"] = {k: str(v) for k, v in self.first_defends}
        if self.practice is not None:
            out["practice"] = _practice_dict(self.practice)
        return out


def _practice_dict(p: tuple[int, int]) -> dict[str, Any]:
    def s(ms: int) -> int | float:
        return ms // 1000 if ms % 1000 == 0 else ms / 1000

    return {"period_s": s(p[0]), "interval_s": s(p[1])}


def _practice(raw: Any) -> tuple[int, int] | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or set(raw) - {"period_s", "interval_s"}:
        raise SetupError("options.practice", 'must be {"period_s": N, "interval_s": M}',
                         "setup_practice_shape")
    out = []
    for key, lo, hi in (("period_s", 10, 3600), ("interval_s", 0, 3600)):
        v = raw.get(key)
        if isinstance(v, bool) or not isinstance(v, int | float) or not lo <= v <= hi:
            raise SetupError(
                f"options.practice.{key}", f"must be a number of seconds from {lo} to {hi}",
                "setup_practice_range", min=lo, max=hi,
            )
        ms = round(v * 1000)
        if abs(v * 1000 - ms) > 1e-6:
            raise SetupError(f"options.practice.{key}", "at most millisecond precision",
                             "setup_practice_precision")
        out.append(ms)
    return (out[0], out[1])


def read_enum(path: str, value: Any, enum: Any) -> Any:
    if type(value) is str:  # the common case: one dict look-up (``enum(value)`` costs ~1 us)
        member = _MEMBERS[enum].get(value)
        if member is not None:
            return member
    try:
        return enum(value)
    except ValueError:
        allowed = [show(str(m)) for m in enum]
        raise SetupError(path, f"unknown value {value!r} (one of {', '.join(allowed)})",
                         "setup_unknown_value", value=show(value), allowed=allowed) from None


#: each option enum's members by value (a member is its own value: StrEnum)
_MEMBERS: dict[Any, dict[str, Any]] = {
    e: {str(m): m for m in e} for e in (End, PeriodsOption, ShootoutPlayers, Tiebreak, TwoPointLine)
}


def read_bool(path: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise SetupError(path, f"must be true or false, got {value!r}", "setup_not_bool",
                         value=show(value))
    return value


#: the defaults, made once (a frozen dataclass is built field by field)
_DEFAULT_OPTIONS: Final = Options()


def read_options(doc: Any, team_ids: tuple[str, str]) -> Options:
    if type(doc) is not dict and not isinstance(doc, Mapping):
        raise SetupError("options", "must be an object", "setup_not_an_object")
    d = _DEFAULT_OPTIONS
    fd: tuple[tuple[str, End], ...] | None = None
    if "first_defends" in doc:
        raw = doc["first_defends"]
        if not isinstance(raw, Mapping) or set(raw) != set(team_ids):
            raise SetupError(
                "options.first_defends",
                f"must give the end of both teams, e.g. {{{team_ids[0]!r}: 'west', "
                f"{team_ids[1]!r}: 'east'}}",
                "setup_first_defends",
                a=show(team_ids[0]),
                b=show(team_ids[1]),
            )
        ends = {t: read_enum(f"options.first_defends.{t}", raw[t], End) for t in team_ids}
        if ends[team_ids[0]] == ends[team_ids[1]]:
            raise SetupError(
                "options.first_defends",
                "the two teams must defend opposite ends",
                "opposite_ends",
            )
        fd = tuple((t, ends[t]) for t in team_ids)
    # each value checked in the fields' order (the first refusal is the one said)
    key = (
        read_enum("options.periods", doc.get("periods", d.periods), PeriodsOption),
        read_bool("options.split_periods", doc.get("split_periods", d.split_periods)),
        read_enum("options.tiebreak", doc.get("tiebreak", d.tiebreak), Tiebreak),
        read_enum(
            "options.shootout_players",
            doc.get("shootout_players", d.shootout_players),
            ShootoutPlayers,
        ),
        read_bool("options.handicap", doc.get("handicap", d.handicap)),
        read_bool("options.warning_horn", doc.get("warning_horn", d.warning_horn)),
        read_enum("options.two_point_line", doc.get("two_point_line", d.two_point_line),
              TwoPointLine),
        fd,
        _practice(doc.get("practice")),
    )
    # Options are values: the same checked values give an equal one, made once (a frozen
    # dataclass is built field by field; the values are enum members, bools, and tuples
    # of them and of ints, so equal keys are equal options)
    options = _OPTIONS.get(key)
    if options is None:
        options = Options(*key)
        remember(_OPTIONS, key, options)
    return options


#: the options made, by their checked values (at most :data:`REMEMBERED` of them)
_OPTIONS: dict[tuple[Any, ...], Options] = {}
REMEMBERED: Final = 4096


def remember(cache: dict[Any, Any], key: Any, value: Any) -> None:
    """``cache[key] = value``, the cache emptied first when it is full (a bound on the
    memory a long-running server gives it; the next records fill it again)."""
    if len(cache) >= REMEMBERED:
        cache.clear()
    cache[key] = value
