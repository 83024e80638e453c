"""A rule page as data: what the terminal and the web show for one rule, edition and language.

Built from the corpus when the rulebook has been imported, else from the
built-in summaries alone (the page says how to import the text).

>>> page = rule_page(None, "uspa-arena-2026", 5, "es")
>>> page.title, page.has_text
('Regla 5 · USPA 2026 Arena Rules', False)
>>> page.name
'Duración y número de períodos'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from chukker.rulebook.corpus import Corpus
from chukker.rulebook.diff import RuleDiff, all_clauses, diff_rules
from chukker.rulebook.languages import ORIGINAL_LANG, Label, language
from chukker.rulebook.model import Clause, Rule, RuleText
from chukker.rulebook.summaries import EngineParam, RuleSummary, engine_params, summary
from chukker.rules.editions import EDITIONS

DEFAULT_EDITION = "uspa-arena-2026"


@dataclass(frozen=True, slots=True)
class RulePage:
    """Everything a rule page shows, in one language."""

    edition: str
    edition_title: str
    lang: str
    rule: int
    title: str
    name: str
    subtitle: str
    footer: str
    summary: RuleSummary
    params: tuple[EngineParam, ...]
    clauses: tuple[Clause, ...]
    #: the edition the text comes from (an earlier one where this edition is silent)
    source_edition: str
    has_text: bool
    #: how the clauses changed from the previous edition (``None`` if none to compare)
    changes: RuleDiff | None = None
    previous_edition: str | None = None
    translated_langs: tuple[str, ...] = field(default=())
    #: chukker's own words (summary, labels) are not in ``lang``: shown in English
    labels_fallback: bool = False
    #: clauses a translation could not be aligned with: ``(lang, clause, missing|extra)``
    unaligned: tuple[tuple[str, str, str], ...] = ()

    def label(self, key: Label) -> str:
        return language(self.lang).label(key)


def edition_title(corpus: Corpus | None, edition: str) -> str:
    """The printed name of an edition ("USPA 2026 Arena Rules")."""
    if corpus is not None:
        info = corpus.edition_info(edition)
        if info is not None:
            return info.title
    if edition in EDITIONS:
        year = edition.rsplit("-", 1)[-1]
        suffix = " (summary)" if "summary" in EDITIONS[edition].title else ""
        return f"USPA {year} Arena Rules{suffix}"
    raise ValueError(f"rules: unknown edition {edition!r} (known: {', '.join(EDITIONS)})")


def known_editions(corpus: Corpus | None) -> list[str]:
    """Editions to offer: those in the database, else the engine's, newest first."""
    ids = [e.id for e in corpus.editions()] if corpus is not None else []
    for e in EDITIONS:
        if e not in ids:
            ids.append(e)
    return sorted(ids, key=lambda x: x.rsplit("-", 1)[-1], reverse=True)


def _rule_text(rule: Rule | None, lang: str) -> RuleText | None:
    if rule is None:
        return None
    return rule.text(lang)


def rule_page(corpus: Corpus | None, edition: str, number: int, lang: str) -> RulePage:
    """The page of rule ``number`` of ``edition`` in ``lang``."""
    lg = language(lang)
    summ = summary(number, lang)
    ed_title = edition_title(corpus, edition)
    rule: Rule | None = None
    source = edition
    if corpus is not None:
        rule, source = corpus.rule_or_earlier(edition, number)
    text = _rule_text(rule, lang)
    any_text = next(iter(rule.texts), None) if rule is not None else None
    title = text.title if text is not None and source == edition else ""
    if not title:
        title = f"{lg.rule_word} {number} · {ed_title}"
    name = text.name if text is not None and text.name else summ.title
    subtitle = text.subtitle if text is not None else ""
    if not subtitle and any_text is not None and any_text.subtitle:
        subtitle = any_text.subtitle  # the printed subtitles are in English
    params = engine_params(edition, number, lang) if edition in EDITIONS else []
    changes = None
    prev = corpus.previous_edition(edition) if corpus is not None else None
    if corpus is not None and rule is not None and source == edition and prev is not None:
        old = corpus.rule(prev, number)
        if old is not None and old.clauses:
            changes = diff_rules(old, rule, all_clauses(corpus, prev))
    clauses = rule.clauses if rule is not None else ()
    unaligned = tuple(corpus.unaligned(source, number)) if corpus is not None else ()
    return RulePage(
        edition=edition,
        edition_title=ed_title,
        lang=lang,
        rule=number,
        title=title,
        name=name,
        subtitle=subtitle,
        footer=lg.label(Label.FOOTER),
        summary=summ,
        params=tuple(params),
        clauses=clauses,
        source_edition=source,
        has_text=bool(clauses),
        changes=changes,
        previous_edition=prev if changes is not None else None,
        translated_langs=tuple(sorted({x for c in clauses for x in c.languages()})),
        labels_fallback=not lg.has_labels,
        unaligned=tuple(u for u in unaligned if u[0] == lang),
    )


