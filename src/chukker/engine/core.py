"""The match state machine: a fold over operator events.

Internal module. :class:`Core` holds the mutable state of one fold; the
public, immutable surface is :mod:`chukker.engine.match`. Time is integer
milliseconds since the record started; nothing here reads a clock.

Deadlines (horns, the end of an interval, an injury time-out running past
15 minutes) fire lazily: before an event at ``t`` is applied, every deadline
``<= t`` fires first, so the ball is dead at the very instant of the horn.

Every refusal is a :class:`Refused` with a code and its params (see
:data:`chukker.engine.errors.MESSAGES`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from chukker.engine import spots
from chukker.engine.errors import EngineError, message, show
from chukker.engine.setup import Setup
from chukker.engine.types import (
    DecidedBy,
    End,
    EventType,
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
from chukker.rules.editions import introduced_in

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
# what Core.copy copies: lists, tables of containers, flat tables and sets
_LISTS = ("corrections", "goal_log", "foul_log", "horns", "periods", "notices", "forfeited",
          "so_shots")
_TABLES = ("field", "out", "mounts_out", "removed", "disabled")
_FLAT_TABLES = ("goals", "bonus", "so_goals", "so_attempts", "designation", "stoppage_fouls")


class Refused(Exception):
    """Raised inside a handler; the fold turns it into an :class:`EngineError`."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    @property
    def reason(self) -> str:
        return message(self.code, self.params)


def to_ms(at: Any) -> int:
    """Seconds (up to millisecond precision) to integer milliseconds."""
    if isinstance(at, bool) or not isinstance(at, int | float):
        raise Refused("at_invalid", value=show(at))
    if isinstance(at, int):
        if at < 0 or at >= 10**9:
            raise Refused("at_invalid", value=show(at))
        return at * 1000
    if not math.isfinite(at) or at < 0 or at >= 1e9:
        raise Refused("at_invalid", value=show(at))
    x = at * 1000.0
    ms = int(x + 0.5)
    if abs(x - ms) > 1e-6 * max(1.0, x) and abs(x - ms) > 1e-3:
        raise Refused("at_precision", value=show(at))
    return ms


def ms_s(ms: int) -> float:
    return ms / 1000


