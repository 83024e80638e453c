"""Issue 34: the review page's "device files alone" form inspects the files (the same
summary per file as ``chukker plays inspect``) before any session is written; the door's
four questions."""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

import pytest

from chukker.plays.device_writers import Glitches, recording, write_gpx
from chukker.web import create_app
from chukker.web.guard import DOORS, Role

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

DEV = Path(__file__).resolve().parents[2] / "examples" / "gps" / "devices"
CORNERS = (DEV / "session.toml").read_text().split("[units]")[0].split("[arena]")[1]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with TestClient(create_app(tmp_path_factory.mktemp("db") / "c.db")) as c:
        yield c


def _glitched(tmp: Path) -> bytes:
    t, la, lo, segs = recording(rate_hz=1.0, glitches=Glitches(backwards=(40,), no_time=(50,)))
    write_gpx(tmp / "g.gpx", t, la, lo, segments=segs)
    return (tmp / "g.gpx").read_bytes()


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_plays_inspect_form_shows_the_clis_summary_per_file(client: Any, tmp_path: Path) -> None:
    files = [("devices", ("rider.gpx", _glitched(tmp_path))),
             ("devices", ("empty.fit", b"")),
             ("devices", ("session-GX-221.tcx", (DEV / "session-GX-221.tcx").read_bytes()))]
    r = client.post("/plays/review?lang=en", files=files, data={"inspect": "1"})
    assert r.status_code == 200, r.text[:400]
    text = _text(r.text)
    assert "What chukker reads from each file" in text
    assert "rider.gpx GPX" in text and "1 no_time, 1 backwards" in text
    assert re.search(r"\b2[01](\.0)? s \(", text)  # the pause, a gap
    assert "empty.fit refused: empty.fit: an empty file (0 bytes)" in text
    assert "session-GX-221.tcx TCX 469 / 469" in text
    assert "Enters the arena" not in text  # no corners given
    r = client.post("/plays/review?lang=es", files=files[:1],
                    data={"inspect": "1", "corners": CORNERS})
    assert r.status_code == 200 and "Entra en la cancha" in r.text and "sí" in r.text


def test_plays_inspect_door_is_the_uploads_anonymous_capped_and_names_no_server_path(
        client: Any) -> None:
    """Who: anyone (the upload's door, declared anonymous with a body cap). How big: the
    upload's caps, then each reader's (bytes, points, XML elements). No server path: a
    picked file's name is only its label. Never delays a horn: it runs in the plays
    pool (a full pool answers 503 at once, tested for the upload in tests/web)."""
    doors = {d.path: d for d in DOORS}
    assert doors["/plays/review"].role is Role.ANONYMOUS and doors["/plays/review"].body
    r = client.post("/plays/review", data={"inspect": "1"},
                    files=[("devices", ("../../../../etc/passwd", b"<gpx/>"))])
    assert r.status_code == 200 and "root:" not in r.text
    assert "passwd" in r.text and "/etc/passwd" not in r.text
    bomb = (b'<gpx version="1.1"><trk>' + b"<trkseg/>" * 200_000 + b"</trk></gpx>")
    r = client.post("/plays/review", data={"inspect": "1"}, files=[("devices", ("b.gpx", bomb))])
    assert r.status_code == 200 and "track segments in" in r.text
    r = client.post("/plays/review", data={"inspect": "1"})
    assert r.status_code == 400


def test_plays_inspect_with_the_plays_pool_full_is_refused_with_retry_after(
        tmp_path: Path) -> None:
    from chukker.web.heavy import Kind, Pools, PoolSpec

    app = create_app(tmp_path / "p.db", heavy=Pools(
        {Kind.PLAYS: PoolSpec(Kind.PLAYS, 1, 1, 0.05, 30.0, None, False)}))
    with TestClient(app) as c:
        app.state.heavy.pools[Kind.PLAYS].by_address["testclient"] = 1
        r = c.post("/plays/review", data={"inspect": "1"},
                   files=[("devices", ("a.tcx", (DEV / "session-GX-221.tcx").read_bytes()))])
        assert r.status_code == 503 and int(r.headers["retry-after"]) >= 1