def clause_depth(clause: Clause, clauses: tuple[Clause, ...]) -> int:
    """How deep ``clause`` nests under its parents on the page (0 for top level)."""
    by_id = {c.id: c for c in clauses}
    depth, parent = 0, clause.parent
    while parent and parent in by_id and depth < 5:
        depth += 1
        parent = by_id[parent].parent
    return depth


def render_text(page: RulePage) -> str:
    """The page as plain text for the terminal."""
    lg = language(page.lang)
    out = [page.title, page.name]
    if page.subtitle:
        out.append(page.subtitle)
    if page.source_edition != page.edition:
        out.append(f"({lg.label(Label.FALLBACK)} {page.source_edition})")
    if page.labels_fallback:
        out.append(f"({lg.label(Label.LABELS_FALLBACK)})")
    out.append("")
    if not page.has_text:
        out += [lg.label(Label.NO_TEXT), ""]
    elif page.lang != ORIGINAL_LANG and page.lang not in page.translated_langs:
        out += [lg.label(Label.NO_TRANSLATION), ""]
    for c in page.clauses:
        out += [*render_clause(c, page.lang, page.changes), ""]
    missing = [c for _, c, side in page.unaligned if side == "missing"]
    extra = [c for _, c, side in page.unaligned if side == "extra"]
    if missing:
        out += [f"{lg.label(Label.NOT_IN_TRANSLATION)} ({page.lang}): {', '.join(missing)}"]
    if extra:
        out += [f"{lg.label(Label.ONLY_IN_TRANSLATION)} ({page.lang}): {', '.join(extra)}"]
    if missing or extra:
        out.append("")
    out.append(f"{lg.label(Label.SUMMARY)}: {page.summary.text}")
    if page.params:
        out.append(f"{lg.label(Label.ENGINE)}:")
        for p in page.params:
            out.append(f"  - {p.label}: {p.display}  [{p.clause}]")
    out += ["", page.footer]
    return "\n".join(out)


def render_clause(c: Clause, lang: str, changes: RuleDiff | None = None) -> list[str]:
    """One clause as plain-text lines: id and heading, translation, original."""
    lg = language(lang)
    head = f"[{c.id}] {c.heading_in(lang)}".rstrip()
    change = changes.change_for(c.id) if changes is not None else None
    if change is not None:
        label = lg.label(Label.NEW_IN if change.kind == "added" else Label.CHANGED_IN)
        nums = "; ".join(f"{n.before} → {n.after}" for n in change.numbers)
        year = changes.edition_b.rsplit("-", 1)[-1] if changes else ""
        if change.moved_from:
            rules = ", ".join(map(str, change.moved_from))
            head += f"   ({lg.label(Label.MOVED_FROM)} {rules}{': ' + nums if nums else ''})"
        else:
            head += f"   ({label} {year}{': ' + nums if nums else ''})"
    lines = [head]
    for passage in c.passages:
        tr = passage.translation(lang) if lang != ORIGINAL_LANG else ""
        if tr and passage.original:
            lines += [_indent(tr), f"  {lg.label(Label.ORIGINAL_TEXT)}:"]
        elif tr:
            lines += [_indent(tr), f"  ({lg.label(Label.NO_ORIGINAL)})"]
        if passage.original:
            lines.append(_indent(passage.original))
    for code, note in c.notes:
        if code == lang:
            lines.append(_indent(f"({note})"))
    for p in c.plays:
        if p.lang != lang:
            continue
        lines.append(_indent(p.timeline_label or lg.label(Label.WHAT_HAPPENS)) + ":")
        lines += [_indent(f"  {s.at_ms / 1000:.1f} s  {s.text}") for s in p.timeline]
        if p.verdict:
            lines.append(_indent(f"{p.verdict_label or lg.label(Label.VERDICT)}: {p.verdict}"))
    for o in c.origins:
        if o.lang in (lang, ORIGINAL_LANG):
            lines.append(_indent(f"{lg.label(Label.SOURCE)} ({o.lang}): {o.describe()}"))
    return lines


def _indent(text: str) -> str:
    return "\n".join("  " + ln if ln else "" for ln in text.splitlines())
