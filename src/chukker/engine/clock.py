"""Clock and periods: the running clock, deadlines (horns, intervals, injury
time-outs), periods, split periods, stoppages and the end of the match (Rules 5, 8, 16)
(internal).

Deadlines fire lazily: before an event at ``t`` is applied, every deadline ``<= t``
fires first, so the ball is dead at the very instant of the horn.
"""

from __future__ import annotations

from typing import Any, Final

from chukker.engine.errors import show
from chukker.engine.events import BowlIn, Timeout, Whistle
from chukker.engine.events import Clock as ClockEvent
from chukker.engine.roster import Roster
from chukker.engine.state import (
    BY_EXTRA_PERIOD,
    BY_REGULATION,
    HORN_END,
    HORN_SPLIT,
    HORN_WARNING,
    INF,
    IV_EXTRA,
    IV_REGULAR,
    IV_SHOOTOUT,
    R_CENTER,
    R_STOP,
    S_FINAL,
    S_IN_PLAY,
    S_INTERVAL,
    S_PRE_MATCH,
    S_SHOOTOUT,
    S_STOPPED,
    TB_SHOOTOUT,
    Refused,
    ms_s,
    parse_spot,
    to_ms,
)
from chukker.engine.types import (
    WHISTLE_SOURCES,
    DecidedBy,
    IntervalKind,
)

