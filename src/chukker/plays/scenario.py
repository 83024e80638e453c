"""Scenario files (TOML): a play drawn by hand, with its verdict and explanation.

Players and the ball move linearly between keyframes ``[t, x, y]``; the scenario
becomes tracking data at a fixed rate (25 Hz) so the detectors run on it exactly
as on real tracking files. Events (``hit``, ``stroke``, ``hook``, ``whistle`` ...)
feed the timeline and, where tracking cannot show it (mallet phase), the detectors.

>>> s = load_shipped("13b-zigzag")
>>> s.clause, s.verdict, str(s.culprit)
('13b', <Verdict.FOUL: 'foul'>, 'white:2')
>>> s.tracking().frames
81
>>> [x.id for x in shipped()][:2]
['12-row-cross', '13-bump-on-backswing']
"""

from __future__ import annotations

import functools
import itertools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from chukker.limits import loads_toml
from chukker.plays.tracking import (
    Event,
    EventKind,
    PlayerId,
    Side,
    Tracking,
    TrackingError,
)

LANGS = ("en", "es", "it")
RATE_HZ = 25.0


class Verdict(StrEnum):
    FOUL = "foul"
    NO_FOUL = "no foul"
    CANDIDATE = "candidate"  # a detector's candidate shown for review (not a scenario file)


class ScenarioError(TrackingError):
    """A scenario file is malformed; the message names the file and the key."""


Texts = tuple[tuple[str, str], ...]


def text_in(texts: Texts, lang: str) -> str:
    """The text in ``lang``, else English, else the first one."""
    d = dict(texts)
    return d.get(lang) or d.get("en") or (texts[0][1] if texts else "")


@dataclass(frozen=True, slots=True)
class Team:
    name: str
    colour: str
    label: Texts
    defends: Side | None = None


@dataclass(frozen=True, slots=True)
class Track:
    """Keyframes ``(t, x, y)`` of one entity."""

    keys: tuple[tuple[float, float, float], ...]

    def at(self, t: float) -> tuple[float, float]:
        ts = [k[0] for k in self.keys]
        return (
            float(np.interp(t, ts, [k[1] for k in self.keys])),
            float(np.interp(t, ts, [k[2] for k in self.keys])),
        )


@dataclass(frozen=True, slots=True)
class RenderHints:
    """Viewport ``(x0, y0, x1, y1)`` in yards and what to draw."""

    view: tuple[float, float, float, float] = (0.0, 0.0, 100.0, 50.0)
    show_row: bool = True
    show_line: bool = True
    png_at: float | None = None


@dataclass(frozen=True, slots=True)
class Scenario:
    id: str
    clause: str
    clauses: tuple[str, ...]
    edition: str
    verdict: Verdict
    culprit: PlayerId | None
    title: Texts
    explanation: Texts
    teams: tuple[Team, ...]
    players: tuple[tuple[PlayerId, Track], ...]
    ball: Track | None
    events: tuple[Event, ...]
    duration: float
    render: RenderHints

    def team(self, name: str) -> Team:
        for t in self.teams:
            if t.name == name:
                return t
        raise ScenarioError(f"scenario {self.id}: no team {name!r}")

    def label(self, pid: PlayerId, lang: str = "en") -> str:
        return f"{text_in(self.team(pid.team).label, lang)} {pid.number}"

    def tracking(self, rate: float = RATE_HZ) -> Tracking:
        """Tracking frames at ``rate`` Hz from 0 to ``duration``, interpolated linearly."""
        n = round(self.duration * rate) + 1
        t = np.arange(n, dtype=np.float64) / rate
        players = sorted(self.players)
        pos = np.empty((n, len(players), 2))
        for j, (_, tr) in enumerate(players):
            pos[:, j, :] = _sample(tr, t)
        ball = _sample(self.ball, t) if self.ball is not None else None
        defends = tuple((tm.name, tm.defends) for tm in self.teams if tm.defends is not None)
        return Tracking(t, tuple(p for p, _ in players), pos, ball, self.events, defends)


def _sample(track: Track, t: np.ndarray[Any, np.dtype[np.float64]]) -> np.ndarray[Any, Any]:
    ts = np.array([k[0] for k in track.keys])
    out = np.empty((t.shape[0], 2))
    out[:, 0] = np.interp(t, ts, np.array([k[1] for k in track.keys]))
    out[:, 1] = np.interp(t, ts, np.array([k[2] for k in track.keys]))
    return out


# --------------------------------------------------------------------------- parsing


def _texts(d: Any, where: str, required: bool = True) -> Texts:
    if d is None and not required:
        return ()
    if not isinstance(d, Mapping):
        raise ScenarioError(f"{where}: expected a table of languages ({', '.join(LANGS)})")
    if required:
        missing = [lang for lang in LANGS if not isinstance(d.get(lang), str) or not d[lang]]
        if missing:
            raise ScenarioError(f"{where}: missing text in {', '.join(missing)}")
    return tuple((str(k), str(v)) for k, v in d.items())


def _keys(v: Any, where: str) -> Track:
    if not isinstance(v, list) or not v:
        raise ScenarioError(f"{where}: keyframes must be a list of [t, x, y]")
    keys = []
    for i, k in enumerate(v):
        if not (isinstance(k, list) and len(k) == 3 and all(isinstance(x, int | float) for x in k)):
            raise ScenarioError(f"{where}[{i}]: expected [t, x, y] numbers, got {k!r}")
        keys.append((float(k[0]), float(k[1]), float(k[2])))
    ts = [k[0] for k in keys]
    if any(b <= a for a, b in itertools.pairwise(ts)):
        raise ScenarioError(f"{where}: keyframe times must increase")
    return Track(tuple(keys))


