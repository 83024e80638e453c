"""Goals, fouls and penalties, free hits and forfeits (Rules 6, 9, 10) (internal)."""

from __future__ import annotations

from typing import Any, Final

from chukker.engine.errors import show
from chukker.engine.events import Forfeit, Foul, FreeHit, Goal
from chukker.engine.shootout import Shootout
from chukker.engine.state import (
    BY_EXTRA_PERIOD,
    BY_FORFEIT,
    BY_PENALTY,
    IV_EXTRA,
    IV_SHOOTOUT,
    R_CENTER,
    R_PENDING,
    R_RULE10,
    R_STOP,
    RK_BOWL_IN,
    S_IN_PLAY,
    S_INTERVAL,
    S_PRE_MATCH,
    S_SHOOTOUT,
    S_STOPPED,
    TPL_NONE,
    Pending,
    Refused,
    bool_field,
    ms_s,
    parse_spot,
)
from chukker.engine.types import (
    Penalty,
)

_FREE_HIT_PENALTIES: Final = frozenset({"2", "3", "4", "5", "5a", "5b"})
#: the penalties whose foul is accepted once the checks common to every foul pass
_ACCEPTED_HERE: Final = _FREE_HIT_PENALTIES | {"1"}
_PENALTIES: Final = frozenset(str(p) for p in Penalty)
_NOT_IN_SHOOTOUT: Final = _FREE_HIT_PENALTIES | {"1", "6"}
_NOT_BEFORE_SHOOTOUT: Final = _FREE_HIT_PENALTIES | {"6"}


