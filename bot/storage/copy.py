"""Copy every game from one database to another: a SQLite file to PostgreSQL when a host grows to
several processes (or back, or to a new file). ``tiempo-bot copy-games SOURCE DEST``.

Games keep their ids (the buttons on old messages carry them), their logs of actions, their seats,
turn deadlines and unsent posts, and the players' results, ratings, rating changes and course progress go with them;
the destination's id counters continue after the highest copied id. Both databases are checked
first, as at start-up, and migrated to the current schema; the destination must hold no game. The
copy is one transaction in the destination: all of it or nothing. Then every game, action, post,
result and rating is read back from both and compared. Tiempo must be stopped while it runs (a
move made meanwhile would be in the source only).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from .backend import has_password, is_postgres_url, without_password
from .check import DatabaseUnusableError, check_database
from .community import ORDER as RECORD_ORDER
from .community import TABLES as RECORD_TABLES
from .notify import LETTER_COLUMNS, SETTING_COLUMNS
from .progress import PROGRESS_COLUMNS
from .records import Status, StorageError
from .schema import ACTION_COLUMNS, GAME_COLUMNS, Row, action_of, game_of
from .store import Storage

OUTBOX_COLUMNS = "id, game_id, guild_id, channel_id, body, created_at, pictures"
#: what the players keep beside their games: results, ratings and rating changes (bot.storage.community),
#: and what each person learnt of the course (bot.storage.progress), with the order rows are read in
TABLES = {**RECORD_TABLES, "progress": PROGRESS_COLUMNS}
ORDER = {**RECORD_ORDER, "progress": "user_id, item"}
#: how each person is told of their turn, and the direct messages waiting (``/tiempo notify``): copied
#: whole, in this order, and compared
NOTICES = {"notify_settings": (SETTING_COLUMNS, "user_id"), "direct_outbox": (LETTER_COLUMNS, "id")}
#: games read, written and compared at a time (each with its actions), between two progress lines
CHUNK = 500


class CopyError(StorageError):
    """The copy cannot be made (nothing was written), or its read-back found a difference (empty the
    destination and copy again); ``str()`` says which and what to do."""


@dataclass(frozen=True)
class Copied:
    """What was copied."""

    games: int
    playing: int
    actions: int
    posts: int
    #: rows of what the players keep: results, ratings, rating changes and the course's progress
    records: int


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _name(target: str) -> str:
    return without_password(target) if is_postgres_url(target) else target


def next_step(source: str, dest: str) -> str:
    """What the host does after a copy: point the bot at ``dest`` (a URL's password left out, and said
    to be) and keep ``source`` for now."""
    password = " (with its password, left out here)" if is_postgres_url(dest) and has_password(dest) else ""
    return (f"Now set database = \"{_name(dest)}\"{password} in the config file (or TIEMPO_DATABASE), start Tiempo, "
            f"and keep {_name(source)} until you have seen the games go on.")


async def copy_games(source: str, dest: str, say: Callable[[str], None] = lambda line: None) -> Copied:
    """Copy every game of ``source`` into ``dest`` (a path or a ``postgresql://`` URL each), telling
    ``say`` how far it got. Raises CopyError (or DatabaseUnusableError) with a sentence to act on.

    Games go ``CHUNK`` at a time, each chunk with its actions, so the memory it takes does not grow
    with the number of games."""
    _refuse_same_or_missing(source, dest)
    for target in (source, dest):
        await check_database(target)  # one sentence if either cannot be used; migrates both
    src, dst = await Storage.open(source), await Storage.open(dest)
    try:
        held = await dst.count()
        if held:
            raise CopyError(f"{_name(dest)} already holds {_count(held, 'game')}: copy into an empty "
                            "database, so that every game keeps its id.")
        orphans = await _one(src, "SELECT COUNT(*) FROM actions a LEFT JOIN games g ON g.id = a.game_id "
                                  "WHERE g.id IS NULL")
        if orphans:
            raise CopyError(f"{_name(source)} holds {_count(orphans, 'action')} of games it does not have: "
                            "it is damaged; copy it from a backup instead.")
        total = Copied(await src.count(), await src.count(Status.PLAYING),
                       await _one(src, "SELECT COUNT(*) FROM actions"), await _one(src, "SELECT COUNT(*) FROM outbox"),
                       sum([await _one(src, f"SELECT COUNT(*) FROM {table}") for table in TABLES]))
        say(f"Copying {_count(total.games, 'game')}, {_count(total.actions, 'action')}, "
            f"{_count(total.posts, 'unsent post')} and {_count(total.records, 'row')} of results, ratings and "
            f"the course's progress from {_name(source)} to {_name(dest)}…")
        postgres = dst.database.dialect == "postgresql"
        given = " OVERRIDING SYSTEM VALUE" if postgres else ""  # keep the ids: an identity column makes its own
        counters = await _next_ids(src)
        games_done = actions_done = 0
        try:
            async with dst.database.transaction() as tx:

                async def insert(table: str, columns: str, rows: list[Row]) -> None:
                    width = len(columns.split(","))
                    sql = (f"INSERT INTO {table} ({columns}){given if table != 'actions' else ''} "
                           f"VALUES ({', '.join('?' * width)})")
                    for row in rows:
                        await tx.execute(sql, tuple(row[k] for k in range(width)))

                async for games, actions in _chunks(src):
                    await insert("games", GAME_COLUMNS, games)
                    await insert("actions", ACTION_COLUMNS, actions)
                    games_done, actions_done = games_done + len(games), actions_done + len(actions)
                    if games_done < total.games:
                        say(f"  {games_done} of {total.games} games, {actions_done} of {total.actions} actions")
                posts = await src.database.fetchall(f"SELECT {OUTBOX_COLUMNS} FROM outbox ORDER BY id")
                await insert("outbox", OUTBOX_COLUMNS, posts)
                records_done = 0
                for table, columns in TABLES.items():
                    async for rows in _records(src, table):
                        await insert(table, columns, rows)
                        records_done += len(rows)
                for table, (columns, order) in NOTICES.items():
                    await insert(table, columns, await src.database.fetchall(
                        f"SELECT {columns} FROM {table} ORDER BY {order}"))
                if (games_done, actions_done, len(posts), records_done) != (total.games, total.actions, total.posts,
                                                                             total.records):
                    raise CopyError(f"{_name(source)} changed during the copy (is Tiempo still running on it?); "
                                    "nothing was written. Stop Tiempo and copy again.")
                # the counters go on from the source's: a new game, and a new post's nonce, never take an
                # id the old database gave (a sent post is deleted, but Discord remembers its nonce)
                for table, next_id in counters.items():
                    if postgres:
                        await tx.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), GREATEST(?, "
                                         f"(SELECT COALESCE(MAX(id), 0) + 1 FROM {table})), false)", (next_id,))
                    else:
                        await tx.execute("DELETE FROM sqlite_sequence WHERE name = ?", (table,))
                        await tx.execute(f"INSERT INTO sqlite_sequence (name, seq) SELECT ?, MAX(? - 1, "
                                         f"COALESCE(MAX(id), 0)) FROM {table}", (table, next_id))
        except StorageError:
            raise
        except Exception as err:  # what the destination refused: the transaction wrote nothing
            raise CopyError(f"{_name(dest)} refused the copy ({err}); nothing was written to it.") from err
        say("Reading every game back from both databases…")
        await _compare(src, dst)
        return total
    finally:
        await src.close()
        await dst.close()


def _refuse_same_or_missing(source: str, dest: str) -> None:
    """Raise CopyError when there is no source file, or the source and the destination are one database."""
    if not is_postgres_url(source) and not os.path.isfile(source):
        raise CopyError(f"There is no database file {source} to copy from.")
    if _name(source) == _name(dest) or (not is_postgres_url(source) and not is_postgres_url(dest)
                                        and os.path.exists(dest) and os.path.samefile(source, dest)):
        raise CopyError("The source and the destination are the same database.")


async def _one(storage: Storage, sql: str) -> int:
    """The number a ``SELECT COUNT(*)`` query answers."""
    return int((await storage.database.fetchall(sql))[0][0])


async def _chunks(storage: Storage) -> AsyncIterator[tuple[list[Row], list[Row]]]:
    """The games' rows, ``CHUNK`` games at a time in the order of their ids, each chunk with its games'
    actions."""
    last = 0
    while games := await storage.database.fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE id > ? ORDER BY id LIMIT ?", (last, CHUNK)):
        first, last = games[0]["id"], games[-1]["id"]
        actions = await storage.database.fetchall(
            f"SELECT {ACTION_COLUMNS} FROM actions WHERE game_id >= ? AND game_id <= ? ORDER BY game_id, seq",
            (first, last))
        yield games, actions


async def _records(storage: Storage, table: str) -> AsyncIterator[list[Row]]:
    """The rows of one of the players' tables (``bot.storage.community``), in order: those of
    ``CHUNK`` games at a time, or the ratings a server at a time."""
    columns, order = TABLES[table], ORDER[table]
    if table == "progress":  # ``CHUNK`` people at a time
        rows = await storage.database.fetchall("SELECT DISTINCT user_id FROM progress ORDER BY user_id")
        users = [r[0] for r in rows]
        for i in range(0, len(users), CHUNK):
            span = (users[i], users[min(i + CHUNK, len(users)) - 1])
            yield await storage.database.fetchall(
                f"SELECT {columns} FROM progress WHERE user_id >= ? AND user_id <= ? ORDER BY {order}", span)
        return
    if table == "ratings":
        for guild in await storage.database.fetchall("SELECT DISTINCT guild_id FROM ratings ORDER BY guild_id"):
            yield await storage.database.fetchall(f"SELECT {columns} FROM ratings WHERE guild_id = ? ORDER BY {order}",
                                                  (guild[0],))
        return
    last = 0
    while games := await storage.database.fetchall("SELECT id FROM games WHERE id > ? ORDER BY id LIMIT ?",
                                                   (last, CHUNK)):
        first, last = games[0]["id"], games[-1]["id"]
        yield await storage.database.fetchall(
            f"SELECT {columns} FROM {table} WHERE game_id >= ? AND game_id <= ? ORDER BY {order}", (first, last))


async def _next_ids(storage: Storage) -> dict[str, int]:
    """The id the next game and the next post would get in ``storage`` (its counters, which go on past
    deleted rows)."""
    out: dict[str, int] = {}
    for table in ("games", "outbox", "direct_outbox"):
        if storage.database.dialect == "postgresql":
            rows = await storage.database.fetchall(
                f"SELECT pg_sequence_last_value(pg_get_serial_sequence('{table}', 'id'))")
        else:
            rows = await storage.database.fetchall("SELECT seq FROM sqlite_sequence WHERE name = ?", (table,))
        last = rows[0][0] if rows and rows[0][0] is not None else 0
        out[table] = int(last) + 1
    return out


async def _compare(src: Storage, dst: Storage) -> None:
    """Read everything back from both databases, a chunk of games at a time, as records (as Tiempo reads
    them); raise CopyError on the first difference."""
    theirs, ours = _chunks(src), _chunks(dst)
    async for (their_games, their_actions) in theirs:
        our_games, our_actions = await anext(ours, ([], []))
        if [game_of(r) for r in their_games] != [game_of(r) for r in our_games]:
            raise CopyError("The copied games differ from the source's; the destination should be emptied and the "
                            "copy made again.")
        if [action_of(r) for r in their_actions] != [action_of(r) for r in our_actions]:
            first, last = their_games[0]["id"], their_games[-1]["id"]
            raise CopyError(f"The actions of games #{first} to #{last} differ after the copy; the destination should "
                            "be emptied and the copy made again.")
    if await anext(ours, None) is not None:
        raise CopyError("The destination holds games the source does not; it should be emptied and the copy made "
                        "again.")
    for table in TABLES:
        ours_rows = _records(dst, table)
        async for their_rows in _records(src, table):
            width = len(TABLES[table].split(","))
            if ([tuple(r[k] for k in range(width)) for r in their_rows]
                    != [tuple(r[k] for k in range(width)) for r in await anext(ours_rows, [])]):
                raise CopyError(f"The {table.replace('_', ' ')} differ after the copy; the destination should be "
                                "emptied and the copy made again.")
    for table, (columns, order) in NOTICES.items():
        sql, width = f"SELECT {columns} FROM {table} ORDER BY {order}", len(columns.split(","))
        if ([tuple(r[k] for k in range(width)) for r in await src.database.fetchall(sql)]
                != [tuple(r[k] for k in range(width)) for r in await dst.database.fetchall(sql)]):
            raise CopyError(f"The {table.replace('_', ' ')} differ after the copy; the destination should be "
                            "emptied and the copy made again.")
    for guild_id, channel_id in await src.posts.channels():
        if await src.posts.pending(channel_id, limit=1_000_000) != await dst.posts.pending(channel_id, limit=1_000_000):
            raise CopyError(f"The unsent posts of channel {channel_id} (server {guild_id}) differ after the copy.")


def main(source: str, dest: str) -> int:
    """``tiempo-bot copy-games``: copy, print what was copied and what to do next. Returns the exit code."""
    try:
        copied = asyncio.run(copy_games(source, dest, say=lambda line: print(line, flush=True)))
    except (CopyError, DatabaseUnusableError) as err:
        sys.stderr.write(f"{err}\n")
        return 2
    print(f"Copied {_count(copied.games, 'game')} ({copied.playing} being played), {_count(copied.actions, 'action')}, "
          f"{_count(copied.posts, 'unsent post')} and {_count(copied.records, 'row')} of results, ratings and the "
          "course's progress; each read back and found the same.")
    print(next_step(source, dest))
    return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``tiempo-bot copy-games``'s arguments."""
    parser.add_argument("source", help="the database to copy from: a SQLite file or a postgresql:// URL")
    parser.add_argument("dest", help="the empty database to copy into: a SQLite file or a postgresql:// URL")
    parser.set_defaults(func=lambda args: main(args.source, args.dest))
