"""The games as the service sees them, whichever database holds them.

A game is its creation record (guild, channel, opener, seed, options, seats), the ordered log of its
accepted actions, and a snapshot of its current state. The snapshot and the actions are opaque text to
this module (the rules engine's JSON and notation). Every change is one transaction that is committed
(durably) before the method returns, so a caller that tells players about an action only after
``append_action`` returned never announces an action a crash could lose. A change checks the game it
loaded inside its transaction (with the game's row locked where the database locks rows), so a stale
write is refused whichever process made it.

``Storage.open(target)`` opens a SQLite file (a path) or a PostgreSQL database (a ``postgresql://``
URL), applying the missing migrations. ``Storage.lock(game_id)`` gives the per-game lock that callers
hold around load → play → save so that two commands in one game never interleave: in this process, and
between processes on one database (shards) through the database's own lock of the game.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import socket
import uuid
import weakref
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Literal

from .backend import Database, Tx, is_postgres_url
from .notify import Notices
from .outbox import Body, Posted, PostQueue, queue_posts
from .progress import Progress
from .records import (
    KEEP,
    TRANSITIONS,
    ActionRecord,
    ChannelBusyError,
    DatabaseFaultError,
    GameBusyError,
    GameNotFoundError,
    GameRecord,
    SeatRecord,
    StaleSeqError,
    StandIn,
    Status,
    StatusError,
    _Keep,
)
from .schema import (
    ACTION_COLUMNS,
    BROKEN_LOGS,
    GAME_COLUMNS,
    action_of,
    game_of,
    now_or,
    options_json,
    seats_json,
    seed_columns,
    stand_ins_json,
)

log = logging.getLogger("tiempo.storage")

#: how long a command waits for a game another command holds before answering "busy", in seconds
#: (Discord wants an answer within 3)
BUSY_WAIT = 2.0


#: the largest id a game can have (both backends' ids are signed 64-bit integers)
MAX_ID = 2**63 - 1


def known(game_id: int) -> None:
    """Raise GameNotFoundError for an id no game can have (a forged button's may be any number): the
    database is not asked, and no driver overflows."""
    if not 1 <= game_id <= MAX_ID:
        raise GameNotFoundError(game_id)


class GameLock:
    """One hold of a game's lock (see ``Storage.lock``)."""

    def __init__(self, storage: Storage, game_id: int, memory: asyncio.Lock, wait: float) -> None:
        self.storage, self.game_id, self.memory, self.wait = storage, game_id, memory, wait

    async def __aenter__(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.wait
        try:
            async with asyncio.timeout(self.wait):
                await self.memory.acquire()
        except TimeoutError:
            raise GameBusyError(self.game_id) from None
        if not self.storage.shared:
            return
        try:  # a query in flight is never cancelled (a lock granted meanwhile would be lost track of)
            while not await self.storage.database.try_lock(self.game_id, self.storage.holder):
                if loop.time() >= deadline:
                    raise GameBusyError(self.game_id)
                await asyncio.sleep(0.05)
        except TimeoutError:  # the database did not answer within its lock query's time: a busy game
            self.memory.release()
            raise GameBusyError(self.game_id) from None
        except BaseException:
            self.memory.release()
            raise

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        try:
            if self.storage.shared:  # shielded: a command cancelled here must still give the lock back
                unlocking = asyncio.ensure_future(self.storage.database.unlock(self.game_id, self.storage.holder))
                unlocking.add_done_callback(self._unlocked)
                await asyncio.shield(unlocking)
        except Exception:
            pass  # told by _unlocked
        finally:
            self.memory.release()

    def _unlocked(self, unlocking: asyncio.Future[None]) -> None:
        if not unlocking.cancelled() and unlocking.exception() is not None:
            # the lock lapses or goes with its connection; the game is safe (stale writes fail)
            err = unlocking.exception()
            log.warning("could not give game #%s's lock back (%s)", self.game_id, err,
                        exc_info=None if isinstance(err, DatabaseFaultError) else err)



def _appended(game: GameRecord, seq: int, snapshot: str, at: float, status: Status | None,
              turn_deadline: float | Literal[_Keep.KEEP] | None,
              stand_ins: Sequence[StandIn] | Literal[_Keep.KEEP]) -> GameRecord:
    """``game`` as ``append_action``'s statements left it (not read back: a trip to the database less a
    move; a contract test compares the two)."""
    return dataclasses.replace(
        game, snapshot=snapshot, action_count=seq, updated_at=at,
        status=game.status if status is None else Status(status),
        turn_deadline=game.turn_deadline if turn_deadline is KEEP else turn_deadline,
        half_warned=game.half_warned if turn_deadline is KEEP else False,
        stand_ins=game.stand_ins if stand_ins is KEEP else tuple(StandIn.from_json(e.to_json()) for e in stand_ins))

class Storage:
    """The games: lobbies, seats, actions and snapshots, with a lock per game. Open with
    ``await Storage.open(path_or_url)``; close with ``await storage.close()`` (or use ``async with``)."""

    def __init__(self, database: Database, *, shared: bool = False) -> None:
        """Wrap an open database; use ``Storage.open``. ``shared``: other processes use the same database
        (shards), so a game's lock is also taken in the database (always on PostgreSQL)."""
        self.database = database
        self.path = database.name  # the file, or the URL without its password
        self._game_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._transaction = database.transaction
        self._fetchall = database.fetchall
        self.shared = shared or database.dialect == "postgresql"
        #: the posts stored with actions, until they are sent
        self.posts = PostQueue(database)
        #: what each person has learnt (the course's lessons, the tips)
        self.progress = Progress(database)
        #: how each person is told of their turn, and the direct messages waiting (``/tiempo notify``)
        self.notices = Notices(database)
        #: this process's name in the database's locks
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    @classmethod
    async def open(cls, target: str, *, shared: bool = False) -> Storage:
        """Open the games database ``target`` names, applying the missing migrations: a ``postgresql://``
        URL (see ``PostgresDatabase.open``), else the path of a SQLite file, created if needed (see
        ``SQLiteDatabase.open``). ``shared``: several processes use it (see ``Storage``)."""
        if is_postgres_url(target):
            from .postgres import PostgresDatabase

            return cls(await PostgresDatabase.open(target), shared=shared)
        from .sqlite import SQLiteDatabase

        return cls(await SQLiteDatabase.open(target), shared=shared)

    async def close(self) -> None:
        """Close the database (idempotent)."""
        await self.database.close()

    async def __aenter__(self) -> Storage:
        """``async with await Storage.open(path) as storage``."""
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        """Close on leaving the block."""
        await self.close()

    def lock(self, game_id: int, *, wait: float = BUSY_WAIT) -> GameLock:
        """The lock serialising commands in game ``game_id``: ``async with storage.lock(game.id): load,
        play, save``. In this process it is an asyncio lock; with other processes on the database, also
        the database's lock of the game. Waits at most ``wait`` seconds, then raises GameBusyError."""
        known(game_id)
        memory = self._game_locks.get(game_id)
        if memory is None:
            memory = self._game_locks[game_id] = asyncio.Lock()
        return GameLock(self, game_id, memory, wait)

    async def schema_version(self) -> int:
        """The schema version stored in the file."""
        return await self.database.schema_version()

    async def integrity_problems(self) -> list[str]:
        """What the database's own checks find wrong, and games whose action count disagrees with their
        log; empty when all is sound."""
        problems = await self.database.integrity_problems()
        rows = await self._fetchall(BROKEN_LOGS)
        return problems + [f"game #{r[0]}: action_count {r[1]} but {r[2]} actions up to seq {r[3]}" for r in rows]

    # -- reading ----------------------------------------------------------------------------------

    async def _load(self, db: Tx, game_id: int) -> GameRecord:
        """Game ``game_id`` inside a transaction, its row locked until the end; GameNotFoundError if there
        is none."""
        row = await db.one(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?{self.database.lock_row}", (game_id,))
        if row is None:
            raise GameNotFoundError(game_id)
        return game_of(row)

    async def get_game(self, game_id: int) -> GameRecord:
        """Game ``game_id``. Raises GameNotFoundError."""
        known(game_id)
        rows = await self._fetchall(f"SELECT {GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise GameNotFoundError(game_id)
        return game_of(rows[0])

    async def active_game_in_channel(self, channel_id: int) -> GameRecord | None:
        """The channel's game in lobby or playing, or None."""
        rows = await self._fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE channel_id = ? AND status IN ('lobby', 'playing')",
            (channel_id,))
        return game_of(rows[0]) if rows else None

    async def last_game_in_channel(self, channel_id: int, status: Status) -> GameRecord | None:
        """The channel's newest game of ``status`` (e.g. the last that ended there), or None."""
        rows = await self._fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE channel_id = ? AND status = ? ORDER BY id DESC LIMIT 1",
            (channel_id, Status(status).value))
        return game_of(rows[0]) if rows else None

    async def list_games(self, status: Status | None = None, *, guild_id: int | None = None) -> list[GameRecord]:
        """Games, oldest first, optionally only those of one status and/or one guild."""
        where, params = self._filter(status, guild_id)
        rows = await self._fetchall(f"SELECT {GAME_COLUMNS} FROM games{where} ORDER BY id", params)
        return [game_of(r) for r in rows]

    async def count(self, status: Status | None = None, *, guild_id: int | None = None) -> int:
        """How many games there are, optionally only of one status and/or one guild."""
        where, params = self._filter(status, guild_id)
        rows = await self._fetchall(f"SELECT COUNT(*) FROM games{where}", params)
        return int(rows[0][0])

    @staticmethod
    def _filter(status: Status | None, guild_id: int | None) -> tuple[str, list[Any]]:
        """A WHERE clause and its parameters for ``list_games`` and ``count``."""
        clauses: list[str] = []
        params: list[Any] = []
        if status is not None:
            clauses.append("status = ?")
            params.append(Status(status).value)
        if guild_id is not None:
            clauses.append("guild_id = ?")
            params.append(guild_id)
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), params

    async def due_games(self, now: float) -> list[GameRecord]:
        """Games being played whose turn deadline has come by ``now``, or whose half time has and that
        were not warned yet (half time: ``turn_minutes`` × 30 s before the deadline), soonest first.
        Only those rows are read: a thousand games with a turn limit cost the timer nothing until one
        is due."""
        minutes = ("json_extract(options, '$.turn_minutes')" if self.database.dialect == "sqlite"
                   else "(options->>'turn_minutes')::float")
        rows = await self._fetchall(
            f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'playing' AND turn_deadline IS NOT NULL AND "
            f"(turn_deadline <= ? OR (half_warned = 0 AND turn_deadline - 30 * COALESCE({minutes}, 0) <= ?)) "
            "ORDER BY turn_deadline, id", (now, now))
        return [game_of(r) for r in rows]

    async def list_actions(self, game_id: int, *, after: int = 0) -> list[ActionRecord]:
        """The game's accepted actions in order (those with seq > ``after``). An unknown game has none."""
        rows = await self._fetchall(
            f"SELECT {ACTION_COLUMNS} FROM actions WHERE game_id = ? AND seq > ? "
            "ORDER BY seq", (game_id, after))
        return [action_of(r) for r in rows]

    async def create_game(self, *, guild_id: int, channel_id: int, opener_id: int, seed: int,
                          options: Mapping[str, Any] | None = None, seats: Sequence[SeatRecord] = (),
                          now: float | None = None) -> GameRecord:
        """A new game in the lobby. Raises ChannelBusyError if the channel has a game in lobby or playing."""
        at = now_or(now)
        async with self._transaction() as db:
            # DO NOTHING: the channel has a game that is not over (perhaps created by another process
            # a moment ago); the partial unique index is what decides
            created = await db.one(
                "INSERT INTO games (guild_id, channel_id, opener_id, status, options, seats, seed, seed_text, "
                "created_at, updated_at) VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (channel_id) WHERE status IN ('lobby', 'playing') DO NOTHING RETURNING id",
                (guild_id, channel_id, opener_id, options_json(options or {}), seats_json(seats), *seed_columns(seed),
                 at, at))
            if created is None:
                busy = await db.one(
                    "SELECT id FROM games WHERE channel_id = ? AND status IN ('lobby', 'playing')", (channel_id,))
                raise ChannelBusyError(channel_id, busy["id"] if busy else 0)
            return await self._load(db, created["id"])

    async def update_lobby(self, game_id: int, *, seats: Sequence[SeatRecord] | None = None,
                           options: Mapping[str, Any] | None = None, now: float | None = None) -> GameRecord:
        """Change the seats and/or options of a game in the lobby. Raises GameNotFoundError, StatusError."""
        async with self._transaction() as db:
            game = await self._load(db, game_id)
            if game.status is not Status.LOBBY:
                raise StatusError(game_id, game.status, "change its seats or options")
            await db.execute(
                "UPDATE games SET seats = ?, options = ?, updated_at = ? WHERE id = ?",
                (seats_json(game.seats if seats is None else seats),
                 options_json(game.options if options is None else options), now_or(now), game_id))
            return await self._load(db, game_id)

    async def start_game(self, game_id: int, snapshot: str, *, seats: Sequence[SeatRecord] | None = None,
                         options: Mapping[str, Any] | None = None, turn_deadline: float | None = None,
                         now: float | None = None, posts: Sequence[Posted] = ()) -> GameRecord:
        """Lobby → playing with the first position ``snapshot`` (and the final seats/options when given),
        with ``posts`` (the opening announcement) in the outbox, in one transaction. Raises
        GameNotFoundError, StatusError."""
        at = now_or(now)
        async with self._transaction() as db:
            game = await self._load(db, game_id)
            if Status.PLAYING not in TRANSITIONS[game.status]:
                raise StatusError(game_id, game.status, "start it")
            await db.execute(
                "UPDATE games SET status = 'playing', snapshot = ?, seats = ?, options = ?, turn_deadline = ?, "
                "half_warned = 0, updated_at = ? WHERE id = ?",
                (snapshot, seats_json(game.seats if seats is None else seats),
                 options_json(game.options if options is None else options), turn_deadline, at, game_id))
            await queue_posts(db, game, posts, at)
            return await self._load(db, game_id)

    async def append_action(self, game_id: int, expected_seq: int, actor_id: int, action: str, snapshot: str, *,
                            status: Status | None = None,
                            turn_deadline: float | Literal[_Keep.KEEP] | None = KEEP,
                             now: float | None = None, posts: Sequence[Posted] = (),
                             stand_ins: Sequence[StandIn] | Literal[_Keep.KEEP] = KEEP) -> GameRecord:
        """Log ``action`` as action number ``expected_seq`` (which must be ``game.next_seq``) and make
        ``snapshot`` the current state, with ``posts`` (the announcements it causes) in the outbox, in
        one transaction. ``status`` (finished, cancelled) ends the game
        with this action; ``turn_deadline`` (unless KEEP) sets the next deadline and clears the half-time
        warning; ``stand_ins`` (unless KEEP) become the seats the AI keeps warm. Raises StaleSeqError
        if another action was logged first (nothing is written),
        GameNotFoundError, StatusError if the game is not being played."""
        at = now_or(now)
        async with self._transaction() as db:
            game = await self._load(db, game_id)
            if game.status is not Status.PLAYING:
                raise StatusError(game_id, game.status, "play an action")
            if expected_seq != game.next_seq:
                raise StaleSeqError(game_id, expected_seq, game.action_count)
            if status is not None and status not in TRANSITIONS[game.status]:
                raise StatusError(game_id, game.status, f"become {Status(status).value}")
            await db.execute(
                "INSERT INTO actions (game_id, seq, actor_id, action, created_at) VALUES (?, ?, ?, ?, ?)",
                (game_id, expected_seq, actor_id, action, at))
            await db.execute(
                "UPDATE games SET snapshot = ?, action_count = ?, updated_at = ? WHERE id = ? AND action_count = ?",
                (snapshot, expected_seq, at, game_id, game.action_count))
            if status is not None:
                await db.execute("UPDATE games SET status = ? WHERE id = ?", (Status(status).value, game_id))
            if status is not None and not Status(status).is_active:
                turn_deadline = None
            if turn_deadline is not KEEP:
                await db.execute("UPDATE games SET turn_deadline = ?, half_warned = 0 WHERE id = ?",
                                 (turn_deadline, game_id))
            if stand_ins is not KEEP:
                await db.execute("UPDATE games SET stand_ins = ? WHERE id = ?", (stand_ins_json(stand_ins), game_id))
            await queue_posts(db, game, posts, at)
        return _appended(game, expected_seq, snapshot, at, status, turn_deadline, stand_ins)

    async def set_stand_ins(self, game_id: int, stand_ins: Sequence[StandIn], *, posts: Sequence[str | Body] = (),
                            now: float | None = None) -> GameRecord:
        """Make ``stand_ins`` the seats the AI keeps warm in a game being played, with ``posts`` in the
        outbox, in one transaction. Raises GameNotFoundError, StatusError (the game is not being played)."""
        async with self._transaction() as db:
            game = await self._load(db, game_id)
            if game.status is not Status.PLAYING:
                raise StatusError(game_id, game.status, "change who plays a seat")
            await db.execute("UPDATE games SET stand_ins = ?, updated_at = ? WHERE id = ?",
                             (stand_ins_json(stand_ins), now_or(now), game_id))
            await queue_posts(db, game, posts, now_or(now))
            return await self._load(db, game_id)

    async def truncate_last_action(self, game_id: int, expected_seq: int, snapshot: str, *, count: int = 1,
                                   turn_deadline: float | Literal[_Keep.KEEP] | None = KEEP,
                                   now: float | None = None, posts: Sequence[Posted] = ()) -> GameRecord:
        """Undo: remove the last ``count`` actions, the last of which must be number ``expected_seq``, and
        make ``snapshot`` (the state before them) current, with ``posts`` in the outbox, in one
        transaction. Raises StaleSeqError if the
        last action is another one (or there are fewer), GameNotFoundError, StatusError if the game is not
        being played."""
        async with self._transaction() as db:
            game = await self._load(db, game_id)
            if game.status is not Status.PLAYING:
                raise StatusError(game_id, game.status, "undo an action")
            if expected_seq != game.action_count or not 1 <= count <= expected_seq:
                raise StaleSeqError(game_id, expected_seq, game.action_count)
            await db.execute("DELETE FROM actions WHERE game_id = ? AND seq > ?", (game_id, expected_seq - count))
            await db.execute("UPDATE games SET snapshot = ?, action_count = ?, updated_at = ? WHERE id = ?",
                             (snapshot, expected_seq - count, now_or(now), game_id))
            if turn_deadline is not KEEP:
                await db.execute("UPDATE games SET turn_deadline = ?, half_warned = 0 WHERE id = ?",
                                 (turn_deadline, game_id))
            await queue_posts(db, game, posts, now_or(now))
            return await self._load(db, game_id)

    async def set_status(self, game_id: int, status: Status, *, now: float | None = None) -> GameRecord:
        """Move the game to ``status`` along TRANSITIONS (lobby → cancelled, playing → finished or
        cancelled; use ``start_game`` to start). A game that is over loses its deadline. Raises
        GameNotFoundError, StatusError."""
        status = Status(status)
        async with self._transaction() as db:
            game = await self._load(db, game_id)
            if status not in TRANSITIONS[game.status] or status is Status.PLAYING:
                raise StatusError(game_id, game.status, f"become {status.value}")
            await db.execute(
                "UPDATE games SET status = ?, updated_at = ?, "
                "turn_deadline = CASE WHEN ? THEN turn_deadline END WHERE id = ?",
                (status.value, now_or(now), status.is_active, game_id))
            return await self._load(db, game_id)

    async def mark_half_warned(self, game_id: int, *, deadline: float | Literal[_Keep.KEEP] | None = KEEP,
                               posts: Sequence[Posted] = (), now: float | None = None) -> GameRecord | None:
        """Record that the players were warned that half the turn time has gone, with ``posts`` (the
        warning) in the outbox, in one transaction; with ``deadline``, only if the turn is still the one
        that ends then (None, and nothing written, if another began meanwhile). Raises GameNotFoundError."""
        async with self._transaction() as db:
            game = await self._load(db, game_id)
            if deadline is not KEEP and (game.turn_deadline != deadline or game.half_warned):
                return None
            await db.execute("UPDATE games SET half_warned = 1 WHERE id = ?", (game_id,))
            await queue_posts(db, game, posts, now_or(now))
            return await self._load(db, game_id)

