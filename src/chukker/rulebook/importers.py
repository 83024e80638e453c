"""Importers: rule pages and summaries as text, into :class:`~chukker.rulebook.model.Rule` values.

Two layouts are understood, both recognised from their text rather than
from fixed line numbers:

* a **bilingual rule page**: a title ``<Rule word> <N> · <edition>``, the
  rule's name and a subtitle, then clause after clause. A clause opens with
  its printed id (``13a(1)``, optionally as a numbered list item) or, on a
  page that prints no ids, with a short heading; each paragraph is the
  translation, the language's original marker (``Texto original``, a
  :mod:`~chukker.rulebook.languages` table entry) and the English original. An
  illustrated play (legend, a timeline of ``<n>. <t> s <what>`` lines,
  verdict, caption) belongs to the clause it follows; the last line is the
  footer.
* the **2006 summary**: ``RULE N`` lines, each followed by a caption
  (``FACILITIES:``) and a body. Lettered items ``(a)``, ``(b)`` become
  sub-clauses ``N(a)``; Rule 9's ``Penalty 1.`` ... ``Penalty 10.`` become
  ``9.p1`` ... ``9.p10``.

Anything else is refused with one :class:`RulebookFormatError` naming the
line. :mod:`chukker.rulebook.reader` chooses the reader (these, or the web
page and PDF readers of :mod:`chukker.rulebook.documents`, which build on
these types).

>>> from chukker.rulebook.reader import parse_text  # the one entry point
>>> page = parse_text("RULE 1\\nFIELD:\\nA flat floor.\\n(a) Walls all round.\\n", "x.txt",
...                   edition="demo-arena-2000")
>>> [c.id for c in page.rules[0].clauses]
['1', '1(a)']
>>> try:
...     parse_text("Hello\\n", "notes.txt")
... except RulebookFormatError as e:
...     print(e.line, e.message[:32])
1 not a rulebook page or summary:
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path

from chukker.errors import ChukkerError
from chukker.rulebook.languages import (
    ORIGINAL_LANG,
    Language,
    language,
    language_of_marker,
    language_of_rule_word,
)
from chukker.rulebook.model import (
    Clause,
    ClauseKind,
    Origin,
    Passage,
    Play,
    PlayStep,
    Rule,
    RuleText,
    fold,
    slugify,
)


class RulebookFormatError(ChukkerError):
    """A file is not a rulebook page or summary, or is malformed at ``line``."""

    code = "rulebook_format"

    def __init__(self, source: str, line: int, message: str) -> None:
        self.source = source
        self.line = line
        self.message = message
        super().__init__(f"{source}:{line}: {message}",
                         params={"source": source, "line": line, "detail": message})


class SourceKind(StrEnum):
    """The layouts the importers understand."""

    BILINGUAL_PAGE = "bilingual-page"
    SUMMARY = "summary"
    HTML = "html"
    PDF = "pdf"


@dataclass(frozen=True, slots=True)
class ParsedSource:
    """What one file holds: the edition, its language and its rules."""

    source: str
    kind: SourceKind
    edition: str
    edition_title: str
    year: int
    lang: str
    rules: tuple[Rule, ...]
    #: printed lines that are not rule text (a preamble, a copyright line)
    extras: tuple[str, ...] = field(default=())

    @property
    def is_translation(self) -> bool:
        """A one-language document not in English: its clauses are aligned with the original's."""
        return self.kind in (SourceKind.HTML, SourceKind.PDF) and self.lang != ORIGINAL_LANG


# ---------------------------------------------------------------- shared bits

