"""The four questions, per door (issue 19): who may call it, how big its input may be,
that it never touches a server path the client names, and that it cannot delay a key
press or a horn."""

from __future__ import annotations

import asyncio
import bz2
import json
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

import httpx
import pytest

from chukker.store import open_store
from chukker.web import create_app
from chukker.web.guard import DOORS, HEADER, Role
from chukker.web.heavy import Kind, Pools, PoolSpec

from .conftest import ORGANISER, ORGANISER_AUTH, Match

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
GPS = ROOT / "examples" / "gps"
TOURNAMENT = ROOT / "examples" / "tournament" / "fall-classic.toml"


def deep_json(n: int) -> bytes:
    return b"[" * n + b"]" * n


def assert_json_refusal(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text[:300]
    assert r.headers["content-type"].startswith("application/json"), r.headers
    assert r.json()["code"] == code, r.json()


@pytest.fixture
def closed(db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with TestClient(create_app(db_path, organiser=ORGANISER)) as c:
        yield c


def _tournament(c: Any) -> dict[str, Any]:
    r = c.post("/tournaments/api", json={"text": TOURNAMENT.read_text()}, headers=ORGANISER_AUTH)
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


# ---------------------------------------------------------------- who may call it
VALID_BODY: dict[str, Any] = {
    "/api/matches/{match_id}/events": {"command_id": "c1", "event": {"type": "whistle"}},
    "/tournaments/{tid}/api/matches/{mid}": {"arena": "Arena 2"},
}


def test_anonymous_is_refused_at_every_door_that_needs_a_token(
        closed: Any, make_match: Any) -> None:
    m: Match = make_match(closed)
    t = _tournament(closed)
    tmid = next(iter(t["matches"]))
    values = {"match_id": m.id, "tid": t["tournament_id"], "mid": tmid}
    doors = [d for d in DOORS if d.role in (Role.TIMEKEEPER, Role.COMMITTEE, Role.ORGANISER)
             and d.credential != "none"]
    assert len(doors) >= 6
    for d in doors:
        path = d.path.format(**values)
        method = "POST" if "POST" in d.methods else "GET"
        if method == "GET":
            r = closed.get(path)
        elif d.credential == HEADER:  # a well-formed body: only the token is missing
            r = closed.post(path, json=VALID_BODY.get(d.path, {}))
        else:
            r = closed.post(path, data={"x": "1"})
        assert r.status_code in (401, 403), (d.path, r.status_code, r.text[:200])


def test_anonymous_cannot_create_a_tournament_and_nothing_is_read(closed: Any) -> None:
    r = closed.post("/tournaments/api", content=b"{" * 100, headers={"content-type":
                                                                      "application/json"})
    assert_json_refusal(r, 401, "organiser_required")


# ---------------------------------------------------------------- how big its input may be
def test_a_30000_deep_json_body_is_a_json_refusal_at_every_json_door(closed: Any) -> None:
    body = deep_json(30_000)
    for path in ("/api/matches", "/tournaments/api", "/api/matches/x/events",
                 "/tournaments/t/api/matches/m"):
        r = closed.post(path, content=body, headers={**ORGANISER_AUTH,
                                                     "content-type": "application/json"})
        assert r.status_code in (413, 422), (path, r.status_code)
        assert r.headers["content-type"].startswith("application/json"), path
        assert r.json()["code"] in ("too_deep", "too_large"), (path, r.json())


def test_the_organiser_uploads_900_deep_junk_and_gets_a_json_refusal(closed: Any) -> None:
    junk = {"tournament": json.loads(deep_json(900))}
    r = closed.post("/tournaments/api", content=json.dumps(junk).encode(),
                    headers={**ORGANISER_AUTH, "content-type": "application/json"})
    assert_json_refusal(r, 422, "too_deep")


@pytest.mark.parametrize("text", ["{}", "a = [1, 2, 3]\n", 'name = "x"\n'])
def test_a_file_that_is_not_a_tournament_is_refused(closed: Any, text: str) -> None:
    r = closed.post("/tournaments/api", json={"text": text}, headers=ORGANISER_AUTH)
    assert r.status_code == 422, r.text
    assert "not a tournament" in r.text


def test_api_bodies_stay_limited_to_64_kib(closed: Any) -> None:
    r = closed.post("/api/matches", content=b" " * (64 * 1024 + 1),
                    headers={**ORGANISER_AUTH, "content-type": "application/json"})
    assert_json_refusal(r, 413, "too_large")


def test_a_get_takes_no_body(closed: Any) -> None:
    r = closed.request("GET", "/api/time", content=b"x" * 10)
    assert_json_refusal(r, 413, "too_large")


def test_the_review_page_takes_more_than_the_api_but_not_more_than_64_mb(closed: Any) -> None:
    line = b"x" * 8191 + b"\n"
    big = b"t,entity,x,y\n" + line * (45 * 2**20 // len(line))  # 45 MB, as a real session
    r = closed.post("/plays/review", files={"file": ("big.csv", big)})
    assert r.status_code == 400, r.status_code  # read and refused for its content, not size
    assert "cannot read" in r.text
    r = closed.post("/plays/review", content=b"x",
                    headers={"content-length": str(64 * 2**20 + 1),
                             "content-type": "multipart/form-data; boundary=x"})
    assert r.status_code == 413


def _session(fixes: str) -> bytes:
    text = (GPS / "session.toml").read_text()
    return text.replace('fixes = "session-fixes.csv"', f"fixes = {json.dumps(fixes)}").encode()


def test_a_coach_uploads_a_gps_session_with_its_fixes(closed: Any) -> None:
    r = closed.post("/plays/review", files=[
        ("file", ("session.toml", (GPS / "session.toml").read_bytes())),
        ("fixes", ("session-fixes.csv", (GPS / "session-fixes.csv").read_bytes()))],
        follow_redirects=False)
    assert r.status_code == 303, r.text[:300]
    assert closed.get(r.headers["location"]).status_code == 200


def test_the_attacker_uploads_a_bzip2_bomb_as_fixes(closed: Any) -> None:
    bomb = bz2.compress(b"time,unit,lat,lon\n" + b"0,GX-104,26.6152,-80.1995\n" * 200_000)
    r = closed.post("/plays/review", files=[
        ("file", ("session.toml", _session("fixes.csv.bz2"))),
        ("fixes", ("fixes.csv.bz2", bomb))])
    assert r.status_code == 413, r.text[:300]
    assert "compressed" in r.text


def test_a_tracking_file_over_the_row_cap_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    from chukker import limits
    from chukker.plays.files import read_table

    p = tmp_path / "t.csv"
    p.write_text("t,entity,x,y\n" + "0,ball,1,2\n" * 11)
    with pytest.raises(limits.LimitError) as e:
        read_table(p, "csv", max_rows=10)
    assert e.value.code == "too_many_rows"


# ---------------------------------------------------------------- no server path
@pytest.mark.parametrize("name", ["/etc/passwd", "../../../../etc/passwd", "session.toml",
                                  "/nonexistent/file.csv", "..\\x.csv"])
def test_the_attacker_names_a_server_file_as_fixes(closed: Any, name: str) -> None:
    r = closed.post("/plays/review", files={"file": ("session.toml", _session(name))})
    assert r.status_code == 400
    assert "root:" not in r.text and "/bin/" not in r.text
    assert "not part of this upload" in r.text
    # the answer is the same whether the path exists or not
    other = closed.post("/plays/review", files={"file": ("session.toml",
                                                         _session("/no/such/x.csv"))})
    assert other.text.replace("/no/such/x.csv", name) == r.text or (
        other.status_code == r.status_code)


def test_the_command_line_reads_the_fixes_beside_the_session() -> None:
    from chukker.plays.gps import read_session

    assert read_session(GPS / "session.toml").tracking.frames > 0


# ---------------------------------------------------------------- no delay
def test_a_pdf_request_with_the_pdf_pool_full_is_refused_with_retry_after(
        db_path: Path, make_match: Any) -> None:
    app = create_app(db_path, organiser=ORGANISER,
                     heavy=Pools({Kind.PDF: PoolSpec(Kind.PDF, 1, 1, 0.05, 30.0, None, False)}))
    with TestClient(app) as c:
        m = make_match(c)
        pool = app.state.heavy.pools[Kind.PDF]
        pool.by_address["testclient"] = 1  # this address already has a render in flight
        r = c.get(f"/m/{m.id}/sheet.pdf")
        assert r.status_code == 503 and int(r.headers["retry-after"]) >= 1
        assert r.headers["content-type"].startswith("text/html")


def test_heavy_work_in_flight_never_holds_the_timekeeper_or_the_horn(
        db_path: Path, tmp_path: Path, header: Any, backdate: Any, server_factory: Any) -> None:
    store = open_store(db_path)
    mid = backdate(store, header, ago_ms=450_000 - 3_000)  # the period ends in 3 s
    store.close()
    gate = tmp_path / "gate"
    hold = ["sh", "-c", f"while [ ! -e {gate} ]; do sleep 0.05; done"]
    with server_factory(db_path, organiser="o") as srv:
        loop = srv.app.state.service.loop
        heavy = srv.app.state.heavy
        # every pool busy with work that holds its workers until the test opens the gate
        jobs = [asyncio.run_coroutine_threadsafe(
            heavy.run(k, f"attacker-{k}-{i}", subprocess.run, [hold]), loop)
            for k in Kind for i in range(heavy.specs[k].workers)]
        auth = {"authorization": "Bearer tk-" + mid}
        answered = []
        try:
            with srv.client() as c:
                for i, kind in enumerate(["whistle", "bowl_in"] * 2):
                    r = c.post(f"/api/matches/{mid}/events", headers=auth,
                               json={"command_id": f"g{i}", "event": {"type": kind}})
                    answered.append(r.status_code)
                horns: list[Any] = []
                end = time.monotonic() + 30
                while time.monotonic() < end and not horns:
                    time.sleep(0.2)
                    horns = c.get(f"/api/matches/{mid}/horns").json()
                # the timekeeper was answered and the horn sounded with every pool still busy
                assert not any(j.done() for j in jobs)
        finally:
            gate.touch()
        for j in jobs:
            j.result(120)
    assert set(answered) <= {201, 409} and 201 in answered
    assert [h["kind"] for h in horns] == ["end"]
