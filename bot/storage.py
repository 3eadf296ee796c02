"""Games on disk: one SQLite file through aiosqlite.

A game is its creation record (guild, channel, opener, seed, options, seats), the ordered log of its
accepted actions, and a snapshot of its current state. The snapshot and the actions are opaque text to
this module (the rules engine's JSON and notation). Every change is one transaction that is committed
before the method returns, so a caller that tells players about an action only after ``append_action``
returned never announces an action a crash could lose: the file is in WAL mode with
``synchronous=FULL``.

The schema version lives in ``PRAGMA user_version``; ``Storage.open`` applies the missing steps of
``MIGRATIONS`` in order, each in its own transaction. One ``Storage`` serialises its own use of the
connection; ``Storage.lock(game_id)`` gives the per-game lock that callers hold around
load → play → save so that two commands in one game never interleave.
"""

from __future__ import annotations

import asyncio
import enum
import json
import sqlite3
import time
import weakref
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Final, Literal

import aiosqlite


class Status(enum.StrEnum):
    """Where a game is in its life."""

    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    CANCELLED = "cancelled"

    @property
    def is_active(self) -> bool:
        """Lobby or playing: the game holds its channel."""
        return self in (Status.LOBBY, Status.PLAYING)


#: status -> the statuses a game may move to from it
TRANSITIONS: Final[Mapping[Status, frozenset[Status]]] = {
    Status.LOBBY: frozenset({Status.PLAYING, Status.CANCELLED}),
    Status.PLAYING: frozenset({Status.FINISHED, Status.CANCELLED}),
    Status.FINISHED: frozenset(),
    Status.CANCELLED: frozenset(),
}


class _Keep(enum.Enum):
    """Type of ``KEEP``."""

    KEEP = "keep"


#: "leave this column as it is" for optional arguments where None is a meaningful value
KEEP: Final = _Keep.KEEP


# ---------------------------------------------------------------------------------------------
# Errors


class StorageError(Exception):
    """Something the database refused; ``str()`` says what and for which game."""


class SchemaError(StorageError):
    """The database file's schema is not one this version of Tiempo can use."""


class GameNotFoundError(StorageError, LookupError):
    """No game has this id."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"There is no game #{game_id}.")
        self.game_id = game_id


class ChannelBusyError(StorageError):
    """The channel already has a game that is not finished or cancelled."""

    def __init__(self, channel_id: int, game_id: int) -> None:
        super().__init__(f"Channel {channel_id} already has game #{game_id} in progress.")
        self.channel_id = channel_id
        self.game_id = game_id


class StaleSeqError(StorageError):
    """The game's action log is not where the caller thought: someone else changed the game first."""

    def __init__(self, game_id: int, expected_seq: int, action_count: int) -> None:
        super().__init__(f"Game #{game_id} changed since it was loaded: the caller expected action "
                         f"{expected_seq}, but the game has {action_count} action(s). Reload it and try again.")
        self.game_id = game_id
        self.expected_seq = expected_seq
        self.action_count = action_count


class BusyError(StorageError):
    """Another process held the database's write lock for more than ``BUSY_S``: nothing was changed."""

    def __init__(self) -> None:
        super().__init__("The game is busy (its database is in use elsewhere), so nothing was changed. "
                         "Try again in a moment.")


#: how long a write waits for another process's write lock before ``BusyError`` (a player's command
#: must be answered within Discord's 3 seconds)
BUSY_S = 1.5


class StatusError(StorageError):
    """The game's status does not allow this change."""

    def __init__(self, game_id: int, status: Status, wanted: str) -> None:
        super().__init__(f"Game #{game_id} is {status.value}; cannot {wanted}.")
        self.game_id = game_id
        self.status = status


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class SeatRecord:
    """One seat: a Discord user, or an AI (``ai_level`` set), and a colour (the rules' colour name)."""

    user_id: int
    name: str
    colour: str
    ai_level: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The seat as stored in the ``seats`` column."""
        return {"user_id": self.user_id, "name": self.name, "colour": self.colour, "ai_level": self.ai_level}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatRecord:
        """A seat from its stored form."""
        return cls(int(data["user_id"]), str(data["name"]), str(data["colour"]), data.get("ai_level"))


@dataclass(frozen=True)
class GameRecord:
    """A game as stored. ``action_count`` is also the game's version: the seq of its last action."""

    id: int
    guild_id: int
    channel_id: int
    opener_id: int
    status: Status
    options: Mapping[str, Any]
    seats: tuple[SeatRecord, ...]
    seed: int
    created_at: float
    updated_at: float
    snapshot: str | None
    action_count: int
    turn_deadline: float | None
    half_warned: bool
    board_message_id: int | None = field(default=None)

    @property
    def next_seq(self) -> int:
        """The seq the next appended action takes (what ``append_action`` expects)."""
        return self.action_count + 1

    @property
    def is_active(self) -> bool:
        """Lobby or playing."""
        return self.status.is_active


