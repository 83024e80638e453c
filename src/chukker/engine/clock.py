"""Clock and periods: the running clock, deadlines (horns, intervals, injury
time-outs), periods, split periods, stoppages and the end of the match (Rules 5, 8, 16)
(internal).

Deadlines fire lazily: before an event at ``t`` is applied, every deadline ``<= t``
fires first, so the ball is dead at the very instant of the horn.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chukker.engine.errors import show
from chukker.engine.roster import Roster
from chukker.engine.state import (
    INF,
    R_CENTER,
    R_STOP,
    Refused,
    ms_s,
    parse_spot,
    to_ms,
)
from chukker.engine.types import (
    DecidedBy,
    HornKind,
    IntervalKind,
    Status,
    Tiebreak,
)


class Clock(Roster):
    """The clock, periods and intervals, and the handlers that start and stop play."""

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
            self.restart = R_CENTER
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
        spot = None if sp is None else parse_spot(sp)
        if self.running:
            self.fh_open = False
            self.stop_clock(t, i)
            self.stoppage_spot = spot
            if not self.awaiting_bowl_in or self.restart is None:
                self.restart = R_STOP
                self.awaiting_bowl_in = True

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
