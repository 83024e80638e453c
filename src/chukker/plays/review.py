"""Review of an analysed file: candidates on a timeline, each as a diagram of its moment.

:func:`analyse_file` reads a tracking file, a scenario or a GPS session, runs the
detectors and keeps the result in :data:`REVIEWS` under a short id (a hash of the
file's bytes), which the web page ``/plays/review/{id}`` shows. :func:`moment`
turns the few seconds around a candidate into a :class:`Scenario`, so that the
animated diagram (line of the ball, right of way, the candidate's marker) is
drawn by the same renderer as the shipped plays. :func:`candidates_csv` is the
export for a video tool: start and end in seconds from the first frame (and in
UTC for a GPS session).

>>> from chukker.plays.scenario import load_shipped
>>> rv = review_of("demo", load_shipped("13b-zigzag").tracking())
>>> [(r.clause, r.player) for r in rows(rv)]
[('13b', 'white:2')]
>>> candidates_csv(rv).splitlines()[0]
'clause,team,player,start_s,end_s,start_utc,end_utc,evidence'
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from chukker import csvsafe
from chukker.plays.candidates import Candidate
from chukker.plays.detectors import detect
from chukker.plays.gps import GPSSession
from chukker.plays.scenario import LANGS, RenderHints, Scenario, Team, Track, Verdict
from chukker.plays.tracking import F64, Event, EventKind, PlayerId, Tracking
from chukker.plays.words import describe, player_name, team_name

#: colours of team names in tracking files (others get a grey)
COLOURS = {
    "blue": "#2f6fd6",
    "white": "#f2f2f2",
    "red": "#d0312d",
    "black": "#222222",
    "green": "#2e8b57",
    "yellow": "#f2c200",
    "orange": "#f28c28",
}
BEFORE_S = 3.0
AFTER_S = 2.0


@dataclass(frozen=True, slots=True, eq=False)
class Review:
    """An analysed file: its tracking, candidates and (for GPS) the units' report."""

    id: str
    name: str
    tracking: Tracking
    candidates: tuple[Candidate, ...]
    session: GPSSession | None = None
    not_run: dict[str, str] = field(default_factory=dict)

    @property
    def duration(self) -> float:
        t = self.tracking.t
        return float(t[-1] - t[0]) if t.size else 0.0


#: reviews of this process, by id (the latest ``KEEP``)
REVIEWS: dict[str, Review] = {}
KEEP = 32


def review_of(
    name: str, tr: Tracking, session: GPSSession | None = None, rid: str | None = None,
    *, keep: bool = True,
) -> Review:
    cands = detect(tr)
    not_run: dict[str, str] = {}
    if session is not None:
        cands = [c for c in cands if session.keeps(c)]
        not_run = dict(session.not_run)
    rid = rid or hashlib.sha1(name.encode()).hexdigest()[:12]
    rv = Review(rid, name, tr, tuple(cands), session, not_run)
    if keep:
        remember(rv)
    return rv


def remember(rv: Review) -> None:
    """Keep ``rv`` in :data:`REVIEWS` (the latest :data:`KEEP`)."""
    rid = rv.id
    REVIEWS.pop(rid, None)
    REVIEWS[rid] = rv
    while len(REVIEWS) > KEEP:
        del REVIEWS[next(iter(REVIEWS))]


def load_any(path: Path) -> Tracking:
    """A tracking file (``.csv``, ``.parquet``) or a scenario (``.toml``) as :class:`Tracking`."""
    from chukker.plays.scenario import load
    from chukker.plays.tracking import read_tracking

    if path.suffix.lower() == ".toml":
        return load(path).tracking()
    return read_tracking(path)


def analyse_file(
    path: str | Path, name: str | None = None, files: Mapping[str, Path] | None = None,
    *, keep: bool = True,
) -> Review:
    """Read and analyse a tracking CSV/Parquet, a scenario TOML or a GPS session TOML.

    ``files``: for an upload, the request's other files by name, the only ones a GPS
    session may name (:func:`chukker.plays.gps.session_file`); ``None`` on the command
    line (relative to the session's folder). ``keep=False`` leaves :data:`REVIEWS`
    alone (a worker process analyses, the server keeps)."""
    from chukker.plays import gps

    p = Path(path)
    h = hashlib.sha1(p.read_bytes())
    session = None
    if gps.is_session(p):
        session = gps.read_session(p, files=files)
        tr = session.tracking
        for other in sorted((files or {}).items()):  # the fixes belong to the session's identity
            h.update(other[0].encode())
            h.update(other[1].read_bytes())
    else:
        tr = load_any(p)
    return review_of(name or p.name, tr, session, h.hexdigest()[:12], keep=keep)


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the timeline: a clause and a player, and his candidates (indices)."""

    clause: str
    player: str
    items: tuple[int, ...]


def rows(rv: Review) -> list[Row]:
    """Candidates grouped by clause and player, in clause then player order."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, c in enumerate(rv.candidates):
        groups.setdefault((str(c.clause), c.who), []).append(i)
    return [
        Row(clause, player, tuple(ix))
        for (clause, player), ix in sorted(groups.items(), key=lambda kv: _clause_key(kv[0]))
    ]


