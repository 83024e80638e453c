"""The documentation site: `mkdocs build --strict` passes (a broken link or anchor fails CI),
a guide per person, reference pages generated from the code, the key card kept with the console.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from chukker.web.keys import CONSOLE_KEYS, key_codes

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.xdist_group("docs")


def _mkdocs(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mkdocs", reason="mkdocs-material is in the dev extra")
    pytest.importorskip("material", reason="mkdocs-material is in the dev extra")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    r = _mkdocs(["build", "--strict", "--site-dir", str(out)], REPO)
    assert r.returncode == 0, r.stderr[-4000:]
    return out


def _text(site: Path, page: str) -> str:
    return (site / page / "index.html").read_text(encoding="utf-8")


def test_docs_site_builds_strict_with_a_guide_for_each_person(site: Path) -> None:
    for page in ("guide/timekeeper", "guide/committee", "guide/umpire-player",
                 "guide/operator", "guide/spectator", "guide/keys"):  # fmt: skip
        assert (site / page / "index.html").is_file(), page
    tk = _text(site, "guide/timekeeper")
    for words in ("Before the match", "When the Wi-Fi drops", "Corrections", "The horn"):
        assert words in tk, words
    committee = _text(site, "guide/committee")
    for words in ("The tournament file", "arena tokens", "Moving a match", "Brackets",
                  "Signing the score sheet", "Exports for the association"):  # fmt: skip
        assert words in committee, words
    op = _text(site, "guide/operator")
    assert all(w in op for w in ("Caddy", "PostgreSQL", "restore", "Metrics"))
    # the design notes stay, as "How it works"
    assert (site / "engine" / "index.html").is_file() and "How it works" in _text(site, "")


def test_docs_screenshots_come_from_scripts_screens(site: Path) -> None:
    for guide in ("guide/timekeeper", "guide/committee", "guide/umpire-player"):
        for src in re.findall(r'<img[^>]+src="([^"]+)"', _text(site, guide)):
            assert "/screens/" in src and (site / guide / src).resolve().is_file(), src


def test_docs_reference_pages_are_generated_from_the_code(site: Path) -> None:
    from chukker import config
    from chukker.web.refusals import templates

    cli = _text(site, "reference/cli")
    for command in ("chukker serve", "chukker rules search", "chukker quiz check",
                    "chukker tournament schedule", "chukker plays review"):  # fmt: skip
        assert f"<code>{command}</code>" in cli, command
    assert "--port" in cli
    settings = _text(site, "reference/settings")
    assert all(f"<code>{k.env}</code>" in settings for k in config.KEYS)
    refusals = _text(site, "reference/refusals")
    assert all(f"<code>{code}</code>" in refusals for code in templates())
    api = _text(site, "reference/api")
    assert "/api/matches/{match_id}/events" in api
    assert (site / "reference" / "openapi.json").is_file()


def test_docs_a_broken_link_fails_the_strict_build(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# x\n\n[gone](guide/nope.md)\n")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\n")
    r = _mkdocs(["build", "--strict", "--site-dir", str(tmp_path / "out")], tmp_path)
    assert r.returncode != 0 and "nope.md" in r.stderr


def test_key_card_names_exactly_the_keys_the_console_handles() -> None:
    js = (REPO / "src/chukker/web/static/console.js").read_text(encoding="utf-8")
    handled = set(re.findall(r'k === "((?:Key[A-Z])|Space|Backspace)"', js))
    # Z (undo a microphone's stop) is the whistle's own script's key
    whistle = (REPO / "src/chukker/web/static/whistle.js").read_text(encoding="utf-8")
    handled |= set(re.findall(r'e\.code !== "(Key[A-Z])"', whistle))
    named = {c for c in key_codes() if not c.startswith(("Digit", "Numpad"))}
    assert named == handled
    # goal keys come from the console's buttons: the card's digits are the template's
    html = (REPO / "src/chukker/web/templates/console.html").read_text(encoding="utf-8")
    digits = {d for k in CONSOLE_KEYS for c in k.codes if c.startswith("Digit") for d in c[5:]}
    in_template = re.findall(r'\("(\d)", "(\d)", "(\d)"\)', html)
    assert digits == {d for triple in in_template for d in triple}


def _sh_commands(page: str) -> list[str]:
    """The `chukker ...` lines of a page's ```sh blocks, continuations joined."""
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    out: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #", 1)[0].strip()
            if line.startswith("chukker "):
                out.append(line)
    return out


def test_committee_guide_tournament_commands_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shlex
    import shutil

    from typer.testing import CliRunner

    from chukker.cli import build_app

    shutil.copy(REPO / "examples/tournament/fall-classic.toml", tmp_path)
    shutil.copytree(REPO / "examples/tournament/matches", tmp_path / "matches")
    monkeypatch.chdir(tmp_path)
    commands = [c for c in _sh_commands("guide/committee.md")
                if c.startswith("chukker tournament") and " register " not in c]  # fmt: skip
    assert len(commands) >= 7
    move = '--move "s1=2026-12-05T16:00@Arena 2"'
    commands.append(f"chukker tournament schedule fall-classic.toml {move}")  # the inline one
    for line in commands:
        args = shlex.split(line.split(" > ", 1)[0])[1:]
        res = CliRunner().invoke(build_app(args), args)
        assert res.exit_code == 0, (line, res.output[-800:])


def test_umpire_guide_clinic_quiz_runs_as_written(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import shlex

    from typer.testing import CliRunner

    from chukker.cli import build_app

    monkeypatch.chdir(tmp_path)
    (line,) = [c for c in _sh_commands("guide/umpire-player.md") if c.startswith("chukker quiz")]
    args = shlex.split(line)[1:]
    res = CliRunner().invoke(build_app(args), args, input="a\n" * 20)
    assert res.exit_code == 1, res.output[-800:]  # "a" twenty times fails: exit 1, as it says
    rows = (tmp_path / "clinic.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert len(rows) == 20 and all(r.startswith("Ana Ruiz,7,umpire,") for r in rows)
