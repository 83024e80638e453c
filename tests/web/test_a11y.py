"""Every kind of page passes axe-core (WCAG 2.1 A and AA) at a laptop and a phone size.

axe-core comes from the npm package pinned in ``tests/a11y/package-lock.json``
(``scripts/setup.sh`` installs it with ``npm ci``; ``$CHUKKER_AXE_JS`` names another
copy). Playwright injects it into each page of the crawl, and any violation fails,
listed with its rule, impact and the elements it names.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.web.test_hostile import site_pages

ROOT = Path(__file__).resolve().parents[2]
AXE = Path(os.environ.get("CHUKKER_AXE_JS")
           or ROOT / "tests" / "a11y" / "node_modules" / "axe-core" / "axe.min.js")
SIZES = [(1366, 768), (390, 844)]
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: the pages that draw from a stream after their load (the others are whole at "load")
LIVE = re.compile(r"/(console|display|overlay)\b|/m/[^/?#]+$|/tournaments/[^/?#]+$")

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("a11y")]


def axe_or_skip() -> str:
    if AXE.is_file():
        return AXE.read_text(encoding="utf-8")
    if os.environ.get("CHUKKER_REQUIRE_BROWSER") == "1":
        pytest.fail(f"CHUKKER_REQUIRE_BROWSER=1 but axe-core is missing at {AXE} "
                    "(scripts/setup.sh installs it with npm ci in tests/a11y)")
    pytest.skip(f"the accessibility scan needs axe-core at {AXE} (npm ci in tests/a11y)")


def _kind(path: str, ids: list[str]) -> str:
    """One page of each kind: ids and numbers folded, the query's keys kept. The
    tournament's own matches (every other match id) are one kind beside the match made
    here: their pages differ from it (a fixture, its teams), not from one another."""
    p, _, q = path.partition("?")
    for i in ids:
        p = p.replace(i, "{id}")
    p = re.sub(r"/m/[0-9a-f]{10}(?=/|$)", "/m/{fixture}", p)
    p = re.sub(r"\d+", "{n}", p)
    keys = sorted(k.split("=")[0] for k in q.split("&") if k)
    return p + ("?" + "&".join(keys) if keys else "")


@pytest.fixture(scope="session")  # once per worker, however xdist orders the tests
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, list[str]]]:
    """A served app with a match, a tournament and the seed rulebook; the pages to scan."""
    from tests.rulebook.conftest import seed_files
    from tests.tournament.web_helpers import four_team_toml
    from tests.web.conftest import LiveServer

    from chukker.rulebook.corpus import Corpus
    from chukker.rulebook.reader import parse_file

    tmp = tmp_path_factory.mktemp("a11y")
    rules = tmp / "rules.sqlite3"
    with Corpus.open(rules) as corpus:
        for f in seed_files():
            corpus.store(parse_file(f))
    mp = pytest.MonkeyPatch()
    mp.setenv("CHUKKER_RULES_DB", str(rules))
    mp.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp / "tournaments"))
    try:
        with LiveServer(tmp / "live.sqlite3") as srv, srv.client() as c:
            m = _make(c)
            t = c.post("/tournaments/api", json={"text": four_team_toml()})
            assert t.status_code == 201, t.text
            tb = t.json()
            tid = tb["tournament_id"]
            arena = tb["arenas"]["Arena 1"]["console"]
            arena_path = "/tournaments/" + arena.split("#")[0].split("/tournaments/")[1]
            pages = site_pages(c, m, [
                "/", "/new", f"/m/{m.id}", f"/m/{m.id}/sheet", "/tournaments",
                f"/tournaments/{tid}", "/rules", "/rules/search?q=penalty", "/plays",
                "/plays/review", "/learn", "/no-such-page"])
            html = [p for p, r in pages.items()
                    if "text/html" in r.headers.get("content-type", "")
                    and not p.startswith(("/docs", "/redoc"))]
            seen: dict[str, str] = {}
            for p in sorted(html):
                seen.setdefault(_kind(p, [m.id, tid]), p)
            urls = [*sorted(seen.values()), m.body["urls"]["console"],
                    m.body["urls"]["display"], f"/m/{m.id}/overlay", arena,
                    arena_path.replace("/console", "/display")]
            yield srv, urls
    finally:
        mp.undo()


def _make(c: Any) -> Any:
    from tests.web.conftest import ORGANISER_AUTH, Match

    from chukker.web.demo import DEMO_HEADER

    r = c.post("/api/matches", json=DEMO_HEADER, headers=ORGANISER_AUTH)
    assert r.status_code == 201, r.text
    return Match(r.json())


def _violations(page: Any) -> list[str]:
    """axe's violations on ``page``, whose context added axe as an init script (given to
    the browser once, run in each new document: a tag per page cost twice the time)."""
    found = page.evaluate(
        """async (tags) => {
             // resultTypes: the details of violations only (axe's documented speed-up;
             // passes and the rest are still evaluated, but summarised)
             const r = await axe.run(document, {runOnly: {type: "tag", values: tags},
                                                resultTypes: ["violations"]});
             return r.violations.map(v => v.id + " (" + v.impact + "): " +
               v.nodes.slice(0, 4).map(n => n.target.join(" ")).join(" | "));
           }""", TAGS)
    return list(found)


@pytest.mark.parametrize(("width", "height"), SIZES, ids=["laptop", "phone"])
def test_every_kind_of_page_passes_axe_wcag_2_1_aa(browser: Any, site: tuple[Any, list[str]],
                                                   width: int, height: int) -> None:
    axe = axe_or_skip()
    srv, urls = site
    assert len(urls) >= 20, urls
    ctx = browser.new_context(viewport={"width": width, "height": height}, bypass_csp=True)
    ctx.add_init_script(script=axe)
    page = ctx.new_page()
    bad: dict[str, list[str]] = {}
    try:
        for url in urls:
            page.goto(url if url.startswith("http") else srv.url + url)
            page.wait_for_load_state("load")
            if LIVE.search(url):
                page.wait_for_timeout(150)  # live pages draw their first state
            v = _violations(page)
            if v:
                bad[url.split("#")[0]] = v
    finally:
        ctx.close()
    assert bad == {}, "\n".join(f"{u}:\n  " + "\n  ".join(v) for u, v in bad.items())
