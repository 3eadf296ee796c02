"""``tiempo-bot ratings``: what the ratings hold, and ``--rebuild``, which works every rating out again
from the stored games (bot/service/community.py): the finished games not yet recorded are recorded,
then every rated game, in the order the games finished, changes the ratings again, replacing the old
ones in one transaction. Run it after a change of the rating model, or to check the ratings; stop
Tiempo first (a game finishing meanwhile would be counted in the old ratings only)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time

from .config import ConfigError, load_config
from .service.community import Community
from .service.games import Games
from .storage import Storage
from .storage.backend import is_postgres_url, without_password
from .storage.check import DatabaseUnusableError, check_database
from .storage.community import PlayerRecords


async def ratings(database: str, *, rebuild: bool) -> str:
    """Rebuild the ratings of ``database`` if asked; what they hold, in a sentence. Raises
    DatabaseUnusableError (also for a SQLite file that does not exist: asked about ratings, Tiempo
    does not create an empty database and report none)."""
    if not is_postgres_url(database) and not os.path.isfile(database):
        raise DatabaseUnusableError(f"There is no database file {database}: name the one Tiempo uses "
                                    "(--database, or run this where its tiempo.toml is).")
    await check_database(database)
    storage = await Storage.open(database)
    try:
        done = ""
        if rebuild:
            began = time.perf_counter()
            games, _ = await Community(Games(storage, time.time)).rebuild(
                say=lambda line: print(line, flush=True))
            done = (f"Rebuilt from {games} rated game{'' if games == 1 else 's'} in "
                    f"{time.perf_counter() - began:.1f} s. ")
        rated = await PlayerRecords(storage.database).all_ratings()
        servers = len({r.guild_id for r in rated})
        name = without_password(database) if is_postgres_url(database) else database
        return (f"{done}{name} holds {len(rated)} rating{'' if len(rated) == 1 else 's'} on {servers} "
                f"server{'' if servers == 1 else 's'}.")
    finally:
        await storage.close()


def main(args: argparse.Namespace) -> int:
    """``tiempo-bot ratings [--rebuild]``. Returns the exit code."""
    try:
        database = args.database or load_config(args.config).database
        print(asyncio.run(ratings(database, rebuild=args.rebuild)))
    except (ConfigError, DatabaseUnusableError) as err:
        sys.stderr.write(f"{err}\n")
        return 2
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``tiempo-bot ratings``'s options."""
    parser.add_argument("--rebuild", action="store_true",
                        help="work every rating out again from the stored games (Tiempo stopped)")
    parser.add_argument("--database", help="the database (default: the config file's, or TIEMPO_DATABASE)")
    parser.set_defaults(func=main)
