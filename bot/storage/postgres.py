"""The games in a PostgreSQL database, through asyncpg.

A small pool of connections, each with ``synchronous_commit = on`` (whatever the server's default), so
a transaction is on the server's disk when its COMMIT returns. A transaction that loads a game locks
its row (``SELECT … FOR UPDATE``) until it ends, and an action changes its game's row only while it is
at the action before (``UPDATE … WHERE action_count = …``, which waits for another process's change of
the row and then looks at the row it left): two processes that append to one game take turns, and the
second finds the action count moved and is refused (StaleSeqError). Every statement is a round trip
to the server, so they are few: an action is one statement (``Storage.append_action``), a transaction
of one statement is sent alone (``PostgresTx``), and a connection given back to the pool is not reset.
The schema version is the one row of the table ``tiempo_schema``; migrating holds a transaction-level
advisory lock, so two bots starting at once apply each step once. A game's lock between processes is a
session advisory lock held by one connection of each process, which the server releases if the process
dies.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import Any, Final

import asyncpg

from . import schema
from .backend import numbered, without_password
from .records import DatabaseFaultError
from .schema import Dialect, Row

log = logging.getLogger("tiempo.storage")

#: how long to wait for the server when connecting, in seconds
CONNECT_TIMEOUT: Final = 15.0
#: the advisory lock held while migrating ("tiempo" in ASCII)
MIGRATION_LOCK: Final = 0x7469656D706F
#: the first key of a game's advisory lock (the second is the game's id)
GAME_LOCKS: Final = 0x7469656D
#: how long a game-lock query may take before its connection is given up (a hung server), in seconds
LOCK_QUERY_S: Final = 2.0
#: the settings every connection gets
SERVER_SETTINGS: Final = {"synchronous_commit": "on", "application_name": "tiempo"}


#: a connection that broke or a server going away (restarting, shutting down), in the host's words
LOST = "the connection to the PostgreSQL server was lost; is it restarting?"


def fault_of(err: BaseException) -> DatabaseFaultError | None:
    """The fault ``err`` reports (the server out of space, read-only, restarting, the connection
    lost), or None for any other error (a bug, or a refusal the code handles)."""
    if isinstance(err, asyncpg.InsufficientResourcesError):
        return DatabaseFaultError("the PostgreSQL server is out of disk space, memory or connections")
    if isinstance(err, asyncpg.ReadOnlySQLTransactionError):
        return DatabaseFaultError("the PostgreSQL database is read-only")
    if isinstance(err, asyncpg.QueryCanceledError):
        return None
    lost = (asyncpg.PostgresConnectionError, asyncpg.OperatorInterventionError, asyncpg.InternalClientError,
            ConnectionError)
    if isinstance(err, lost) or (isinstance(err, asyncpg.InterfaceError) and "connection" in str(err)):
        return DatabaseFaultError(LOST)
    if isinstance(err, OSError) and not isinstance(err, TimeoutError):  # refused, unreachable
        return DatabaseFaultError(LOST)
    return None


@contextlib.contextmanager
def faults(name: str) -> Iterator[None]:
    """Raise ``DatabaseFaultError`` for a fault of the server or the connection (logged as a warning,
    without a traceback: the host has to act, the code does not); any other error as it is."""
    try:
        yield
    except Exception as err:
        fault = fault_of(err)
        if fault is None:
            raise
        log.warning("%s: %s (%s: %s); the move was not stored", name, fault.what, type(err).__name__, err)
        raise fault from err


async def _nothing_to_reset(conn: Any) -> None:
    """What the pool does to a connection given back, beyond rolling back a transaction left open
    (which asyncpg always does first): nothing. asyncpg's default sends ``pg_advisory_unlock_all(); CLOSE
    ALL; UNLISTEN *; RESET ALL`` — a round trip after every transaction and every read, for session
    state the pool's connections never take: no ``SET``, no ``LISTEN``, no cursor, no session advisory
    lock (the games' locks are on a connection of their own; migrating holds a transaction's)."""


class PostgresTx:
    """A transaction on one connection of the pool, begun only when it needs to be: its first
    statement (``execute``) waits for the next one, which sends ``BEGIN``, it and the new one in turn;
    a transaction that is that one statement alone is sent as a transaction of its own when it is
    committed (one round trip, where BEGIN, the statement and COMMIT took three), and one that sent
    nothing sends nothing. So a statement's error may be raised by the next one or by the commit, and
    the transaction is then rolled back, as for any error inside it."""

    def __init__(self, conn: Any, stack: contextlib.AsyncExitStack) -> None:
        self._conn = conn
        self._stack = stack
        self._waiting: tuple[str, Sequence[Any]] | None = None
        self.begun = False

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one statement (the transaction's first: with the next one, or the commit)."""
        if not self.begun and self._waiting is None:
            self._waiting = (sql, params)
            return
        await self._begin()
        await self._conn.execute(numbered(sql), *params)

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row of a query, or None."""
        await self._begin()
        row: Row | None = await self._conn.fetchrow(numbered(sql), *params)
        return row

    async def _begin(self) -> None:
        """``BEGIN`` (asyncpg's transaction, committed or rolled back when the transaction's block ends),
        then the statement that waited, if any."""
        if self.begun:
            return
        self.begun = True
        await self._stack.enter_async_context(self._conn.transaction())
        if self._waiting is not None:
            (sql, params), self._waiting = self._waiting, None
            await self._conn.execute(numbered(sql), *params)

    async def commit_alone(self) -> None:
        """Before the commit: a transaction that never began sends its one statement, if it has one,
        as a transaction of its own (the server commits it before it answers)."""
        if not self.begun and self._waiting is not None:
            (sql, params), self._waiting = self._waiting, None
            await self._conn.execute(numbered(sql), *params)


class PostgresDatabase:
    """One PostgreSQL database: a pool of connections, transactions and migrations."""

    dialect: Dialect = "postgresql"
    lock_row = " FOR UPDATE"

    def __init__(self, pool: Any, url: str) -> None:
        """Wrap an open pool; use ``PostgresDatabase.open``."""
        self._pool = pool
        self.name = without_password(url)
        self._closed = False
        self._url = url
        self._locker: Any = None  # the connection that holds this process's game locks
        self._locking = asyncio.Lock()  # one query at a time on it

    @classmethod
    async def open(cls, url: str, *, max_connections: int = 4) -> PostgresDatabase:
        """Connect to the database ``url`` names and apply the missing migrations. Raises SchemaError for a
        database written by a newer Tiempo, OSError or TimeoutError when the server cannot be reached,
        and asyncpg's errors for what the server refuses (a wrong password, a database that does not
        exist, a user who may not create tables)."""
        pool = await asyncpg.create_pool(url, min_size=1, max_size=max_connections, timeout=CONNECT_TIMEOUT,
                                         server_settings=SERVER_SETTINGS, reset=_nothing_to_reset)
        database = cls(pool, url)
        try:
            await database.migrate()
        except BaseException:
            await database.close()
            raise
        return database

    async def try_lock(self, game_id: int, holder: str) -> bool:
        """Take the game's advisory lock on this process's lock connection unless another process holds
        it. The server gives a connection's locks up when it ends, so a process that dies frees them."""
        async with self._locking:
            with faults(self.name):
                if self._locker is None or self._locker.is_closed():  # quickly, or the game is "busy"
                    self._locker = await asyncpg.connect(self._url, timeout=LOCK_QUERY_S,
                                                         server_settings=SERVER_SETTINGS)
                return bool(await self._lock_query("SELECT pg_try_advisory_lock($1, $2)", game_id))

    async def unlock(self, game_id: int, holder: str) -> None:
        """Give the advisory lock back (nothing to do if the lock connection was lost: so was the lock)."""
        async with self._locking:
            if self._locker is not None and not self._locker.is_closed():
                with faults(self.name):
                    await self._lock_query("SELECT pg_advisory_unlock($1, $2)", game_id)

    async def _lock_query(self, sql: str, game_id: int) -> Any:
        """Run a game-lock query on the lock connection. If it fails, hangs (``LOCK_QUERY_S``) or is
        cancelled halfway, the server may have done it or not: the connection is ended, which frees every
        game lock this process holds (the games stay safe: a write that lost the race is refused), and
        the next lock opens a new one."""
        try:
            return await self._locker.fetchval(sql, GAME_LOCKS, game_id, timeout=LOCK_QUERY_S)
        except BaseException:
            self._locker.terminate()
            self._locker = None
            raise

    async def close(self) -> None:
        """Close the connections (idempotent), waiting a little for those in use."""
        if not self._closed:
            self._closed = True
            if self._locker is not None:
                self._locker.terminate()
            try:
                await asyncio.wait_for(self._pool.close(), timeout=10)
            except TimeoutError:
                self._pool.terminate()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[PostgresTx]:
        """One transaction, committed on leaving, rolled back on an error (see ``PostgresTx``: begun
        only when it has two statements)."""
        with faults(self.name):
            async with self._pool.acquire() as conn, contextlib.AsyncExitStack() as stack:
                tx = PostgresTx(conn, stack)
                yield tx
                await tx.commit_alone()

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """All rows of a read-only query."""
        with faults(self.name):
            rows: list[Row] = await self._pool.fetch(numbered(sql), *params)
        return rows

    async def apply(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """One statement that writes, as a transaction of its own: the server commits it (durably:
        ``synchronous_commit``) before it answers, in one round trip, with no BEGIN and no COMMIT."""
        with faults(self.name):
            row: Row | None = await self._pool.fetchrow(numbered(sql), *params)
        return row

    async def migrate(self) -> None:
        """Apply the missing migrations, each in one transaction that also records the new version."""
        while True:
            async with self.transaction() as tx:
                await tx.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
                known = await tx.one("SELECT to_regclass('tiempo_schema') IS NOT NULL")
                if known is None or not known[0]:
                    await tx.execute("CREATE TABLE tiempo_schema (version INTEGER NOT NULL)")
                row = await tx.one("SELECT version FROM tiempo_schema")
                version = int(row[0]) if row else 0
                step = schema.next_step(self.name, version)
                if step is None:
                    return
                for statement in step.statements(self.dialect):
                    await tx.execute(statement)
                if row is None:
                    await tx.execute("INSERT INTO tiempo_schema (version) VALUES (?)", (version + 1,))
                else:
                    await tx.execute("UPDATE tiempo_schema SET version = ?", (version + 1,))

    async def schema_version(self) -> int:
        """The schema version stored in the database."""
        rows = await self.fetchall("SELECT version FROM tiempo_schema")
        return int(rows[0][0]) if rows else 0

    async def integrity_problems(self) -> list[str]:
        """Nothing beyond the shared checks: the server enforces every constraint itself."""
        return []
