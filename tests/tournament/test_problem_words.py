"""The problems of a tournament file: every kind has its own stable code, typed params and
an English template (tournament/problems.py) with es and it (tournament-problems.po);
the web gives each problem as {subject, code, params, message, text}, text in the
caller's language, and `chukker tournament check` prints the English it always did."""

from __future__ import annotations

import pickle
import re
import string
import warnings
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from tests.tournament.web_helpers import four_team_toml, post
from tests.web.conftest import OPEN, ORGANISER_AUTH

from chukker.i18n import translations
from chukker.tournament import check, loads
from chukker.tournament.problems import (
    SUBJECTS,
    TEMPLATES,
    Cause,
    Params,
    Problem,
    ProblemCode,
    ProblemParamsError,
    Subject,
    SubjectCode,
    msgids,
)
from chukker.web import create_app

SRC = Path(__file__).resolve().parents[2] / "src" / "chukker"
MAKERS = [
    SRC / "tournament" / "model.py",
    SRC / "tournament" / "check.py",
    SRC / "tournament" / "mounts.py",
    SRC / "web" / "officials" / "arena.py",
    SRC / "web" / "public" / "tournaments.py",
    SRC / "web" / "shared" / "tournament_view.py",
    SRC / "live" / "tournaments.py",
    SRC / "live" / "tournament_log.py",
]


def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def _has_words(template: str) -> bool:
    """Words of its own beside the placeholders (``{path}: {detail}`` has none)."""
    bare = re.sub(r"\{\w*\}", "", template.replace("{{", "").replace("}}", ""))
    return re.search(r"[A-Za-z]{2,}", bare) is not None


def test_every_problem_code_has_one_template_and_every_template_a_code() -> None:
    assert set(TEMPLATES) == set(ProblemCode)
    assert set(SUBJECTS) == set(SubjectCode)
    assert len({c.value for c in ProblemCode}) == len(ProblemCode)
    assert "invalid" not in {c.value for c in ProblemCode}  # no catch-all code


@pytest.mark.parametrize("lang", ["es", "it"])
def test_every_problem_subject_and_part_is_translated_with_the_same_params(lang: str) -> None:
    tr = translations(lang)
    for en in msgids():
        said = tr.gettext(en)
        if _has_words(en):
            assert said != en, (lang, en)
        else:  # pure notation (``{id}``, ``{path}: {detail}``): the catalogue has it too
            from babel.messages.pofile import read_po

            po = SRC / "web" / "locales" / lang / "LC_MESSAGES" / "tournament-problems.po"
            with po.open("rb") as f:
                assert en in read_po(f, locale=lang), (lang, en)
        assert _fields(said) == _fields(en), (lang, en, said)
        said.format(**{k: "x" for k in _fields(en)})  # braces balanced, no stray field


def test_every_code_the_parser_checker_and_web_use_is_a_problem_code_and_each_is_used() -> None:
    used: set[str] = set()
    for path in MAKERS:
        source = path.read_text(encoding="utf-8")
        used |= set(re.findall(r'\bbad\(\s*[^,()]+(?:\([^()]*\))?,\s*"(\w+)"', source))
        used |= set(re.findall(r'Problem\.of\(\s*[^,()]+(?:\([^()]*\))?,\s*"(\w+)"', source))
        used |= set(re.findall(r'int_\(.*"(\w+_not_whole)"\)', source))
    used.add("not_whole")  # int_'s default
    assert used == {c.value for c in ProblemCode}, used ^ {c.value for c in ProblemCode}


def test_a_problem_made_with_params_its_template_does_not_name_is_a_bug_caught_at_once() -> None:
    team = Subject.of("team", "reds")
    with pytest.raises(ProblemParamsError, match="unknown_player"):
        Problem.of(team, "unknown_player")
    with pytest.raises(ProblemParamsError):
        Problem.of(team, "unknown_player", player="zed", extra="x")
    with pytest.raises(ProblemParamsError):
        Problem(team, ProblemCode.TEAM_SIZE, Params((("count", 2.5),)))  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Problem.of(team, "invalid")


def test_optional_parts_say_nothing_when_left_out_and_are_translated_when_given() -> None:
    at = Subject.path("match_options")
    bare = Problem.of(at, "unknown_key", key="tiebrake")
    full = Problem.of(at, "unknown_key", line=5, key="tiebrake", near="tiebreak")
    assert str(bare) == "match_options: unknown key `tiebrake`"
    assert str(full) == "match_options: line 5: unknown key `tiebrake` (did you mean `tiebreak`?)"
    assert full.said(translations("it").gettext) == (
        "match_options: riga 5: chiave sconosciuta `tiebrake` (forse `tiebreak`?)"
    )
    assert full.said(translations("es").gettext) == (
        "match_options: línea 5: clave desconocida `tiebrake` (¿quiso decir `tiebreak`?)"
    )


