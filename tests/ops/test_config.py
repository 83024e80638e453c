"""Settings: one TOML file, environment variables for the same keys, errors naming the key."""

from __future__ import annotations

import ipaddress
import os
import subprocess
import sys
from pathlib import Path

import pytest

from chukker.config import KEYS, ConfigError, Settings, describe, load

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "chukker.toml"
    p.write_text(text)
    return p


def test_defaults_without_file_or_environment() -> None:
    s = load(file=None, env={})
    assert s == Settings()
    assert all(s.source(k.name) == "default" for k in KEYS)


def test_file_then_environment_then_command_line(tmp_path: Path) -> None:
    f = write(tmp_path, """
database = "postgresql://chukker@db/chukker"
trusted_proxies = ["10.0.0.0/8", "192.0.2.1"]
languages = ["es", "en"]
organiser_token = "0123456789abcdef0123"
[server]
port = 9000
[limits]
max_body_bytes = 4096
[log]
format = "text"
""")
    s = load(file=f, env={"CHUKKER_SERVER_PORT": "9100"}, overrides={"server.host": "0.0.0.0"})
    assert s.database == "postgresql://chukker@db/chukker"
    assert s.trusted_proxies == (ipaddress.ip_network("10.0.0.0/8"),
                                 ipaddress.ip_network("192.0.2.1/32"))
    assert s.languages == ("es", "en") and s.limits.max_body_bytes == 4096
    assert s.server.port == 9100 and s.source("server.port") == "env CHUKKER_SERVER_PORT"
    assert s.server.host == "0.0.0.0" and s.source("server.host") == "command line"
    assert s.source("limits.max_body_bytes") == f"file {f}"
    assert s.log.format == "text" and s.config_file == str(f)


def test_config_path_from_chukker_config(tmp_path: Path) -> None:
    f = write(tmp_path, "open = true\n")
    s = load(env={"CHUKKER_CONFIG": str(f)})
    assert s.open is True and s.source("open") == f"file {f}"


def test_older_environment_names_still_work() -> None:
    s = load(file=None, env={"CHUKKER_DATABASE_URL": "postgresql://x@y/z",
                             "CHUKKER_RULES_DB": "/r.sqlite3"})
    assert s.database == "postgresql://x@y/z" and s.rules_database == "/r.sqlite3"
    assert s.source("database") == "env CHUKKER_DATABASE_URL"


def test_environment_lists_are_comma_separated() -> None:
    s = load(file=None, env={"CHUKKER_TRUSTED_PROXIES": "127.0.0.1, ::1",
                             "CHUKKER_LANGUAGES": "it"})
    assert [str(n) for n in s.trusted_proxies] == ["127.0.0.1/32", "::1/128"]
    assert s.languages == ("it",)


@pytest.mark.parametrize(("text", "env", "key"), [
    ("[server]\nport = 0\n", {}, "server.port"),
    ("[limits]\nmax_body_bytes = \"big\"\n", {}, "limits.max_body_bytes"),
    ("trusted_proxies = [\"not-an-ip\"]\n", {}, "trusted_proxies"),
    ("languages = [\"fr\"]\n", {}, "languages"),
    ("organiser_token = \"short\"\n", {}, "organiser_token"),
    ("database = \"mysql://x\"\n", {}, "database"),
    ("database_schema = \"Robert'); DROP\"\n", {}, "database_schema"),
    ("[log]\nformat = \"xml\"\n", {}, "log.format"),
    ("", {"CHUKKER_OPEN": "maybe"}, "open"),
    ("", {"CHUKKER_LIMITS_AT_WINDOW_S": "-1"}, "limits.at_window_s"),
    ("[limits]\nbad_tokens_free = 9\nbad_tokens_block = 5\n", {}, "limits.bad_tokens_block"),
    ("[server]\nprot = 80\n", {}, "server.prot"),
    ("colour = \"red\"\n", {}, "colour"),
])
def test_bad_settings_fail_naming_the_key(tmp_path: Path, text: str, env: dict[str, str],
                                          key: str) -> None:
    f = write(tmp_path, text)
    with pytest.raises(ConfigError) as e:
        load(file=f, env=env)
    assert e.value.key == key
    assert str(e.value).startswith(key)


def test_a_file_that_is_not_toml_is_named(tmp_path: Path) -> None:
    f = write(tmp_path, "port = = 3\n")
    with pytest.raises(ConfigError, match="not TOML"):
        load(file=f, env={})
    with pytest.raises(ConfigError, match="cannot read"):
        load(file=tmp_path / "missing.toml", env={})


