"""The live POST's engine share (issue 46): the time from the decoded body to the folded
state, per event.

For each event of simulated matches (``benchmarks/replay.py``'s records), in order, what
``POST /api/matches/{id}/events`` does between the body FastAPI decoded and the state it
stores: the API's check of the event (``chukker.web.api.routes.check_event``: its type,
then the record's definitions, a normalised copy), the time stamped on it, and the
live :class:`~chukker.engine.Match`'s ``apply`` (the fold on a copy of the state, kept
only when accepted). Nothing of the service around it (the store, the notices, NATS).
CPU time, best of ``--repeat``, in microseconds an event, with the two parts apart.

    python benchmarks/live_share.py [--matches 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import msgspec

from chukker.engine import NATIVE, Match
from chukker.engine.simulate import default_setup
from chukker.web.api.routes import check_event, checked_event

sys.path.insert(0, str(Path(__file__).resolve().parent))
from replay import VARIANTS, best, build


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--matches", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=2026)
    a = ap.parse_args()
    texts = build(a.matches, a.seed)
    cases: list[tuple[Any, list[dict[str, Any]], list[dict[str, Any]]]] = []
    for i, t in enumerate(texts):
        events = json.loads(t)["events"]
        bodies = [{k: v for k, v in e.items() if k != "at"} for e in events]
        cases.append((default_setup(**VARIANTS[i % len(VARIANTS)]), events, bodies))
    n = sum(len(c[1]) for c in cases)

    def checks() -> None:
        for _, _, bodies in cases:
            for b in bodies:
                check_event(b)

    def applies() -> None:
        for setup, events, _ in cases:
            m = Match(setup)
            for e in events:
                m.apply(e)

    def both() -> None:
        for setup, events, bodies in cases:
            m = Match(setup)
            for e, b in zip(events, bodies, strict=True):
                body, as_class = checked_event(b)  # checked and typed in one step
                ev = {**body, "at": e["at"]}  # stamped, as the service does
                m.apply(ev, typed=msgspec.structs.replace(as_class, at=e["at"]))

    gc.collect()
    gc.freeze()
    t_check, t_apply, t_both = best(checks, a.repeat), best(applies, a.repeat), best(both, a.repeat)
    gc.unfreeze()
    print(f"engine: {'compiled (mypyc)' if NATIVE else 'pure Python'}; {a.matches} matches, "
          f"{n} events; load {os.getloadavg()[0]:.1f}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"check_event        : {t_check / n * 1e6:6.2f} us an event")
    print(f"Match.apply        : {t_apply / n * 1e6:6.2f} us an event")
    print(f"body to state      : {t_both / n * 1e6:6.2f} us an event")


if __name__ == "__main__":
    main()
