"""The games in one SQLite file, through aiosqlite.

The file is in WAL mode with ``synchronous=FULL``, so a committed transaction survives a crash. The
schema version lives in ``PRAGMA user_version``. One connection, used by one coroutine at a time;
``BEGIN IMMEDIATE`` takes the file's write lock at the start of a transaction, so a second process
waits (up to ``BUSY_S``, then ``DatabaseBusyError``: a player reads "busy, try again in a moment" within
Discord's 3 seconds) rather than writing over a game it read before. Between processes that share the
file (shards), a game's lock is a row of ``game_locks``; if its process dies, the next process to want
it takes it over (the file is on one machine, where it can tell), and in any case it lapses after
``LOCK_LEASE`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite

from . import schema
from .records import DatabaseBusyError, DatabaseFaultError, StorageError
from .schema import Dialect, Row

log = logging.getLogger("tiempo.storage")

#: SQLite's result codes for faults of the machine, not of the game, and how the host's log names them
FAULTS = {"SQLITE_FULL": "the disk is full", "SQLITE_READONLY": "the database file is read-only",
          "SQLITE_IOERR": "the disk failed to read or write", "SQLITE_CANTOPEN": "the database file cannot be opened",
          "SQLITE_NOMEM": "the machine is out of memory"}

#: how long a game's lock row holds if its process dies without giving it back, in seconds
LOCK_LEASE = 15.0
#: how long a write waits for another process's hold of the file before ``DatabaseBusyError``, in seconds
BUSY_S = 1.5


def _gone(holder: str) -> bool:
    """Whether the process named ``holder`` (``host:pid:…``, see ``Storage.holder``) has ended. A SQLite
    file is shared by processes of one machine only, so a holder on this machine that is not running
    any more will never give its lock back."""
    host, _, rest = holder.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # running, as another user
        return False
    return False


def fault_of(err: sqlite3.Error) -> DatabaseFaultError | None:
    """The fault ``err`` reports (a full disk, a read-only file…), or None for any other error."""
    name = getattr(err, "sqlite_errorname", "") or ""
    what = next((words for code, words in FAULTS.items() if name == code or name.startswith(code + "_")), None)
    return DatabaseFaultError(what) if what is not None else None


@contextlib.contextmanager
def faults(path: str) -> Iterator[None]:
    """Raise ``DatabaseFaultError`` for a fault of the machine (logged as a warning, without a
    traceback: the host has to act, the code does not); any other error as it is."""
    try:
        yield
    except sqlite3.Error as err:
        fault = fault_of(err)
        if fault is None:
            raise
        log.warning("%s: %s (%s); the move was not stored", path, fault.what, err)
        raise fault from err


def _busy(err: sqlite3.OperationalError) -> bool:
    """Whether ``err`` is SQLite's "database is locked" (another process held the file past ``BUSY_S``)."""
    return "locked" in str(err) or "busy" in str(err)


@contextlib.contextmanager
def _busy_as_error() -> Iterator[None]:
    """Raise DatabaseBusyError for a ``BEGIN IMMEDIATE`` that found the file still locked; other errors
    pass as they are."""
    try:
        yield
    except sqlite3.OperationalError as err:
        if _busy(err):
            raise DatabaseBusyError() from err
        raise


def _run(conn: sqlite3.Connection, begin: bool, statements: Sequence[tuple[str, Sequence[Any]]],
         query: tuple[str, Sequence[Any]] | None) -> Row | None:
    """In the connection's thread: ``BEGIN IMMEDIATE`` (``begin``; DatabaseBusyError once the file stayed
    locked), then ``statements`` in order, then ``query``'s first row (None without a query)."""
    if begin:
        with _busy_as_error():
            conn.execute("BEGIN IMMEDIATE")
    for sql, params in statements:
        conn.execute(sql, params)
    if query is None:
        return None
    row: Row | None = conn.execute(*query).fetchone()
    return row


