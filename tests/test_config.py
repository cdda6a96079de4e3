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
            "config.toml: llm.max_steps: a whole number, e.g. 5; got '5'",
        ),
        (
            {"telegram": {"allowed_user_ids": [1, True]}},
            "config.toml: telegram.allowed_user_ids[1]: a whole number, e.g. 123456789; got True",
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
        ({"llm": 5}, "config.toml: llm: a table, e.g. { key = value }; got 5"),
    ],
)
def test_bad_values_name_the_file_the_key_and_the_expectation(raw, message) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(raw)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            {"llm": {"prices": {"gpt-4o": {"inptu": 2.5}}}},
            "llm.prices.gpt-4o.inptu: unknown key; did you mean 'input'?",
        ),
        (
            {"llm": {"prices": {"gpt-4o": {"per_call": 1}}}},
            "llm.prices.gpt-4o.per_call: unknown key; known keys: input, cached_input, output, "
            "audio_minute",
        ),
        (
            {"mcp": {"servers": {"files": {"comand": "x"}}}},
            "mcp.servers.files.comand: unknown key; did you mean 'command'?",
        ),
    ],
)
def test_a_misspelt_key_in_a_table_of_tables_lists_that_tables_keys(raw, message) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(raw)
    assert message in str(info.value)
    assert "max_steps" not in str(info.value)  # never [llm]'s own keys


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
        examples = {"servers"} if section == "mcp" else set()  # commented-out examples below
        assert set(raw[section]) == set(values) - examples, section


def example_blocks(text: str) -> list[tuple[int, int]]:
    """The commented-out examples of the file: runs of `# key = …` or `# [table]` lines."""
    lines, blocks, start = text.splitlines(), [], None
    for number, line in enumerate([*lines, ""]):
        inside = (line.startswith("# ") and line[2:3] not in (" ", "")) or (
            start is not None and line.startswith("#  ")
        )
        if inside and start is None and (line[2] == "[" or " = " in line.split("#")[1]):
            start = number
        elif not inside and start is not None:
            blocks.append((start, number))
            start = None
    return blocks


def test_each_example_block_of_the_example_config_loads_when_uncommented(tmp_path) -> None:
    text = (ROOT / "config.example.toml").read_text()
    blocks = example_blocks(text)
    assert len(blocks) >= 2  # the MCP servers: one over stdio, one over HTTP
    for start, end in blocks:
        lines = text.splitlines()
        for number in range(start, end):
            uncommented = lines[number][2:]
            lines[number] = "" if uncommented.lstrip().startswith("#") else uncommented
        path = tmp_path / "config.toml"
        path.write_text("\n".join(lines) + "\n")
        config = load_config(path)
        assert config.mcp.servers, "\n".join(lines[start:end])


def test_the_words_of_a_wrong_type_are_the_editors(tmp_path) -> None:
    with pytest.raises(ConfigError) as wrong:
        parse_config({"telegram": {"allowed_user_ids": "123456789", "private_only": "yes"}})
    assert str(wrong.value).splitlines() == [
        "config.toml: telegram.allowed_user_ids: a list of numbers, e.g. [123456789]; "
        "got '123456789'",
        "config.toml: telegram.private_only: true or false, e.g. true; got 'yes'",
    ]


def test_tables_nested_too_deeply_are_one_plain_line(tmp_path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n")
    with pytest.raises(ConfigError, match="nested too deeply to read; flatten them there"):
        load_config(path)


def test_relative_data_dir_is_taken_from_the_base(tmp_path) -> None:
    assert Config().data_path(tmp_path) == tmp_path / "data"