#: read natively in the compiled engine (an imported name is a dict lookup each time)
_SOURCES: Final = WHISTLE_SOURCES


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
            self.remaining -= t - self.run_since
            self.running = False
            self.reschedule()

    def reschedule(self) -> None:
        """Set :attr:`deadline`, the next instant the state changes by itself.

        It reads the clock (``running``, ``run_since``, ``remaining``, ``warning_done``),
        the interval and the injury time-out; the primitives that change them (:meth:`pause`,
        :meth:`resume`, :meth:`start_period`, :meth:`begin_interval`, :meth:`finish`, the
        injury time-out, :meth:`advance`) call it, so the fold need not after every event.
        A handler that sets those fields itself must call it too (the differential test in
        ``tests/engine/test_fast_paths.py`` checks the deadline after every event).
        """
        d: float = INF
        if self.running:
            d = float(self.run_since + self.remaining)
            if self.warn and not self.warning_done and self.remaining > self.warn_at:
                d = float(self.run_since + self.remaining - self.warn_at)
        if self.status is S_INTERVAL and not self.interval_over:
            d = min(d, self.interval_end)
        for inj in self.injuries:
            d = min(d, inj["deadline"])
        self.deadline = d

    def advance(self, t: float) -> None:
        """Fire every deadline ``<= t`` in time order.

        A deadline that fires must move on (or another fire at the same instant); one
        that stays put after a few fires is a bug of the engine's, raised at once rather
        than looped on for ever (a hang would freeze the live service's match).
        """
        same = 0
        last = -1
        while self.deadline <= t and self.deadline != INF:
            d = int(self.deadline)
            if d == last:
                same += 1
                if same > 8:
                    raise RuntimeError(f"engine: the deadline at {d} ms does not move")
            else:
                same = 0
                last = d
            if self.running:
                end = self.run_since + self.remaining
                if (
                    self.warn
                    and not self.warning_done
                    and self.remaining > self.warn_at
                    and d == end - self.warn_at
                ):
                    self.warning_done = True
                    self.horns.append((d, self.period, HORN_WARNING))
                elif d == end:
                    self.end_period(d)
            if self.status is S_INTERVAL and not self.interval_over and d >= self.interval_end:
                self.interval_over = True
                if self.interval_kind is IV_SHOOTOUT:
                    self.status = S_SHOOTOUT
                    self.restart = None
            if self.injuries:
                self.injuries_past(d)
            if d > self.now:
                self.now = d
            self.reschedule()
        if t != INF and t > self.now:
            self.now = int(t)

    def start_period(self, t: int, i: int) -> None:
        self.period += 1
        self.period_from.append(i)
        self.restarts.append(i)
        self.status = S_IN_PLAY
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
        self.injuries = ()  # Rule 16: play resumes, the players on the field
        self.reschedule()

    def injuries_past(self, d: int) -> None:
        """Rule 16: an injury time-out whose fifteen minutes (or the club's own limit) have
        passed at ``d`` disables its player (retired, citing the limit's clause); the others
        run on."""
        left: list[dict[str, Any]] = []
        lim = self.ed.injury_timeout_max_ms
        club = self.club_cite("injury_timeout_max_ms")
        # the limit's clause: Rule 16, or the club's rules that set another limit
        clause = lim.clause if club else "Rule 16"
        for inj in self.injuries:
            if d < inj["deadline"]:
                left.append(inj)
                continue
            team, player = inj["team"], inj["player"]
            if team is not None and player is not None:
                self.disabled[team][player] = "injury"
                if player not in self.out[team]:
                    self.out[team][player] = {"status": "retired", "clause": clause}
                self.notice(d, inj["event"], lim.clause, "injury_disabled", team=team,
                            player=player, limit_ms=lim.value, **club)
            else:
                self.notice(d, inj["event"], lim.clause, "injury_disabled_unnamed",
                            limit_ms=lim.value, **club)
        self.injuries = tuple(left)

    def end_injuries(self, team: str | None = None, player: int | None = None) -> None:
        """Rule 16: the injury time-outs end when play resumes (a bowl-in, a free hit, the
        start of a period); in the shootout, a player's own shot ends his (and a shot ends
        the time-outs that name no player)."""
        if team is None:
            self.injuries = ()
            return
        self.injuries = tuple(
            inj
            for inj in self.injuries
            if inj["player"] is not None and (inj["team"], inj["player"]) != (team, player)
        )

    def total(self, team: str) -> int:
        return self.goals[team] + self.hcp[team] + self.bonus[team]

    def end_period(self, t: int) -> None:
        """The horn: the period ends at ``t`` and the ball is dead at that instant."""
        self.pause(t)
        self.horns.append((t, self.period, HORN_END))
        self.periods[-1][2] = t
        self.mount_change_since = None
        self.fh_open = False
        count = self.plan.count
        a, b = self.team_ids
        iv = self.setup.interval_ms
        if self.period < count:
            self.begin_interval(t, IV_REGULAR, self.plan.intervals_ms[self.period - 1])
        elif self.total(a) != self.total(b):
            self.finish(t, a if self.total(a) > self.total(b) else b, self.decided_kind())
        elif self.period > count:
            self.begin_interval(t, IV_EXTRA, iv(self.ed.extra_between_interval_ms.value))
        elif self.opts.tiebreak is TB_SHOOTOUT:
            self.begin_interval(t, IV_SHOOTOUT, iv(self.ed.shootout_interval_ms.value))
        else:
            self.begin_interval(t, IV_EXTRA, iv(self.ed.extra_first_interval_ms.value))

    def decided_kind(self) -> DecidedBy:
        return BY_EXTRA_PERIOD if self.period > self.plan.count else BY_REGULATION

    def begin_interval(self, t: int, kind: IntervalKind, length: int) -> None:
        self.status = S_INTERVAL
        self.interval_kind = kind
        self.interval_start = t
        self.interval_end = t + length
        self.interval_over = False
        if kind is not IV_SHOOTOUT:
            self.restart = R_CENTER
            self.awaiting_bowl_in = True
        else:
            self.restart = None
        self.reschedule()

    def finish(self, t: int, winner: str | None, how: DecidedBy) -> None:
        self.pause(t)
        if self.periods and self.periods[-1][2] is None:
            self.periods[-1][2] = t
        self.status = S_FINAL
        self.final = True
        self.final_at = t
        self.winner = winner
        self.decided_by = how
        self.restart = None
        self.pending = None
        self.interval_kind = None
        self.injuries = ()
        self.reschedule()

    def stop_clock(self, t: int, ev_index: int) -> None:
        """A stoppage while the clock runs (whistle, foul, time-out)."""
        self.pause(t)
        self.status = S_STOPPED
        if self.stoppage_fouls:  # this state's own (a copy copies it): emptied in place
            self.stoppage_fouls.clear()
        self.stoppage_spot = None
        self.check_split(t)

    def check_split(self, t: int) -> None:
        """Rule 5 split periods: a horn at the first stoppage after 3:30 of running time."""
        if self.split and not self.split_done and self.length - self.remaining >= self.split_after:
            self.split_done = True
            self.horns.append((t, self.period, HORN_SPLIT))
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
        self.restarts.append(ev_index)
        self.injuries = ()  # Rule 16: play resumes with the player on the field
        self.status = S_IN_PLAY
        self.running = True
        self.run_since = t
        self.restart = None
        self.awaiting_bowl_in = False
        if self.stoppage_fouls:
            self.stoppage_fouls.clear()
        self.stoppage_spot = None
        self.reschedule()

    def on_bowl_in(self, event: BowlIn, t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        if self.mount_wait:
            self.check_mounted()
        st = self.status
        if self.pending is not None:
            raise Refused("penalty_pending", penalty=self.pending.penalty)
        if st is S_INTERVAL:
            self.check_interval_over(t)
        elif st is S_SHOOTOUT:
            raise Refused("no_bowl_in_in_shootout")
        if self.accept():  # every refusal above comes before any change
            return
        self.fh_open = False
        if st is S_IN_PLAY:
            self.awaiting_bowl_in = False
            self.restart = None
            return
        if st is S_STOPPED:
            self.resume(t, i)
            return
        if st is S_PRE_MATCH:
            self.start_period(t, i)
            return
        self.start_period(t, i)  # after an interval that has run out

    def check_interval_over(self, t: int) -> None:
        if t < self.interval_end:
            kind = self.interval_kind or IV_REGULAR
            if kind is IV_EXTRA:
                raise Refused(
                    "extra_interval_running", period=self.period + 1, until_ms=self.interval_end,
                    **self.club_cite("extra_first_interval_ms", "extra_between_interval_ms"),
                )
            if kind is IV_SHOOTOUT:
                raise Refused("shootout_interval_running", until_ms=self.interval_end,
                              **self.club_cite("shootout_interval_ms"))
            raise Refused("interval_running", period=self.period, until_ms=self.interval_end,
                          **self.club_cite(str(self.opts.periods)))

    def on_whistle(self, event: Whistle, t: int, i: int) -> None:
        ev: Any = event  # its fields unchecked where no one checked them
        self.whistle(ev.spot, ev.source, t, i)

    def whistle(self, sp: Any, src: Any, t: int, i: int) -> None:
        """The whistle (Rule 5), at ``sp`` (a spot, or ``None``), heard as ``src``: a
        whistle event's, a time-out's and a mount's leaving the game (implied)."""
        if self.final:
            self.check_not_final()
        spot = None if sp is None else parse_spot(sp)
        if src is not None and (type(src) is not str or src not in _SOURCES):
            raise Refused("whistle_source_invalid", value=show(src),
                          known=sorted(_SOURCES))
        if self.accept():
            return
        if self.running:
            self.fh_open = False
            self.stop_clock(t, i)
            self.stoppage_spot = spot
            if not self.awaiting_bowl_in or self.restart is None:
                self.restart = R_STOP
                self.awaiting_bowl_in = True

    def on_timeout(self, event: Timeout, t: int, i: int) -> None:
        ev: Any = event  # its fields unchecked where no one checked them
        if self.final:
            self.check_not_final()
        reason = ev.reason
        if not isinstance(reason, str) or not reason:
            raise Refused("timeout_reason_missing")
        team = ev.team
        player: int | None = None
        if team is not None:
            team = self.team_of(ev.team)
            player = self.player_of(ev.player, team)
            self.check_may_play(team, player)
        elif ev.player is not None:
            self.team_of(ev.team)
        self.whistle(ev.spot, None, t, i)
        if self.probed:
            return
        if reason == "injury" and self.status is not S_FINAL:
            # Rule 16: "not more than fifteen minutes": disabled only once more have passed;
            # fifteen minutes a time-out (each injury), counted from its call until play
            # resumes; a second call for a player whose time-out runs does not restart it
            if player is not None and any(
                inj["team"] == team and inj["player"] == player for inj in self.injuries
            ):
                return
            limit = self.ed.injury_timeout_max_ms.value
            inj = {
                "team": team,
                "player": player,
                "since": t,
                "deadline": t + limit + 1,
                "event": i,
            }
            self.injuries = (*self.injuries, inj)
            self.reschedule()

    def on_clock(self, event: ClockEvent, t: int, i: int) -> None:
        ev: Any = event  # its fields unchecked where no one checked them
        if self.final:
            self.check_not_final()
        if self.status is not S_STOPPED:
            raise Refused("clock_not_stopped")
        reason = ev.reason
        if not isinstance(reason, str) or not reason.strip():
            raise Refused("field_missing", field="reason")
        raw = ev.remaining
        try:
            ms = to_ms(raw)
        except Refused:
            raise Refused(
                "field_invalid", field="remaining", expected="a number of seconds", value=show(raw)
            ) from None
        if ms > self.length:
            raise Refused("clock_out_of_range", remaining_ms=ms, length_ms=self.length)
        if self.accept():
            return
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
        elif self.warn:
            # the horn is due once the clock runs at 30 s left: set at or under 30 s it will
            # not sound; set back above 30 s before it sounded, it is due again
            if ms <= self.warn_at:
                self.warning_done = True
            elif self.warning_done and not any(
                h[1] == self.period and h[2] == HORN_WARNING for h in self.horns
            ):
                self.warning_done = False
