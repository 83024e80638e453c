"""The report: the state at an instant as the contract's JSON object, restarts and
their spots (Rule 8, 9, 10) (internal).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chukker.engine import spots
from chukker.engine.penalties import Penalties
from chukker.engine.state import (
    HORN_SPLIT,
    HORN_WARNING,
    IV_SHOOTOUT_ROUND,
    S_INTERVAL,
    S_PRE_MATCH,
    S_SHOOTOUT,
    S_STOPPED,
    Pending,
    ms_s,
)
from chukker.engine.types import (
    End,
)


class Report(Penalties):
    """The report of the state."""

    def horn_report(self, h: tuple[int, int, str]) -> dict[str, Any]:
        """One horn as the report gives it; a horn whose instant a club's value set cites
        that club's rules (record 1.3)."""
        out: dict[str, Any] = {"at": ms_s(h[0]), "period": h[1], "kind": str(h[2])}
        club = self.ed.club
        if club is not None:
            plan = str(self.opts.periods)
            if h[2] == HORN_SPLIT:
                deps: tuple[str, ...] = ("split_after_ms",)
            elif h[2] == HORN_WARNING:
                deps = ("warning_at_ms", plan)
            else:
                deps = (plan,)
            if any(d in club.changed for d in deps):
                out["clause"] = club.clause
        return out

    def restart_period(self) -> int:
        """The period in which the next restart is taken: this one, or the next between
        periods (and 1 before the match)."""
        between = self.status is S_INTERVAL or self.status is S_PRE_MATCH
        return max(self.period + (1 if between else 0), 1)

    def restart_report(self) -> dict[str, Any] | None:
        r = self.restart
        if r is None or self.final:
            return None
        # the restart is taken in the current period, or in the next one between periods
        ends = self.defends_in(self.restart_period())
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

    def free_hit_spot(self, pen: Pending, ends: Mapping[str, End]) -> dict[str, Any]:
        ed = self.ed
        code = pen.penalty
        goal_end = ends[pen.fouling]
        out: dict[str, Any] = {"penalty": code, "team": pen.to, "clause": "9"}
        if code == "2":
            out["spot"] = list(spots.in_front_of(goal_end, ed.p2_spot_yd.value))
        elif code == "3":
            out["spot"] = list(spots.in_front_of(goal_end, ed.p3_spot_yd.value))
        elif code == "4":
            out["spot"] = list(spots.in_front_of(goal_end, ed.p4_spot_yd.value))
            out["defender_in_goal_arc"] = {
                "team": pen.fouling,
                "within_yd": ed.p4_goal_arc_yd.value,
            }
        elif code == "5a":
            out["spot"] = list(spots.CENTER)
        elif code == "5b":
            sp = pen.spot
            out["spot"] = list(spots.off_the_wall(sp, ed.p5b_wall_min_yd.value)) if sp else None
            out["note"] = "point of infraction, at least 5 yards from the wall"
        return out

    def roster_report(self, team: str) -> dict[str, Any]:
        on_field = self.field[team]
        if not (self.out[team] or self.mounts_out[team] or self.removed[team]
                or self.disabled[team]):
            # no one out: each player plays, or waits as an alternate (``why_not``)
            return {
                "on_field": list(on_field),
                "players": {k: {"status": "playing" if no in on_field else "alternate"}
                            for no, k in self.tables.sheet_keys[team]},
                "designate": self.designation[team],
                "removed": {},
                "disabled": {},
            }
        players: dict[str, Any] = {}
        for no, key in self.tables.sheet_keys[team]:
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
            players[key] = entry
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
        if st is S_PRE_MATCH:
            clock = {"remaining_ms": self.length, "running": False}
        else:
            clock = {"remaining_ms": self.remaining_at(at_ms), "running": self.running}
        interval = None
        if st is S_INTERVAL and self.interval_kind is not None:
            interval = {
                "kind": str(self.interval_kind),
                "start": ms_s(self.interval_start),
                "end": ms_s(self.interval_end),
                "remaining_ms": max(self.interval_end - at_ms, 0),
            }
        elif st is S_SHOOTOUT and self.so_next_at > at_ms:
            interval = {
                "kind": str(IV_SHOOTOUT_ROUND),
                "start": ms_s(
                    self.so_next_at
                    - self.setup.interval_ms(self.ed.shootout_round_interval_ms.value)
                ),
                "end": ms_s(self.so_next_at),
                "remaining_ms": self.so_next_at - at_ms,
            }
        mount = None
        if self.mount_change_since is not None and st is S_STOPPED:
            limit = self.ed.mount_change_max_ms.value
            mount = {
                "since": ms_s(self.mount_change_since),
                "until": ms_s(self.mount_change_since + limit),
                "remaining_ms": self.mount_change_since + limit - at_ms,
            }
        pending = None
        pen = self.pending
        if pen is not None:
            p = self.restart_period()
            pending = {
                "penalty": pen.penalty,
                "against": pen.fouling,
                "to": pen.to,
                "awarded_at": ms_s(pen.at),
                "event": pen.event,
                "period": p,
            }
            pending.update(self.free_hit_spot(pen, self.defends_in(p)))
        shootout = None
        if self.so_order is not None or st is S_SHOOTOUT or self.so_shots:
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
            "horns": [self.horn_report(h) for h in self.horns],
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
            "defends": dict(self.tables.ends_said[self.tables.half(self.restart_period())]),
            "roster": {t: self.roster_report(t) for t in self.team_ids},
            "forfeited": list(self.forfeited),
            "shootout": shootout,
            "corrections": [dict(c) for c in self.corrections],
            "practice": None
            if practice is None
            else {"period_s": practice[0] / 1000, "interval_s": practice[1] / 1000},
            "notices": list(self.notices),
            "rules": self.setup.rules_report(),
            "at": ms_s(at_ms),
        }
