"""The built wheel works on its own: installed into a fresh venv, run from another folder.

Slow-ish (a few seconds: build, install, start a server) but part of every run. Offline: the
wheel is built with the setuptools of the running venv (pinned in requirements-dev.lock) and
installed without its dependencies, which the fresh venv borrows from the running one
through a ``.pth`` line; what is checked is the wheel: package data, templates, static
files, translations, examples and the ``chukker`` script.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import time
import venv
from pathlib import Path

import httpx
import pytest
from tests import ports, wheel_build

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wheel")]


def _setuptools_ok() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 77


_env = wheel_build.clean_env


def run(*args: str | Path, cwd: Path, timeout: float = 120,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    p = subprocess.run([str(a) for a in args], cwd=cwd, env={**_env(), **(env or {})},
                       capture_output=True, text=True, timeout=timeout, check=False)
    assert p.returncode == 0, f"{args}: {p.stdout}\n{p.stderr}"
    return p


@pytest.fixture(scope="session")  # once per worker, however xdist orders the tests
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not _setuptools_ok():
        pytest.skip("building the wheel offline needs setuptools>=77 "
                    "(pinned in requirements-dev.lock; bash scripts/setup.sh)")
    tmp = tmp_path_factory.mktemp("wheel")
    # a plain build, as `pip install .` makes it (issue 35): the engine compiled by mypyc,
    # checked below; tests/engine/test_native.py checks its answers. scripts/test.sh starts
    # it beside the first tests (tests/wheel_build.py); run alone, it is built here
    ahead = os.environ.get("CHUKKER_TEST_WHEEL_AHEAD")
    if ahead:
        rc, deadline = Path(ahead) / "rc", time.monotonic() + 600
        while not rc.exists():
            assert time.monotonic() < deadline, "the wheel built ahead never finished"
            time.sleep(0.2)
        err = Path(ahead) / "error"
        assert rc.read_text() == "0", err.read_text() if err.exists() else "build failed"
        wheels = list((Path(ahead) / "dist").glob("chukker-*.whl"))
        assert len(wheels) == 1, wheels
        wheel = wheels[0]
    else:
        wheel = wheel_build.build(tmp)
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", py, "install", "--no-deps", "-q",
        "--no-index", wheel, cwd=tmp)
    # the dependencies: borrowed from the running venv (listed after the fresh venv's own)
    site = Path(run(py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])",
                    cwd=tmp).stdout.strip())
    paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "_chukker_borrowed_deps.pth").write_text("\n".join(sorted(paths)) + "\n")
    return env_dir


def test_wheel_plain_build_compiles_the_engine(installed: Path, tmp_path: Path) -> None:
    """Issue 35, item 8: a plain build (no setting, mypy in the build's requirements)
    installs the mypyc-compiled engine, and the process runs it."""
    import tomllib

    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    assert any(r.replace(" ", "").startswith("mypy") for r in requires), requires
    py = installed / "bin" / "python"
    out = run(py, "-c", "from chukker.engine import native; from chukker.live import fanout; "
              "print(native.NATIVE, fanout.SEND_EACH_NATIVE)", cwd=tmp_path).stdout.strip()
    assert out.split()[0] == "True", "a plain build installed the pure-Python engine"
    # issue 43: the fan-out's C sends, built beside the engine
    assert out.split()[1] == "True", "a plain build left out chukker.live._sendeach"


def test_wheel_has_the_package_data_and_runs_from_another_folder(installed: Path,
                                                                 tmp_path: Path) -> None:
    py, exe = installed / "bin" / "python", installed / "bin" / "chukker"
    where = run(py, "-c", "import chukker, pathlib; print(pathlib.Path(chukker.__file__))",
                cwd=tmp_path).stdout.strip()
    assert where.startswith(str(installed)), f"chukker imported from {where}"
    pkg = Path(where).parent
    for rel in ("web/templates/base.html", "web/static/live.js", "py.typed",
                "web/locales/es/LC_MESSAGES/messages.po", "rulebook/data/summaries.json"):
        assert (pkg / rel).is_file(), rel
    examples = Path(run(exe, "examples", cwd=tmp_path).stdout.strip())
    assert examples.is_relative_to(installed)
    rec = examples / "overtime.json"
    out = run(exe, "replay", rec, "--json", cwd=tmp_path).stdout
    assert '"score"' in out


def test_wheel_serves_pages_static_files_and_translations(installed: Path,
                                                         tmp_path: Path) -> None:
    port = ports.free_port(2)
    proc = subprocess.Popen(
        [str(installed / "bin" / "chukker"), "serve", "--port", str(port), "--no-demo",
         "--db", str(tmp_path / "w.sqlite3")],
        cwd=tmp_path, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise AssertionError(proc.stderr.read().decode() if proc.stderr else "exited")
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "chukker serve did not start"
            time.sleep(0.1)
        with httpx.Client(base_url=base, timeout=10) as c:
            assert c.get("/healthz").json() == {"status": "ok"}
            assert c.get("/readyz").status_code == 200
            assert c.get("/static/live.css").status_code == 200
            es = c.get("/", headers={"accept-language": "es"})
            assert es.status_code == 200 and 'lang="es"' in es.text
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
            proc.wait(5)
