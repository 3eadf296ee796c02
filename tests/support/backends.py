"""The two storage backends as the contract tests see them: where the database is (``target``, what the
``database`` setting would say), and a plain connection of the test's own to look behind Storage's back."""

from __future__ import annotations

import sqlite3
from typing import Any

import asyncpg


class SQLiteBackend:
    """A fresh SQLite file."""

    name = "sqlite"
    #: what the driver raises for SQL the database refuses
    errors: tuple[type[Exception], ...] = (sqlite3.Error,)
    integrity_error: type[Exception] = sqlite3.IntegrityError

    def __init__(self, path: str) -> None:
        self.target = self.path = path

    async def fetch(self, sql: str) -> list[tuple[Any, ...]]:
        """Rows of ``sql`` (or nothing, for a statement), on a connection of the test's own."""
        with sqlite3.connect(self.path, isolation_level=None) as c:
            return [tuple(r) for r in c.execute(sql).fetchall()]

    async def version(self) -> int:
        return int((await self.fetch("PRAGMA user_version"))[0][0])

    async def set_version(self, version: int) -> None:
        await self.fetch(f"PRAGMA user_version = {version}")

    async def names(self) -> set[str]:
        """The tables and indexes."""
        return {r[0] for r in await self.fetch("SELECT name FROM sqlite_master")}

    async def columns(self, table: str) -> set[str]:
        return {r[1] for r in await self.fetch(f"PRAGMA table_info({table})")}

    async def schema(self) -> list[tuple[Any, ...]]:
        """Every table, index and their SQL."""
        return sorted(await self.fetch("SELECT type, name, sql FROM sqlite_master"), key=str)

    async def refuse_snapshot(self, value: str) -> None:
        """Make any update that sets the snapshot to ``value`` fail with "<value> refused"."""
        await self.fetch(f"CREATE TRIGGER refuse BEFORE UPDATE OF snapshot ON games WHEN NEW.snapshot = '{value}' "
                         f"BEGIN SELECT RAISE(ABORT, '{value} refused'); END")


class PostgresBackend:
    """A fresh database on the test cluster."""

    name = "postgresql"
    errors: tuple[type[Exception], ...] = (asyncpg.PostgresError,)
    integrity_error: type[Exception] = asyncpg.IntegrityConstraintViolationError

    def __init__(self, url: str) -> None:
        self.target = url

    async def fetch(self, sql: str) -> list[tuple[Any, ...]]:
        conn = await asyncpg.connect(self.target)
        try:
            return [tuple(r) for r in await conn.fetch(sql)]
        finally:
            await conn.close()

    async def version(self) -> int:
        return int((await self.fetch("SELECT version FROM tiempo_schema"))[0][0])

    async def set_version(self, version: int) -> None:
        await self.fetch(f"UPDATE tiempo_schema SET version = {version}")

    async def names(self) -> set[str]:
        return {r[0] for r in await self.fetch(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i')")}

    async def columns(self, table: str) -> set[str]:
        return {r[0] for r in await self.fetch(
            f"SELECT column_name FROM information_schema.columns WHERE table_name = '{table}'")}

    async def schema(self) -> list[tuple[Any, ...]]:
        columns = await self.fetch(
            "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns "
            "WHERE table_schema = current_schema()")
        indexes = await self.fetch("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()")
        checks = await self.fetch("SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint")
        return sorted(columns + indexes + checks, key=str)

    async def refuse_snapshot(self, value: str) -> None:
        await self.fetch(
            "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            f"IF NEW.snapshot = '{value}' THEN RAISE EXCEPTION '{value} refused'; END IF; RETURN NEW; END $$")
        await self.fetch("CREATE TRIGGER refuse BEFORE UPDATE OF snapshot ON games FOR EACH ROW "
                         "EXECUTE FUNCTION refuse()")


Backend = SQLiteBackend | PostgresBackend
