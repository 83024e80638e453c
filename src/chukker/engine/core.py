"""The match state machine: a fold over operator events.

Internal module. :class:`Core` holds the mutable state of one fold; the
public, immutable surface is :mod:`chukker.engine.match`. Time is integer
milliseconds since the record started; nothing here reads a clock.

Deadlines (horns, the end of an interval, an injury time-out running past
15 minutes) fire lazily: before an event at ``t`` is applied, every deadline
``<= t`` fires first, so the ball is dead at the very instant of the horn.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from chukker.engine import spots
from chukker.engine.errors import EngineError, fmt_s
from chukker.engine.setup import Setup
from chukker.engine.types import (
    DecidedBy,
    End,
    HornKind,
    IntervalKind,
    Penalty,
    RestartKind,
    ShootoutPlayers,
    ShotResult,
    Status,
    Tiebreak,
    TwoPointLine,
)

INF = math.inf
_FREE_HIT_PENALTIES = frozenset({"2", "3", "4", "5", "5a", "5b"})
_PENALTIES = frozenset(str(p) for p in Penalty)
_SHOT_RESULTS = frozenset(str(r) for r in ShotResult)
_NOT_IN_SHOOTOUT = _FREE_HIT_PENALTIES | {"1", "6"}
_NOT_BEFORE_SHOOTOUT = _FREE_HIT_PENALTIES | {"6"}
# shared restart descriptors (read-only; the report builds fresh objects from them)
_R_CENTER: Mapping[str, Any] = {"kind": RestartKind.BOWL_IN, "where": "center"}
_R_STOP: Mapping[str, Any] = {"kind": RestartKind.BOWL_IN, "where": "stop"}
_R_PENDING: Mapping[str, Any] = {"kind": RestartKind.FREE_HIT, "where": "pending"}
_R_RULE10: Mapping[str, Any] = {"kind": RestartKind.BOWL_IN, "where": "rule10"}


class Refused(Exception):
    """Raised inside a handler; the fold turns it into an :class:`EngineError`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def to_ms(at: Any) -> int:
    """Seconds (up to millisecond precision) to integer milliseconds."""
    if isinstance(at, bool) or not isinstance(at, int | float):
        raise Refused(f"'at' must be a number of seconds, got {at!r}")
    if isinstance(at, int):
        if at < 0 or at >= 10**9:
            raise Refused(f"'at' must be a number of seconds from 0, got {at}")
        return at * 1000
    if not math.isfinite(at) or at < 0 or at >= 1e9:
        raise Refused(f"'at' must be a finite, non-negative number of seconds, got {at!r}")
    x = at * 1000.0
    ms = int(x + 0.5)
    if abs(x - ms) > 1e-6 * max(1.0, x) and abs(x - ms) > 1e-3:
        raise Refused(f"'at' has more than millisecond precision: {at!r}")
    return ms


def ms_s(ms: int) -> float:
    return ms / 1000


