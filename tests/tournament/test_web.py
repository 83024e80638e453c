"""The tournament pages and API (in process)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tests.tournament.web_helpers import RESULTS, four_team_toml, post
from tests.web.conftest import OPEN

from chukker.web import create_app
from chukker.web.planes import Addresses


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    # the QR codes need the public address (issue 41: never the request's Host)
    app = create_app(tmp_path / "live.sqlite3", addresses=Addresses(
        public_url="http://arena.test"), **OPEN)
    with TestClient(app) as c:
        yield c


def create(client: Any) -> dict[str, Any]:
    r = client.post("/tournaments/api", json={"text": four_team_toml()})
    assert r.status_code == 201, r.text
    return dict(r.json())


def test_create_play_the_pool_and_the_final_becomes_live(client: Any) -> None:
    body = create(client)
    tid = body["tournament_id"]
    assert set(body["matches"]) == {f"m{i}" for i in range(1, 7)}  # f1 waits for the pool
    tokens = {a: v["token"] for a, v in body["arenas"].items()}
    page = client.get(f"/tournaments/{tid}")
    assert page.status_code == 200 and "Four Cup" in page.text and "Now playing" in page.text
    for mid, events in RESULTS.items():
        live = body["matches"][mid]
        arena = "Arena 1" if int(mid[1:]) % 2 else "Arena 2"
        # the other arena's token does not drive this match
        other = tokens["Arena 2" if arena == "Arena 1" else "Arena 1"]
        assert post(client, "", live, other, {"type": "bowl_in"}).status_code == 403
        assert post(client, "", live, tokens[arena], {"type": "bowl_in"}).status_code == 201
        for ev in events:
            assert post(client, "", live, tokens[arena], ev).status_code == 201
    s = client.get(f"/tournaments/{tid}/standings.json").json()
    pool = s["stages"][0]
    assert next(r["team"] for r in pool["table"]) == "reds"
    assert pool["table"][0]["decided_by"] == "wins"
    assert pool["complete"] and pool["waiting"] == []
    assert [r["team"] for r in pool["table"]] == ["reds", "blues", "greens", "golds"]
    final = next(m for m in s["matches"] if m["id"] == "f1")
    assert final["teams"] == ["reds", "blues"] and final["status"] == "scheduled"
    res = client.get(f"/tournaments/{tid}/results.json").json()
    assert next(m for m in res["matches"] if m["id"] == "f1")["live"]  # now a live match
    m1 = next(m for m in s["matches"] if m["id"] == "m1")
    assert m1["status"] == "final" and m1["winner"] == "reds"
    # pages, exports, QR, team page
    es = client.get(f"/tournaments/{tid}?lang=es")
    assert es.status_code == 200 and "Ahora" in es.text
    csv = client.get(f"/tournaments/{tid}/standings.csv").text
    assert csv.splitlines()[1].startswith("pool,1,reds,3,3,0")
    assert client.get(f"/tournaments/{tid}/matches.csv").text.count("\n") == 8
    qr = client.get(f"/tournaments/{tid}/qr/m1.svg")
    assert qr.status_code == 200 and "<svg" in qr.text and "<path" in qr.text
    card = client.get(f"/tournaments/{tid}/matches/m1?lang=it")
    assert card.status_code == 200 and "Reds 1" in card.text and "<svg" in card.text
    assert "Squadra" in card.text or "capitano" in card.text
    assert client.get(f"/tournaments/{tid}/matches/nope").status_code == 404
    team = client.get(f"/tournaments/{tid}/teams/reds")
    assert team.status_code == 200 and "Reds 1" in team.text
    res = client.get(f"/tournaments/{tid}/results.json").json()
    assert res["matches"][0]["arena"] == "Arena 1"
    assert client.get("/tournaments").status_code == 200
    # a match with no arena is not an arena: no "-" console
    assert client.get(f"/tournaments/{tid}/arena/-/console").status_code == 404
    import hashlib

    slug = hashlib.sha1(b"Arena 1").hexdigest()[:8]
    shown = client.get(f"/tournaments/{tid}/arena/{slug}/display")
    assert shown.status_code == 200 and '"f1"' in shown.text  # the final is next on Arena 1
    assert client.get(f"/tournaments/{tid}/arena/{slug}/nope").status_code == 404


def test_an_unsound_or_unreadable_file_is_refused(client: Any) -> None:
    r = client.post("/tournaments/api", json={"text": "name = \n"})
    assert r.status_code == 422 and r.json()["error"] == "unreadable_tournament"
    bad = four_team_toml().replace(
        'players = ["reds1", "reds2", "reds3"]', 'players = ["reds1", "reds2", "zed"]'
    )
    r = client.post("/tournaments/api", json={"text": bad})
    assert r.status_code == 422
    lines = [p["message"] for p in r.json()["problems"]]
    assert "team reds: player zed is not in the register" in lines
    assert "team reds: player zed is not in the register" in r.json()["params"]["problems"]


def test_organiser_token_needed_on_a_closed_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with TestClient(create_app(tmp_path / "live.sqlite3", organiser="s3cret")) as c:
        r = c.post("/tournaments/api", json={"text": four_team_toml()})
        assert r.status_code == 401 and r.json()["error"] == "organiser_required"
        r = c.post(
            "/tournaments/api",
            json={"text": four_team_toml()},
            headers={"authorization": "Bearer nope"},
        )
        assert r.status_code == 403
        r = c.post(
            "/tournaments/api",
            json={"text": four_team_toml()},
            headers={"authorization": "Bearer s3cret"},
        )
        assert r.status_code == 201


def test_every_string_of_the_pages_in_es_and_it() -> None:
    import re

    from chukker.i18n import translations
    from chukker.web.shared.tournament_view import CRITERIA_LABELS, STATUS_LABELS

    here = Path(__file__).parents[2] / "src" / "chukker" / "web"
    ids = set(CRITERIA_LABELS.values()) | set(STATUS_LABELS.values())
    for f in (here / "templates" / "tournament").glob("*.html"):
        ids |= {m.group(2) for m in re.finditer(r"""_\(\s*(["'])(.*?)\1\s*\)""", f.read_text())}
    src = "".join((here / f).read_text() for f in (  # the tournament's pages, by plane
        "officials/arena.py", "public/tournaments.py", "shared/tournament_view.py"))
    ids |= {
        m.group(1) + (m.group(2) or "")
        for m in re.finditer(r'gettext\(\s*"(.*?)"(?:\s*\n\s*"(.*?)")?', src)
    }
    for lang in ("es", "it"):
        tr = translations(lang)
        missing = sorted(
            i for i in ids if tr.gettext(i) == i and i not in ("Arena", "Final", "Handicap", "GF")
        )
        assert missing == [], (lang, missing)


def test_the_committee_moves_a_match(client: Any) -> None:
    body = create(client)
    tid, cm = body["tournament_id"], {"authorization": "Bearer " + body["committee_token"]}
    url = f"/tournaments/{tid}/api/matches/m2"
    # no token: the declared 401 (issue 35)
    assert client.post(url, json={"start": "2026-12-05T16:00"}).status_code == 401
    arena1 = {"authorization": "Bearer " + body["arenas"]["Arena 1"]["token"]}
    assert client.post(url, json={"start": "2026-12-05T16:00"}, headers=arena1).status_code == 403
    r = client.post(url, json={"start": "2026-12-05T16:00", "arena": "Arena 1"}, headers=cm)
    assert r.status_code == 200, r.text
    assert r.json()["match"]["start"] == "2026-12-05T16:00:00"
    assert r.json()["match"]["arena"] == "Arena 1"
    live = r.json()["live"]
    assert live and live != body["matches"]["m2"]  # made again with Arena 1's token
    assert (
        post(client, "", live, body["arenas"]["Arena 1"]["token"], {"type": "bowl_in"}).status_code
        == 201
    )
    r = client.post(url, json={"arena": "Arena 2"}, headers=cm)
    assert r.status_code == 409 and r.json()["error"] == "match_started"
    assert client.post(url, json={"start": "soon"}, headers=cm).status_code == 422
    s = client.get(f"/tournaments/{tid}/results.json").json()
    m2 = next(m for m in s["matches"] if m["id"] == "m2")
    assert (m2["start"], m2["arena"]) == ("2026-12-05T16:00:00", "Arena 1")


def test_the_tournaments_own_words_in_es_and_it(client: Any) -> None:
    """Issue 30: "Pool", "Ko", the table's headers, the third-place box and "Updated"."""
    import datetime as dt

    from chukker.i18n import translations
    from chukker.tournament.export import bracket_svg
    from chukker.tournament.model import from_dict
    from chukker.tournament.schedule import bracket
    from chukker.tournament.standings import standings
    from chukker.web.shared.render import STAGE_WORDS, stage_name

    tid = create(client)["tournament_id"]
    es = client.get(f"/tournaments/{tid}?lang=es").text
    assert ">Grupo <small" in es and ">J</th>" in es and ">GC</th>" in es
    it = client.get(f"/tournaments/{tid}?lang=it").text
    assert ">Girone <small" in it and ">V</th>" in it and ">GS</th>" in it
    for lang in ("es", "it"):
        tr = translations(lang)
        assert all(tr.gettext(w) != w for w in STAGE_WORDS.values() if w != "Final"), lang
    assert stage_name("ko-consolation", translations("it").gettext) == (
        "Eliminazione diretta Consolazione"
    )
    t = from_dict({
        "name": "Cup",
        "stages": [{"id": "pool-a", "kind": "round-robin", "teams": list("abcd")}],
        "teams": [{"id": x, "players": []} for x in "abcd"],
    })  # fmt: skip
    stage, ms = bracket("ko", ["pool-a"], 4, dt.datetime(2026, 12, 5, 9), ["A1"], 65, True)
    t.stages[stage.id] = stage
    t.matches.update({m.id: m for m in ms})
    svg = bracket_svg(t, standings(t), gettext=translations("es").gettext)
    assert svg.count("Tercer puesto") == 1  # the third-place box only, not the final
    page = client.get("/tournaments?lang=it").text
    assert '"updated": "Aggiornato"' in page or '"updated":"Aggiornato"' in page
