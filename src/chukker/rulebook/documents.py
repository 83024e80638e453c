"""One-language rulebooks as associations publish them: web pages (HTML) and PDF books.

Both are read into a run of :class:`Block` s (a paragraph or list item, its
clause marker if it has one, and where it was read), then one structure
reader turns the blocks into rules and clauses:

* a **rule heading** is ``<word> <n>`` (``RULE 13``, ``Règle 13 — Jeu
  dangereux``); the word is the first such heading's, in any language;
* a **clause** opens at a lettered or numbered marker: ``a.``, ``(b)``,
  ``1.``, ``(2)``, or an item of an HTML ordered list (its ``type`` and
  ``start`` give the letter or number when none is printed). Numbers under a
  letter nest: ``13a(1)``; text before the first marker is clause ``13``;
* an **interpretation** or **examples** paragraph (the word in the table
  below, or an HTML ``class``) becomes ``<clause> interpretation`` /
  ``<clause> examples``, the ids the bilingual pages print;
* any other paragraph continues the current clause.

A short marker line without a full stop is the clause's heading. Each clause
keeps where it was read (:class:`~chukker.rulebook.model.Origin`: the file
and the page and line of a PDF, or the line and element of a web page).

The document's language is ``--lang``, else what it declares (``<html
lang>``, the PDF catalog's ``/Lang``), else the language whose word for
"Rule" its headings use; the edition is ``--edition``, else read from the
title before the first rule. An English document holds originals; any other
language is a translation, aligned with the original by rule and clause
number when stored (:func:`chukker.rulebook.corpus.compose`).

>>> blocks = [Block("USPA 2030 Arena Rules"), Block("RULE 3"), Block("Mallets"),
...           Block("Some text of the rule."), Block("a. First item."),
...           Block("1. Nested item."), Block("Interpretation: how umpires read it.")]
>>> src = build("x.html", blocks, lang="en", kind=SourceKind.HTML)
>>> src.edition, [(c.id, c.parent) for c in src.rules[0].clauses]
('uspa-arena-2030', [('3', ''), ('3a', '3'), ('3a(1)', '3a'), ('3a(1) interpretation', '3a(1)')])

Ids printed in full are read as such:

>>> blocks = [Block("USPA 2030 Arena Rules"), Block("RULE 9"), Block("9a. One."),
...           Block("9a(2) Two."), Block("9 players is not an id.")]
>>> [c.id for c in build("x.pdf", blocks, lang="en").rules[0].clauses]
['9a', '9a(2)']
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chukker.rulebook.importers import (
    ParsedSource,
    RulebookFormatError,
    SourceKind,
    clause_kind,
    edition_id,
    structural_parent,
)
from chukker.rulebook.languages import (
    ORIGINAL_LANG,
    language,
    language_of_rule_word,
    valid_code,
)
from chukker.rulebook.model import Clause, Origin, Passage, Rule, RuleText, fold

#: words that open an interpretation or examples paragraph, by language (folded)
INTERPRETATION_WORDS = ("interpretation", "interpretacion", "interpretazione", "auslegung")
EXAMPLE_WORDS = ("example", "examples", "exemple", "exemples", "ejemplo", "ejemplos", "esempio",
                 "esempi", "beispiel", "beispiele")  # fmt: skip

_RULE_HEAD = re.compile(
    r"^(?P<word>[^\W\d_]{3,})\s+(?P<num>\d{1,2})(?:\s*[.:·—–-]\s*(?P<name>.*?))?\s*$"
)
_LETTER = re.compile(r"^\(?(?P<m>[a-z]{1,2})[.)]\s+(?P<rest>.*)$", re.S)
_NUMBER = re.compile(r"^\(?(?P<m>\d{1,2})[.)]\s+(?P<rest>.*)$", re.S)
#: a clause printed with its full id: ``13a``, ``13a(1)``, ``13(2)`` (the rule's number first)
_FULL = re.compile(
    r"^(?P<r>\d{1,2})(?P<l>[a-z]{0,2})(?P<n>(?:\(\d{1,2}\))*)(?P<dot>\.?)\s+(?P<rest>.*)$", re.S
)
_SPECIAL = re.compile(r"^(?P<word>[^\W\d_]+)\s*[:.—–-]\s*(?P<rest>.*)$", re.S)


@dataclass(frozen=True, slots=True)
class Block:
    """A paragraph or list item of a document, as read."""

    text: str
    origin: Origin = field(default_factory=lambda: Origin("", ""))
    #: a marker the layout gives (an HTML list item's letter ``a`` or number ``2``)
    marker: str = ""
    #: ``heading``, ``interpretation`` or ``example`` when the markup says so
    role: str = ""


@dataclass(slots=True)
class _Building:
    id: str
    heading: str = ""
    paras: list[str] = field(default_factory=list)
    origin: Origin | None = None


def _special(text: str, role: str) -> tuple[str, str] | None:
    """``("interpretation" | "examples", rest)`` for such a paragraph, else ``None``."""
    if role in ("interpretation", "example"):
        m = _SPECIAL.match(text)
        rest = m.group("rest") if m and fold(m.group("word")).rstrip("s") in _ALL_SPECIAL else text
        return ("interpretation" if role == "interpretation" else "examples"), rest.strip()
    m = _SPECIAL.match(text)
    if m is None:
        word, rest = text.strip(), ""
        if len(word.split()) != 1:
            return None
    else:
        word, rest = m.group("word"), m.group("rest")
    w = fold(word)
    if w in INTERPRETATION_WORDS or w.rstrip("s") in INTERPRETATION_WORDS:
        return "interpretation", rest.strip()
    if w in EXAMPLE_WORDS:
        return "examples", rest.strip()
    return None


_ALL_SPECIAL = {w.rstrip("s") for w in (*INTERPRETATION_WORDS, *EXAMPLE_WORDS)}


def _is_heading_text(text: str) -> bool:
    return len(text) <= 70 and not text.rstrip().endswith((".", ":", ";", ",")) and "\n" not in text


def build(
    source: str,
    blocks: list[Block],
    lang: str | None = None,
    edition: str | None = None,
    kind: SourceKind = SourceKind.HTML,
    title_hint: str = "",
) -> ParsedSource:
    """Rules and clauses from a document's blocks (see the module's text)."""
    name = Path(source).name
    rule_word = ""
    title: list[str] = []
    rules: list[tuple[int, str, list[_Building], Origin]] = []
    current: _Building | None = None
    letter = ""
    heads: list[Block] = []
    for b in blocks:
        text = b.text.strip()
        if not text:
            continue
        m = _RULE_HEAD.match(text) if len(text) <= 100 else None
        if m and not b.marker:
            word = m.group("word")
            ok = (
                fold(word) == fold(rule_word)
                if rule_word
                else (
                    b.role == "heading" or word.isupper() or language_of_rule_word(word) is not None
                )
            )
            if ok:
                rule_word = rule_word or word
                num = int(m.group("num"))
                if any(r[0] == num for r in rules):
                    raise RulebookFormatError(
                        source, b.origin.line, f"{word} {num} appears twice in the document"
                    )
                rules.append((num, (m.group("name") or "").strip(), [], b.origin))
                heads.append(b)
                current, letter = None, ""
                continue
        if not rules:
            title.append(text)
            continue
        num, rname, clauses, _ = rules[-1]
        rest = text
        cid = ""
        lm = _LETTER.match(text) if not b.marker else None
        nm = _NUMBER.match(text) if not b.marker else None
        fm = _FULL.match(text) if not b.marker else None
        if fm and int(fm.group("r")) == num and _full_id(text):
            letter = fm.group("l") or letter
            cid, rest = f"{num}{fm.group('l')}{fm.group('n')}", fm.group("rest")
        elif b.marker:
            rest = text
            if b.marker.isdigit():
                cid = f"{num}{letter}({b.marker})"
            else:
                letter = b.marker
                cid = f"{num}{letter}"
        elif lm and _letter_follows(lm.group("m"), letter):
            letter = lm.group("m")
            cid, rest = f"{num}{letter}", lm.group("rest")
        elif nm:
            cid, rest = f"{num}{letter}({nm.group('m')})", nm.group("rest")
        special = _special(text, b.role) if not cid else None
        if special is not None:
            what, rest = special
            base = current.id.split(" ", 1)[0] if current is not None else str(num)
            cid = f"{base} {'interpretation' if what == 'interpretation' else 'examples'}"
            if any(c.id == cid for c in clauses):
                c = next(c for c in clauses if c.id == cid)
                if rest:
                    c.paras.append(rest)
                current = c
                continue
        if cid and any(c.id == cid for c in clauses):
            cid = ""  # a number already seen: a line of text that starts like an id
            rest = text
        if cid:
            current = _Building(cid, origin=b.origin)
            clauses.append(current)
            if rest and _is_heading_text(rest) and not special:
                current.heading = rest
            elif rest:
                current.paras.append(rest)
            continue
        if current is None:
            if not clauses and not rname and _is_heading_text(text) and b.role != "paragraph":
                rules[-1] = (num, text, clauses, rules[-1][3])
                continue
            current = _Building(str(num), origin=b.origin)
            clauses.append(current)
        current.paras.append(text)
    if not rules:
        first = next((b for b in blocks if b.text.strip()), Block(""))
        raise RulebookFormatError(
            source,
            first.origin.line,
            "no rule heading such as 'RULE 1' or 'Règle 1' found: not a rulebook",
        )
    code = lang or _lang_from_word(rule_word)
    if code is None:
        raise RulebookFormatError(
            source,
            heads[0].origin.line,
            f"cannot tell the language of {rule_word!r} headings: give --lang",
        )
    if not valid_code(code):
        raise RulebookFormatError(source, 1, f"{code!r} is not a language code")
    head = " ".join(dict.fromkeys(title)) or title_hint
    if edition is None:
        try:
            ed, year = edition_id(head or name, source, 1)
        except RulebookFormatError:
            raise RulebookFormatError(
                source, 1, "no edition year in the document's title: give --edition"
            ) from None
    else:
        ed = edition
        ym = re.search(r"(19|20)\d\d", edition)
        if ym is None:
            raise RulebookFormatError(source, 1, f"edition {edition!r} has no year")
        year = int(ym.group(0))
    built: list[Rule] = []
    for num, rname, clauses, origin in sorted(rules, key=lambda r: r[0]):
        out: list[Clause] = []
        known: set[str] = set()
        for seq, c in enumerate(clauses, 1):
            parent = structural_parent(c.id)
            while parent and parent not in known:
                parent = structural_parent(parent)
            known.add(c.id)
            passages = tuple(
                Passage(p) if code == ORIGINAL_LANG else Passage("", ((code, p),)) for p in c.paras
            )
            out.append(
                Clause(
                    edition=ed,
                    id=c.id,
                    rule=num,
                    seq=seq,
                    kind=clause_kind(c.id),
                    heading=c.heading,
                    passages=passages,
                    parent=parent,
                    origins=(_with_lang(c.origin or origin, code, name),),
                )
            )
        page_title = f"{rule_word} {num}"
        built.append(
            Rule(ed, num, (RuleText(code, page_title, rname, "", ""),), tuple(out), source=name)
        )
    return ParsedSource(
        source=source,
        kind=kind,
        edition=ed,
        edition_title=head[:200] or ed,
        year=year,
        lang=code,
        rules=tuple(built),
    )


def _with_lang(o: Origin, lang: str, name: str) -> Origin:
    return Origin(lang, name, o.page, o.line, o.element)


def _letter_follows(m: str, letter: str) -> bool:
    """``m`` is the next letter (or the first ``a``): ``(i)`` after ``(h)`` is a letter."""
    if len(m) != 1:
        return False
    return m == "a" if not letter else ord(m) == ord(letter[-1]) + 1 or m == "a"


def _lang_from_word(word: str) -> str | None:
    found = language_of_rule_word(word)
    return found.code if found is not None else None


# --------------------------------------------------------------------- HTML


_BLOCK_TAGS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "dt", "dd", "blockquote", "div")


def _roman(n: int) -> str:
    out = ""
    for v, s in ((10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= v:
            out, n = out + s, n - v
    return out


def _list_marker(li: Any) -> str:
    """The letter or number an ordered list gives its item (``""`` for bullets)."""
    ol = li.parent
    if ol is None or ol.name != "ol":
        return ""
    items = [x for x in ol.find_all("li", recursive=False)]
    idx = items.index(li) + int(li.get("value") or ol.get("start") or 1)
    kind = ol.get("type") or ""
    style = str(ol.get("style") or "")
    if "lower-alpha" in style or "lower-latin" in style:
        kind = "a"
    if kind in ("a", "A"):
        return chr(ord("a") + idx - 1)
    if kind in ("i", "I"):
        return _roman(idx)
    return str(idx)


def _element(tag: Any) -> str:
    ident = tag.get("id")
    return f"{tag.name}#{ident}" if ident else str(tag.name)


def html_blocks(html: str, file: str) -> tuple[list[Block], str | None, str]:
    """The blocks of a web page, its declared language and its ``<title>``."""
    from bs4 import BeautifulSoup, Tag

    soup = BeautifulSoup(html, "html.parser")
    root = soup.find("html")
    lang = None
    if isinstance(root, Tag) and root.get("lang"):
        lang = str(root.get("lang")).strip().replace("_", "-")
        lang = lang.split("-")[0].lower() + lang[len(lang.split("-")[0]) :]
    t = soup.find("title")
    title = t.get_text(" ", strip=True) if isinstance(t, Tag) else ""
    for junk in soup.find_all(["script", "style", "nav", "header", "footer", "title"]):
        junk.decompose()
    body = soup.find("body") or soup
    out: list[Block] = []

    def text_of(tag: Any) -> str:
        parts = []
        for child in tag.children:
            if isinstance(child, Tag) and child.name in (*_BLOCK_TAGS, "ol", "ul", "table"):
                continue
            parts.append(child.get_text(" ") if isinstance(child, Tag) else str(child))
        return re.sub(r"\s+", " ", "".join(parts)).strip()

    def walk(tag: Any) -> None:
        for child in tag.children:
            if not isinstance(child, Tag):
                continue
            if child.name in _BLOCK_TAGS:
                classes = " ".join(child.get("class") or []).lower()
                role = ""
                if child.name.startswith("h"):
                    role = "heading"
                elif "interpret" in classes:
                    role = "interpretation"
                elif "example" in classes:
                    role = "example"
                elif child.name == "p":
                    role = "paragraph"
                text = text_of(child)
                marker = _list_marker(child) if child.name == "li" else ""
                if marker and re.match(rf"^\(?{re.escape(marker)}[.)]\s", text):
                    text = text.split(None, 1)[1] if " " in text else ""
                strong = child.find(["strong", "b"], recursive=False)
                heading = ""
                if (
                    marker
                    and strong is not None
                    and text.startswith(strong.get_text(" ", strip=True))
                ):
                    heading = strong.get_text(" ", strip=True).rstrip(".: ")
                    text = text[len(strong.get_text(" ", strip=True)) :].lstrip(" .:")
                origin = Origin("", file, line=int(child.sourceline or 0), element=_element(child))
                if heading:
                    out.append(Block(heading, origin, marker, role))
                    if text:
                        out.append(Block(text, origin, "", "paragraph"))
                elif text or marker:
                    out.append(Block(text, origin, marker, role))
                walk(child)
            else:
                walk(child)

    walk(body)
    return out, lang, title


def parse_html(
    html: str, source: str, lang: str | None = None, edition: str | None = None
) -> ParsedSource:
    """A rulebook web page (one language) into rules and clauses."""
    from chukker.limits import LimitError, verify_html

    name = Path(source).name
    try:
        verify_html(html, name)
        blocks, declared, title = html_blocks(html, name)
    except LimitError as exc:
        raise RulebookFormatError(source, 0, str(exc).removeprefix(f"{name}: ")) from None
    except RecursionError:
        raise RulebookFormatError(source, 0, "the page nests too deep to read") from None
    return build(source, blocks, lang or declared, edition, SourceKind.HTML, title_hint=title)


# ---------------------------------------------------------------------- PDF


def _lines_of_page(page: Any) -> list[tuple[float, float, str, float]]:
    """``(x0, top, text, size)`` of each line, in reading order (column by column)."""
    words = page.extract_words(keep_blank_chars=False, use_text_flow=False, extra_attrs=["size"])
    if not words:
        return []
    width = float(page.width)
    mid = width / 2
    crossing = sum(1 for w in words if w["x0"] < mid - 4 and w["x1"] > mid + 4)
    left = [w for w in words if w["x1"] <= mid + 4]
    right = [w for w in words if w["x0"] >= mid - 4 and w not in left]
    columns = [words]
    if crossing <= max(1, len(words) // 50) and len(left) > 5 and len(right) > 5:
        spanning = [w for w in words if w not in left and w not in right]
        columns = [left + spanning, right]
    out: list[tuple[float, float, str, float]] = []
    for col in columns:
        col = sorted(col, key=lambda w: (round(float(w["top"])), float(w["x0"])))
        line: list[dict[str, Any]] = []
        for w in col:
            if line and abs(float(w["top"]) - float(line[0]["top"])) > 2.5:
                out.append(_join(line))
                line = []
            line.append(w)
        if line:
            out.append(_join(line))
    return out


def _join(words: list[dict[str, Any]]) -> tuple[float, float, str, float]:
    words = sorted(words, key=lambda w: float(w["x0"]))
    text = " ".join(str(w["text"]) for w in words)
    return float(words[0]["x0"]), float(words[0]["top"]), text, float(words[0].get("size", 10.0))


def pdf_blocks(path: Path) -> tuple[list[Block], str | None, str]:
    """The paragraphs of a PDF (two-column pages read column by column), its ``/Lang``, title."""
    import pdfplumber

    name = path.name
    pages: list[list[tuple[float, float, str, float]]] = []
    with pdfplumber.open(path) as pdf:
        lang = None
        try:
            raw = pdf.doc.catalog.get("Lang")
            if raw is not None:
                value = raw.resolve() if hasattr(raw, "resolve") else raw
                lang = value.decode() if isinstance(value, bytes) else str(value)
        except Exception:  # noqa: BLE001 - a catalog we cannot read says nothing about the language
            lang = None
        title = str((pdf.metadata or {}).get("Title") or "")
        for page in pdf.pages:
            pages.append(_lines_of_page(page))

    # running heads and page numbers: lines on most pages, or only digits
    def edges(lines: list[tuple[float, float, str, float]]) -> set[str]:
        by_top = sorted(lines, key=lambda x: x[1])
        return {x[2] for x in (*by_top[:2], *by_top[-2:])}

    counts = Counter(t for lines in pages for t in edges(lines))
    repeated = {t for t, n in counts.items() if len(pages) >= 2 and n >= max(2, len(pages) // 2)}
    blocks: list[Block] = []
    buf: list[str] = []
    start: tuple[int, int] = (0, 0)

    def flush() -> None:
        if buf:
            text = ""
            for part in buf:
                if text.endswith("-") and part[:1].islower():
                    text += part
                else:
                    text = f"{text} {part}" if text else part
            blocks.append(Block(text, Origin("", name, page=start[0], line=start[1])))
            buf.clear()

    prev_size = 0.0
    for pno, lines in enumerate(pages, 1):
        prev_top = -1.0
        for lno, (_x0, top, text, size) in enumerate(lines, 1):
            if text in repeated or text.strip().isdigit():
                continue
            # a paragraph goes on in the next column or page unless it ended a sentence
            moved = top < prev_top or prev_top < 0
            ended = not buf or buf[-1].rstrip().endswith((".", ":", ";", "!", "?"))
            new_para = (
                not buf
                or (moved and ended)
                or (not moved and top - prev_top > 1.6 * max(size, 6.0))
                or abs(size - prev_size) > 1.0  # a title or running head in another size
                or _pdf_rule_head(text)
                or bool(_LETTER.match(text) or _NUMBER.match(text) or _full_id(text))
                or _special(text, "") is not None
                or (len(buf) == 1 and _pdf_rule_head(buf[0]))
            )
            if new_para:
                flush()
                start = (pno, lno)
            buf.append(text)
            prev_top, prev_size = top, size
    flush()
    return blocks, lang, title


def _full_id(text: str) -> bool:
    """Whether ``text`` opens with a full clause id: ``13a.``, ``13a(1)``, ``13(2)``."""
    m = _FULL.match(text)
    return m is not None and bool(m.group("n") or (m.group("l") and m.group("dot")))


def _pdf_rule_head(text: str) -> bool:
    m = _RULE_HEAD.match(text)
    if m is None:
        return False
    word = m.group("word")
    return word.isupper() or language_of_rule_word(word) is not None


def parse_pdf(path: Path, lang: str | None = None, edition: str | None = None) -> ParsedSource:
    """A rulebook PDF (one language, one or two columns) into rules and clauses."""
    try:
        blocks, declared, title = pdf_blocks(path)
    except Exception as exc:  # pdfminer raises many kinds of errors on a broken file
        if isinstance(exc, RulebookFormatError):
            raise
        raise RulebookFormatError(str(path), 0, f"not a readable PDF ({exc})") from None
    if declared is not None:
        declared = declared.strip().replace("_", "-")
        if not valid_code(declared.split("-")[0].lower()):
            declared = None
        else:
            declared = declared.split("-")[0].lower()
    if lang is not None:
        language(lang)  # a malformed code raises
    return build(str(path), blocks, lang or declared, edition, SourceKind.PDF, title_hint=title)
