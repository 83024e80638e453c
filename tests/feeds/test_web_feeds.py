"""``GET /api/matches/{id}/feed.json|xml|csv``: the broadcast data feeds."""

from __future__ import annotations

import copy
import json
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.web.conftest import OPEN, ORGANISER_AUTH, Match, post_event

from chukker.feeds import formats
from chukker.feeds.payloads import FLAT_FIELDS
from chukker.web import create_app
from chukker.web.api import feeds as feeds_api
from chukker.web.demo import DEMO_HEADER

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "feeds.sqlite3", **OPEN)) as c:
        yield c


def new_match(c: TestClient, a: str = "Aguilas", b: str = "Búhos") -> Match:
    h = copy.deepcopy(DEMO_HEADER)
    h["teams"]["A"]["name"], h["teams"]["B"]["name"] = a, b
    r = c.post("/api/matches", json=h, headers=ORGANISER_AUTH)
    assert r.status_code == 201, r.text
    return Match(r.json())


def fresh(c: TestClient, path: str) -> Any:
    time.sleep(feeds_api.FEED_TTL_S + 0.01)  # past the cache
    return c.get(path)


def test_feed_json_is_one_flat_record_anyone_may_read(client: TestClient) -> None:
    m = new_match(client)
    r = client.get(f"/api/matches/{m.id}/feed.json")  # no token
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    rec = r.json()
    assert list(rec) == list(FLAT_FIELDS)
    assert rec["team_a_name"] == "Aguilas" and rec["team_b_score"] == 0
    assert rec["status"] == "pre_match" and rec["seq"] == 0 and rec["running"] is False
    assert r.headers["access-control-allow-origin"] == "*"


def test_feed_follows_the_match_goal_clock_and_penalty(client: TestClient) -> None:
    m = new_match(client)
    assert post_event(client, m, {"type": "bowl_in"}).status_code == 201
    assert post_event(client, m, {"type": "goal", "team": "B", "player": 2}).status_code == 201
    assert post_event(client, m, {"type": "whistle"}).status_code == 201
    rec = fresh(client, f"/api/matches/{m.id}/feed.json").json()
    assert rec["team_b_score"] == 1 and rec["last_goal_team"] == "B"
    assert rec["last_goal_player"] == 2 and rec["seq"] == 3 and rec["period"] == 1
    assert rec["running"] is False and rec["clock"] == _clock(rec["clock_ms"])
    r = post_event(client, m, {"type": "foul", "team": "A", "player": 3, "clause": "13b",
                               "penalty": "2"})
    assert r.status_code == 201, r.text
    rec = fresh(client, f"/api/matches/{m.id}/feed.json").json()
    assert rec["penalty_pending"] == "2" and rec["penalty_to"] == "B"


