"""Results for the association's results database: CSV and JSON of matches and standings,
and the bracket drawn as SVG."""

from __future__ import annotations

import io
from collections.abc import Callable
from html import escape
from typing import Any
from xml.sax.saxutils import quoteattr

from chukker import csvsafe
from chukker.tournament.model import MatchSpec, TeamRef, Tournament
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
    "forfeited",
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
    w = csvsafe.writer(out, lineterminator="\n")
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
                " ".join(r.forfeited),
            ]
        )
    return out.getvalue()


def standings_csv(s: Standings) -> str:
    out = io.StringIO()
    w = csvsafe.writer(out, lineterminator="\n")
    w.writerow(TABLE_COLUMNS)
    for st in s.stages:
        for row in st.table:
            j = row.to_json()
            w.writerow([st.id, *(j[c] if j[c] is not None else "" for c in TABLE_COLUMNS[1:])])
    return out.getvalue()


def results_json(t: Tournament, s: Standings) -> dict[str, Any]:
    """The standings JSON with each match's stage, start and arena beside its result, how
    it was decided, who forfeited and the result in words ("both forfeited", "7–3")."""
    from chukker.tournament.words import result_words

    doc = s.to_json()
    for mj in doc["matches"]:
        m = t.matches[mj["id"]]
        r = s.match(mj["id"])
        mj["stage"] = m.stage
        mj["start"] = m.start.isoformat() if m.start else None
        mj["arena"] = m.arena
        mj["decided_by"] = r.decided_by if r.final else None
        mj["forfeited"] = list(r.forfeited) if r.final else []
        mj["result"] = result_words(
            r.status,
            r.score,
            None,
            [t.team_name(x) for x in r.forfeited] if r.final else [],
            [t.team_name(x) if x else "?" for x in r.teams],
        )
    return doc


def elimination_stages(t: Tournament) -> list[str]:
    """The single-elimination stages that have matches, in the file's order."""
    return [
        sid
        for sid, st in t.stages.items()
        if st.kind == "single-elimination" and any(m.stage == sid for m in t.matches.values())
    ]