_TITLE = re.compile(r"^(?P<word>[^\W\d_]+)\s+(?P<num>\d{1,2})\s+·\s+(?P<edition>.+)$")
SUMMARY_RULE = re.compile(r"^RULE\s+(?P<num>\d{1,2})\s*$")
_CLAUSE_ID = re.compile(
    r"^(?:\d{1,3}\.\s+)?(?P<id>(?P<rule>\d{1,2})(?P<letters>[a-z]{0,2})(?P<subs>(?:\([0-9a-z]{1,4}\))*)"
    r"(?:\s+(?P<suffix>interpretations?|examples?))?)$"
)
_STEP = re.compile(r"^\d{1,3}\.\s+(?P<t>\d{1,4}(?:[.,]\d{1,3})?)\s*s\s+(?P<text>.+)$")
_BULLET = re.compile(r"^[•◦▪\-*]\s+(?P<text>.+)$")
_PLAY_CAPTION = re.compile(r"^[^\W\d_]+\s+\d{1,2}\s+·\s+\S+.*$")
_YEAR = re.compile(r"\b(19[5-9]\d|20\d\d)\b")
_SENTENCE_END = re.compile(r"(?<=[.!?…»”\"])\s+(?=\S)")


def edition_id(title: str, source: str = "<text>", line: int = 1) -> tuple[str, int]:
    """The edition id and year for a printed edition title.

    >>> edition_id("USPA 2026 Arena Rules")
    ('uspa-arena-2026', 2026)
    """
    m = _YEAR.search(title)
    if not m:
        raise RulebookFormatError(source, line, f"no year in the edition title {title!r}")
    year = int(m.group(1))
    words = [w for w in re.findall(r"[^\W\d_]+", title)]
    acronyms = [w for w in words if len(w) >= 2 and w.isupper()]
    org = (acronyms or words or ["rules"])[0].lower()
    org = re.sub(r"[^a-z0-9]", "", fold(org)) or "rules"
    return f"{org}-arena-{year}", year


def _year_of_edition(edition: str, source: str) -> int:
    m = _YEAR.search(edition)
    if not m:
        raise RulebookFormatError(source, 1, f"edition {edition!r} has no year")
    return int(m.group(1))


def clause_kind(clause_id: str) -> ClauseKind:
    """The kind a printed id announces (``... interpretation``, ``... examples``)."""
    low = clause_id.lower()
    if low.endswith(("interpretation", "interpretations")):
        return ClauseKind.INTERPRETATION
    if low.endswith(("example", "examples")):
        return ClauseKind.EXAMPLE
    return ClauseKind.RULE


def structural_parent(clause_id: str) -> str:
    """The id one level up: ``13a(1)`` -> ``13a`` -> ``13``; ``13k interpretation`` -> ``13k``.

    >>> [structural_parent(x) for x in ("13a(1)", "13a", "13", "13 examples", "5(b)", "9.p3")]
    ['13a', '13', '', '13', '5', '9']
    """
    base = clause_id.split(" ", 1)[0]
    if base != clause_id:
        return base
    if "." in base:
        return base.split(".", 1)[0]
    if base.endswith(")"):
        return base[: base.rfind("(")]
    m = re.match(r"^(\d+)[a-z]+$", base)
    return m.group(1) if m else ""


# ------------------------------------------------------------ bilingual page


@dataclass(slots=True)
class Para:
    line: int
    text: str


@dataclass(slots=True)
class _ClauseBuilder:
    id: str
    heading: str = ""
    pairs: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    plays: list[Play] = field(default_factory=list)
    printed: bool = True
    line: int = 0


def _split_heading(text: str) -> tuple[str, str]:
    """Split a caption glued before a heading: ``'A sentence. Split periods'``.

    Returns ``(note, heading)``; ``heading`` is ``""`` when the text ends as
    a sentence (then it is all note).

    >>> _split_heading("A caption here. Split periods")
    ('A caption here.', 'Split periods')
    >>> _split_heading("Goals")
    ('', 'Goals')
    >>> _split_heading("Just a note.")
    ('Just a note.', '')
    """
    parts = _SENTENCE_END.split(text.strip())
    tail = parts[-1]
    if (tail and tail[-1] in ".!?:;…") or len(tail) > 90:
        return text.strip(), ""
    return " ".join(parts[:-1]).strip(), tail


def _parse_seconds(t: str) -> int:
    whole, _, frac = t.replace(",", ".").partition(".")
    return int(whole) * 1000 + (int((frac + "000")[:3]) if frac else 0)