def _clause_key(k: tuple[str, str]) -> tuple[int, str, str]:
    digits = "".join(ch for ch in k[0] if ch.isdigit())
    return (int(digits or 0), k[0], k[1])


def utc(rv: Review, t: float) -> str:
    """The UTC instant of ``t`` seconds into a GPS session ('' otherwise)."""
    if rv.session is None:
        return ""
    stamp = datetime.fromtimestamp(rv.session.start_epoch_s + t, UTC)
    return stamp.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def candidates_csv(rv: Review, lang: str = "en") -> str:
    """The candidates for a video tool: one row each, start and end in seconds (and UTC)."""
    buf = io.StringIO()
    w = csvsafe.writer(buf, lineterminator="\n")
    w.writerow(["clause", "team", "player", "start_s", "end_s", "start_utc", "end_utc",
                "evidence"])  # fmt: skip
    for c in rv.candidates:
        w.writerow(
            [
                str(c.clause),
                c.team,
                c.player,
                f"{c.start:.2f}",
                f"{c.end:.2f}",
                utc(rv, c.start),
                utc(rv, c.end),
                describe(c, lang),
            ]
        )
    return buf.getvalue()


def rule_number(clause: str) -> int:
    """``13b`` -> 13."""
    digits = ""
    for ch in clause:
        if not ch.isdigit():
            break
        digits += ch
    return int(digits or 0)


def moment(rv: Review, index: int, lang: str = "en") -> Scenario:
    """The seconds around candidate ``index`` as a scenario the renderers draw."""
    c = rv.candidates[index]
    tr = rv.tracking
    t0 = max(float(tr.t[0]), c.start - BEFORE_S)
    t1 = min(float(tr.t[-1]), c.end + AFTER_S)
    sel = np.flatnonzero((tr.t >= t0 - 1e-9) & (tr.t <= t1 + 1e-9))
    ts = tr.t[sel] - t0

    def track(xy: F64) -> Track:
        return Track(
            tuple((float(a), float(x), float(y)) for a, (x, y) in zip(ts, xy[sel], strict=True))
        )

    teams = []
    for name in sorted({p.team for p in tr.players}):
        label = tuple((lang_, team_name(name, lang_)) for lang_ in LANGS)
        teams.append(Team(name, COLOURS.get(name, "#888888"), label, tr.side_of(name)))
    players = tuple((p, track(tr.pos[:, j, :])) for j, p in enumerate(tr.players))
    ball = track(tr.ball) if tr.ball is not None else None
    culprit = PlayerId(c.team, c.player)
    text = tuple((lang_, describe(c, lang_)) for lang_ in LANGS)
    events = [Event(e.t - t0, e.kind, e.player, e.on, e.text) for e in tr.events if t0 <= e.t <= t1]
    events.append(Event(c.start - t0, EventKind.FOUL, culprit, None, text))
    xs = tr.pos[sel, :, 0]
    ys = tr.pos[sel, :, 1]
    pad = 8.0
    view = (
        max(0.0, float(xs.min()) - pad),
        max(0.0, float(ys.min()) - pad),
        min(tr.length, float(xs.max()) + pad),
        min(tr.width, float(ys.max()) + pad),
    )
    title = tuple(
        (lang_, f"{c.clause!s} · {player_name(c.who, lang_)} · {c.start:.1f} s") for lang_ in LANGS
    )
    return Scenario(
        id=f"review-{rv.id}-{index}",
        clause=str(c.clause),
        clauses=(str(c.clause),),
        edition="uspa-arena-2026",
        verdict=Verdict.CANDIDATE,
        culprit=culprit,
        title=title,
        explanation=text,
        teams=tuple(teams),
        players=players,
        ball=ball,
        events=tuple(sorted(events, key=lambda e: e.t)),
        duration=float(ts[-1]) if ts.size else 0.0,
        render=RenderHints(view=view, png_at=c.start - t0),
    )
