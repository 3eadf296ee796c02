"""The games as the service sees them, whichever database holds them.

A game is its creation record (guild, channel, opener, seed, options, seats), the ordered log of its
accepted actions, and a snapshot of its current state. The snapshot and the actions are opaque text to
this module (the rules engine's JSON and notation). Every change is one transaction that is committed
(durably) before the method returns, so a caller that tells players about an action only after
``append_action`` returned never announces an action a crash could lose. A change checks the game it
loaded inside its transaction (with the game's row locked where the database locks rows), or changes
the game's row only on the condition it checks (an action: only at the action before), so a stale
write is refused whichever process made it. A change returns the game as its ``UPDATE`` left it
(``RETURNING``), not read again.

``Storage.open(target)`` opens a SQLite file (a path) or a PostgreSQL database (a ``postgresql://``
URL), applying the missing migrations. ``Storage.lock(game_id)`` gives the per-game lock that callers
hold around load → play → save so that two commands in one game never interleave: in this process, and
between processes on one database (shards) through the database's own lock of the game.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
import weakref
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any, Final, Literal

from .backend import Database, Tx, is_postgres_url
from .notify import Letter, Notices
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
    StorageError,
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
        where, params = _where(status, guild_id)
        rows = await self._fetchall(f"SELECT {GAME_COLUMNS} FROM games{where} ORDER BY id", params)
        return [game_of(r) for r in rows]

    async def count(self, status: Status | None = None, *, guild_id: int | None = None) -> int:
        """How many games there are, optionally only of one status and/or one guild."""
        where, params = _where(status, guild_id)
        rows = await self._fetchall(f"SELECT COUNT(*) FROM games{where}", params)
        return int(rows[0][0])

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
                f"ON CONFLICT (channel_id) WHERE status IN ('lobby', 'playing') DO NOTHING RETURNING {GAME_COLUMNS}",
                (guild_id, channel_id, opener_id, options_json(options or {}), seats_json(seats), *seed_columns(seed),
                 at, at))
            if created is None:
                busy = await db.one(
                    "SELECT id FROM games WHERE channel_id = ? AND status IN ('lobby', 'playing')", (channel_id,))
                raise ChannelBusyError(channel_id, busy["id"] if busy else 0)
            return game_of(created)

    async def update_lobby(self, game_id: int, *, seats: Sequence[SeatRecord] | None = None,
                           options: Mapping[str, Any] | None = None, now: float | None = None) -> GameRecord:
        """Change the seats and/or options of a game in the lobby. Raises GameNotFoundError, StatusError."""
        async with self._transaction() as db:
            row = await db.one(
                f"UPDATE games SET seats = COALESCE(?, seats), options = COALESCE(?, options), updated_at = ? "
                f"WHERE id = ? AND status = 'lobby' RETURNING {GAME_COLUMNS}",
                (None if seats is None else seats_json(seats), None if options is None else options_json(options),
                 now_or(now), game_id))
            if row is None:
                game = await self._load(db, game_id)
                raise StatusError(game_id, game.status, "change its seats or options")
            return game_of(row)

    async def start_game(self, game_id: int, snapshot: str, *, seats: Sequence[SeatRecord] | None = None,
                         options: Mapping[str, Any] | None = None, turn_deadline: float | None = None,
                         now: float | None = None, posts: Sequence[Posted] = ()) -> GameRecord:
        """Lobby → playing with the first position ``snapshot`` (and the final seats/options when given),
        with ``posts`` (the opening announcement) in the outbox, in one transaction. Raises
        GameNotFoundError, StatusError."""
        at = now_or(now)
        async with self._transaction() as db:
            row = await db.one(
                "UPDATE games SET status = 'playing', snapshot = ?, seats = COALESCE(?, seats), "
                "options = COALESCE(?, options), turn_deadline = ?, half_warned = 0, updated_at = ? "
                f"WHERE id = ? AND status IN ({_from(Status.PLAYING)}) RETURNING {GAME_COLUMNS}",
                (snapshot, None if seats is None else seats_json(seats),
                 None if options is None else options_json(options), turn_deadline, at, game_id))
            if row is None:
                game = await self._load(db, game_id)
                raise StatusError(game_id, game.status, "start it")
            game = game_of(row)
            await queue_posts(db, game, posts, at)
            return game

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
        GameNotFoundError, StatusError if the game is not being played.

        The game's row is changed first, on the condition that it is still being played at action
        ``expected_seq - 1`` (which locks it, where the database locks rows, until the commit), and the
        record returned is what that change left (``RETURNING``): no read before or after it. On
        PostgreSQL the change, the action and its posts are one statement (``_played_at_once``), a
        transaction of its own: one round trip to the server."""
        at = now_or(now)
        if status is not None and not Status(status).is_active:
            turn_deadline = None
        if status is not None and status not in TRANSITIONS[Status.PLAYING]:
            async with self._transaction() as db:
                raise _refused(await self._load(db, game_id), expected_seq, status)
        changes = _play_params(game_id, expected_seq, snapshot, at, status, turn_deadline, stand_ins)
        if self.database.dialect == "postgresql":  # the whole action in one statement: one round trip
            sql, params = _played_at_once(changes, (expected_seq, actor_id, action, at), posts, at)
            row = await self.database.apply(sql, params)
            if row is None:
                async with self._transaction() as db:
                    raise _refused(await self._load(db, game_id), expected_seq, status)
            return game_of(row)
        async with self._transaction() as db:
            row = await db.one(f"{_PLAY} RETURNING {GAME_COLUMNS}", changes)
            if row is None:
                raise _refused(await self._load(db, game_id), expected_seq, status)
            game = game_of(row)
            await db.execute(
                "INSERT INTO actions (game_id, seq, actor_id, action, created_at) VALUES (?, ?, ?, ?, ?)",
                (game_id, expected_seq, actor_id, action, at))
            await queue_posts(db, game, posts, at)
            return game

    async def set_stand_ins(self, game_id: int, stand_ins: Sequence[StandIn], *, posts: Sequence[str | Body] = (),
                            now: float | None = None) -> GameRecord:
        """Make ``stand_ins`` the seats the AI keeps warm in a game being played, with ``posts`` in the
        outbox, in one transaction. Raises GameNotFoundError, StatusError (the game is not being played)."""
        async with self._transaction() as db:
            row = await db.one(f"UPDATE games SET stand_ins = ?, updated_at = ? WHERE id = ? AND status = 'playing' "
                               f"RETURNING {GAME_COLUMNS}", (stand_ins_json(stand_ins), now_or(now), game_id))
            if row is None:
                game = await self._load(db, game_id)
                raise StatusError(game_id, game.status, "change who plays a seat")
            game = game_of(row)
            await queue_posts(db, game, posts, now_or(now))
            return game

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
            row = await db.one(
                "UPDATE games SET snapshot = ?, action_count = ?, updated_at = ?, "
                "turn_deadline = CASE WHEN ? THEN ? ELSE turn_deadline END, "
                f"half_warned = CASE WHEN ? THEN 0 ELSE half_warned END WHERE id = ? RETURNING {GAME_COLUMNS}",
                (snapshot, expected_seq - count, now_or(now), turn_deadline is not KEEP,
                 None if turn_deadline is KEEP else turn_deadline, turn_deadline is not KEEP, game_id))
            await queue_posts(db, game, posts, now_or(now))
            assert row is not None  # (its row is locked: it cannot have gone)
            return game_of(row)

    async def set_status(self, game_id: int, status: Status, *, now: float | None = None) -> GameRecord:
        """Move the game to ``status`` along TRANSITIONS (lobby → cancelled, playing → finished or
        cancelled; use ``start_game`` to start). A game that is over loses its deadline. Raises
        GameNotFoundError, StatusError."""
        status = Status(status)
        async with self._transaction() as db:
            row = None if status is Status.PLAYING else await db.one(
                "UPDATE games SET status = ?, updated_at = ?, "
                f"turn_deadline = CASE WHEN ? THEN turn_deadline END WHERE id = ? AND status IN ({_from(status)}) "
                f"RETURNING {GAME_COLUMNS}", (status.value, now_or(now), status.is_active, game_id))
            if row is None:
                game = await self._load(db, game_id)
                raise StatusError(game_id, game.status, f"become {status.value}")
            return game_of(row)

    async def mark_half_warned(self, game_id: int, *, deadline: float | Literal[_Keep.KEEP] | None = KEEP,
                               posts: Sequence[Posted] = (), now: float | None = None) -> GameRecord | None:
        """Record that the players were warned that half the turn time has gone, with ``posts`` (the
        warning) in the outbox, in one transaction; with ``deadline``, only if the turn is still the one
        that ends then (None, and nothing written, if another began meanwhile). Raises GameNotFoundError."""
        async with self._transaction() as db:
            game = await self._load(db, game_id)
            if deadline is not KEEP and (game.turn_deadline != deadline or game.half_warned):
                return None
            row = await db.one(f"UPDATE games SET half_warned = 1 WHERE id = ? RETURNING {GAME_COLUMNS}", (game_id,))
            await queue_posts(db, game, posts, now_or(now))
            assert row is not None  # (its row is locked: it cannot have gone)
            return game_of(row)


