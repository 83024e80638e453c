"""``chukker serve`` with a settings file: refuses bad settings, logs JSON lines, and
trusts forwarding headers only as configured (uvicorn's own proxy handling is off)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from tests import ports

ROOT = Path(__file__).resolve().parents[2]


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    env["PYTHONPATH"] = str(ROOT / "src")
    env.update(extra)
    return env


def test_serve_refuses_a_bad_setting_naming_it(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text("[limits]\nmax_body_bytes = 12\n")
    p = subprocess.run([sys.executable, "-m", "chukker.cli", "serve", "--config", str(cfg)],
                       cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=60,
                       check=False)
    assert p.returncode == 2
    assert "limits.max_body_bytes" in p.stderr and str(cfg) in p.stderr


def test_serve_with_a_settings_file_logs_json_and_ignores_untrusted_forwarding(
        tmp_path: Path) -> None:
    port = ports.free_port(2)
    data = tmp_path / "data"
    token = "organiser-" + "s" * 20
    cfg = tmp_path / "chukker.toml"
    cfg.write_text(f'data_dir = "{data}"\ntrusted_proxies = ["10.0.0.0/8"]\n'
                   f'organiser_token = "{token}"\n[server]\nport = {port}\n'
                   '[log]\nformat = "json"\n')
    proc = subprocess.Popen(
        [sys.executable, "-m", "chukker.cli", "serve", "--no-demo", "--config", str(cfg)],
        cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                if httpx.get(base + "/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "chukker serve did not start"
            time.sleep(0.1)
        r = httpx.get(base + "/api/matches", headers={"x-forwarded-for": "203.0.113.5"})
        assert r.status_code == 200
        r = httpx.post(base + "/api/matches", json={}, headers={
            "authorization": "Bearer not-it", "x-forwarded-for": "203.0.113.5"})
        assert r.status_code == 403
        assert (data / "chukker.sqlite3").is_file()
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=20)
    assert token not in out + err
    lines = [json.loads(x) for x in err.splitlines() if x.startswith("{")]
    access = [x for x in lines if x["logger"] == "chukker.access"]
    assert [(x["method"], x["status"], x["client"]) for x in access] == [
        ("GET", 200, "127.0.0.1"), ("POST", 403, "127.0.0.1")]
    assert access[1]["code"] == "organiser_required"


def test_app_from_env_reads_the_settings(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from chukker.web.app import app_from_env

    for k in [k for k in os.environ if k.startswith("CHUKKER_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("CHUKKER_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("CHUKKER_TRUSTED_PROXIES", "10.0.0.0/8")
    monkeypatch.setenv("CHUKKER_ORGANISER_TOKEN", "organiser-" + "e" * 20)
    app = app_from_env()
    assert app.state.settings.data_dir == str(tmp_path)
    assert [str(n) for n in app.state.trusted_proxies.networks] == ["10.0.0.0/8"]
    assert (tmp_path / "chukker.sqlite3").is_file()
    app.state.service.store.close()
