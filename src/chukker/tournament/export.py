"""Results for the association's results database: CSV and JSON of matches and standings,
and the bracket drawn as SVG."""

from __future__ import annotations

import csv
import io
from html import escape
from typing import Any
from xml.sax.saxutils import quoteattr

from chukker.tournament.model import Tournament
from chukker.tournament.standings import Standings

MATCH_COLUMNS = (
    "match",
    "stage",
    "start",
    "arena",
    "team_a",
    "team_b",
    "status",
    "score_a",
    "score_b",
    "winner",
    "decided_by",
)
TABLE_COLUMNS = (
    "stage",
    "place",
    "team",
    "played",
    "won",
    "lost",
    "goals_for",
    "goals_against",
    "net_goals",
    "decided_by",
)


def matches_csv(t: Tournament, s: Standings) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(MATCH_COLUMNS)
    for r in s.matches:
        m = t.matches[r.id]
        w.writerow(
            [
                r.id,
                r.stage,
                m.start.isoformat() if m.start else "",
                m.arena or "",
                r.teams[0] or "",
                r.teams[1] or "",
                r.status,
                "" if r.score is None else r.score[0],
                "" if r.score is None else r.score[1],
                r.winner or "",
                r.decided_by or "",
            ]
        )
    return out.getvalue()


def standings_csv(s: Standings) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(TABLE_COLUMNS)
    for st in s.stages:
        for row in st.table:
            j = row.to_json()
            w.writerow([st.id, *(j[c] if j[c] is not None else "" for c in TABLE_COLUMNS[1:])])
    return out.getvalue()


def results_json(t: Tournament, s: Standings) -> dict[str, Any]:
    """The standings JSON with each match's stage, start and arena beside its result."""
    doc = s.to_json()
    for mj in doc["matches"]:
        m = t.matches[mj["id"]]
        mj["stage"] = m.stage
        mj["start"] = m.start.isoformat() if m.start else None
        mj["arena"] = m.arena
    return doc


def _depths(t: Tournament) -> dict[str, int]:
    """Round of each elimination match: 1 + the round of the matches it follows."""
    se = [
        m
        for m in t.matches.values()
        if m.stage in t.stages and t.stages[m.stage].kind == "single-elimination"
    ]
    depth: dict[str, int] = {}

    def d(mid: str, seen: frozenset[str]) -> int:
        if mid in depth:
            return depth[mid]
        m = t.matches[mid]
        best = 0
        for ref in m.teams:
            src = ref.winner_of or ref.loser_of
            if (
                src in t.matches
                and src not in seen
                and t.stages.get(t.matches[src].stage, None) is not None
                and t.stages[t.matches[src].stage].kind == "single-elimination"
            ):
                best = max(best, d(src, seen | {mid}))
        depth[mid] = best + 1
        return depth[mid]

    for m in se:
        d(m.id, frozenset())
    return depth


def bracket_svg(
    t: Tournament, s: Standings, names: dict[str, str] | None = None, link: str | None = None,
    caption: str = "Bracket",
) -> str:
    """The elimination matches in columns by round, winners in bold, lines to the next
    round. ``link``: a format string with ``{id}`` making each match a link;
    ``caption`` names the drawing for screen readers (its title and label)."""
    depth = _depths(t)
    if not depth:
        return '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"></svg>'
    rounds: dict[int, list[str]] = {}
    for mid in t.matches:
        if mid in depth:
            rounds.setdefault(depth[mid], []).append(mid)
    n_rounds = max(rounds)
    rows = max(len(v) for v in rounds.values())
    bw, bh, gx, gy = 220, 54, 60, 26
    height = rows * (bh + gy) + gy
    width = n_rounds * (bw + gx) + gx
    pos: dict[str, tuple[float, float]] = {}
    heading = f"{caption}: {t.name}" if t.name else caption
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="bracket" viewBox="0 0 {width} '
        f'{height}" width="{width}" height="{height}" role="img" '
        f"aria-label={quoteattr(heading)}><title>{escape(heading)}</title>"
    ]
    for rnd in range(1, n_rounds + 1):
        ms = rounds.get(rnd, [])
        for i, mid in enumerate(ms):
            x = float(gx + (rnd - 1) * (bw + gx))
            y = (i + 0.5) * height / len(ms) - bh / 2
            pos[mid] = (x, y)
    for mid, (x, y) in pos.items():
        for ref in t.matches[mid].teams:
            src = ref.winner_of or ref.loser_of
            if src in pos:
                sx, sy = pos[src]
                parts.append(
                    f'<path d="M{sx + bw} {sy + bh / 2} H{(sx + bw + x) / 2} '
                    f'V{y + bh / 2} H{x}" fill="none" stroke="currentColor" '
                    'stroke-opacity="0.5"/>'
                )
    for mid, (x, y) in pos.items():
        r = s.match(mid)
        m = t.matches[mid]
        label = []
        for k in (0, 1):
            team = r.teams[k]
            name = (names or {}).get(team, t.team_name(team)) if team else m.teams[k].describe()
            score = "" if r.score is None else str(r.score[k])
            bold = ' font-weight="bold"' if team is not None and team == r.winner else ""
            ty = y + 22 + 22 * k
            label.append(
                f'<text x="{x + 8}" y="{ty}"{bold} data-team="{escape(team or "")}">'
                f"{escape(name)}</text>"
                f'<text x="{x + bw - 8}" y="{ty}" text-anchor="end"{bold}>'
                f"{escape(score)}</text>"
            )
        box = (
            f'<g class="bm" data-match="{escape(mid)}" data-status="{escape(r.status)}">'
            f'<rect x="{x}" y="{y}" width="{bw}" height="{bh}" rx="6" fill="none" '
            f'stroke="currentColor"/>{"".join(label)}</g>'
        )
        if link:
            box = f'<a href="{escape(link.format(id=mid))}">{box}</a>'
        parts.append(box)
    parts.append("</svg>")
    return "".join(parts)