class Penalties(Shootout):
    """Scoring, fouls and their penalties."""

    def on_goal(self, event: Goal, t: int, i: int) -> None:
        ev: Any = event  # its fields unchecked where no one checked them
        if self.final:
            self.check_not_final()
        team = self.team_of(ev.team)
        player = self.player_of(ev.player, team)
        if self.status is not S_IN_PLAY or not self.running:
            raise self.dead()
        self.check_may_play(team, player)
        two = bool_field(ev.two_point, "two_point")
        if two and self.opts.two_point_line is TPL_NONE:
            raise Refused("no_two_point_line")
        points = self.ed.two_point_goal.value if two else 1
        if self.accept():
            return
        from_free_hit = (
            self.fh_open and self.last_free_hit is not None and team == self.last_free_hit.to
        )
        self.fh_open = False
        self.score_goal(t, i, team, player, points, "field")
        if from_free_hit:
            self.fh_goal = len(self.goal_log) - 1
        if self.final:
            return
        self.restart = R_CENTER
        self.awaiting_bowl_in = True
        if (
            self.split
            and not self.split_done
            and self.length - self.remaining_at(t) >= self.split_after
        ):
            # Rule 5 split periods: a goal is a stoppage too; the clock stops for the mount change
            self.pause(t)
            self.status = S_STOPPED
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
        if self.period > self.plan.count and self.status is not S_INTERVAL:
            # Rule 5: in an extra period the first team to score wins; the period ends here
            self.finish(t, team, BY_EXTRA_PERIOD)
        elif (
            self.status is S_INTERVAL
            and self.period >= self.plan.count
            and (self.interval_kind in (IV_EXTRA, IV_SHOOTOUT))
        ):
            # a Penalty 1 goal awarded after the last horn of a tied match breaks the tie
            self.finish(t, team, BY_PENALTY)

    def on_foul(self, event: Foul, t: int, i: int) -> None:
        ev: Any = event  # its fields unchecked where no one checked them
        team = self.team_of(ev.team)
        raw = ev.penalty
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
            and self.decided_by is BY_FORFEIT
            and len(self.forfeited) == 1
            and team not in self.forfeited
        ):
            self.check_not_final()
        player = self.player_of(ev.player, team)
        self.check_may_play(team, player)
        sp = ev.spot
        spot = None if sp is None else parse_spot(sp)
        if self.status is S_SHOOTOUT and pen in _NOT_IN_SHOOTOUT:
            raise Refused("penalty_not_in_shootout", penalty=pen)
        st = self.status
        between = st is S_INTERVAL or st is S_PRE_MATCH
        if between and self.interval_kind is IV_SHOOTOUT and pen in _NOT_BEFORE_SHOOTOUT:
            raise Refused("penalty_before_shootout", penalty=pen)
        if pen in _ACCEPTED_HERE and self.accept():  # 6, 7, 8, 9 and 10 may refuse below
            return
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
            "clause": ev.clause,
            "card": ev.card,
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
                "kind": RK_BOWL_IN,
                "where": "p1",
                "fouling": team,
                "toward": "sideboards",
            }
            self.awaiting_bowl_in = True
        elif pen in _FREE_HIT_PENALTIES:
            if pen == "5":
                pen = "5b" if spot is not None else "5a"
            self.pending = Pending(pen, team, fouled, spot, t, i)
            self.restart = R_PENDING
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
            self.restart = R_RULE10
            self.awaiting_bowl_in = True
        elif self.restart is None:
            self.restart = R_STOP
            self.awaiting_bowl_in = True
        if self.status is S_SHOOTOUT:
            self.skip_turns(t)

    def penalty_6(self, t: int, i: int, team: str) -> None:
        """Penalty 6, with both provisos of Rule 9."""
        ref = self.pending or self.last_free_hit
        if ref is None:
            raise Refused("p6_without_free_hit")
        scored = self.pending is None and self.fh_goal is not None
        self.fh_open = False
        if team == ref.fouling:
            if scored:
                # "another free hit ... if a goal has not been scored": the goal stands
                self.notice(t, i, "9", "p6_goal_stands")
                return
            # the fouling team failed to carry out the penalty: the hit is taken again
            self.pending = ref.again(t, i)
            self.restart = R_PENDING
            return
        # the team fouled failed: a bowl-in at the centre, and a goal from the hit is not counted
        if scored and self.fh_goal is not None:
            g = self.goal_log[self.fh_goal]
            self.goals[g["team"]] -= g["points"]
            self.goal_log[self.fh_goal] = dict(g, points=0, cancelled={"event": i, "clause": "9"})
            self.fh_goal = None
            self.notice(t, i, "9", "p6_goal_cancelled", goal_event=g["event"])
        self.pending = None
        self.restart = R_CENTER
        self.awaiting_bowl_in = True

    def penalty_7(self, t: int, i: int, ev: Any, team: str, fouled: str) -> None:
        """Penalty 7: the fouled team's captain chooses one remedy (Rule 9): a qualified
        substitute for the disabled player, or the removal of a fouling player designated
        by handicap ("nearest and above"). With a substitute no one is removed."""
        if ev.disabled is None:
            self.notice(t, i, "9", "p7_name_disabled")
            return
        dis = self.player_of(ev.disabled, fouled, key="disabled")
        assert dis is not None
        self.check_may_play(fouled, dis)
        sub = ev.substitute
        sub_no: int | None = None
        if sub is not None and sub is not True and sub is not False:
            sub_no = self.check_alternate(fouled, sub)
        chosen = ev.removed
        if sub is not None and sub is not False:
            if chosen is not None:
                raise Refused("p7_one_remedy", team=fouled)
            self.disabled[fouled][dis] = "foul (Penalty 7)"
            if sub_no is not None:
                self.bring_in(fouled, dis, sub_no)
            else:
                self.out[fouled][dis] = {"status": "replaced", "by": None}
                self.notice(t, i, "9", "p7_unnamed_substitute", team=fouled, player=dis)
            return
        h = self.sheet[fouled][dis].handicap
        eligible = [self.sheet[team][p] for p in self.playing(team)]
        above = [p for p in eligible if p.handicap > h]
        if above:
            nearest = min(p.handicap for p in above)
            cands = [p.no for p in above if p.handicap == nearest]
        else:
            cands = [p.no for p in eligible]
        if chosen is not None and chosen not in cands:
            raise Refused(
                "p7_not_designable", team=team, player=show(chosen), eligible=sorted(cands)
            )
        # valid: change the roster
        self.disabled[fouled][dis] = "foul (Penalty 7)"
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

    def penalty_8(
        self, t: int, i: int, ev: Any, team: str, player: int | None
    ) -> None:
        mount = bool_field(ev.mount, "mount")
        equipment = bool_field(ev.equipment, "equipment")
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

    def penalty_10(self, t: int, i: int, ev: Any, team: str, player: int) -> None:
        n = ev.for_periods
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
        if self.accept():
            return
        self.forfeited.append(team)
        if len(self.forfeited) == 2:
            # Penalty 9: both teams forfeit, whichever violation came first
            self.winner = None
            self.decided_by = BY_FORFEIT
            return
        self.finish(t, self.setup.other(team), BY_FORFEIT)

    def on_forfeit(self, event: Forfeit, t: int, i: int) -> None:
        ev: Any = event  # its fields unchecked where no one checked them
        team = self.team_of(ev.team)
        if self.final and not (self.decided_by is BY_FORFEIT and len(self.forfeited) == 1):
            self.check_not_final()
        self.forfeit(t, team)

    def on_free_hit(self, event: FreeHit, t: int, i: int) -> None:
        if self.final:
            self.check_not_final()
        p = self.pending
        if p is None:
            raise Refused("no_free_hit_pending")
        if self.mount_wait:
            self.check_mounted()
        st = self.status
        if st is S_STOPPED:
            if self.accept():
                return
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
        elif st is S_INTERVAL or st is S_PRE_MATCH:
            if st is S_INTERVAL:
                self.check_interval_over(t)
            if self.accept():
                return
            self.start_period(t, i)
        else:
            raise self.dead()
        self.last_free_hit = p
        self.pending = None
        self.fh_open = True
        self.fh_goal = None
