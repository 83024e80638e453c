"""Rulebook benchmarks: PDF import throughput, and search latency against a LIKE scan.

**Import** (``--part import``): a 200-page two-column rulebook PDF is drawn
with reportlab (18 rules, lettered clauses with numbered sub-clauses, in
words made up here), then imported into a fresh SQLite file
(``parse_file`` + ``Corpus.store``, as ``chukker rules import`` does). Prints
clauses per second for reading the PDF, for storing, and end to end, and the
ratio of the import's time to the baseline measured in the same run:
pdfplumber's plain ``extract_text`` of every page (the text alone, no
layout, no structure, no database).

**Search** (``--part search``):

Imports the seed pages (``../shared/seeds`` beside the repository, or
``--seeds``) into a fresh SQLite file in a temporary folder, then runs a mix
of queries (English, Spanish, Italian; with and without accents; one and two
words; with and without a language filter; a named penalty or clause such as
``penalty 2`` or ``13b``; misspellings such as ``peanlty``, corrected against
the index's vocabulary) ``--repeat`` times each through

* ``chukker.rulebook.search.search`` (FTS5, ranked, snippets), and
* ``chukker.rulebook.search.like_search`` (``LIKE '%word%'`` over originals and
  translations: the baseline; it neither ranks nor folds accents).

Prints p50/p99 of each in milliseconds and the ratio FTS/LIKE. Target
(issue 4): FTS p99 under 5 ms.

    python benchmarks/rules.py [--part all|import|search] [--pages 200] [--cpu]
                               [--repeat 300] [--seeds DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from chukker.rulebook.corpus import Corpus
from chukker.rulebook.reader import parse_file
from chukker.rulebook.search import like_search, search

REPO = Path(__file__).resolve().parents[1]
QUERIES: list[tuple[str, str | None]] = [
    ("zigzag", None),
    ("shootout", "es"),
    ("periodo", "es"),
    ("período", None),
    ("arbitro", "it"),
    ("dangerous ride", None),
    ("penalty", "en"),
    ("bowl-in", None),
    ("horn", None),
    ("caballo", "es"),
    ("palla", "it"),
    ("free hit", None),
    # as people type (issue 21): a named penalty or clause, and misspellings
    ("penalty 2", None),
    ("13b", None),
    ("rule 13 b", None),
    ("peanlty", None),
    ("shootuot", "es"),
]


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


WORDS = [
    *("player", "horse", "mallet", "ball", "umpire", "wall", "goal", "period", "team", "foul"),
    *("line", "arena", "shot", "hit", "rides", "keeps", "turns", "stops", "takes", "gives"),
    *("after", "before", "near", "with", "from", "into", "until", "across", "behind"),
]


def make_pdf(path: Path, pages: int) -> tuple[int, int]:
    """Draw a two-column rulebook of ``pages`` pages; returns (pages, clauses drawn)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    width, height = A4
    margin, gutter, size, lead = 40.0, 20.0, 9.0, 11.5
    col_w = (width - 2 * margin - gutter) / 2
    per_line = int(col_w / (size * 0.5))
    c = canvas.Canvas(str(path), pagesize=A4)
    c.setTitle("USPA 2040 Arena Rules")
    page, col, y = 1, 0, height - margin - 20
    clauses = 0
    seed = 7

    def words(n: int) -> str:
        nonlocal seed
        out = []
        for _ in range(n):
            seed = (seed * 1103515245 + 12345) % 2**31
            out.append(WORDS[seed % len(WORDS)])
        return " ".join(out).capitalize() + "."

    def furniture() -> None:
        c.setFont("Helvetica", 7)
        c.drawString(margin, height - margin, "USPA 2040 Arena Rules")
        c.drawString(width / 2, margin - 20, str(page))

    def line(text: str, x: float = 0.0) -> bool:
        nonlocal y, col, page
        if y < margin + lead:
            if col == 0:
                col = 1
            elif page >= pages:
                return False
            else:
                c.showPage()
                page += 1
                furniture()
                col = 0
            y = height - margin - 20
        c.setFont("Helvetica", size)
        c.drawString(margin + col * (col_w + gutter) + x, y, text)
        y -= lead
        return True

    started = False  # whether the paragraph being drawn got its first line onto a page

    def para(text: str) -> bool:
        nonlocal y, started
        y -= lead * 0.7
        cur, first = "", True
        started = False
        for w in text.split():
            if len(cur) + len(w) + 1 > per_line and cur:
                if not line(cur, 0 if first else 10):
                    return False
                cur, first, started = w, False, True
            else:
                cur = f"{cur} {w}".strip()
        if line(cur, 0 if first else 10):
            started = True
            return True
        return False

    furniture()
    # about 46 clauses fit on a page: spread them over 18 rules of 26 lettered clauses
    per_letter = max(0, round(pages * 46 / 18 / 26) - 1)
    ok = True
    for rule in range(1, 19):
        ok = ok and para(f"RULE {rule}") and line(f"Topic {rule}") and para(words(18))
        if not ok:
            break
        clauses += 1
        for letter in "abcdefghijklmnopqrstuvwxyz":
            if not para(f"{letter}. {words(20)}"):
                ok = False
                break
            clauses += 1
            for k in range(1, per_letter + 1):
                if not para(f"({k}) {words(14)}"):
                    ok = False
                    break
                clauses += 1
            if not ok:
                break
        if not ok:
            clauses += started and rule > 0  # the last clause, cut off by the page limit
            break
    c.save()
    return page, clauses


