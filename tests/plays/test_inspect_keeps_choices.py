"""Issue 42 (the rider): after "Inspect the files first" on the review page, the files
picked, the riders and the corners stay as they were (the inspection is posted in the
background and its table shown above the form)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

DEV = Path(__file__).resolve().parents[2] / "examples" / "gps" / "devices"
FILES = ("session-GX-117.gpx", "session-GX-221.tcx")
CORNERS = (DEV / "session.toml").read_text().split("[units]")[0].split("[arena]")[1].strip()

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]


@pytest.fixture(scope="module")
def served(serve_asgi: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    from chukker.web import create_app

    url: str = serve_asgi(create_app(tmp_path_factory.mktemp("db") / "k.db"))
    return url


def test_rider_inspect_keeps_the_files_riders_and_corners_chosen(served: str,
                                                                 browser: Any) -> None:
    page = browser.new_page()
    try:
        page.goto(f"{served}/plays/review?lang=en")
        page.set_input_files('input[name="devices"]', [str(DEV / n) for n in FILES])
        page.fill(f'input[name="entity:{FILES[0]}"]', "blue:2")
        page.fill(f'input[name="entity:{FILES[1]}"]', "white:1")
        page.fill(f'input[name="offset:{FILES[1]}"]', "1.5")
        page.fill('textarea[name="corners"]', CORNERS)
        url = page.url
        page.click('button[name="inspect"]')
        page.wait_for_selector("section.inspected")
        shown = page.inner_text("section.inspected")  # as a person reads the table
        assert "session-GX-221.tcx" in shown and "TCX" in shown, shown
        assert page.url == url
        assert page.eval_on_selector('input[name="devices"]', "e => e.files.length") == 2
        assert page.input_value(f'input[name="entity:{FILES[0]}"]') == "blue:2"
        assert page.input_value(f'input[name="entity:{FILES[1]}"]') == "white:1"
        assert page.input_value(f'input[name="offset:{FILES[1]}"]') == "1.5"
        assert page.input_value('textarea[name="corners"]') == CORNERS
        page.click('button[name="inspect"]')  # again: one table, the newest
        page.wait_for_timeout(300)
        page.wait_for_selector("section.inspected")
        assert page.locator("section.inspected").count() == 1
    finally:
        page.close()
