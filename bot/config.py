"""The bot's settings: a TOML file (``config.example.toml`` documents every key) and the environment.

Where the file is: the ``path`` given, else the file named by ``TIEMPO_CONFIG``, else ``tiempo.toml`` in
the current directory if there is one, else no file (every setting at its default). ``DISCORD_TOKEN``,
when set and not blank, overrides the file's token, and ``TIEMPO_DATABASE`` the file's database;
``TIEMPO_SHARD_COUNT`` and ``TIEMPO_SHARD_ID`` override ``shard_count`` and ``shard_id`` (one unit
file for every shard process). The database is a SQLite file's path or a ``postgresql://`` URL. A
relative path in the file is taken relative to the config file's folder (or to the current directory
when there is no file); one in ``TIEMPO_DATABASE`` relative to the current directory.
"""

from __future__ import annotations

import logging
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .storage.backend import is_postgres_url

#: the file looked for in the current directory when neither a path nor TIEMPO_CONFIG is given
DEFAULT_FILE = "tiempo.toml"
DEFAULT_DATABASE = "tiempo.sqlite3"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
#: the most processes the strong AI's play-outs may be asked to use (the setting and the console's and
#: selfplay's ``--processes`` check it; ``bot.ai`` refuses more, and a test checks the two agree)
MAX_AI_PROCESSES = 8


def default_ai_processes() -> int:
    """How many processes the strong AI's play-outs use unless told: one per core this process may run
    on (a container's CPU limit included, where the system reports it), at most two (more measured no
    stronger for the memory: each process holds its own copy of the engine). Read here, not in
    ``bot.ai``, so that the settings and the console know it without importing the AI."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(2, cores))


class ConfigError(ValueError):
    """A config file that cannot be used; ``str()`` names the file and the key and says what to write."""


@dataclass(frozen=True)
class Config:
    """Every setting of the bot, checked; defaults are what an empty file means."""

    #: the bot token (Discord developer portal → Bot → Reset Token); None when neither file nor env has one
    token: str | None = field(default=None, repr=False)
    #: path of the SQLite database file, or a postgresql:// URL (not in the repr: it may hold a password)
    database: str = field(default=DEFAULT_DATABASE, repr=False)
    #: guilds (servers) whose commands are synced instantly at start-up; global sync can take an hour
    guilds: tuple[int, ...] = ()
    #: default time a player has for a turn, in minutes; 0 turns the limit off
    turn_limit_minutes: int = 0
    #: minutes a player who chose direct messages (/tiempo notify dm) has to act on their turn before
    #: the bot sends one; 0 sends it at once
    reminder_minutes: int = 10
    #: logging level name
    log_level: str = "INFO"
    #: how long a strong AI player may think about one turn, in seconds
    ai_think_seconds: float = 2.0
    #: how many processes a strong AI player's look-ahead uses at once (default: one per core, at most 2)
    ai_processes: int = field(default_factory=default_ai_processes)
    #: Discord shards in all (0: no sharding, this one process serves every server)
    shard_count: int = 0
    #: the shard this process runs (0 to shard_count - 1); each shard is one process on the same database
    shard_id: int = 0
    #: the file these settings came from, or None when no file was read
    source: str | None = None

    def __post_init__(self) -> None:
        if self.shard_count and not 0 <= self.shard_id < self.shard_count:
            raise ConfigError(f"shard_id {self.shard_id} is not one of the {self.shard_count} shards "
                              f"(0 to {self.shard_count - 1})")
        if not self.shard_count and self.shard_id:
            raise ConfigError(f"shard_id {self.shard_id} needs shard_count (the number of shard processes)")

    def owns(self, guild_id: int) -> bool:
        """Whether this process serves the server ``guild_id``: Discord gives a server to shard
        ``(guild_id >> 22) % shard_count``, and this process runs ``shard_id``. Without sharding, every server."""
        return not self.shard_count or (guild_id >> 22) % self.shard_count == self.shard_id

    @property
    def log_level_number(self) -> int:
        """The logging level as the ``logging`` module's number."""
        return logging.getLevelNamesMapping()[self.log_level]