def _trailing(paras: list[Para], lang: str, into: _ClauseBuilder) -> None:
    """Attach what follows a clause's last original: an illustrated play or notes."""
    steps = [i for i, p in enumerate(paras) if _STEP.match(p.text)]
    if not steps:
        into.notes.extend(p.text for p in paras)
        return
    first, last = steps[0], steps[-1]
    label = ""
    legend_end = first
    if first > 0 and not _BULLET.match(paras[first - 1].text):
        label = paras[first - 1].text
        legend_end = first - 1
    legend: list[str] = []
    for p in paras[:legend_end]:
        b = _BULLET.match(p.text)
        if b:
            legend.append(b.group("text").strip())
        elif legend:
            legend[-1] += " " + p.text
        else:
            into.notes.append(p.text)
    timeline: list[PlayStep] = []
    for p in paras[first : last + 1]:
        m = _STEP.match(p.text)
        if m:
            timeline.append(PlayStep(_parse_seconds(m.group("t")), m.group("text").strip()))
        elif timeline:
            timeline[-1] = PlayStep(timeline[-1].at_ms, timeline[-1].text + " " + p.text)
    rest = [p.text for p in paras[last + 1 :]]
    caption = ""
    if rest and _PLAY_CAPTION.match(rest[-1]) and len(rest) > 1:
        caption = rest.pop()
    setting_parts = []
    while rest and " · " in rest[0]:
        setting_parts.append(rest.pop(0))
    verdict_label = ""
    if len(rest) > 1 and len(rest[0]) <= 40 and not rest[0].endswith("."):
        verdict_label = rest.pop(0)
    into.plays.append(
        Play(
            lang=lang,
            legend=tuple(legend),
            timeline_label=label,
            timeline=tuple(timeline),
            setting=" ".join(setting_parts),
            verdict_label=verdict_label,
            verdict="\n\n".join(rest),
            caption=caption,
        )
    )


def _repeated_marker(paras: list[Para]) -> str:
    """A short line printed again and again between paragraphs: an unknown language's marker."""
    counts: dict[str, int] = {}
    for i, p in enumerate(paras[1:-1], 1):
        short = len(p.text) <= 40 and not p.text.endswith((".", ":"))
        between = len(paras[i - 1].text) > len(p.text) < len(paras[i + 1].text)
        if short and between and not _CLAUSE_ID.match(p.text):
            counts[p.text] = counts.get(p.text, 0) + 1
    best = max(counts.items(), key=lambda kv: kv[1], default=("", 0))
    return best[0] if best[1] >= 2 else ""


def looks_like_page(
    paras: list[Para], lang_code: str | None = None
) -> tuple[re.Match[str], Language] | None:
    if not paras:
        return None
    m = _TITLE.match(paras[0].text)
    if not m:
        return None
    lang = language_of_rule_word(m.group("word"))
    if lang is not None and lang.code != ORIGINAL_LANG:
        marker_ok = any(fold(p.text) == fold(lang.original_marker) for p in paras)
        if not marker_ok:
            lang = None
    if lang is None or lang.code == ORIGINAL_LANG:
        lang = next((f for p in paras if (f := language_of_marker(p.text)) is not None), None)
    if lang is None:
        marker = _repeated_marker(paras)
        if not marker:
            return None
        if lang_code is None:
            raise RulebookFormatError(
                "<text>",
                paras[0].line,
                f"the original-text marker {marker!r} is not one chukker knows: "
                "give the page's language with --lang",
            )
        base = language(lang_code)
        lang = replace(base, original_marker=marker, rule_word=m.group("word"))
    if lang_code is not None and lang.code != lang_code:
        lang = replace(language(lang_code), original_marker=lang.original_marker)
    return m, lang


