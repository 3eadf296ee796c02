"""Config: the example file, defaults, where the file is found, DISCORD_TOKEN, and errors that name the
file and the key."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.ai import MAX_WORKERS
from bot.config import MAX_AI_PROCESSES, Config, ConfigError, default_ai_processes, load_config

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str, name: str = "tiempo.toml") -> str:
    """Write a config file and return its path."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_example_file_loads_and_documents_every_setting() -> None:
    config = load_config(str(ROOT / "config.example.toml"), {})
    assert config.token is None  # token = "" means none
    assert config.database == str(ROOT / "tiempo.sqlite3")
    assert (config.guilds, config.turn_limit_minutes, config.log_level, config.ai_think_seconds) == (
        (), 0, "INFO", 2.0)
    assert config.ai_processes == default_ai_processes(), "left commented out: one process per core, at most 2"
    assert config.reminder_minutes == 10
    text = (ROOT / "config.example.toml").read_text(encoding="utf-8")
    # a setting is documented by a line "key = value", or "# key = value" when its default depends on the machine
    documented = {m.group(1) for m in re.finditer(r"^(?:# )?(\w+) = ", text, re.MULTILINE)}
    settings = {f for f in Config.__dataclass_fields__ if f != "source"}
    assert documented == settings


def test_no_file_means_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(None, {})
    assert config == Config()
    assert (config.database, config.source, config.turn_limit_minutes) == ("tiempo.sqlite3", None, 0)


def test_every_setting_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, """
token = "  file-token  "
database = "data/games.sqlite3"
guilds = [123456789012345678, 42]
turn_limit_minutes = 90
log_level = "debug"
ai_think_seconds = 5
ai_processes = 3
""")
    config = load_config(path, {})
    assert config == Config(token="file-token", database=str(tmp_path / "data" / "games.sqlite3"),
                            guilds=(123456789012345678, 42), turn_limit_minutes=90, log_level="DEBUG",
                            ai_think_seconds=5.0, ai_processes=3, source=path)
    assert config.log_level_number == 10


def test_an_absolute_database_path_is_kept(tmp_path: Path) -> None:
    target = str(tmp_path / "elsewhere" / "t.sqlite3")
    assert load_config(write(tmp_path, f'database = "{target}"\n'), {}).database == target


def test_a_postgresql_url_is_kept_as_it_is(tmp_path: Path) -> None:
    for url in ("postgresql://tiempo:pw@db.example/tiempo", "postgres://tiempo@/tiempo?host=/run/postgresql"):
        assert load_config(write(tmp_path, f'database = "{url}"\n'), {}).database == url


def test_tiempo_database_overrides_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, 'database = "games.sqlite3"\n')
    url = "postgresql://tiempo:s3cret@localhost:5433/tiempo"
    config = load_config(path, {"TIEMPO_DATABASE": url})
    assert config.database == url
    assert "s3cret" not in repr(config)
    assert load_config(path, {"TIEMPO_DATABASE": "  "}).database == str(tmp_path / "games.sqlite3")  # blank
    monkeypatch.chdir(tmp_path / "..")
    # a path from the environment is taken from the current directory, like any path typed in a shell
    assert load_config(path, {"TIEMPO_DATABASE": "elsewhere.sqlite3"}).database == "elsewhere.sqlite3"
    assert load_config(None, {"TIEMPO_DATABASE": url}).database == url  # with no file too
    with pytest.raises(ConfigError, match=r"^TIEMPO_DATABASE must be a file path or a postgresql:// URL"):
        load_config(path, {"TIEMPO_DATABASE": "mysql://x/y"})


def test_discord_token_overrides_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, 'token = "from-file"\n')
    assert load_config(path, {"DISCORD_TOKEN": "from-env"}).token == "from-env"
    assert load_config(path, {"DISCORD_TOKEN": "   "}).token == "from-file"  # blank does not count
    assert load_config(path, {}).token == "from-file"


def test_the_token_is_not_in_the_repr() -> None:
    assert "s3cret" not in repr(Config(token="s3cret"))


def test_tiempo_config_names_the_file_and_an_explicit_path_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    named = write(tmp_path, "turn_limit_minutes = 7\n", "named.toml")
    given = write(tmp_path, "turn_limit_minutes = 9\n", "given.toml")
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "turn_limit_minutes = 11\n")  # ./tiempo.toml
    assert load_config(None, {"TIEMPO_CONFIG": named}).turn_limit_minutes == 7
    assert load_config(given, {"TIEMPO_CONFIG": named}).turn_limit_minutes == 9
    config = load_config(None, {})
    assert (config.turn_limit_minutes, config.source) == (11, "tiempo.toml")
    assert config.database == os.path.join(str(tmp_path), "tiempo.sqlite3")


