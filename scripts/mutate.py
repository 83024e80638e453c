"""A fixed list of one-point mutants of the engine, run against the engine's tests.

Each mutant changes one spot of ``src/chukker/engine/`` (a ``>=`` for a ``>``, a rounding,
the wrong period, a check left out: the bugs a reviewer would miss). For each, the
package is copied to a temporary folder, the one change applied there (never to the
worktree), and the engine's tests run against the copy (``pytest -x``). A mutant is
*killed* when the tests fail. Prints each mutant's fate and the kill rate (target: at
least 95%, issue 25).

    python scripts/mutate.py [--jobs 2] [--only NAME] [--list] [-- extra pytest args]

A mutant whose original text is no longer found exactly once is reported ``stale``
(the code moved: update its line here) and counts as a failure of the script.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "src" / "chukker" / "engine"
TESTS = ["tests/engine", "tests/mounts"]
TIMEOUT_S = 900


@dataclass(frozen=True, slots=True)
class Mutant:
    name: str
    file: str  # under src/chukker/engine/
    old: str
    new: str


MUTANTS: tuple[Mutant, ...] = (
    # Rule 5: periods, split, warning horn, intervals
    Mutant("split-strict", "clock.py",
           "self.length - self.remaining >= self.split_after:",
           "self.length - self.remaining > self.split_after:"),
    Mutant("split-goal-strict", "penalties.py",
           "and self.length - self.remaining_at(t) >= self.split_after",
           "and self.length - self.remaining_at(t) > self.split_after"),
    Mutant("warning-sounded-any-period", "clock.py",
           "h[1] == self.period and h[2] == HORN_WARNING", "h[2] == HORN_WARNING"),
    Mutant("warning-correction-never-due-again", "clock.py",
           "                self.warning_done = False", "                pass"),
    Mutant("warning-deadline-inclusive", "clock.py",
           "            if self.warn and not self.warning_done and self.remaining > self.warn_at:",
           "            if self.warn and not self.warning_done and self.remaining >= self.warn_at:"),  # noqa: E501
    Mutant("interval-inclusive", "clock.py",
           "        if t < self.interval_end:", "        if t <= self.interval_end:"),
    Mutant("tie-goes-to-first", "clock.py",
           "        elif self.total(a) != self.total(b):",
           "        elif self.total(a) >= self.total(b):"),
    Mutant("extra-interval-first", "clock.py",
           "iv(self.ed.extra_between_interval_ms.value))",
           "iv(self.ed.extra_first_interval_ms.value))"),
    # Rule 16: injury time
    Mutant("injury-15-min-inclusive", "clock.py",
           '"deadline": t + limit + 1,', '"deadline": t + limit,'),
    # Rule 5: late free hit reset
    Mutant("late-reset-inclusive", "penalties.py",
           'if rem < reset and self.ed.has("late_penalty_reset"):',
           'if rem <= reset and self.ed.has("late_penalty_reset"):'),
    # restarts between periods
    Mutant("restart-this-period", "report.py",
           "return max(self.period + (1 if between else 0), 1)", "return max(self.period, 1)"),
    # Rule 17: handicap rounding
    Mutant("handicap-bankers-rounding", "setup.py",
           "return math.floor(Fraction(h * n, base) + Fraction(1, 2))",
           "return round(Fraction(h * n, base))"),
    Mutant("handicap-floor", "setup.py",
           "return math.floor(Fraction(h * n, base) + Fraction(1, 2))",
           "return math.floor(Fraction(h * n, base))"),
    # Penalty 6
    Mutant("p6-scored-while-pending", "penalties.py",
           "scored = self.pending is None and self.fh_goal is not None",
           "scored = self.fh_goal is not None"),
    Mutant("p6-free-hit-goal-kept", "penalties.py",
           "        self.last_free_hit = p\n        self.pending = None\n        self.fh_open = True\n"  # noqa: E501
           "        self.fh_goal = None",
           "        self.last_free_hit = p\n        self.pending = None\n        self.fh_open = True"),  # noqa: E501
    # Penalty 7
    Mutant("p7-above-or-equal", "penalties.py",
           "above = [p for p in eligible if p.handicap > h]",
           "above = [p for p in eligible if p.handicap >= h]"),
    Mutant("p7-substitute-and-removal", "penalties.py",
           "        if sub is not None and sub is not False:\n            if chosen is not None:",
           "        if False:\n            if chosen is not None:"),
    # Penalty 10 and the roster period
    Mutant("p10-from-this-period", "penalties.py",
           "until = self.roster_period() + n", "until = self.period + n"),
    Mutant("roster-shootout-not-a-period", "roster.py",
           "nxt = st is Status.INTERVAL or st is Status.PRE_MATCH or st is Status.SHOOTOUT",
           "nxt = st is Status.INTERVAL or st is Status.PRE_MATCH"),
    Mutant("suspension-inclusive", "roster.py",
           'if self.roster_period() < o["until_period"]:',
           'if self.roster_period() <= o["until_period"]:'),
    # Penalty 9
    Mutant("double-forfeit-winner", "penalties.py",
           "        if len(self.forfeited) == 2:", "        if len(self.forfeited) == 3:"),
    # time
    Mutant("ms-truncated", "state.py", "    ms = int(x + 0.5)", "    ms = int(x)"),
    Mutant("p7-nearest-highest", "penalties.py",
           "nearest = min(p.handicap for p in above)", "nearest = max(p.handicap for p in above)"),
    # shootout
    Mutant("move-to-15-early", "shootout.py",
           "                if len(att) < need:", "                if len(att) < need - 1:"),
    # mounts (record 1.2)
    Mutant("mount-in-play", "mounts.py",
           "        if self.final or self.status is _IN_PLAY:\n"
           '            self.check_dead_ball("a change of mounts")',
           "        if self.final:\n"
           '            self.check_dead_ball("a change of mounts")'),
    Mutant("mount-teammate", "mounts.py",
           "                if self.may_play(team, p):\n"
           '                    raise Refused("mount_ridden_by_teammate"',
           "                if not self.may_play(team, p):\n"
           '                    raise Refused("mount_ridden_by_teammate"'),
    Mutant("mount-shootout-any", "mounts.py",
           "                if last not in self.ridden[team].get(mount, ()):",
           "                if False:"),
    Mutant("mount-out-no-wait", "mounts.py",
           "                    self.mount_wait[(team, p)] = (mount, clause)",
           "                    pass"),
    Mutant("mount-wait-unchecked", "clock.py",
           "        if self.mount_wait:\n            self.check_mounted()\n        st = self.status",  # noqa: E501
           "        st = self.status"),
    Mutant("mount-p8-equipment-swapped", "mounts.py",
           '"reason": "equipment" if equipment else "penalty_8",',
           '"reason": "penalty_8" if equipment else "equipment",'),
    Mutant("mount-periods-not-at-start", "mounts.py",
           "        super().start_period(t)\n        if self.mounts_kept:",
           "        super().start_period(t)\n        if False:"),
    Mutant("mount-two-teams", "setup.py",
           "        if m.id in ids:", "        if m.id in ids and False:"),
    Mutant("mount-runaway-rule-2", "mounts.py",
           '"runaway": "Rule 16"', '"runaway": "Rule 2"'),
)


def apply(m: Mutant, src: Path) -> bool:
    """Apply ``m`` to the copy at ``src``; ``False`` if its text is not found exactly once."""
    path = src / "chukker" / "engine" / m.file
    text = path.read_text(encoding="utf-8")
    if text.count(m.old) != 1:
        return False
    path.write_text(text.replace(m.old, m.new, 1), encoding="utf-8")
    return True


def run(m: Mutant, extra: list[str]) -> tuple[str, float]:
    """``killed``, ``survived`` or ``stale``, and the seconds it took."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"chukker-mutant-{m.name}-") as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(ROOT / "src" / "chukker", src / "chukker",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        if not apply(m, src):
            return "stale", time.monotonic() - t0
        env = dict(os.environ, PYTHONPATH=str(src), PYTHONDONTWRITEBYTECODE="1")
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
               "--no-header", "-o", "addopts=--import-mode=importlib", *TESTS, *extra]
        try:
            proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                                  timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return "killed", time.monotonic() - t0  # the tests hang: they notice it too
        # exit 1: a test failed (killed); 0: all passed (survived); other: an error, which
        # a mutant that breaks the import also causes: killed, since the tests notice
        fate = "survived" if proc.returncode == 0 else "killed"
        return fate, time.monotonic() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("extra", nargs="*", help="extra pytest arguments (after --)")
    a = ap.parse_args()
    mutants = [m for m in MUTANTS if not a.only or m.name in a.only]
    if a.list:
        for m in mutants:
            print(f"{m.name:38} {m.file}")
        return 0
    with ThreadPoolExecutor(max_workers=max(a.jobs, 1)) as pool:
        results = list(pool.map(lambda m: (m, *run(m, a.extra)), mutants))
    counts = {"killed": 0, "survived": 0, "stale": 0}
    for m, fate, secs in results:
        counts[fate] += 1
        print(f"{fate:9} {m.name:38} {m.file:14} {secs:5.1f} s")
    live = counts["killed"] + counts["survived"]
    rate = counts["killed"] / live if live else 0.0
    print(f"{counts['killed']} of {live} mutants killed: {rate:.0%} (target >= 95%)"
          + (f"; {counts['stale']} stale" if counts["stale"] else ""))
    return 0 if rate >= 0.95 and not counts["stale"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
