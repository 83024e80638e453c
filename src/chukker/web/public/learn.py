"""Rules tests in the browser: a :data:`router` the web app mounts at ``/learn``.

* ``/learn/`` — choose level, edition, number of questions, seed, pass mark, time;
* ``/learn/test?level=&edition=&n=&seed=`` — the test (a seed is chosen and put in
  the address when none is given, so the page can be shared with a whole clinic);
* ``POST /learn/result`` — the score, the pass mark and, for every wrong answer, the
  right one, the explanation and links to the clauses; ``POST /learn/result.csv``
  the same as CSV;
* ``/learn/play/{scenario}.png?t=`` — a play question's diagram at its instant.

The pages are stateless: the test is drawn again from its seed when graded. The
page language is the test's language.
"""

from __future__ import annotations

import math
import secrets
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from chukker.education import EDITIONS, Level
from chukker.education.quiz import (
    DEFAULT_PASS_MARK,
    QuizSpec,
    draw,
    grade,
    parse_answer,
    results_csv,
    spec_from,
)
from chukker.rules.editions import EDITIONS as EDITION_TABLE
from chukker.web.shared.render import lang_of, render

router = APIRouter(include_in_schema=False)

LEVELS = [(str(Level.PLAYER), "Player"), (str(Level.UMPIRE), "Umpire"),
          (str(Level.TIMEKEEPER), "Timekeeper")]


def _base(request: Request) -> str:
    return str(request.scope.get("root_path", "")).rstrip("/") + "/learn"


def _editions() -> list[tuple[str, str]]:
    return [(e, EDITION_TABLE[e].title) for e in EDITIONS]


def _spec(request: Request, params: dict[str, str]) -> QuizSpec:
    p = dict(params)
    p["lang"] = lang_of(request)
    return spec_from(p, default_seed=0)


@router.get("/", response_class=HTMLResponse)
async def index(request: Request) -> Response:
    return render(
        request, "education/index.html", base=_base(request), levels=LEVELS,
        editions=_editions(), pass_mark=f"{DEFAULT_PASS_MARK:g}",
    )


def _bad(request: Request, message: str) -> Response:
    return render(request, "education/index.html", status=400, base=_base(request),
                  levels=LEVELS, editions=_editions(), pass_mark=f"{DEFAULT_PASS_MARK:g}",
                  error=message)


@router.get("/test", response_class=HTMLResponse)
async def test_page(request: Request) -> Response:
    params = dict(request.query_params)
    if not params.get("seed"):
        params["seed"] = str(secrets.randbelow(10**6))
        params["lang"] = lang_of(request)
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return RedirectResponse(f"{_base(request)}/test?{query}", status_code=303)
    try:
        spec = _spec(request, params)
    except ValueError as e:
        return _bad(request, str(e))
    quiz = draw(spec)
    items = []
    for k, it in enumerate(quiz.items, 1):
        play = it.question.play
        spots = []
        if play is not None and play.players:
            from chukker.education.picture import player_spots

            where = player_spots(play.scenario, play.at)
            choices = it.choices(spec.lang)
            for i, src in enumerate(it.order):
                x, y, d = where[play.players[src]]
                spots.append({"letter": "abcdefgh"[i], "x": x, "y": y, "d": d,
                              "label": choices[i]})
        items.append({
            "number": k,
            "prompt": it.prompt(spec.lang),
            "choices": list(enumerate(it.choices(spec.lang))),
            "play": play,
            "spots": spots,
        })
    return render(
        request, "education/test.html", base=_base(request), spec=spec, items=items,
        hidden=_hidden(spec), started=f"{time.time():.0f}",
        edition_title=EDITION_TABLE[spec.edition].title,
    )


def _hidden(spec: QuizSpec) -> dict[str, str]:
    out = {"level": str(spec.level), "edition": spec.edition, "n": str(spec.n),
           "seed": str(spec.seed), "pass_mark": f"{spec.pass_mark:g}"}
    if spec.time_limit_s is not None:
        out["time_limit"] = str(spec.time_limit_s)
    return out


async def _graded(request: Request) -> tuple[QuizSpec, Any, str]:
    form = await request.form()
    params = {k: str(v) for k, v in form.items()}
    spec = _spec(request, params)
    quiz = draw(spec)
    answers = [
        parse_answer(params.get(f"q{k}", ""), len(it.order)) if params.get(f"q{k}") else None
        for k, it in enumerate(quiz.items, 1)
    ]
    elapsed = None
    if params.get("started", "").isdigit():
        elapsed = max(0.0, time.time() - int(params["started"]))
    return spec, grade(quiz, answers, elapsed_s=elapsed), params.get("name", "")


@router.post("/result", response_class=HTMLResponse)
async def result_page(request: Request) -> Response:
    try:
        spec, result, name = await _graded(request)
    except ValueError as e:
        return _bad(request, str(e))
    wrong = []
    for m in result.wrong:
        ch = m.item.choices(spec.lang)
        wrong.append({
            "number": m.number,
            "prompt": m.item.prompt(spec.lang),
            "given": None if m.given is None else ch[m.given],
            "right": ch[m.correct],
            "explanation": m.explanation,
            "clauses": list(zip(m.clauses, m.links, strict=True)),
        })
    return render(
        request, "education/result.html", base=_base(request), spec=spec, result=result,
        wrong=wrong, hidden=_hidden(spec), name=name,
        answers={f"q{m.number}": "abcdefgh"[m.given] for m in result.marks if m.given is not None},
        edition_title=EDITION_TABLE[spec.edition].title,
    )


@router.get("/result")
async def result_again(request: Request) -> Response:
    """The language links on the result page: a result is not kept, so start again."""
    return RedirectResponse(f"{_base(request)}/?lang={lang_of(request)}", status_code=303)


@router.post("/result.csv")
async def result_csv(request: Request) -> Response:
    try:
        spec, result, name = await _graded(request)
    except ValueError as e:
        return Response(str(e), status_code=400, media_type="text/plain")
    return Response(
        results_csv([(name, result)]),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="quiz-{spec.seed}.csv"'},
    )


@router.get("/play/{sid}.png")
async def play_png(request: Request, sid: str) -> Response:
    from chukker.education.picture import play_picture
    from chukker.plays import ScenarioError
    from chukker.plays.scenario import load_shipped
    from chukker.web.public.plays_base import drawn_or_refusal

    try:
        t = float(request.query_params.get("t", "0"))
        if not math.isfinite(t):
            raise ValueError(t)
        load_shipped(sid)  # a shipped play (from memory), before any worker is asked
    except (ScenarioError, ValueError):
        return Response("no such play", status_code=404, media_type="text/plain")
    lang = lang_of(request)
    # drawn by a worker of the drawings pool, never on the event loop
    png = await drawn_or_refusal(request, ("learn", sid, t, lang), play_picture,
                                 [sid, t, lang], lang=lang, page=False)
    if isinstance(png, Response):
        return png
    return Response(png, media_type="image/png", headers={"cache-control": "public, max-age=3600"})
