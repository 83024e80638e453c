"""The frozen corpus of today's reports and refusals (issue 46): what the corpus test
compares against, and how ``scripts/frozen_reports.py`` writes it.

Three parts, each computed here the same way at writing and at testing:

* ``examples``: each example record (``examples/*.json``, ``*.toml`` and the tournament's
  matches), loaded (:func:`chukker.record.load_path`) and played through a live
  :class:`~chukker.engine.Match`: its report after every event, at the event's instant and
  halfway to the next, then the record's replay to the end and ``chukker check``'s list;
  one sha256 of all of them per example;
* ``matches``: :data:`MATCHES` simulated matches (fixed seeds, every committee variant of
  ``benchmarks/replay.py``; of 16 to 300 events, some with mounts, some ending in an undo),
  each the sha256 of its events and of its report (the record's strict replay to the end,
  or its refusal's text), and for every fifth one the report at an instant mid-match;
* ``bad``: every event of :func:`mutants` (one event of each type with every field, each
  field left out, made null, or given a value of the wrong type, out of bounds, too long or
  not clean Unicode; an unknown field, an unknown type) after a prefix of a simulated
  match: the API's check of it (``validate_event(ev, "event")``), the record's strict
  replay, the loader and ``chukker check``, each refusal as ``code: text``, verbatim.

Reports are hashed as the JSON the API sends (``json.dumps`` in the report's own key
order), so that a change of key order, of a float's spelling or of a value shows.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chukker.engine import EngineError, Match
from chukker.engine.simulate import default_setup, simulate, with_mounts
from chukker.record import RecordError, check, dumps, load_path, loads, replay, validate_event

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).with_name("frozen_reports.json")
MATCHES = 2000
#: the simulated matches' lengths in turn (300: to the end of the match, most often)
LENGTHS = (16, 300, 60, 300, 120)
#: the committee variants of ``benchmarks/replay.py``
VARIANTS: list[dict[str, Any]] = [
    {},
    {"split_periods": True, "warning_horn": True},
    {"tiebreak": "shootout"},
    {"periods": "six", "tiebreak": "shootout", "shootout_players": "one"},
]


def sha(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def refusal(e: Exception) -> str:
    return f"{type(e).__name__} {getattr(e, 'code', '?')}: {e}"


def example_paths() -> list[Path]:
    ex = ROOT / "examples"
    return sorted([*ex.glob("*.json"), *ex.glob("*.toml"), *ex.glob("tournament/matches/*.json")])


def example_reports(path: Path) -> list[Any]:
    record = load_path(path)
    m = Match.from_record({**record, "events": []})
    events = record.get("events") or []
    out: list[Any] = []
    for k, ev in enumerate(events):
        try:
            m.apply(ev)
        except EngineError as e:
            out.append(refusal(e))
            continue
        t = round(ev["at"] * 1000)
        out.append(m.report(t))
        nxt = round(events[k + 1]["at"] * 1000) if k + 1 < len(events) else t + 600_000
        out.append(m.report((t + nxt) // 2))
    out.append(replay(record))
    out.append([refusal(e) for e in check(record)])
    return out


def simulated(i: int) -> dict[str, Any]:
    """Simulated match ``i``: its variant, length, mounts and last event follow from ``i``."""
    rng = random.Random(46_000 + i)
    setup = default_setup(**VARIANTS[i % len(VARIANTS)])
    events = simulate(setup, rng, LENGTHS[i % len(LENGTHS)])
    if i % 10 == 3:
        setup, events = with_mounts(setup, events, every_player=i % 20 == 3)
    if i % 7 == 2 and events:
        events.append({"at": events[-1]["at"], "type": "undo",
                       "event": rng.randrange(1, len(events) + 1)})
    doc = setup.to_dict()
    doc["events"] = events
    return doc


def match_entry(i: int) -> list[str]:
    doc = simulated(i)
    out = [sha(doc["events"])[:16]]  # the simulation's own drift, told apart
    try:
        out.append(sha(replay(doc)))
    except (RecordError, EngineError) as e:
        out.append(refusal(e))
    if i % 5 == 1 and doc["events"]:
        mid = round(doc["events"][len(doc["events"]) // 2]["at"] * 1000) + 1
        out.append(sha(replay(doc, at_ms=mid)))
    return out


#: one event of each type with every one of its fields (the fields' good values)
FULL: list[dict[str, Any]] = [
    {"type": "bowl_in"},
    {"type": "whistle", "reason": "ball out", "spot": [50, 25], "source": "audio"},
    {"type": "goal", "team": "A", "player": 1, "two_point": True},
    {"type": "foul", "team": "B", "player": 2, "penalty": "5b", "clause": "13b", "card": "yellow",
     "spot": [40.5, 20], "disabled": 2, "removed": 3, "substitute": True, "equipment": False,
     "mount": False, "for_periods": 1},
    {"type": "free_hit"},
    {"type": "timeout", "reason": "injury", "team": "A", "player": 3, "spot": [10, 10]},
    {"type": "forfeit", "team": "B"},
    {"type": "shootout_order", "first": "A", "order": {"A": [1, 2, 3], "B": [3, 2, 1]}},
    {"type": "shot", "team": "A", "player": 1, "result": "goal", "reached_end_wall": True},
    {"type": "move_to_15"},
    {"type": "undo", "event": 1},
    {"type": "substitute", "team": "A", "out": 1, "in": 4},
    {"type": "designate", "team": "B", "player": 1},
    {"type": "return", "team": "A", "player": 2},
    {"type": "clock", "remaining": 120.5, "reason": "late whistle"},
    {"type": "mount", "team": "A", "player": 1, "mount": "a1", "umpire_consent": True,
     "swap": False},
    {"type": "mount_out", "team": "A", "mount": "a2", "reason": "injury"},
]
#: the values every field is given in turn
BAD: list[Any] = [
    None, True, False, 0, -1, 1, 2.0, 2.5, 3, 99, 100, 1e300, -0.5, 10**12, "", "x", "A", "5A",
    "Ｂ", "e\u0301", "a" * 300, "\ud800", [], [1], [50, 60], [-1, 0], {}, {"A": [1]},
]


def mutants() -> Iterator[dict[str, Any]]:
    for full in FULL:
        yield {"at": 0.5, **full}  # the good one
        base = {"at": 0.5, **full}
        for key in ["at", *full]:
            if key == "type":
                continue
            yield {k: v for k, v in base.items() if k != key}
            for v in BAD:
                yield {**base, key: v}
        yield {**base, "colour": "red"}
        yield {**base, "type": str(full["type"]).upper()}
    for typ in (None, 5, True, "gool", "", ["goal"], "undo\u0301"):
        yield {"at": 0.5, "type": typ}
    yield {"at": 0.5}
    yield {"type": "goal", "team": "A"}
    yield {"at": "0.5", "type": "whistle"}
    yield {"at": -3.25, "type": "whistle"}


#: the prefixes of a simulated match (with mounts) that the bad events follow
CONTEXTS = (0, 1, 9, 24, 40)


def bad_entries() -> list[list[str]]:
    """For each of :func:`mutants`, in order: the API's check, the strict replay, the
    loader and ``chukker check`` (``=``: the same as the one before)."""
    doc = simulated(13)
    events = doc["events"]
    out = []
    for n, ev in enumerate(mutants()):
        upto = CONTEXTS[n % len(CONTEXTS)]
        prefix = events[:upto]
        last = prefix[-1]["at"] if prefix else 0
        if isinstance(ev.get("at"), (int, float)) and type(ev["at"]) is not bool:
            ev = {**ev, "at": last + ev["at"] if ev["at"] >= 0 else ev["at"]}
        rec = {**doc, "events": [*prefix, ev]}
        row = []
        try:
            row.append("ok " + sha(validate_event(ev, "event"))[:16])
        except RecordError as e:
            row.append(refusal(e))
        try:
            row.append(sha(replay(rec)))
        except (RecordError, EngineError) as e:
            row.append(refusal(e))
        try:
            row.append("ok " + sha(loads(dumps(rec)))[:16])
        except RecordError as e:
            row.append(refusal(e))
        row.append(" | ".join(refusal(e) for e in check(rec)))
        out.append([row[0], *("=" if row[k] == row[k - 1] else row[k] for k in range(1, 4))])
    return out


def corpus() -> dict[str, Any]:
    return {
        "examples": {str(p.relative_to(ROOT)): sha(example_reports(p)) for p in example_paths()},
        "matches": [match_entry(i) for i in range(MATCHES)],
        "bad": bad_entries(),
    }
