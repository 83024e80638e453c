"""The review page: upload or CLI, timeline by clause and player, words, rule links, CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests import ports

from chukker.plays.review import REVIEWS, analyse_file, candidates_csv, moment, rows
from chukker.web.public.plays import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "gps"
client = TestClient(app)


def _upload(lang: str = "en") -> str:
    files = {
        "file": ("session.toml", (EXAMPLE / "session.toml").read_bytes()),
        "fixes": ("session-fixes.csv", (EXAMPLE / "session-fixes.csv").read_bytes()),
    }
    r = client.post(f"/plays/review?lang={lang}", files=files, follow_redirects=False)
    assert r.status_code == 303, r.text
    return str(r.headers["location"])


def test_plays_review_upload_shows_timeline_words_and_rule_links() -> None:
    loc = _upload("es")
    r = client.get(loc + "&c=0")
    assert r.status_code == 200
    html = r.text
    assert html.count('class="tl-row"') == 4  # 13b, 13f, 13g and 13i rows
    assert "Blanco 2 cruzó la línea de Azul 1 3 veces" in html
    assert 'href="/rules/uspa-arena-2026/es/13/13b"' in html
    assert "<svg" in html and "Posible falta: Blanco 2 (13b)" in html
    assert "GX-104" in html  # the units' report
    assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="heat"') == 4  # heat maps
    assert "Para el entrenador" in html


def test_plays_review_csv_has_start_and_end_of_every_candidate() -> None:
    loc = _upload()
    rid = loc.split("/review/")[1].split("?")[0]
    r = client.get(f"/plays/review/{rid}.csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    got = list(csv.DictReader(io.StringIO(r.text)))
    assert [(g["clause"], g["team"], g["player"]) for g in got] == [
        ("13b", "white", "2"), ("13f", "white", "2"), ("13g", "white", "1"),
        ("13i", "white", "2"), ("13b", "white", "2"),
    ]  # fmt: skip
    assert all(float(g["start_s"]) <= float(g["end_s"]) for g in got)
    assert got[0]["start_utc"].startswith("2026-12-05T10:00:")


def test_plays_review_refuses_what_it_cannot_read() -> None:
    assert client.get("/plays/review/0123456789ab").status_code == 404
    # a session without its fixes file
    files = {"file": ("session.toml", (EXAMPLE / "session.toml").read_bytes())}
    r = client.post("/plays/review", files=files)
    assert r.status_code == 400 and 'role="alert"' in r.text
    assert "/tmp" not in r.text


def test_plays_review_of_a_scenario_and_its_moment() -> None:
    rv = analyse_file(
        Path(__file__).resolve().parents[2] / "src/chukker/plays/data/13f-two-on-one.toml"
    )
    assert REVIEWS[rv.id] is rv
    assert [(r.clause, r.player) for r in rows(rv)] == [("13f", "white:2")]
    sc = moment(rv, 0)
    assert sc.culprit is not None and str(sc.culprit) == "white:2"
    assert candidates_csv(rv).count("\n") == 2


@pytest.fixture(scope="module")
def served(serve_asgi: Callable[[Any], str]) -> str:
    return serve_asgi(app)


@pytest.mark.browser
def test_plays_review_page_of_the_example_in_browser(served: str, browser: Any) -> None:
    rv = analyse_file(EXAMPLE / "session.toml")
    page = browser.new_page()
    try:
        page.goto(f"{served}/plays/review/{rv.id}?lang=it")
        assert page.locator(".tl-row").count() == 4
        # the 13g bar: click it, the moment shows White 1 riding at Blue 1
        page.click(".tl-bar[data-candidate='2']")
        page.wait_for_selector(".tl-bar.tl-picked[data-candidate='2']")
        assert "Bianco 1 ha puntato Blu 1" in page.text_content("p.evidence")
        page.wait_for_function("document.querySelector('[data-play]').dataset.state")
        page.click("button.play")
        assert page.get_attribute("[data-play]", "data-state") == "paused"
        box = page.locator(".diagram svg").bounding_box()
        assert box is not None and box["width"] > 300
        assert page.get_attribute("a.export", "href") == f"/plays/review/{rv.id}.csv?lang=it"
    finally:
        page.close()


def test_plays_review_command_analyses_and_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn
    from typer.testing import CliRunner

    from chukker.cli import build_app

    cli = build_app(["plays"])  # `review` is the web side's command on `chukker plays`
    served: list[object] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: served.append((app, kw)))
    res = CliRunner().invoke(cli, ["plays", "review", str(EXAMPLE / "session.toml"),
                                   "--no-open", "--port", "8777", "--lang", "es"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "5 candidates" in res.output
    url = res.output.split("review at ")[1].split()[0]
    assert url.startswith("http://127.0.0.1:8777/plays/review/") and url.endswith("?lang=es")
    assert served and served[0][1]["port"] == 8777  # type: ignore[index]
    rid = url.split("/review/")[1].split("?")[0]
    assert client.get(f"/plays/review/{rid}").status_code == 200
    assert client.get("/plays/").text.count('href="/plays/review?lang=en"') == 1


def test_plays_review_says_it_starts_a_server_on_its_port_and_how_to_stop_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket

    import uvicorn
    from typer.testing import CliRunner

    from chukker.cli import build_app

    cli = build_app(["plays"])
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: None)
    free = ports.free_port()
    res = CliRunner().invoke(cli, ["plays", "review", str(EXAMPLE / "session.toml"),
                                   "--no-open", "--port", str(free)])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert f"starting a local web server on 127.0.0.1:{free}" in res.output
    assert "until you press Ctrl-C" in res.output
    with socket.socket() as busy:  # the port is taken: one line naming --port, no traceback
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        res = CliRunner().invoke(cli, ["plays", "review", str(EXAMPLE / "session.toml"),
                                       "--no-open", "--port", str(port)])  # fmt: skip
    assert res.exit_code == 2
    assert f"port {port} is in use; choose another with --port" in res.output
    assert "Traceback" not in res.output