def test_data_dir_must_be_a_folder(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(ConfigError) as e:
        load(file=None, env={"CHUKKER_DATA_DIR": str(tmp_path / "f")})
    assert e.value.key == "data_dir"


def test_sqlite_files_live_in_the_data_folder(tmp_path: Path) -> None:
    s = load(file=None, env={"CHUKKER_DATA_DIR": str(tmp_path)})
    assert s.database_target() == str(tmp_path / "chukker.sqlite3")
    assert s.rules_database_target() is None  # the rulebook's own default
    s = load(file=None, env={"CHUKKER_DATA_DIR": str(tmp_path), "CHUKKER_RULES_DB": "r.db"})
    assert s.rules_database_target() == str(tmp_path / "r.db")


def test_describe_is_a_valid_settings_file_that_hides_the_token(tmp_path: Path) -> None:
    token = "tok-" + "x" * 30
    s = load(file=None, env={"CHUKKER_ORGANISER_TOKEN": token, "CHUKKER_SERVER_PORT": "8123"})
    text = describe(s)
    assert token not in text and "(set, hidden)" in text
    assert "port = 8123  # env CHUKKER_SERVER_PORT" in text
    again = load(file=write(tmp_path, text.replace('"(set, hidden)"', '""')), env={})
    assert again.server.port == 8123 and again.limits == s.limits


def _chukker(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("CHUKKER_")}
    full["PYTHONPATH"] = str(ROOT / "src")
    full.update(env)
    return subprocess.run([sys.executable, "-m", "chukker.cli", *args], env=full, cwd=cwd,
                          capture_output=True, text=True, timeout=60, check=False)


def test_chukker_config_prints_values_and_sources(tmp_path: Path) -> None:
    f = write(tmp_path, "[server]\nport = 9001\n")
    p = _chukker("config", "--config", str(f), env={"CHUKKER_LANGUAGES": "es,it"}, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert f"port = 9001  # file {f}" in p.stdout
    assert 'languages = ["es", "it"]  # env CHUKKER_LANGUAGES' in p.stdout
    assert 'host = "127.0.0.1"  # default' in p.stdout


def test_chukker_config_refuses_a_bad_setting_naming_it(tmp_path: Path) -> None:
    p = _chukker("config", env={"CHUKKER_LIMITS_STREAM_QUEUE": "lots"}, cwd=tmp_path)
    assert p.returncode == 2
    assert "limits.stream_queue" in p.stderr and "CHUKKER_LIMITS_STREAM_QUEUE" in p.stderr


def test_config_mqtt_and_horn_relays_from_the_file_the_environment_and_back(
        tmp_path: Path) -> None:
    from chukker.config import RelaySettings

    f = tmp_path / "c.toml"
    f.write_text('[mqtt]\nurl = "mqtt://club:s3cret@broker.club:1883"\nprefix = "club"\n'
                 '[[horn.relays]]\nkind = "tasmota"\ntopic = "arena1-horn"\npulse_ms = 1500\n'
                 'arena = "Arena 1"\n[[horn.relays]]\nkind = "shelly"\ntopic = "sh-1"\n')
    s = load(file=f, env={})
    assert s.mqtt.url == "mqtt://club:s3cret@broker.club:1883" and s.mqtt.prefix == "club"
    assert s.horn.relays == (RelaySettings("tasmota", "arena1-horn", 1500, "Arena 1"),
                             RelaySettings("shelly", "sh-1", 1500, None))
    text = describe(s)
    assert "s3cret" not in text
    again = tmp_path / "again.toml"
    again.write_text(text.replace("***", "s3cret"))
    assert load(file=again, env={}).horn.relays == s.horn.relays
    env = load(file=None, env={"CHUKKER_HORN_RELAYS": '[{"kind": "topic", "topic": "b/h"}]'})
    assert env.horn.relays == (RelaySettings("topic", "b/h"),)


@pytest.mark.parametrize(("env", "says"), [
    ({"CHUKKER_MQTT_URL": "http://broker"}, "mqtt.url"),
    ({"CHUKKER_HORN_RELAYS": '[{"kind": "siren", "topic": "x"}]'}, "relay 1"),
    ({"CHUKKER_HORN_RELAYS": '[{"kind": "topic", "topic": "a/#"}]'}, "relay 1"),
    ({"CHUKKER_HORN_RELAYS": '[{"kind": "topic", "topic": "a", "pulse_ms": 5}]'}, "relay 1"),
    ({"CHUKKER_HORN_RELAYS": "not json"}, "horn.relays"),
])
def test_config_bad_mqtt_or_relay_settings_stop_the_server_naming_the_key(
        env: dict[str, str], says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        load(file=None, env=env)
