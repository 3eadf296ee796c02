"""How many hints each seat of a game asked for (``bot.service.hints``): a JSON list of counts by seat in
the game's ``hints`` column (migration step 9), read back as ``GameRecord.hints``."""

from __future__ import annotations

import json

from .backend import Database
from .records import GameNotFoundError, Status, StatusError


class HintCounts:
    """Counts the hints of the games being played."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def count(self, game_id: int, seat: int) -> tuple[int, ...]:
        """Add one to the hints seat ``seat`` asked for in a game being played, in one transaction (the
        game itself unchanged); the counts by seat after it. Raises GameNotFoundError, StatusError (the
        game is not being played)."""
        async with self.database.transaction() as db:
            row = await db.one(f"SELECT status, hints FROM games WHERE id = ?{self.database.lock_row}", (game_id,))
            if row is None:
                raise GameNotFoundError(game_id)
            if Status(row["status"]) is not Status.PLAYING:
                raise StatusError(game_id, Status(row["status"]), "count a hint")
            counts = [int(n) for n in json.loads(row["hints"] or "[]")]
            counts += [0] * (seat + 1 - len(counts))
            counts[seat] += 1
            await db.execute("UPDATE games SET hints = ? WHERE id = ?", (json.dumps(counts), game_id))
            return tuple(counts)


__all__ = ["HintCounts"]