def parse_bilingual_page(
    text: str, source: str = "<text>", edition: str | None = None, lang_code: str | None = None
) -> ParsedSource:
    """Parse a bilingual rule page (translation, marker, original, paragraph by paragraph)."""
    paras = [Para(i, ln.strip()) for i, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    try:
        found = looks_like_page(paras, lang_code)
    except RulebookFormatError as exc:
        raise RulebookFormatError(source, exc.line, exc.message) from None
    if found is None:
        first = paras[0] if paras else Para(1, "")
        raise RulebookFormatError(
            source,
            first.line,
            f"not a bilingual rule page: expected a title like 'Regla 5 · USPA 2026 Arena Rules' "
            f"and 'Texto original'-style markers, found {first.text[:60]!r}",
        )
    title_m, lang = found
    rule_no = int(title_m.group("num"))
    if edition is None:
        ed, year = edition_id(title_m.group("edition"), source, paras[0].line)
    else:
        ed, year = edition, _year_of_edition(edition, source)
    marker = fold(lang.original_marker)
    is_marker = [fold(p.text) == marker for p in paras]
    ids: dict[int, str] = {}
    for i, p in enumerate(paras[1:], 1):
        m = _CLAUSE_ID.match(p.text)
        if m and int(m.group("rule")) == rule_no:
            ids[i] = m.group("id")
    pair_start: dict[int, int] = {}
    for i, mk in enumerate(is_marker):
        if not mk:
            continue
        if i < 2 or is_marker[i - 1] or (i - 1) in ids:
            raise RulebookFormatError(
                source,
                paras[i].line,
                f"{lang.original_marker!r} does not follow a translated paragraph",
            )
        if i + 1 >= len(paras) or is_marker[i + 1] or (i + 1) in ids:
            raise RulebookFormatError(
                source,
                paras[i].line,
                f"{lang.original_marker!r} is not followed by the original text",
            )
        if (i - 1) in pair_start.values():
            raise RulebookFormatError(
                source, paras[i].line, f"{lang.original_marker!r} directly after another original"
            )
        pair_start[i - 1] = i + 1
    if not pair_start:
        raise RulebookFormatError(
            source, paras[0].line, f"no {lang.original_marker!r} marker: nothing to import"
        )
    has_ids = bool(ids)
    header: list[str] = []
    clauses: list[_ClauseBuilder] = []
    footer = ""
    free: list[Para] = []
    header_done = False
    slugs: dict[str, int] = {}

    def new_section(heading: str, at: Para) -> None:
        slug = slugify(heading)
        if not slug:
            raise RulebookFormatError(source, at.line, f"heading {heading!r} makes no clause id")
        n = slugs.get(slug, 0) + 1
        slugs[slug] = n
        cid = f"{rule_no}.{slug}" if n == 1 else f"{rule_no}.{slug}-{n}"
        clauses.append(_ClauseBuilder(cid, heading=heading, printed=False, line=at.line))

    def flush(before: str, at: Para | None) -> None:
        nonlocal header_done, footer
        run, free[:] = list(free), []
        if not header_done:
            header_done = True
            if before == "pair" and not has_ids:
                if not run:
                    assert at is not None
                    raise RulebookFormatError(
                        source, at.line, "the first translated paragraph has no heading before it"
                    )
                note, heading = _split_heading(run[-1].text)
                if not heading:
                    raise RulebookFormatError(
                        source,
                        run[-1].line,
                        f"expected a section heading, found {run[-1].text[:60]!r}",
                    )
                header.extend(p.text for p in run[:-1])
                if note:
                    header.append(note)
                new_section(heading, run[-1])
            else:
                header.extend(p.text for p in run)
            return
        cur = clauses[-1] if clauses else None
        if cur is None:
            if before == "pair":
                assert at is not None
                raise RulebookFormatError(
                    source, at.line, "translated paragraph outside any clause"
                )
            header.extend(p.text for p in run)
            return
        if before == "end":
            ends_play = (
                bool(run)
                and bool(_PLAY_CAPTION.match(run[-1].text))
                and any(_STEP.match(p.text) for p in run)
            )
            if run and not ends_play:
                footer = run.pop().text
            if run:
                _trailing(run, lang.code, cur)
            return
        if before == "pair":
            if cur.printed and not cur.pairs:
                cur.heading = " ".join(p.text for p in run)
                return
            if not has_ids and run:
                note, heading = _split_heading(run[-1].text)
                if heading:
                    if run[:-1]:
                        _trailing(run[:-1], lang.code, cur)
                    if note:
                        cur.notes.append(note)
                    new_section(heading, run[-1])
                    return
            if run:
                _trailing(run, lang.code, cur)
            return
        # before an id: what is left belongs to the clause that ends here
        if run:
            if cur.printed and not cur.pairs:
                cur.heading = " ".join(p.text for p in run)
            else:
                _trailing(run, lang.code, cur)

    i = 1
    while i < len(paras):
        if i in ids:
            flush("id", paras[i])
            header_done = True
            clauses.append(_ClauseBuilder(ids[i], line=paras[i].line))
            i += 1
        elif i in pair_start:
            flush("pair", paras[i])
            clauses[-1].pairs.append((paras[i].text, paras[pair_start[i]].text))
            i = pair_start[i] + 1
        else:
            free.append(paras[i])
            i += 1
    flush("end", None)

    built: list[Clause] = []
    known: set[str] = set()
    for seq, b in enumerate(clauses, 1):
        if b.id in known:
            raise RulebookFormatError(source, paras[0].line, f"clause {b.id!r} printed twice")
        known.add(b.id)
        parent = structural_parent(b.id) if b.printed else ""
        while parent and parent not in known:
            parent = structural_parent(parent)
        kind = clause_kind(b.id)
        if not b.pairs and b.plays:
            kind = ClauseKind.ILLUSTRATED_PLAY
        built.append(
            Clause(
                edition=ed,
                id=b.id,
                rule=rule_no,
                seq=seq,
                kind=kind,
                heading=b.heading,
                passages=tuple(Passage(orig, ((lang.code, tr),)) for tr, orig in b.pairs),
                parent=parent,
                plays=tuple(b.plays),
                notes=tuple((lang.code, n) for n in b.notes),
                origins=(Origin(lang.code, Path(source).name, line=b.line),),
            )
        )
    rule_text = RuleText(
        lang=lang.code,
        title=paras[0].text,
        name=header[0] if header else "",
        subtitle="\n".join(header[1:]),
        footer=footer,
    )
    rule = Rule(ed, rule_no, (rule_text,), tuple(built))
    return ParsedSource(
        source=source,
        kind=SourceKind.BILINGUAL_PAGE,
        edition=ed,
        edition_title=title_m.group("edition").strip(),
        year=year,
        lang=lang.code,
        rules=(rule,),
    )


# ------------------------------------------------------------------ summary


def _split_items(line: str, letter: str, penalty: int) -> list[tuple[str, str]]:
    """Split a summary line at item markers expected next: ``(g)`` or ``Penalty 8.``.

    Returns ``[(marker, text)]`` where ``marker`` is ``""`` for text before
    the first marker, ``"(a)"``-style or ``"p8"``.

    >>> _split_items("(f) One thing. (g) Another.", "f", 1)
    [('(f)', 'One thing.'), ('(g)', 'Another.')]
    >>> _split_items("Penalty 7. Seven. Penalty No. 1 is not a marker. Penalty 8. Eight.", "a", 7)
    [('p7', 'Seven. Penalty No. 1 is not a marker.'), ('p8', 'Eight.')]
    """
    out: list[tuple[str, str]] = []
    pos = 0
    marker = ""
    while True:
        want_l = re.compile(rf"(?:^|(?<=[.;:]\s))\({re.escape(letter)}\)\s+")
        want_p = re.compile(rf"(?:^|(?<=[.;:]\s))Penalty\s+{penalty}\.\s+")
        ml = want_l.search(line, pos)
        mp = want_p.search(line, pos)
        hits = [m for m in (ml, mp) if m is not None]
        if not hits:
            break
        m = min(hits, key=lambda x: x.start())
        before = line[pos : m.start()].strip()
        if before or marker:
            out.append((marker, before))
        if m is ml:
            marker = f"({letter})"
            letter = chr(ord(letter) + 1)
        else:
            marker = f"p{penalty}"
            penalty += 1
        pos = m.end()
    rest = line[pos:].strip()
    if rest or marker:
        out.append((marker, rest))
    return out


def parse_summary(text: str, source: str = "<text>", edition: str | None = None) -> ParsedSource:
    """Parse a summary of the rules: ``RULE N`` lines, a caption each, then the body."""
    lines = text.splitlines()
    starts = [
        (i, int(m.group("num")))
        for i, ln in enumerate(lines)
        if (m := SUMMARY_RULE.match(ln.strip()))
    ]
    if not starts:
        first = next(((i, ln) for i, ln in enumerate(lines, 1) if ln.strip()), (1, ""))
        raise RulebookFormatError(
            source,
            first[0],
            f"not a rules summary: no 'RULE 1' line, found {first[1].strip()[:60]!r}",
        )
    preamble = [ln.strip() for ln in lines[: starts[0][0]] if ln.strip()]
    # the footer: a copyright line after the last rule and everything after it
    end = len(lines)
    for j in range(starts[-1][0] + 1, len(lines)):
        s = lines[j].strip()
        if s.startswith("©") or s.lower().startswith("copyright"):
            end = j
            break
    extras = preamble + [ln.strip() for ln in lines[end:] if ln.strip()]
    if edition is None:
        year_m = next((m for s in (preamble + extras) if (m := _YEAR.search(s))), None)
        if year_m is None:
            raise RulebookFormatError(
                source,
                starts[0][0] + 1,
                "no edition year before or after the rules; give --edition",
            )
        year = int(year_m.group(1))
        ed = f"uspa-arena-{year}"
    else:
        ed, year = edition, _year_of_edition(edition, source)
    seen: dict[int, int] = {}
    rules: list[Rule] = []
    bounds = [*(s for s, _ in starts), end]
    for k, (start, num) in enumerate(starts):
        if num in seen:
            raise RulebookFormatError(
                source, start + 1, f"RULE {num} appears twice (first at line {seen[num]})"
            )
        seen[num] = start + 1
        body = lines[start + 1 : max(start + 1, bounds[k + 1])]
        idx = next((j for j, ln in enumerate(body) if ln.strip()), None)
        if idx is None:
            raise RulebookFormatError(source, start + 1, f"RULE {num} has no caption and no text")
        caption = body[idx].strip()
        if not caption.endswith(":") or len(caption) > 100:
            raise RulebookFormatError(
                source,
                start + idx + 2,
                f"RULE {num}: expected a caption like 'FACILITIES:', found {caption[:60]!r}",
            )
        name = caption[:-1].strip()
        main: list[list[str]] = []  # passages of the rule clause
        items: list[tuple[str, list[str]]] = []
        letter, penalty = "a", 1
        last_was_main = False
        for ln in body[idx + 1 :]:
            s = ln.strip()
            if not s:
                last_was_main = False
                continue
            for marker, part in _split_items(s, letter, penalty):
                if marker.startswith("("):
                    letter = chr(ord(marker[1]) + 1)
                    items.append((f"{num}{marker}", [part]))
                    last_was_main = False
                elif marker.startswith("p"):
                    penalty = int(marker[1:]) + 1
                    items.append((f"{num}.{marker}", [part]))
                    last_was_main = False
                elif last_was_main:
                    main[-1].append(part)
                else:
                    main.append([part])
                    last_was_main = True
        clauses = [
            Clause(
                edition=ed,
                id=str(num),
                rule=num,
                seq=1,
                kind=ClauseKind.RULE,
                heading=name,
                passages=tuple(Passage("\n".join(p)) for p in main),
            )
        ]
        for seq, (cid, parts) in enumerate(items, 2):
            heading = f"Penalty {cid.split('.p', 1)[1]}" if ".p" in cid else ""
            clauses.append(
                Clause(
                    edition=ed,
                    id=cid,
                    rule=num,
                    seq=seq,
                    kind=ClauseKind.RULE,
                    heading=heading,
                    passages=(Passage("\n".join(parts)),),
                    parent=str(num),
                )
            )
        rules.append(Rule(ed, num, (RuleText(ORIGINAL_LANG, f"RULE {num}", name),), tuple(clauses)))
    return ParsedSource(
        source=source,
        kind=SourceKind.SUMMARY,
        edition=ed,
        edition_title=f"USPA {year} Arena Rules (summary)",
        year=year,
        lang=ORIGINAL_LANG,
        rules=tuple(rules),
        extras=tuple(extras),
    )
