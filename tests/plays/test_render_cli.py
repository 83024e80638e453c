"""SVG and PNG diagrams, and the ``chukker plays`` commands."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from chukker.plays import load_shipped, render_png, render_svg, shipped, write_csv, write_parquet
from chukker.plays.cli import app

SVG = "{http://www.w3.org/2000/svg}"
runner = CliRunner()


@pytest.mark.parametrize("sid", [s.id for s in shipped()])
@pytest.mark.parametrize("lang", ["en", "es", "it"])
def test_svg_is_self_contained_valid_and_animated(sid: str, lang: str) -> None:
    text = render_svg(load_shipped(sid), lang)
    root = ET.fromstring(text)
    anims = list(root.iter(f"{SVG}animate"))
    assert anims and all("keyTimes" in a.attrib for a in anims)
    for a in anims:
        kt = [float(x) for x in a.attrib["keyTimes"].split(";")]
        assert kt[0] == 0.0 and kt == sorted(kt)
        assert len(kt) == len(a.attrib["values"].split(";"))
        if a.attrib["calcMode"] == "linear":
            assert kt[-1] == 1.0
    # no external references: only the internal clip path
    assert not re.search(r"(?:href|src)\s*=", text)
    assert set(re.findall(r"url\(([^)]*)\)", text)) <= {"#view"}
    classes = {e.attrib.get("class") for e in root.iter()}
    assert {"player", "ball", "timeline", "verdict", "legend"} <= classes
    # a ball at walking pace or lying still is stationary, so no line yet (Rule 11)
    still = {"13k-delay-of-game", "13g-ride-at-striker", "13i-head-into-opponent"}
    assert ("line-of-ball" in classes) == (sid not in still)


def test_rule_13b_svg_shows_foul_marker_row_and_timeline() -> None:
    text = render_svg(load_shipped("13b-zigzag"))
    assert 'class="foul-marker"' in text and 'class="row"' in text
    assert "0.4 s Blue 1 hits the ball." in text and "2.9 s Whistle." in text
    assert "Foul: White 2 (13b)" in text
    it = render_svg(load_shipped("13b-zigzag"), "it")
    assert "Fischio" in it and "Linea della palla" in it


def test_png_of_an_instant() -> None:
    im = render_png(load_shipped("13b-zigzag"), 2.6, scale=1.0)
    assert im.mode == "RGB" and im.size[0] == 1000
    # the foul marker is drawn after its instant, not before
    before = render_png(load_shipped("13b-zigzag"), 1.0)

    def red(img: Image.Image) -> int:
        a = np.asarray(img)
        return int(((a[..., 0] > 200) & (a[..., 1] < 60) & (a[..., 2] < 60)).sum())

    assert red(im) > red(before)


def test_cli_render_svg_and_png(tmp_path: Path) -> None:
    out = tmp_path / "z.svg"
    r = runner.invoke(app, ["render", "13b-zigzag", "-o", str(out)])
    assert r.exit_code == 0, r.output
    ET.fromstring(out.read_text())
    png = tmp_path / "z.png"
    r = runner.invoke(app, ["render", "13b-zigzag", "-o", str(png), "--at", "2.6", "--lang", "es"])
    assert r.exit_code == 0, r.output
    assert Image.open(png).size[0] == 1000
    r = runner.invoke(app, ["render", "nope", "-o", str(png)])
    assert r.exit_code == 2 and "no shipped scenario 'nope'" in r.output
    r = runner.invoke(app, ["render", "13b-zigzag", "-o", str(tmp_path / "z.gif")])
    assert r.exit_code == 2


def test_cli_analyze_json_on_scenario_and_tracking_files(tmp_path: Path) -> None:
    import chukker.plays.scenario as scn

    src = Path(scn.__file__).parent / "data" / "13b-zigzag.toml"
    r = runner.invoke(app, ["analyze", str(src), "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    (c,) = data["candidates"]
    assert (c["clause"], c["team"], c["player"]) == ("13b", "white", 2)
    assert set(c) == {"clause", "team", "player", "start", "end", "evidence"}
    tr = load_shipped("13k-delay-of-game").tracking()
    write_csv(tr, tmp_path / "d.csv")
    write_parquet(tr, tmp_path / "d.parquet")
    r = runner.invoke(
        app,
        ["analyze", str(tmp_path / "d.csv"), str(tmp_path / "d.parquet"), "--json",
         "--defends", "blue=left"],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    cands = json.loads(r.output)["candidates"]
    assert [(x["clause"], x["evidence"]["penalty"]) for x in cands] == [("13k", "5b")] * 2
    assert {x["file"] for x in cands} == {str(tmp_path / "d.csv"), str(tmp_path / "d.parquet")}


def test_cli_analyze_table_and_errors(tmp_path: Path) -> None:
    import chukker.plays.scenario as scn

    src = Path(scn.__file__).parent / "data" / "13f-two-on-one.toml"
    r = runner.invoke(app, ["analyze", str(src)])
    assert r.exit_code == 0 and "13f" in r.output and "white:2" in r.output
    bad = tmp_path / "bad.csv"
    bad.write_text("t,entity,x,y\n0,blue,0,0\n")
    r = runner.invoke(app, ["analyze", str(bad), "--json"])
    assert r.exit_code == 2
    r = runner.invoke(app, ["analyze", str(src), "--defends", "blue=up"])
    assert r.exit_code != 0


def test_cli_list() -> None:
    r = runner.invoke(app, ["list"])
    assert r.exit_code == 0 and "13b-zigzag\t13b\tfoul" in r.output
