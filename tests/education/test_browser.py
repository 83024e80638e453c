"""Browser test: a 10-question rules test taken in Spanish, with score and explanations."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from chukker.education.quiz import QuizSpec, draw
from chukker.web import create_app

pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]





@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    app = create_app(tmp_path / "learn.sqlite3")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                       timeout_graceful_shutdown=1))
    th = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    th.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        if time.monotonic() > deadline or not th.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.01)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    th.join(10)
    sock.close()


def test_rule_13_take_a_ten_question_test_in_spanish(browser: Any, server: str) -> None:
    from playwright.sync_api import expect

    page = browser.new_context(viewport={"width": 1100, "height": 900}).new_page()
    page.goto(server + "/learn/?lang=es")
    expect(page.locator("h1")).to_have_text("Exámenes de reglas")
    page.select_option("select[name=level]", "umpire")
    page.fill("input[name=n]", "10")
    page.fill("input[name=seed]", "2025")
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Examen de reglas")
    expect(page.locator("fieldset.question")).to_have_count(10)
    quiz = draw(QuizSpec("umpire", "uspa-arena-2026", "es", 10, 2025))
    for k, item in enumerate(quiz.items, 1):
        pick = item.correct if k % 2 else (item.correct + 1) % len(item.order)
        letter = "abcdefgh"[pick]
        if k == 1:  # "who committed the foul?": click the player on the picture
            assert item.question.play is not None and item.question.play.players
            page.click(f"label.spot[for=q1-{letter}]")
            expect(page.locator(f"#q1-{letter}")).to_be_checked()
        else:
            page.check(f"input[name=q{k}][value={letter}]")
    page.fill("input[name=name]", "Ana")
    page.click("text=Entregar")
    expect(page.locator("h1")).to_have_text("Resultado")
    expect(page.locator("[data-score]")).to_have_text("Puntaje: 5 de 10 (50.0%)")
    expect(page.locator("[data-verdict]")).to_have_text("No aprobado")
    expect(page.locator("li.explanation")).to_have_count(5)
    first_wrong = quiz.items[1].question
    expect(page.locator("li.explanation").first).to_contain_text(
        first_wrong.explanation("es")[:40])
    expect(page.locator("li.explanation a").first).to_have_attribute(
        "href", re.compile(r"^/rules/uspa-arena-2026/es/\d+#c-"))