class SQLiteTx:
    """A transaction on the file's connection. Its statements go to the connection's thread in as few
    trips as it takes: ``execute`` only queues a statement, which runs, in order, with the next query
    (``one``) or the commit; ``BEGIN IMMEDIATE`` goes with the first of them. (Each trip to aiosqlite's
    thread costs both threads a wake-up: an action's transaction took twelve, it now takes three.) A
    statement's error is therefore raised by the next ``one`` or by the commit, and the transaction is
    then rolled back, as for any error inside it."""

    def __init__(self, db: aiosqlite.Connection) -> None:
        self._db = db
        self._queued: list[tuple[str, Sequence[Any]]] = []
        self._begun = False

    @property
    def begun(self) -> bool:
        """Whether anything was sent to the database (its ``BEGIN`` with it)."""
        return self._begun

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one statement (with the next query, or the commit)."""
        self._queued.append((sql, params))

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row of a query, or None (the statements queued before it run first)."""
        return await self._send((sql, params))

    async def commit(self) -> None:
        """The statements still queued, then ``COMMIT``, in one trip."""
        self._queued.append(("COMMIT", ()))
        await self._send(None)

    async def _send(self, query: tuple[str, Sequence[Any]] | None) -> Row | None:
        queued, self._queued = self._queued, []
        begin, self._begun = not self._begun, True
        if one_trip(self._db):
            # aiosqlite runs a callable in the connection's thread, in order with its other calls
            # (``Connection._execute``: the one way it offers to send several statements in one trip)
            row: Row | None = await self._db._execute(  # type: ignore[no-untyped-call]
                _run, self._db._conn, begin, queued, query)
            return row
        return await _run_each(self._db, begin, queued, query)


def one_trip(db: aiosqlite.Connection) -> bool:
    """Whether this aiosqlite still offers what sends a transaction's statements in one trip (a
    private method, ``Connection._execute``, and the ``sqlite3`` connection it runs on). A version
    without them is served statement by statement, through its public interface: slower, the same."""
    return callable(getattr(db, "_execute", None)) and isinstance(getattr(db, "_conn", None), sqlite3.Connection)


async def _run_each(db: aiosqlite.Connection, begin: bool, statements: Sequence[tuple[str, Sequence[Any]]],
                    query: tuple[str, Sequence[Any]] | None) -> Row | None:
    """``_run`` through aiosqlite's public interface: a trip to its thread for every statement."""
    if begin:
        with _busy_as_error():
            await db.execute("BEGIN IMMEDIATE")
    for sql, params in statements:
        await db.execute(sql, params)
    if query is None:
        return None
    async with db.execute(*query) as cursor:
        row: Row | None = await cursor.fetchone()
    return row


