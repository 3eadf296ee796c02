"""What the players keep of their games: a result per seat of every finished game, the skill ratings of
each server, and what each rated game changed (schema step 4). Profiles, leaderboards and the list of
one's games read from here; ``bot.service.community`` decides what goes in.

Every query is indexed for a host with many games: a player's results by (server, player, time) and
(player, time), a server's ratings by (server, rating). Games in play are found through the games'
status index, their seats compared as text first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import astuple, dataclass, fields
from typing import Final

from .backend import Database, Tx
from .records import GameRecord
from .schema import GAME_COLUMNS, Row, game_of


@dataclass(frozen=True)
class ResultRecord:
    """One seat's result in a finished game, with what the seat did in it (``bot.service.stats``).
    ``place`` is shared by tied seats; ``rated``: the game counts for the ratings."""

    game_id: int
    seat: int
    guild_id: int
    channel_id: int
    user_id: int
    name: str
    ai: bool
    players: int
    place: int
    ecus: int
    won: bool
    rated: bool
    finished_at: float
    ripples: int = 0
    paradoxes: int = 0
    cards: int = 0
    built_might: int = 0
    built_faith: int = 0
    built_reason: int = 0
    income_might: int = 0
    income_faith: int = 0
    income_reason: int = 0


@dataclass(frozen=True)
class RatingRecord:
    """A player's skill on one server: the model's ``mu`` and ``sigma``, and ``rating``, the number shown."""

    guild_id: int
    user_id: int
    name: str
    mu: float
    sigma: float
    rating: int
    games: int
    updated_at: float


@dataclass(frozen=True)
class RatingChange:
    """What one rated game changed for one player: the number shown before and after it, and the model's
    state after it."""

    game_id: int
    user_id: int
    guild_id: int
    rating_before: int
    rating_after: int
    mu: float
    sigma: float


@dataclass(frozen=True)
class Totals:
    """A player's finished games added up (on one server, or on all)."""

    games: int
    won: int
    average_ecus: float
    ripples: int
    paradoxes: int
    built_might: int
    built_faith: int
    built_reason: int


RESULT_COLUMNS: Final = ", ".join(f.name for f in fields(ResultRecord))
RATING_COLUMNS: Final = ", ".join(f.name for f in fields(RatingRecord))
CHANGE_COLUMNS: Final = ", ".join(f.name for f in fields(RatingChange))
#: the tables step 4 made, with their columns in order (``tiempo-bot copy-games`` carries them)
TABLES: Final = {"results": RESULT_COLUMNS, "ratings": RATING_COLUMNS, "rating_changes": CHANGE_COLUMNS}
#: the order a table's rows are read in for a copy and its comparison
ORDER: Final = {"results": "game_id, seat", "ratings": "guild_id, user_id", "rating_changes": "game_id, user_id"}


def result_of(row: Row) -> ResultRecord:
    """A ResultRecord from a row of ``RESULT_COLUMNS``."""
    values = [row[i] for i in range(len(fields(ResultRecord)))]
    values[6], values[10], values[11] = bool(values[6]), bool(values[10]), bool(values[11])
    return ResultRecord(*values)


def rating_of(row: Row) -> RatingRecord:
    """A RatingRecord from a row of ``RATING_COLUMNS``."""
    return RatingRecord(*(row[i] for i in range(len(fields(RatingRecord)))))


def change_of(row: Row) -> RatingChange:
    """A RatingChange from a row of ``CHANGE_COLUMNS``."""
    return RatingChange(*(row[i] for i in range(len(fields(RatingChange)))))


def _values(record: ResultRecord | RatingRecord | RatingChange) -> tuple[object, ...]:
    return tuple(int(v) if isinstance(v, bool) else v for v in astuple(record))


def _marks(columns: str) -> str:
    return ", ".join("?" * len(columns.split(",")))


def _where(user_id: int, guild_id: int | None) -> tuple[str, tuple[int, ...]]:
    """The WHERE clause of a person's results: on one server, or on all (``guild_id`` None)."""
    if guild_id is None:
        return "user_id = ? AND ai = 0", (user_id,)
    return "guild_id = ? AND user_id = ? AND ai = 0", (guild_id, user_id)


#: given the ratings the game's people had (None: a first rated game), the changes and the new ratings
Rate = Callable[[Mapping[int, RatingRecord | None]], tuple[Sequence[RatingChange], Sequence[RatingRecord]]]


