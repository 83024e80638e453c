"""Issue 23: device sessions through /plays/review (TestClient): a session TOML with its
GPX, FIT and TCX files gives the CLI's candidates; device files alone with their riders
and the four corners get a session written for them; the door's four questions."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from chukker.plays.gps import CORNERS, GPSError, read_session
from chukker.plays.gps_sessions import parse_corners
from chukker.web import create_app
from chukker.web.guard import DOORS, Role

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

DEV = Path(__file__).resolve().parents[2] / "examples" / "gps" / "devices"
UNITS = {"session-GX-104.fit": "blue:1", "session-GX-117.gpx": "blue:2",
         "session-GX-221.tcx": "white:1", "session-GX-230.gpx": "white:2"}


@pytest.fixture
def client(db_path: Path) -> Any:
    with TestClient(create_app(db_path)) as c:
        yield c


def _cli_candidates() -> list[tuple[str, str, float]]:
    from chukker.plays.cli import app

    res = CliRunner().invoke(app, ["analyze", str(DEV / "session.toml"), "--json"])
    assert res.exit_code == 0, res.output
    return [(c["clause"], f'{c["team"]}:{c["player"]}', round(c["start"], 2))
            for c in json.loads(res.output)["candidates"]]


def _csv_candidates(client: Any, location: str) -> list[tuple[str, str, float]]:
    rid = location.split("/review/")[1].split("?")[0]
    r = client.get(f"/plays/review/{rid}.csv")
    assert r.status_code == 200
    return [(row[0], row[1], row[2]) for row in _rows(r.text)]


def _rows(text: str) -> list[list[str]]:
    import csv
    import io

    return list(csv.reader(io.StringIO(text)))


def _devices() -> list[tuple[str, tuple[str, bytes]]]:
    return [("devices", (n, (DEV / n).read_bytes())) for n in UNITS]


def test_gps_web_upload_of_a_gpx_fit_tcx_session_finds_the_clis_candidates(client: Any) -> None:
    files = [("file", ("session.toml", (DEV / "session.toml").read_bytes()))]
    files += [("fixes", (n, (DEV / n).read_bytes())) for n in UNITS]
    r = client.post("/plays/review", files=files, follow_redirects=False)
    assert r.status_code == 303, r.text[:500]
    page = client.get(r.headers["location"])
    assert page.status_code == 200
    expected = _cli_candidates()
    assert expected
    for clause, _who, _start in expected:
        assert clause in page.text
    csv_rows = client.get(r.headers["location"].split("?")[0] + ".csv").text
    assert len(_rows(csv_rows)) - 1 == len(expected)


def test_gps_web_device_files_alone_get_a_session_written_for_them(client: Any) -> None:
    corners = (DEV / "session.toml").read_text().split("[arena]")[1].split("[units]")[0]
    data = {"corners": "[arena]" + corners, "offset:session-GX-230.gpx": "-2"}
    data |= {f"entity:{n}": e for n, e in UNITS.items()}
    r = client.post("/plays/review", files=_devices(), data=data, follow_redirects=False)
    assert r.status_code == 303, r.text[:500]
    loc = r.headers["location"]
    page = client.get(loc)
    assert "session.toml" in page.text and "chukker-gps/1" in page.text
    toml = client.get(loc.split("?")[0] + ".toml")
    assert toml.status_code == 200 and toml.headers["content-type"].startswith("application/toml")
    assert 'entity = "white:2", file = "session-GX-230.gpx", offset_s = -2' in toml.text
    # the written session, read beside the files, is the shipped one's analysis
    written = (DEV / "written-by-test.toml")
    try:
        written.write_text(toml.text)
        a, b = read_session(written), read_session(DEV / "session.toml")
        assert a.tracking.frames == b.tracking.frames
    finally:
        written.unlink(missing_ok=True)
    expected = _cli_candidates()
    assert len(_rows(client.get(loc.split("?")[0] + ".csv").text)) - 1 == len(expected)


def test_gps_web_device_files_without_corners_or_rider_say_what_is_missing(client: Any) -> None:
    r = client.post("/plays/review", files=_devices(), data={})
    assert r.status_code == 400 and "corners" in r.text
    data = {"corners": (DEV / "session.toml").read_text().split("[units]")[0].split("[arena]")[1]}
    r = client.post("/plays/review", files=_devices(), data=data)
    assert r.status_code == 400 and "team:number" in r.text


def test_gps_pasted_corners_are_those_of_chukker_plays_arena() -> None:
    text = "[arena]\n" + "\n".join(f"{c} = [26.6{i}, -80.2]" for i, c in enumerate(CORNERS))
    assert list(parse_corners(text)) == list(CORNERS)
    with pytest.raises(GPSError, match="'se' missing"):
        parse_corners("sw = [1, 2]\nnw = [1, 2]\nne = [1, 2]")


# ------------------------------------------------ the four questions for the new doors
def test_gps_written_session_door_is_declared_and_anonymous() -> None:
    doors = {d.path: d for d in DOORS}
    for path in ("/plays/review", "/plays/review/{rid:str}.toml"):
        assert doors[path].role is Role.ANONYMOUS
    assert doors["/plays/review"].body


@pytest.mark.parametrize("name", ["/etc/passwd", "../../../../etc/passwd", "../session.toml",
                                  "not-uploaded.gpx", "..\\\\x.fit"])
def test_gps_the_attacker_names_a_server_file_as_a_units_device(client: Any, name: str) -> None:
    text = (DEV / "session.toml").read_text().replace("session-GX-117.gpx", name)
    files = [("file", ("session.toml", text.encode()))]
    files += [("fixes", (n, (DEV / n).read_bytes())) for n in UNITS]
    r = client.post("/plays/review", files=files)
    assert r.status_code == 400, r.text[:300]
    assert "not part of this upload" in r.text
    assert "root:" not in r.text and name not in r.text.replace("&#34;", '"')
    other = (DEV / "session.toml").read_text().replace("session-GX-117.gpx", "/no/such.gpx")
    r2 = client.post("/plays/review",
                     files=[("file", ("session.toml", other.encode())), *files[1:]])
    assert re.sub(r"\s+", " ", r2.text) == re.sub(r"\s+", " ", r.text)


def test_gps_too_many_device_files_are_refused(client: Any) -> None:
    from chukker.web.public.plays_review import MAX_REVIEW_FILES

    many = [("devices", (f"u{i}.gpx", b"<gpx/>")) for i in range(MAX_REVIEW_FILES + 1)]
    r = client.post("/plays/review", files=many, data={"corners": "x"})
    assert r.status_code in (400, 413)


def test_gps_a_device_named_path_in_the_picked_files_is_only_its_base_name(client: Any) -> None:
    data = {"corners": (DEV / "session.toml").read_text().split("[units]")[0].split("[arena]")[1],
            "entity:passwd": "blue:1"}
    r = client.post("/plays/review", files=[("devices", ("../../etc/passwd", b"<gpx/>"))],
                    data=data)
    assert r.status_code == 400 and "root:" not in r.text


@pytest.fixture(scope="module")
def served(serve_asgi: Any) -> str:
    from chukker.web.public.plays import app

    url: str = serve_asgi(app)
    return url


@pytest.mark.browser
def test_gps_the_coach_clicks_the_four_corners_on_the_drawn_tracks(served: str,
                                                                  browser: Any) -> None:
    shots = Path(__file__).resolve().parents[2] / "build" / "screenshots"
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    try:
        page.goto(f"{served}/plays/review?lang=en")
        page.set_input_files('input[name="devices"]', [str(DEV / n) for n in UNITS])
        page.wait_for_selector("svg.tracks-svg polyline")
        assert page.locator("svg.tracks-svg polyline").count() == 3  # GPX, GPX, TCX; FIT not
        assert page.locator(".device-units input[name^='entity:']").count() == 4
        box = page.locator("svg.tracks-svg").bounding_box()
        assert box is not None
        w, h = box["width"], box["height"]
        for fx, fy in ((0.1, 0.9), (0.1, 0.1), (0.9, 0.1), (0.9, 0.9)):  # sw, nw, ne, se
            page.locator("svg.tracks-svg").click(position={"x": fx * w, "y": fy * h})
        assert "Four corners set" in page.text_content(".corner-step")
        c = parse_corners(page.input_value('textarea[name="corners"]'))
        assert c["sw"][0] < c["nw"][0] and c["sw"][1] < c["se"][1]
        assert c["ne"][0] > c["se"][0] and c["ne"][1] > c["nw"][1]
        if shots.parent.exists():
            shots.mkdir(exist_ok=True)
            page.screenshot(path=str(shots / "review-devices-1366.png"), full_page=True)
            page.set_viewport_size({"width": 390, "height": 844})
            page.screenshot(path=str(shots / "review-devices-390.png"), full_page=True)
    finally:
        page.close()


def test_gps_device_files_with_the_plays_pool_full_are_refused_with_retry_after(
        db_path: Path) -> None:
    # the analysis runs only in the plays pool (never on the event loop that answers the
    # timekeeper and sounds horns); a busy pool answers 503 at once
    from chukker.web.heavy import Kind, Pools, PoolSpec

    app = create_app(db_path, heavy=Pools(
        {Kind.PLAYS: PoolSpec(Kind.PLAYS, 1, 1, 0.05, 30.0, None, False)}))
    corners = (DEV / "session.toml").read_text().split("[units]")[0].split("[arena]")[1]
    data = {"corners": corners} | {f"entity:{n}": e for n, e in UNITS.items()}
    with TestClient(app) as c:
        app.state.heavy.pools[Kind.PLAYS].by_address["testclient"] = 1
        r = c.post("/plays/review", files=_devices(), data=data)
        assert r.status_code == 503 and int(r.headers["retry-after"]) >= 1
