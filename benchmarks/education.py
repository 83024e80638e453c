"""Education: the cost of drawing and grading a test, against the engine work it holds.

A test's pool includes 16 timing questions generated for its seed, each answered
by replaying a generated match in the engine. Measured in the same run:

* ``draw`` of a 20-question umpire test (a new seed each time: the pool, 16 timing
  situations generated and replayed, the play questions cached) and ``grade``;
* the baseline: replaying the same 16 generated records with ``chukker.engine.replay``
  alone (the engine work a draw cannot avoid).

Prints tests per second and the ratio draw/baseline (CPU time, best of ``--repeat``).

    python benchmarks/education.py [--tests 50] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import time

from chukker.education.playq import play_questions
from chukker.education.quiz import TIMING_POOL, QuizSpec, draw, grade
from chukker.education.timing import kinds_for, make
from chukker.engine import Setup, replay

ED = "uspa-arena-2026"


def _draws(n: int) -> float:
    t0 = time.process_time()
    for seed in range(n):
        q = draw(QuizSpec("umpire", ED, "es", 20, seed))
        grade(q, [i.correct for i in q.items])
    return time.process_time() - t0


def _baseline(n: int) -> float:
    records = []
    kinds = kinds_for(ED)
    for seed in range(n):
        rng = random.Random(f"timing:{ED}:{seed}")
        records += [make(kinds[i % len(kinds)], ED, rng) for i in range(TIMING_POOL)]
    t0 = time.process_time()
    for s in records:
        replay(Setup.from_dict(s.record), list(s.record["events"]), s.at_ms)
    return time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    play_questions()  # built once per process, cached
    d = min(_draws(a.tests) for _ in range(a.repeat))
    b = min(_baseline(a.tests) for _ in range(a.repeat))
    print(f"draw + grade a 20-question test: {a.tests / d:,.0f} tests/s "
          f"({1000 * d / a.tests:.1f} ms each)")
    print(f"baseline, replaying its {TIMING_POOL} generated records: "
          f"{1000 * b / a.tests:.1f} ms per test")
    print(f"ratio draw/baseline: {d / b:.1f}x")


if __name__ == "__main__":
    main()