class PlayerRecords:
    """The results, ratings and rating changes of one database."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def _all(self, sql: str, params: Sequence[object] = ()) -> list[Row]:
        return await self.database.fetchall(sql, params)

    # -- writing ----------------------------------------------------------------------------------

    async def record_game(self, results: Sequence[ResultRecord], rate: Rate | None = None) -> bool:
        """Store a finished game's ``results`` (one per seat) and, with ``rate``, its change of the ratings
        of the people in it, read and written in one transaction. False (nothing written) when the game
        was recorded already."""
        if not results:
            return False
        game_id, guild_id = results[0].game_id, results[0].guild_id
        async with self.database.transaction() as tx:
            if await tx.one("SELECT 1 FROM results WHERE game_id = ?", (game_id,)) is not None:
                return False
            for r in results:
                await tx.execute(f"INSERT INTO results ({RESULT_COLUMNS}) VALUES ({_marks(RESULT_COLUMNS)})",
                                 _values(r))
            if rate is not None:
                people = [r.user_id for r in results if not r.ai]
                before = {u: await self._rating(tx, guild_id, u) for u in people}
                changes, ratings = rate(before)
                await _write_ratings(tx, changes, ratings)
        return True

    async def _rating(self, tx: Tx, guild_id: int, user_id: int) -> RatingRecord | None:
        row = await tx.one(f"SELECT {RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND user_id = ?"
                           f"{self.database.lock_row}", (guild_id, user_id))
        return rating_of(row) if row is not None else None

    async def replace_ratings(self, changes: Sequence[RatingChange], ratings: Sequence[RatingRecord]) -> None:
        """Every rating and rating change replaced by these, in one transaction (a rebuild)."""
        async with self.database.transaction() as tx:
            await tx.execute("DELETE FROM rating_changes")
            await tx.execute("DELETE FROM ratings")
            await _write_ratings(tx, changes, ratings)

    # -- reading ----------------------------------------------------------------------------------

    async def is_recorded(self, game_id: int) -> bool:
        """Whether the finished game ``game_id``'s results are stored."""
        return bool(await self._all("SELECT 1 FROM results WHERE game_id = ? LIMIT 1", (game_id,)))

    async def unrecorded(self, *, limit: int = 1000) -> list[int]:
        """Finished games whose results are not stored (a crash right after the last action, or games
        finished before step 4), oldest first."""
        rows = await self._all("SELECT g.id FROM games g WHERE g.status = 'finished' AND NOT EXISTS "
                               "(SELECT 1 FROM results r WHERE r.game_id = g.id) ORDER BY g.id LIMIT ?", (limit,))
        return [int(r[0]) for r in rows]

    async def results_of_game(self, game_id: int) -> list[ResultRecord]:
        """A finished game's results, by seat."""
        rows = await self._all(f"SELECT {RESULT_COLUMNS} FROM results WHERE game_id = ? ORDER BY seat", (game_id,))
        return [result_of(r) for r in rows]

    async def rated_results(self) -> list[ResultRecord]:
        """Every result of a rated game, in the order the games finished (a rebuild's)."""
        rows = await self._all(f"SELECT {RESULT_COLUMNS} FROM results WHERE rated = 1 "
                               "ORDER BY finished_at, game_id, seat")
        return [result_of(r) for r in rows]

    async def totals(self, user_id: int, guild_id: int | None = None) -> Totals | None:
        """A person's finished games added up, on server ``guild_id`` or on all; None if they have none."""
        where, params = _where(user_id, guild_id)
        row = (await self._all(
            "SELECT COUNT(*), SUM(won), AVG(ecus), SUM(ripples), SUM(paradoxes), SUM(built_might), "
            f"SUM(built_faith), SUM(built_reason) FROM results WHERE {where}", params))[0]
        if not row[0]:
            return None
        return Totals(int(row[0]), int(row[1]), float(row[2]), *(int(row[i]) for i in range(3, 8)))

    async def best(self, user_id: int, guild_id: int | None = None) -> ResultRecord | None:
        """A person's best finish: the best place (a win first), of the most players, with the most Ecus
        (the earliest of equals). Ecus alone would put a fifth place of a five-player game with 6 Ecus
        before a two-player win with 4."""
        where, params = _where(user_id, guild_id)
        rows = await self._all(f"SELECT {RESULT_COLUMNS} FROM results WHERE {where} "
                               "ORDER BY place, players DESC, ecus DESC, finished_at LIMIT 1", params)
        return result_of(rows[0]) if rows else None

    async def recent(self, user_id: int, guild_id: int | None = None, *, limit: int = 5) -> list[ResultRecord]:
        """A person's last ``limit`` finished games, latest first."""
        where, params = _where(user_id, guild_id)
        rows = await self._all(f"SELECT {RESULT_COLUMNS} FROM results WHERE {where} "
                               "ORDER BY finished_at DESC, game_id DESC LIMIT ?", (*params, limit))
        return [result_of(r) for r in rows]

    async def servers_of(self, user_id: int) -> int:
        """On how many servers a person finished a game."""
        rows = await self._all("SELECT COUNT(DISTINCT guild_id) FROM results WHERE user_id = ? AND ai = 0",
                               (user_id,))
        return int(rows[0][0])

    async def rating(self, guild_id: int, user_id: int) -> tuple[RatingRecord, int] | None:
        """A person's rating on a server and their place on its leaderboard, or None before a rated game."""
        rows = await self._all(f"SELECT {RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND user_id = ?",
                               (guild_id, user_id))
        if not rows:
            return None
        mine = rating_of(rows[0])
        above = await self._all("SELECT COUNT(*) FROM ratings WHERE guild_id = ? AND rating > ?",
                                (guild_id, mine.rating))
        return mine, int(above[0][0]) + 1

    async def ratings_of(self, guild_id: int, user_ids: Sequence[int]) -> dict[int, RatingRecord]:
        """The ratings these people have on a server (those who have one)."""
        out: dict[int, RatingRecord] = {}
        for user_id in user_ids:
            rows = await self._all(f"SELECT {RATING_COLUMNS} FROM ratings WHERE guild_id = ? AND user_id = ?",
                                   (guild_id, user_id))
            if rows:
                out[user_id] = rating_of(rows[0])
        return out

    async def board(self, guild_id: int, *, offset: int = 0, limit: int = 10) -> list[RatingRecord]:
        """A server's ratings, best first (equal ratings in the order of the people's ids)."""
        rows = await self._all(f"SELECT {RATING_COLUMNS} FROM ratings WHERE guild_id = ? "
                               "ORDER BY rating DESC, user_id LIMIT ? OFFSET ?", (guild_id, limit, offset))
        return [rating_of(r) for r in rows]

    async def rated_players(self, guild_id: int) -> int:
        """How many people have a rating on a server."""
        return int((await self._all("SELECT COUNT(*) FROM ratings WHERE guild_id = ?", (guild_id,)))[0][0])

    async def changes_of_game(self, game_id: int) -> list[RatingChange]:
        """What a rated game changed, per person."""
        rows = await self._all(f"SELECT {CHANGE_COLUMNS} FROM rating_changes WHERE game_id = ? ORDER BY user_id",
                               (game_id,))
        return [change_of(r) for r in rows]

    async def all_ratings(self) -> list[RatingRecord]:
        """Every rating, by server and person (to compare a rebuild)."""
        rows = await self._all(f"SELECT {RATING_COLUMNS} FROM ratings ORDER BY guild_id, user_id")
        return [rating_of(r) for r in rows]

    async def playing(self, user_id: int) -> list[GameRecord]:
        """The games being played in which the person has a seat, by id, in one query. The status index
        finds the games in play (few, beside the finished ones); their seats are matched as text, then
        read."""
        rows = await self._all(f"SELECT {GAME_COLUMNS} FROM games WHERE status = 'playing' "
                               "AND CAST(seats AS TEXT) LIKE ? ORDER BY id", (f'%"user_id": {int(user_id)},%',))
        games = [game_of(r) for r in rows]
        return [g for g in games if any(s.user_id == user_id and s.ai_level is None for s in g.seats)]


async def _write_ratings(tx: Tx, changes: Sequence[RatingChange], ratings: Sequence[RatingRecord]) -> None:
    for c in changes:
        await tx.execute(f"INSERT INTO rating_changes ({CHANGE_COLUMNS}) VALUES ({_marks(CHANGE_COLUMNS)})",
                         _values(c))
    for r in ratings:
        await tx.execute(
            f"INSERT INTO ratings ({RATING_COLUMNS}) VALUES ({_marks(RATING_COLUMNS)}) "
            "ON CONFLICT (guild_id, user_id) DO UPDATE SET name = excluded.name, mu = excluded.mu, "
            "sigma = excluded.sigma, rating = excluded.rating, games = excluded.games, "
            "updated_at = excluded.updated_at", _values(r))


__all__ = ["CHANGE_COLUMNS", "ORDER", "RATING_COLUMNS", "RESULT_COLUMNS", "TABLES", "PlayerRecords", "Rate",
           "RatingChange", "RatingRecord", "ResultRecord", "Totals", "change_of", "rating_of", "result_of"]
