"""Roster: who is on the field, who may not play and why; substitutes,
designations and returns (Rules 3, 16; Penalties 7, 8, 10) (internal).
"""

from __future__ import annotations

from typing import Any

from chukker.engine.errors import show
from chukker.engine.events import Designate, Return, Substitute
from chukker.engine.state import (
    S_IN_PLAY,
    S_INTERVAL,
    S_PRE_MATCH,
    S_SHOOTOUT,
    Refused,
    State,
)


class Roster(State):
    """Eligibility and the roster handlers."""

    def roster_period(self) -> int:
        """The period a player's eligibility is judged in: this one; between periods the
        next; the shootout counts as an additional period (Rule 5, substitution)."""
        st = self.status
        nxt = st is S_INTERVAL or st is S_PRE_MATCH or st is S_SHOOTOUT
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

    def check_mounted(self) -> None:
        """Rules 2, 16 (record 1.2): a rider whose mount left the game changes mounts before
        play resumes (the ``bowl_in`` or ``free_hit`` waits)."""
        for (team, p), (m, clause) in self.mount_wait.items():
            if self.why_not(team, p) is None:
                raise Refused("mount_change_needed", team=team, player=p, mount=m, clause=clause)

    def check_dead_ball(self, action: str) -> None:
        if self.final:
            self.check_not_final()
        if self.status is S_IN_PLAY:
            raise Refused("ball_live", action=action)

    def on_substitute(self, event: Substitute, t: int, i: int) -> None:
        ev: Any = event  # its fields unchecked where no one checked them
        self.check_dead_ball("a substitution is made")
        team = self.team_of(ev.team)
        out_no = self.player_of(ev.out, team, required=True, key="out")
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
        in_no = self.check_alternate(team, ev.in_)
        if self.accept():
            return
        self.bring_in(team, out_no, in_no)

    def on_designate(self, event: Designate, t: int, i: int) -> None:
        ev: Any = event  # its fields unchecked where no one checked them
        if self.final:
            self.check_not_final()
        team = self.team_of(ev.team)
        d = self.designation[team]
        if d is None:
            raise Refused("nothing_to_designate", team=team)
        player = self.player_of(ev.player, team, required=True)
        if player not in d["candidates"] or self.why_not(team, int(player or 0)) is not None:
            raise Refused(
                "p7_not_designable", team=team, player=show(player), eligible=d["candidates"]
            )
        if self.accept():
            return
        self.remove(team, int(player or 0), "7")

    def on_return(self, event: Return, t: int, i: int) -> None:
        ev: Any = event  # its fields unchecked where no one checked them
        if self.final:
            self.check_not_final()
        team = self.team_of(ev.team)
        player = self.player_of(ev.player, team, required=True)
        assert player is not None
        o = self.out[team].get(player)
        if o is not None and o["status"] == "equipment":
            if self.accept():
                return
            del self.out[team][player]
            return
        if self.mounts_out[team].get(player) == "equipment":
            if self.accept():
                return
            del self.mounts_out[team][player]
            return
        raise Refused("nothing_to_return", team=team, player=player)