def bracket_svg(
    t: Tournament,
    s: Standings,
    names: dict[str, str] | None = None,
    link: str | None = None,
    label: Callable[[TeamRef], str] | None = None,
    gettext: Callable[[str], str] | None = None,
    stage_label: Callable[[str], str] = str,
    caption: str = "Bracket",
) -> str:
    """The elimination stages, one block each: matches in columns by round, lines to the
    next round, winners in bold, and a dashed box (``class="bye"``) for each entrant that
    has a bye. A forfeit reads as one ("both forfeited", no one in bold). ``link``: a
    format string with ``{id}`` making each match a link; ``label``: words for a side
    not known yet; ``gettext``: the page's language; ``stage_label``: a stage's heading;
    ``caption`` names the drawing for screen readers (its title and label)."""
    from chukker.tournament.bracket import layout
    from chukker.tournament.words import bold_winner, forfeit_words

    _ = gettext or (lambda x: x)
    stages = elimination_stages(t)
    if not stages:
        return '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0"></svg>'
    bw, bh, gx, gy, head = 220, 54, 60, 26, 30
    blocks = [(sid, *layout(t, sid)) for sid in stages]
    n_cols = max(cols for _sid, _p, cols, _rows in blocks)
    width = n_cols * (bw + gx) + gx
    height = sum(head + rows * (bh + gy) for *_x, rows in blocks) + gy

    def name_of(team: str | None, ref: TeamRef) -> str:
        if team:
            return (names or {}).get(team, t.team_name(team))
        return label(ref) if label is not None else ref.describe()

    parts: list[str] = []
    top = 0.0
    for sid, placed, _cols, rows in blocks:
        parts.append(
            f'<text class="stage" x="{gx}" y="{top + 20}" font-weight="bold">'
            f"{escape(stage_label(sid))}</text>"
        )
        y0 = top + head

        def at(col: int, row: float, y0: float = y0) -> tuple[float, float]:
            return float(gx + col * (bw + gx)), y0 + row * (bh + gy)

        box_of = {p.match: at(p.column, p.row) for p in placed if p.bye_of is None}
        # lines: from each earlier match and each bye to the match it leads to
        for p in placed:
            x, y = box_of[p.match]
            if p.bye_of is not None:
                sx, sy = at(p.column, p.row)
                parts.append(_line(sx + bw, sy + bh / 4, x, y + bh / 4 + bh / 2 * p.bye_of))
                continue
            for k, ref in enumerate(t.matches[p.match].teams):
                if ref.winner_of in box_of:
                    sx, sy = box_of[ref.winner_of]
                    parts.append(_line(sx + bw, sy + bh / 2, x, y + bh / 4 + bh / 2 * k))
        for p in placed:
            m = t.matches[p.match]
            r = s.match(p.match)
            if p.bye_of is not None:
                k = p.bye_of
                team = r.teams[k]
                x, y = at(p.column, p.row)
                parts.append(
                    f'<g class="bye" data-match="{escape(p.match)}" '
                    f'data-team="{escape(team or "")}">'
                    f'<rect x="{x}" y="{y}" width="{bw}" height="{bh / 2}" rx="6" fill="none" '
                    f'stroke="currentColor" stroke-dasharray="4 3" stroke-opacity="0.6"/>'
                    f'<text x="{x + 8}" y="{y + 18}">{escape(name_of(team, m.teams[k]))}</text>'
                    f'<text x="{x + bw - 8}" y="{y + 18}" text-anchor="end" '
                    f'font-style="italic">{escape(_("bye"))}</text></g>'
                )
                continue
            x, y = box_of[p.match]
            forf = [(names or {}).get(x2, t.team_name(x2)) for x2 in r.forfeited]
            teams_n = [name_of(r.teams[k], m.teams[k]) for k in (0, 1)]
            words = forfeit_words(forf, teams_n, _) if r.final else None
            bold_team = bold_winner(r.winner, r.forfeited)
            label_parts = []
            for k in (0, 1):
                team = r.teams[k]
                if words is not None:
                    score = _("forfeit") if team in r.forfeited else ""
                else:
                    score = "" if r.score is None else str(r.score[k])
                bold = ' font-weight="bold"' if team is not None and team == bold_team else ""
                ty = y + 22 + 22 * k
                label_parts.append(
                    f'<text x="{x + 8}" y="{ty}"{bold} data-team="{escape(team or "")}">'
                    f"{escape(teams_n[k])}</text>"
                    f'<text x="{x + bw - 8}" y="{ty}" text-anchor="end"{bold}>'
                    f"{escape(score)}</text>"
                )
            title = f"<title>{escape(words)}</title>" if words else ""
            if _third_place(t, m):
                # a match of losers (the third place) says what it is, above its box
                parts.append(
                    f'<text class="box-label" x="{x + 4}" y="{y - 6}" font-size="12">'
                    f"{escape(_('Third place'))}</text>"
                )
            box = (
                f'<g class="bm" data-match="{escape(p.match)}" data-status="{escape(r.status)}"'
                f"{' data-result=' + chr(34) + escape(words) + chr(34) if words else ''}>"
                f'{title}<rect x="{x}" y="{y}" width="{bw}" height="{bh}" rx="6" fill="none" '
                f'stroke="currentColor"/>{"".join(label_parts)}</g>'
            )
            if link:
                box = f'<a href="{escape(link.format(id=p.match))}">{box}</a>'
            parts.append(box)
        top += head + rows * (bh + gy)
    heading = f"{caption}: {t.name}" if t.name else caption
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="bracket" viewBox="0 0 {width} '
        f'{height}" width="{width}" height="{height}" role="img" '
        f"aria-label={quoteattr(heading)}><title>{escape(heading)}</title>"
        + "".join(parts)
        + "</svg>"
    )


def _third_place(t: Tournament, m: MatchSpec) -> bool:
    """A match between the losers of two matches whose winners meet (the semi-finals):
    the third place."""
    lost = {ref.loser_of for ref in m.teams}
    if None in lost or len(lost) != 2:
        return False
    return any({ref.winner_of for ref in f.teams} == lost for f in t.matches.values())


def _line(x1: float, y1: float, x2: float, y2: float) -> str:
    mid = (x1 + x2) / 2
    return (
        f'<path d="M{x1} {y1} H{mid} V{y2} H{x2}" fill="none" stroke="currentColor" '
        'stroke-opacity="0.5"/>'
    )
