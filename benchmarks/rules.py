"""Rulebook search latency: SQLite FTS5 against a plain LIKE scan, in the same run.

Imports the seed pages (``../shared/seeds`` beside the repository, or
``--seeds``) into a fresh SQLite file in a temporary folder, then runs a mix
of queries (English, Spanish, Italian; with and without accents; one and two
words; with and without a language filter) ``--repeat`` times each through

* ``chukker.rulebook.search.search`` (FTS5, ranked, snippets), and
* ``chukker.rulebook.search.like_search`` (``LIKE '%word%'`` over originals and
  translations: the baseline; it neither ranks nor folds accents).

Prints p50/p99 of each in milliseconds and the ratio FTS/LIKE. Target
(issue 4): FTS p99 under 5 ms.

    python benchmarks/rules.py [--repeat 300] [--seeds DIR]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from chukker.rulebook.corpus import Corpus
from chukker.rulebook.importers import parse_file
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
]


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=300)
    ap.add_argument("--seeds", type=Path, default=REPO.parent / "shared" / "seeds")
    args = ap.parse_args(argv)
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
        for q, lang in QUERIES:  # warm up
            search(corpus, q, lang=lang)
            like_search(corpus, q, lang=lang)
        for _ in range(args.repeat):
            for q, lang in QUERIES:
                t0 = time.perf_counter()
                search(corpus, q, lang=lang)
                t1 = time.perf_counter()
                like_search(corpus, q, lang=lang)
                t2 = time.perf_counter()
                fts.append((t1 - t0) * 1000)
                like.append((t2 - t1) * 1000)
    print(
        f"corpus: {counts['clauses']} clauses, {counts['passages']} passages, "
        f"{counts['translations']} translations, {counts['clause_fts']} index rows"
    )
    print(f"queries: {len(QUERIES)} x {args.repeat} = {len(fts)}")
    f50, f99, l50, l99 = _pct(fts, 0.5), _pct(fts, 0.99), _pct(like, 0.5), _pct(like, 0.99)
    print(f"FTS5 search  p50 {f50:.3f} ms  p99 {f99:.3f} ms  mean {statistics.mean(fts):.3f} ms")
    print(f"LIKE scan    p50 {l50:.3f} ms  p99 {l99:.3f} ms  mean {statistics.mean(like):.3f} ms")
    print(f"ratio FTS/LIKE  p50 {f50 / l50:.2f}x  p99 {f99 / l99:.2f}x")
    print(f"target FTS p99 < 5 ms: {'met' if f99 < 5 else 'NOT met'} ({f99 / 5:.2f} of target)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
