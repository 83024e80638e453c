"""Editions of the USPA Arena Rules as data.

Every number the engine uses is a :class:`Param` here, with the clause it
comes from, so a rule page can say what chukker does with it and an edition
diff can show what changed. Clause ids follow the rulebook corpus: a printed
id where the source prints one (``9``, ``17``), else the rule number and the
section heading's slug (``5.split-periods``).

>>> e = edition("uspa-arena-2026")
>>> e.shootout_interval_ms.value, e.shootout_interval_ms.clause
(240000, '5.tie-shootout-set-up')
>>> edition("uspa-arena-2006").shootout_interval_ms.value
120000
>>> edition("uspa-arena-2006").has("split_periods"), introduced_in("split_periods")
(False, 'uspa-arena-2026')
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from enum import StrEnum

#: What an edition may have or lack; each is named by the feature (an option or an
#: event type) that uses it.
FEATURES = (
    "split_periods",  # Rule 5 (2026), "Split periods"
    "late_penalty_reset",  # Rule 5 (2026), "Penalties at the end of a period": reset to 5 s
    "shootout_players_one",  # Rule 5 (2026): the committee may choose one player each
    "shootout_rounds",  # Rule 5 (2026), "Scoring and further rounds"
    "move_to_15",  # Rule 5 (2026), "Moving the ball closer"
    "shootout_mounts",  # Rule 5 (2026): shootout mounts are those of the final regular period
)


class EditionId(StrEnum):
    USPA_ARENA_2026 = "uspa-arena-2026"
    USPA_ARENA_2006 = "uspa-arena-2006"
    #: a committee's own edition, carried in the record (:mod:`chukker.rules.club`)
    CLUB = "club"


@dataclass(frozen=True, slots=True)
class Param:
    """One rule parameter: its value, the clause it comes from, and a note."""

    value: int
    clause: str
    note: str = ""
    #: where the value comes from: ``rule`` (the clause sets it) or ``contract`` (the clause
    #: needs a value it does not set; the match-record contract gives it)
    source: str = "rule"


@dataclass(frozen=True, slots=True)
class PeriodPlan:
    """A committee's choice of periods (Rule 5)."""

    count: int
    length_ms: int
    #: interval after period ``i`` (1-based) is ``intervals_ms[i - 1]``
    intervals_ms: tuple[int, ...]
    clause: str


@dataclass(frozen=True, slots=True)
class Club:
    """What makes an edition a club's (:mod:`chukker.rules.club`): its name, its base
    and what it changed."""

    name: str
    base: str
    #: the parameters set (their names in the edition: ``regulation``, ``split_after_ms``...)
    changed: tuple[str, ...]
    #: the base's features the club does not play
    without: tuple[str, ...]

    @property
    def clause(self) -> str:
        """What a value of the club's cites."""
        return f"club rules: {self.name}"


@dataclass(frozen=True, slots=True)
class Edition:
    """The parameters of one edition of the arena rules."""

    id: EditionId
    title: str
    source: str
    regulation: PeriodPlan
    six: PeriodPlan
    split_after_ms: Param
    mount_change_max_ms: Param
    warning_at_ms: Param
    late_penalty_reset_ms: Param
    extra_first_interval_ms: Param
    extra_between_interval_ms: Param
    shootout_interval_ms: Param
    shootout_round_interval_ms: Param
    shootout_attempts_before_move: Param
    injury_timeout_max_ms: Param
    two_point_goal: Param
    penalty_goal_points: Param
    arena_length_yd: Param
    arena_width_yd: Param
    p1_bowl_in_yd: Param
    p2_spot_yd: Param
    p3_spot_yd: Param
    p4_spot_yd: Param
    p4_goal_arc_yd: Param
    p5b_wall_min_yd: Param
    rule10_goal_min_yd: Param
    players_per_team: Param
    handicap_base_periods: Param
    shootout_spot_yd: Param
    shootout_moved_spot_yd: Param
    #: the :data:`FEATURES` this edition has
    features: frozenset[str] = frozenset(FEATURES)
    #: the year of the text, to tell which edition introduced a feature
    year: int = 2026
    #: a club edition's name, base and changes (:mod:`chukker.rules.club`); None for USPA's
    club: Club | None = None

    def has(self, feature: str) -> bool:
        """Whether the edition's text has ``feature`` (one of :data:`FEATURES`)."""
        return feature in self.features

    def params(self) -> dict[str, Param]:
        """Every :class:`Param` of the edition by name."""
        out: dict[str, Param] = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Param):
                out[f.name] = v
        return out

    def plan(self, periods: str) -> PeriodPlan:
        """The :class:`PeriodPlan` for ``options.periods`` (``regulation`` or ``six``)."""
        if periods == "regulation":
            return self.regulation
        if periods == "six":
            return self.six
        raise ValueError(f"options.periods: unknown value {periods!r} (regulation or six)")


_MIN = 60_000

