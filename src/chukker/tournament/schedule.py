"""The day's schedule: round robins over arenas and slots, brackets, committee edits, iCalendar.

* :func:`round_robin_pairs`: every pair of a pool's teams once (``n(n-1)/2``).
* :func:`slots`: the pairs put into time slots (one match per arena and slot, a team at most
  once per slot), spread so that no team plays in two consecutive slots where that can be
  avoided.
* :func:`slot_minutes`: the length of a slot from the edition: the periods and intervals
  of ``match_options.periods`` plus an allowance for stoppages and changing over.
* :func:`bracket`: a single elimination of any size seeded from the pools' orders (A1 v B2,
  B1 v A2...), byes to the best seeds, an optional third-place match;
  :func:`consolation`: the losers of its first round.
* :func:`move`: the committee puts a match in another slot or arena.

>>> pairs = round_robin_pairs(["a", "b", "c", "d", "e"])
>>> len(pairs), len({frozenset(p) for p in pairs})
(10, 10)
>>> [len(s) for s in slots(pairs, arenas=1)][:3]
[1, 1, 1]
>>> back_to_back(slots(pairs, arenas=1))
0
"""

from __future__ import annotations

import datetime as dt
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations, pairwise

from chukker.tournament.bracket import levels
from chukker.tournament.model import MatchSpec, Stage, TeamRef, Tournament

Pair = tuple[str, str]

#: minutes added to the playing time and intervals of a match: stoppages, the
#: umpires' and timekeeper's change-over between matches (a committee's choice)
DEFAULT_ALLOWANCE_MIN = 15