def parse(data: Mapping[str, Any], where: str = "scenario") -> Scenario:
    """Build a :class:`Scenario` from parsed TOML; :class:`ScenarioError` says what and where."""

    def req(key: str) -> Any:
        if key not in data:
            raise ScenarioError(f"{where}: missing key {key!r}")
        return data[key]

    sid = str(req("id"))
    clause = str(req("clause"))
    try:
        verdict = Verdict(str(req("verdict")))
        if verdict is Verdict.CANDIDATE:
            raise ValueError
    except ValueError:
        raise ScenarioError(f"{where}: verdict must be 'foul' or 'no foul'") from None
    culprit = PlayerId.parse(data["culprit"], f"{where}: culprit") if data.get("culprit") else None
    if verdict is Verdict.FOUL and culprit is None:
        raise ScenarioError(f"{where}: a foul needs a culprit")
    teams = []
    for name, t in dict(req("teams")).items():
        side = t.get("defends")
        try:
            defends = Side(side) if side else None
        except ValueError:
            raise ScenarioError(f"{where}: teams.{name}.defends must be left or right") from None
        teams.append(
            Team(
                str(name),
                str(t.get("colour", "#888")),
                _texts(t.get("name"), f"{where}: teams.{name}.name"),
                defends,
            )
        )
    names = {t.name for t in teams}
    players = []
    for i, pl in enumerate(req("players")):
        pid = PlayerId.parse(str(pl.get("id", "")), f"{where}: players[{i}].id")
        if pid.team not in names:
            raise ScenarioError(f"{where}: players[{i}]: team {pid.team!r} not in [teams]")
        players.append((pid, _keys(pl.get("keyframes"), f"{where}: players[{i}].keyframes")))
    known = {p for p, _ in players}
    ball = _keys(data["ball"]["keyframes"], f"{where}: ball.keyframes") if "ball" in data else None
    events = []
    for i, e in enumerate(data.get("events", [])):
        ew = f"{where}: events[{i}]"
        try:
            kind = EventKind(str(e.get("kind")))
        except ValueError:
            kinds = ", ".join(k.value for k in EventKind)
            raise ScenarioError(f"{ew}: unknown kind {e.get('kind')!r} ({kinds})") from None
        who = PlayerId.parse(e["player"], f"{ew}.player") if e.get("player") else None
        on = PlayerId.parse(e["on"], f"{ew}.on") if e.get("on") else None
        for p in (who, on):
            if p is not None and p not in known:
                raise ScenarioError(f"{ew}: no player {p} in this scenario")
        if not isinstance(e.get("t"), int | float):
            raise ScenarioError(f"{ew}: t must be a number of seconds")
        events.append(Event(float(e["t"]), kind, who, on, _texts(e.get("text"), ew, False)))
    events.sort(key=lambda e: e.t)
    duration = float(data.get("duration", max(k[-1][0] for k in [t.keys for _, t in players])))
    r = data.get("render", {})
    view = tuple(float(v) for v in r.get("view", (0.0, 0.0, 100.0, 50.0)))
    if len(view) != 4 or view[2] <= view[0] or view[3] <= view[1]:
        raise ScenarioError(f"{where}: render.view must be [x0, y0, x1, y1] with x0 < x1, y0 < y1")
    hints = RenderHints(
        (view[0], view[1], view[2], view[3]),
        bool(r.get("show_row", True)),
        bool(r.get("show_line", True)),
        float(r["png_at"]) if "png_at" in r else None,
    )
    return Scenario(
        sid,
        clause,
        tuple(str(c) for c in data.get("clauses", [clause])),
        str(data.get("edition", "uspa-arena-2026")),
        verdict,
        culprit,
        _texts(req("title"), f"{where}: title"),
        _texts(req("explanation"), f"{where}: explanation"),
        tuple(teams),
        tuple(players),
        ball,
        tuple(events),
        duration,
        hints,
    )


def load(path: str | Path) -> Scenario:
    p = Path(path)
    try:
        data = loads_toml(p.read_text(encoding="utf-8"), p.name)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{p}: not valid TOML: {exc}") from None
    return parse(data, str(p))


def _data_dir() -> Any:
    return resources.files("chukker.plays").joinpath("data")


@functools.cache
def _shipped() -> tuple[Scenario, ...]:
    out = []
    for f in _data_dir().iterdir():
        if f.name.endswith(".toml"):
            out.append(parse(tomllib.loads(f.read_text(encoding="utf-8")), f"plays/data/{f.name}"))
    return tuple(sorted(out, key=lambda s: s.id))


def shipped() -> list[Scenario]:
    """The scenarios shipped with chukker, sorted by id (read once per process: the files
    are the package's, and parsing them all costs a page ~20 ms of the event loop)."""
    return list(_shipped())


def load_shipped(sid: str) -> Scenario:
    for s in _shipped():
        if s.id == sid:
            return s
    raise ScenarioError(
        f"no shipped scenario {sid!r} (known: {', '.join(x.id for x in shipped())})"
    )