def _clock(ms: int) -> str:
    s = -(-ms // 1000)
    return f"{s // 60}:{s % 60:02d}"


@pytest.mark.parametrize(("lang", "words"), [("en", "Pre-match"), ("es", "Antes del partido"),
                                             ("it", None)])
def test_feed_status_text_in_the_language_asked(client: TestClient, lang: str,
                                                words: str | None) -> None:
    from chukker.i18n import translations

    m = new_match(client)
    rec = client.get(f"/api/matches/{m.id}/feed.json?lang={lang}").json()
    assert rec["status_text"] == (words or translations("it").gettext("Pre-match"))


def test_feed_xml_and_csv_round_trip_to_the_json_record(client: TestClient) -> None:
    m = new_match(client, 'Blue & <"Co">', "Whité, \"the\"\nbest")
    post_event(client, m, {"type": "bowl_in"})
    post_event(client, m, {"type": "goal", "team": "A", "player": 1})
    time.sleep(feeds_api.FEED_TTL_S + 0.01)
    # the three answers are cached together within 200 ms: one record, three formats
    as_json = client.get(f"/api/matches/{m.id}/feed.json?lang=es").json()
    xml = client.get(f"/api/matches/{m.id}/feed.xml?lang=es")
    csv = client.get(f"/api/matches/{m.id}/feed.csv?lang=es")
    assert xml.headers["content-type"].startswith("application/xml")
    assert csv.headers["content-type"].startswith("text/csv")
    from_xml, from_csv = formats.parse_xml(xml.content), formats.parse_csv(csv.content)
    for got in (from_xml, from_csv):
        for k in FLAT_FIELDS:
            if k not in ("clock", "clock_ms", "at"):  # the clock runs between two requests
                assert got[k] == as_json[k], k


def test_feed_answers_are_kept_at_most_200_ms(client: TestClient) -> None:
    m = new_match(client)
    first = client.get(f"/api/matches/{m.id}/feed.json").json()
    post_event(client, m, {"type": "bowl_in"})
    time.sleep(feeds_api.FEED_TTL_S + 0.02)
    assert client.get(f"/api/matches/{m.id}/feed.json").json()["seq"] == first["seq"] + 1


def test_feed_of_an_unknown_match_is_a_json_404(client: TestClient) -> None:
    r = client.get("/api/matches/nope/feed.csv")
    assert r.status_code == 404 and r.json()["code"] == "unknown_match"
    r = client.get("/api/matches/..%2F..%2Fetc%2Fpasswd/feed.xml")
    assert r.status_code == 404


def test_feed_takes_no_body_and_a_short_lang_only(client: TestClient) -> None:
    m = new_match(client)
    assert client.post(f"/api/matches/{m.id}/feed.json", content=b"x" * 10).status_code == 405
    assert client.get(f"/api/matches/{m.id}/feed.json?lang=" + "e" * 50).status_code == 422
    assert client.get(f"/api/matches/{m.id}/feed.json?lang=fr").json()["status_text"] == \
        "Pre-match"  # a language not offered: English


def test_feed_cache_is_bounded(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feeds_api, "CACHE_SIZE", 3)
    ids = [new_match(client).id for _ in range(5)]
    for mid in ids:
        client.get(f"/api/matches/{mid}/feed.json")
    assert len(client.app.state.feed_cache) == 3  # type: ignore[attr-defined]


names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=60)


@settings(max_examples=200, deadline=None)
@given(a=names, b=names, sa=st.integers(0, 99), ms=st.none() | st.integers(0, 10**7),
       text=names)
def test_feed_formats_round_trip_any_names(a: str, b: str, sa: int, ms: int | None,
                                           text: str) -> None:
    rec = {k: None for k in FLAT_FIELDS}
    rec.update(match_id="m1", team_a_name=a, team_b_name=b, team_a_score=sa, team_b_score=0,
               clock_ms=ms, clock=None if ms is None else "1:00", running=True,
               status="in_play", status_text=text, seq=1, at=5)
    xml_safe = {k: (formats._NOT_XML.sub("\ufffd", v) if isinstance(v, str) else v)
                for k, v in rec.items()}
    assert formats.parse_xml(formats.to_xml(rec)) == _xml_text(xml_safe)
    assert formats.parse_csv(formats.to_csv(rec)) == _csv_text(rec)
    assert json.loads(formats.to_json(rec)) == rec


def _xml_text(rec: dict[str, Any]) -> dict[str, Any]:
    # XML normalises CR and CRLF to LF in text
    return {k: v.replace("\r\n", "\n").replace("\r", "\n") if isinstance(v, str) else v
            for k, v in rec.items()}


def _csv_text(rec: dict[str, Any]) -> dict[str, Any]:
    return rec


def test_graphics_machines_polling_cost_one_report_per_format_and_language(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hundred polls within the 200 ms window: one engine report per format and
    language, so polling cannot hold the event loop from the timekeeper's key presses."""
    m = new_match(client)
    calls: list[str] = []
    real = feeds_api.feed_record

    def counting(svc: Any, lm: Any, lang: str) -> dict[str, Any]:
        calls.append(lang)
        return real(svc, lm, lang)

    monkeypatch.setattr(feeds_api, "feed_record", counting)
    monkeypatch.setattr(feeds_api, "FEED_TTL_S", 60.0)  # the window, made long for the test
    for i in range(100):
        fmt = ("json", "xml", "csv")[i % 3]
        assert client.get(f"/api/matches/{m.id}/feed.{fmt}?lang=es").status_code == 200
    assert len(calls) == 3
