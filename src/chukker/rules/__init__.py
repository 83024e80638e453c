"""Editions, rule parameters and the rulebook corpus."""

# The rulebook corpus (stdlib only; sqlite3 for the database).
from chukker.rules.corpus import Corpus, StoreReport, default_db_path
from chukker.rules.diff import (
    ChangeKind,
    ClauseChange,
    EditionDiff,
    RuleDiff,
    diff_editions,
    diff_rules,
)
from chukker.rules.editions import EDITIONS, Edition, EditionId, Param, PeriodPlan, edition
from chukker.rules.glossary import GlossaryEntry, glossary
from chukker.rules.importers import ParsedSource, RulebookFormatError, parse_file, parse_text
from chukker.rules.model import Clause, ClauseKind, Passage, Play, Rule
from chukker.rules.pages import RulePage, rule_page
from chukker.rules.search import SearchHit, search
from chukker.rules.summaries import EngineParam, RuleSummary, engine_params, summary

__all__ = [
    "EDITIONS",
    "ChangeKind",
    "Clause",
    "ClauseChange",
    "ClauseKind",
    "Corpus",
    "Edition",
    "EditionDiff",
    "EditionId",
    "EngineParam",
    "GlossaryEntry",
    "Param",
    "ParsedSource",
    "Passage",
    "PeriodPlan",
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
    "edition",
    "engine_params",
    "glossary",
    "parse_file",
    "parse_text",
    "rule_page",
    "search",
    "summary",
]
