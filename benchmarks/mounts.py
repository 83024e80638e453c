"""Replay with mounts against the same records without them (issue 25).

Generates N legal matches (the engine's simulator), then the same matches with a
string of six mounts per team and a ``mount`` event for every player at every
period change (``chukker.engine.simulate.with_mounts``). Times, in the same run
and on one core, the replay of every record to its final report:

* baseline: the records without mounts;
* mounts:   the same records with mounts: every player mounts before the first period,
  then one player of each team changes at every period change (``--every-player``:
  all six change every time);

both with ``strict=False`` (the engine alone) and strict (each event checked against the
record's definitions, as ``chukker replay`` does). Prints the ratio mounts/baseline.
Target: at most 1.1x.

Issue 30 (record 1.3) adds a third set: the mounted records with a grooms' plan for
every player (the team's six mounts, shuffled), whose reports carry ``next_mount``;
it prints the ratio planned/mounts. Target: at most 1.05x.

    python benchmarks/mounts.py [--matches 2000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import gc
import random
import time

from chukker.engine.simulate import default_setup, simulate, with_mounts
from chukker.record import replay


def build(n: int, seed: int, every_player: bool = True) -> tuple[list[dict], list[dict]]:  # type: ignore[type-arg]
    rng = random.Random(seed)
    variants = [
        {},
        {"split_periods": True, "warning_horn": True},
        {"tiebreak": "shootout"},
        {"periods": "six", "tiebreak": "shootout", "shootout_players": "one"},
    ]
    plain, mounted = [], []
    for i in range(n):
        setup = default_setup(**variants[i % len(variants)])
        events = simulate(setup, random.Random(rng.random()), 300)
        listed, with_events = with_mounts(setup, events, every_player=every_player)
        plain.append({**setup.to_dict(), "events": events})
        mounted.append({**listed.to_dict(), "events": with_events})
    return plain, mounted


def planned(mounted: list[dict], seed: int) -> list[dict]:  # type: ignore[type-arg]
    """The same records with a plan for every player: the team's mounts, shuffled."""
    rng = random.Random(seed)
    out = []
    for d in mounted:
        teams = {}
        for t, doc in d["teams"].items():
            ids = [m["id"] for m in doc["mounts"]]
            teams[t] = {**doc, "plan": {str(p["no"]): rng.sample(ids, len(ids))
                                        for p in doc["players"]}}
        out.append({**d, "teams": teams})
    return out


def paired(fa, fb, repeat: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """The best of ``repeat`` runs of each, in CPU seconds, the two taken in turn so that
    the other engineers' load on a shared machine falls on both alike."""
    ta, tb = [], []
    for _ in range(repeat):
        for fn, times in ((fa, ta), (fb, tb)):
            gc.collect()
            t0 = time.process_time()
            fn()
            times.append(time.process_time() - t0)
    return min(ta), min(tb)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--every-player", action="store_true",
                    help="every player changes at every period change (default: one per team)")
    a = ap.parse_args()
    plain, mounted = build(a.matches, a.seed, a.every_player)
    n0 = sum(len(d["events"]) for d in plain)
    n1 = sum(len(d["events"]) for d in mounted)
    print(f"{a.matches} matches: {n0} events without mounts, {n1} with ({n1 - n0} mount events)")
    gc.collect()
    gc.freeze()
    for strict in (False, True):
        t0, t1 = paired(
            lambda s=strict: [replay(d, strict=s) for d in plain],
            lambda s=strict: [replay(d, strict=s) for d in mounted],
            a.repeat,
        )
        label = "strict" if strict else "engine"
        print(f"{label}: without {t0:.3f} s, with mounts {t1:.3f} s: ratio {t1 / t0:.3f}x "
              f"(target <= 1.1x)")
    plans = planned(mounted, a.seed)
    for strict in (False, True):
        t1, t2 = paired(
            lambda s=strict: [replay(d, strict=s) for d in mounted],
            lambda s=strict: [replay(d, strict=s) for d in plans],
            a.repeat,
        )
        label = "strict" if strict else "engine"
        print(f"{label}: with mounts {t1:.3f} s, with a plan (next_mount) {t2:.3f} s: "
              f"ratio {t2 / t1:.3f}x (target <= 1.05x)")

if __name__ == "__main__":
    main()
