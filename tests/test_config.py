"""Loading the configuration, and the one clear message for every bad key."""

from __future__ import annotations

import logging
import tomllib
from pathlib import Path

import pytest

from assistant.config import Config, config_path, load_config, parse_config
from assistant.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"llm": {"max_steps": 0}}, "config.toml: llm.max_steps: must be >= 1, got 0"),
        ({"llm": {"modle": "x"}}, "config.toml: llm.modle: unknown key; did you mean 'model'?"),
        ({"lm": {}}, "config.toml: lm: unknown key; did you mean 'llm'?"),
        (
            {"assistant": {"timezone": "Mars/Olympus"}},
            "config.toml: assistant.timezone: unknown timezone 'Mars/Olympus'; expected an IANA name",
        ),
        (
            {"llm": {"max_steps": "5"}},
            "config.toml: llm.max_steps: input should be a valid integer, got str '5'",
        ),
        (
            {"telegram": {"allowed_user_ids": [1, True]}},
            "config.toml: telegram.allowed_user_ids[1]: input should be a valid integer, got bool True",
        ),
        (
            {"telegram": {"allowed_user_ids": [-5]}},
            "telegram.allowed_user_ids[0]: must be > 0, got -5",
        ),
        (
            {"llm": {"tool_mode": "magic"}},
            "llm.tool_mode: must be one of 'native', 'text', 'grammar' or 'auto', got 'magic'",
        ),
        ({"tools": {"summary_chars": 10}}, "tools.summary_chars: must be >= 100, got 10"),
        ({"llm": 5}, "config.toml: llm: input should be a valid dictionary"),
    ],
)
def test_bad_values_name_the_file_the_key_and_the_expectation(raw, message) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(raw)
    assert message in str(info.value)


def test_several_problems_are_reported_together() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config({"llm": {"max_steps": 0, "model": 3}})
    assert len(str(info.value).splitlines()) == 2


def test_int_is_accepted_for_float_and_models_are_frozen() -> None:
    config = parse_config({"llm": {"timeout_seconds": 5}})
    assert config.llm.timeout_seconds == 5.0
    with pytest.raises(Exception, match="frozen"):
        config.llm.model = "x"  # type: ignore[misc]


def test_missing_file_means_defaults_said_once(tmp_path, caplog) -> None:
    with caplog.at_level(logging.INFO):
        config = load_config(tmp_path / "absent.toml")
    assert config == Config()
    assert [r.getMessage() for r in caplog.records].count(
        f"no config file at {tmp_path / 'absent.toml'}; using the embedded defaults"
    ) == 1


def test_file_errors_name_the_file(tmp_path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text("[llm]\nmax_steps = 0\n")
    with pytest.raises(ConfigError, match=r"^mine.toml: llm.max_steps: must be >= 1, got 0$"):
        load_config(path)
    path.write_text("[llm\n")
    with pytest.raises(ConfigError, match="mine.toml: not valid TOML"):
        load_config(path)


def test_flag_wins_over_environment_which_wins_over_default(monkeypatch) -> None:
    monkeypatch.setenv("ASSISTANT_CONFIG", "/etc/assistant.toml")
    assert config_path("x.toml") == (Path("x.toml"), True)
    assert config_path(None) == (Path("/etc/assistant.toml"), True)
    monkeypatch.delenv("ASSISTANT_CONFIG")
    assert config_path(None) == (Path("config.toml"), False)


def test_the_example_config_documents_every_key_with_its_default() -> None:
    raw = tomllib.loads((ROOT / "config.example.toml").read_text())
    assert parse_config(raw) == Config()
    defaults = Config().model_dump()
    assert set(raw) == set(defaults)
    for section, values in defaults.items():
        assert set(raw[section]) == set(values), section


def test_relative_data_dir_is_taken_from_the_base(tmp_path) -> None:
    assert Config().data_path(tmp_path) == tmp_path / "data"