@dataclass(frozen=True)
class _Setting:
    """A setting as the host wrote it: a key of a file (``shard_count = 2`` in ``tiempo.toml``) or an
    environment variable (``TIEMPO_SHARD_COUNT=2``), so that what is wrong with it is said as it is written."""

    #: the key, or the variable's name
    name: str
    #: the file, or None for an environment variable
    file: str | None = None

    def must(self, what: str, *examples: str) -> ConfigError:
        """``tiempo.toml: 'shard_count' must be …, like shard_count = 2`` (or ``TIEMPO_SHARD_COUNT must be
        …, like TIEMPO_SHARD_COUNT=2``): the error, with an example of each value in ``examples``."""
        if self.file is None:
            like = " or ".join(f"{self.name}={x}" for x in examples)
            return ConfigError(f"the environment variable {self.name} must {what}, like {like}")
        like = " or ".join(f"{self.name} = {x}" for x in examples)
        return ConfigError(f"{self.file}: '{self.name}' must {what}, like {like}")


def _token(at: _Setting, value: object) -> str | None:
    """A token: a string; blank means none."""
    if not isinstance(value, str):
        raise at.must("be a string in quotes", '"MTA4..."')
    return value.strip() or None


def _database(at: _Setting, value: object) -> str:
    """A database: a SQLite file's path, or a postgresql:// URL (a non-blank string either way)."""
    text = value.strip() if isinstance(value, str) else ""
    if not text or ("://" in text and not is_postgres_url(text)):
        raise at.must("be a file path or a postgresql:// URL in quotes", f'"{DEFAULT_DATABASE}"',
                      '"postgresql://tiempo:password@localhost/tiempo"')
    return text


def _guilds(at: _Setting, value: object) -> tuple[int, ...]:
    """Guild ids: a list of positive integers."""
    if not isinstance(value, list) or not all(isinstance(g, int) and not isinstance(g, bool) and g > 0
                                                for g in value):
        raise at.must("be a list of server ids written as numbers without quotes", "[123456789012345678]")
    return tuple(value)


def _turn_limit(at: _Setting, value: object) -> int:
    """A turn limit: a whole number of minutes, 0 or more."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise at.must("be a whole number of minutes, 0 or more (0 = no limit)", "60")
    return value


def _reminder(at: _Setting, value: object) -> int:
    """The minutes before a direct message reminds a player of their turn: a whole number, 0 or more."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise at.must("be a whole number of minutes, 0 or more (0 = at once)", "10")
    return value


def _log_level(at: _Setting, value: object) -> str:
    """A log level: one of the standard names, any case."""
    if not isinstance(value, str) or value.strip().upper() not in LOG_LEVELS:
        raise at.must(f"be one of {', '.join(LOG_LEVELS)}", '"INFO"')
    return value.strip().upper()


def _processes(at: _Setting, value: object) -> int:
    """A number of processes: a whole number from 1 to ``MAX_AI_PROCESSES``."""
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_AI_PROCESSES:
        raise at.must(f"be a whole number from 1 to {MAX_AI_PROCESSES}", "2")
    return value


def _seconds(at: _Setting, value: object) -> float:
    """A duration: a positive number of seconds."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value < float("inf"):
        raise at.must("be a number of seconds greater than 0", "2.5")
    return float(value)


def _shard_count(at: _Setting, value: object) -> int:
    """A number of shards: a whole number, 0 (no sharding) or more."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise at.must("be a whole number of shards, 0 (no sharding) or more", "2")
    return value


