"""The groom's page at 390 px, at the split and in the interval (issue 42):
``PYTHONPATH=src:. python scripts/groom_screens.py`` writes
``docs/screens/page-mounts-split-390x844.png`` and ``page-mounts-interval-390x844.png``
(Debian's chromium under Playwright; the matches are backdated on a scratch SQLite file)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.web.conftest import LiveServer
from tests.web.test_groom_page import groom_match

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
        b.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
