"""Fixtures for the rulebook tests: the seed pages (from ../shared/seeds) and a database of them.

The project ships none of the seeds' sentences; tests read them from the
shared folder beside the repository and skip, saying why, when it is absent.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chukker.rulebook.corpus import Corpus
from chukker.rulebook.importers import ParsedSource, SourceKind
from chukker.rulebook.reader import parse_file

REPO = Path(__file__).resolve().parents[2]
SEEDS = next(
    (
        p
        for p in (REPO.parent / "shared" / "seeds", REPO.parents[1] / "shared" / "seeds")
        if p.is_dir()
    ),
    REPO.parent / "shared" / "seeds",
)


def seed_files() -> list[Path]:
    if not SEEDS.is_dir():
        pytest.skip(f"seed pages not found at {SEEDS} (the tests read them from ../shared/seeds)")
    files = sorted(SEEDS.glob("*.txt"))
    if not files:
        pytest.skip(f"no seed pages (*.txt) in {SEEDS}")
    return files


@pytest.fixture(scope="session")
def seeds() -> list[Path]:
    return seed_files()


@pytest.fixture(scope="session")
def parsed(seeds: list[Path]) -> list[ParsedSource]:
    return [parse_file(f) for f in seeds]


def _page(parsed: list[ParsedSource], rule: int) -> ParsedSource:
    for p in parsed:
        if p.kind == SourceKind.BILINGUAL_PAGE and p.rules[0].number == rule:
            return p
    pytest.skip(f"no bilingual Rule {rule} page among the seeds in {SEEDS}")


@pytest.fixture(scope="session")
def rule5_page(parsed: list[ParsedSource]) -> ParsedSource:
    return _page(parsed, 5)


@pytest.fixture(scope="session")
def rule13_page(parsed: list[ParsedSource]) -> ParsedSource:
    return _page(parsed, 13)


@pytest.fixture(scope="session")
def summary_2006(parsed: list[ParsedSource]) -> ParsedSource:
    for p in parsed:
        if p.kind == SourceKind.SUMMARY:
            return p
    pytest.skip(f"no rules summary among the seeds in {SEEDS}")


@pytest.fixture(scope="session")
def seeded_db(tmp_path_factory: pytest.TempPathFactory, parsed: list[ParsedSource]) -> Path:
    path = tmp_path_factory.mktemp("rules") / "rules.sqlite3"
    with Corpus.open(path) as corpus:
        for p in parsed:
            corpus.store(p)
    return path


@pytest.fixture
def corpus(seeded_db: Path) -> Iterator[Corpus]:
    c = Corpus.open_readonly(seeded_db)
    assert c is not None
    yield c
    c.close()


@pytest.fixture(autouse=True)
def _own_default_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the user's real rulebook database."""
    monkeypatch.setenv("CHUKKER_RULES_DB", str(tmp_path / "default-rules.sqlite3"))
