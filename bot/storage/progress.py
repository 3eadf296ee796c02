"""What each person has learnt: the lessons of the course they finished and the tips they were given
(``bot.service.lessons``), one row per person and item, kept across games and restarts."""

from __future__ import annotations

from .backend import Database
from .schema import now_or

#: the table's columns, as ``tiempo-bot copy-games`` copies them
PROGRESS_COLUMNS = "user_id, item, done_at"


class Progress:
    """Items (``lesson:ripples``, ``tip:paradox``) marked done per person (a Discord user id)."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def done(self, user_id: int) -> set[str]:
        """Every item ``user_id`` has done."""
        rows = await self.database.fetchall("SELECT item FROM progress WHERE user_id = ?", (user_id,))
        return {str(r[0]) for r in rows}

    async def mark(self, user_id: int, item: str, *, now: float | None = None) -> bool:
        """Mark ``item`` done for ``user_id``; False when it already was (the first time is kept)."""
        async with self.database.transaction() as db:
            row = await db.one("SELECT 1 FROM progress WHERE user_id = ? AND item = ?", (user_id, item))
            if row is not None:
                return False
            await db.execute("INSERT INTO progress (user_id, item, done_at) VALUES (?, ?, ?) "
                             "ON CONFLICT (user_id, item) DO NOTHING", (user_id, item, now_or(now)))
            return True

    async def forget(self, user_id: int, prefix: str = "") -> int:
        """Forget ``user_id``'s items starting with ``prefix`` (all with ``""``); how many were forgotten."""
        async with self.database.transaction() as db:
            row = await db.one("SELECT COUNT(*) FROM progress WHERE user_id = ? AND substr(item, 1, ?) = ?",
                               (user_id, len(prefix), prefix))
            await db.execute("DELETE FROM progress WHERE user_id = ? AND substr(item, 1, ?) = ?",
                             (user_id, len(prefix), prefix))
            return int(row[0]) if row is not None else 0
