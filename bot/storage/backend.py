"""What ``Storage`` needs of a database, whichever holds the games: a transaction with ``execute`` and
``one``, reads outside transactions, a statement committed on its own, the schema version, checks,
closing. ``bot.storage.sqlite`` and ``bot.storage.postgres`` implement it; ``database`` setting values
name one or the other.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol
from urllib.parse import unquote_plus, urlsplit

from .schema import Dialect, Row

#: the URL schemes that name a PostgreSQL database (both are libpq's)
POSTGRES_SCHEMES = ("postgresql", "postgres")


class Tx(Protocol):
    """One open transaction."""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> None:
        """Run one statement."""

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row of a query, or None."""


class Database(Protocol):
    """An open database holding the games, at the current schema version."""

    #: what messages call it: the file's path, or the URL without its password
    name: str
    dialect: Dialect
    #: appended to the SELECT that loads a game inside a transaction: locks its row until the end
    lock_row: str

    def transaction(self) -> AbstractAsyncContextManager[Tx]:
        """One write transaction, committed (durably) on leaving, rolled back on an error."""

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """All rows of a read-only query, outside any transaction."""

    async def apply(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """One statement that writes, as a transaction of its own, committed (durably) before it returns;
        its first row, or None."""

    async def schema_version(self) -> int:
        """The schema version stored in the database."""

    async def integrity_problems(self) -> list[str]:
        """What the database's own checks find wrong; empty when it is sound."""

    async def try_lock(self, game_id: int, holder: str) -> bool:
        """Take game ``game_id``'s lock in the database for ``holder`` (one process's name) unless another
        process holds it; whether it was taken. A process that dies gives its locks up."""

    async def unlock(self, game_id: int, holder: str) -> None:
        """Give the lock taken by ``try_lock`` back."""

    async def close(self) -> None:
        """Close it (idempotent)."""


def is_postgres_url(target: str) -> bool:
    """Whether a ``database`` setting names a PostgreSQL database (``postgresql://…``) rather than a file."""
    return target.split("://", 1)[0].lower() in POSTGRES_SCHEMES and "://" in target


def without_password(url: str) -> str:
    """``url`` with any password taken out (from the user part and from a ``password=`` parameter), for
    messages and logs."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}@{host}"
    # (the other parameters as written: re-encoded, "%20" would become "+", which libpq does not read)
    query = "&".join(item for item in parts.query.split("&") if item and _key(item) != "password")
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")


def has_password(url: str) -> bool:
    """Whether the PostgreSQL URL ``url`` holds a password (in its user part or a ``password=`` parameter)."""
    parts = urlsplit(url)
    return parts.password is not None or any(_key(item) == "password" for item in parts.query.split("&"))


def _key(item: str) -> str:
    """A query item's name, decoded (``password`` of ``pass%77ord=x``)."""
    return unquote_plus(item.partition("=")[0])


_QUOTED_OR_MARK = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\?")


@functools.lru_cache(maxsize=256)
def numbered(sql: str) -> str:
    """``sql`` with its ``?`` placeholders numbered PostgreSQL's way (``$1``, ``$2``, …); question marks
    inside quoted strings and names are left alone."""
    count = 0

    def number(match: re.Match[str]) -> str:
        nonlocal count
        if match.group() != "?":
            return match.group()
        count += 1
        return f"${count}"

    return _QUOTED_OR_MARK.sub(number, sql)
