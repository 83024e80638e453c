"""Rule pages link to the plays that illustrate each clause; the 13b figure shows the drawing."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from chukker.web.public.plays import illustrating
from chukker.web.public.plays import router as plays_router

SEEDS = Path(
    os.environ.get("CHUKKER_SEEDS", Path(__file__).resolve().parents[3] / "shared" / "seeds")
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_rule_13b_is_illustrated_by_both_zigzags() -> None:
    got = [(p["id"], p["primary"]) for p in illustrating("13b", "es")]
    assert got == [("13b-zigzag", True), ("13b-wide-zigzag", True)]
    assert illustrating("13b", "es")[0]["label"] == "Jugadas"
    assert "13i-head-into-opponent" in [p["id"] for p in illustrating("13i", "en")]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    from chukker.rulebook.corpus import Corpus
    from chukker.rulebook.reader import parse_file
    from chukker.web.public.rules import make_router

    files = sorted(SEEDS.glob("*.txt")) if SEEDS.is_dir() else []
    if not files:
        pytest.skip(f"seed pages not found at {SEEDS}")
    db = tmp_path_factory.mktemp("rules") / "rules.sqlite3"
    with Corpus.open(db) as corpus:
        for f in files:
            corpus.store(parse_file(f))
    mounts = [Mount("/rules", app=make_router(db)), Mount("/plays", app=plays_router)]
    return TestClient(Starlette(routes=mounts))


def test_rule_13_page_links_each_clause_to_its_plays(client: TestClient) -> None:
    html = client.get("/rules/uspa-arena-2026/it/13").text
    block = html.split('id="c-13b"', 1)[1].split('<li class="clause', 1)[0]
    assert 'href="/plays/13b-zigzag?lang=it"' in block
    assert 'href="/plays/13b-wide-zigzag?lang=it"' in block
    assert '<p class="play-links">Azioni:' in block
    # the figure of 13b now has the drawing, and it is served
    fig = block.split('<figure class="play"', 1)[1]
    src = re.search(r'<img class="play-drawing" src="([^"]+)"', fig)
    assert src is not None and src.group(1) == "/plays/13b-zigzag.svg?lang=it"
    r = client.get(src.group(1))
    assert r.status_code == 200 and r.headers["content-type"] == "image/svg+xml"
    # other clauses link too (13f: two on one)
    assert 'href="/plays/13f-two-on-one?lang=it"' in html