class Core:
    """The derived state of a match after some events."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.ed = setup.edition
        self.opts = setup.options
        self.plan = setup.plan
        self.length = self.plan.length_ms
        self.team_ids = setup.team_ids
        self.other = {self.team_ids[0]: self.team_ids[1], self.team_ids[1]: self.team_ids[0]}
        self.hcp = setup.handicap_goals()
        self.warn = self.opts.warning_horn
        self.warn_at = self.ed.warning_at_ms.value
        self.split = self.opts.split_periods
        self.split_after = self.ed.split_after_ms.value

        self.now = 0
        self.last_at = 0
        self.status = Status.PRE_MATCH
        self.period = 0
        # clock
        self.running = False
        self.remaining = self.length
        self.run_since = 0
        self.warning_done = False
        self.split_done = False
        self.mount_change_since: int | None = None
        # intervals
        self.interval_kind: IntervalKind | None = None
        self.interval_start = 0
        self.interval_end = 0
        self.interval_over = False
        self.deadline: float = INF
        # score and history
        self.goals = {t: 0 for t in self.team_ids}
        self.bonus = {t: 0 for t in self.team_ids}
        self.goal_log: list[dict[str, Any]] = []
        self.foul_log: list[dict[str, Any]] = []
        self.horns: list[tuple[int, int, str]] = []
        self.periods: list[list[Any]] = []
        self.notices: list[dict[str, Any]] = []
        # restarts and penalties
        self.awaiting_bowl_in = True
        self.restart: Mapping[str, Any] | None = _R_CENTER
        self.pending: dict[str, Any] | None = None
        self.last_free_hit: dict[str, Any] | None = None
        self.stoppage_fouls: set[str] = set()
        self.stoppage_spot: tuple[float, float] | None = None
        # roster
        self.removed: dict[str, dict[int, str]] = {t: {} for t in self.team_ids}
        self.disabled: dict[str, dict[int, str]] = {t: {} for t in self.team_ids}
        self.injury: dict[str, Any] | None = None
        # end of match
        self.final = False
        self.winner: str | None = None
        self.decided_by: DecidedBy | None = None
        self.forfeited: list[str] = []
        # shootout
        self.so_first: str | None = None
        self.so_order: dict[str, list[int]] | None = None
        self.so_seq: list[tuple[str, int]] = []
        self.so_pos = 0
        self.so_round = 1
        self.so_shots: list[dict[str, Any]] = []
        self.so_goals = {t: 0 for t in self.team_ids}
        self.so_moved = False
        self.so_next_at = 0
        self.so_attempts: dict[tuple[str, int], list[bool]] = {}

        self.handlers: dict[str, Callable[[Mapping[str, Any], int, int], None]] = {
            "bowl_in": self.on_bowl_in,
            "whistle": self.on_whistle,
            "goal": self.on_goal,
            "foul": self.on_foul,
            "free_hit": self.on_free_hit,
            "timeout": self.on_timeout,
            "forfeit": self.on_forfeit,
            "shootout_order": self.on_shootout_order,
            "shot": self.on_shot,
            "move_to_15": self.on_move_to_15,
        }

    # ------------------------------------------------------------------ time
    def remaining_at(self, t: int) -> int:
        if self.running:
            return self.remaining - (t - self.run_since)
        return self.remaining

    def pause(self, t: int) -> None:
        """Stop a running clock at ``t``, adding the run to the period's running time."""
        if self.running:
            self.periods[-1][3] += t - self.run_since
            self.remaining = self.remaining_at(t)
            self.running = False

    def reschedule(self) -> None:
        d: float = INF
        if self.running:
            d = self.run_since + self.remaining
            if self.warn and not self.warning_done and self.remaining > self.warn_at:
                d = self.run_since + self.remaining - self.warn_at
        if self.status is Status.INTERVAL and not self.interval_over:
            d = min(d, self.interval_end)
        if self.injury is not None and not self.injury["disabled"]:
            d = min(d, self.injury["deadline"])
        self.deadline = d

    def advance(self, t: float) -> None:
        """Fire every deadline ``<= t`` in time order."""
        while self.deadline <= t and self.deadline != INF:
            d = int(self.deadline)
            if self.running:
                end = self.run_since + self.remaining
                if (
                    self.warn
                    and not self.warning_done
                    and self.remaining > self.warn_at
                    and d == end - self.warn_at
                ):
                    self.warning_done = True
                    self.horns.append((d, self.period, HornKind.WARNING))
                elif d == end:
                    self.end_period(d)
            if self.status is Status.INTERVAL and not self.interval_over and d >= self.interval_end:
                self.interval_over = True
                if self.interval_kind is IntervalKind.SHOOTOUT:
                    self.status = Status.SHOOTOUT
                    self.restart = None
            inj = self.injury
            if inj is not None and not inj["disabled"] and d >= inj["deadline"]:
                inj["disabled"] = True
                if inj.get("team") is not None and inj.get("player") is not None:
                    self.disabled[inj["team"]][inj["player"]] = "injury"
                self.notice(
                    d,
                    inj["event"],
                    "16",
                    "injury time-out longer than 15 minutes: "
                    + (
                        f"{inj['team']} {inj['player']} is disabled"
                        if inj.get("player") is not None
                        else "the injured player is disabled"
                    ),
                )
            if d > self.now:
                self.now = d
            self.reschedule()
        if t != INF and t > self.now:
            self.now = int(t)

    def notice(self, at: int, event: int | None, clause: str, text: str) -> None:
        self.notices.append({"at": ms_s(at), "event": event, "clause": clause, "text": text})

    # --------------------------------------------------------------- periods
    def start_period(self, t: int) -> None:
        self.period += 1
        self.status = Status.IN_PLAY
        self.remaining = self.length
        self.running = True
        self.run_since = t
        self.warning_done = False
        self.split_done = False
        self.mount_change_since = None
        self.interval_kind = None
        self.interval_over = False
        self.periods.append([self.period, t, None, 0])
        self.restart = None
        self.awaiting_bowl_in = False
        self.stoppage_fouls = set()
        self.stoppage_spot = None
        self.last_free_hit = None

    def total(self, team: str) -> int:
        return self.goals[team] + self.hcp[team] + self.bonus[team]

    def end_period(self, t: int) -> None:
        """The horn: the period ends at ``t`` and the ball is dead at that instant."""
        self.pause(t)
        self.horns.append((t, self.period, HornKind.END))
        self.periods[-1][2] = t
        self.mount_change_since = None
        count = self.plan.count
        a, b = self.team_ids
        if self.period < count:
            self.begin_interval(t, IntervalKind.REGULAR, self.plan.intervals_ms[self.period - 1])
        elif self.total(a) != self.total(b):
            self.finish(t, a if self.total(a) > self.total(b) else b, self.decided_kind())
        elif self.period > count:
            self.begin_interval(t, IntervalKind.EXTRA, self.ed.extra_between_interval_ms.value)
        elif self.opts.tiebreak is Tiebreak.SHOOTOUT:
            self.begin_interval(t, IntervalKind.SHOOTOUT, self.ed.shootout_interval_ms.value)
        else:
            self.begin_interval(t, IntervalKind.EXTRA, self.ed.extra_first_interval_ms.value)

    def decided_kind(self) -> DecidedBy:
        return DecidedBy.EXTRA_PERIOD if self.period > self.plan.count else DecidedBy.REGULATION

    def begin_interval(self, t: int, kind: IntervalKind, length: int) -> None:
        self.status = Status.INTERVAL
        self.interval_kind = kind
        self.interval_start = t
        self.interval_end = t + length
        self.interval_over = False
        if kind is not IntervalKind.SHOOTOUT:
            self.restart = _R_CENTER
            self.awaiting_bowl_in = True
        else:
            self.restart = None

    def finish(self, t: int, winner: str | None, how: DecidedBy) -> None:
        self.pause(t)
        if self.periods and self.periods[-1][2] is None:
            self.periods[-1][2] = t
        self.status = Status.FINAL
        self.final = True
        self.winner = winner
        self.decided_by = how
        self.restart = None
        self.pending = None
        self.interval_kind = None
        self.injury = None
        self.reschedule()

    # ------------------------------------------------------------- stoppages
    def stop_clock(self, t: int, ev_index: int) -> None:
        """A stoppage while the clock runs (whistle, foul, time-out)."""
        self.pause(t)
        self.status = Status.STOPPED
        self.stoppage_fouls = set()
        self.stoppage_spot = None
        self.check_split(t)

    def check_split(self, t: int) -> None:
        """Rule 5 split periods: a horn at the first stoppage after 3:30 of running time."""
        if self.split and not self.split_done and self.length - self.remaining >= self.split_after:
            self.split_done = True
            self.horns.append((t, self.period, HornKind.SPLIT))
            self.mount_change_since = t

    def resume(self, t: int, ev_index: int) -> None:
        if self.mount_change_since is not None:
            took = t - self.mount_change_since
            limit = self.ed.mount_change_max_ms.value
            if took > limit:
                self.notice(
                    t,
                    ev_index,
                    self.ed.mount_change_max_ms.clause,
                    f"the mount change at the split took {fmt_s(took)}, more than {fmt_s(limit)}",
                )
            self.mount_change_since = None
        self.close_injury(t)
        self.status = Status.IN_PLAY
        self.running = True
        self.run_since = t
        self.restart = None
        self.awaiting_bowl_in = False
        self.stoppage_fouls = set()
        self.stoppage_spot = None

    def close_injury(self, t: int) -> None:
        self.injury = None

    # -------------------------------------------------------------- checks
    def team_of(self, ev: Mapping[str, Any], key: str = "team") -> str:
        t = ev.get(key)
        if not isinstance(t, str) or t not in self.goals:
            a, b = self.team_ids
            if t is None:
                raise Refused(f"'{key}' is missing (teams are {a} and {b})")
            raise Refused(f"unknown team {t!r} (teams are {a} and {b})")
        return str(t)

    def player_of(self, ev: Mapping[str, Any], team: str, *, required: bool = False) -> int | None:
        p = ev.get("player")
        if type(p) is int and 1 <= p <= 3:
            return p
        if p is None:
            if required:
                raise Refused("'player' is missing")
            return None
        if isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= 3:
            raise Refused(f"player {p!r}: arena teams have players 1-3 (Rule 3)")
        return p

    def dead_reason(self, t: int) -> str:
        st = self.status
        if st is Status.PRE_MATCH:
            return "the ball is dead: the match has not started"
        if st is Status.INTERVAL:
            return f"the ball is dead: period {self.period} ended at {fmt_s(self.periods[-1][2])}"
        if st is Status.STOPPED:
            return "the ball is dead: play is stopped; restart with " + (
                "free_hit" if self.pending else "bowl_in"
            )
        if st is Status.SHOOTOUT:
            return "the match is in the shootout: record shots with 'shot'"
        return "the ball is dead"

    def check_not_final(self) -> None:
        if self.final:
            end = self.periods[-1][2] if self.periods and self.periods[-1][2] is not None else None
            when = f" at {fmt_s(end)}" if end is not None else ""
            raise Refused(
                f"the match is over{when} ({self.decided_by}): the record is locked (Rule 18)"
            )

    # ------------------------------------------------------------ handlers
    def on_bowl_in(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        st = self.status
        if self.pending is not None:
            raise Refused(
                f"a penalty {self.pending['penalty']} free hit is pending: "
                "play restarts with free_hit"
            )
        if st is Status.IN_PLAY:
            self.awaiting_bowl_in = False
            self.restart = None
            return
        if st is Status.STOPPED:
            self.resume(t, i)
            return
        if st is Status.PRE_MATCH:
            self.start_period(t)
            return
        if st is Status.INTERVAL:
            self.check_interval_over(t)
            self.start_period(t)
            return
        raise Refused("the shootout has no bowl-in: record shots with 'shot'")

    def check_interval_over(self, t: int) -> None:
        if t < self.interval_end:
            what = {
                IntervalKind.REGULAR: f"the interval after period {self.period}",
                IntervalKind.EXTRA: f"the interval before extra period {self.period + 1}",
                IntervalKind.SHOOTOUT: "the interval before the shootout",
                IntervalKind.SHOOTOUT_ROUND: "the interval between shootout rounds",
            }[self.interval_kind or IntervalKind.REGULAR]
            raise Refused(f"{what} runs until {fmt_s(self.interval_end)} (Rule 5)")

    def on_whistle(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        if self.running:
            self.stop_clock(t, i)
            sp = ev.get("spot")
            self.stoppage_spot = None if sp is None else _spot(sp)
            if not self.awaiting_bowl_in or self.restart is None:
                self.restart = _R_STOP
                self.awaiting_bowl_in = True
        # a whistle while the ball is already dead (confirming a horn) is only recorded

    def on_timeout(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        reason = ev.get("reason")
        if not isinstance(reason, str) or not reason:
            raise Refused("a time-out needs a 'reason' (injury, equipment, mount, ...)")
        team = ev.get("team")
        player: int | None = None
        if team is not None:
            team = self.team_of(ev)
            player = self.player_of(ev, team)
        self.on_whistle(ev, t, i)
        if reason == "injury" and self.status is not Status.FINAL:
            limit = self.ed.injury_timeout_max_ms.value
            self.injury = {
                "team": team,
                "player": player,
                "since": t,
                "deadline": t + limit,
                "event": i,
                "disabled": False,
            }
            self.reschedule()

    def on_goal(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        team = self.team_of(ev)
        player = self.player_of(ev, team)
        if self.status is not Status.IN_PLAY or not self.running:
            raise Refused(self.dead_reason(t))
        if player is not None and player in self.removed[team]:
            raise Refused(
                f"{team} {player} was removed from the game ({self.removed[team][player]})"
            )
        two = ev.get("two_point", False)
        if not isinstance(two, bool):
            raise Refused(f"'two_point' must be true or false, got {two!r}")
        if two and self.opts.two_point_line is TwoPointLine.NONE:
            raise Refused("two_point: this match has no two-point line (options.two_point_line)")
        points = self.ed.two_point_goal.value if two else 1
        self.score_goal(t, i, team, player, points, "field")
        if self.final:
            return
        self.restart = _R_CENTER
        self.awaiting_bowl_in = True
        if (
            self.split
            and not self.split_done
            and self.length - self.remaining_at(t) >= self.split_after
        ):
            # Rule 5 split periods: a goal is a stoppage too; the clock stops for the mount change
            self.pause(t)
            self.status = Status.STOPPED
            self.stoppage_fouls = set()
            self.check_split(t)

    def score_goal(
        self, t: int, i: int, team: str, player: int | None, points: int, kind: str
    ) -> None:
        self.goals[team] += points
        self.goal_log.append(
            {
                "at": ms_s(t),
                "period": self.period,
                "team": team,
                "player": player,
                "points": points,
                "kind": kind,
                "event": i,
            }
        )
        if self.period > self.plan.count and self.status is not Status.INTERVAL:
            # Rule 5: in an extra period the first team to score wins; the period ends here
            self.finish(t, team, DecidedBy.EXTRA_PERIOD)
        elif (
            self.status is Status.INTERVAL
            and self.period >= self.plan.count
            and (self.interval_kind in (IntervalKind.EXTRA, IntervalKind.SHOOTOUT))
        ):
            # a Penalty 1 goal awarded after the last horn of a tied match breaks the tie
            self.finish(t, team, self.decided_kind())

    def on_foul(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        team = self.team_of(ev)
        raw = ev.get("penalty")
        if type(raw) is str and raw in _PENALTIES:
            pen = raw
        elif isinstance(raw, int | str) and not isinstance(raw, bool):
            pen = str(raw).lower()
        else:
            pen = ""
        if pen not in _PENALTIES:
            raise Refused(f"penalty {raw!r}: Rule 9 penalties are 1-10, 5a or 5b")
        if self.final and not (
            pen == "9"
            and self.decided_by is DecidedBy.FORFEIT
            and len(self.forfeited) == 1
            and team not in self.forfeited
        ):
            self.check_not_final()
        player = self.player_of(ev, team)
        sp = ev.get("spot")
        spot = None if sp is None else _spot(sp)
        if self.status is Status.SHOOTOUT and pen in _NOT_IN_SHOOTOUT:
            raise Refused(f"penalty {pen} cannot be taken in the shootout")
        between = self.status in (Status.INTERVAL, Status.PRE_MATCH)
        if between and self.interval_kind is IntervalKind.SHOOTOUT and pen in _NOT_BEFORE_SHOOTOUT:
            raise Refused(f"penalty {pen}: no period follows in which to take it (shootout next)")
        if self.running:
            self.stop_clock(t, i)
            self.stoppage_spot = spot
        elif spot is not None and self.stoppage_spot is None:
            self.stoppage_spot = spot
        fouled = self.other[team]
        rec = {
            "at": t / 1000,
            "period": self.period,
            "team": team,
            "player": player,
            "penalty": pen,
            "clause": ev.get("clause"),
            "card": ev.get("card"),
            "event": i,
        }
        self.foul_log.append(rec)
        both = bool(self.stoppage_fouls) and fouled in self.stoppage_fouls
        self.stoppage_fouls.add(team)
        if pen == "9":
            self.forfeit(t, team)
            return
        if pen == "1":
            self.score_goal(t, i, fouled, None, self.ed.penalty_goal_points.value, "penalty")
            if self.final:
                return
            self.pending = None
            self.restart = {
                "kind": RestartKind.BOWL_IN,
                "where": "p1",
                "fouling": team,
                "toward": "sideboards",
            }
            self.awaiting_bowl_in = True
        elif pen in _FREE_HIT_PENALTIES:
            if pen == "5":
                pen = "5b" if spot is not None else "5a"
            self.pending = {
                "penalty": pen,
                "fouling": team,
                "to": fouled,
                "spot": spot,
                "at": t,
                "event": i,
            }
            self.restart = _R_PENDING
        elif pen == "6":
            self.penalty_6(t, i, team)
        elif pen == "7":
            self.penalty_7(t, i, ev, team, fouled)
        elif pen in ("8", "10") and player is not None:
            why = "disqualified (Penalty 8)" if pen == "8" else "removed (Penalty 10)"
            if pen == "8" and ev.get("equipment") is True:
                self.notice(t, i, "9", f"{team} {player} may return once the equipment is fixed")
            else:
                self.removed[team][player] = why
        if both:
            # Rule 10: fouls by both teams at one stoppage: no free hit, a bowl-in where
            # play stopped, at least 15 yards from the nearer goal
            self.pending = None
            self.restart = _R_RULE10
            self.awaiting_bowl_in = True
        elif self.restart is None:
            self.restart = _R_STOP
            self.awaiting_bowl_in = True

    def penalty_6(self, t: int, i: int, team: str) -> None:
        ref = self.pending or self.last_free_hit
        if ref is None:
            raise Refused("penalty 6 needs a penalty 2, 3, 4 or 5 free hit earlier in this period")
        if team == ref["fouling"]:
            # the fouling team failed to carry out the penalty: the hit is taken again
            self.pending = dict(ref, at=t, event=i, repeat=True)
            self.restart = _R_PENDING
        else:
            # the team fouled failed: a bowl-in at the centre
            self.pending = None
            self.restart = _R_CENTER
            self.awaiting_bowl_in = True

    def penalty_7(self, t: int, i: int, ev: Mapping[str, Any], team: str, fouled: str) -> None:
        dis = ev.get("disabled")
        if dis is None:
            self.notice(
                t, i, "9", "penalty 7: name the disabled player ('disabled') to derive the removal"
            )
            return
        if isinstance(dis, bool) or not isinstance(dis, int) or not 1 <= dis <= 3:
            raise Refused(f"disabled {dis!r}: arena teams have players 1-3 (Rule 3)")
        self.disabled[fouled][dis] = "foul (Penalty 7)"
        if ev.get("substitute") is True:
            self.notice(t, i, "9", f"penalty 7: {fouled} brings a substitute for player {dis}")
            return
        h = self.setup.team(fouled).player(dis).handicap
        eligible = [p for p in self.setup.team(team).players if p.no not in self.removed[team]]
        above = [p for p in eligible if p.handicap > h]
        if above:
            nearest = min(p.handicap for p in above)
            cands = [p.no for p in above if p.handicap == nearest]
        else:
            cands = [p.no for p in eligible]
        chosen = ev.get("removed")
        if chosen is None and len(cands) == 1:
            chosen = cands[0]
        if chosen is None:
            self.notice(
                t,
                i,
                "9",
                f"penalty 7: {fouled}'s captain designates one of {team} "
                f"{', '.join(map(str, cands))} to leave the game",
            )
            return
        if chosen not in cands:
            raise Refused(
                f"penalty 7: {team} {chosen!r} cannot be designated; "
                f"eligible: {', '.join(map(str, cands))}"
            )
        self.removed[team][int(chosen)] = "removed (Penalty 7)"

    def forfeit(self, t: int, team: str) -> None:
        if team in self.forfeited:
            raise Refused(f"{team} has already forfeited")
        self.forfeited.append(team)
        if len(self.forfeited) == 2:
            # Penalty 9: both teams forfeit, whichever violation came first
            self.winner = None
            self.decided_by = DecidedBy.FORFEIT
            return
        self.finish(t, self.setup.other(team), DecidedBy.FORFEIT)

    def on_forfeit(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        team = self.team_of(ev)
        if self.final and not (self.decided_by is DecidedBy.FORFEIT and len(self.forfeited) == 1):
            self.check_not_final()
        self.forfeit(t, team)

    def on_free_hit(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        p = self.pending
        if p is None:
            raise Refused("no free hit is pending: only a foul with penalty 2-5 awards one")
        st = self.status
        if st is Status.STOPPED:
            rem = self.remaining
            reset = self.ed.late_penalty_reset_ms.value
            if rem < reset:
                self.remaining = reset
                self.notice(
                    t,
                    i,
                    self.ed.late_penalty_reset_ms.clause,
                    f"less than {reset // 1000} s left ({fmt_s(rem)}): clock reset to "
                    f"{fmt_s(reset)} before the free hit",
                )
            self.resume(t, i)
        elif st is Status.INTERVAL or st is Status.PRE_MATCH:
            if st is Status.INTERVAL:
                self.check_interval_over(t)
            self.start_period(t)
        else:
            raise Refused(self.dead_reason(t))
        self.last_free_hit = p
        self.pending = None

    # ------------------------------------------------------------- shootout
    def check_shootout(self, t: int) -> None:
        if self.final:
            self.check_not_final()
        if self.status is Status.INTERVAL and self.interval_kind is IntervalKind.SHOOTOUT:
            self.check_interval_over(t)
        if self.status is not Status.SHOOTOUT:
            raise Refused(
                "there is no shootout: it follows a tie when options.tiebreak is 'shootout'"
            )

    def on_shootout_order(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        in_so_interval = (
            self.status is Status.INTERVAL and self.interval_kind is IntervalKind.SHOOTOUT
        )
        if not in_so_interval and self.status is not Status.SHOOTOUT:
            raise Refused(
                "there is no shootout: it follows a tie when options.tiebreak is 'shootout'"
            )
        if self.so_shots:
            raise Refused("the shootout order is fixed once the first shot is hit")
        first = self.team_of(ev, "first")
        order = ev.get("order")
        if not isinstance(order, Mapping) or set(order) != set(self.team_ids):
            a, b = self.team_ids
            raise Refused(
                f"'order' must list the hitters of both teams, e.g. "
                f'{{"{a}": [2, 1, 3], "{b}": [1, 3, 2]}}'
            )
        one = self.opts.shootout_players is ShootoutPlayers.ONE
        clean: dict[str, list[int]] = {}
        for team in self.team_ids:
            lst = order[team]
            eligible = sorted(p for p in (1, 2, 3) if p not in self.removed[team])
            if not isinstance(lst, list) or not all(
                isinstance(p, int) and not isinstance(p, bool) for p in lst
            ):
                raise Refused(f"order.{team} must be a list of player numbers")
            if one:
                if len(lst) != 1 or lst[0] not in eligible:
                    raise Refused(
                        f"order.{team}: one player of {eligible} hits "
                        "(options.shootout_players is 'one')"
                    )
            elif sorted(lst) != eligible:
                raise Refused(
                    f"order.{team}: every player of the team hits once per round, "
                    f"each once: {eligible}"
                )
            clean[team] = list(lst)
        self.so_first = first
        self.so_order = clean
        second = self.setup.other(first)
        seq: list[tuple[str, int]] = []
        for k in range(max(len(clean[first]), len(clean[second]))):
            for team in (first, second):
                if k < len(clean[team]):
                    seq.append((team, clean[team][k]))
        self.so_seq = seq
        self.so_pos = 0

    def on_shot(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        self.check_shootout(t)
        if self.so_order is None:
            raise Refused("record the shootout order ('shootout_order') before the first shot")
        team = self.team_of(ev)
        player = self.player_of(ev, team, required=True)
        want_team, want_player = self.so_seq[self.so_pos]
        if (team, player) != (want_team, want_player):
            raise Refused(f"it is {want_team} {want_player}'s turn (round {self.so_round})")
        if t < self.so_next_at:
            raise Refused(
                f"the interval between shootout rounds runs until {fmt_s(self.so_next_at)} (Rule 5)"
            )
        result = ev.get("result")
        if not isinstance(result, str) or result not in _SHOT_RESULTS:
            raise Refused(f"result {result!r}: a shot is 'goal', 'miss' or 'forfeit'")
        reached = ev.get("reached_end_wall")
        if reached is not None and not isinstance(reached, bool):
            raise Refused(f"'reached_end_wall' must be true or false, got {reached!r}")
        reached_b = True if result == "goal" else bool(reached)
        key = (team, int(player or 0))
        self.so_attempts.setdefault(key, []).append(reached_b)
        if result == "goal":
            self.so_goals[team] += 1
        self.so_shots.append(
            {
                "at": ms_s(t),
                "round": self.so_round,
                "team": team,
                "player": player,
                "result": result,
                "reached_end_wall": reached_b,
                "from_yd": 15 if self.so_moved else 25,
                "event": i,
            }
        )
        self.so_pos += 1
        if self.so_pos == len(self.so_seq):
            a, b = self.team_ids
            if self.so_goals[a] != self.so_goals[b]:
                w = a if self.so_goals[a] > self.so_goals[b] else b
                # the shootout winner wins the match by one goal
                self.bonus[w] = 1
                self.finish(t, w, DecidedBy.SHOOTOUT)
                return
            self.so_round += 1
            self.so_pos = 0
            self.so_next_at = t + self.ed.shootout_round_interval_ms.value

    def on_move_to_15(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        self.check_shootout(t)
        if self.so_moved:
            raise Refused("the ball is already on the 15-yard line")
        if self.so_order is None:
            raise Refused("the shootout has not started")
        need = self.ed.shootout_attempts_before_move.value
        for team, lst in self.so_order.items():
            for p in lst:
                att = self.so_attempts.get((team, p), [])
                if len(att) < need:
                    raise Refused(
                        f"both teams must first fail with {need} attempts by each member: "
                        f"{team} {p} has {len(att)}"
                    )
                if any(att[:need]):
                    raise Refused(
                        f"{team} {p} reached the end wall from the 25-yard line: "
                        "the ball is not moved"
                    )
        self.so_moved = True

    # --------------------------------------------------------------- report
    def restart_period(self) -> int:
        """The period in which the next restart is taken: this one, or the next between
        periods (and 1 before the match)."""
        between = self.status is Status.INTERVAL or self.status is Status.PRE_MATCH
        return max(self.period + (1 if between else 0), 1)

    def restart_report(self) -> dict[str, Any] | None:
        r = self.restart
        if r is None or self.final:
            return None
        # the restart is taken in the current period, or in the next one between periods
        ends = self.setup.defends(self.restart_period())
        ed = self.ed
        out: dict[str, Any] = {"kind": str(r["kind"]), "spot": None}
        where = r["where"]
        if where == "center":
            out["spot"] = list(spots.CENTER)
            out["clause"] = "8"
        elif where == "stop":
            out["spot"] = list(self.stoppage_spot) if self.stoppage_spot else None
            out["clause"] = "8"
            out["note"] = "where play stopped"
        elif where == "p1":
            end = ends[r["fouling"]]
            out["spot"] = list(spots.in_front_of(end, ed.p1_bowl_in_yd.value))
            out["toward"] = "sideboards"
            out["penalty"] = "1"
            out["clause"] = "9"
        elif where == "rule10":
            sp = self.stoppage_spot
            out["spot"] = (
                list(spots.away_from_goals(sp, ed.rule10_goal_min_yd.value)) if sp else None
            )
            out["clause"] = "10"
            out["note"] = "fouls by both teams: no free hit; at least 15 yards from the nearer goal"
        elif where == "pending" and self.pending is not None:
            pen = self.pending
            out.update(self.free_hit_spot(pen, ends))
        return out

    def free_hit_spot(self, pen: Mapping[str, Any], ends: Mapping[str, End]) -> dict[str, Any]:
        ed = self.ed
        code = pen["penalty"]
        goal_end = ends[pen["fouling"]]
        out: dict[str, Any] = {"penalty": code, "team": pen["to"], "clause": "9"}
        if code == "2":
            out["spot"] = list(spots.in_front_of(goal_end, ed.p2_spot_yd.value))
        elif code == "3":
            out["spot"] = list(spots.in_front_of(goal_end, ed.p3_spot_yd.value))
        elif code == "4":
            out["spot"] = list(spots.in_front_of(goal_end, ed.p4_spot_yd.value))
            out["defender_in_goal_arc"] = {
                "team": pen["fouling"],
                "within_yd": ed.p4_goal_arc_yd.value,
            }
        elif code == "5a":
            out["spot"] = list(spots.CENTER)
        elif code == "5b":
            sp = pen.get("spot")
            out["spot"] = list(spots.off_the_wall(sp, ed.p5b_wall_min_yd.value)) if sp else None
            out["note"] = "point of infraction, at least 5 yards from the wall"
        return out

    def report(self, at_ms: int) -> dict[str, Any]:
        a, b = self.team_ids
        st = self.status
        if st is Status.PRE_MATCH:
            clock = {"remaining_ms": self.length, "running": False}
        else:
            clock = {"remaining_ms": self.remaining_at(at_ms), "running": self.running}
        interval = None
        if st is Status.INTERVAL and self.interval_kind is not None:
            interval = {
                "kind": str(self.interval_kind),
                "start": ms_s(self.interval_start),
                "end": ms_s(self.interval_end),
                "remaining_ms": max(self.interval_end - at_ms, 0),
            }
        elif st is Status.SHOOTOUT and self.so_next_at > at_ms:
            interval = {
                "kind": str(IntervalKind.SHOOTOUT_ROUND),
                "start": ms_s(self.so_next_at - self.ed.shootout_round_interval_ms.value),
                "end": ms_s(self.so_next_at),
                "remaining_ms": self.so_next_at - at_ms,
            }
        mount = None
        if self.mount_change_since is not None and st is Status.STOPPED:
            limit = self.ed.mount_change_max_ms.value
            mount = {
                "since": ms_s(self.mount_change_since),
                "until": ms_s(self.mount_change_since + limit),
                "remaining_ms": self.mount_change_since + limit - at_ms,
            }
        pending = None
        if self.pending is not None:
            p = self.restart_period()
            pending = {
                "penalty": self.pending["penalty"],
                "against": self.pending["fouling"],
                "to": self.pending["to"],
                "awarded_at": ms_s(self.pending["at"]),
                "event": self.pending["event"],
                "period": p,
            }
            pending.update(self.free_hit_spot(self.pending, self.setup.defends(p)))
        shootout = None
        if self.so_order is not None or st is Status.SHOOTOUT or self.so_shots:
            nxt = None
            if not self.final and self.so_seq:
                nt, npl = self.so_seq[self.so_pos]
                nxt = {"team": nt, "player": npl, "from_yd": 15 if self.so_moved else 25}
            shootout = {
                "first": self.so_first,
                "order": self.so_order,
                "round": self.so_round,
                "score": dict(self.so_goals),
                "shots": list(self.so_shots),
                "moved_to_15": self.so_moved,
                "next": nxt,
            }
        return {
            "status": str(st),
            "period": self.period,
            "clock": clock,
            "score": {a: self.total(a), b: self.total(b)},
            "handicap_goals": dict(self.hcp),
            "winner": self.winner,
            "decided_by": str(self.decided_by) if self.decided_by is not None else None,
            "horns": [{"at": ms_s(h[0]), "period": h[1], "kind": str(h[2])} for h in self.horns],
            "periods": [
                {"number": p[0], "start": ms_s(p[1]), "end": None if p[2] is None else ms_s(p[2])}
                for p in self.periods
            ],
            # running time of each period (the contract's objects above stay as specified)
            "running_ms": [
                p[3]
                + (at_ms - self.run_since if self.running and k == len(self.periods) - 1 else 0)
                for k, p in enumerate(self.periods)
            ],
            "goals": list(self.goal_log),
            "fouls": list(self.foul_log),
            "restart": self.restart_report(),
            "pending_penalty": pending,
            "interval": interval,
            "mount_change": mount,
            "defends": {k: str(v) for k, v in self.setup.defends(self.restart_period()).items()},
            "roster": {
                t: {
                    "removed": {str(k): v for k, v in sorted(self.removed[t].items())},
                    "disabled": {str(k): v for k, v in sorted(self.disabled[t].items())},
                }
                for t in self.team_ids
            },
            "forfeited": list(self.forfeited),
            "shootout": shootout,
            "notices": list(self.notices),
            "at": ms_s(at_ms),
        }


def _spot(raw: Any) -> tuple[float, float] | None:
    if raw is None:
        return None
    if (
        isinstance(raw, Sequence)
        and not isinstance(raw, str)
        and len(raw) == 2
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw)
    ):
        x, y = float(raw[0]), float(raw[1])
        if 0 <= x <= spots.LENGTH and 0 <= y <= spots.WIDTH:
            return (x, y)
    raise Refused(f"spot {raw!r}: [x, y] in yards inside the 100 x 50 arena")


class Fold:
    """Replays a list of event dicts into a :class:`Core`, handling ``undo``.

    ``lenient`` collects refused events instead of stopping at the first.
    """

    def __init__(self, setup: Setup, *, lenient: bool = False) -> None:
        self.setup = setup
        self.lenient = lenient
        self.events: list[Mapping[str, Any]] = []
        self.refused: set[int] = set()  # 0-based
        self.cancelled: set[int] = set()  # 0-based, cancelled by an active undo
        self.undo_of: dict[int, int] = {}  # undo event (0-based) -> target (0-based)
        self.problems: list[EngineError] = []
        self.core = Core(setup)

    def apply(self, ev: Mapping[str, Any]) -> None:
        """Append one event (its index is ``len(events) + 1``); raise if refused."""
        i = len(self.events) + 1
        core = self.core
        try:
            if type(ev) is not dict and not isinstance(ev, Mapping):
                raise Refused("an event must be an object")
            typ = ev.get("type")
            at = ev.get("at")
            # fast path for the common case: a float of seconds with ms precision
            if type(at) is float and 0.0 <= at < 1e9:
                x = at * 1000.0
                t = int(x + 0.5)
                if not -1e-3 < x - t < 1e-3:
                    t = to_ms(at)
            else:
                t = to_ms(at)
            if t < core.last_at:
                raise Refused(f"time goes backwards: {fmt_s(t)} is before {fmt_s(core.last_at)}")
            if typ == "undo":
                self.events.append(ev)
                try:
                    self._undo(ev, t, i)
                except BaseException:
                    self.events.pop()
                    raise
                return
            handler = core.handlers.get(typ) if isinstance(typ, str) else None
            if handler is None:
                raise Refused(f"unknown event type {typ!r}")
            if t >= core.deadline:
                core.advance(t)
            handler(ev, t, i)
            core.last_at = core.now = t
            core.reschedule()
        except Refused as r:
            typ_s = ev.get("type") if isinstance(ev, Mapping) else None
            at_raw = ev.get("at") if isinstance(ev, Mapping) else None
            try:
                at_ms: int | None = to_ms(at_raw)
            except Refused:
                at_ms = None
            raise EngineError(i, str(typ_s), at_ms, r.reason) from None
        self.events.append(ev)

    def _time(self, j: int) -> int:
        """The time of accepted event ``j`` (0-based), in ms."""
        return to_ms(self.events[j]["at"])

    def _undo(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        target = ev.get("event")
        if isinstance(target, bool) or not isinstance(target, int):
            raise Refused(f"'event' must be the position of an earlier event, got {target!r}")
        if not 1 <= target < i:
            raise Refused(f"event {target} is not an earlier event (this is event {i})")
        k = target - 1
        if k in self.refused:
            raise Refused(f"event {target} was refused; there is nothing to undo")
        if k in self.cancelled:
            raise Refused(f"event {target} is already undone")
        cancelled = set(self.cancelled)
        if k in self.undo_of:
            cancelled.discard(self.undo_of[k])  # undoing an undo reinstates its event
        cancelled.add(k)
        last = len(self.events) - 1  # the undo itself is the last appended
        core = self._refold(cancelled, last, undoing=target)
        core.advance(t)
        core.last_at = t
        if core.now < t:
            core.now = t
        self.cancelled = cancelled
        self.undo_of[last] = k
        self.core = core

    def feed(self, events: Sequence[Mapping[str, Any]], until_ms: float = INF) -> None:
        """Apply events in order (those after ``until_ms`` are left out)."""
        apply = self.apply
        if until_ms == INF and not self.lenient:
            for ev in events:
                apply(ev)
            return
        for ev in events:
            if until_ms != INF:
                try:
                    t = to_ms(ev.get("at"))
                except (Refused, AttributeError):
                    t = -1
                if t > until_ms:
                    break
            try:
                apply(ev)
            except EngineError as e:
                if not self.lenient:
                    raise
                self.problems.append(e)
                self.events.append(ev)
                self.refused.add(len(self.events) - 1)
                self._rebuild()

    def _rebuild(self) -> None:
        """After a refused event in lenient mode, refold the accepted ones."""
        self.core = self._refold(self.cancelled, len(self.events))

    def _refold(self, cancelled: set[int], upto: int, undoing: int | None = None) -> Core:
        """A fresh :class:`Core` from the first ``upto`` events, less the refused, the
        ``cancelled`` and the undo events (whose effect ``cancelled`` already holds)."""
        core = Core(self.setup)
        for j in range(upto):
            if j in cancelled or j in self.refused:
                continue
            tj = self._time(j)
            if j in self.undo_of:
                core.advance(tj)
                core.last_at = max(core.last_at, tj)
                continue
            e = self.events[j]
            try:
                if tj >= core.deadline:
                    core.advance(tj)
                core.handlers[e["type"]](e, tj, j + 1)
            except Refused as r:
                if undoing is None:
                    raise
                raise Refused(
                    f"undoing event {undoing} would leave event {j + 1} "
                    f"({e['type']} at {fmt_s(tj)}) refused: {r.reason}"
                ) from None
            core.last_at = tj
            core.reschedule()
        return core
