"""``chukker rules import`` (the rulebook importer; there is no web upload of rulebooks)
keeps the limits of :mod:`chukker.limits`: a document's size, its nesting depth, and no
compressed file that a reader would inflate without a cap. Each is refused in one line
naming the file, before any reader sees it, and nothing is stored."""

from __future__ import annotations

import bz2
import gzip
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chukker import limits
from chukker.rulebook.cli import app
from chukker.rulebook.importers import RulebookFormatError
from chukker.rulebook.reader import parse_file, parse_text

runner = CliRunner()
PAGE = "<html lang='en'><body><h2>Rule 5</h2><p>5a. The ball is dead.</p></body></html>"


def _import(tmp_path: Path, f: Path) -> tuple[int, str]:
    r = runner.invoke(app, ["import", "--db", str(tmp_path / "r.sqlite3"),
                            "--edition", "uspa-arena-2026", "--lang", "en", str(f)])
    return r.exit_code, r.stderr


def test_rulebook_import_refuses_a_document_over_max_rulebook_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    f = tmp_path / "big.html"
    f.write_text(PAGE + " " * 5000, encoding="utf-8")
    monkeypatch.setattr(limits, "MAX_RULEBOOK_BYTES", 4096)
    code, err = _import(tmp_path, f)
    assert code != 0 and "big.html" in err and "4096 bytes" in err, err
    with pytest.raises(RulebookFormatError, match="larger than 4096 bytes"):
        parse_text(f.read_text(encoding="utf-8"), "big.html")


@pytest.mark.parametrize(("suffix", "pack", "kind"), [
    (".html.gz", gzip.compress, "gzip"), (".txt.bz2", bz2.compress, "bz2"),
])
def test_rulebook_import_refuses_a_compressed_file(tmp_path: Path, suffix: str,
                                                   pack: object, kind: str) -> None:
    f = tmp_path / f"bomb{suffix}"
    f.write_bytes(pack(b"x" * 10_000_000))  # type: ignore[operator]
    code, err = _import(tmp_path, f)
    assert code != 0 and f.name in err and kind in err and "uncompressed" in err, err
    with pytest.raises(RulebookFormatError, match="compressed"):
        parse_file(f)


def test_rulebook_import_refuses_a_page_nested_deeper_than_max_html_depth(
    tmp_path: Path,
) -> None:
    n = limits.MAX_HTML_DEPTH + 10
    f = tmp_path / "deep.html"
    f.write_text("<html><body>" + "<div>" * n + "5a. x" + "</div>" * n + "</body></html>",
                 encoding="utf-8")
    code, err = _import(tmp_path, f)
    assert code != 0 and "deep.html" in err, err
    assert "deep" in err.lower() or "nest" in err.lower(), err


def test_rulebook_import_limits_are_the_ones_in_chukker_limits() -> None:
    assert limits.MAX_RULEBOOK_BYTES == 32 * 2**20
    assert limits.compression_of(gzip.compress(b"x")) == "gzip"
