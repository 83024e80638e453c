"""The state of one fold, its constructor, copy and shared checks (internal).

Time is integer milliseconds since the record started; nothing here reads a clock.
Every refusal is a :class:`Refused` with a code and its params (see
:data:`chukker.engine.errors.MESSAGES`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final, Self, final

from chukker.engine import spots
from chukker.engine.errors import message, show
from chukker.engine.setup import Mount, Setup
from chukker.engine.types import (
    DecidedBy,
    End,
    HornKind,
    IntervalKind,
    RestartKind,
    ShootoutPlayers,
    Status,
    Tiebreak,
    TwoPointLine,
)
from chukker.rules.editions import introduced_in

INF: Final = math.inf
# enum members as module constants: in Python 3.11 ``Status.IN_PLAY`` goes through
# ``EnumType.__getattr__`` (about 0.3 us a time); a module constant costs a global load
# (and is a C static in the compiled engine)
S_FINAL: Final = Status.FINAL
S_INTERVAL: Final = Status.INTERVAL
S_IN_PLAY: Final = Status.IN_PLAY
S_PRE_MATCH: Final = Status.PRE_MATCH
S_SHOOTOUT: Final = Status.SHOOTOUT
S_STOPPED: Final = Status.STOPPED
IV_EXTRA: Final = IntervalKind.EXTRA
IV_REGULAR: Final = IntervalKind.REGULAR
IV_SHOOTOUT: Final = IntervalKind.SHOOTOUT
IV_SHOOTOUT_ROUND: Final = IntervalKind.SHOOTOUT_ROUND
HORN_END: Final = HornKind.END
HORN_SPLIT: Final = HornKind.SPLIT
HORN_WARNING: Final = HornKind.WARNING
BY_EXTRA_PERIOD: Final = DecidedBy.EXTRA_PERIOD
BY_FORFEIT: Final = DecidedBy.FORFEIT
BY_PENALTY: Final = DecidedBy.PENALTY
BY_REGULATION: Final = DecidedBy.REGULATION
BY_SHOOTOUT: Final = DecidedBy.SHOOTOUT
RK_BOWL_IN: Final = RestartKind.BOWL_IN
RK_FREE_HIT: Final = RestartKind.FREE_HIT
TPL_NONE: Final = TwoPointLine.NONE
SP_ONE: Final = ShootoutPlayers.ONE
TB_SHOOTOUT: Final = Tiebreak.SHOOTOUT


@final
class Pending:
    """A free hit awarded and not yet taken (Rule 9): the penalty (``5`` already ``5a`` or
    ``5b``), the fouling team, the team that takes it, the foul's spot, the instant (ms)
    and the event (from 1) that awarded it. Replaced, never changed in place; the report
    spells it as the contract's ``pending_penalty``. A native object, not a dict: a foul
    builds one (issue 46), and a dict of six keys costs about three times as much.

    >>> Pending("3", "A", "B", None, 61_250, 4) == Pending("3", "A", "B", None, 61_250, 4)
    True
    """

    __slots__ = ("at", "event", "fouling", "penalty", "spot", "to")

    def __init__(self, penalty: str, fouling: str, to: str, spot: tuple[float, float] | None,
                 at: int, event: int) -> None:
        self.penalty = penalty
        self.fouling = fouling
        self.to = to
        self.spot = spot
        self.at = at
        self.event = event

    def again(self, at: int, event: int) -> Pending:
        """The same free hit, awarded again at ``at`` by ``event`` (Penalty 6)."""
        return Pending(self.penalty, self.fouling, self.to, self.spot, at, event)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Pending):
            return NotImplemented
        return (self.penalty, self.fouling, self.to, self.spot, self.at, self.event) == (
            other.penalty, other.fouling, other.to, other.spot, other.at, other.event)

    def __hash__(self) -> int:
        return hash((self.penalty, self.fouling, self.to, self.spot, self.at, self.event))

    def __repr__(self) -> str:
        return (f"Pending({self.penalty!r}, {self.fouling!r}, {self.to!r}, {self.spot!r}, "
                f"{self.at!r}, {self.event!r})")


# shared restart descriptors (read-only; the report builds fresh objects from them)
R_CENTER: Final[Mapping[str, Any]] = {"kind": RK_BOWL_IN, "where": "center"}
R_STOP: Final[Mapping[str, Any]] = {"kind": RK_BOWL_IN, "where": "stop"}
R_PENDING: Final[Mapping[str, Any]] = {"kind": RK_FREE_HIT, "where": "pending"}
R_RULE10: Final[Mapping[str, Any]] = {"kind": RK_BOWL_IN, "where": "rule10"}

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


def bool_field(v: Any, key: str) -> bool:
    """An optional true-or-false field's value (``None``: absent, false)."""
    if v is None:
        return False
    if not isinstance(v, bool):
        raise Refused("field_invalid", field=key, expected="true or false", value=show(v))
    return v


