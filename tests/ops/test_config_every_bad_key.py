"""Issue 30: a settings file with several bad keys reports every one, not the first."""

from __future__ import annotations

from pathlib import Path

import pytest

from chukker.config import ConfigError, ConfigErrors, load


def test_a_settings_file_with_several_bad_keys_reports_every_one(tmp_path: Path) -> None:
    f = tmp_path / "chukker.toml"
    f.write_text('databse = "x"\nopen = "maybe"\n[server]\nport = "http"\nhots = "0.0.0.0"\n'
                 "[limits]\nmax_body_bytes = 1\n")
    with pytest.raises(ConfigErrors) as got:
        load(file=f, env={})
    keys = [e.key for e in got.value.errors]
    assert sorted(keys) == ["databse", "limits.max_body_bytes", "open", "server.hots",
                            "server.port"]
    text = str(got.value)
    assert len(text.splitlines()) == 5
    assert "server.hots (file " in text and "unknown setting" in text
    assert isinstance(got.value, ConfigError)  # callers catching ConfigError still do


def test_one_bad_key_is_one_config_error_as_before(tmp_path: Path) -> None:
    f = tmp_path / "chukker.toml"
    f.write_text("[server]\nport = 0\n")
    with pytest.raises(ConfigError) as got:
        load(file=f, env={})
    assert not isinstance(got.value, ConfigErrors)
    assert got.value.key == "server.port"