@dataclass(frozen=True)
class ActionRecord:
    """One accepted action of a game's log, numbered from 1."""

    game_id: int
    seq: int
    actor_id: int
    action: str
    created_at: float


# ---------------------------------------------------------------------------------------------
# Schema

#: migration i takes the schema from version i to version i + 1; statements run in one transaction.
#: Never edit a released step: add a new one.
MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    (
        # Game ids are never reused (AUTOINCREMENT): buttons on old messages carry them.
        """
        CREATE TABLE games (
            id               INTEGER PRIMARY KEY AUTOINCREMENT,
            guild_id         INTEGER NOT NULL,
            channel_id       INTEGER NOT NULL,
            opener_id        INTEGER NOT NULL,
            status           TEXT    NOT NULL DEFAULT 'lobby'
                             CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
            options          TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
            seats            TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(seats)),
            seed             INTEGER NOT NULL,
            created_at       REAL    NOT NULL,
            updated_at       REAL    NOT NULL,
            snapshot         TEXT,
            action_count     INTEGER NOT NULL DEFAULT 0 CHECK (action_count >= 0),
            turn_deadline    REAL,
            half_warned      INTEGER NOT NULL DEFAULT 0 CHECK (half_warned IN (0, 1)),
            board_message_id INTEGER,
            CHECK (snapshot IS NOT NULL OR status IN ('lobby', 'cancelled'))
        )
        """,
        # At most one game that is not over per channel.
        """
        CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id)
            WHERE status IN ('lobby', 'playing')
        """,
        "CREATE INDEX games_by_status ON games (status, id)",
        "CREATE INDEX games_by_deadline ON games (turn_deadline) WHERE turn_deadline IS NOT NULL",
        """
        CREATE TABLE actions (
            game_id    INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
            seq        INTEGER NOT NULL CHECK (seq >= 1),
            actor_id   INTEGER NOT NULL,
            action     TEXT    NOT NULL,
            created_at REAL    NOT NULL,
            PRIMARY KEY (game_id, seq)
        ) WITHOUT ROWID
        """,
    ),
)

#: the schema version this code writes
SCHEMA_VERSION: Final = len(MIGRATIONS)

_GAME_COLUMNS = (
    "id, guild_id, channel_id, opener_id, status, options, seats, seed, created_at, updated_at, snapshot, "
    "action_count, turn_deadline, half_warned, board_message_id"
)


