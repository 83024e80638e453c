"""Replay throughput of the engine against ``json.loads`` of the same records.

Generates legal matches with the engine's own simulator, serialises them as canonical
JSON, then times, in the same run and on one core (CPU time, best of ``--repeat``):

* baseline: ``json.loads`` of every record's text;
* engine:  validating each record's header and replaying all its events to the
  final report (``chukker.record.replay(strict=False)``), from the parsed dicts;
* strict:  the same, each event first checked against the record's definitions
  (``chukker.record.replay``: what ``chukker replay`` and the loader do);
* short:   ``strict`` on records of 16 events (the education benchmark's size), where
  the header, the set-up and the report (with ``allowed``) weigh most; a set-up is kept
  for a header read before (``chukker.record.io.known_setup``), and the records' four
  headers recur, so ``short new`` times the same records each with a header of its own;
* text:    from the record's text to its report, as ``chukker replay`` does it
  (``chukker.record.replay_text``: the events decoded straight into their classes,
  issue 46), against ``json.loads`` alone and against ``json.loads`` then ``strict``
  (how a text was replayed before; a revision without ``replay_text`` runs that).

It says which engine ran (``compiled``: the mypyc build, ``chukker.engine.NATIVE``;
``pure``: the Python source, e.g. ``CHUKKER_PURE_PYTHON=1``). Targets (issue 20):
strict at least 1,000,000 events/s and no more than 1.5x ``json.loads``; short records
no more than 3x. Last runs (2026-12-02 05:53-06:12 UTC, five runs, load 0.7-3.9;
compiled): strict 953,000-1,149,000 events/s = 0.74-0.86x ``json.loads`` (which itself
ran at 787,000-915,000 events/s; 1,067,000 and 1,149,000 with ``--repeat 5`` on the
quiet machine), short records 2.07-2.59x; at 03:51-04:15, on a machine 25-35 % slower,
strict was 563,000-802,000 events/s (0.79-0.99x); the README's *Figures* has
them, ``docs/engine.md`` ("Speed") the instruction counts and where the time goes.
On 2026-12-06 (05:42-05:52 UTC, load 0.9-1.1, compiled) short records ran at 1.31-1.41x
(issue 46's target: 1.5x; ``docs/engine.md``, "The short record under 1.5x"), strict
replay at 0.84-1.00x; on another machine (an AMD EPYC, 08:05-08:17 UTC, load 0.4-1.0), where
that revision gave 1.15-1.28x and 1.92-2.07x, the free-text check and the fold's ``Final``
constants gave strict replay 1.01-1.07x and short records 1.76-1.93x (``docs/engine.md``,
"Strict replay: the free texts, and constants read natively");
on a faster AMD EPYC (2026-12-06 10:02-10:15 UTC, load 1.0), the header's ``marshal``,
the probes built once and the native pending free hit gave strict 0.76x-0.82x and short
records 1.57x-1.69x at ``--matches 1000 --short 5000`` (``3761c42``: 0.77x-0.93x,
1.59x-1.89x), strict 0.79x and short 1.40x with the defaults, and with ``--dropped``
0.99x-1.00x and 1.58x-1.62x (``docs/engine.md``, "The short record: the header's
marshal, probes built once, a native pending free hit, and the collector");
with the collector waiting while a record is replayed (2026-12-06 19:00 UTC, an AMD
EPYC, load 0.3-0.7) strict 0.52x-0.61x and short records 0.62x-0.74x with the defaults,
the same from a plain install of the sdist (``docs/engine.md``, "The collector waits
for a replay"); ``benchmarks/replay_msgspec.py`` measures msgspec as the record's typed decoder.

    python benchmarks/replay.py [--matches 10000] [--short 20000] [--repeat 3]
    python benchmarks/replay.py --club [--matches 4000]
    python benchmarks/replay.py --undo [--matches 2000]
    python benchmarks/replay.py --fold [--matches 600]
    python benchmarks/replay.py --dropped [--matches 300] [--short 5000]
    python benchmarks/replay.py --collector-off [--matches 1000] [--short 5000]

``--collector-off`` (issue 46) runs the main measurements with the cyclic garbage
collector off, to tell what it takes of each side: every parsed record and every report
is kept until the run ends, and the collector reads them again as they accumulate.

``--club`` (issue 33) replays the same records twice: under their base edition, and as a
club's edition of it (``"rules": "club"``, a warning 20 s before the end and an injury
time-out of 901 s: values that keep every simulated record legal, and put the club's
citation on the warning horns). Target: club <= 1.05x base.

``--undo`` (issue 42) times, on the same folded records, an ``undo`` of one of the record's
goals (the fold's ``verify``: the refold without it, and the check that every later event
keeps its period and its restart of play) against the replay of the whole record, and the
same undo without the check. Target: undo <= 1.1x replay.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import random
import time
from collections.abc import Callable
from typing import Any

from chukker import record as _record
from chukker.engine import NATIVE
from chukker.engine.simulate import default_setup, simulate
from chukker.record import dumps, replay


def _old_text(text: str) -> dict[str, Any]:
    return replay(json.loads(text))


#: from text to report (issue 46); before it, ``json.loads`` then ``replay``
replay_text: Callable[[str], dict[str, Any]] = getattr(_record, "replay_text", _old_text)

VARIANTS = [
    {},
    {"split_periods": True, "warning_horn": True},
    {"tiebreak": "shootout"},
    {"periods": "six", "tiebreak": "shootout", "shootout_players": "one"},
]


def build(n: int, seed: int, events: int = 300) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for i in range(n):
        setup = default_setup(**VARIANTS[i % len(VARIANTS)])
        doc = setup.to_dict()
        doc["events"] = simulate(setup, random.Random(rng.random()), events)
        texts.append(dumps(doc))
    return texts


def distinct(texts: list[str]) -> list[str]:
    """The same records, each header its own (team A's name numbered): a header is read
    and its set-up built each time, none kept from a record before (issue 46)."""
    out = [t.replace('"name": "Blue"', f'"name": "Blue {i}"', 1) for i, t in enumerate(texts)]
    assert len({t[:t.index('"events"')] for t in out}) == len(out)
    return out


def best(fn: Callable[[], object], repeat: int) -> float:
    """The best of ``repeat`` runs, in seconds of this process's CPU time: on a machine
    shared with other work, wall-clock time counts the others' turns too."""
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def measure(texts: list[str], repeat: int, collector: bool = True,
            ) -> tuple[int, float, float, float, float, float]:
    """Events, and the seconds of ``json.loads``, the engine, strict replay, from text to
    report, and ``json.loads`` then strict replay (``collector=False``: with the cyclic
    garbage collector off, to tell its share on each side)."""
    docs = [json.loads(t) for t in texts]
    n_events = sum(len(d["events"]) for d in docs)
    # the parsed records are input, not garbage: keep the collector from rescanning
    # them during the measurements (each still pays for its own objects)
    gc.collect()
    gc.freeze()
    if not collector:
        gc.disable()
    t_json = best(lambda: [json.loads(t) for t in texts], repeat)
    t_engine = best(lambda: [replay(d, strict=False) for d in docs], repeat)
    t_strict = best(lambda: [replay(d) for d in docs], repeat)
    t_text = best(lambda: [replay_text(t) for t in texts], repeat)
    t_old = best(lambda: [_old_text(t) for t in texts], repeat)
    gc.enable()
    gc.unfreeze()
    return n_events, t_json, t_engine, t_strict, t_text, t_old


CLUB = {"base": "uspa-arena-2026", "name": "Bench club", "warning_at_s": 20,
        "injury_timeout_max_s": 901}


def as_club(text: str) -> str:
    doc = json.loads(text)
    doc["rules"] = "club"
    doc["edition"] = CLUB
    return dumps(doc)


def club(a: argparse.Namespace) -> None:
    texts = build(a.matches, a.seed)
    clubs = [as_club(t) for t in texts]
    base = [json.loads(t) for t in texts]
    mine = [json.loads(t) for t in clubs]
    n = sum(len(d["events"]) for d in base)
    gc.collect()
    gc.freeze()
    t_base, t_club = [], []
    for _ in range(a.repeat):  # interleaved, so that the machine's mood is shared
        t_base.append(best(lambda: [replay(d) for d in base], 1))
        t_club.append(best(lambda: [replay(d) for d in mine], 1))
    gc.unfreeze()
    b, c = min(t_base), min(t_club)
    print(f"engine: {'compiled (mypyc)' if NATIVE else 'pure Python'}; {a.matches} matches, "
          f"{n} events")
    print(f"base edition : {b:8.3f} s  {n / b:12,.0f} events/s")
    print(f"club edition : {c:8.3f} s  {n / c:12,.0f} events/s")
    print(f"ratio club/base: {c / b:.3f}x  (target <= 1.05x)")


def undo(a: argparse.Namespace) -> None:
    from chukker.engine import EngineError
    from chukker.engine import fold as fold_mod
    from chukker.engine.fold import Fold

    texts = build(a.matches, a.seed)
    rng = random.Random(a.seed)
    cases: list[tuple[Any, list[dict[str, Any]], Fold, dict[str, Any]]] = []
    for i, text in enumerate(texts):
        doc = json.loads(text)
        events = doc["events"]
        goals = [k for k, e in enumerate(events, 1) if e["type"] == "goal"]
        if not goals:
            continue
        setup = default_setup(**VARIANTS[i % len(VARIANTS)])  # type: ignore[arg-type]
        f = Fold(setup)
        f.feed(events)
        ev = {"at": events[-1]["at"], "type": "undo", "event": rng.choice(goals)}
        cases.append((setup, events, f, ev))
    n = sum(len(c[1]) for c in cases)

    def replays() -> None:
        for setup, events, _, _ in cases:
            Fold(setup).feed(events)

    def undos() -> None:
        for _, _, f, ev in cases:
            with contextlib.suppress(EngineError):
                f.verify(ev)

    check = fold_mod.Later.check
    gc.collect()
    gc.freeze()
    t_replay, t_undo, t_bare = [], [], []
    for _ in range(a.repeat):  # interleaved, so that the machine's mood is shared
        t_replay.append(best(replays, 1))
        t_undo.append(best(undos, 1))
        fold_mod.Later.check = lambda self, after, upto: None  # type: ignore[method-assign]
        try:
            t_bare.append(best(undos, 1))
        finally:
            fold_mod.Later.check = check  # type: ignore[method-assign]
    gc.unfreeze()
    r, u, b = min(t_replay), min(t_undo), min(t_bare)  # seconds
    print(f"engine: {'compiled (mypyc)' if NATIVE else 'pure Python'}; {len(cases)} matches, "
          f"{n} events, one goal undone in each")
    print(f"replay          : {r:8.3f} s")
    print(f"undo, checked   : {u:8.3f} s")
    print(f"undo, unchecked : {b:8.3f} s")
    print(f"ratio undo/replay: {u / r:.3f}x  (target <= 1.1x); the check alone: {u / b:.3f}x")


def fold(a: argparse.Namespace) -> None:
    """The fold alone on typed events, gc off (issue 46): what a change inside the
    handlers moves, without the reader, the report or the collector."""
    from chukker.engine.fold import Fold
    from chukker.engine.state import INF
    from chukker.record.io import header_and_setup, typed_events

    texts = build(a.matches, a.seed)
    docs = [json.loads(t) for t in texts]
    n = sum(len(d["events"]) for d in docs)
    pairs = [(header_and_setup(d)[1], typed_events(d["events"])[0]) for d in docs]

    def folds() -> None:
        for setup, events in pairs:
            Fold(setup).feed(events, until_ms=INF)

    def loads() -> None:
        for t in texts:
            json.loads(t)

    gc.disable()
    try:
        t_fold, t_json = best(folds, a.repeat), best(loads, a.repeat)
    finally:
        gc.enable()
    print(f"engine: {'compiled (mypyc)' if NATIVE else 'pure Python'}; {n} events")
    print(f"fold of typed events: {t_fold / n * 1e9:7.1f} ns an event "
          f"({t_fold / t_json:.2f}x json.loads of the same records, gc off: "
          f"{t_json / n * 1e9:.1f} ns)")


def dropped(a: argparse.Namespace) -> None:
    """Strict replay of each parsed record with its report dropped at once, against
    ``json.loads`` of each text dropped at once (issue 46): the engine's own work, without
    the collector's full collections over everything the main measurement keeps, whose
    thresholds fall differently from run to run (``docs/engine.md``, "The short record:
    ... and the collector"). Long records, then short ones."""
    for label, texts in (("long", build(a.matches, a.seed)),
                         ("short", build(a.short, a.seed + 1, 16))):
        docs = [json.loads(t) for t in texts]
        n = sum(len(d["events"]) for d in docs)
        gc.collect()
        gc.freeze()

        def replays(docs: list[Any] = docs) -> None:
            for d in docs:
                replay(d)

        def loads(texts: list[str] = texts) -> None:
            for t in texts:
                json.loads(t)

        try:
            t_replay, t_json = best(replays, a.repeat), best(loads, a.repeat)
        finally:
            gc.unfreeze()
        print(f"{label:5s} dropped: strict {t_replay / len(docs) * 1e6:7.1f} us a record "
              f"({t_replay / n * 1e9:.0f} ns an event), {t_replay / t_json:.2f}x json.loads "
              f"({t_json / len(docs) * 1e6:.1f} us)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--club", action="store_true",
                    help="club edition against its base on the same records (issue 33)")
    ap.add_argument("--undo", action="store_true",
                    help="an undo with its check against a replay (issue 42)")
    ap.add_argument("--fold", action="store_true",
                    help="the fold alone on typed events, gc off (issue 46)")
    ap.add_argument("--dropped", action="store_true",
                    help="each report and each parsed record dropped at once (issue 46)")
    ap.add_argument("--collector-off", action="store_true",
                    help="the garbage collector off during the measurements: its share")
    ap.add_argument("--matches", type=int, default=10_000)
    ap.add_argument("--short", type=int, default=20_000, help="records of 16 events")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    if a.club:
        club(a)
        return
    if a.undo:
        undo(a)
        return
    if a.fold:
        fold(a)
        return
    if a.dropped:
        dropped(a)
        return
    t0 = time.perf_counter()
    texts = build(a.matches, a.seed)
    shorts = build(a.short, a.seed + 1, 16)
    print(
        f"engine: {'compiled (mypyc)' if NATIVE else 'pure Python'}; generated {a.matches} "
        f"matches and {a.short} short records in {time.perf_counter() - t0:.1f} s"
    )
    on = not a.collector_off
    n, t_json, t_engine, t_strict, t_text, t_old = measure(texts, a.repeat, on)
    print(f"{n} events ({n / a.matches:.0f} per match)"
          + ("" if on else "; the garbage collector off during the measurements"))
    print(f"json.loads : {t_json:8.3f} s  {n / t_json:12,.0f} events/s")
    print(f"engine     : {t_engine:8.3f} s  {n / t_engine:12,.0f} events/s"
          f"  ({t_engine / t_json:.2f}x json.loads)")
    print(f"strict     : {t_strict:8.3f} s  {n / t_strict:12,.0f} events/s"
          f"  ({t_strict / t_json:.2f}x json.loads; events checked against the definitions)")
    print(f"text       : {t_text:8.3f} s  {n / t_text:12,.0f} events/s"
          f"  ({t_text / t_json:.2f}x json.loads; json.loads then strict: "
          f"{t_old / t_json:.2f}x, {t_old / t_text:.2f}x as long)")
    sn, s_json, _, s_strict, s_text, s_old = measure(shorts, a.repeat, on)
    print(f"short      : {s_strict / a.short * 1e6:8.1f} us a record of {sn / a.short:.0f} events"
          f"  ({s_strict / s_json:.2f}x json.loads: {s_json / a.short * 1e6:.1f} us)")
    print(f"short text : {s_text / a.short * 1e6:8.1f} us from text to report"
          f"  ({s_text / s_json:.2f}x json.loads; json.loads then strict: "
          f"{s_old / s_json:.2f}x)")
    _, u_json, _, u_strict, u_text, _ = measure(distinct(shorts), a.repeat, on)
    print(f"short new  : {u_strict / a.short * 1e6:8.1f} us, every header new"
          f"  ({u_strict / u_json:.2f}x json.loads: {u_json / a.short * 1e6:.1f} us); "
          f"from text {u_text / a.short * 1e6:.1f} us ({u_text / u_json:.2f}x)")
    print(f"strict events/s: {n / t_strict:,.0f}  (target >= 1,000,000)")
    print(f"ratio strict/json.loads: {t_strict / t_json:.2f}x  (target <= 1.5x)")
    print(f"ratio short/json.loads: {s_strict / s_json:.2f}x  (target <= 3x)")


if __name__ == "__main__":
    main()
