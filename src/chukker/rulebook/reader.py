"""Read any rulebook document: a PDF, a web page, a bilingual page or a summary.

The one entry point over both families of readers: :mod:`chukker.rulebook.importers`
(the bilingual pages and the summaries) and :mod:`chukker.rulebook.documents` (web
pages and PDF books, which build on the importers' types). Imports run one way:
reader -> documents -> importers.
"""

from __future__ import annotations

from pathlib import Path

from chukker.rulebook.documents import parse_html, parse_pdf
from chukker.rulebook.importers import (
    SUMMARY_RULE,
    Para,
    ParsedSource,
    RulebookFormatError,
    looks_like_page,
    parse_bilingual_page,
    parse_summary,
)


def parse_text(
    text: str, source: str = "<text>", edition: str | None = None, lang: str | None = None
) -> ParsedSource:
    """Parse ``text`` with whichever importer recognises it (a web page by its markup)."""
    from chukker.limits import MAX_RULEBOOK_BYTES

    if len(text) > MAX_RULEBOOK_BYTES or len(text.encode("utf-8")) > MAX_RULEBOOK_BYTES:
        raise RulebookFormatError(source, 0, f"larger than {MAX_RULEBOOK_BYTES} bytes")
    head = text.lstrip()[:200].lower()
    if head.startswith(("<!doctype html", "<html")) or source.lower().endswith((".html", ".htm")):
        return parse_html(text, source, lang, edition)
    paras = [Para(i, ln.strip()) for i, ln in enumerate(text.splitlines(), 1) if ln.strip()]
    try:
        page = looks_like_page(paras, lang)
    except RulebookFormatError as exc:
        raise RulebookFormatError(source, exc.line, exc.message) from None
    if page is not None:
        return parse_bilingual_page(text, source, edition, lang)
    if any(SUMMARY_RULE.match(p.text) for p in paras):
        return parse_summary(text, source, edition)
    first = paras[0] if paras else Para(1, "")
    raise RulebookFormatError(
        source,
        first.line,
        "not a rulebook page or summary: expected a title like "
        f"'Regla 5 · USPA 2026 Arena Rules' or a 'RULE 1' line, found {first.text[:60]!r}",
    )


def parse_file(path: Path, edition: str | None = None, lang: str | None = None) -> ParsedSource:
    """Read ``path`` and parse it: a PDF, a web page or UTF-8 text.

    Errors name the file and the line (or page). ``lang`` is the document's
    language when it does not say.
    """
    from chukker.limits import MAX_RULEBOOK_BYTES, LimitError, verify_not_compressed, verify_size

    with path.open("rb") as fh:
        magic = fh.read(8)
    try:  # before any reader sees it: the importer inflates nothing and reads a bounded file
        verify_size(path.stat().st_size, MAX_RULEBOOK_BYTES, path.name)
        verify_not_compressed(magic, path.name)
    except LimitError as exc:
        raise RulebookFormatError(str(path), 0, str(exc).removeprefix(f"{path.name}: ")) from None
    if magic.startswith(b"%PDF-"):
        return parse_pdf(path, lang, edition)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[: exc.start].count(b"\n") + 1
        raise RulebookFormatError(str(path), line, "not UTF-8 text") from None
    return parse_text(text, str(path), edition, lang)
