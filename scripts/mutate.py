"""A fixed list of one-point mutants of the engine, run against the engine's tests.

Each mutant changes one spot of ``src/chukker/engine/`` (a ``>=`` for a ``>``, a rounding,
the wrong period, a clause's minutes, a "first" or "last", a check left out: the bugs a
reviewer would miss). For each, the package is copied to a temporary folder, the one change
applied there (never to the worktree), and the engine's tests (``tests/engine`` and
``tests/mounts``) run against the copy with ``pytest -x`` and the pure-Python engine. The
fate of a mutant is one of:

``killed``    a test failed (or the copy did not import: the tests notice that too);
``survived``  every test passed;
``timeout``   a test ran past the per-test timeout (pytest-timeout, :data:`TEST_TIMEOUT_S`)
              or the run past :data:`RUN_TIMEOUT_S`: a hang, reported as such, never a kill;
``stale``     its original text is no longer found exactly once (the code moved: rewrite
              its line here).

The kill rate is killed / (killed + survived + timeout). The script exits 0 only when it is
at least 95% (issue 25) and no mutant is stale (issue 32).

    python scripts/mutate.py [--jobs 2] [--only NAME] [--fast] [--list] [-- extra pytest args]

``--fast`` runs the fixed subset CI runs (``tests/engine/test_mutants.py``): the mutants
named in :data:`FAST`, each against its own few test files only (a few seconds each).
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
#: a single test never takes more than a few seconds, even on a loaded machine
TEST_TIMEOUT_S = 30
#: the whole run of one mutant (the engine's tests take about 10 s on one idle core)
RUN_TIMEOUT_S = 900
FATES = ("killed", "survived", "timeout", "stale")


@dataclass(frozen=True, slots=True)
class Mutant:
    name: str
    file: str  # under src/chukker/engine/ (``../rules/club.py``: another folder of the package)
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
    # Rule 17: handicap rounding ("one-half or more shall be rounded up")
    Mutant("handicap-bankers-rounding", "setup.py",
           "            return (2 * h * n + base) // (2 * base)",
           "            return round(h * n / base)"),
    Mutant("handicap-floor", "setup.py",
           "            return (2 * h * n + base) // (2 * base)",
           "            return h * n // base"),
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
           "nxt = st is S_INTERVAL or st is S_PRE_MATCH or st is S_SHOOTOUT",
           "nxt = st is S_INTERVAL or st is S_PRE_MATCH"),
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
           "        if self.final or (self.status is _IN_PLAY and not self.awaiting_bowl_in):",
           "        if self.final:"),
    Mutant("mount-teammate", "mounts.py",
           "                if self.may_play(team, p):\n                    if not swap:",
           "                if not self.may_play(team, p):\n                    if not swap:"),
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
           "        super().start_period(t, i)\n        if self.mounts_kept:",
           "        super().start_period(t, i)\n        if False:"),
    Mutant("mount-two-teams", "setup.py",
           "        if m.id in ids:", "        if m.id in ids and False:"),
    Mutant("mount-runaway-rule-2", "mounts.py",
           '"runaway": "Rule 16"', '"runaway": "Rule 2"'),
    # ------------------------------------------------ issue 32: the survivors of a run
    # made apart from this list (each held by a test in tests/engine/test_boundaries_32.py)
    Mutant("split-goal-after-the-split", "penalties.py",
           "            and not self.split_done\n            and self.length",
           "            and self.length"),
    Mutant("split-horn-every-stoppage", "clock.py",
           "if self.split and not self.split_done and self.length - self.remaining",
           "if self.split and self.length - self.remaining"),
    Mutant("mount-change-notice-at-2-min", "clock.py",
           "            if took > limit:", "            if took >= limit:"),
    Mutant("p7-designate-removed-player", "penalties.py",
           "eligible = [self.sheet[team][p] for p in self.playing(team)]",
           "eligible = [self.sheet[team][p] for p in self.field[team]]"),
    Mutant("mount-wait-removed-rider", "roster.py",
           "            if self.why_not(team, p) is None:\n"
           '                raise Refused("mount_change_needed"',
           "            if True:\n"
           '                raise Refused("mount_change_needed"'),
    Mutant("golden-goal-last-regular", "penalties.py",
           "if self.period > self.plan.count and self.status is not S_INTERVAL:",
           "if self.period >= self.plan.count and self.status is not S_INTERVAL:"),
    Mutant("mount-shootout-interval-any", "mounts.py",
           "if (st is _SHOOTOUT or st is _INTERVAL) and self.before_shootout():",
           "if st is _SHOOTOUT and self.before_shootout():"),
    Mutant("mount-stoppage-not-counted", "mounts.py",
           "        if st is _STOPPED or st is _IN_PLAY:  # a stoppage, or after a goal",
           "        if st is _IN_PLAY:  # a stoppage, or after a goal"),
    Mutant("mount-out-live-no-stop", "mounts.py",
           "        if self.running:\n            self.whistle(",
           "        if False:\n            self.whistle("),
    # Rule 16 (issue 32): when an injury time-out ends
    Mutant("injury-runs-through-period-start", "clock.py",
           "        self.injuries = ()  # Rule 16: play resumes, the players on the field",
           "        pass"),
    Mutant("injury-restarted-by-second-call", "clock.py",
           "            if player is not None and any(", "            if False and any("),
    Mutant("injury-shootout-not-ended-by-own-shot", "shootout.py",
           "            self.end_injuries(team, player)  # Rule 16", "            pass  # Rule 16"),
    Mutant("injury-at-the-deadline", "clock.py",
           '            if d < inj["deadline"]:', '            if d <= inj["deadline"]:'),
    # ten more of the same kinds: each clause's minutes, "<" against "<=", "first" and "last"
    Mutant("interval-of-the-next-period", "clock.py",
           "self.plan.intervals_ms[self.period - 1])", "self.plan.intervals_ms[self.period])"),
    Mutant("injury-14-minutes", "clock.py",
           "            limit = self.ed.injury_timeout_max_ms.value",
           "            limit = self.ed.injury_timeout_max_ms.value - 60_000"),
    Mutant("mount-change-3-minutes", "clock.py",
           "            limit = self.ed.mount_change_max_ms.value\n            if took",
           "            limit = self.ed.mount_change_max_ms.value + 60_000\n            if took"),
    Mutant("late-reset-10-seconds", "penalties.py",
           "            reset = self.ed.late_penalty_reset_ms.value",
           "            reset = 2 * self.ed.late_penalty_reset_ms.value"),
    Mutant("shootout-round-no-interval", "shootout.py",
           "        self.so_next_at = t + self.setup.interval_ms(",
           "        self.so_next_at = t + 0 * self.setup.interval_ms("),
    Mutant("shootout-second-team-first", "shootout.py",
           "            for team in (first, second):", "            for team in (second, first):"),
    Mutant("shootout-mounts-of-the-first-period", "mounts.py",
           "                last = self.periods[-1][0]",
           "                last = self.periods[0][0]"),
    Mutant("shootout-round-interval-inclusive", "shootout.py",
           "        if t < self.so_next_at:", "        if t <= self.so_next_at:"),
    Mutant("rule10-same-team-twice", "penalties.py",
           "both = bool(self.stoppage_fouls) and fouled in self.stoppage_fouls",
           "both = bool(self.stoppage_fouls)"),
    Mutant("move-to-15-first-attempt-only", "shootout.py",
           "                if any(att[:need]):", "                if any(att[:need - 1]):"),
    Mutant("clock-set-to-the-full-length", "clock.py",
           "        if ms > self.length:", "        if ms >= self.length:"),
    Mutant("penalty-1-before-extra-periods-not-final", "penalties.py",
           "and (self.interval_kind in (IV_EXTRA, IV_SHOOTOUT))",
           "and (self.interval_kind in (IV_SHOOTOUT,))"),
    # issue 32's readings
    Mutant("mount-after-goal-refused", "mounts.py",
           "(self.status is _IN_PLAY and not self.awaiting_bowl_in)",
           "self.status is _IN_PLAY"),
    Mutant("mount-swap-partner-unchecked", "mounts.py",
           "        if swap and (partner is None or own is None):",
           "        if swap and partner is None:"),
    Mutant("shootout-mounts-2006-as-2026", "mounts.py",
           'and self.periods and self.ed.has("shootout_mounts"):', "and self.periods:"),
    Mutant("shot-without-mount", "shootout.py",
           'if self.mount_wait and result != "forfeit" and (team, player) in self.mount_wait:',
           'if self.mount_wait and False:'),
    Mutant("last-regular-period-strict", "clock.py",
           "        if self.period < count:", "        if self.period <= count:"),
    # issue 42: the grooms' plan, the club's rules and the whistle's source
    Mutant("plan-twice-counts-from-last-place", "plan.py",
           "                start = i + 1\n                break\n",
           "                start = i + 1\n"),
    Mutant("plan-gone-mount-kept", "plan.py",
           "        if m != now and not gone(m):", "        if m != now:"),
    Mutant("plan-teammate-mount-kept", "plan.py",
           "            if r is None or r == player:", "            if True:"),
    Mutant("plan-other-team-mount-not-rule-2", "plan.py",
           "            if m in other_mounts:", "            if False:"),
    Mutant("plan-unknown-player-kept", "plan.py",
           "        if no not in numbers:", "        if False:"),
    Mutant("club-restated-seconds-become-the-clubs", "../rules/club.py",
           "            if v != old.value:", "            if True:"),
    Mutant("club-restated-count-becomes-the-clubs", "../rules/club.py",
           "            if n != old.value:", "            if True:"),
    Mutant("club-unused-value-kept", "../rules/club.py",
           "        if key in doc and feature not in base.features:", "        if False:"),
    Mutant("club-period-equal-to-reset", "../rules/club.py",
           "        if plan.length_ms <= reset:", "        if plan.length_ms < reset:"),
    Mutant("club-too-few-intervals", "../rules/club.py",
           "    if len(ivs) != count - 1:", "    if len(ivs) > count - 1:"),
    Mutant("club-no-did-you-mean", "../rules/club.py",
           "        if near:\n", "        if False:\n"),
    Mutant("club-injury-limit-cites-rule-16", "clock.py",
           '        clause = lim.clause if club else "Rule 16"', '        clause = "Rule 16"'),
    Mutant("club-no-rounds-cites-2006-clause", "shootout.py",
           '            if club is not None and "shootout_rounds" in club.without:',
           "            if False:"),
    Mutant("whistle-any-source-in-the-engine", "clock.py",
           "        if src is not None and (type(src) is not str or src not in _SOURCES):",
           "        if False:"),
    Mutant("whistle-any-source-in-the-record", "events.py",
           '    SourceId = _one_of("enum", WhistleSource,',
           '    SourceId = _one_of("string", WhistleSource,'),
)

#: the fixed fast subset CI runs (``--fast``; ``tests/engine/test_mutants.py``): one mutant
#: per kind, each with the test files that hold its clause (a few seconds each)
FAST: dict[str, tuple[str, ...]] = {
    "split-goal-after-the-split": ("tests/engine/test_boundaries_32.py",),
    "mount-change-notice-at-2-min": ("tests/engine/test_boundaries_32.py",),
    "p7-designate-removed-player": ("tests/engine/test_boundaries_32.py",),
    "mount-wait-removed-rider": ("tests/engine/test_boundaries_32.py",),
    "golden-goal-last-regular": ("tests/engine/test_boundaries_32.py",),
    "injury-runs-through-period-start": ("tests/engine/test_rule_16_time_outs.py",),
    "warning-deadline-inclusive": ("tests/engine/test_boundaries.py",),
    "handicap-bankers-rounding": ("tests/engine/test_boundaries.py",),
    "shootout-second-team-first": ("tests/engine/test_rule_5.py",),
}


def apply(m: Mutant, src: Path) -> bool:
    """Apply ``m`` to the copy at ``src``; ``False`` if its text is not found exactly once."""
    path = src / "chukker" / "engine" / m.file
    if not m.old:  # the baseline: no change
        return True
    text = path.read_text(encoding="utf-8")
    if text.count(m.old) != 1:
        return False
    path.write_text(text.replace(m.old, m.new, 1), encoding="utf-8")
    return True


def run(m: Mutant, extra: list[str], tests: list[str] | None = None) -> tuple[str, float]:
    """The mutant's fate (one of :data:`FATES`) and the seconds it took."""
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"chukker-mutant-{m.name}-") as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(ROOT / "src" / "chukker", src / "chukker",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.so",
                                                      "native.json"))
        if not apply(m, src):
            return "stale", time.monotonic() - t0
        # a pytest worker's own variables stay with it, not with the mutant's run
        env = dict({k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},
                   PYTHONPATH=str(src), PYTHONDONTWRITEBYTECODE="1",
                   CHUKKER_PURE_PYTHON="1")
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
               f"--timeout={TEST_TIMEOUT_S}",
               "--no-header", "-o", "addopts=--import-mode=importlib",
               "--ignore=tests/engine/test_mutants.py",  # this script's own test
               *(tests or TESTS), *extra]
        try:
            proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                                  timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return "timeout", time.monotonic() - t0  # a hang is not a kill
        secs = time.monotonic() - t0
        if proc.returncode == 0:
            return "survived", secs
        if proc.returncode == 4:  # pytest's usage error: the run itself is wrong
            raise SystemExit(f"mutate: pytest could not run: {proc.stderr.strip()[-500:]}")
        if "from pytest-timeout" in proc.stdout or "Failed: Timeout" in proc.stdout:
            return "timeout", secs  # pytest-timeout stopped a test that hung
        # exit 1: a test failed; other: an error, which a mutant that breaks the import
        # also causes: killed, since the tests notice
        return "killed", secs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("--fast", action="store_true", help="the fixed subset CI runs")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("extra", nargs="*", help="extra pytest arguments (after --)")
    a = ap.parse_args()
    mutants = [m for m in MUTANTS if (not a.only or m.name in a.only)
               and (not a.fast or m.name in FAST)]
    if a.list:
        for m in mutants:
            print(f"{m.name:38} {m.file}")
        return 0
    t0 = time.monotonic()
    try:
        import pytest_timeout  # noqa: F401  (the per-test timeout, a dev dependency)
    except ImportError:
        print("mutate: pytest-timeout is needed (pip install pytest-timeout)", file=sys.stderr)
        return 2
    # the tests must pass without a mutant, or every mutant would look killed
    tests = sorted({f for m in mutants for f in FAST[m.name]}) if a.fast else None
    base, secs = run(Mutant("none", "__init__.py", "", ""), a.extra, tests)
    if base != "survived":
        print(f"mutate: the tests do not pass without a mutant ({base})", file=sys.stderr)
        return 2

    def one(m: Mutant) -> tuple[Mutant, str, float]:
        tests = list(FAST[m.name]) if a.fast else None
        return (m, *run(m, a.extra, tests))

    counts = dict.fromkeys(FATES, 0)
    with ThreadPoolExecutor(max_workers=max(a.jobs, 1)) as pool:
        for m, fate, secs in pool.map(one, mutants):  # in the list's order, as they end
            counts[fate] += 1
            print(f"{fate:9} {m.name:38} {m.file:14} {secs:5.1f} s", flush=True)
    live = counts["killed"] + counts["survived"] + counts["timeout"]
    rate = counts["killed"] / live if live else 0.0
    extra = "".join(f"; {counts[k]} {k}" for k in ("survived", "timeout", "stale") if counts[k])
    print(f"{counts['killed']} of {live} mutants killed: {rate:.1%} (target >= 95%){extra}; "
          f"{time.monotonic() - t0:.0f} s with {a.jobs} job(s)")
    if counts["stale"]:
        print("stale mutants fail the run: rewrite them for the current code", file=sys.stderr)
    return 0 if rate >= 0.95 and not counts["stale"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