USPA_ARENA_2026 = Edition(
    id=EditionId.USPA_ARENA_2026,
    title="USPA Arena Rules 2026",
    source="2026 Rule 5 and Rule 13 pages; the 2006 summary for the other rules",
    regulation=PeriodPlan(
        4, 7 * _MIN + 30_000, (4 * _MIN, 10 * _MIN, 4 * _MIN), "5.regulation-game"
    ),
    six=PeriodPlan(
        6,
        5 * _MIN,
        (4 * _MIN, 4 * _MIN, 10 * _MIN, 4 * _MIN, 4 * _MIN),
        "5.six-periods-of-5-minutes",
    ),
    split_after_ms=Param(3 * _MIN + 30_000, "5.split-periods", "horn at the first stoppage after"),
    mount_change_max_ms=Param(2 * _MIN, "5.split-periods", "mount change at a split"),
    warning_at_ms=Param(30_000, "5.the-horn-ends-the-period", "recommended warning horn"),
    late_penalty_reset_ms=Param(
        5_000, "5.penalties-at-the-end-of-a-period", "clock reset before the free hit"
    ),
    extra_first_interval_ms=Param(
        10 * _MIN, "5.tie-extra-periods", "interval before extra periods"
    ),
    extra_between_interval_ms=Param(
        4 * _MIN,
        "5.tie-extra-periods",
        "between extra periods: Rule 5 says 'additional periods, as required' and sets no "
        "interval; the 4 minutes come from the match-record contract",
        "contract",
    ),
    shootout_interval_ms=Param(4 * _MIN, "5.tie-shootout-set-up", "interval before the shootout"),
    shootout_round_interval_ms=Param(2 * _MIN, "5.scoring-and-further-rounds", "between rounds"),
    shootout_attempts_before_move=Param(
        2, "5.moving-the-ball-closer", "failed attempts per member"
    ),
    injury_timeout_max_ms=Param(15 * _MIN, "16", "then the player is disabled"),
    two_point_goal=Param(2, "6", "from beyond the two-point line"),
    penalty_goal_points=Param(1, "9", "Penalty 1 goal"),
    arena_length_yd=Param(100, "1", "300 ft"),
    arena_width_yd=Param(50, "1", "150 ft"),
    p1_bowl_in_yd=Param(15, "9", "Penalty 1 bowl-in in front of the fouling team's goal"),
    p2_spot_yd=Param(15, "9", "Penalty 2 spot"),
    p3_spot_yd=Param(25, "9", "Penalty 3 spot"),
    p4_spot_yd=Param(25, "9", "Penalty 4 spot"),
    p4_goal_arc_yd=Param(5, "9", "Penalty 4: one defender within this arc of the goal"),
    p5b_wall_min_yd=Param(5, "9", "Penalty 5b: at least this far from the wall"),
    rule10_goal_min_yd=Param(
        15, "10", "fouls by both teams: bowl-in at least this far from a goal"
    ),
    players_per_team=Param(3, "3", "numbered 1 to 3"),
    handicap_base_periods=Param(4, "17", "handicaps are based on four periods"),
    shootout_spot_yd=Param(25, "5.taking-the-shot", "shootout free hit from the 25-yard line"),
    shootout_moved_spot_yd=Param(
        15, "5.moving-the-ball-closer", "the umpires may move the ball to the 15-yard line"
    ),
)

#: The 2006 summary, as its text says. Rule 5 there has the two period plans, the
#: warning horn, extra periods after 10 minutes and a shootout after 2 minutes in
#: which "each player will attempt a free hit from the 25-yard line ... Team with
#: most goals wins". It has no split periods, no reset to 5 seconds before a late
#: free hit, no one-player shootout, no further rounds and no move to the 15-yard
#: line: those come with the 2026 pages, and an option or event that needs them is
#: refused in a 2006 match, naming the edition that introduced it.
USPA_ARENA_2006 = replace(
    USPA_ARENA_2026,
    id=EditionId.USPA_ARENA_2006,
    title="USPA Arena Rules 2006 (summary)",
    source="2006 summary of the 18 arena rules",
    regulation=PeriodPlan(4, 7 * _MIN + 30_000, (4 * _MIN, 10 * _MIN, 4 * _MIN), "5"),
    six=PeriodPlan(6, 5 * _MIN, (4 * _MIN, 4 * _MIN, 10 * _MIN, 4 * _MIN, 4 * _MIN), "5"),
    warning_at_ms=Param(30_000, "5", "recommended warning horn"),
    extra_first_interval_ms=Param(10 * _MIN, "5", "interval before extra periods"),
    extra_between_interval_ms=Param(
        4 * _MIN,
        "5",
        "between extra periods: Rule 5(a) sets no interval; the 4 minutes come from the "
        "match-record contract",
        "contract",
    ),
    shootout_interval_ms=Param(2 * _MIN, "5", "interval before the shootout"),
    shootout_spot_yd=Param(25, "5", "each player attempts a free hit from the 25-yard line"),
    features=frozenset(),
    year=2006,
)

EDITIONS: dict[str, Edition] = {
    USPA_ARENA_2026.id: USPA_ARENA_2026,
    USPA_ARENA_2006.id: USPA_ARENA_2006,
}


def edition(edition_id: str) -> Edition:
    """The :class:`Edition` named ``edition_id``; :class:`ValueError` if unknown."""
    try:
        return EDITIONS[edition_id]
    except KeyError:
        known = ", ".join(EDITIONS)
        raise ValueError(f"rules: unknown edition {edition_id!r} (known: {known})") from None


def introduced_in(feature: str) -> str:
    """The id of the earliest edition that has ``feature``."""
    having = sorted((e for e in EDITIONS.values() if e.has(feature)), key=lambda e: e.year)
    return str(having[0].id) if having else "no edition"
