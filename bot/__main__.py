"""Entry point: ``tiempo-bot`` or ``python -m bot``.

``tiempo-bot`` runs the Discord bot (token from ``DISCORD_TOKEN`` or the config file);
``tiempo-bot console`` plays at a table in the terminal; ``tiempo-bot selfplay`` watches AI players;
``tiempo-bot copy-games SOURCE DEST`` copies every game to another database; ``tiempo-bot ratings
--rebuild`` works the ratings out again from the stored games.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import sys

from .config import Config, ConfigError, load_config
from .loop import EventLoopError, wanted_loop

NO_TOKEN = """\
Tiempo needs a Discord bot token to go online.

  1. Open https://discord.com/developers/applications and press "New Application".
  2. In "Bot", press "Reset Token" and copy the token.
  3. In "Installation" (or OAuth2), the bot needs the scopes "bot" and "applications.commands";
     once it runs, it logs the exact invite link with the permissions it needs.
  4. Start Tiempo with it:   DISCORD_TOKEN=<your token> {prog}
     (or copy config.example.toml to tiempo.toml and put the token there)

Try the game offline meanwhile, with no Discord at all:

  {prog} console{pad}# a table in this terminal: you against two AI players
  {prog} selfplay --players 4{pad2}# watch four AI players play a whole game
"""


def prog() -> str:
    """How to start this program again from where it was started: ``tiempo-bot`` if that is what the
    shell finds, else its path (``.venv/bin/tiempo-bot`` in a virtual environment not activated)."""
    me = sys.argv[0] if os.path.basename(sys.argv[0]) == "tiempo-bot" else \
        os.path.join(os.path.dirname(sys.executable), "tiempo-bot")
    found = shutil.which("tiempo-bot")
    if found is not None and os.path.realpath(found) == os.path.realpath(me):
        return "tiempo-bot"
    return me if os.path.exists(me) else "tiempo-bot"


def no_token() -> str:
    """What to do without a token, with the commands as this shell runs them."""
    name = prog()
    return NO_TOKEN.format(prog=name, pad=" " * max(1, 30 - len(name)), pad2=" " * max(1, 17 - len(name)))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tiempo-bot", description="Tiempo: play Khronos on Discord.")
    parser.add_argument("--config", help="the config file (default: $TIEMPO_CONFIG, else ./tiempo.toml)")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run the Discord bot (the default)")
    from . import console, selfplay  # a broken import shows as itself, not as argparse's "invalid choice"
    from .storage import copy

    copy.add_arguments(sub.add_parser("copy-games", help="copy every game to another database (Tiempo stopped)"))
    from . import rebuild

    rebuild.add_arguments(sub.add_parser("ratings", help="the players' ratings; --rebuild works them out again "
                                                         "from the stored games"))
    console.add_arguments(sub.add_parser("console", help="play at a table in the terminal"))
    selfplay.add_arguments(sub.add_parser("selfplay", help="watch AI players play a whole game"))
    return parser


def configure_logging(level: int) -> None:
    """Log to stderr at ``level``. discord.py and aiosqlite stay at INFO or above even when ``level`` is
    DEBUG: their debug lines carry whole request bodies and every SQL statement with its values, and
    those include private hands, the draw pile and the random state."""
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for name in ("discord", "aiosqlite"):
        logging.getLogger(name).setLevel(max(logging.INFO, level))


def database_problem(database: str) -> str | None:
    """Why the database cannot be used, in one sentence, or None once it is open and migrated (see
    ``bot.storage.check``): checked before the bot goes online."""
    from .storage.check import DatabaseUnusableError, check_database

    try:
        asyncio.run(check_database(database))
    except DatabaseUnusableError as err:
        return str(err)
    return None


def run_bot(config_path: str | None) -> int:
    """Check the settings and the database, then run the Discord bot until it is stopped. Returns the exit
    code."""
    try:
        config = load_config(config_path)
    except ConfigError as err:
        sys.stderr.write(f"{err}\n")
        return 2
    if not config.token:
        sys.stderr.write(no_token())
        return 2
    try:
        wanted_loop()
    except EventLoopError as err:
        sys.stderr.write(f"{err}\n")
        return 2
    problem = database_problem(config.database)
    if problem is not None:
        sys.stderr.write(f"{problem}\n")
        return 2
    return go_online(config)


def go_online(config: Config) -> int:
    """Connect to Discord and serve until stopped. Returns the exit code."""
    from .discord import serve

    configure_logging(config.log_level_number)
    return serve(config)


def main(argv: list[str] | None = None) -> int:
    """Start the bot or an offline table. Returns the process exit code."""
    args = _parser().parse_args(argv)
    if args.command in (None, "run"):
        return run_bot(args.config)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