def _where(status: Status | None, guild_id: int | None) -> tuple[str, list[Any]]:
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


def _refused(game: GameRecord, expected_seq: int, status: Status | None) -> StorageError:
    """Why action ``expected_seq`` (ending the game as ``status``) cannot be appended to ``game`` as it
    is: StatusError (not being played, or no such change) or StaleSeqError."""
    if game.status is not Status.PLAYING:
        return StatusError(game.id, game.status, "play an action")
    if expected_seq != game.next_seq:
        return StaleSeqError(game.id, expected_seq, game.action_count)
    return StatusError(game.id, game.status, f"become {Status(status or game.status).value}")


def _from(status: Status) -> str:
    """The statuses a game may become ``status`` from (TRANSITIONS), as a list for ``IN (…)``; ``NULL``
    when none may."""
    return ", ".join(f"'{s.value}'" for s in Status if status in TRANSITIONS[s]) or "NULL"


#: an action's change of its game's row (``append_action``): the snapshot and the count of actions, the
#: status when given (else as it is), the deadline (clearing the half-time warning) and the seats the AI
#: keeps warm when they are not KEEP; only while the game is being played at the action before
_PLAY: Final = (
    "UPDATE games SET snapshot = ?, action_count = ?, updated_at = ?, status = COALESCE(?, status), "
    "turn_deadline = CASE WHEN ? THEN ? ELSE turn_deadline END, "
    "half_warned = CASE WHEN ? THEN 0 ELSE half_warned END, "
    "stand_ins = CASE WHEN ? THEN ? ELSE stand_ins END "
    "WHERE id = ? AND action_count = ? AND status = 'playing'"
)


