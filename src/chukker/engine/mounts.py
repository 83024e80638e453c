"""Mounts: who rides which horse, in which periods, and which horses are out (internal).

Record 1.2 (issue 25). A team's string is ``teams.X.mounts``; the ``mount`` event
``{team, player, mount, umpire_consent?}`` puts a player on a mount, only while
the ball is dead; ``mount_out {team, mount, reason}`` removes a mount from the game
(Rule 2: vice, blood; Rule 16: a runaway); Penalty 8 with ``mount: true``
disqualifies the mount the named player rides (``equipment: true``: it may
``return``). A rider whose mount left the game changes mounts before play resumes.

A mount counts as ridden in a period when its rider is on it while that period is
played: on it when the period starts, or given it at a stoppage or the split. The
shootout counts as one more period (as for the roster, Rule 5), numbered after the
last one played. A record without mounts folds exactly as before: every hook here
is a no-op when no ``mount`` event was accepted.

This layer sits on top of the others and reaches them only through ``super()``.
"""

from __future__ import annotations

from typing import Any, Final, Self, TypeVar

from chukker.engine.errors import show
from chukker.engine.events import Mount as MountEvent
from chukker.engine.events import MountOut, Return
from chukker.engine.plan import next_mount
from chukker.engine.report import Report
from chukker.engine.setup import Mount, Setup
from chukker.engine.state import (
    IV_EXTRA,
    IV_REGULAR,
    IV_SHOOTOUT,
    IV_SHOOTOUT_ROUND,
    S_FINAL,
    S_IN_PLAY,
    S_INTERVAL,
    S_PRE_MATCH,
    S_SHOOTOUT,
    S_STOPPED,
    Refused,
    bool_field,
    tables,
)
from chukker.engine.types import MountOutReason, MountStatus

_T = TypeVar("_T")
_REASONS: Final = frozenset(str(r) for r in MountOutReason)
_IN_PLAY: Final = S_IN_PLAY
_STOPPED: Final = S_STOPPED
_SHOOTOUT: Final = S_SHOOTOUT
_INTERVAL: Final = S_INTERVAL
#: the clause each reason for leaving the game comes from
_CLAUSE: Final = {"vice": "Rule 2", "blood": "Rule 2", "runaway": "Rule 16",
                  "injury": "Rule 16", "other": "Rule 2"}


def _deep(d: dict[str, list[_T]]) -> dict[str, list[_T]]:
    """A copy of a mount -> list table, the lists copied too (none while no mount rode)."""
    return {m: p.copy() for m, p in d.items()} if d else {}