_LENGTH: Final = spots.LENGTH
_WIDTH: Final = spots.WIDTH


def parse_spot(raw: Any) -> tuple[float, float] | None:
    if raw is None:
        return None
    tr = type(raw)
    if (tr is tuple or tr is list) and len(raw) == 2:
        # the record's spot, two floats on the field: a typed event's pair, a dict's list
        x0, y0 = raw[0], raw[1]
        if type(x0) is float and type(y0) is float:
            xf: float = x0
            yf: float = y0
            if 0.0 <= xf <= _LENGTH and 0.0 <= yf <= _WIDTH:
                return (xf, yf)
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


class Tables:
    """What a state reads of its set-up and never changes (shared by every state of one
    set-up and by their copies): computed once per set-up, :func:`tables`."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.ed = setup.edition
        self.opts = setup.options
        self.plan = setup.plan
        self.length = self.plan.length_ms
        self.team_ids = setup.team_ids
        a, b = self.team_ids
        ta, tb = setup.teams
        self.other = {a: b, b: a}
        self.hcp = setup.handicap_goals()
        self.warn = self.opts.warning_horn
        self.warn_at = self.ed.warning_at_ms.value
        self.split = self.opts.split_periods and self.ed.has("split_periods")
        self.split_after = self.ed.split_after_ms.value
        self.sheet = {a: {p.no: p for p in ta.players + ta.alternates},
                      b: {p.no: p for p in tb.players + tb.alternates}}
        #: each team's sheet in order, each number with its key in the report
        self.sheet_keys: dict[str, tuple[tuple[int, str], ...]] = {
            t: tuple([(n, str(n)) for n in sorted(self.sheet[t])]) for t in (a, b)}
        #: each team's string by mount id, the grooms' plans (record 1.2, 1.3; ``.mounts``)
        self.strings: dict[str, dict[str, Mount]] = {
            a: {m.id: m for m in ta.mounts}, b: {m.id: m for m in tb.mounts}}
        self.plans: dict[str, dict[int, tuple[str, ...]]] = {a: dict(ta.plan), b: dict(tb.plan)}
        #: the end each team defends in an odd and in an even period (Rule 8), and as the
        #: report spells them
        self.ends: tuple[dict[str, End], dict[str, End]] = (setup.defends(1), setup.defends(2))
        odd, even = self.ends  # each in the set-up's order (``first_defends``)
        self.ends_said: tuple[dict[str, str], dict[str, str]] = (
            {t: str(e) for t, e in odd.items()}, {t: str(e) for t, e in even.items()})

    def half(self, period: int) -> int:
        """Which of :attr:`ends` and :attr:`ends_said` holds ``period``'s ends."""
        return 0 if period % 2 else 1


#: the tables of recent set-ups, by ``id`` (each holds its set-up, so no other set-up
#: takes that ``id`` while it is kept); at most ``TABLES_MAX``, emptied when full
_TABLES: Final[dict[int, Tables]] = {}
TABLES_MAX: Final = 64


def tables(setup: Setup) -> Tables:
    """The :class:`Tables` of ``setup``, made once (a replay of many records of one
    set-up, the live service's copies of a match's state)."""
    k = _TABLES.get(id(setup))
    if k is None or k.setup is not setup:
        if len(_TABLES) >= TABLES_MAX:
            _TABLES.clear()
        k = _TABLES[id(setup)] = Tables(setup)
    return k


