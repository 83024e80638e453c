"""``chukker quiz`` in the terminal (Rich): ask, read the answers, show the result.

Answers are letters (``a``, ``b``...) or numbers; a blank line leaves a question
unanswered. When stdin is not a terminal, one answer is read per line, so a test
can be scripted and tested.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.table import Table

from chukker.education.quiz import (
    QuizSpec,
    Result,
    draw,
    grade,
    letter,
    parse_answer,
    results_csv,
)

UI: dict[str, dict[str, str]] = {
    "en": {
        "title": "Rules test", "question": "Question", "answer": "Your answer",
        "score": "Score", "pass_mark": "Pass mark", "passed": "PASSED", "failed": "NOT PASSED",
        "wrong": "Wrong or unanswered", "yours": "your answer", "right": "right answer",
        "clauses": "Clauses", "none": "none", "seed": "seed", "over_time": "over the time limit",
        "all_right": "Every answer is right.",
    },
    "es": {
        "title": "Examen de reglas", "question": "Pregunta", "answer": "Su respuesta",
        "score": "Puntaje", "pass_mark": "Mínimo para aprobar", "passed": "APROBADO",
        "failed": "NO APROBADO", "wrong": "Incorrectas o sin responder", "yours": "su respuesta",
        "right": "respuesta correcta", "clauses": "Cláusulas", "none": "ninguna",
        "seed": "semilla", "over_time": "fuera de tiempo",
        "all_right": "Todas las respuestas son correctas.",
    },
    "it": {
        "title": "Quiz sulle regole", "question": "Domanda", "answer": "La sua risposta",
        "score": "Punteggio", "pass_mark": "Soglia per superarlo", "passed": "SUPERATO",
        "failed": "NON SUPERATO", "wrong": "Sbagliate o senza risposta",
        "yours": "sua risposta", "right": "risposta giusta", "clauses": "Commi",
        "none": "nessuna", "seed": "seme", "over_time": "oltre il tempo",
        "all_right": "Tutte le risposte sono giuste.",
    },
}  # fmt: skip


def show_result(console: Console, r: Result) -> None:
    u = UI[r.spec.lang]
    verdict = u["passed"] if r.passed else u["failed"]
    style = "bold green" if r.passed else "bold red"
    console.print(
        f"{u['score']}: {r.score}/{r.total} ({r.percent:.1f}%) · {u['pass_mark']} "
        f"{r.pass_mark:g}% · [{style}]{verdict}[/]"
        + (f" ({u['over_time']})" if r.over_time else "")
    )
    if not r.wrong:
        console.print(u["all_right"])
        return
    table = Table(title=u["wrong"], show_lines=True)
    table.add_column("#", justify="right")
    table.add_column(u["question"])
    table.add_column(u["clauses"])
    for m in r.wrong:
        ch = m.item.choices(r.spec.lang)
        given = f"{letter(m.given)}) {ch[m.given]}" if m.given is not None else u["none"]
        body = (
            f"{m.item.prompt(r.spec.lang)}\n{u['yours']}: {given}\n"
            f"{u['right']}: {letter(m.correct)}) {ch[m.correct]}\n{m.explanation}"
        )
        table.add_row(str(m.number), body, "\n".join(m.clauses))
    console.print(table)


def run_test(
    *,
    level: str,
    edition: str,
    lang: str,
    n: int,
    seed: int | None,
    pass_mark: float,
    name: str,
    csv_out: Path | None,
    stdin: TextIO,
    console: Console | None = None,
    time_limit_s: int | None = None,
) -> int:
    """Run one test; exit code 0 if passed, 1 if not."""
    console = console or Console(highlight=False)
    spec = QuizSpec(
        level, edition, lang, n, secrets.randbelow(10**6) if seed is None else seed, pass_mark,
        time_limit_s,
    )
    test = draw(spec)
    u = UI[lang]
    console.rule(f"{u['title']} · {edition} · {level} · {u['seed']} {spec.seed}")
    interactive = stdin.isatty()
    answers: list[int | None] = []
    start = time.monotonic()
    for k, item in enumerate(test.items, 1):
        console.print(f"\n[bold]{u['question']} {k}/{len(test.items)}[/] {item.prompt(lang)}")
        ch = item.choices(lang)
        for i, c in enumerate(ch):
            console.print(f"  {letter(i)}) {c}")
        if interactive:
            line = console.input(f"{u['answer']}: ")
        else:
            line = stdin.readline()
            console.print(f"{u['answer']}: {line.strip()}")
        answers.append(parse_answer(line, len(ch)))
    result = grade(test, answers, elapsed_s=time.monotonic() - start)
    console.print()
    show_result(console, result)
    if csv_out is not None:
        new = not csv_out.exists() or csv_out.stat().st_size == 0
        with csv_out.open("a", encoding="utf-8", newline="") as f:
            f.write(results_csv([(name, result)], header=new))
    return 0 if result.passed else 1