def _bool_field(ev: Mapping[str, Any], key: str) -> bool:
    v = ev.get(key, False)
    if v is None:
        return False
    if not isinstance(v, bool):
        raise Refused("field_invalid", field=key, expected="true or false", value=show(v))
    return v


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
        self.split = self.opts.split_periods and self.ed.has("split_periods")
        self.split_after = self.ed.split_after_ms.value
        self.sheet = {t.id: {p.no: p for p in t.players + t.alternates} for t in setup.teams}

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
        self.corrections: list[dict[str, Any]] = []
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
        self.fh_open = False  # play since the last free hit has not been stopped or scored
        self.fh_goal: int | None = None  # goal_log index of a goal scored from that free hit
        self.stoppage_fouls: set[str] = set()
        self.stoppage_spot: tuple[float, float] | None = None
        # roster (who is on the field; who may not play and why)
        self.field = {t.id: [p.no for p in t.players] for t in setup.teams}
        self.out: dict[str, dict[int, dict[str, Any]]] = {t: {} for t in self.team_ids}
        self.mounts_out: dict[str, dict[int, str]] = {t: {} for t in self.team_ids}
        self.designation: dict[str, dict[str, Any] | None] = {t: None for t in self.team_ids}
        self.removed: dict[str, dict[int, str]] = {t: {} for t in self.team_ids}
        self.disabled: dict[str, dict[int, str]] = {t: {} for t in self.team_ids}
        self.injury: dict[str, Any] | None = None
        # end of match
        self.final = False
        self.final_at = 0
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

    def copy(self) -> Core:
        """An independent copy, cheap: logs are copied as lists (their entries are never
        changed in place; a changed entry is replaced), tables one or two levels deep.
        Values that are replaced, never changed in place (``pending``, ``injury``,
        ``so_order``, ``so_seq``, ``restart``), are shared."""
        c = Core.__new__(Core)
        d = self.__dict__.copy()
        for k in _LISTS:
            d[k] = d[k].copy()
        for k in _TABLES:
            d[k] = {kk: vv.copy() for kk, vv in d[k].items()}
        for k in _FLAT_TABLES:
            d[k] = d[k].copy()
        ps = d["periods"]
        if ps:
            ps[-1] = list(ps[-1])
        c.__dict__ = d
        return c

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
                self.injury = dict(inj, disabled=True)
                team, player = inj.get("team"), inj.get("player")
                if team is not None and player is not None:
                    self.disabled[team][player] = "injury"
                    if player not in self.out[team]:
                        self.out[team][player] = {"status": "retired", "clause": "Rule 16"}
                if player is not None:
                    self.notice(d, inj["event"], "16", "injury_disabled", team=team, player=player)
                else:
                    self.notice(d, inj["event"], "16", "injury_disabled_unnamed")
            if d > self.now:
                self.now = d
            self.reschedule()
        if t != INF and t > self.now:
            self.now = int(t)

    def notice(self, at: int, event: int | None, clause: str, code: str, **params: Any) -> None:
        """Note something the operator should know (``text`` in English; ``code`` and
        ``params`` for other languages, as refusals)."""
        self.notices.append(
            {
                "at": ms_s(at),
                "event": event,
                "clause": clause,
                "text": message(code, params),
                "code": code,
                "params": params,
            }
        )

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
        self.fh_open = False
        self.fh_goal = None

    def total(self, team: str) -> int:
        return self.goals[team] + self.hcp[team] + self.bonus[team]

    def end_period(self, t: int) -> None:
        """The horn: the period ends at ``t`` and the ball is dead at that instant."""
        self.pause(t)
        self.horns.append((t, self.period, HornKind.END))
        self.periods[-1][2] = t
        self.mount_change_since = None
        self.fh_open = False
        count = self.plan.count
        a, b = self.team_ids
        iv = self.setup.interval_ms
        if self.period < count:
            self.begin_interval(t, IntervalKind.REGULAR, self.plan.intervals_ms[self.period - 1])
        elif self.total(a) != self.total(b):
            self.finish(t, a if self.total(a) > self.total(b) else b, self.decided_kind())
        elif self.period > count:
            self.begin_interval(t, IntervalKind.EXTRA, iv(self.ed.extra_between_interval_ms.value))
        elif self.opts.tiebreak is Tiebreak.SHOOTOUT:
            self.begin_interval(t, IntervalKind.SHOOTOUT, iv(self.ed.shootout_interval_ms.value))
        else:
            self.begin_interval(t, IntervalKind.EXTRA, iv(self.ed.extra_first_interval_ms.value))

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
        self.final_at = t
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
                    "mount_change_long",
                    took_ms=took,
                    limit_ms=limit,
                )
            self.mount_change_since = None
        self.injury = None
        self.status = Status.IN_PLAY
        self.running = True
        self.run_since = t
        self.restart = None
        self.awaiting_bowl_in = False
        self.stoppage_fouls = set()
        self.stoppage_spot = None

    # -------------------------------------------------------------- checks
    def team_of(self, ev: Mapping[str, Any], key: str = "team") -> str:
        t = ev.get(key)
        if not isinstance(t, str) or t not in self.goals:
            a, b = self.team_ids
            if t is None:
                raise Refused("team_missing", field=key, a=a, b=b)
            raise Refused("unknown_team", value=show(t), a=a, b=b)
        return t

    def sheet_player(self, value: Any, team: str) -> int:
        """A player number on ``team``'s sheet (players and alternates)."""
        if type(value) is int and value in self.sheet[team]:
            return value
        raise Refused("unknown_player", value=show(value), team=team)

    def player_of(
        self, ev: Mapping[str, Any], team: str, *, required: bool = False, key: str = "player"
    ) -> int | None:
        p = ev.get(key)
        if p is None:
            if required:
                raise Refused("field_missing", field=key)
            return None
        return self.sheet_player(p, team)

    def roster_period(self) -> int:
        """The period a player's eligibility is judged in: this one; between periods the
        next; the shootout counts as an additional period (Rule 5, substitution)."""
        st = self.status
        nxt = st is Status.INTERVAL or st is Status.PRE_MATCH or st is Status.SHOOTOUT
        return max(self.period + (1 if nxt else 0), 1)

    def why_not(self, team: str, no: int) -> tuple[str, dict[str, Any]] | None:
        """Why player ``no`` of ``team`` may not play now (a refusal code), or ``None``."""
        o = self.out[team].get(no)
        if o is not None:
            st = o["status"]
            base: dict[str, Any] = {"team": team, "player": no}
            if st == "suspended":
                if self.roster_period() < o["until_period"]:
                    return "player_suspended", {**base, "until_period": o["until_period"]}
            elif st == "removed":
                return "player_removed", {**base, "penalty": o["penalty"]}
            elif st == "retired":
                return "player_retired", {**base, "clause": o["clause"]}
            elif st == "replaced":
                by = o.get("by")
                return "player_replaced", {**base, "by": "a substitute" if by is None else by}
            elif st == "equipment":
                return "player_out_equipment", base
        if no not in self.field[team]:
            return "player_not_on_field", {"team": team, "player": no}
        return None

    def check_may_play(self, team: str, no: int | None) -> None:
        if no is None:
            return
        why = self.why_not(team, no)
        if why is not None:
            raise Refused(why[0], **why[1])

    def playing(self, team: str) -> list[int]:
        return [p for p in self.field[team] if self.why_not(team, p) is None]

    def dead(self) -> Refused:
        st = self.status
        if st is Status.PRE_MATCH:
            return Refused("not_started")
        if st is Status.INTERVAL:
            return Refused("ball_dead", period=self.period, since_ms=self.periods[-1][2])
        if st is Status.SHOOTOUT:
            return Refused("in_shootout")
        return Refused("play_stopped", restart="free_hit" if self.pending else "bowl_in")

    def check_not_final(self) -> None:
        if self.final:
            raise Refused(
                "match_over", end_ms=self.final_at, decided_by=str(self.decided_by or "")
            )

    def check_edition(self, feature: str) -> None:
        if not self.ed.has(feature):
            raise Refused(
                "not_in_edition",
                feature=feature,
                edition=str(self.ed.id),
                introduced_in=introduced_in(feature),
            )

    # ------------------------------------------------------------ handlers
    def on_bowl_in(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        st = self.status
        if self.pending is not None:
            raise Refused("penalty_pending", penalty=self.pending["penalty"])
        if st is Status.INTERVAL:
            self.check_interval_over(t)
        elif st is Status.SHOOTOUT:
            raise Refused("no_bowl_in_in_shootout")
        # (every refusal above comes before any change: see allowed_now)
        self.fh_open = False
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
        self.start_period(t)  # after an interval that has run out

    def check_interval_over(self, t: int) -> None:
        if t < self.interval_end:
            kind = self.interval_kind or IntervalKind.REGULAR
            if kind is IntervalKind.EXTRA:
                raise Refused(
                    "extra_interval_running", period=self.period + 1, until_ms=self.interval_end
                )
            if kind is IntervalKind.SHOOTOUT:
                raise Refused("shootout_interval_running", until_ms=self.interval_end)
            raise Refused("interval_running", period=self.period, until_ms=self.interval_end)

    def on_whistle(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        sp = ev.get("spot")
        spot = None if sp is None else _spot(sp)
        if self.running:
            self.fh_open = False
            self.stop_clock(t, i)
            self.stoppage_spot = spot
            if not self.awaiting_bowl_in or self.restart is None:
                self.restart = _R_STOP
                self.awaiting_bowl_in = True
        # a whistle while the ball is already dead (confirming a horn) is only recorded

    def on_timeout(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        reason = ev.get("reason")
        if not isinstance(reason, str) or not reason:
            raise Refused("timeout_reason_missing")
        team = ev.get("team")
        player: int | None = None
        if team is not None:
            team = self.team_of(ev)
            player = self.player_of(ev, team)
            self.check_may_play(team, player)
        elif ev.get("player") is not None:
            self.team_of(ev)
        self.on_whistle(ev, t, i)
        if reason == "injury" and self.status is not Status.FINAL:
            # Rule 16: "not more than fifteen minutes": disabled only once more have passed
            limit = self.ed.injury_timeout_max_ms.value
            self.injury = {
                "team": team,
                "player": player,
                "since": t,
                "deadline": t + limit + 1,
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
            raise self.dead()
        self.check_may_play(team, player)
        two = _bool_field(ev, "two_point")
        if two and self.opts.two_point_line is TwoPointLine.NONE:
            raise Refused("no_two_point_line")
        points = self.ed.two_point_goal.value if two else 1
        from_free_hit = (
            self.fh_open and self.last_free_hit is not None and team == self.last_free_hit["to"]
        )
        self.fh_open = False
        self.score_goal(t, i, team, player, points, "field")
        if from_free_hit:
            self.fh_goal = len(self.goal_log) - 1
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
            self.finish(t, team, DecidedBy.PENALTY)

    def on_foul(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        team = self.team_of(ev)
        raw = ev.get("penalty")
        if type(raw) is str and raw in _PENALTIES:
            pen = raw
        elif isinstance(raw, int | str) and not isinstance(raw, bool) and len(str(raw)) < 4:
            pen = str(raw).lower()
        else:
            pen = ""
        if pen not in _PENALTIES:
            raise Refused("penalty_invalid", value=show(raw))
        if self.final and not (
            pen == "9"
            and self.decided_by is DecidedBy.FORFEIT
            and len(self.forfeited) == 1
            and team not in self.forfeited
        ):
            self.check_not_final()
        player = self.player_of(ev, team)
        self.check_may_play(team, player)
        sp = ev.get("spot")
        spot = None if sp is None else _spot(sp)
        if self.status is Status.SHOOTOUT and pen in _NOT_IN_SHOOTOUT:
            raise Refused("penalty_not_in_shootout", penalty=pen)
        between = self.status in (Status.INTERVAL, Status.PRE_MATCH)
        if between and self.interval_kind is IntervalKind.SHOOTOUT and pen in _NOT_BEFORE_SHOOTOUT:
            raise Refused("penalty_before_shootout", penalty=pen)
        if pen != "6":
            self.fh_open = False
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
        elif pen == "8":
            self.penalty_8(t, i, ev, team, player)
        elif pen == "10" and player is not None:
            self.penalty_10(t, i, ev, team, player)
        if both:
            # Rule 10: fouls by both teams at one stoppage: no free hit, a bowl-in where
            # play stopped, at least 15 yards from the nearer goal
            self.pending = None
            self.restart = _R_RULE10
            self.awaiting_bowl_in = True
        elif self.restart is None:
            self.restart = _R_STOP
            self.awaiting_bowl_in = True
        if self.status is Status.SHOOTOUT:
            self.skip_turns(t)

    def penalty_6(self, t: int, i: int, team: str) -> None:
        """Penalty 6, with both provisos of Rule 9."""
        ref = self.pending or self.last_free_hit
        if ref is None:
            raise Refused("p6_without_free_hit")
        scored = self.pending is None and self.fh_goal is not None
        self.fh_open = False
        if team == ref["fouling"]:
            if scored:
                # "another free hit ... if a goal has not been scored": the goal stands
                self.notice(t, i, "9", "p6_goal_stands")
                return
            # the fouling team failed to carry out the penalty: the hit is taken again
            self.pending = dict(ref, at=t, event=i, repeat=True)
            self.restart = _R_PENDING
            return
        # the team fouled failed: a bowl-in at the centre, and a goal from the hit is not counted
        if scored and self.fh_goal is not None:
            g = self.goal_log[self.fh_goal]
            self.goals[g["team"]] -= g["points"]
            self.goal_log[self.fh_goal] = dict(g, points=0, cancelled={"event": i, "clause": "9"})
            self.fh_goal = None
            self.notice(t, i, "9", "p6_goal_cancelled", goal_event=g["event"])
        self.pending = None
        self.restart = _R_CENTER
        self.awaiting_bowl_in = True

    def penalty_7(self, t: int, i: int, ev: Mapping[str, Any], team: str, fouled: str) -> None:
        """Penalty 7: the disabled player retires (or a substitute comes in); the fouled
        team's captain designates a fouling player to leave (Rule 9)."""
        if ev.get("disabled") is None:
            self.notice(t, i, "9", "p7_name_disabled")
            return
        dis = self.player_of(ev, fouled, key="disabled")
        assert dis is not None
        self.check_may_play(fouled, dis)
        sub = ev.get("substitute")
        sub_no: int | None = None
        if sub is not None and sub is not True and sub is not False:
            sub_no = self.check_alternate(fouled, sub)
        h = self.sheet[fouled][dis].handicap
        eligible = [self.sheet[team][p] for p in self.playing(team)]
        above = [p for p in eligible if p.handicap > h]
        if above:
            nearest = min(p.handicap for p in above)
            cands = [p.no for p in above if p.handicap == nearest]
        else:
            cands = [p.no for p in eligible]
        chosen = ev.get("removed")
        if chosen is not None and chosen not in cands:
            raise Refused(
                "p7_not_designable", team=team, player=show(chosen), eligible=sorted(cands)
            )
        # valid: change the roster
        self.disabled[fouled][dis] = "foul (Penalty 7)"
        if sub_no is not None:
            self.bring_in(fouled, dis, sub_no)
        elif sub is True:
            self.out[fouled][dis] = {"status": "replaced", "by": None}
            self.notice(t, i, "9", "p7_unnamed_substitute", team=fouled, player=dis)
        else:
            self.out[fouled][dis] = {"status": "retired", "clause": "Penalty 7"}
        if chosen is None and len(cands) == 1:
            chosen = cands[0]
        if chosen is None:
            if cands:
                self.designation[team] = {"candidates": sorted(cands), "event": i}
                self.notice(
                    t,
                    i,
                    "9",
                    "p7_designate",
                    team=fouled,
                    fouling=team,
                    candidates=sorted(cands),
                )
            return
        self.remove(team, int(chosen), "7")

    def remove(self, team: str, no: int, penalty: str) -> None:
        self.out[team][no] = {"status": "removed", "penalty": penalty}
        self.removed[team][no] = (
            "removed (Penalty 7)"
            if penalty == "7"
            else "disqualified (Penalty 8)"
            if penalty == "8"
            else "removed (Penalty 10)"
        )
        self.designation[team] = None

    def check_alternate(self, team: str, value: Any) -> int:
        no = self.sheet_player(value, team)
        if no in self.field[team] or no in self.out[team]:
            raise Refused("not_an_alternate", team=team, player=no)
        return no

    def bring_in(self, team: str, out_no: int, in_no: int) -> None:
        """The alternate ``in_no`` takes ``out_no``'s place on the field."""
        slots = self.field[team]
        slots[slots.index(out_no)] = in_no
        self.out[team][out_no] = {"status": "replaced", "by": in_no}
        if self.so_order is not None and out_no in self.so_order.get(team, []):
            order = {k: list(v) for k, v in self.so_order.items()}
            order[team] = [in_no if p == out_no else p for p in order[team]]
            self.so_order = order
            self.so_seq = [
                (tm, in_no if (tm == team and p == out_no) else p) for tm, p in self.so_seq
            ]

    def penalty_8(
        self, t: int, i: int, ev: Mapping[str, Any], team: str, player: int | None
    ) -> None:
        mount = _bool_field(ev, "mount")
        equipment = _bool_field(ev, "equipment")
        if player is None:
            return
        if mount:
            # the mount only is disqualified; the player stays (on another mount)
            self.mounts_out[team][player] = "equipment" if equipment else "disqualified"
            return
        if equipment:
            self.out[team][player] = {"status": "equipment"}
            self.notice(t, i, "9", "p8_may_return", team=team, player=player)
            return
        self.remove(team, player, "8")

    def penalty_10(self, t: int, i: int, ev: Mapping[str, Any], team: str, player: int) -> None:
        n = ev.get("for_periods")
        if n is None:
            self.remove(team, player, "10")
            return
        if type(n) is not int or not 1 <= n <= 99:
            raise Refused(
                "field_invalid", field="for_periods", expected="a whole number", value=show(n)
            )
        until = self.roster_period() + n
        self.out[team][player] = {"status": "suspended", "until_period": until}
        self.removed[team][player] = f"removed until period {until} (Penalty 10)"

    def forfeit(self, t: int, team: str) -> None:
        if team in self.forfeited:
            raise Refused("already_forfeited", team=team)
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
            raise Refused("no_free_hit_pending")
        st = self.status
        if st is Status.STOPPED:
            rem = self.remaining
            reset = self.ed.late_penalty_reset_ms.value
            if rem < reset and self.ed.has("late_penalty_reset"):
                self.remaining = reset
                self.notice(
                    t,
                    i,
                    self.ed.late_penalty_reset_ms.clause,
                    "clock_reset",
                    seconds=reset // 1000,
                    left_ms=rem,
                    reset_ms=reset,
                )
            self.resume(t, i)
        elif st is Status.INTERVAL or st is Status.PRE_MATCH:
            if st is Status.INTERVAL:
                self.check_interval_over(t)
            self.start_period(t)
        else:
            raise self.dead()
        self.last_free_hit = p
        self.pending = None
        self.fh_open = True
        self.fh_goal = None

    # ------------------------------------------------------------- roster 1.1
    def check_dead_ball(self, action: str) -> None:
        if self.final:
            self.check_not_final()
        if self.status is Status.IN_PLAY:
            raise Refused("ball_live", action=action)

    def on_substitute(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        self.check_dead_ball("a substitution is made")
        team = self.team_of(ev)
        out_no = self.player_of(ev, team, required=True, key="out")
        assert out_no is not None
        o = self.out[team].get(out_no)
        if o is not None and o["status"] in ("removed", "suspended"):
            raise Refused(
                "substitute_for_removed",
                team=team,
                player=out_no,
                penalty=o.get("penalty", "10"),
            )
        if o is not None and o["status"] == "replaced":
            raise Refused("player_replaced", team=team, player=out_no, by=o.get("by") or "?")
        if out_no not in self.field[team]:
            raise Refused("player_not_on_field", team=team, player=out_no)
        in_no = self.check_alternate(team, ev.get("in"))
        self.bring_in(team, out_no, in_no)

    def on_designate(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        team = self.team_of(ev)
        d = self.designation[team]
        if d is None:
            raise Refused("nothing_to_designate", team=team)
        player = self.player_of(ev, team, required=True)
        if player not in d["candidates"] or self.why_not(team, int(player or 0)) is not None:
            raise Refused(
                "p7_not_designable", team=team, player=show(player), eligible=d["candidates"]
            )
        self.remove(team, int(player or 0), "7")

    def on_return(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        team = self.team_of(ev)
        player = self.player_of(ev, team, required=True)
        assert player is not None
        o = self.out[team].get(player)
        if o is not None and o["status"] == "equipment":
            del self.out[team][player]
            return
        if self.mounts_out[team].get(player) == "equipment":
            del self.mounts_out[team][player]
            return
        raise Refused("nothing_to_return", team=team, player=player)

    # ---------------------------------------------------------------- clock
    def on_clock(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        if self.status is not Status.STOPPED:
            raise Refused("clock_not_stopped")
        reason = ev.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise Refused("field_missing", field="reason")
        raw = ev.get("remaining")
        try:
            ms = to_ms(raw)
        except Refused:
            raise Refused(
                "field_invalid", field="remaining", expected="a number of seconds", value=show(raw)
            ) from None
        if ms > self.length:
            raise Refused("clock_out_of_range", remaining_ms=ms, length_ms=self.length)
        before = self.remaining
        self.corrections.append(
            {
                "at": ms_s(t),
                "period": self.period,
                "from_ms": before,
                "to_ms": ms,
                "reason": reason,
                "event": i,
            }
        )
        self.remaining = ms
        if ms == 0:
            # the horn that failed: the period ends now
            self.end_period(t)
        elif self.warn and not self.warning_done and ms <= self.warn_at:
            self.warning_done = True

    # ------------------------------------------------------------- shootout
    def check_shootout(self, t: int) -> None:
        if self.final:
            self.check_not_final()
        if self.status is Status.INTERVAL and self.interval_kind is IntervalKind.SHOOTOUT:
            self.check_interval_over(t)
        if self.status is not Status.SHOOTOUT:
            raise Refused("no_shootout")

    def on_shootout_order(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        in_so_interval = (
            self.status is Status.INTERVAL and self.interval_kind is IntervalKind.SHOOTOUT
        )
        if not in_so_interval and self.status is not Status.SHOOTOUT:
            raise Refused("no_shootout")
        if self.so_shots:
            raise Refused("shootout_order_fixed")
        first = self.team_of(ev, "first")
        order = ev.get("order")
        if not isinstance(order, Mapping) or set(order) != set(self.team_ids):
            a, b = self.team_ids
            raise Refused("shootout_order_invalid", a=a, b=b)
        one = self.opts.shootout_players is ShootoutPlayers.ONE
        clean: dict[str, list[int]] = {}
        for team in self.team_ids:
            lst = order[team]
            if not isinstance(lst, list) or not all(type(p) is int for p in lst) or len(lst) > 20:
                raise Refused("order_not_a_list", team=team)
            for p in lst:
                self.sheet_player(p, team)
                self.check_may_play(team, p)
            eligible = sorted(self.playing(team))
            if one:
                if len(lst) != 1:
                    raise Refused("order_one_player", team=team, eligible=eligible)
            elif sorted(lst) != eligible:
                raise Refused("order_every_player", team=team, eligible=eligible)
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
            raise Refused("order_missing")
        team = self.team_of(ev)
        player = self.player_of(ev, team, required=True)
        assert player is not None
        self.check_may_play(team, player)
        want_team, want_player = self.so_seq[self.so_pos]
        if (team, player) != (want_team, want_player):
            raise Refused("not_your_turn", team=want_team, player=want_player, round=self.so_round)
        if t < self.so_next_at:
            raise Refused("round_interval_running", until_ms=self.so_next_at)
        result = ev.get("result")
        if not isinstance(result, str) or result not in _SHOT_RESULTS:
            raise Refused("shot_result_invalid", value=show(result))
        reached = ev.get("reached_end_wall")
        if reached is not None and not isinstance(reached, bool):
            raise Refused(
                "field_invalid", field="reached_end_wall", expected="true or false",
                value=show(reached),
            )
        reached_b = True if result == "goal" else bool(reached)
        key = (team, player)
        self.so_attempts[key] = [*self.so_attempts.get(key, []), reached_b]
        if result == "goal":
            self.so_goals[team] += 1
        spot = self.ed.shootout_moved_spot_yd if self.so_moved else self.ed.shootout_spot_yd
        self.so_shots.append(
            {
                "at": ms_s(t),
                "round": self.so_round,
                "team": team,
                "player": player,
                "result": result,
                "reached_end_wall": reached_b,
                "from_yd": spot.value,
                "event": i,
            }
        )
        self.so_pos += 1
        self.skip_turns(t)

    def skip_turns(self, t: int) -> None:
        """Pass over hitters who may no longer play; end the round after the last."""
        if self.final or not self.so_seq:
            return
        while self.so_pos < len(self.so_seq) and self.why_not(*self.so_seq[self.so_pos]):
            self.so_pos += 1
        if self.so_pos < len(self.so_seq):
            return
        a, b = self.team_ids
        if self.so_goals[a] != self.so_goals[b]:
            w = a if self.so_goals[a] > self.so_goals[b] else b
            # the shootout winner wins the match by one goal
            self.bonus[w] = 1
            self.finish(t, w, DecidedBy.SHOOTOUT)
            return
        if not self.ed.has("shootout_rounds"):
            # the 2006 text: "each player will attempt a free hit ... team with most goals
            # wins"; it has no further round, so a tie stands for the committee (Rule 4)
            self.notice(t, None, "5", "shootout_tied_no_round")
            self.finish(t, None, DecidedBy.SHOOTOUT)
            return
        self.so_round += 1
        self.so_pos = 0
        self.so_next_at = t + self.setup.interval_ms(self.ed.shootout_round_interval_ms.value)
        while self.so_pos < len(self.so_seq) and self.why_not(*self.so_seq[self.so_pos]):
            self.so_pos += 1
        if self.so_pos == len(self.so_seq):  # nobody left to hit
            self.finish(t, None, DecidedBy.SHOOTOUT)

    def on_move_to_15(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        self.check_edition("move_to_15")
        self.check_shootout(t)
        if self.so_moved:
            raise Refused("already_moved")
        if self.so_order is None:
            raise Refused("shootout_not_started")
        need = self.ed.shootout_attempts_before_move.value
        for team, lst in self.so_order.items():
            for p in lst:
                att = self.so_attempts.get((team, p), [])
                if len(att) < need:
                    raise Refused("move_not_yet", need=need, team=team, player=p, count=len(att))
                if any(att[:need]):
                    raise Refused("move_reached_wall", team=team, player=p)
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

    def roster_report(self, team: str) -> dict[str, Any]:
        players: dict[str, Any] = {}
        on_field = self.field[team]
        for no in sorted(self.sheet[team]):
            why = self.why_not(team, no)
            if why is None:
                entry: dict[str, Any] = {"status": "playing"}
            elif why[0] == "player_not_on_field":
                entry = {"status": "replaced" if no in self.out[team] else "alternate"}
            else:
                entry = {
                    "status": {
                        "player_removed": "removed",
                        "player_suspended": "removed",
                        "player_retired": "retired",
                        "player_replaced": "replaced",
                        "player_out_equipment": "out",
                    }[why[0]],
                    "code": why[0],
                    **{k: v for k, v in why[1].items() if k not in ("team", "player")},
                }
            if no in self.mounts_out[team]:
                entry["mount"] = self.mounts_out[team][no]
            players[str(no)] = entry
        return {
            "on_field": list(on_field),
            "players": players,
            "designate": self.designation[team],
            # version 1 spellings, kept
            "removed": {str(k): v for k, v in sorted(self.removed[team].items())},
            "disabled": {str(k): v for k, v in sorted(self.disabled[team].items())},
        }

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
                "start": ms_s(
                    self.so_next_at
                    - self.setup.interval_ms(self.ed.shootout_round_interval_ms.value)
                ),
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
            if not self.final and self.so_seq and self.so_pos < len(self.so_seq):
                nt, npl = self.so_seq[self.so_pos]
                spot = self.ed.shootout_moved_spot_yd if self.so_moved else self.ed.shootout_spot_yd
                nxt = {"team": nt, "player": npl, "from_yd": spot.value}
            shootout = {
                "first": self.so_first,
                "order": self.so_order,
                "round": self.so_round,
                "score": dict(self.so_goals),
                "shots": list(self.so_shots),
                "moved_to_15": self.so_moved,
                "next": nxt,
            }
        practice = self.opts.practice
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
            "roster": {t: self.roster_report(t) for t in self.team_ids},
            "forfeited": list(self.forfeited),
            "shootout": shootout,
            "corrections": [dict(c) for c in self.corrections],
            "practice": None
            if practice is None
            else {"period_s": practice[0] / 1000, "interval_s": practice[1] / 1000},
            "notices": list(self.notices),
            "at": ms_s(at_ms),
        }


HANDLERS: dict[str, Callable[[Core, Mapping[str, Any], int, int], None]] = {
    "bowl_in": Core.on_bowl_in,
    "whistle": Core.on_whistle,
    "goal": Core.on_goal,
    "foul": Core.on_foul,
    "free_hit": Core.on_free_hit,
    "timeout": Core.on_timeout,
    "forfeit": Core.on_forfeit,
    "shootout_order": Core.on_shootout_order,
    "shot": Core.on_shot,
    "move_to_15": Core.on_move_to_15,
    "substitute": Core.on_substitute,
    "designate": Core.on_designate,
    "return": Core.on_return,
    "clock": Core.on_clock,
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
        try:
            x, y = float(raw[0]), float(raw[1])
        except OverflowError:
            x = y = -1.0
        if 0 <= x <= spots.LENGTH and 0 <= y <= spots.WIDTH:
            return (x, y)
    raise Refused("spot_invalid", value=show(raw))


# ------------------------------------------------------------------ allowed
#: the actions a console offers, in the order ``allowed`` lists them
ACTIONS: tuple[str, ...] = (
    EventType.BOWL_IN,
    EventType.WHISTLE,
    EventType.GOAL,
    EventType.FOUL,
    EventType.FREE_HIT,
    EventType.TIMEOUT,
    EventType.FORFEIT,
    EventType.SHOOTOUT_ORDER,
    EventType.SHOT,
    EventType.MOVE_TO_15,
    EventType.SUBSTITUTE,
    EventType.DESIGNATE,
    EventType.RETURN,
    EventType.CLOCK,
    EventType.UNDO,
)


def probe(core: Core, n_events: int, type_: str, at_ms: int) -> dict[str, Any] | None:
    """The canonical event of ``type_`` an operator would send at ``at_ms``: the one
    ``allowed`` tries. ``None`` when no such event can be formed (e.g. no alternate)."""
    at = at_ms / 1000
    a = core.team_ids[0]
    type_ = str(type_)
    ev: dict[str, Any] = {"at": at, "type": type_}
    if type_ in ("bowl_in", "whistle", "free_hit", "move_to_15"):
        return ev
    if type_ == "goal":
        ev["team"] = a
    elif type_ == "foul":
        ev.update(team=a, penalty="3")
    elif type_ == "timeout":
        ev["reason"] = "equipment"
    elif type_ == "forfeit":
        ev["team"] = next((t for t in core.team_ids if t not in core.forfeited), a)
    elif type_ == "shootout_order":
        order = {t: sorted(core.playing(t)) for t in core.team_ids}
        if core.opts.shootout_players is ShootoutPlayers.ONE:
            order = {t: v[:1] for t, v in order.items()}
        ev.update(first=a, order=order)
    elif type_ == "shot":
        if not core.so_seq or core.so_pos >= len(core.so_seq):
            return None
        team, player = core.so_seq[core.so_pos]
        ev.update(team=team, player=player, result="miss")
    elif type_ == "substitute":
        for t in core.team_ids:
            alts = [
                p for p in sorted(core.sheet[t]) if p not in core.field[t] and p not in core.out[t]
            ]
            outs = [p for p in core.field[t] if core.out[t].get(p, {}).get("status") in
                    (None, "retired", "equipment")]
            if alts and outs:
                ev.update(team=t, out=outs[0], **{"in": alts[0]})
                return ev
        return None
    elif type_ == "designate":
        for t in core.team_ids:
            d = core.designation[t]
            if d is not None:
                ev.update(team=t, player=d["candidates"][0])
                return ev
        return None
    elif type_ == "return":
        for t in core.team_ids:
            for p, o in sorted(core.out[t].items()):
                if o["status"] == "equipment":
                    ev.update(team=t, player=p)
                    return ev
            for p, m in sorted(core.mounts_out[t].items()):
                if m == "equipment":
                    ev.update(team=t, player=p)
                    return ev
        return None
    elif type_ == "clock":
        ev.update(remaining=max(core.remaining, 0) / 1000, reason="correction")
    elif type_ == "undo":
        if n_events == 0:
            return None
        ev["event"] = n_events
    return ev


def allowed_now(core: Core, n_events: int, at_ms: int, undo_ok: bool) -> list[str]:
    """The actions (event types) whose :func:`probe` ``core`` would accept at ``at_ms``.

    ``core`` is the state at ``at_ms`` (deadlines up to it fired); it is not changed.
    ``undo_ok`` is the caller's answer for ``undo`` (it needs the whole log).
    """
    if at_ms < core.last_at:
        return []
    out: list[str] = []
    if core.final:
        # every handler refuses first thing after the final, but a second Penalty 9
        if core.decided_by is DecidedBy.FORFEIT and len(core.forfeited) == 1:
            out.append(str(EventType.FORFEIT))
        return [*out, str(EventType.UNDO)] if undo_ok else out
    # Every handler refuses a probe before it changes anything, so one scratch copy serves
    # until a probe is accepted (the property test of ``allowed`` holds us to that).
    scratch = core.copy()
    for typ in ACTIONS:
        if typ == "undo":
            if undo_ok:
                out.append(str(typ))
            continue
        ev = probe(core, n_events, typ, at_ms)
        if ev is None:
            continue
        try:
            if at_ms >= scratch.deadline:
                scratch.advance(at_ms)
            HANDLERS[typ](scratch, ev, at_ms, n_events + 1)
        except Refused:
            continue
        out.append(str(typ))
        scratch = core.copy()
    return out


class Fold:
    """Replays a list of event dicts into a :class:`Core`, handling ``undo``.

    ``lenient`` collects refused events instead of stopping at the first.
    """

    def __init__(self, setup: Setup, *, lenient: bool = False) -> None:
        self.setup = setup
        self.lenient = lenient
        self.events: list[Mapping[str, Any]] = []
        self.refused: set[int] = set()  # 0-based
        self.cancelled: set[int] = set()  # 0-based, cancelled by an effective undo
        self.undo_of: dict[int, int] = {}  # undo event (0-based) -> target (0-based)
        self.problems: list[EngineError] = []
        self.core = Core(setup)
        #: answers that depend on the log only, keyed by its length (see ``match._undo_ok``)
        self.memo: dict[str, tuple[int, Any]] = {}

    def apply(self, ev: Mapping[str, Any]) -> None:
        """Append one event (its index is ``len(events) + 1``); raise if refused.

        On a refusal ``core`` may be left half-changed: callers that go on (the live
        :class:`~chukker.engine.Match`) apply to a copy (:meth:`apply_safely`).
        """
        i = len(self.events) + 1
        core = self.core
        try:
            if type(ev) is not dict and not isinstance(ev, Mapping):
                raise Refused("not_an_object")
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
                raise Refused("time_backwards", at_ms=t, last_ms=core.last_at)
            if typ == "undo":
                self.events.append(ev)
                try:
                    self._undo(ev, t, i)
                except BaseException:
                    self.events.pop()
                    raise
                return
            handler = HANDLERS.get(typ) if isinstance(typ, str) else None
            if handler is None:
                raise Refused("unknown_event_type", value=show(typ))
            if t >= core.deadline:
                core.advance(t)
            handler(core, ev, t, i)
            core.last_at = core.now = t
            core.reschedule()
        except Refused as r:
            raise _error(i, ev, r) from None
        self.events.append(ev)

    def apply_safely(self, ev: Mapping[str, Any]) -> None:
        """:meth:`apply`, leaving everything as it was when ``ev`` is refused."""
        keep = self.core
        self.core = keep.copy()
        try:
            self.apply(ev)
        except BaseException:
            self.core = keep
            raise

    def verify(self, ev: Mapping[str, Any]) -> None:
        """Raise :class:`EngineError` if ``ev`` would be refused now; change nothing."""
        keep = (self.core, len(self.events), set(self.cancelled), dict(self.undo_of))
        self.core = keep[0].copy()
        try:
            self.apply(ev)
        finally:
            self.core = keep[0]
            del self.events[keep[1] :]
            self.cancelled = keep[2]
            self.undo_of = keep[3]

    def _time(self, j: int) -> int:
        """The time of accepted event ``j`` (0-based), in ms."""
        return to_ms(self.events[j]["at"])

    def effective_cancelled(self, undo_of: Mapping[int, int]) -> set[int]:
        """The events cancelled by the undos in ``undo_of``, at any depth: an event counts
        unless an undo that itself counts targets it (undos point back, so one pass from
        the end decides each)."""
        targeted: dict[int, list[int]] = {}
        for u, k in undo_of.items():
            targeted.setdefault(k, []).append(u)
        n = len(self.events)
        counts = [True] * n
        for j in range(n - 1, -1, -1):
            us = targeted.get(j)
            if us and any(counts[u] for u in us):
                counts[j] = False
        return {j for j in range(n) if not counts[j]}

    def _undo(self, ev: Mapping[str, Any], t: int, i: int) -> None:
        target = ev.get("event")
        if type(target) is not int:
            raise Refused("undo_target_invalid", value=show(target))
        if not 1 <= target < i:
            raise Refused("undo_not_earlier", target=target, index=i)
        k = target - 1
        if k in self.refused:
            raise Refused("undo_target_refused", target=target)
        if k in self.cancelled:
            raise Refused("undo_already_undone", target=target)
        last = len(self.events) - 1  # the undo itself is the last appended
        undo_of = dict(self.undo_of)
        undo_of[last] = k
        cancelled = self.effective_cancelled(undo_of)
        core = self._refold(cancelled, undo_of, last, undoing=target)
        core.advance(t)
        core.last_at = t
        if core.now < t:
            core.now = t
        self.cancelled = cancelled
        self.undo_of = undo_of
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
        self.core = self._refold(self.cancelled, self.undo_of, len(self.events))

    def _refold(
        self,
        cancelled: set[int],
        undo_of: Mapping[int, int],
        upto: int,
        undoing: int | None = None,
    ) -> Core:
        """A fresh :class:`Core` from the first ``upto`` events, less the refused, the
        ``cancelled`` and the undo events (whose effect ``cancelled`` already holds)."""
        core = Core(self.setup)
        for j in range(upto):
            if j in cancelled or j in self.refused:
                continue
            tj = self._time(j)
            if j in undo_of:
                core.advance(tj)
                core.last_at = max(core.last_at, tj)
                continue
            e = self.events[j]
            try:
                if tj >= core.deadline:
                    core.advance(tj)
                HANDLERS[e["type"]](core, e, tj, j + 1)
            except Refused as r:
                if undoing is None:
                    raise
                raise Refused(
                    "undo_leaves_refused",
                    target=undoing,
                    event=j + 1,
                    type=str(e["type"]),
                    at_ms=tj,
                    cause={"code": r.code, "params": r.params},
                ) from None
            core.last_at = tj
            core.reschedule()
        return core


def _error(i: int, ev: Any, r: Refused) -> EngineError:
    typ_s = ev.get("type") if isinstance(ev, Mapping) else None
    at_raw = ev.get("at") if isinstance(ev, Mapping) else None
    try:
        at_ms: int | None = to_ms(at_raw)
    except Refused:
        at_ms = None
    typ = typ_s if type(typ_s) is str and len(typ_s) <= 40 else show(typ_s)
    return EngineError(i, typ, at_ms, r.code, r.params)
