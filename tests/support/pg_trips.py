"""Counting the round trips Tiempo makes to a PostgreSQL server: every statement a connection sends and
waits for (a query, a BEGIN, a COMMIT, a connection's reset), through asyncpg's public query loggers,
on every connection opened while ``Trips.counting`` is active (the pool's and the game locks')."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import asyncpg
import pytest


class Trips:
    """The statements sent to the server, in order, while ``on``."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.on = False

    def _logged(self, record: Any) -> None:
        if self.on:
            self.sent.append(" ".join(str(record.query).split()))

    def _watch(self, conn: asyncpg.Connection) -> None:
        conn.add_query_logger(self._logged)

    @classmethod
    @contextlib.contextmanager
    def counting(cls, monkeypatch: pytest.MonkeyPatch) -> Iterator[Trips]:
        """Watch every connection asyncpg opens from now on (``asyncpg.connect``, ``asyncpg.create_pool``)."""
        trips = cls()
        connect, create_pool = asyncpg.connect, asyncpg.create_pool

        async def watched_connect(*args: Any, **kwargs: Any) -> Any:
            conn = await connect(*args, **kwargs)
            trips._watch(conn)
            return conn

        def watched_pool(*args: Any, init: Any = None, **kwargs: Any) -> Any:
            async def start(conn: asyncpg.Connection) -> None:
                trips._watch(conn)
                if init is not None:
                    await init(conn)

            return create_pool(*args, init=start, **kwargs)

        monkeypatch.setattr(asyncpg, "connect", watched_connect)
        monkeypatch.setattr(asyncpg, "create_pool", watched_pool)
        yield trips

    @contextlib.asynccontextmanager
    async def of(self) -> Any:
        """Count what the block sends (``sent`` holds it afterwards)."""
        self.sent, self.on = [], True
        try:
            yield self
        finally:
            for _ in range(3):  # the loggers are called soon after each statement, not during it
                await asyncio.sleep(0)
            self.on = False