def test_subjects_are_a_code_and_an_id_and_said_in_each_language() -> None:
    s = Subject.of("match", "a1")
    assert str(s) == "match a1" and s.to_json() == {"code": "match", "id": "a1"}
    assert s.said(translations("es").gettext) == "partido a1"
    assert s.said(translations("it").gettext) == "partita a1"
    assert str(Subject.path("decided", 0)) == "decided[0]"


def test_problems_cross_a_process_boundary_unchanged() -> None:
    """The upload is checked in the imports pool (another process): problems pickle."""
    t = loads('[[teams]]\nid = "t"\nplayers = ["a"]\n')
    found = check(t)
    assert found and pickle.loads(pickle.dumps(found)) == found


def test_a_hostile_value_is_quoted_short_in_the_problem_and_its_params() -> None:
    t = loads(f'[[matches]]\nid = "m"\nstage = "s"\nteams = ["a", "b"]\narena = {10**200}\n')
    p = next(p for p in t.problems if p.code == "arena_not_name")
    assert len(str(p.params.as_dict()["value"])) <= 60 and len(str(p)) < 200


def test_the_english_lines_stay_as_check_printed_them() -> None:
    t = loads(
        '[[players]]\nid = "ann"\nregistered = ["x"]\n'
        '[[teams]]\nid = "t"\nplayers = ["ann", "ann", "zed"]\ncaptain = "bob"\n'
        '[[stages]]\nid = "p"\nkind = "round-robbin"\nteams = ["t", "u"]\n'
    )
    lines = [str(p) for p in check(t)]
    for want in (
        "player ann: a registered year must be a whole number, got 'x'",
        "team t: player ann is listed 2 times",
        "team t: player zed is not in the register",
        "team t: captain bob is not one of the team's players",
        "stage p: kind must be one of round-robin, single-elimination, got 'round-robbin' "
        "(did you mean `round-robin`?)",
        "stage p: team u is not defined",
    ):
        assert want in lines, (want, lines)
    codes = {p.code for p in check(t)}
    assert {"player_repeated", "captain_not_player", "unknown_player"} <= codes


# ------------------------------------------------------------------------------ the web
@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv("CHUKKER_TOURNAMENTS_DIR", str(tmp_path / "tournaments"))
    with TestClient(create_app(tmp_path / "live.sqlite3", **OPEN)) as c:
        yield c


def _unsound() -> str:
    return four_team_toml().replace(
        'players = ["reds1", "reds2", "reds3"]', 'players = ["reds1", "reds2", "zed"]'
    ).replace("tiebreak =", "tiebrake =")


@pytest.mark.parametrize(("lang", "headline", "zed", "key"), [
    ("en", "the tournament file has problems: ", "team reds: player zed is not in the register",
     "unknown key `tiebrake` (did you mean `tiebreak`?)"),
    ("es", "el archivo del torneo tiene problemas: ",
     "equipo reds: el jugador zed no está en el padrón",
     "clave desconocida `tiebrake` (¿quiso decir `tiebreak`?)"),
    ("it", "il file del torneo ha dei problemi: ", "squadra reds: il giocatore zed non è nell'albo",
     "chiave sconosciuta `tiebrake` (forse `tiebreak`?)"),
])
def test_an_unsound_file_is_refused_with_each_problem_said_in_the_callers_language(
    client: Any, lang: str, headline: str, zed: str, key: str,
) -> None:
    r = client.post(f"/tournaments/api?lang={lang}", json={"text": _unsound()})
    j = r.json()
    assert r.status_code == 422 and j["code"] == "tournament_problems", j
    by_code = {p["code"]: p for p in j["problems"]}
    p = by_code["unknown_player"]
    assert set(p) == {"subject", "code", "params", "message", "text"}
    assert p["subject"] == {"code": "team", "id": "reds"} and p["params"] == {"player": "zed"}
    assert p["message"] == "team reds: player zed is not in the register"  # English
    assert p["text"] == zed
    assert key in by_code["unknown_key"]["text"]
    assert isinstance(by_code["unknown_key"]["params"]["line"], int)
    # the refusal's text says every problem in the same language, its message in English
    assert j["text"].startswith(headline) and zed in j["text"] and key in j["text"]
    assert j["message"].startswith("the tournament file has problems: ")
    assert "team reds: player zed is not in the register" in j["message"]
    assert j["params"]["problems"] == [x["message"] for x in j["problems"]]


def test_a_second_upload_changing_a_played_match_is_refused_with_the_match_in_spanish(
    client: Any,
) -> None:
    body = client.post("/tournaments/api", json={"text": four_team_toml()},
                       headers=ORGANISER_AUTH).json()
    tok = body["arenas"]["Arena 1"]["token"]
    assert post(client, "", body["matches"]["m1"], tok, {"type": "bowl_in"}).status_code == 201
    changed = four_team_toml().replace('teams = ["reds", "blues"]', 'teams = ["blues", "reds"]', 1)
    r = client.post("/tournaments/api?lang=es", json={"text": changed}, headers=ORGANISER_AUTH)
    j = r.json()
    assert r.status_code == 409 and j["code"] == "tournament_exists", j
    assert j["problems"] == [{
        "subject": {"code": "match", "id": "m1"},
        "code": "played_match_teams",
        "params": {},
        "message": "match m1: has been played; the new file changes its teams",
        "text": "partido m1: ya se jugó; el nuevo archivo cambia sus equipos",
    }]
    assert j["text"].startswith("este torneo ya existe (")
    assert j["text"].endswith("cambiarían partidos ya jugados: "
                              "partido m1: ya se jugó; el nuevo archivo cambia sus equipos")
    assert "match m1: has been played" in j["message"]