def _shard_id(at: _Setting, value: object) -> int:
    """A shard id: a whole number, 0 or more (checked against the count once both are known)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise at.must("be a whole number, 0 or more, below the number of shards", "0")
    return value


#: key in the file -> how its value is checked and converted
_KEYS: dict[str, Callable[[_Setting, object], object]] = {
    "token": _token,
    "database": _database,
    "guilds": _guilds,
    "turn_limit_minutes": _turn_limit,
    "reminder_minutes": _reminder,
    "log_level": _log_level,
    "ai_think_seconds": _seconds,
    "ai_processes": _processes,
    "shard_count": _shard_count,
    "shard_id": _shard_id,
}

#: environment variables that override a key of the file (for one unit file per shard process)
_ENV_KEYS = {"TIEMPO_SHARD_COUNT": "shard_count", "TIEMPO_SHARD_ID": "shard_id"}


def find_config_file(path: str | None, environ: Mapping[str, str]) -> str | None:
    """The config file to read: ``path``, else ``TIEMPO_CONFIG``, else ``./tiempo.toml`` if it exists, else None."""
    if path:
        return path
    named = environ.get("TIEMPO_CONFIG", "").strip()
    if named:
        return named
    return DEFAULT_FILE if os.path.isfile(DEFAULT_FILE) else None


def read_config_file(path: str) -> dict[str, object]:
    """The checked settings of one file, by field name. Raises ConfigError naming the file (and key)."""
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found (copy config.example.toml to start one)") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot read the config file ({err.strerror})") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not valid TOML: the file is not UTF-8 text") from None
    settings: dict[str, object] = {}
    for key, value in raw.items():
        check = _KEYS.get(key)
        if check is None:
            known = ", ".join(_KEYS)
            raise ConfigError(f"{path}: unknown key '{key}' (known keys: {known})")
        settings[key] = check(_Setting(key, path), value)
    return settings


def _check_shards(settings: Mapping[str, object], origins: Mapping[str, _Setting]) -> None:
    """The shard id against the shard count, each named as the host set it (in the file, or by an
    environment variable): ``TIEMPO_SHARD_ID=2 is out of range: with shard_count = 2 (in tiempo.toml)
    the shard id must be from 0 to 1``."""
    count, shard = settings.get("shard_count", 0), settings.get("shard_id", 0)
    assert isinstance(count, int) and isinstance(shard, int)

    def said(key: str, value: int) -> str:  # (a setting out of range was set: in the file, or by a variable)
        at = origins[key]
        return f"{at.name}={value}" if at.file is None else f"{key} = {value} (in {at.file})"

    if count and not 0 <= shard < count:
        ids = "0" if count == 1 else f"from 0 to {count - 1}"
        raise ConfigError(f"{said('shard_id', shard)} is out of range: with {said('shard_count', count)} the shard "
                          f"id must be {ids}")
    if not count and shard:
        raise ConfigError(f"{said('shard_id', shard)} needs the number of shard processes: shard_count in the "
                          f"file, or TIEMPO_SHARD_COUNT")


def load_config(path: str | None = None, environ: Mapping[str, str] | None = None) -> Config:
    """The bot's settings from the config file (see the module docstring for which) and ``environ``
    (``os.environ`` when None). Raises ConfigError for a missing or unreadable file, a TOML syntax error,
    an unknown key or a value of the wrong type (or a TIEMPO_DATABASE that is neither a path nor a
    postgresql:// URL); the message names the file (or the variable) and the key."""
    env = os.environ if environ is None else environ
    source = find_config_file(path, env)
    settings: dict[str, object] = read_config_file(source) if source is not None else {}
    database = str(settings.get("database", DEFAULT_DATABASE))
    if source is not None and not os.path.isabs(database) and not is_postgres_url(database):
        database = os.path.join(os.path.dirname(os.path.abspath(source)), database)
    env_database = env.get("TIEMPO_DATABASE", "").strip()
    if env_database:
        if "://" in env_database and not is_postgres_url(env_database):
            raise ConfigError("TIEMPO_DATABASE must be a file path or a postgresql:// URL, like "
                              "TIEMPO_DATABASE=postgresql://tiempo:password@localhost/tiempo")
        database = env_database
    settings["database"] = database
    env_token = env.get("DISCORD_TOKEN", "").strip()
    if env_token:
        settings["token"] = env_token
    origins = {key: _Setting(key, source) for key in _ENV_KEYS.values()}
    for name, key in _ENV_KEYS.items():
        value = env.get(name, "").strip()
        if value:
            try:
                number: object = int(value)
            except ValueError:
                number = value
            settings[key] = _KEYS[key](_Setting(name), number)
            origins[key] = _Setting(name)
    _check_shards(settings, origins)
    try:
        return Config(source=source, **settings)  # type: ignore[arg-type]
    except ConfigError as err:
        raise ConfigError(f"{source or 'the settings'}: {err}") from None
