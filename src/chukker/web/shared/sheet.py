"""The score sheet's data (USPA style), its CSV/JSON exports and its PDF.

Everything here is computed from the match's header, its record's events and
the engine's report; nothing is stored. The PDF is the sheet page itself, laid
out by WeasyPrint (``pip install weasyprint``; it needs Pango from the system,
Debian's ``libpango-1.0-0``): where it cannot be loaded the sheet says so and the
browser's Print button still makes the same page.
"""

from __future__ import annotations

import io
import re
import string
from collections import defaultdict
from pathlib import Path
from typing import Any

from chukker import csvsafe

HERE = Path(__file__).parent.parent  # chukker/web: templates/ and static/

#: the header's optional block of match details (spec: "implementations may add fields")
INFO_KEY = "match_info"
INFO_FIELDS = ("event", "venue", "date", "arena", "umpire_1", "umpire_2", "referee",
               "timekeeper", "scorer")

#: how the match was decided, in words (translated by the page)
DECIDED = {"regulation": "in regulation time", "extra-period": "in an extra period",
           "shootout": "in a shootout", "forfeit": "by forfeit"}


#: the clock-correction reasons the console offers: fixed words, printed in the sheet's
#: language whatever the console's was; anything else the operator typed stays as typed
CLOCK_REASONS = ("umpire direction", "late whistle", "late horn", "clock started late",
                 "clock not stopped at the whistle", "wrong time entered")


def reason_parts(reason: str) -> tuple[str, str]:
    """A correction's reason as ``(fixed words, the rest as typed)``: the fixed words are
    the English of one of :data:`CLOCK_REASONS` when the reason begins with it in en, es
    or it (``""`` otherwise, and the rest is the whole reason).

    >>> reason_parts("indicación del referí: pitó tarde")
    ('umpire direction', ': pitó tarde')
    >>> reason_parts("Late horn"), reason_parts("the horn did not sound")
    (('late horn', ''), ('', 'the horn did not sound'))
    """
    from chukker.i18n import LANGUAGES, translations

    text = reason.strip()
    folded = text.casefold()
    for key in CLOCK_REASONS:
        for lang in LANGUAGES:
            said = translations(lang).gettext(key).casefold()
            if folded.startswith(said) and re.match(r"$|[\s:;,.(—–-]", folded[len(said):]):
                return key, text[len(said):]
    return "", text


