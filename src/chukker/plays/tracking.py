"""Tracking data: players and ball positions over time, plus optional events.

A tracking file is *long* format: one row per entity per frame, with columns
``t`` (seconds), ``entity`` (``ball`` or ``TEAM:NO`` such as ``blue:1``),
``x`` and ``y`` (yards, origin at a corner, ``x`` along the length).
CSV and Parquet carry the same columns.

>>> PlayerId.parse("blue:1")
PlayerId(team='blue', number=1)
>>> str(PlayerId("white", 2))
'white:2'
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

import numpy as np
import numpy.typing as npt

from chukker import csvsafe
from chukker.errors import ChukkerError

F64 = npt.NDArray[np.float64]

_TEAM_RE = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")


class EventKind(StrEnum):
    """What happened at an instant of a play (scenario files and analysis)."""

    HIT = "hit"
    MISS = "miss"
    BOWL_IN = "bowl_in"
    BACKSWING = "backswing"
    STROKE = "stroke"
    DRIBBLE = "dribble"
    HOOK = "hook"
    CONTACT = "contact"
    FOUL = "foul"
    WHISTLE = "whistle"


class Side(StrEnum):
    """The end of the arena a team defends: ``left`` is x = 0, ``right`` is x = length."""

    LEFT = "left"
    RIGHT = "right"


@dataclass(frozen=True, slots=True, order=True)
class PlayerId:
    """A player as ``team:number``."""

    team: str
    number: int

    def __str__(self) -> str:
        return f"{self.team}:{self.number}"

    @classmethod
    def parse(cls, text: str, where: str = "entity") -> PlayerId:
        """Parse ``TEAM:NO``; :class:`TrackingError` names ``where`` when malformed."""
        team, sep, num = text.strip().partition(":")
        team = team.lower()
        if not sep or not _TEAM_RE.match(team) or not num.isdigit() or int(num) < 1:
            raise TrackingError(f"{where}: {text!r} is not 'ball' or TEAM:NO such as blue:1")
        return cls(team, int(num))


class TrackingError(ChukkerError):
    """A tracking or scenario file is malformed; the message says where."""

    code = "tracking_invalid"


@dataclass(frozen=True, slots=True)
class Event:
    """One event at time ``t``; ``player`` acts, ``on`` is the other player if any."""

    t: float
    kind: EventKind
    player: PlayerId | None = None
    on: PlayerId | None = None
    #: text per language code, e.g. ``(("en", "..."), ("it", "..."))``
    text: tuple[tuple[str, str], ...] = ()

    def text_in(self, lang: str) -> str | None:
        for code, value in self.text:
            if code == lang:
                return value
        return None


@dataclass(frozen=True, slots=True, eq=False)
class Tracking:
    """Positions of players ``(frames, players, 2)`` and ball ``(frames, 2)`` over ``t``.

    ``ball`` is ``None`` when the data has no ball. ``defends`` says which end
    each team defends (needed to tell Penalty 5b in 13k); unknown teams are absent.
    """

    t: F64
    players: tuple[PlayerId, ...]
    pos: F64
    ball: F64 | None
    events: tuple[Event, ...] = ()
    defends: tuple[tuple[str, Side], ...] = field(default=())
    length: float = 100.0
    width: float = 50.0

    def __post_init__(self) -> None:
        n = self.t.shape[0]
        if self.pos.shape != (n, len(self.players), 2):
            raise TrackingError(
                f"tracking: positions shaped {self.pos.shape}, expected {(n, len(self.players), 2)}"
            )
        if self.ball is not None and self.ball.shape != (n, 2):
            raise TrackingError(f"tracking: ball shaped {self.ball.shape}, expected {(n, 2)}")
        if n > 1 and not bool(np.all(np.diff(self.t) > 0)):
            raise TrackingError("tracking: frame times must increase strictly")

    @property
    def frames(self) -> int:
        return int(self.t.shape[0])

    @property
    def entity_frames(self) -> int:
        """Frames times entities (players plus the ball if present)."""
        return self.frames * (len(self.players) + (1 if self.ball is not None else 0))

    def side_of(self, team: str) -> Side | None:
        for name, side in self.defends:
            if name == team:
                return side
        return None

    def with_defends(self, defends: Iterable[tuple[str, Side]]) -> Tracking:
        return Tracking(
            self.t,
            self.players,
            self.pos,
            self.ball,
            self.events,
            tuple(defends),
            self.length,
            self.width,
        )


# --------------------------------------------------------------------------- reading


def _fill_gaps(frame_idx: npt.NDArray[np.int64], xs: F64, ys: F64, n: int) -> F64:
    """Positions on every frame, linear between known frames, held at the edges."""
    out = np.empty((n, 2), dtype=np.float64)
    grid = np.arange(n, dtype=np.float64)
    known = frame_idx.astype(np.float64)
    out[:, 0] = np.interp(grid, known, xs)
    out[:, 1] = np.interp(grid, known, ys)
    return out


def from_long(
    t: F64,
    entity: Sequence[str] | npt.NDArray[np.object_],
    x: F64,
    y: F64,
    where: str = "tracking",
) -> Tracking:
    """Build :class:`Tracking` from long-format columns.

    Frames are the distinct values of ``t``; an entity missing from some frames
    is interpolated linearly (held constant before its first and after its last row).

    >>> tr = from_long(np.array([0.0, 0.0, 1.0, 1.0]), ["ball", "blue:1", "ball", "blue:1"],
    ...                np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.0, 0.0, 0.0, 0.0]))
    >>> tr.players, tr.pos[:, 0, 0].tolist(), tr.ball[:, 0].tolist()
    ((PlayerId(team='blue', number=1),), [2.0, 4.0], [1.0, 3.0])
    """
    t = np.asarray(t, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    ent = np.asarray(entity, dtype=object)
    if not (t.shape == x.shape == y.shape == ent.shape):
        raise TrackingError(f"{where}: columns t, entity, x, y differ in length")
    if t.size == 0:
        raise TrackingError(f"{where}: no rows")
    for name, col in (("t", t), ("x", x), ("y", y)):
        bad = np.flatnonzero(~np.isfinite(col))
        if bad.size:
            raise TrackingError(f"{where}: row {int(bad[0]) + 1}: column {name} is not a number")
    times, frame_of = np.unique(t, return_inverse=True)
    names, ent_of = np.unique(ent.astype(str), return_inverse=True)
    players: list[tuple[PlayerId, int]] = []
    ball_code = -1
    for code, name in enumerate(names.tolist()):
        if name.strip().lower() == "ball":
            ball_code = code
            continue
        row = int(np.flatnonzero(ent_of == code)[0]) + 1
        players.append((PlayerId.parse(name, f"{where}: row {row}"), code))
    players.sort()
    n = times.shape[0]
    pos = np.empty((n, len(players), 2), dtype=np.float64)
    order = np.lexsort((frame_of, ent_of))
    ent_sorted = ent_of[order]
    bounds = np.searchsorted(ent_sorted, np.arange(names.shape[0] + 1))

    def track(code: int) -> F64:
        rows = order[bounds[code] : bounds[code + 1]]
        fi = frame_of[rows]
        if fi.size > 1 and bool(np.any(np.diff(fi) == 0)):
            dup = int(rows[int(np.flatnonzero(np.diff(fi) == 0)[0]) + 1]) + 1
            raise TrackingError(f"{where}: row {dup}: {names[code]} twice at t={t[dup - 1]}")
        return _fill_gaps(fi, x[rows], y[rows], n)

    for j, (_, code) in enumerate(players):
        pos[:, j, :] = track(code)
    ball = track(ball_code) if ball_code >= 0 else None
    return Tracking(times, tuple(p for p, _ in players), pos, ball)


def to_long(tr: Tracking) -> tuple[F64, list[str], F64, F64]:
    """Long-format columns ``t, entity, x, y`` (ball first in each frame, then players)."""
    names = (["ball"] if tr.ball is not None else []) + [str(p) for p in tr.players]
    stacked = tr.pos if tr.ball is None else np.concatenate([tr.ball[:, None, :], tr.pos], axis=1)
    e = len(names)
    t = np.repeat(tr.t, e)
    ent = names * tr.frames
    return t, ent, stacked[:, :, 0].reshape(-1), stacked[:, :, 1].reshape(-1)


def read_csv(path: str | Path) -> Tracking:
    """Read a CSV tracking file (header ``t,entity,x,y``; other columns are ignored).

    Read as CSV whatever the name (a compressed file is refused), within the caps
    of :mod:`chukker.limits` (bytes, rows)."""
    import pyarrow.csv as pacsv  # type: ignore[import-untyped]

    from chukker.limits import LimitError
    from chukker.plays.files import read_table

    path = Path(path)
    try:
        table = read_table(
            path,
            "csv",
            pacsv.ConvertOptions(
                column_types={"t": "float64", "x": "float64", "y": "float64", "entity": "string"}
            ),
        )
    except LimitError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow raises its own types
        raise TrackingError(f"{path.name}: cannot read as CSV t,entity,x,y: {exc}") from None
    return _from_table(table, str(path.name))


def read_parquet(path: str | Path) -> Tracking:
    """Read a Parquet tracking file with columns ``t, entity, x, y`` (rows and decoded
    size capped before any column is decoded)."""
    from chukker.limits import LimitError
    from chukker.plays.files import read_table

    path = Path(path)
    try:
        table = read_table(path, "parquet")
    except LimitError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow raises its own types
        raise TrackingError(f"{path.name}: cannot read as Parquet: {exc}") from None
    return _from_table(table, str(path.name))


def _from_table(table: object, where: str) -> Tracking:
    import pyarrow as pa

    assert isinstance(table, pa.Table)
    missing = [c for c in ("t", "entity", "x", "y") if c not in table.column_names]
    if missing:
        raise TrackingError(f"{where}: missing column(s) {', '.join(missing)} (need t,entity,x,y)")
    if table.column("entity").null_count or table.column("t").null_count:
        raise TrackingError(f"{where}: empty cells in column entity or t")
    t = table.column("t").to_numpy().astype(np.float64)
    ent = np.asarray(table.column("entity").to_pylist(), dtype=object)
    x = table.column("x").to_numpy(zero_copy_only=False).astype(np.float64)
    y = table.column("y").to_numpy(zero_copy_only=False).astype(np.float64)
    return from_long(t, ent, x, y, where)


def write_csv(tr: Tracking, path: str | Path) -> None:
    """Write ``t,entity,x,y`` with full float precision (``repr``)."""
    t, ent, x, y = to_long(tr)
    buf = io.StringIO()
    w = csvsafe.writer(buf, lineterminator="\n")
    w.writerow(["t", "entity", "x", "y"])
    w.writerows(zip(t.tolist(), ent, x.tolist(), y.tolist(), strict=True))
    Path(path).write_text(buf.getvalue(), encoding="utf-8")


def write_parquet(tr: Tracking, path: str | Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    t, ent, x, y = to_long(tr)
    pq.write_table(pa.table({"t": t, "entity": ent, "x": x, "y": y}), path)


def read_tracking(path: str | Path) -> Tracking:
    """Read CSV or Parquet by extension (``.csv``, ``.parquet``, ``.pq``)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".csv":
        return read_csv(p)
    if suffix in (".parquet", ".pq"):
        return read_parquet(p)
    raise TrackingError(f"{p}: unknown tracking format {suffix!r} (.csv or .parquet)")