def _game(row: sqlite3.Row) -> GameRecord:
    """A GameRecord from a row of ``_GAME_COLUMNS``."""
    return GameRecord(
        id=row["id"],
        guild_id=row["guild_id"],
        channel_id=row["channel_id"],
        opener_id=row["opener_id"],
        status=Status(row["status"]),
        options=json.loads(row["options"]),
        seats=tuple(SeatRecord.from_json(s) for s in json.loads(row["seats"])),
        seed=row["seed"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        snapshot=row["snapshot"],
        action_count=row["action_count"],
        turn_deadline=row["turn_deadline"],
        half_warned=bool(row["half_warned"]),
        board_message_id=row["board_message_id"],
    )


def _action(row: sqlite3.Row) -> ActionRecord:
    """An ActionRecord from a row of the actions table."""
    return ActionRecord(row["game_id"], row["seq"], row["actor_id"], row["action"], row["created_at"])


def _seats_json(seats: Sequence[SeatRecord]) -> str:
    """The ``seats`` column for ``seats``."""
    return json.dumps([s.to_json() for s in seats], ensure_ascii=False)


def _options_json(options: Mapping[str, Any]) -> str:
    """The ``options`` column for ``options``."""
    return json.dumps(dict(options), ensure_ascii=False, sort_keys=True)


def _now(now: float | None) -> float:
    """``now``, or the wall clock when None."""
    return time.time() if now is None else now


# ---------------------------------------------------------------------------------------------
# Storage


class Database:
    """One SQLite file: the connection, one user of it at a time, transactions and migrations."""

    def __init__(self, db: aiosqlite.Connection, path: str) -> None:
        """Wrap an open connection; use ``Database.open``."""
        self._db = db
        self.path = path
        self._use = asyncio.Lock()  # one user of the connection at a time (transactions are per connection)
        self._closed = False

    @classmethod
    async def open(cls, path: str) -> Database:
        """Open (creating if needed) the database at ``path``: WAL mode, full sync, foreign keys on,
        migrations applied. Raises SchemaError for a file made by a newer Tiempo, StorageError if WAL
        cannot be turned on, and sqlite3 errors for a file that is not a database."""
        db = await aiosqlite.connect(path, isolation_level=None)  # autocommit: transactions are explicit
        try:
            db.row_factory = sqlite3.Row
            await db.execute(f"PRAGMA busy_timeout = {int(BUSY_S * 1000)}")
            async with db.execute("PRAGMA journal_mode = WAL") as cursor:
                row = await cursor.fetchone()
            mode = str(row[0]).lower() if row else "?"
            if mode != "wal" and path != ":memory:":
                raise StorageError(f"{path}: cannot use write-ahead logging (journal mode stays {mode!r}).")
            await db.execute("PRAGMA synchronous = FULL")
            await db.execute("PRAGMA foreign_keys = ON")
            database = cls(db, path)
            await database.migrate()
        except BaseException:
            await db.close()
            raise
        return database

    async def close(self) -> None:
        """Close the database (idempotent)."""
        if not self._closed:
            self._closed = True
            async with self._use:
                await self._db.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``), committed on leaving, rolled back on an error."""
        async with self._use:
            try:
                await self._db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as err:
                if "locked" in str(err) or "busy" in str(err):
                    raise BusyError() from err
                raise
            try:
                yield self._db
            except BaseException:
                await self._db.execute("ROLLBACK")
                raise
            await self._db.execute("COMMIT")

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """All rows of a read-only query (outside any other coroutine's transaction)."""
        async with self._use:
            return list(await self._db.execute_fetchall(sql, params))

    @staticmethod
    async def one(db: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> sqlite3.Row | None:
        """The first row of a query inside a transaction, or None."""
        async with db.execute(sql, params) as cursor:
            row: sqlite3.Row | None = await cursor.fetchone()
            return row

    async def migrate(self) -> None:
        """Apply the missing migrations, each in one transaction with its new ``user_version``."""
        while True:
            async with self.transaction() as db:
                row = await self.one(db, "PRAGMA user_version")
                version = int(row[0]) if row else 0
                if version > SCHEMA_VERSION:
                    raise SchemaError(f"{self.path}: the database has schema version {version}, newer than "
                                      f"this Tiempo knows ({SCHEMA_VERSION}). Upgrade Tiempo.")
                if version == SCHEMA_VERSION:
                    return
                for statement in MIGRATIONS[version]:
                    await db.execute(statement)
                await db.execute(f"PRAGMA user_version = {version + 1}")

    async def schema_version(self) -> int:
        """The schema version stored in the file."""
        rows = await self.fetchall("PRAGMA user_version")
        return int(rows[0][0])

    async def integrity_problems(self) -> list[str]:
        """What SQLite's integrity and foreign-key checks and the log/count invariant find wrong; empty
        when the file is sound."""
        problems = [str(r[0]) for r in await self.fetchall("PRAGMA integrity_check") if r[0] != "ok"]
        problems += [f"foreign key: {tuple(r)}" for r in await self.fetchall("PRAGMA foreign_key_check")]
        rows = await self.fetchall(
            "SELECT g.id, g.action_count, COUNT(a.seq), COALESCE(MAX(a.seq), 0) FROM games g "
            "LEFT JOIN actions a ON a.game_id = g.id GROUP BY g.id "
            "HAVING g.action_count != COUNT(a.seq) OR g.action_count != COALESCE(MAX(a.seq), 0)")
        problems += [f"game #{r[0]}: action_count {r[1]} but {r[2]} actions up to seq {r[3]}" for r in rows]
        return problems


class Storage:
    """The games: lobbies, seats, actions and snapshots, with a lock per game. Open with
    ``await Storage.open(path)``; close with ``await storage.close()`` (or use ``async with``)."""

    def __init__(self, database: Database) -> None:
        """Wrap an open database; use ``Storage.open``."""
        self.database = database
        self.path = database.path
        self._game_locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._transaction = database.transaction
        self._fetchall = database.fetchall
        self._one = database.one

    @classmethod
    async def open(cls, path: str) -> Storage:
        """Open (creating if needed) the games database at ``path`` (see ``Database.open``)."""
        return cls(await Database.open(path))

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

    def lock(self, game_id: int) -> asyncio.Lock:
        """The lock serialising commands in game ``game_id`` (the same object while anyone holds or
        waits for it): ``async with storage.lock(game.id): load, play, save``."""
        lock = self._game_locks.get(game_id)
        if lock is None:
            lock = self._game_locks[game_id] = asyncio.Lock()
        return lock

    async def schema_version(self) -> int:
        """The schema version stored in the file."""
        return await self.database.schema_version()

    async def integrity_problems(self) -> list[str]:
        """What the database's checks find wrong; empty when the file is sound."""
        return await self.database.integrity_problems()

    # -- reading ----------------------------------------------------------------------------------

    async def _load(self, db: aiosqlite.Connection, game_id: int) -> GameRecord:
        """Game ``game_id`` inside a transaction; GameNotFoundError if there is none."""
        row = await self._one(db, f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        if row is None:
            raise GameNotFoundError(game_id)
        return _game(row)

    async def get_game(self, game_id: int) -> GameRecord:
        """Game ``game_id``. Raises GameNotFoundError."""
        rows = await self._fetchall(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        if not rows:
            raise GameNotFoundError(game_id)
        return _game(rows[0])

    async def find_game(self, game_id: int) -> GameRecord | None:
        """Game ``game_id``, or None if there is none."""
        rows = await self._fetchall(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,))
        return _game(rows[0]) if rows else None

    async def active_game_in_channel(self, channel_id: int) -> GameRecord | None:
        """The channel's game in lobby or playing, or None."""
        rows = await self._fetchall(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE channel_id = ? AND status IN ('lobby', 'playing')",
            (channel_id,))
        return _game(rows[0]) if rows else None

    async def list_games(self, status: Status | None = None, *, guild_id: int | None = None) -> list[GameRecord]:
        """Games, oldest first, optionally only those of one status and/or one guild."""
        where, params = self._filter(status, guild_id)
        rows = await self._fetchall(f"SELECT {_GAME_COLUMNS} FROM games{where} ORDER BY id", params)
        return [_game(r) for r in rows]

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

    async def games_with_deadlines(self, *, due_before: float | None = None) -> list[GameRecord]:
        """Games being played that have a turn deadline, soonest first; only those due before
        ``due_before`` when given."""
        sql = f"SELECT {_GAME_COLUMNS} FROM games WHERE status = 'playing' AND turn_deadline IS NOT NULL"
        params: list[Any] = []
        if due_before is not None:
            sql += " AND turn_deadline < ?"
            params.append(due_before)
        rows = await self._fetchall(sql + " ORDER BY turn_deadline, id", params)
        return [_game(r) for r in rows]

    async def list_actions(self, game_id: int, *, after: int = 0) -> list[ActionRecord]:
        """The game's accepted actions in order (those with seq > ``after``). An unknown game has none."""
        rows = await self._fetchall(
            "SELECT game_id, seq, actor_id, action, created_at FROM actions WHERE game_id = ? AND seq > ? "
            "ORDER BY seq", (game_id, after))
        return [_action(r) for r in rows]

    async def last_action(self, game_id: int) -> ActionRecord | None:
        """The game's latest action, or None before the first."""
        rows = await self._fetchall(
            "SELECT game_id, seq, actor_id, action, created_at FROM actions WHERE game_id = ? "
            "ORDER BY seq DESC LIMIT 1", (game_id,))
        return _action(rows[0]) if rows else None

    # -- writing ----------------------------------------------------------------------------------

    async def create_game(self, *, guild_id: int, channel_id: int, opener_id: int, seed: int,
                          options: Mapping[str, Any] | None = None, seats: Sequence[SeatRecord] = (),
                          now: float | None = None) -> GameRecord:
        """A new game in the lobby. Raises ChannelBusyError if the channel has a game in lobby or playing."""
        at = _now(now)
        async with self._transaction() as db:
            busy = await self._one(
                db, "SELECT id FROM games WHERE channel_id = ? AND status IN ('lobby', 'playing')", (channel_id,))
            if busy is not None:
                raise ChannelBusyError(channel_id, busy["id"])
            cursor = await db.execute(
                "INSERT INTO games (guild_id, channel_id, opener_id, status, options, seats, seed, created_at, "
                "updated_at) VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?)",
                (guild_id, channel_id, opener_id, _options_json(options or {}), _seats_json(seats), seed, at, at))
            game_id = cursor.lastrowid
            await cursor.close()
            assert game_id is not None
            return await self._load(db, game_id)

    async def update_lobby(self, game_id: int, *, seats: Sequence[SeatRecord] | None = None,
                           options: Mapping[str, Any] | None = None, now: float | None = None) -> GameRecord:
        """Change the seats and/or options of a game in the lobby. Raises GameNotFoundError, StatusError."""
        async with self._transaction() as db:
            game = await self._load(db, game_id)
            if game.status is not Status.LOBBY:
                raise StatusError(game_id, game.status, "change its seats or options")
            await db.execute(
                "UPDATE games SET seats = ?, options = ?, updated_at = ? WHERE id = ?",
                (_seats_json(game.seats if seats is None else seats),
                 _options_json(game.options if options is None else options), _now(now), game_id))
            return await self._load(db, game_id)

    async def start_game(self, game_id: int, snapshot: str, *, seats: Sequence[SeatRecord] | None = None,
                         options: Mapping[str, Any] | None = None, turn_deadline: float | None = None,
                         now: float | None = None) -> GameRecord:
        """Lobby → playing with the first position ``snapshot`` (and the final seats/options when given).
        Raises GameNotFoundError, StatusError."""
        async with self._transaction() as db:
            game = await self._load(db, game_id)
            if Status.PLAYING not in TRANSITIONS[game.status]:
                raise StatusError(game_id, game.status, "start it")
            await db.execute(
                "UPDATE games SET status = 'playing', snapshot = ?, seats = ?, options = ?, turn_deadline = ?, "
                "half_warned = 0, updated_at = ? WHERE id = ?",
                (snapshot, _seats_json(game.seats if seats is None else seats),
                 _options_json(game.options if options is None else options), turn_deadline, _now(now), game_id))
            return await self._load(db, game_id)

    async def append_action(self, game_id: int, expected_seq: int, actor_id: int, action: str, snapshot: str, *,
                            status: Status | None = None,
                            turn_deadline: float | Literal[_Keep.KEEP] | None = KEEP,
                            now: float | None = None) -> GameRecord:
        """Log ``action`` as action number ``expected_seq`` (which must be ``game.next_seq``) and make
        ``snapshot`` the current state, in one transaction. ``status`` (finished, cancelled) ends the game
        with this action; ``turn_deadline`` (unless KEEP) sets the next deadline and clears the half-time
        warning. Raises StaleSeqError if another action was logged first (nothing is written),
        GameNotFoundError, StatusError if the game is not being played."""
        at = _now(now)
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
            return await self._load(db, game_id)

    async def truncate_last_action(self, game_id: int, expected_seq: int, snapshot: str, *, count: int = 1,
                                   turn_deadline: float | Literal[_Keep.KEEP] | None = KEEP,
                                   now: float | None = None) -> GameRecord:
        """Undo: remove the last ``count`` actions, the last of which must be number ``expected_seq``, and
        make ``snapshot`` (the state before them) current, in one transaction. Raises StaleSeqError if the
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
                             (snapshot, expected_seq - count, _now(now), game_id))
            if turn_deadline is not KEEP:
                await db.execute("UPDATE games SET turn_deadline = ?, half_warned = 0 WHERE id = ?",
                                 (turn_deadline, game_id))
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
                (status.value, _now(now), status.is_active, game_id))
            return await self._load(db, game_id)

    async def set_deadline(self, game_id: int, turn_deadline: float | None, *, now: float | None = None) -> GameRecord:
        """Set (or clear, with None) the game's turn deadline, in unix seconds; clears the half-time
        warning. Raises GameNotFoundError, StatusError if the game is not being played."""
        async with self._transaction() as db:
            game = await self._load(db, game_id)
            if turn_deadline is not None and game.status is not Status.PLAYING:
                raise StatusError(game_id, game.status, "set a turn deadline")
            await db.execute("UPDATE games SET turn_deadline = ?, half_warned = 0, updated_at = ? WHERE id = ?",
                             (turn_deadline, _now(now), game_id))
            return await self._load(db, game_id)

    async def mark_half_warned(self, game_id: int) -> GameRecord:
        """Record that the players were warned that half the turn time has gone. Raises GameNotFoundError."""
        async with self._transaction() as db:
            await self._load(db, game_id)
            await db.execute("UPDATE games SET half_warned = 1 WHERE id = ?", (game_id,))
            return await self._load(db, game_id)

    async def set_board_message(self, game_id: int, message_id: int | None) -> GameRecord:
        """Record the id of the game's latest board message (None: there is none). Raises GameNotFoundError."""
        async with self._transaction() as db:
            await self._load(db, game_id)
            await db.execute("UPDATE games SET board_message_id = ? WHERE id = ?", (message_id, game_id))
            return await self._load(db, game_id)
