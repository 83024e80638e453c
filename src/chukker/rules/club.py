"""Club rules: a committee's own edition, carried in the match record (record 1.3).

A club edition is a known edition (its ``base``) with some of its parameters
changed and some of its features left out. It travels in the record's header
(``"rules": "club"`` and an ``edition`` object), so the record replays anywhere with
no other file. Every value changed cites ``club rules: <name>``, never a USPA clause.

>>> e = club_edition({"base": "uspa-arena-2026", "name": "Pine Hill winter league",
...                   "regulation": {"count": 4, "length_s": 360,
...                                  "intervals_s": [180, 300, 180]}})
>>> e.regulation.length_ms, e.regulation.intervals_ms, e.regulation.clause
(360000, (180000, 300000, 180000), 'club rules: Pine Hill winter league')
>>> e.shootout_interval_ms.value, e.shootout_interval_ms.clause  # the base's, as it was
(240000, '5.tie-shootout-set-up')
>>> e.club.changed
('regulation',)
>>> club_edition({"base": "uspa-arena-2026", "name": "X", "regulation": {"count": 4,
...               "length_s": 360, "intervals_s": [180]}})
Traceback (most recent call last):
...
chukker.rules.club.ClubError: edition.regulation.intervals_s: 4 periods have 3 intervals, got 1
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from chukker.errors import ChukkerError
from chukker.rules.editions import (
    EDITIONS,
    FEATURES,
    Club,
    Edition,
    EditionId,
    Param,
    PeriodPlan,
)

#: the header's ``rules`` value of a club edition
CLUB = "club"
#: the most characters in a club edition's name
NAME_MAX = 80
#: the base's millisecond parameters a club may set, in seconds, with their ranges (s)
SECONDS: dict[str, tuple[str, int, int]] = {
    "split_after_s": ("split_after_ms", 1, 1800),
    "mount_change_max_s": ("mount_change_max_ms", 0, 600),
    "warning_at_s": ("warning_at_ms", 1, 1800),
    "late_penalty_reset_s": ("late_penalty_reset_ms", 1, 60),
    "extra_first_interval_s": ("extra_first_interval_ms", 0, 1800),
    "extra_between_interval_s": ("extra_between_interval_ms", 0, 1800),
    "shootout_interval_s": ("shootout_interval_ms", 0, 1800),
    "shootout_round_interval_s": ("shootout_round_interval_ms", 0, 1800),
    "injury_timeout_max_s": ("injury_timeout_max_ms", 60, 3600),
}
#: the base's whole-number parameters a club may set, with their ranges
COUNTS: dict[str, tuple[str, int, int]] = {
    "shootout_attempts_before_move": ("shootout_attempts_before_move", 1, 10),
}
#: the period plans a club may set
PLANS = ("regulation", "six")
#: ranges of a plan: periods, a period's length (s), an interval (s)
PLAN_COUNT = (1, 12)
PLAN_LENGTH_S = (60, 1800)
PLAN_INTERVAL_S = (0, 1800)
KEYS = frozenset({"base", "name", "without", *PLANS, *SECONDS, *COUNTS})
#: the values that serve only a feature: a base without it has no use for them (a club
#: that sets one on such a base is refused, not silently kept: issue 42)
NEEDS: dict[str, str] = {
    "split_after_s": "split_periods",
    "mount_change_max_s": "split_periods",
    "late_penalty_reset_s": "late_penalty_reset",
    "shootout_round_interval_s": "shootout_rounds",
    "shootout_attempts_before_move": "move_to_15",
}
#: what a name may not hold: markup and control characters
_MARKUP = re.compile(r"[<>&\"'`{}\\\x00-\x1f\x7f]")


class ClubError(ChukkerError):
    """A club edition that cannot be played: ``path`` (under ``edition``), ``code`` and
    ``params`` say where and why (the header's refusal, in en, es and it)."""

    def __init__(self, path: str, reason: str, code: str, **params: Any) -> None:
        self.path = path
        self.reason = reason
        self.code = code
        self.params: dict[str, Any] = {"path": path, **params}
        super().__init__(f"{path}: {reason}")


def _seconds(path: str, v: Any, lo: int, hi: int) -> int:
    """A number of seconds in ``[lo, hi]`` with at most millisecond precision, as ms."""
    if isinstance(v, bool) or not isinstance(v, int | float) or v != v or v in (
            float("inf"), float("-inf")):
        raise ClubError(path, f"must be a number of seconds from {lo} to {hi}",
                        "club_value_range", min=lo, max=hi, value=repr(v)[:60])
    ms = round(v * 1000)
    if abs(v * 1000 - ms) > 1e-6:
        raise ClubError(path, "at most millisecond precision", "club_value_precision")
    if not lo * 1000 <= ms <= hi * 1000:
        raise ClubError(path, f"must be a number of seconds from {lo} to {hi}",
                        "club_value_range", min=lo, max=hi, value=repr(v)[:60])
    return ms


def _count(path: str, v: Any, lo: int, hi: int) -> int:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ClubError(path, f"must be a whole number from {lo} to {hi}",
                        "club_count_range", min=lo, max=hi, value=repr(v)[:60])
    return v


def _name(v: Any) -> str:
    if not isinstance(v, str):
        raise ClubError("edition.name", f"the club's name for its rules, 1-{NAME_MAX} "
                        "characters", "club_name", max=NAME_MAX)
    name = unicodedata.normalize("NFC", v).strip()
    if not 1 <= len(name) <= NAME_MAX:
        raise ClubError("edition.name", f"the club's name for its rules, 1-{NAME_MAX} "
                        "characters", "club_name", max=NAME_MAX)
    if _MARKUP.search(name):
        raise ClubError("edition.name", "a name has no markup nor control characters "
                        "(< > & \" ' ` { } \\)", "club_name_markup")
    return name


def _plan(path: str, doc: Any, clause: str) -> PeriodPlan:
    if not isinstance(doc, Mapping) or set(doc) != {"count", "length_s", "intervals_s"}:
        raise ClubError(path, "must be {count, length_s, intervals_s}", "club_plan_keys")
    count = _count(f"{path}.count", doc["count"], *PLAN_COUNT)
    length = _seconds(f"{path}.length_s", doc["length_s"], *PLAN_LENGTH_S)
    ivs = doc["intervals_s"]
    if not isinstance(ivs, list):
        raise ClubError(f"{path}.intervals_s", "must be a list of seconds",
                        "club_intervals_list")
    if len(ivs) != count - 1:
        raise ClubError(f"{path}.intervals_s",
                        f"{count} periods have {count - 1} intervals, got {len(ivs)}",
                        "club_intervals_count", count=count, want=count - 1, got=len(ivs))
    intervals = tuple(_seconds(f"{path}.intervals_s[{i}]", v, *PLAN_INTERVAL_S)
                      for i, v in enumerate(ivs))
    return PeriodPlan(count, length, intervals, clause)


def _frozen(v: Any) -> Any:
    """A JSON value as a hashable key (types kept apart: ``1``, ``1.0`` and ``True``)."""
    if isinstance(v, Mapping):
        return ("{", tuple(sorted((str(k), _frozen(x)) for k, x in v.items())))
    if isinstance(v, list | tuple):
        return ("[", tuple(_frozen(x) for x in v))
    return (type(v).__name__, v)


def club_edition(doc: Any) -> Edition:
    """The :class:`Edition` a header's ``edition`` object describes; :class:`ClubError`
    naming the field when it cannot be played. A league replays many records of one
    edition: the last editions read are kept (they are frozen values)."""
    try:
        key = _frozen(doc)
        hash(key)
    except TypeError:  # not JSON data: checked (and refused) the long way
        return _club_edition(doc)
    return _cached(key, doc)


_CACHE: dict[Any, Edition] = {}
#: editions kept (a season's leagues); the oldest goes first
CACHE_MAX = 64


def _cached(key: Any, doc: Any) -> Edition:
    ed = _CACHE.get(key)
    if ed is None:
        ed = _club_edition(doc)  # a refusal is raised each time, never kept
        if len(_CACHE) >= CACHE_MAX:
            del _CACHE[next(iter(_CACHE))]
        _CACHE[key] = ed
    return ed


def _club_edition(doc: Any) -> Edition:
    if not isinstance(doc, Mapping):
        raise ClubError("edition", "club rules need an 'edition' object: base, name and the "
                        "values the club changes", "club_edition_missing")
    unknown = sorted(str(k) for k in doc if k not in KEYS)
    if unknown:
        key = unknown[0][:60]
        near = difflib.get_close_matches(key, sorted(KEYS), n=1, cutoff=0.6)
        if near:
            raise ClubError(f"edition.{key}"[:80], f"not a parameter a club may set; did you "
                            f"mean {near[0]}?", "club_unknown_key_near", key=key,
                            suggestion=near[0], known=sorted(KEYS))
        raise ClubError(f"edition.{key}"[:80], "not a parameter a club may set",
                        "club_unknown_key", key=key, known=sorted(KEYS))
    base_id = doc.get("base")
    if not isinstance(base_id, str) or base_id not in EDITIONS:
        raise ClubError("edition.base", "must be one of the known editions",
                        "club_base", value=repr(base_id)[:60], known=list(EDITIONS))
    base = EDITIONS[base_id]
    for key, feature in NEEDS.items():
        if key in doc and feature not in base.features:
            raise ClubError(f"edition.{key}", f"{base_id} has no use for this value: it "
                            f"serves {feature}, which that edition does not have",
                            "club_value_unused", edition=base_id, feature=feature)
    name = _name(doc.get("name"))
    clause = f"club rules: {name}"
    changes: dict[str, Any] = {}
    # a value the club restates as the base has it stays the base's, with its clause
    for key in PLANS:
        if key in doc:
            plan = _plan(f"edition.{key}", doc[key], clause)
            was = base.plan(key)
            if (plan.count, plan.length_ms, plan.intervals_ms) != (
                    was.count, was.length_ms, was.intervals_ms):
                changes[key] = plan
    for key, (field_name, lo, hi) in SECONDS.items():
        if key in doc:
            old: Param = getattr(base, field_name)
            v = _seconds(f"edition.{key}", doc[key], lo, hi)
            if v != old.value:
                changes[field_name] = Param(v, clause, old.note, "club")
    for key, (field_name, lo, hi) in COUNTS.items():
        if key in doc:
            old = getattr(base, field_name)
            n = _count(f"edition.{key}", doc[key], lo, hi)
            if n != old.value:
                changes[field_name] = Param(n, clause, old.note, "club")
    without = _without(doc.get("without", []), base)
    ed = replace(base, id=EditionId.CLUB, title=name, source=clause,
                 features=base.features - frozenset(without),
                 club=Club(name, base_id, tuple(changes), without), **changes)
    _coherent(ed)
    return ed


def _without(doc: Any, base: Edition) -> tuple[str, ...]:
    if not isinstance(doc, list) or len(doc) > len(FEATURES):
        raise ClubError("edition.without", "must be a list of the base's features",
                        "club_without_list", known=sorted(base.features))
    out: list[str] = []
    for i, f in enumerate(doc):
        if not isinstance(f, str) or f not in base.features:
            raise ClubError(f"edition.without[{i}]",
                            f"{str(f)[:40]!r} is not a feature of {base.id}",
                            "club_feature_not_in_base", value=repr(f)[:60],
                            edition=str(base.id), known=sorted(base.features))
        if f not in out:
            out.append(f)
    return tuple(out)


def _coherent(ed: Edition) -> None:
    """Values that are each in range but cannot be played together."""
    reset = ed.late_penalty_reset_ms.value
    for key in PLANS:
        plan = ed.plan(key)
        if plan.length_ms <= reset:
            raise ClubError(f"edition.{key}.length_s", "a period must be longer than the "
                            "late-penalty reset (late_penalty_reset_s)", "club_period_short",
                            length_ms=plan.length_ms, reset_ms=reset)


def club_doc(ed: Edition) -> dict[str, Any]:
    """The ``edition`` object of a club edition, as the header writes it (its changes)."""
    assert ed.club is not None
    out: dict[str, Any] = {"base": ed.club.base, "name": ed.club.name}
    by_field = {f: k for k, (f, _lo, _hi) in {**SECONDS, **COUNTS}.items()}
    for f in ed.club.changed:
        if f in PLANS:
            p = ed.plan(f)
            out[f] = {"count": p.count, "length_s": _s(p.length_ms),
                      "intervals_s": [_s(x) for x in p.intervals_ms]}
        elif f in COUNTS:
            out[f] = getattr(ed, f).value
        else:
            out[by_field[f]] = _s(getattr(ed, f).value)
    if ed.club.without:
        out["without"] = list(ed.club.without)
    return out


def _s(ms: int) -> int | float:
    return ms // 1000 if ms % 1000 == 0 else ms / 1000


def differences(ed: Edition, base: Edition) -> list[tuple[str, str, str, str]]:
    """What ``ed`` changes from ``base``: (parameter, base's value, club's value, base's
    clause), in seconds where the edition counts milliseconds.

    >>> e = club_edition({"base": "uspa-arena-2026", "name": "Six", "warning_at_s": 20})
    >>> differences(e, EDITIONS["uspa-arena-2026"])
    [('warning_at_s', '30', '20', '5.the-horn-ends-the-period')]
    """
    out: list[tuple[str, str, str, str]] = []
    for key in PLANS:
        a, b = base.plan(key), ed.plan(key)
        if (a.count, a.length_ms, a.intervals_ms) != (b.count, b.length_ms, b.intervals_ms):
            out.append((key, _plan_text(a), _plan_text(b), a.clause))
    for key, (f, _lo, _hi) in {**SECONDS, **COUNTS}.items():
        pa, pb = getattr(base, f), getattr(ed, f)
        if pa.value != pb.value:
            conv = (lambda v: str(_s(v))) if key in SECONDS else str
            out.append((key, conv(pa.value), conv(pb.value), pa.clause))
    for f in sorted(base.features - ed.features):
        out.append(("without", f, "-", "features"))
    return out


def _plan_text(p: PeriodPlan) -> str:
    ivs = ", ".join(str(_s(x)) for x in p.intervals_ms)
    return f"{p.count} x {_s(p.length_ms)} s, intervals [{ivs}]"


def starting_toml(ed: Edition, name: str = "Our club") -> str:
    """A starting file for a club edition: every parameter of ``ed`` with its clause.

    >>> "length_s = 450" in starting_toml(EDITIONS["uspa-arena-2026"])
    True
    """
    lines = [
        "# A club edition of the arena rules (record 1.3: \"rules\": \"club\").",
        "# Delete what your club plays as the base does; change the rest.",
        f'base = "{ed.id}"',
        f'name = "{name}"',
        "# without = [\"split_periods\"]   # the base's features the club does not play:",
        f"#   {', '.join(sorted(ed.features)) or '(none)'}",
        "",
    ]
    for key, (f, lo, hi) in {**SECONDS, **COUNTS}.items():
        p: Param = getattr(ed, f)
        v = _s(p.value) if key in SECONDS else p.value
        lines.append(f"{key} = {v}   # {lo}-{hi}; {p.clause}: {p.note}")
    for key in PLANS:
        p2 = ed.plan(key)
        ivs = ", ".join(str(_s(x)) for x in p2.intervals_ms)
        lines += ["", f"[{key}]   # {p2.clause}",
                  f"count = {p2.count}   # {PLAN_COUNT[0]}-{PLAN_COUNT[1]} periods",
                  f"length_s = {_s(p2.length_ms)}   # {PLAN_LENGTH_S[0]}-{PLAN_LENGTH_S[1]}",
                  f"intervals_s = [{ivs}]   # one fewer than count, each "
                  f"{PLAN_INTERVAL_S[0]}-{PLAN_INTERVAL_S[1]}"]
    return "\n".join(lines) + "\n"