def test_the_problem_lists_shown_on_the_new_tournament_form_are_the_answers_text() -> None:
    """The form shows the answer's ``text`` (tournament-new.js): in the page's language."""
    js = (SRC / "web" / "static" / "tournament-new.js").read_text(encoding="utf-8")
    assert "body.text" in js and "?lang=" in js


def test_a_file_with_thousands_of_problems_is_answered_with_the_first_ones_and_a_count(
    client: Any,
) -> None:
    """Guard: the answer is rendered on the event loop in two languages, so it lists at most
    MAX_LISTED problems (found in the imports pool) and one line saying how many more."""
    from chukker.web.officials.arena import MAX_LISTED

    text = four_team_toml() + "".join(f"[[stages]]\nid = \"s{i}\"\nkind = \"x\"\n"
                                      for i in range(3 * MAX_LISTED))
    r = client.post("/tournaments/api?lang=it", json={"text": text})
    j = r.json()
    assert r.status_code == 422 and j["code"] == "tournament_problems"
    assert len(j["problems"]) == MAX_LISTED + 1 == len(j["params"]["problems"])
    last = j["problems"][-1]
    assert last["code"] == "more_problems" and last["subject"] == {"code": "tournament", "id": ""}
    assert last["params"] == {"count": 3 * MAX_LISTED - MAX_LISTED}
    assert last["message"] == (f"tournament: and {2 * MAX_LISTED} more problems "
                               "(chukker tournament check lists them all)")
    assert last["text"].startswith(f"torneo: e altri {2 * MAX_LISTED} problemi")
    assert len(r.content) < 200 * MAX_LISTED * 5  # a bounded answer, whatever the file


def _options(line: str) -> str:
    return four_team_toml().replace("handicap = true", "handicap = true\n" + line, 1)


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "match_options: options.first_defends: the two teams must defend opposite ends"),
    ("es", "match_options: options.first_defends: los dos equipos deben defender extremos "
           "opuestos"),
    ("it", "match_options: options.first_defends: le due squadre devono difendere estremità "
           "opposte"),
])
def test_match_options_the_engine_refuses_are_said_from_its_code_in_the_callers_language(
    client: Any, lang: str, text: str,
) -> None:
    r = client.post(f"/tournaments/api?lang={lang}",
                    json={"text": _options('first_defends = { A = "west", B = "west" }')})
    j = r.json()
    assert r.status_code == 422 and j["code"] == "tournament_problems", j
    p = next(p for p in j["problems"] if p["code"] == "match_options")
    assert p["text"] == text
    assert p["message"] == ("match_options: options.first_defends: the two teams must defend "
                            "opposite ends")  # English, as check prints it
    assert p["params"] == {"path": "options.first_defends",
                           "detail": "the two teams must defend opposite ends"}
    assert text in j["text"]


@pytest.mark.parametrize(("lang", "text"), [
    ("en", "match_options: options.tiebreak: unknown value 'coin' (one of 'extra-periods', "
           "'shootout')"),
    ("es", "match_options: options.tiebreak: valor desconocido 'coin' (uno de "
           "'extra-periods', 'shootout')"),
    ("it", "match_options: options.tiebreak: valore sconosciuto 'coin' (uno tra "
           "'extra-periods', 'shootout')"),
])
def test_match_options_an_unknown_option_value_is_said_from_the_engines_code(
    lang: str, text: str,
) -> None:
    """The engine's ``setup_unknown_value`` (a list param, ``allowed``) in each language."""
    found = check(loads(_options('tiebreak = "coin"').replace('tiebreak = "shootout"\n', "")))
    p = next(p for p in found if p.code == "match_options")
    assert p.cause is not None and p.cause.code == "setup_unknown_value"
    assert p.said(translations(lang).gettext) == text
    assert pickle.loads(pickle.dumps(p)) == p


def test_match_options_the_engine_refuses_without_a_sentence_of_its_own_keep_its_english() -> None:
    """``setup_invalid`` (the fallback code) is the engine's English detail only: said as
    it is."""
    p = replace(Problem.of(Subject.path("match_options"), "match_options",
                           path="options.x", detail="no good"),
                cause=Cause.of("setup_invalid", {"path": "options.x", "detail": "no good"}))
    english = str(p)
    assert english == "match_options: options.x: no good"
    for lang in ("es", "it"):
        assert p.said(translations(lang).gettext) == english
    assert pickle.loads(pickle.dumps(p)) == p