class SQLiteDatabase:
    """One SQLite file: the connection, one user of it at a time, transactions and migrations."""

    dialect: Dialect = "sqlite"
    lock_row = ""  # BEGIN IMMEDIATE already holds the whole file

    def __init__(self, db: aiosqlite.Connection, path: str) -> None:
        """Wrap an open connection; use ``SQLiteDatabase.open``."""
        self._db = db
        self.name = self.path = path
        self._use = asyncio.Lock()  # one user of the connection at a time (transactions are per connection)
        self._closed = False

    @classmethod
    async def open(cls, path: str) -> SQLiteDatabase:
        """Open (creating if needed) the database at ``path``: WAL mode, full sync, foreign keys on,
        deleted rows zeroed only where that costs no writing, migrations applied. Raises SchemaError for a
        file made by a newer Tiempo, StorageError if WAL cannot be turned on, and sqlite3 errors for a file
        that is not a database."""
        db = await aiosqlite.connect(path, isolation_level=None)  # autocommit: transactions are explicit
        try:
            db.row_factory = sqlite3.Row
            await db.execute(f"PRAGMA busy_timeout = {int(BUSY_S * 1000)}")
            mode = await cls._use_wal(db)
            if mode != "wal" and path != ":memory:":
                raise StorageError(f"{path}: cannot use write-ahead logging (journal mode stays {mode!r}).")
            await db.execute("PRAGMA synchronous = FULL")
            # a deleted row's pages are not overwritten with zeros where that costs more writing (Debian's
            # SQLite zeroes them all): an outbox post's ~250 kB of pictures, taken out once sent, wrote as
            # much again to the log and then to the file. (What is deleted is no secret the file does not
            # keep anyway: the posts were public, the positions stay.)
            await db.execute("PRAGMA secure_delete = FAST")
            await db.execute("PRAGMA foreign_keys = ON")
            database = cls(db, path)
            await database.migrate()
        except BaseException:
            await db.close()
            raise
        return database

    @staticmethod
    async def _use_wal(db: aiosqlite.Connection) -> str:
        """Turn on WAL mode (kept in the file) and return the journal mode. Switching a new file needs it to
        itself, and SQLite does not wait for that (busy_timeout does not apply): two processes opening one
        new file at once would see "database is locked", so the switch is tried again for up to ten seconds."""
        for attempt in range(100):
            try:
                async with db.execute("PRAGMA journal_mode = WAL") as cursor:
                    row = await cursor.fetchone()
                return str(row[0]).lower() if row else "?"
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) or attempt == 99:
                    raise
                await asyncio.sleep(0.1)
        raise AssertionError("unreachable")

    async def close(self) -> None:
        """Close the database (idempotent)."""
        if not self._closed:
            self._closed = True
            async with self._use:
                await self._db.close()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[SQLiteTx]:
        """One write transaction (``BEGIN IMMEDIATE``, sent with its first query or its commit: see
        ``SQLiteTx``), committed on leaving, rolled back on an error (a task cancelled while its ``BEGIN``
        waited for the file included: the rollback is queued after the ``BEGIN``, so it undoes it)."""
        async with self._use:
            if self._db.in_transaction:  # left open by a task cancelled in its BEGIN, or a failed COMMIT
                await self._rollback()
            with faults(self.path):
                tx = SQLiteTx(self._db)
                try:
                    yield tx
                    await tx.commit()
                except BaseException:
                    if tx.begun:  # (nothing was sent: there is nothing to undo)
                        await asyncio.shield(self._rollback())
                    raise

    async def _rollback(self) -> None:
        """End the open transaction, if there is one, writing nothing."""
        with contextlib.suppress(sqlite3.OperationalError):  # "no transaction is active"
            await self._db.execute("ROLLBACK")

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """All rows of a read-only query (outside any other coroutine's transaction)."""
        async with self._use:
            with faults(self.path):
                return list(await self._db.execute_fetchall(sql, params))

    async def apply(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """One statement that writes, as a transaction of its own, committed before it returns."""
        async with self.transaction() as tx:
            return await tx.one(sql, params)

    async def migrate(self) -> None:
        """Apply the missing migrations, each in one transaction with its new ``user_version``."""
        while True:
            async with self.transaction() as tx:
                row = await tx.one("PRAGMA user_version")
                version = int(row[0]) if row else 0
                step = schema.next_step(self.path, version)
                if step is None:
                    return
                for statement in step.statements(self.dialect):
                    await tx.execute(statement)
                await tx.execute(f"PRAGMA user_version = {version + 1}")

    async def schema_version(self) -> int:
        """The schema version stored in the file."""
        rows = await self.fetchall("PRAGMA user_version")
        return int(rows[0][0])

    async def try_lock(self, game_id: int, holder: str) -> bool:
        """Take the game's lock row unless another process holds it and it has not lapsed (a process
        that dies without giving it back loses it after ``LOCK_LEASE`` seconds)."""
        now = time.time()
        async with self.transaction() as tx:
            await tx.execute(
                "INSERT INTO game_locks (game_id, holder, until) VALUES (?, ?, ?) ON CONFLICT (game_id) DO UPDATE "
                "SET holder = excluded.holder, until = excluded.until "
                "WHERE game_locks.until < ? OR game_locks.holder = excluded.holder",
                (game_id, holder, now + LOCK_LEASE, now))
            row = await tx.one("SELECT holder FROM game_locks WHERE game_id = ?", (game_id,))
            if row is not None and row[0] != holder and _gone(str(row[0])):  # its process died: take it over
                await tx.execute("UPDATE game_locks SET holder = ?, until = ? WHERE game_id = ? AND holder = ?",
                                 (holder, now + LOCK_LEASE, game_id, row[0]))
                return True
        return row is not None and row[0] == holder

    async def unlock(self, game_id: int, holder: str) -> None:
        """Give the lock row back."""
        async with self.transaction() as tx:
            await tx.execute("DELETE FROM game_locks WHERE game_id = ? AND holder = ?", (game_id, holder))

    async def integrity_problems(self) -> list[str]:
        """What SQLite's integrity and foreign-key checks find wrong; empty when the file is sound."""
        problems = [str(r[0]) for r in await self.fetchall("PRAGMA integrity_check") if r[0] != "ok"]
        broken = await self.fetchall("PRAGMA foreign_key_check")  # table, rowid, parent, constraint
        problems += [f"foreign key: {(r[0], r[1], r[2], r[3])}" for r in broken]
        return problems
