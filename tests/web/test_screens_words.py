"""No raw identifiers where people read: a play's players, a tournament's rules and
stages, an error page's heading, in the page's language."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[2]


def visible(html: str) -> str:
    """The page's text without tags, attributes, scripts and styles."""
    html = re.sub(r"<(script|style|svg)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", html)


def test_a_play_names_its_players(client: Any) -> None:
    index = client.get("/plays/?lang=es").text
    sid = re.search(r'href="/plays/((?!review)[a-z0-9_-]+)\?', index)
    assert sid, "no play listed"
    text = visible(client.get(f"/plays/{sid.group(1)}?lang=es").text)
    assert not re.search(r"\b(blue|white|red):\d", text), re.findall(r"\w+:\d", text)


def test_a_tournament_names_its_rules_and_stages(client: Any, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    toml = (ROOT / "examples/tournament/fall-classic.toml").read_text(encoding="utf-8")
    t = client.post("/tournaments/api", json={"text": toml}).json()
    text = visible(client.get(f"/tournaments/{t['tournament_id']}?lang=es").text)
    assert "uspa-arena-2026" not in text and "USPA Arena Rules 2026" in text
    assert "Grupo A" in text and not re.search(r"\bpool-a\s+(en curso|completo)", text)
    assert not re.search(r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d", text), "English day names"


@pytest.mark.parametrize("lang,heading,message", [
    ("en", "Not found", "There is no match nosuchmatch."),
    ("es", "No encontrado", "No existe el partido nosuchmatch."),
    ("it", "Non trovato", "Non esiste la partita nosuchmatch.")])
def test_a_missing_match_is_said_in_the_pages_language(client: Any, lang: str, heading: str,
                                                      message: str) -> None:
    r = client.get(f"/m/nosuchmatch?lang={lang}")
    assert r.status_code == 404
    assert f"<h1>{heading}</h1>" in r.text and message in r.text
