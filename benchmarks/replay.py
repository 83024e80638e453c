"""Replay throughput of the engine against ``json.loads`` of the same records.

Generates N legal matches of about 300 events (the engine's own simulator),
serialises them as canonical JSON, then times, in the same run and on one core:

* baseline: ``json.loads`` of every record's text;
* engine:  validating each record's header and replaying all its events to the
  final report (``chukker.record.replay(strict=False)``), from the parsed dicts;
* strict:  the same, each event first checked against the record's definitions
  (``chukker.record.replay``: what ``chukker replay`` and the loader do).

Prints events/s (of CPU time) and the ratio engine/json. Targets (issue 2): at least 300,000
events/s and no more than 3x the cost of parsing the JSON.

    python benchmarks/replay.py [--matches 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import time

from chukker.engine.simulate import default_setup, simulate
from chukker.record import dumps, replay


def build(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    variants = [
        {},
        {"split_periods": True, "warning_horn": True},
        {"tiebreak": "shootout"},
        {"periods": "six", "tiebreak": "shootout", "shootout_players": "one"},
    ]
    texts = []
    for i in range(n):
        setup = default_setup(**variants[i % len(variants)])
        doc = setup.to_dict()
        doc["events"] = simulate(setup, random.Random(rng.random()), 300)
        texts.append(dumps(doc))
    return texts


def best(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    """The best of ``repeat`` runs, in seconds of this process's CPU time: on a machine
    shared with other work, wall-clock time counts the others' turns too."""
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    t0 = time.perf_counter()
    texts = build(a.matches, a.seed)
    docs = [json.loads(t) for t in texts]
    n_events = sum(len(d["events"]) for d in docs)
    print(
        f"generated {a.matches} matches, {n_events} events "
        f"({n_events / a.matches:.0f} per match) in {time.perf_counter() - t0:.1f} s"
    )

    # the 10,000 parsed records are input, not garbage: keep the collector from
    # rescanning them during both measurements (each still pays for its own objects)
    gc.collect()
    gc.freeze()
    t_json = best(lambda: [json.loads(t) for t in texts], a.repeat)
    t_engine = best(lambda: [replay(d, strict=False) for d in docs], a.repeat)
    t_strict = best(lambda: [replay(d) for d in docs], a.repeat)
    eps = n_events / t_engine
    print(f"json.loads : {t_json:8.3f} s  {n_events / t_json:12,.0f} events/s")
    print(f"engine     : {t_engine:8.3f} s  {eps:12,.0f} events/s")
    print(f"strict     : {t_strict:8.3f} s  {n_events / t_strict:12,.0f} events/s"
          f"  ({t_strict / t_json:.2f}x json.loads; events checked against the definitions)")
    print(f"ratio engine/json.loads: {t_engine / t_json:.2f}x  (target <= 3x)")
    print(f"engine events/s: {eps:,.0f}  (target >= 300,000)")


if __name__ == "__main__":
    main()