class Mounts(Report):
    """The mount handlers, and the hooks that keep the pony lines beside the clock."""

    def __init__(self, setup: Setup, *, blank: bool = False) -> None:
        super().__init__(setup, blank=blank)
        if blank:
            return
        a, b = self.team_ids
        k = tables(setup)
        #: each team's string, by id (shared, never changed)
        self.strings: dict[str, dict[str, Mount]] = k.strings
        #: who rides what now: team -> player -> mount id
        self.riding: dict[str, dict[int, str]] = {a: {}, b: {}}
        #: when each player's last ``mount`` was recorded: team -> player -> ms (the groom's
        #: ``next_mount.from``: a change recorded at the split, a horse saddled before a period)
        self.mounted_at: dict[str, dict[int, int]] = {a: {}, b: {}}
        #: the periods each mount was ridden in: team -> mount id -> [period, ...]
        self.ridden: dict[str, dict[str, list[int]]] = {a: {}, b: {}}
        #: who rode it in each: team -> mount id -> [(period, player), ...]
        self.rides: dict[str, dict[str, list[tuple[int, int]]]] = {a: {}, b: {}}
        #: mounts out of the game: team -> mount id -> {status, reason, clause, event, ...}
        self.mounts_gone: dict[str, dict[str, dict[str, Any]]] = {a: {}, b: {}}
        #: any mount event accepted (the hooks do nothing until then)
        self.mounts_kept = False
        #: the grooms' plans (record 1.3): team -> player -> (mount id, ...) (shared)
        self.plans: dict[str, dict[int, tuple[str, ...]]] = k.plans

    def copy(self) -> Self:
        c = super().copy()
        c.strings = self.strings
        a, b = self.team_ids  # the keys of every per-team table, in this order
        r = self.riding
        c.riding = {a: r[a].copy(), b: r[b].copy()}
        ma = self.mounted_at
        c.mounted_at = {a: ma[a].copy(), b: ma[b].copy()}
        rn = self.ridden
        c.ridden = {a: _deep(rn[a]), b: _deep(rn[b])}
        rs = self.rides
        c.rides = {a: _deep(rs[a]), b: _deep(rs[b])}
        g = self.mounts_gone
        c.mounts_gone = {a: g[a].copy(), b: g[b].copy()}
        c.mounts_kept = self.mounts_kept
        c.plans = self.plans
        return c

    # ---------------------------------------------------------------- reading
    def shootout_period(self) -> int:
        """The number the shootout has among the periods (the one after the last)."""
        return self.period + 1

    def before_shootout(self) -> bool:
        """In the shootout, or in the interval before it (its mounts are being set)."""
        return self.status is S_SHOOTOUT or (
            self.status is S_INTERVAL and self.interval_kind is IV_SHOOTOUT
        )

    def may_play(self, team: str, player: int) -> bool:
        """:meth:`why_not` is ``None``, quickly in the common case (no one of the team out)."""
        if not self.out[team]:
            return player in self.field[team]
        return self.why_not(team, player) is None

    def rider(self, team: str, mount: str) -> int | None:
        """The player who rides ``mount`` now: on it and in the game."""
        for p, m in self.riding[team].items():
            if m == mount and self.may_play(team, p):
                return p
        return None

    def mount_of(self, team: str, player: int) -> str | None:
        """The mount ``player`` rides now (``None`` when they may not play)."""
        m = self.riding[team].get(player)
        if m is None or not self.may_play(team, player):
            return None
        return m

    def note_ridden(self, team: str, mount: str, period: int, player: int) -> None:
        ps = self.ridden[team].setdefault(mount, [])
        if period not in ps:
            ps.append(period)
        rs = self.rides[team].setdefault(mount, [])
        if (period, player) not in rs:
            rs.append((period, player))

    def note_all_ridden(self, period: int) -> None:
        for team, ride in self.riding.items():
            for p, m in ride.items():
                if self.may_play(team, p):
                    self.note_ridden(team, m, period, p)

    def listed(self, team: str, m: Any) -> str:
        """``m``, an event's ``mount``, as a mount on ``team``'s list."""
        if type(m) is not str or m not in self.strings[team]:
            raise Refused("mount_not_listed", team=team, mount=show(m) if type(m) is not str
                          else m)
        return m

    def check_in_game(self, team: str, mount: str) -> None:
        g = self.mounts_gone[team].get(mount)
        if g is None:
            return
        if g["status"] == MountStatus.DISQUALIFIED:
            raise Refused("mount_disqualified", team=team, mount=mount)
        raise Refused(
            "mount_out_of_game", team=team, mount=mount, reason=g["reason"], clause=g["clause"]
        )

    def take_off(self, team: str, mount: str, clause: str) -> int | None:
        """``mount`` leaves the game: its rider (if any) is left waiting for another."""
        for p, m in list(self.riding[team].items()):
            if m == mount:
                del self.riding[team][p]
                if self.why_not(team, p) is None:
                    self.mount_wait[(team, p)] = (mount, clause)
                    return p
        return None

    # --------------------------------------------------------------- handlers
    def on_mount(self, event: MountEvent, t: int, i: int) -> None:
        """``mount {team, player, mount, umpire_consent?, swap?}``: the player rides that
        mount; with ``swap: true`` (record 1.3) the teammate who rides it takes the player's
        mount in the same instant (Rule 5: "switch horses with members of their own team")."""
        ev: Any = event  # its fields unchecked where no one checked them
        if self.final or (self.status is _IN_PLAY and not self.awaiting_bowl_in):
            self.check_dead_ball("a change of mounts")  # after a goal the ball is dead
        team = ev.team
        if type(team) is not str or team not in self.strings:
            team = self.team_of(ev.team)
        player = ev.player
        if type(player) is not int or player not in self.sheet[team]:
            player = self.player_of(ev.player, team, required=True)
            assert player is not None
        why = None if self.may_play(team, player) else self.why_not(team, player)
        if why is not None:
            raise Refused(
                "mount_rider_may_not_play",
                team=team,
                player=player,
                cause={"code": why[0], "params": why[1]},
            )
        mount = ev.mount
        if type(mount) is not str or mount not in self.strings[team]:
            mount = self.listed(team, ev.mount)
        gone = self.mounts_gone[team]
        if gone and mount in gone:
            self.check_in_game(team, mount)
        swap = ev.swap is not None and bool_field(ev.swap, "swap")
        ride = self.riding[team]
        stale = None
        partner = None
        for p, m in ride.items():
            if m == mount and p != player:
                if self.may_play(team, p):
                    if not swap:
                        raise Refused("mount_ridden_by_teammate", team=team, mount=mount, rider=p)
                    partner = p
                else:
                    stale = p
        own = ride.get(player)
        if swap and (partner is None or own is None):
            raise Refused("mount_swap_without_partner", team=team, player=player, mount=mount)
        st = self.status
        if (st is _SHOOTOUT or st is _INTERVAL) and self.before_shootout():
            consent = bool_field(ev.umpire_consent, "umpire_consent")
            # a swap keeps the same horses in the shootout; the 2006 summary has no
            # shootout-mount clause (issue 32): its shootout takes any mount
            if not consent and not swap and self.periods and self.ed.has("shootout_mounts"):
                last = self.periods[-1][0]
                if last not in self.ridden[team].get(mount, ()):
                    raise Refused(
                        "shootout_mount_not_final_period", team=team, mount=mount, period=last
                    )
        elif ev.umpire_consent is not None:
            bool_field(ev.umpire_consent, "umpire_consent")
        if self.accept():  # valid: change the pony line
            return
        self.mounts_kept = True
        if stale is not None:
            del ride[stale]  # its last rider is out of the game
        ride[player] = mount
        at = self.mounted_at[team]
        at[player] = t
        if partner is not None and own is not None:
            ride[partner] = own
            at[partner] = t
        if self.mount_wait:
            self.mount_wait.pop((team, player), None)
        if st is _STOPPED or st is _IN_PLAY:  # a stoppage, or after a goal
            self.note_ridden(team, mount, self.period, player)
            if partner is not None and own is not None:
                self.note_ridden(team, own, self.period, partner)
        elif st is _SHOOTOUT:
            self.note_ridden(team, mount, self.shootout_period(), player)
            if partner is not None and own is not None:
                self.note_ridden(team, own, self.shootout_period(), partner)

    def on_mount_out(self, event: MountOut, t: int, i: int) -> None:
        """``mount_out {team, mount, reason}``: Rule 2 (vice, blood), Rule 16 (runaway):
        the umpire stops play (an implied whistle, as a foul's) and orders it removed."""
        ev: Any = event  # its fields unchecked where no one checked them
        if self.final:
            self.check_not_final()
        team = self.team_of(ev.team)
        mount = self.listed(team, ev.mount)
        reason = ev.reason
        if type(reason) is not str or reason not in _REASONS:
            raise Refused("mount_reason_invalid", value=show(reason))
        self.check_in_game(team, mount)
        if self.accept():
            return
        self.mounts_kept = True
        if self.running:
            self.whistle(None, None, t, i)
        rider = self.take_off(team, mount, _CLAUSE[reason])
        self.mounts_gone[team][mount] = {
            "status": MountStatus.OUT,
            "reason": reason,
            "clause": _CLAUSE[reason],
            "event": i,
            "last_rider": rider,
        }

    # ------------------------------------------------------------------ hooks
    def start_period(self, t: int, i: int) -> None:
        super().start_period(t, i)
        if self.mounts_kept:
            self.note_all_ridden(self.period)

    def advance(self, t: float) -> None:
        before = self.status
        super().advance(t)
        if self.mounts_kept and before is not _SHOOTOUT and self.status is _SHOOTOUT:
            self.note_all_ridden(self.shootout_period())

    def penalty_8(
        self, t: int, i: int, ev: Any, team: str, player: int | None
    ) -> None:
        super().penalty_8(t, i, ev, team, player)
        if player is None or not self.mounts_kept or not bool_field(ev.mount, "mount"):
            return
        mount = self.riding[team].get(player)
        if mount is None:
            return
        equipment = bool_field(ev.equipment, "equipment")
        self.take_off(team, mount, "Penalty 8")
        self.mounts_gone[team][mount] = {
            "status": MountStatus.DISQUALIFIED,
            "reason": "equipment" if equipment else "penalty_8",
            "clause": "Penalty 8",
            "event": i,
            "last_rider": player,
            "may_return": equipment,
        }

    def on_return(self, event: Return, t: int, i: int) -> None:
        ev: Any = event  # its fields unchecked where no one checked them
        team = ev.team
        player = ev.player
        had = (
            type(team) is str
            and team in self.mounts_out
            and type(player) is int
            and self.mounts_out[team].get(player) == "equipment"
            and self.out[team].get(player, {}).get("status") != "equipment"
        )
        super().on_return(event, t, i)
        if self.probed:
            return
        if had and type(team) is str:
            gone = self.mounts_gone[team]
            for m, g in list(gone.items()):
                if g.get("may_return") and g.get("last_rider") == player:
                    del gone[m]  # the equipment is put right: the mount may be ridden again

    # ----------------------------------------------------------------- report
    def mounts_report(self, team: str) -> dict[str, Any]:
        """Per mount on ``team``'s string: name, owner, rider, periods ridden, status."""
        string = self.strings[team]
        if not string:
            return {}
        riders = {m: p for p, m in self.riding[team].items() if self.may_play(team, p)}
        gone_all = self.mounts_gone[team]
        ridden = self.ridden[team]
        rides = self.rides[team]
        out: dict[str, Any] = {}
        for mid, m in string.items():
            g = gone_all.get(mid)
            ps = ridden.get(mid)
            if g is None:
                rider = riders.get(mid)
                out[mid] = {
                    "name": m.name,
                    "owner": m.owner,
                    "rider": rider,
                    "periods": ps.copy() if ps else [],
                    "rides": [{"period": a, "player": b} for a, b in rides.get(mid, ())],
                    "status": "available" if rider is None else "riding",
                    "reason": None,
                }
                continue
            entry: dict[str, Any] = {
                "name": m.name,
                "owner": m.owner,
                "rider": None,
                "periods": ps.copy() if ps else [],
                "rides": [{"period": a, "player": b} for a, b in rides.get(mid, ())],
                "status": str(g["status"]),
                "reason": g["reason"],
                "clause": g["clause"],
                "event": g["event"],
                "last_rider": g["last_rider"],
            }
            if g["status"] == MountStatus.DISQUALIFIED:
                entry["may_return"] = g["may_return"]
            out[mid] = entry
        return out

    def next_from(self) -> str | None:
        """When the next mount comes in: ``"split"`` while this period's split horn is
        ahead, else ``"period N"`` (the next one; the shootout counts); ``None`` when no
        period follows (final, or in the shootout)."""
        st = self.status
        if st is S_FINAL or self.final or st is _SHOOTOUT:
            return None
        if st is _INTERVAL:
            kind = self.interval_kind
            if kind is IV_SHOOTOUT_ROUND:
                return None
            if kind is IV_SHOOTOUT:
                return f"period {self.shootout_period()}"
        elif (st is _IN_PLAY or st is _STOPPED) and self.split and not self.split_done:
            return "split"
        return f"period {self.period + 1}"

    def next_of(
        self, team: str, player: int, when: str | None, riders: dict[str, int]
    ) -> dict[str, Any] | None:
        """``next_mount`` of one player (see :mod:`chukker.engine.plan`); ``riders``:
        mount -> the player of ``team`` in the game on it."""
        plan = self.plans[team].get(player)
        if when is None or not plan or not self.may_play(team, player):
            return None
        nm = next_mount(plan, self.mount_of(team, player), self.mounts_gone[team].__contains__,
                        riders, player)
        return None if nm is None else {"mount": nm, "from": self.from_of(team, player, when)}

    def from_of(self, team: str, player: int, when: str) -> str:
        """``next_mount.from`` of one player (``docs/engine.md``, "The groom's split"),
        from the team's ``when`` (:meth:`next_from`):

        - at the split (the horn sounded, play not resumed): ``"split"`` until this player's
          change is recorded, then the next period;
        - before a period (before the first, or in a regular or extra interval): a player
          already saddled for it (a ``mount`` since the last period ended) gets the horse
          after, at that period's ``"split"`` (with split periods) or the period after it.
        """
        st = self.status
        at = self.mounted_at[team].get(player)
        if st is _STOPPED and self.split_done and self.mount_change_since is not None:
            return when if at is not None and at >= self.mount_change_since else "split"
        if st is S_PRE_MATCH or (st is _INTERVAL and (
                self.interval_kind is IV_REGULAR or self.interval_kind is IV_EXTRA)):
            if at is None or self.riding[team].get(player) is None:
                return when
            if self.periods and (self.periods[-1][2] is None or at < self.periods[-1][2]):
                return when  # ridden in the period just ended: not saddled for the next
            return "split" if self.split else f"period {self.period + 2}"
        return when

    def roster_report(self, team: str) -> dict[str, Any]:
        r = super().roster_report(team)
        if self.strings[team]:
            plans = self.plans[team]
            when = self.next_from() if plans else None
            riders: dict[str, int] = {}
            if when is not None:
                for q, m in self.riding[team].items():
                    if self.may_play(team, q):
                        riders[m] = q
            for no, entry in r["players"].items():
                p = int(no)
                old = entry.pop("mount", None)
                if old is not None:
                    entry["mount_out"] = old  # Penalty 8 on a mount not on the string
                entry["mount"] = self.mount_of(team, p)
                if (team, p) in self.mount_wait and self.why_not(team, p) is None:
                    entry["mount_needed"] = True
                if plans:
                    entry["next_mount"] = (
                        None if when is None else self.next_of(team, p, when, riders))
        return r

    def report(self, at_ms: int) -> dict[str, Any]:
        r = super().report(at_ms)
        r["mounts"] = {t: self.mounts_report(t) for t in self.team_ids}
        return r