def fmt_clock(ms: int | None) -> str:
    """>>> fmt_clock(192_000), fmt_clock(4_200), fmt_clock(None)
    ('3:12', '0:05', '')
    """
    if ms is None:
        return ""
    s = -(-int(ms) // 1000)
    return f"{s // 60}:{s % 60:02d}"


def period_clock(period: int, ms: int | None) -> str:
    """>>> period_clock(2, 192_000)
    'P2 3:12'
    """
    return f"P{period} {fmt_clock(ms)}".strip()


def letters(n: int) -> str:
    """The n-th goal's letter (0 -> 'A', 25 -> 'Z', 26 -> 'AA').

    >>> letters(0), letters(25), letters(26)
    ('A', 'Z', 'AA')
    """
    out = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        out = string.ascii_uppercase[r] + out
    return out


def cancelled(events: list[dict[str, Any]]) -> set[int]:
    """Event numbers (from 1) cancelled by an undo that is itself in force.

    >>> sorted(cancelled([{"type": "goal"}, {"type": "undo", "event": 1},
    ...                   {"type": "undo", "event": 2}]))
    [2]
    """
    out: set[int] = set()
    for j in range(len(events), 0, -1):
        e = events[j - 1]
        if e.get("type") == "undo" and j not in out:
            out.add(int(e["event"]))
    return out


def converted(report: dict[str, Any], events: list[dict[str, Any]]) -> dict[int, bool | None]:
    """For each foul (by event number): was its penalty converted?

    Penalty 1 is a goal awarded (True). Otherwise True when the fouled team scored
    after the penalty's free hit and before the next stoppage; False when the free hit
    was taken without; None when no free hit followed (penalty 9, 10, end of match).
    """
    gone = cancelled(events)
    live = [(i, e) for i, e in enumerate(events, 1) if i not in gone and e.get("type") != "undo"]
    stops = {"whistle", "foul", "timeout", "bowl_in", "forfeit", "clock"}
    out: dict[int, bool | None] = {}
    for f in report.get("fouls", []):
        idx = int(f.get("event") or 0)
        if str(f.get("penalty")) == "1":
            out[idx] = True
            continue
        fouled = next((t for t in report.get("score", {}) if t != f.get("team")), None)
        state: bool | None = None
        hit = False
        for i, e in live:
            if i <= idx:
                continue
            t = e.get("type")
            if not hit:
                if t == "free_hit":
                    hit, state = True, False
                elif t in ("foul",):
                    break
                continue
            if t == "goal":
                if e.get("team") == fouled:
                    state = True
                break
            if t in stops:
                break
        out[idx] = state
    return out


def audio_stops(events: list[dict[str, Any]], clocks: dict[int, int],
                periods: dict[int, int]) -> list[dict[str, Any]]:
    """The whistles the console's microphone heard (record 1.3, ``"source": "audio"``):
    event number, record time, period clock, and whether it was undone.

    >>> ev = [{"at": 0, "type": "bowl_in"}, {"at": 61.25, "type": "whistle", "source": "audio"},
    ...       {"at": 62, "type": "undo", "event": 2}, {"at": 70, "type": "whistle"}]
    >>> audio_stops(ev, {2: 388_750}, {2: 1})
    [{'event': 2, 'at': 61.25, 'clock': 'P1 6:29', 'undone': True}]
    """
    gone = cancelled(events)
    return [{"event": i, "at": e.get("at"),
             "clock": period_clock(periods[i], clocks.get(i)) if i in periods else "",
             "undone": i in gone}
            for i, e in enumerate(events, 1)
            if e.get("type") == "whistle" and e.get("source") == "audio"]


def sheet_data(header: dict[str, Any], report: dict[str, Any], events: list[dict[str, Any]],
               clocks: dict[int, int], periods: dict[int, int] | None = None) -> dict[str, Any]:
    """Everything the sheet shows beyond the report: goals by period and player,
    lettered goals, penalties with their period clock, corrections, team handicaps.

    >>> h = {"teams": {"A": {"players": [{"no": 2, "handicap": 3}]}, "B": {"players": []}}}
    >>> rep = {"goals": [{"team": "A", "player": 2, "period": 1, "points": 2, "event": 2,
    ...     "kind": "field"}, {"team": "A", "player": None, "period": 2, "points": 1,
    ...     "event": 4, "kind": "penalty"}], "periods": [], "shootout": None, "fouls": [],
    ...     "score": {"A": 3, "B": 0}}
    >>> d = sheet_data(h, rep, [], {2: 400_000})
    >>> d["by_period"]["A"], d["by_player"]["A"][2], d["unattributed"]["A"]
    ({1: 2, 2: 1}, {1: 2}, {2: 1})
    >>> [(g["letter"], g["clock"], g["penalty_goal"]) for g in d["goals"]]
    [('A', 'P1 6:40', False), ('B', 'P2', True)]
    >>> d["team_handicap"]
    {'A': 3, 'B': 0}
    """
    teams = header.get("teams", {})
    ids = list(teams)
    by_period: dict[str, dict[int, int]] = {k: defaultdict(int) for k in ids}
    by_player: dict[str, dict[int, dict[int, int]]] = {
        k: {int(p["no"]): defaultdict(int) for p in teams[k].get("players", [])} for k in ids}
    unattributed: dict[str, dict[int, int]] = {k: defaultdict(int) for k in ids}
    goals = []
    for n, g in enumerate(report.get("goals", [])):
        team, period, pts = g["team"], int(g["period"]), int(g.get("points", 1))
        by_period[team][period] += pts
        pl = g.get("player")
        if pl in by_player[team]:
            by_player[team][pl][period] += pts
        else:
            unattributed[team][period] += pts
        ev = int(g.get("event") or 0)
        goals.append({"letter": letters(n), "period": period, "team": team, "player": pl,
                      "points": pts, "clock": period_clock(period, clocks.get(ev)),
                      "at": g.get("at"), "penalty_goal": g.get("kind") == "penalty",
                      "kind": g.get("kind") or "field", "event": ev})
    conv = converted(report, events)
    fouls = []
    for f in report.get("fouls", []):
        ev = int(f.get("event") or 0)
        fouls.append({**f, "clock": period_clock(int(f["period"]), clocks.get(ev)),
                      "converted": conv.get(ev)})
    corrections = []
    if report.get("corrections") is not None:  # the engine's own list (spec 1.1)
        for c in report["corrections"]:
            corrections.append({"event": c.get("event"), "at": c.get("at"),
                                "period": c.get("period"),
                                "from": fmt_clock(c.get("from_ms")),
                                "to": fmt_clock(c.get("to_ms")), "reason": c.get("reason", ""),
                                "reason_parts": reason_parts(str(c.get("reason", "")))})
    else:
        gone = cancelled(events)
        for i, e in enumerate(events, 1):
            if e.get("type") == "clock" and i not in gone:
                corrections.append({"event": i, "at": e.get("at"), "period": None, "from": "",
                                    "to": fmt_clock(round(float(e.get("remaining", 0)) * 1000)),
                                    "reason": e.get("reason", ""),
                                    "reason_parts": reason_parts(str(e.get("reason", "")))})
    # an undone correction stays on the sheet, struck through (the guide: "Undo never
    # erases ... the sheet and the record keep both")
    gone = cancelled(events)
    for i, e in enumerate(events, 1):
        if e.get("type") == "clock" and i in gone:
            corrections.append({"event": i, "at": e.get("at"), "period": None, "from": "",
                                "to": fmt_clock(round(float(e.get("remaining", 0)) * 1000)),
                                "reason": e.get("reason", ""), "undone": True,
                                "reason_parts": reason_parts(str(e.get("reason", "")))})
    corrections.sort(key=lambda c: int(c.get("event") or 0))
    numbers = sorted({int(p["number"]) for p in report.get("periods", [])}
                     | {p for k in ids for p in by_period[k]})
    so = report.get("shootout") or {}
    team_hcp = {k: sum(int(p.get("handicap", 0)) for p in teams[k].get("players", []))
                for k in ids}
    return {"by_period": {k: dict(v) for k, v in by_period.items()},
            "by_player": {k: {n: dict(d) for n, d in v.items()} for k, v in by_player.items()},
            "unattributed": {k: dict(v) for k, v in unattributed.items()},
            "period_numbers": numbers or [1], "goals": goals, "fouls": fouls,
            "corrections": corrections, "team_handicap": team_hcp,
            "audio_stops": audio_stops(events, clocks, periods or {}),
            "has_shootout": bool(so), "shootout_score": so.get("score") or {},
            "info": {k: str((header.get(INFO_KEY) or {}).get(k) or "") for k in INFO_FIELDS}}


def goals_csv(data: dict[str, Any], team_names: dict[str, str]) -> str:
    """The goals as CSV (one row per goal, in order)."""
    buf = io.StringIO()
    w = csvsafe.writer(buf, lineterminator="\n")
    w.writerow(["letter", "period", "clock", "at_s", "team", "team_name", "player", "points",
                "kind"])
    for g in data["goals"]:
        w.writerow([g["letter"], g["period"], g["clock"].split(" ", 1)[-1] if " " in g["clock"]
                    else "", g["at"], g["team"], team_names.get(g["team"], g["team"]),
                    "" if g["player"] is None else g["player"], g["points"], g["kind"]])
    return buf.getvalue()


def fouls_csv(data: dict[str, Any], team_names: dict[str, str]) -> str:
    """The fouls as CSV (one row per foul, in order)."""
    buf = io.StringIO()
    w = csvsafe.writer(buf, lineterminator="\n")
    w.writerow(["period", "clock", "at_s", "team", "team_name", "player", "penalty", "clause",
                "card", "converted"])
    for f in data["fouls"]:
        conv = {True: "yes", False: "no", None: ""}[f["converted"]]
        w.writerow([f["period"], f["clock"].split(" ", 1)[-1] if " " in f["clock"] else "",
                    f["at"], f["team"], team_names.get(f["team"], f["team"]),
                    "" if f.get("player") is None else f["player"], f["penalty"],
                    f.get("clause") or "", f.get("card") or "", conv])
    return buf.getvalue()


class PdfUnavailable(RuntimeError):
    """WeasyPrint (or the system's Pango) is missing: use the browser's Print."""


def render_pdf(html: str) -> tuple[bytes, int]:
    """The sheet page as PDF bytes, and its number of pages."""
    try:
        import weasyprint  # type: ignore[import-untyped]
    except (ImportError, OSError) as e:
        raise PdfUnavailable(str(e)) from e
    # the page's own stylesheet, read from the package; nothing is fetched
    link = '<link rel="stylesheet" href="/static/live.css">'
    css = weasyprint.CSS(string=(HERE / "static" / "live.css").read_text(encoding="utf-8"))
    doc = weasyprint.HTML(string=html.replace(link, "")).render(stylesheets=[css])
    return bytes(doc.write_pdf()), len(doc.pages)


def mounts_by_player(report: dict[str, Any]) -> dict[str, dict[int, dict[int, list[str]]]]:
    """Each player's mounts by period (record 1.2): team -> player -> period -> [mount ids].

    >>> rep = {"mounts": {"A": {"bay": {"rides": [{"period": 1, "player": 2},
    ...     {"period": 2, "player": 3}]}, "dora": {"rides": [{"period": 1, "player": 2}]}},
    ...     "B": {}}}
    >>> mounts_by_player(rep)["A"]
    {2: {1: ['bay', 'dora']}, 3: {2: ['bay']}}
    """
    out: dict[str, dict[int, dict[int, list[str]]]] = {}
    for team, mounts in (report.get("mounts") or {}).items():
        per: dict[int, dict[int, list[str]]] = {}
        for mid, m in mounts.items():
            for r in m.get("rides") or ():
                per.setdefault(int(r["player"]), {}).setdefault(int(r["period"]), []).append(mid)
        out[team] = per
    return out



#: a club's value in words (issue 42): parameter -> msgid with ``%(t)s`` (m:ss) or ``%(n)s``
CLUB_WORDS = {
    "split_after_s": "split after %(t)s",
    "mount_change_max_s": "mount change at most %(t)s",
    "warning_at_s": "warning horn at %(t)s",
    "late_penalty_reset_s": "late penalty: clock reset to %(t)s",
    "extra_first_interval_s": "interval before the extra period %(t)s",
    "extra_between_interval_s": "interval between extra periods %(t)s",
    "shootout_interval_s": "interval before the shootout %(t)s",
    "shootout_round_interval_s": "interval between shootout rounds %(t)s",
    "injury_timeout_max_s": "injury time-out at most %(t)s",
    "shootout_attempts_before_move": "%(n)s attempts before the move to 15 yards",
}
#: a base's feature a club plays without, in words (msgids)
FEATURE_WORDS = {"split_periods": "split periods", "late_penalty_reset": "late penalty reset",
                 "shootout_rounds": "shootout rounds", "move_to_15": "the move to 15 yards"}


def mmss(ms: int) -> str:
    """>>> mmss(150_000), mmss(20_000)
    ('2:30', '0:20')
    """
    s = int(ms) // 1000
    return f"{s // 60}:{s % 60:02d}"


def club_changes(ed: Any, base: Any, plan_key: str, gettext: Any) -> list[str]:
    """A club edition's changes from its base, in words in the sheet's language (issue
    42): "3 periods of 6:00 (USPA: 4 of 7:30)", "intervals 2:00 and 3:00", "split after
    2:30", "warning horn at 0:20"; the match's own period plan only.

    >>> from chukker.rules.club import club_edition
    >>> from chukker.rules.editions import EDITIONS
    >>> e = club_edition({"base": "uspa-arena-2026", "name": "Oak Hill", "warning_at_s": 20,
    ...     "split_after_s": 150, "regulation": {"count": 3, "length_s": 360,
    ...                                         "intervals_s": [120, 180]}})
    >>> for w in club_changes(e, EDITIONS["uspa-arena-2026"], "regulation", str): print(w)
    3 periods of 6:00 (USPA: 4 of 7:30)
    intervals 2:00 and 3:00
    split after 2:30
    warning horn at 0:20
    """
    from chukker.rules.club import COUNTS, SECONDS

    out: list[str] = []
    a, b = base.plan(plan_key), ed.plan(plan_key)
    short = str(base.title).split()[0]
    if (a.count, a.length_ms) != (b.count, b.length_ms):
        out.append(gettext("%(count)s periods of %(length)s (%(base)s: %(base_count)s of "
                           "%(base_length)s)") % {
            "count": b.count, "length": mmss(b.length_ms), "base": short,
            "base_count": a.count, "base_length": mmss(a.length_ms)})
    if a.intervals_ms != b.intervals_ms and b.intervals_ms:
        ivs = sorted(set(b.intervals_ms), key=list(b.intervals_ms).index)
        words = [mmss(x) for x in ivs]
        joined = words[0] if len(words) == 1 else (
            ", ".join(words[:-1]) + " " + gettext("and") + " " + words[-1])
        out.append(gettext("intervals %(list)s") % {"list": joined})
    for key, (f, _lo, _hi) in {**SECONDS, **COUNTS}.items():
        pa, pb = getattr(base, f), getattr(ed, f)  # by the field's name, from the table
        if pa.value != pb.value and key in CLUB_WORDS:
            value = {"t": mmss(pb.value)} if key in SECONDS else {"n": pb.value}
            out.append(gettext(CLUB_WORDS[key]) % value)
    for feat in sorted(base.features - ed.features):
        out.append(gettext("without %(what)s") % {
            "what": gettext(FEATURE_WORDS.get(feat, feat.replace("_", " ")))})
    return out
