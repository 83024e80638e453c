"""Issue 33: ``chukker rules edition``: a club's starting file, its changes, and the guard's
four questions for the command (who, how big, whose path, what it could delay)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from typer.testing import CliRunner

from chukker.cli import build_app
from chukker.rulebook.cli import EDITION_FILE_MAX


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(build_app(["rules"]), ["rules", *args])
    return r.exit_code, r.stdout, r.stderr


def test_rules_edition_toml_is_a_starting_file_with_every_parameter_and_its_clause() -> None:
    code, out, _ = run("edition", "uspa-arena-2026", "--toml")
    assert code == 0
    doc = tomllib.loads(out)
    assert doc["base"] == "uspa-arena-2026" and doc["regulation"]["length_s"] == 450
    assert "5.split-periods" in out and "injury_timeout_max_s = 900" in out


def test_rules_edition_diff_shows_what_the_club_changed(tmp_path: Path) -> None:
    _, out, _ = run("edition", "uspa-arena-2026", "--toml")
    f = tmp_path / "pine.toml"
    f.write_text(out.replace('name = "Our club"', 'name = "Pine Hill"')
                 .replace("warning_at_s = 30 ", "warning_at_s = 20 "))
    code, text, _ = run("edition", str(f), "--diff", "uspa-arena-2026")
    assert code == 0 and "1 changes" in text and "warning_at_s: 30 -> 20" in text
    code, js, _ = run("edition", str(f), "--diff", "uspa-arena-2026", "--json")
    assert json.loads(js) == [{"parameter": "warning_at_s", "base": "30", "club": "20",
                               "clause": "5.the-horn-ends-the-period"}]


def test_rules_edition_a_bad_club_file_is_refused_in_one_line_with_its_path(
        tmp_path: Path) -> None:
    f = tmp_path / "bad.toml"
    f.write_text('base = "uspa-arena-2026"\nname = "<b>Pine</b>"\n')
    code, _, err = run("edition", str(f))
    assert code == 1 and err.count("\n") == 1 and "edition.name" in err


def test_rules_edition_guard_input_is_capped_and_only_the_local_users_own_file_is_read(
        tmp_path: Path) -> None:
    """Who: the local user at a shell (no server route reaches it). How big: a file over
    64 KiB is refused before it is parsed. Whose path: the command line's own, never a
    client's. What it could delay: nothing live; it runs in its own process."""
    big = tmp_path / "big.toml"
    big.write_text('base = "uspa-arena-2026"\nname = "x"\n' + "#" * EDITION_FILE_MAX)
    code, _, err = run("edition", str(big))
    assert code == 2 and "64 KiB" in err
    code, _, err = run("edition", str(tmp_path / "missing.toml"))
    assert code == 2 and err.count("\n") == 1
    notext = tmp_path / "x.toml"
    notext.write_bytes(b"\xff\xfe\x00")
    assert run("edition", str(notext))[0] == 2
    import chukker.rulebook.cli as cli

    src = Path(cli.__file__).read_text()
    assert "fastapi" not in src and "starlette" not in src
