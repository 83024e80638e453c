"""The rulebook's documents: importers, corpus, search, diffs and pages."""

# The rulebook corpus (stdlib only; sqlite3 for the database).
from chukker.rulebook.corpus import Corpus, StoreReport, default_db_path
from chukker.rulebook.diff import (
    ChangeKind,
    ClauseChange,
    EditionDiff,
    Pairing,
    RuleDiff,
    diff_editions,
    diff_rules,
)
from chukker.rulebook.documents import parse_html, parse_pdf
from chukker.rulebook.glossary import GlossaryEntry, glossary
from chukker.rulebook.importers import ParsedSource, RulebookFormatError
from chukker.rulebook.model import Clause, ClauseKind, Origin, Passage, Play, Rule
from chukker.rulebook.pages import RulePage, rule_page
from chukker.rulebook.reader import parse_file, parse_text
from chukker.rulebook.search import SearchHit, search
from chukker.rulebook.summaries import EngineParam, RuleSummary, engine_params, summary

__all__ = [
    "ChangeKind",
    "Clause",
    "ClauseChange",
    "ClauseKind",
    "Corpus",
    "EditionDiff",
    "EngineParam",
    "GlossaryEntry",
    "Origin",
    "Pairing",
    "ParsedSource",
    "Passage",
    "Play",
    "Rule",
    "RuleDiff",
    "RulePage",
    "RuleSummary",
    "RulebookFormatError",
    "SearchHit",
    "StoreReport",
    "default_db_path",
    "diff_editions",
    "diff_rules",
    "engine_params",
    "glossary",
    "parse_file",
    "parse_html",
    "parse_pdf",
    "parse_text",
    "rule_page",
    "search",
    "summary",
]
