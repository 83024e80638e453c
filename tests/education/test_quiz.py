"""Tests drawn from the bank, the generator and the plays; grading; CSV; the terminal."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from chukker.cli import build_app
from chukker.education import Level, check_bank
from chukker.education.playq import play_questions
from chukker.education.quiz import QuizSpec, draw, grade, parse_answer, pool, results_csv
from chukker.plays import Verdict, shipped

ED26, ED06 = "uspa-arena-2026", "uspa-arena-2006"


def test_rule_13_play_questions_take_their_answers_from_the_scenarios() -> None:
    qs = {q.id: q for q in play_questions()}
    assert check_bank(qs.values()) == []
    for sc in shipped():
        v = qs[f"play-{sc.id}-verdict"]
        assert v.choices("en")[v.answer] == ("Foul" if sc.verdict is Verdict.FOUL else "No foul")
        if sc.culprit is not None:
            c = qs[f"play-{sc.id}-culprit"]
            assert c.play is not None and c.play.players[c.answer] == str(sc.culprit)
    assert qs["play-13b-zigzag-row"].choices("en")[qs["play-13b-zigzag-row"].answer] == "Blue 1"
    pen = qs["play-13k-delay-of-game-penalty"]
    assert pen.choices("it")[pen.answer] == "Punizione 5b"


@pytest.mark.parametrize("level", [str(lv) for lv in Level])
@pytest.mark.parametrize("edition", [ED26, ED06])
def test_rule_13_draw_has_no_repeats_and_holds_for_level_and_edition(
    level: str, edition: str
) -> None:
    t = draw(QuizSpec(level, edition, "it", 30, 5))
    ids = [i.question.id for i in t.items]
    assert len(ids) == len(set(ids)) == 30
    for i in t.items:
        assert i.question.holds_for(edition) and Level(level) in i.question.levels
        assert sorted(i.order) == list(range(len(i.question.choices("en"))))


def test_rule_13_same_seed_same_test_in_every_language() -> None:
    def key(lang: str, seed: int) -> list[tuple[str, tuple[int, ...]]]:
        t = draw(QuizSpec("umpire", ED26, lang, 12, seed))
        return [(i.question.id, i.order) for i in t.items]

    assert key("en", 11) == key("es", 11) == key("it", 11)
    assert key("en", 11) != key("en", 12)


def test_rule_13_pool_mixes_bank_timing_and_play_questions() -> None:
    sources = {q.source for q in pool("umpire", ED26, 1)}
    assert sources == {"bank", "timing", "play"}
    assert "play" not in {q.source for q in pool("umpire", ED06, 1)}  # the plays are 2026


def test_rule_13_grade_pass_mark_and_explanations_for_wrong_answers() -> None:
    t = draw(QuizSpec("umpire", ED26, "es", 10, 3))
    right = [i.correct for i in t.items]
    assert grade(t, right).passed and grade(t, right).percent == 100.0
    answers: list[int | None] = list(right)
    answers[0] = (right[0] + 1) % len(t.items[0].order)
    answers[1] = None
    r = grade(t, answers)
    assert (r.score, r.percent, r.passed) == (8, 80.0, False)
    assert grade(t, answers, pass_mark=80).passed and not grade(t, answers, pass_mark=81).passed
    assert [m.number for m in r.wrong] == [1, 2]
    for m in r.wrong:
        assert m.explanation == m.item.question.explanation("es")
        assert m.clauses and all(link.startswith(f"/rules/{ED26}/es/") for link in m.links)


def test_rule_13_default_pass_mark_is_94_percent() -> None:
    t = draw(QuizSpec("umpire", ED26, "en", 17, 9))
    right: list[int | None] = [i.correct for i in t.items]
    assert grade(t, right).pass_mark == 94.0
    one_wrong = [None, *right[1:]]
    assert grade(t, one_wrong).percent == 94.1 and grade(t, one_wrong).passed
    assert not grade(t, [None, None, *right[2:]]).passed


def test_rule_13_timed_test_over_the_limit_does_not_pass() -> None:
    t = draw(QuizSpec("umpire", ED26, "en", 3, 9, time_limit_s=60))
    right: list[int | None] = [i.correct for i in t.items]
    assert grade(t, right, elapsed_s=30).passed
    late = grade(t, right, elapsed_s=61)
    assert late.over_time and not late.passed


def test_rule_13_csv_export_one_row_per_question() -> None:
    t = draw(QuizSpec("player", ED06, "en", 4, 1))
    r = grade(t, [0, 1, None, 0])
    rows = list(csv.DictReader(io.StringIO(results_csv([("Ann", r), ("Bea", r)]))))
    assert len(rows) == 8 and rows[0]["candidate"] == "Ann" and rows[4]["candidate"] == "Bea"
    assert rows[2]["given"] == "" and rows[2]["right"] == "no"
    assert {row["seed"] for row in rows} == {"1"}


def test_rule_13_parse_answer() -> None:
    assert [parse_answer(x, 3) for x in ("a", "B", "3", "", "d", "x", "0")] == [
        0, 1, 2, None, None, None, None]


def test_rule_13_quiz_command_reads_answers_from_stdin(tmp_path: Path) -> None:
    spec = QuizSpec("timekeeper", ED26, "it", 4, 21)
    t = draw(spec)
    letters = "".join("abcd"[i.correct] + "\n" for i in t.items)
    out = tmp_path / "clinic.csv"
    args = ["quiz", "--level", "timekeeper", "--lang", "it", "-n", "4", "--seed", "21",
            "--name", "Ann", "--csv", str(out)]
    res = CliRunner().invoke(build_app(["quiz"]), args, input=letters)
    assert res.exit_code == 0, res.output
    assert "Punteggio: 4/4 (100.0%)" in res.output and "SUPERATO" in res.output
    wrong = "\n".join("abcd"[(i.correct + 1) % len(i.order)] for i in t.items) + "\n"
    res = CliRunner().invoke(build_app(["quiz"]), [*args[:-4], "--name", "Bea", "--csv", str(out)],
                             input=wrong)
    assert res.exit_code == 1
    assert "NON SUPERATO" in res.output and "Sbagliate o senza risposta" in res.output
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["candidate"] for r in rows] == ["Ann"] * 4 + ["Bea"] * 4


def test_rule_13_quiz_command_refuses_an_unknown_edition() -> None:
    res = CliRunner().invoke(build_app(["quiz"]), ["quiz", "--edition", "x"])
    assert res.exit_code == 2


def test_quiz_check_of_a_missing_file_says_so_in_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(build_app(), ["quiz", "check", str(tmp_path / "nope.toml")])
    assert res.exit_code == 1
    assert res.output.strip() == f"error: {tmp_path / 'nope.toml'}: no such file or folder"
    assert "Errno" not in res.output
    res = runner.invoke(build_app(), ["quiz", "check", str(tmp_path)])
    assert res.exit_code == 1 and "no question bank file (*.toml)" in res.output


def test_quiz_exits_1_when_the_candidate_fails_and_the_readme_says_so() -> None:
    res = CliRunner().invoke(build_app(), ["quiz", "-n", "3", "--seed", "7"], input="z\nz\nz\n")
    assert res.exit_code == 1, res.output
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    assert "`chukker quiz` exits 1 when the candidate fails" in readme