def round_robin_pairs(teams: Sequence[str]) -> list[Pair]:
    """Every pair of ``teams`` once, in rounds of the circle method (home and away
    alternate so each team is team A about half of the time)."""
    ts: list[str | None] = list(teams)
    if len(ts) < 2:
        return []
    if len(ts) % 2:
        ts.append(None)
    n = len(ts)
    out: list[Pair] = []
    for r in range(n - 1):
        for i in range(n // 2):
            a, b = ts[i], ts[n - 1 - i]
            if a is None or b is None:
                continue
            out.append((a, b) if (r + i) % 2 == 0 else (b, a))
        ts = [ts[0], ts[-1], *ts[1:-1]]
    return out


def back_to_back(schedule: Sequence[Sequence[Pair]]) -> int:
    """How many times a team plays in two consecutive slots."""
    count = 0
    for prev, cur in pairwise(schedule):
        before = {x for p in prev for x in p}
        count += sum(1 for p in cur for x in p if x in before)
    return count


def _greedy(pairs: Sequence[Pair], arenas: int, rotate: int, rest: bool) -> list[list[Pair]]:
    left = list(pairs[rotate:]) + list(pairs[:rotate])
    last: dict[str, int] = {}
    played: dict[str, int] = {}
    out: list[list[Pair]] = []
    while left:
        k = len(out)
        busy: set[str] = set()
        slot: list[Pair] = []
        while len(slot) < arenas:
            best: tuple[tuple[int, int, int, int], int] | None = None
            for i, (a, b) in enumerate(left):
                if a in busy or b in busy:
                    continue
                again = sum(1 for x in (a, b) if last.get(x, -9) == k - 1)
                wait = -min(k - last.get(a, -9), k - last.get(b, -9))
                score = (again, wait, played.get(a, 0) + played.get(b, 0), i)
                if best is None or score < best[0]:
                    best = (score, i)
            if best is None or (rest and slot and best[0][0] > 0):
                break  # leave the arena free rather than make a team play again at once
            a, b = left.pop(best[1])
            slot.append((a, b))
            busy |= {a, b}
        for a, b in slot:
            last[a] = last[b] = k
            played[a] = played.get(a, 0) + 1
            played[b] = played.get(b, 0) + 1
        out.append(slot)
    return out


def slots(pairs: Sequence[Pair], arenas: int = 1, rest: int | None = None) -> list[list[Pair]]:
    """``pairs`` in slots of at most ``arenas`` matches, a team at most once per slot.

    Without ``rest``: fewest back-to-back games first, then fewest slots. With ``rest``
    (``N >= 0``): a team plays again only after at least ``N`` slots without it (a hard
    rule; a slot may stay empty when no pair may play), in as few slots as the search finds.
    Deterministic."""
    arenas = max(1, arenas)
    if rest is not None:
        return _rested(pairs, arenas, max(0, rest))
    best: list[list[Pair]] | None = None
    for rotate in range(max(1, min(len(pairs), 12))):
        for soft in (False, True):
            cand = _greedy(pairs, arenas, rotate, soft)
            if best is None or (back_to_back(cand), len(cand)) < (back_to_back(best), len(best)):
                best = cand
    return best or []


def _rested_once(pairs: Sequence[Pair], arenas: int, rest: int, rotate: int) -> list[list[Pair]]:
    left = list(pairs[rotate:]) + list(pairs[:rotate])
    last: dict[str, int] = {}
    todo: dict[str, int] = {}
    for a, b in left:
        todo[a] = todo.get(a, 0) + 1
        todo[b] = todo.get(b, 0) + 1
    out: list[list[Pair]] = []
    while left:
        k = len(out)
        free = {x for x in todo if k - last.get(x, -(rest + 1)) > rest}
        slot: list[Pair] = []
        while len(slot) < arenas:
            best: tuple[tuple[int, int, int], int] | None = None
            for i, (a, b) in enumerate(left):
                if a not in free or b not in free:
                    continue
                # the teams with most matches still to play first, then the longest rested
                score = (-(todo[a] + todo[b]), -min(k - last.get(a, -99), k - last.get(b, -99)), i)
                if best is None or score < best[0]:
                    best = (score, i)
            if best is None:
                break
            a, b = left.pop(best[1])
            slot.append((a, b))
            free -= {a, b}
        for a, b in slot:
            last[a] = last[b] = k
            todo[a] -= 1
            todo[b] -= 1
        out.append(slot)
    return out


def _rested(pairs: Sequence[Pair], arenas: int, rest: int) -> list[list[Pair]]:
    """The shortest of a few hundred greedy orders (the pairs' order rotated, then shuffled
    by a fixed seed), stopping early at the lower bound."""
    teams = {x for p in pairs for x in p}
    per = max(1, min(arenas, len(teams) // 2))
    games = max((sum(1 for p in pairs if x in p) for x in teams), default=0)
    bound = max(math.ceil(len(pairs) / per), (games - 1) * (rest + 1) + 1 if games else 0)
    rng = random.Random(len(pairs) * 1000 + arenas * 10 + rest)
    order = list(pairs)
    best: list[list[Pair]] | None = None
    for attempt in range(400):
        if attempt < len(order):
            cand = _rested_once(order, arenas, rest, attempt)
        else:
            rng.shuffle(order)
            cand = _rested_once(order, arenas, rest, 0)
        if best is None or len(cand) < len(best):
            best = cand
        if len(best) <= bound:
            break
    return best or []


def rest_between(schedule: Sequence[Sequence[Pair]]) -> int | None:
    """The fewest slots a team goes without a match between two of its matches (``None``
    when no team plays twice)."""
    last: dict[str, int] = {}
    least: int | None = None
    for k, slot in enumerate(schedule):
        for p in slot:
            for x in p:
                if x in last:
                    gap = k - last[x] - 1
                    least = gap if least is None else min(least, gap)
                last[x] = k
    return least


def slot_minutes(t: Tournament, allowance: int = DEFAULT_ALLOWANCE_MIN) -> int:
    """A slot: the edition's periods and intervals for ``match_options.periods``, plus
    ``allowance`` minutes, rounded up to 5 minutes."""
    from chukker.rules.club import club_edition
    from chukker.rules.editions import edition

    try:
        ed = club_edition(t.extra.get("edition")) if t.rules == "club" else edition(t.rules)
        plan = ed.plan(str(t.match_options.get("periods", "regulation")))
    except ValueError:  # ``check`` reports the unknown edition, a bad club's or periods
        plan = edition("uspa-arena-2026").regulation
    ms = plan.count * plan.length_ms + sum(plan.intervals_ms)
    return 5 * math.ceil((ms / 60_000 + allowance) / 5)


def _times(start: dt.datetime, n: int, minutes: int, day_end: dt.time | None) -> list[dt.datetime]:
    """``n`` slot starts from ``start``; a slot that would end after ``day_end`` moves
    to the next day at the first slot's time of day."""
    out: list[dt.datetime] = []
    cur = start
    step = dt.timedelta(minutes=minutes)
    for _ in range(n):
        end = cur + step
        if day_end is not None and (end.date() > cur.date() or end.time() > day_end):
            cur = dt.datetime.combine(cur.date() + dt.timedelta(days=1), start.time())
        out.append(cur)
        cur += step
    return out


def plan_round_robins(
    t: Tournament,
    start: dt.datetime,
    arenas: Sequence[str],
    minutes: int | None = None,
    day_end: dt.time | None = None,
    rest: int | None = None,
) -> list[MatchSpec]:
    """Matches for every round-robin stage that has none yet, from ``start`` over the
    ``arenas`` (pools one after the other share the slots; a slot holds up to one match
    per arena). ``rest``: at least that many slots between two matches of a team (see
    :func:`slots`). Ids: stage id + number."""
    minutes = minutes or slot_minutes(t)
    pairs: list[tuple[str, Pair]] = []
    for st in t.stages.values():
        if st.kind == "round-robin" and not any(m.stage == st.id for m in t.matches.values()):
            pairs += [(st.id, p) for p in round_robin_pairs(st.teams)]
    stage_of = {p: s for s, p in pairs}
    sched = slots([p for _, p in pairs], len(arenas), rest)
    while sched and not sched[-1]:
        sched.pop()
    times = _times(start, len(sched), minutes, day_end)
    out: list[MatchSpec] = []
    count: dict[str, int] = {}
    for when, slot in zip(times, sched, strict=True):
        for arena, p in zip(arenas, slot, strict=False):
            sid = stage_of[p]
            count[sid] = count.get(sid, 0) + 1
            out.append(
                MatchSpec(
                    f"{sid}-{count[sid]}",
                    sid,
                    (TeamRef(team=p[0]), TeamRef(team=p[1])),
                    arena,
                    when,
                )
            )
    return out


#: the table of the tournament file (an extension) with the venue's hours:
#: ``[venue_hours] day_end = 18:00:00`` (a TOML local time, or "18:00")
VENUE_HOURS = "venue_hours"


def venue_day_end(t: Tournament) -> dt.time | None:
    """The venue's day end from ``[venue_hours] day_end`` in the file, else ``None``.

    >>> venue_day_end(Tournament(extra={"venue_hours": {"day_end": "18:30"}}))
    datetime.time(18, 30)
    """
    raw = t.extra.get(VENUE_HOURS)
    if not isinstance(raw, dict):
        return None
    v = raw.get("day_end")
    if isinstance(v, dt.time):
        return v
    if isinstance(v, str):
        try:
            return dt.time.fromisoformat(v)
        except ValueError:
            return None
    return None


@dataclass(frozen=True, slots=True)
class DaySummary:
    """What a generated schedule costs: matches per arena, slots, the last whistle, and
    the days it takes."""

    arena_use: tuple[tuple[str, int], ...]
    slots: int
    first_start: dt.datetime | None
    last_whistle: dt.datetime | None
    days: int

    def lines(self, day_end: dt.time | None) -> list[str]:
        """The summary in words, and a warning when the day passes ``day_end``."""
        out = [f"{a}: {n} matches" for a, n in self.arena_use]
        if self.last_whistle is not None:
            out.append(
                f"last whistle: {self.last_whistle:%a %d %b %H:%M} "
                f"(matches at {self.slots} slot times)"
            )
        if (
            day_end is not None
            and self.first_start is not None
            and self.last_whistle is not None
            and (self.days > 1 or self.last_whistle.time() > day_end)
        ):
            over = f"over {self.days} days, " if self.days > 1 else ""
            out.append(
                f"warning: the schedule passes the day end {day_end:%H:%M}: "
                f"it runs {over}to {self.last_whistle:%a %d %b %H:%M}"
            )
        return out


def summary(ms: Sequence[MatchSpec], arenas: Sequence[str], minutes: int) -> DaySummary:
    """Each arena's use (arenas in the order given, unused ones with 0), the slots, and
    the last whistle (the last slot's start + ``minutes``)."""
    use = {a: 0 for a in arenas}
    for m in ms:
        if m.arena is not None:
            use[m.arena] = use.get(m.arena, 0) + 1
    starts = sorted({m.start for m in ms if m.start is not None})
    last = starts[-1] + dt.timedelta(minutes=minutes) if starts else None
    days = len({x.date() for x in starts}) if starts else 0
    return DaySummary(tuple(use.items()), len(starts), starts[0] if starts else None, last, days)


def seed_order(n: int) -> list[int]:
    """Bracket positions of seeds 1..n (n a power of two): 1 v n, and the top seeds meet
    as late as possible (``[1, 4, 2, 3]`` for four: 1 and 2 only in the final)."""
    order = [1]
    while len(order) < n:
        m = 2 * len(order)
        order = [x for s in order for x in (s, m + 1 - s)]
    return order


def bracket_size(n: int) -> int:
    """The smallest power of two holding ``n`` entrants (``bracket_size(6) == 8``)."""
    size = 1
    while size < n:
        size *= 2
    return size


def _round_times(
    start: dt.datetime | None, arenas: Sequence[str], minutes: int, count: int
) -> tuple[list[tuple[str | None, dt.datetime | None]], dt.datetime | None]:
    """Arena and start of ``count`` matches of one round over the arenas, and the start of
    the round after it."""
    out: list[tuple[str | None, dt.datetime | None]] = []
    for k in range(count):
        arena = arenas[k % len(arenas)] if arenas else None
        when = start
        if start is not None and arenas:
            when = start + dt.timedelta(minutes=minutes * (k // len(arenas)))
        out.append((arena, when))
    nxt = start
    if start is not None:
        nxt = start + dt.timedelta(minutes=minutes * math.ceil(count / max(1, len(arenas))))
    return out, nxt


def elimination(
    stage_id: str,
    seeds: Sequence[TeamRef],
    start: dt.datetime | None = None,
    arenas: Sequence[str] = (),
    minutes: int = 70,
    third_place: bool = False,
) -> list[MatchSpec]:
    """A single elimination of ``seeds`` (best first), of any size from 2.

    The bracket is the next power of two; the empty places are **byes**, and they go to
    the best seeds (seed 1 meets the lowest seed, and seeds 1 and 2 can meet only in the
    final). A bye is not a match: a seed with a bye is written straight into the match of
    the round it first plays. ``n`` entrants make ``n - 1`` matches; ``third_place`` adds
    one between the losers of the semi-finals (``{stage}-third``, 4 entrants or more).
    Ids: ``{stage}-r{round}-{k}`` and ``{stage}-final``.

    >>> ms = elimination("ko", [TeamRef(team=x) for x in "abcdef"])
    >>> [(m.id, m.teams[0].describe(), m.teams[1].describe()) for m in ms]
    ... # doctest: +NORMALIZE_WHITESPACE
    [('ko-r1-1', 'd', 'e'), ('ko-r1-2', 'c', 'f'), ('ko-r2-1', 'a', 'winner ko-r1-1'),
     ('ko-r2-2', 'b', 'winner ko-r1-2'), ('ko-final', 'winner ko-r2-1', 'winner ko-r2-2')]
    """
    n = len(seeds)
    if n < 2:
        raise ValueError(f"a bracket needs at least 2 entrants, got {n}")
    if len({r.to_value().__repr__() for r in seeds}) != n:
        raise ValueError("a bracket lists an entrant twice")
    if third_place and n < 4:
        raise ValueError(f"a third-place match needs 4 entrants or more, got {n}")
    size = bracket_size(n)
    # a slot: an entrant (TeamRef) or None for a bye
    current: list[TeamRef | None] = [seeds[s - 1] if s <= n else None for s in seed_order(size)]
    matches: list[MatchSpec] = []
    rnd = 1
    when = start
    while len(current) > 1:
        pairs = [(current[i], current[i + 1]) for i in range(0, len(current), 2)]
        playing = [(a, b) for a, b in pairs if a is not None and b is not None]
        last = len(current) == 2
        slots_, nxt_when = _round_times(when, arenas, minutes, len(playing))
        nxt: list[TeamRef | None] = []
        k = 0
        for a, b in pairs:
            if a is None or b is None:
                nxt.append(a if b is None else b)  # a bye: the seed goes on
                continue
            mid = f"{stage_id}-final" if last else f"{stage_id}-r{rnd}-{k + 1}"
            arena, at = slots_[k]
            matches.append(MatchSpec(mid, stage_id, (a, b), arena, at))
            nxt.append(TeamRef(winner_of=mid))
            k += 1
        if playing:
            when = nxt_when
            rnd += 1
        current = nxt
    if third_place:
        final = matches[-1]
        semis = [r.winner_of for r in final.teams]
        assert semis[0] is not None and semis[1] is not None
        arena, at = final.arena, final.start
        if len(arenas) > 1:
            arena = arenas[1]
        elif final.start is not None:
            # one arena: the third-place match first, the final after it
            matches[-1] = replace(final, start=final.start + dt.timedelta(minutes=minutes))
        third = MatchSpec(
            f"{stage_id}-third",
            stage_id,
            (TeamRef(loser_of=semis[0]), TeamRef(loser_of=semis[1])),
            arena,
            at,
        )
        matches.insert(len(matches) - 1, third)
    return matches


def bracket_start(
    t: Tournament, pools: Sequence[str], minutes: int, rest: int | None = None
) -> dt.datetime | None:
    """When a bracket after ``pools`` may start (issue 42): one slot after the last pool
    match, and with ``rest`` (``--rest N``) at least ``N`` free slots after the last pool
    match of every team of those pools (any of them may go on). ``None``: no start known.

    >>> from chukker.tournament.model import MatchSpec, Stage, TeamRef, Tournament
    >>> at = dt.datetime(2026, 12, 5, 9)
    >>> t = Tournament(name="x", stages={"p": Stage("p", "round-robin", ("a", "b"))},
    ...     matches={"m1": MatchSpec("m1", "p", (TeamRef(team="a"), TeamRef(team="b")),
    ...                              "A1", at)})
    >>> bracket_start(t, ["p"], 60), bracket_start(t, ["p"], 60, rest=1)
    (datetime.datetime(2026, 12, 5, 10, 0), datetime.datetime(2026, 12, 5, 11, 0))
    """
    wanted = set(pools)
    last: dict[str, dt.datetime] = {}
    for m in t.matches.values():
        if m.stage not in wanted or m.start is None:
            continue
        for r in m.teams:
            key = r.team or repr(r.to_value())
            if key not in last or m.start > last[key]:
                last[key] = m.start
    if not last:
        return None
    return max(last.values()) + dt.timedelta(minutes=minutes * (1 + max(0, rest or 0)))


def first_round_losers(matches: Sequence[MatchSpec]) -> list[TeamRef]:
    """The losers of an elimination's first round (the round furthest from its final; a
    match between two seeds with byes is in a later round), in bracket order: the
    entrants of a consolation bracket."""
    lv = levels(matches)
    deepest = max(lv.values(), default=0)
    return [TeamRef(loser_of=m.id) for m in matches if lv[m.id] == deepest and deepest > 0]


def bracket(
    stage_id: str,
    pools: Sequence[str],
    per_pool: int | Sequence[int],
    start: dt.datetime | None = None,
    arenas: Sequence[str] = (),
    minutes: int = 70,
    third_place: bool = False,
) -> tuple[Stage, list[MatchSpec]]:
    """A single elimination between the first ``per_pool`` of each pool (one number for
    every pool, or one per pool: ``[4, 3]``), seeded from the pools' order of finish,
    pool winners first (two pools of three: A1, B1, A2, B2, A3, B3), of any size: byes to
    the best seeds (see :func:`elimination`).

    >>> _, ms = bracket("ko", ["a", "b"], [4, 3])
    >>> sorted({r.describe() for m in ms for r in m.teams if r.stage})
    ['a #1', 'a #2', 'a #3', 'a #4', 'b #1', 'b #2', 'b #3']
    """
    counts = [per_pool] * len(pools) if isinstance(per_pool, int) else list(per_pool)
    if len(counts) != len(pools):
        raise ValueError(f"{len(pools)} pools but {len(counts)} numbers of teams going on")
    seeds = [
        TeamRef(stage=p, place=k)
        for k in range(1, max(counts, default=0) + 1)
        for p, n in zip(pools, counts, strict=True)
        if k <= n
    ]
    return Stage(stage_id, "single-elimination"), elimination(
        stage_id, seeds, start, arenas, minutes, third_place
    )


def consolation(
    stage_id: str,
    main: Sequence[MatchSpec],
    start: dt.datetime | None = None,
    arenas: Sequence[str] = (),
    minutes: int = 70,
) -> tuple[Stage, list[MatchSpec]]:
    """A consolation bracket between the losers of ``main``'s first round (2 or more)."""
    losers = first_round_losers(main)
    if len(losers) < 2:
        raise ValueError(
            f"a consolation bracket needs 2 first-round losers or more, got {len(losers)}"
        )
    return Stage(stage_id, "single-elimination"), elimination(
        stage_id, losers, start, arenas, minutes
    )


def move(
    t: Tournament, match_id: str, start: dt.datetime | None = None, arena: str | None = None
) -> Tournament:
    """The committee's edit: ``match_id`` to another time and/or arena (in place)."""
    m = t.matches[match_id]
    t.matches[match_id] = replace(
        m, start=start if start is not None else m.start, arena=arena or m.arena
    )
    return t


def clashes(t: Tournament, minutes: int | None = None) -> list[str]:
    """Matches overlapping in one arena, or a team in two matches at once."""
    minutes = minutes or slot_minutes(t)
    span = dt.timedelta(minutes=minutes)
    out: list[str] = []
    ms = [m for m in t.matches.values() if m.start is not None]
    for a, b in combinations(ms, 2):
        assert a.start is not None and b.start is not None
        if abs(a.start - b.start) >= span:
            continue
        if a.arena is not None and a.arena == b.arena:
            out.append(f"matches {a.id} and {b.id} overlap in {a.arena}")
        ta = {r.team for r in a.teams if r.team}
        tb = {r.team for r in b.teams if r.team}
        for x in sorted(ta & tb):
            out.append(f"team {x} plays {a.id} and {b.id} at the same time")
    # a match that needs another's result (its winner or loser, or a pool's place) starts
    # only once that one is over: a committee's move to after it is a clash (issue 42)
    for m in ms:
        assert m.start is not None
        for r in m.teams:
            need = [x for x in (r.winner_of, r.loser_of) if x]
            if r.stage:
                need += [x.id for x in t.matches.values() if x.stage == r.stage]
            for dep in sorted(set(need)):
                d = t.matches.get(dep)
                if d is None or d.start is None or d.id == m.id:
                    continue
                if m.start < d.start + span:
                    out.append(f"match {m.id} needs the result of {d.id}, which ends after "
                               f"{m.id} starts")
    return out


def to_ics(t: Tournament, minutes: int | None = None) -> bytes:
    """An iCalendar file: one event per scheduled match, with its teams and arena."""
    from icalendar import Calendar, Event

    from chukker.tournament.standings import standings

    minutes = minutes or slot_minutes(t)
    s = standings(t)
    cal = Calendar()
    cal.add("prodid", "-//chukker//tournament//EN")
    cal.add("version", "2.0")
    cal.add("x-wr-calname", t.name or "chukker tournament")
    slug = "".join(c if c.isalnum() else "-" for c in (t.name or "tournament").lower())
    for m in t.matches.values():
        if m.start is None:
            continue
        teams = s.match(m.id).teams
        names = [
            t.team_name(x) if x is not None else ref.describe()
            for x, ref in zip(teams, m.teams, strict=True)
        ]
        ev = Event()
        ev.add("uid", f"{m.id}@{slug}.chukker")
        ev.add("summary", f"{names[0]} v {names[1]}")
        ev.add("dtstart", m.start)
        ev.add("dtend", m.start + dt.timedelta(minutes=minutes))
        ev.add("dtstamp", dt.datetime(2000, 1, 1, tzinfo=dt.UTC))
        where = ", ".join(x for x in (m.arena, t.venue) if x)
        if where:
            ev.add("location", where)
        ev.add("description", f"{t.name}: {m.stage}, match {m.id}")
        cal.add_component(ev)
    return bytes(cal.to_ical())
