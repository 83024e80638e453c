"""Record 1.3 on the web (issue 31): the API takes a whistle with ``"source": "audio"`` and
the engine treats it as any whistle; the console gets the detector's one set of parameters
and its words in en, es and it; the sheet says which stops came from the microphone."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from tests.web.conftest import post_event

from chukker.web.officials.console import WHISTLE_LABELS
from chukker.whistle import detector


def _cfg(html: str) -> dict[str, Any]:
    m = re.search(r'<script[^>]*id="cfg"[^>]*>(.*?)</script>', html, re.S)
    assert m, html[:500]
    cfg: dict[str, Any] = json.loads(m.group(1))
    return cfg


def test_record_1_3_whistle_from_the_microphone_stops_the_clock_as_any_whistle(
        client: Any, make_match: Any) -> None:
    m = make_match(client)
    assert post_event(client, m, {"type": "bowl_in"}).status_code in (200, 201)
    r = post_event(client, m, {"type": "whistle", "source": "audio"})
    assert r.status_code in (200, 201), r.text
    rep = client.get(f"/api/matches/{m.id}").json()
    assert rep["clock"]["running"] is False and rep["status"] == "stopped"
    ev = client.get(f"/api/matches/{m.id}/record").json()["events"]
    assert ev[-1] == {**ev[-1], "type": "whistle", "source": "audio"}


def test_record_1_3_whistle_source_other_than_audio_is_refused(
        client: Any, make_match: Any) -> None:
    m = make_match(client)
    post_event(client, m, {"type": "bowl_in"})
    r = post_event(client, m, {"type": "whistle", "source": "mic"})
    assert r.status_code in (400, 422), r.text


@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_rule_5_console_gets_the_detectors_parameters_and_words_in_its_language(
        client: Any, make_match: Any, lang: str) -> None:
    m = make_match(client)
    html = client.get(f"/m/{m.id}/console?lang={lang}").text
    assert 'id="whistle-on"' in html and "whistle-worklet.js" in html
    cfg = _cfg(html)
    assert cfg["whistle"]["params"] == detector.params()
    labels = cfg["whistle"]["labels"]
    assert set(labels) == set(WHISTLE_LABELS)
    if lang != "en":
        assert all(labels[k] != v for k, v in WHISTLE_LABELS.items()), lang
    # the checkbox starts off: nothing listens until the timekeeper says so
    assert re.search(r'<input type="checkbox" id="whistle-on">', html)


def test_rule_5_only_the_console_carries_the_whistle(client: Any, make_match: Any) -> None:
    m = make_match(client)
    for page in ("", "/display", "/overlay"):
        assert '"whistle"' not in client.get(f"/m/{m.id}{page}").text.split('id="cfg"')[-1][:200000]


def test_rule_5_sheet_says_which_stops_came_from_the_microphone(
        client: Any, make_match: Any) -> None:
    m = make_match(client)
    post_event(client, m, {"type": "bowl_in"})
    post_event(client, m, {"type": "whistle", "source": "audio"})
    post_event(client, m, {"type": "bowl_in"})
    post_event(client, m, {"type": "whistle"})
    data = client.get(f"/m/{m.id}/sheet.json").json()
    assert [w["event"] for w in data["audio_stops"]] == [2]
    assert data["audio_stops"][0]["clock"].startswith("P1 ")
    html = client.get(f"/m/{m.id}/sheet?lang=es").text
    assert "Silbatos oídos por el micrófono" in html
