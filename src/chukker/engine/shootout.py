"""The shootout (Rule 5): order, shots, rounds, the move to 15 yards (internal)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from chukker.engine.clock import Clock
from chukker.engine.errors import show
from chukker.engine.events import MoveTo15, ShootoutOrder, Shot
from chukker.engine.state import (
    BY_SHOOTOUT,
    IV_SHOOTOUT,
    S_INTERVAL,
    S_SHOOTOUT,
    SP_ONE,
    Refused,
    ms_s,
)
from chukker.engine.types import (
    ShotResult,
)

_SHOT_RESULTS: Final = frozenset(str(r) for r in ShotResult)


class Shootout(Clock):
    """The shootout handlers."""

    def check_shootout(self, t: int) -> None:
        if self.final:
            self.check_not_final()
        if self.status is S_INTERVAL and self.interval_kind is IV_SHOOTOUT:
            self.check_interval_over(t)
        if self.status is not S_SHOOTOUT:
            raise Refused("no_shootout")

    def on_shootout_order(self, event: ShootoutOrder, t: int, i: int) -> None:
        ev: Any = event  # its fields unchecked where no one checked them
        if self.final:
            self.check_not_final()
        in_so_interval = (
            self.status is S_INTERVAL and self.interval_kind is IV_SHOOTOUT
        )
        if not in_so_interval and self.status is not S_SHOOTOUT:
            raise Refused("no_shootout")
        if self.so_shots:
            raise Refused("shootout_order_fixed")
        first = self.team_of(ev.first, "first")
        order = ev.order
        if not isinstance(order, Mapping) or set(order) != set(self.team_ids):
            a, b = self.team_ids
            raise Refused("shootout_order_invalid", a=a, b=b)
        one = self.opts.shootout_players is SP_ONE
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
        if self.accept():
            return
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

    def on_shot(self, event: Shot, t: int, i: int) -> None:
        ev: Any = event  # its fields unchecked where no one checked them
        self.check_shootout(t)
        if self.so_order is None:
            raise Refused("order_missing")
        team = self.team_of(ev.team)
        player = self.player_of(ev.player, team, required=True)
        assert player is not None
        self.check_may_play(team, player)
        want_team, want_player = self.so_seq[self.so_pos]
        if (team, player) != (want_team, want_player):
            raise Refused("not_your_turn", team=want_team, player=want_player, round=self.so_round)
        if t < self.so_next_at:
            raise Refused("round_interval_running", until_ms=self.so_next_at,
                          **self.club_cite("shootout_round_interval_ms"))
        result = ev.result
        if not isinstance(result, str) or result not in _SHOT_RESULTS:
            raise Refused("shot_result_invalid", value=show(result))
        reached = ev.reached_end_wall
        if reached is not None and not isinstance(reached, bool):
            raise Refused(
                "field_invalid",
                field="reached_end_wall",
                expected="true or false",
                value=show(reached),
            )
        if self.mount_wait and result != "forfeit" and (team, player) in self.mount_wait:
            # as a free hit waits (record 1.2): a hitter whose mount just left the game
            # changes mounts first; a turn declared forfeited needs no mount
            m, clause = self.mount_wait[(team, player)]
            raise Refused("mount_change_needed", team=team, player=player, mount=m, clause=clause)
        if self.accept():
            return
        if self.injuries:
            self.end_injuries(team, player)  # Rule 16: the player is back, and hits
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
            self.finish(t, w, BY_SHOOTOUT)
            return
        if not self.ed.has("shootout_rounds"):
            # the 2006 text: "each player will attempt a free hit ... team with most goals
            # wins"; it has no further round, so a tie stands for the committee (Rule 4)
            # the clause that leaves the round out: the 2006 text's Rule 5 ("5"), or the
            # club's rules that play its base without further rounds (a 2026 base's Rule 5
            # has them: "5" is not its clause id)
            club = self.ed.club
            if club is not None and "shootout_rounds" in club.without:
                self.notice(t, None, club.clause, "shootout_tied_no_round", club=club.name)
            else:
                self.notice(t, None, "5", "shootout_tied_no_round")
            self.finish(t, None, BY_SHOOTOUT)
            return
        self.so_round += 1
        self.so_pos = 0
        self.so_next_at = t + self.setup.interval_ms(self.ed.shootout_round_interval_ms.value)
        while self.so_pos < len(self.so_seq) and self.why_not(*self.so_seq[self.so_pos]):
            self.so_pos += 1
        if self.so_pos == len(self.so_seq):  # nobody left to hit
            self.finish(t, None, BY_SHOOTOUT)

    def injuries_past(self, d: int) -> None:
        """Rule 16 in the shootout: a hitter disabled by a time-out's fifteen minutes is
        passed over at once (as a removed one), so the next hitter may go."""
        super().injuries_past(d)
        if self.status is S_SHOOTOUT and self.so_seq and not self.final:
            self.skip_turns(d)

    def on_move_to_15(self, event: MoveTo15, t: int, i: int) -> None:
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
        if self.accept():
            return
        self.so_moved = True
