"""Issue 42's screenshots: ``PYTHONPATH=src:. python scripts/screens_42.py`` writes the
groom's page at 390 px at the split and in the interval
(``docs/screens/page-mounts-split-390x844.png``, ``page-mounts-interval-390x844.png``) and
the sheet's "Club's changes" in en and es (``page-sheet-club-1366x768-en.png``, ``-es``)
(Debian's chromium under Playwright; the matches are backdated on a scratch SQLite file)."""

from __future__ import annotations

import copy
import sys
import tempfile
from pathlib import Path

from tests.web.conftest import LiveServer
from tests.web.test_club_rules_web import OAK
from tests.web.test_groom_page import groom_match

from chukker.web.demo import DEMO_HEADER

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def main() -> int:
    from playwright.sync_api import sync_playwright

    db = Path(tempfile.mkdtemp()) / "groom.sqlite3"
    shots = {"split": groom_match(db, ago_ms=230_000, whistle_s=215.0),
             # period 1 ran out (7:30) a minute ago: the interval
             "interval": groom_match(db, ago_ms=450_000 + 60_000, whistle_s=None)}
    with LiveServer(db) as srv, sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
        page = b.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=1)
        for name, mid in shots.items():
            page.goto(f"{srv.url}/m/{mid}/mounts?lang=en")
            page.wait_for_timeout(600)
            out = ROOT / "docs" / "screens" / f"page-mounts-{name}-390x844.png"
            page.screenshot(path=str(out), full_page=False)
            print(out)
        with srv.client() as c:
            h = {**copy.deepcopy(DEMO_HEADER), "rules": "club", "edition": OAK}
            h["options"] = {**h["options"], "split_periods": True}
            club = c.post("/api/matches", json=h).json()["match_id"]
        wide = b.new_page(viewport={"width": 1366, "height": 768}, device_scale_factor=1)
        for lang in ("en", "es"):
            wide.goto(f"{srv.url}/m/{club}/sheet?lang={lang}")
            out = ROOT / "docs" / "screens" / f"page-sheet-club-1366x768-{lang}.png"
            wide.screenshot(path=str(out), clip={"x": 0, "y": 0, "width": 1366, "height": 420})
            print(out)
        b.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