def _play_params(game_id: int, expected_seq: int, snapshot: str, at: float, status: Status | None,
                 turn_deadline: float | Literal[_Keep.KEEP] | None,
                 stand_ins: Sequence[StandIn] | Literal[_Keep.KEEP]) -> tuple[Any, ...]:
    """``_PLAY``'s parameters."""
    deadline = turn_deadline is not KEEP
    return (snapshot, expected_seq, at, None if status is None else Status(status).value,
            deadline, None if turn_deadline is KEEP else turn_deadline, deadline,
            stand_ins is not KEEP, None if stand_ins is KEEP else stand_ins_json(stand_ins),
            game_id, expected_seq - 1)


def _played_at_once(changes: tuple[Any, ...], action: tuple[int, int, str, float], posts: Sequence[Posted],
                    at: float) -> tuple[str, tuple[Any, ...]]:
    """``append_action`` as one PostgreSQL statement and its parameters: the game's row changed
    (``_PLAY``, with ``changes``), and only if it was, the action (``(seq, actor_id, action, at)``) and
    its posts and letters inserted (data-modifying ``WITH`` clauses reading the changed row); the
    game's row as changed, or no row when it was not (nothing written). The posts are numbered in their
    order (one INSERT, its rows sorted), as the courier sends them."""
    letters = [p for p in posts if isinstance(p, Letter)]
    bodies = [(p, None) if isinstance(p, str) else (p.text, p.pictures) for p in posts if not isinstance(p, Letter)]
    sql = (f"WITH g AS ({_PLAY} RETURNING {GAME_COLUMNS}), "
           "a AS (INSERT INTO actions (game_id, seq, actor_id, action, created_at) SELECT id, ?, ?, ?, ? FROM g)")
    params: list[Any] = [*changes, *action]
    if bodies:
        rows = ", ".join(f"(?::text, ?::bytea, {n})" for n in range(len(bodies)))
        sql += (", o AS (INSERT INTO outbox (game_id, guild_id, channel_id, body, pictures, created_at) "
                f"SELECT g.id, g.guild_id, g.channel_id, p.body, p.pictures, ? FROM g, (VALUES {rows}) "
                "AS p (body, pictures, n) ORDER BY p.n)")
        params += [at, *(x for body in bodies for x in body)]
    if letters:
        rows = ", ".join("(?::bigint, ?::integer, ?::float8, ?::text, ?::text)" for _ in letters)
        sql += (", d AS (INSERT INTO direct_outbox (game_id, guild_id, channel_id, user_id, seq, due_at, body, "
                "fallback, created_at) SELECT g.id, g.guild_id, g.channel_id, l.user_id, l.seq, l.due_at, l.body, "
                f"l.fallback, ? FROM g, (VALUES {rows}) AS l (user_id, seq, due_at, body, fallback))")
        params += [at, *(x for letter in letters for x in (letter.user_id, letter.seq, letter.due_at, letter.body,
                                                       letter.fallback))]
    return f"{sql} SELECT {GAME_COLUMNS} FROM g", tuple(params)