class State:
    """The derived state of a match after some events, and the checks every handler
    shares. :class:`~chukker.engine.core.Core` adds the handlers, one layer per concern."""

    def __init__(self, setup: Setup, *, blank: bool = False) -> None:
        """The state before the first event (``blank``: nothing set, for :meth:`copy`)."""
        self.setup = setup
        #: a probe of ``allowed``: a handler returns at :meth:`accept`, before its first
        #: change, and sets ``probed``
        self.probing = False
        self.probed = False
        if blank:
            return
        k = tables(setup)  # what the set-up decides, read once per set-up
        self.tables = k
        self.ed = k.ed
        self.opts = k.opts
        self.plan = k.plan
        self.length = k.length
        self.team_ids = k.team_ids
        # the per-team tables have the two teams as keys, in this order: displays of two
        # are cheaper than comprehensions (as in :meth:`copy`)
        a, b = self.team_ids
        ta, tb = setup.teams
        self.other = k.other
        self.hcp = k.hcp
        self.warn = k.warn
        self.warn_at = k.warn_at
        self.split = k.split
        self.split_after = k.split_after
        self.sheet = k.sheet

        self.now = 0
        self.last_at = 0
        self.status = S_PRE_MATCH
        self.period = 0
        # clock
        self.running = False
        self.remaining = self.length
        self.run_since = 0
        self.warning_done = False
        self.split_done = False
        self.mount_change_since: int | None = None
        self.corrections: list[dict[str, Any]] = []
        #: the event (from 1) that started each period, and every event that set the clock
        #: running (a period's start or a restart of play): what an undo may not change
        #: (:mod:`.fold`, ``docs/engine.md`` "An undo does not rewrite the later events")
        self.period_from: list[int] = []
        self.restarts: list[int] = []
        # intervals
        self.interval_kind: IntervalKind | None = None
        self.interval_start = 0
        self.interval_end = 0
        self.interval_over = False
        self.deadline: float = INF
        # score and history
        self.goals = {a: 0, b: 0}
        self.bonus = {a: 0, b: 0}
        self.goal_log: list[dict[str, Any]] = []
        self.foul_log: list[dict[str, Any]] = []
        self.horns: list[tuple[int, int, str]] = []
        self.periods: list[list[Any]] = []
        self.notices: list[dict[str, Any]] = []
        # restarts and penalties
        self.awaiting_bowl_in = True
        self.restart: Mapping[str, Any] | None = R_CENTER
        self.pending: Pending | None = None
        self.last_free_hit: Pending | None = None
        self.fh_open = False  # play since the last free hit has not been stopped or scored
        self.fh_goal: int | None = None  # goal_log index of a goal scored from that free hit
        self.stoppage_fouls: set[str] = set()
        self.stoppage_spot: tuple[float, float] | None = None
        # roster (who is on the field; who may not play and why)
        self.field = {a: [p.no for p in ta.players], b: [p.no for p in tb.players]}
        self.out: dict[str, dict[int, dict[str, Any]]] = {a: {}, b: {}}
        self.mounts_out: dict[str, dict[int, str]] = {a: {}, b: {}}
        #: riders whose mount left the game (record 1.2, :mod:`.mounts`): they change mounts
        #: before play resumes; (team, player) -> (mount id, clause)
        self.mount_wait: dict[tuple[str, int], tuple[str, str]] = {}
        self.designation: dict[str, dict[str, Any] | None] = {a: None, b: None}
        self.removed: dict[str, dict[int, str]] = {a: {}, b: {}}
        self.disabled: dict[str, dict[int, str]] = {a: {}, b: {}}
        #: the injury time-outs running (Rule 16), each ``{team, player, since, deadline,
        #: event}``: replaced, never changed in place; ended when play resumes
        self.injuries: tuple[dict[str, Any], ...] = ()
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
        self.so_goals = {a: 0, b: 0}
        self.so_moved = False
        self.so_next_at = 0
        self.so_attempts: dict[tuple[str, int], list[bool]] = {}

    def copy(self) -> Self:
        """An independent copy, cheap: logs are copied as lists (their entries are never
        changed in place; a changed entry is replaced), tables one or two levels deep.
        Values that are replaced, never changed in place (``pending``, ``injuries``,
        ``so_order``, ``so_seq``, ``restart``), are shared.

        Field by field (the compiled engine's classes have no ``__dict__``);
        ``tests/engine/test_layout.py`` checks that no field set by ``__init__`` is missed.
        """
        c = type(self)(self.setup, blank=True)
        c.ed = self.ed
        c.opts = self.opts
        c.plan = self.plan
        c.length = self.length
        c.team_ids = self.team_ids
        c.other = self.other
        c.hcp = self.hcp
        c.warn = self.warn
        c.warn_at = self.warn_at
        c.split = self.split
        c.split_after = self.split_after
        c.sheet = self.sheet
        c.tables = self.tables
        c.now = self.now
        c.last_at = self.last_at
        c.status = self.status
        c.period = self.period
        c.running = self.running
        c.remaining = self.remaining
        c.run_since = self.run_since
        c.warning_done = self.warning_done
        c.split_done = self.split_done
        c.mount_change_since = self.mount_change_since
        c.corrections = self.corrections.copy()
        c.period_from = self.period_from.copy()
        c.restarts = self.restarts.copy()
        c.interval_kind = self.interval_kind
        c.interval_start = self.interval_start
        c.interval_end = self.interval_end
        c.interval_over = self.interval_over
        c.deadline = self.deadline
        c.goals = self.goals.copy()
        c.bonus = self.bonus.copy()
        c.goal_log = self.goal_log.copy()
        c.foul_log = self.foul_log.copy()
        c.horns = self.horns.copy()
        c.periods = self.periods.copy()
        c.notices = self.notices.copy()
        c.awaiting_bowl_in = self.awaiting_bowl_in
        c.restart = self.restart
        c.pending = self.pending
        c.last_free_hit = self.last_free_hit
        c.fh_open = self.fh_open
        c.fh_goal = self.fh_goal
        c.stoppage_fouls = self.stoppage_fouls.copy()
        c.stoppage_spot = self.stoppage_spot
        # the per-team tables have the two teams as keys, in team_ids order (set by
        # __init__, never replaced): a display of two is cheaper than a comprehension
        a, b = self.team_ids
        f = self.field
        c.field = {a: f[a].copy(), b: f[b].copy()}
        o = self.out
        c.out = {a: o[a].copy(), b: o[b].copy()}
        mo = self.mounts_out
        c.mounts_out = {a: mo[a].copy(), b: mo[b].copy()}
        c.mount_wait = self.mount_wait.copy()
        c.designation = self.designation.copy()
        r = self.removed
        c.removed = {a: r[a].copy(), b: r[b].copy()}
        d = self.disabled
        c.disabled = {a: d[a].copy(), b: d[b].copy()}
        c.injuries = self.injuries
        c.final = self.final
        c.final_at = self.final_at
        c.winner = self.winner
        c.decided_by = self.decided_by
        c.forfeited = self.forfeited.copy()
        c.so_first = self.so_first
        c.so_order = self.so_order
        c.so_seq = self.so_seq
        c.so_pos = self.so_pos
        c.so_round = self.so_round
        c.so_shots = self.so_shots.copy()
        c.so_goals = self.so_goals.copy()
        c.so_moved = self.so_moved
        c.so_next_at = self.so_next_at
        c.so_attempts = self.so_attempts.copy()
        ps = c.periods
        if ps:
            ps[-1] = list(ps[-1])
        return c

    def defends_in(self, period: int) -> dict[str, End]:
        """``setup.defends(period)``, read once per set-up (shared: never change it)."""
        return self.tables.ends[self.tables.half(period)]

    def accept(self) -> bool:
        """The point of no refusal: every check of the event is behind, its first change
        ahead. ``True`` for a probe (``probing``): it is accepted (``probed``) and its
        handler returns at once, changing nothing, so that one scratch copy serves every
        probe of ``allowed`` (a return, not an exception: a compiled exception costs a
        traceback at every frame). A handler that calls another handler returns when
        ``probed`` is set; one whose refusals are not all behind this point for some
        events calls it only for the others (a probe that runs to its end is accepted
        too, and its copy is not used again)."""
        if self.probing:
            self.probed = True
            return True
        return False

    def club_cite(self, *params: str) -> dict[str, str]:
        """``{"club": name}`` when a club's rules set one of ``params`` (a refusal that
        depends on it cites the club's rules), else nothing."""
        club = self.ed.club
        if club is not None and any(p in club.changed for p in params):
            return {"club": club.name}
        return {}

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

    def team_of(self, t: Any, key: str = "team") -> str:
        """``t``, an event's ``key`` field, as one of the match's teams."""
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
        self, p: Any, team: str, *, required: bool = False, key: str = "player"
    ) -> int | None:
        """``p``, an event's ``key`` field, as a number on ``team``'s sheet (``None``:
        absent, when not ``required``)."""
        if p is None:
            if required:
                raise Refused("field_missing", field=key)
            return None
        return self.sheet_player(p, team)

    def dead(self) -> Refused:
        st = self.status
        if st is S_PRE_MATCH:
            return Refused("not_started")
        if st is S_INTERVAL:
            return Refused("ball_dead", period=self.period, since_ms=self.periods[-1][2])
        if st is S_SHOOTOUT:
            return Refused("in_shootout")
        return Refused("play_stopped", restart="free_hit" if self.pending else "bowl_in")

    def check_not_final(self) -> None:
        if self.final:
            raise Refused("match_over", end_ms=self.final_at, decided_by=str(self.decided_by or ""))

    def check_edition(self, feature: str) -> None:
        if not self.ed.has(feature):
            raise Refused(
                "not_in_edition",
                feature=feature,
                edition=str(self.ed.id),
                introduced_in=introduced_in(feature),
            )