def bench_import(pages: int, cpu: bool) -> None:
    import pdfplumber

    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "rulebook-2040.pdf"
        t0 = time.perf_counter()
        drawn_pages, drawn = make_pdf(pdf, pages)
        t_draw = time.perf_counter() - t0
        clock = time.process_time if cpu else time.perf_counter
        t0 = clock()
        with pdfplumber.open(pdf) as doc:
            chars = sum(len(p.extract_text() or "") for p in doc.pages)
        t_base = clock() - t0
        t0 = clock()
        parsed = parse_file(pdf)
        t_parse = clock() - t0
        with Corpus.open(Path(tmp) / "rules.sqlite3") as corpus:
            t0 = clock()
            corpus.store(parsed)
            t_store = clock() - t0
            counts = corpus.counts()
    n = counts["clauses"]
    total = t_parse + t_store
    print(f"times are {'CPU (process) time' if cpu else 'wall-clock time'}")
    print(f"PDF: {drawn_pages} pages, two columns, {chars} characters (drawn in {t_draw:.1f} s)")
    print(
        f"imported: {len(parsed.rules)} rules, {n} clauses of {drawn} drawn, "
        f"{counts['clause_fts']} index rows"
    )
    print(f"baseline pdfplumber extract_text  {t_base:7.2f} s  {n / t_base:8.0f} clauses/s")
    print(f"read PDF (layout, columns, ids)   {t_parse:7.2f} s  {n / t_parse:8.0f} clauses/s")
    print(f"store (one transaction, FTS)      {t_store:7.2f} s  {n / t_store:8.0f} clauses/s")
    print(f"import end to end                 {total:7.2f} s  {n / total:8.0f} clauses/s")
    print(f"ratio import/baseline {total / t_base:.2f}x")


def bench_search(args: argparse.Namespace) -> int:
    files = sorted(args.seeds.glob("*.txt")) if args.seeds.is_dir() else []
    if not files:
        print(f"no seed pages in {args.seeds}", file=sys.stderr)
        return 2
    with (
        tempfile.TemporaryDirectory() as tmp,
        Corpus.open(Path(tmp) / "rules.sqlite3") as corpus,
    ):
        for f in files:
            corpus.store(parse_file(f))
        counts = corpus.counts()
        fts: list[float] = []
        like: list[float] = []
        clock = time.process_time if args.cpu else time.perf_counter
        for q, lang in QUERIES:  # warm up
            search(corpus, q, lang=lang)
            like_search(corpus, q, lang=lang)
        for _ in range(args.repeat):
            for q, lang in QUERIES:
                t0 = clock()
                search(corpus, q, lang=lang)
                t1 = clock()
                like_search(corpus, q, lang=lang)
                t2 = clock()
                fts.append((t1 - t0) * 1000)
                like.append((t2 - t1) * 1000)
    print(
        f"corpus: {counts['clauses']} clauses, {counts['passages']} passages, "
        f"{counts['translations']} translations, {counts['clause_fts']} index rows"
    )
    print(f"queries: {len(QUERIES)} x {args.repeat} = {len(fts)}", "(CPU time)" if args.cpu else "")
    f50, f99, l50, l99 = _pct(fts, 0.5), _pct(fts, 0.99), _pct(like, 0.5), _pct(like, 0.99)
    print(f"FTS5 search  p50 {f50:.3f} ms  p99 {f99:.3f} ms  mean {statistics.mean(fts):.3f} ms")
    print(f"LIKE scan    p50 {l50:.3f} ms  p99 {l99:.3f} ms  mean {statistics.mean(like):.3f} ms")
    print(f"ratio FTS/LIKE  p50 {f50 / l50:.2f}x  p99 {f99 / l99:.2f}x")
    print(f"target FTS p99 < 5 ms: {'met' if f99 < 5 else 'NOT met'} ({f99 / 5:.2f} of target)")
    return 0


def _seeds() -> Path:
    """``../shared/seeds`` beside the repository (or one folder up, from a worktree)."""
    for base in (REPO.parent, REPO.parent.parent):
        if (base / "shared" / "seeds").is_dir():
            return base / "shared" / "seeds"
    return REPO.parent / "shared" / "seeds"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=("all", "import", "search"), default="all")
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument(
        "--cpu",
        action="store_true",
        help="time the import with process CPU time (steadier on a shared machine)",
    )
    ap.add_argument("--repeat", type=int, default=300)
    ap.add_argument("--seeds", type=Path, default=_seeds())
    args = ap.parse_args(argv)
    if args.part in ("all", "import"):
        bench_import(args.pages, args.cpu)
    if args.part in ("all", "search"):
        if args.part == "all":
            print()
        return bench_search(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