@pytest.mark.parametrize(("text", "key", "hint"), [
    ('tokn = "x"\n', "tokn", "unknown key"),
    ("[discord]\ntoken = 'x'\n", "discord", "unknown key"),
    ("token = 12\n", "token", "string"),
    ("database = ''\n", "database", "file path"),
    ("database = 'mysql://db/tiempo'\n", "database", "postgresql:// URL"),
    ("guilds = 123\n", "guilds", "list of server ids"),
    ("guilds = ['123']\n", "guilds", "without quotes"),
    ("guilds = [true]\n", "guilds", "numbers"),
    ("turn_limit_minutes = -1\n", "turn_limit_minutes", "0 or more"),
    ("turn_limit_minutes = 1.5\n", "turn_limit_minutes", "whole number"),
    ("turn_limit_minutes = true\n", "turn_limit_minutes", "whole number"),
    ("log_level = 'LOUD'\n", "log_level", "DEBUG, INFO"),
    ("ai_think_seconds = 0\n", "ai_think_seconds", "greater than 0"),
    ("ai_think_seconds = 'fast'\n", "ai_think_seconds", "number of seconds"),
    ("ai_think_seconds = inf\n", "ai_think_seconds", "number of seconds"),
    ("ai_processes = 0\n", "ai_processes", "from 1 to 8"),
    ("ai_processes = 2.5\n", "ai_processes", "whole number"),
    ("ai_processes = true\n", "ai_processes", "whole number"),
])
def test_unknown_keys_and_wrong_types_name_the_file_and_the_key(tmp_path: Path, text: str, key: str,
                                                                hint: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path, {"DISCORD_TOKEN": "t"})
    message = str(err.value)
    assert message.startswith(f"{path}: ") and f"'{key}'" in message and hint in message
    assert isinstance(err.value, ValueError)


def test_syntax_errors_and_missing_files_name_the_file(tmp_path: Path) -> None:
    bad = write(tmp_path, "token = \n")
    with pytest.raises(ConfigError, match=f"^{bad}: not valid TOML"):
        load_config(bad, {})
    missing = str(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match=r"nope\.toml: config file not found"):
        load_config(missing, {})
    with pytest.raises(ConfigError, match=r"nope\.toml: config file not found"):
        load_config(None, {"TIEMPO_CONFIG": missing})


def test_shard_settings_from_the_file_and_the_environment_and_which_servers_a_shard_owns(tmp_path: Path) -> None:
    path = write(tmp_path, "shard_count = 2\nshard_id = 1\n")
    config = load_config(path, {})
    assert (config.shard_count, config.shard_id) == (2, 1)
    odd, even = 1 << 22, 2 << 22  # Discord's shard of a server: (id >> 22) % shard_count
    assert config.owns(odd) and not config.owns(even)
    assert load_config(path, {"TIEMPO_SHARD_ID": "0"}).owns(even)
    assert Config().owns(odd) and Config().owns(even)  # no sharding: every server
    with pytest.raises(ConfigError) as bad:  # each named as it was set: the variable, the file's key
        load_config(path, {"TIEMPO_SHARD_ID": "2"})
    assert str(bad.value) == (f"TIEMPO_SHARD_ID=2 is out of range: with shard_count = 2 (in {path}) the shard id "
                              "must be from 0 to 1")
    with pytest.raises(ConfigError) as bad:
        load_config(path, {"TIEMPO_SHARD_COUNT": "1"})
    assert str(bad.value) == (f"shard_id = 1 (in {path}) is out of range: with TIEMPO_SHARD_COUNT=1 the shard id "
                              "must be 0")
    with pytest.raises(ConfigError) as bad:
        load_config(None, {"TIEMPO_SHARD_ID": "1"})
    assert str(bad.value) == ("TIEMPO_SHARD_ID=1 needs the number of shard processes: shard_count in the file, "
                              "or TIEMPO_SHARD_COUNT")
    with pytest.raises(ConfigError) as bad:  # said as the variable is set, not as the file's key
        load_config(path, {"TIEMPO_SHARD_COUNT": "two"})
    assert str(bad.value) == ("the environment variable TIEMPO_SHARD_COUNT must be a whole number of shards, 0 (no "
                              "sharding) or more, like TIEMPO_SHARD_COUNT=2")
    with pytest.raises(ConfigError, match=r"^shard_id = 1 \(in .*other\.toml\) needs the number of shard processes"):
        load_config(write(tmp_path, "shard_id = 1\n", "other.toml"), {})


def test_default_ai_processes_is_one_per_core_at_most_two(monkeypatch: pytest.MonkeyPatch) -> None:
    for cores, expected in ((0, 1), (1, 1), (2, 2), (16, 2)):
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid, c=cores: set(range(c)), raising=False)
        assert default_ai_processes() == expected
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    for count, expected in ((None, 1), (1, 1), (8, 2)):
        monkeypatch.setattr(os, "cpu_count", lambda c=count: c)
        assert default_ai_processes() == expected


def test_the_settings_allow_the_processes_the_ai_allows() -> None:
    assert MAX_AI_PROCESSES == MAX_WORKERS
    assert Config().ai_processes <= MAX_WORKERS


def test_the_settings_are_read_without_importing_the_ai() -> None:
    """The AI's process settings live in bot.config, so the config and the console can read them
    without loading the AI (issue 18, point 8)."""
    code = ("import sys, bot.config; assert bot.config.default_ai_processes() >= 1; "
            "print(sorted(m for m in sys.modules if m.startswith('bot.ai')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_reminder_minutes_is_a_whole_number_of_minutes(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, "reminder_minutes = 0\n"), {}).reminder_minutes == 0
    with pytest.raises(ConfigError, match=r"'reminder_minutes' must be a whole number of minutes, 0 or more"):
        load_config(write(tmp_path, "reminder_minutes = -1\n"), {})


def test_a_bad_shard_id_is_said_as_it_was_set(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as bad:
        load_config(write(tmp_path, "shard_count = 2\nshard_id = -1\n"), {})
    assert str(bad.value).endswith("'shard_id' must be a whole number, 0 or more, below the number of shards, like "
                                   "shard_id = 0")
    with pytest.raises(ConfigError) as bad:
        load_config(None, {"TIEMPO_SHARD_ID": "one"})
    assert str(bad.value) == ("the environment variable TIEMPO_SHARD_ID must be a whole number, 0 or more, below the "
                              "number of shards, like TIEMPO_SHARD_ID=0")
