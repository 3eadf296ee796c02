"""How each person is told it is their turn (``/tiempo notify``), and the direct messages waiting to
tell them: the direct outbox.

A person's choice (``channel``, ``dm`` or ``off``) is one row per person, kept across games and
servers. A direct message is stored as a ``Letter`` with the action that makes it due (in the action's
own transaction, as the channel posts are: ``queue_posts``), addressed to a person, due at a time
(``reminder_minutes`` after the turn began, or at once) and valid while the game is still where it was
(its count of actions, ``seq``): a player who acted meanwhile is not reminded. The timers read only the
letters that are due (an index on ``due_at``); each is deleted once sent, or, when the person's direct
messages are closed, replaced by its ``fallback`` post in the channel, in one transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .backend import Database, Tx
from .records import GameRecord
from .schema import now_or

#: how a person may be told of their turn; the first is everyone's until they choose
MODES: Final = ("channel", "dm", "off")

LETTER_COLUMNS: Final = "id, game_id, guild_id, channel_id, user_id, seq, due_at, body, fallback, created_at"
SETTING_COLUMNS: Final = "user_id, mode, told_closed, updated_at"
#: a waiting letter as ``QueuedLetter`` reads it: current while its game is untouched since it was written
_QUEUED: Final = ("d.id, d.game_id, d.guild_id, d.channel_id, d.user_id, d.body, d.fallback, d.due_at, "
                  "CASE WHEN g.status = 'playing' AND g.action_count = d.seq AND g.updated_at <= d.created_at "
                  "THEN 1 ELSE 0 END")


@dataclass(frozen=True)
class Letter:
    """A direct message to store with an action: to ``user_id``, due at ``due_at`` (unix seconds),
    valid while the game has ``seq`` actions; ``body`` and ``fallback`` (the channel post that replaces
    it when the person's direct messages are closed) are the service's encoding of posts."""

    user_id: int
    body: str
    fallback: str
    due_at: float
    seq: int


@dataclass(frozen=True)
class QueuedLetter:
    """A direct message waiting in the direct outbox. ``current``: its game is still being played at
    the position it was written for, untouched since (an action and its undo leave the count of actions
    as it was, not the time of the last change); else it is dropped unsent."""

    id: int
    game_id: int
    guild_id: int
    channel_id: int
    user_id: int
    body: str
    fallback: str
    due_at: float
    current: bool

    @property
    def nonce(self) -> str:
        """What Discord is told the message is, so that sending it twice sends it once."""
        return f"tiempo-dm-{self.id}"


async def queue_letters(db: Tx, game: GameRecord, letters: Sequence[Letter], at: float) -> None:
    """Store ``letters`` for the game, in the open transaction ``db``."""
    for letter in letters:
        await db.execute(
            "INSERT INTO direct_outbox (game_id, guild_id, channel_id, user_id, seq, due_at, body, fallback, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (game.id, game.guild_id, game.channel_id, letter.user_id, letter.seq, letter.due_at, letter.body,
             letter.fallback, at))


class Notices:
    """Each person's choice of how to be told of their turn, and the direct messages waiting."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def mode(self, user_id: int) -> str:
        """How ``user_id`` is told of their turn (``channel`` until they choose)."""
        row = await self.database.fetchall("SELECT mode FROM notify_settings WHERE user_id = ?", (user_id,))
        return str(row[0][0]) if row else MODES[0]

    async def choose(self, user_id: int, mode: str, *, now: float | None = None) -> None:
        """Make ``mode`` (one of ``MODES``) how ``user_id`` is told; they will be told again if their
        direct messages turn out closed. Raises ValueError for another mode."""
        if mode not in MODES:
            raise ValueError(f"not a way to be told: {mode!r}")
        async with self.database.transaction() as db:
            await db.execute("DELETE FROM notify_settings WHERE user_id = ?", (user_id,))
            await db.execute("INSERT INTO notify_settings (user_id, mode, told_closed, updated_at) "
                             "VALUES (?, ?, 0, ?)", (user_id, mode, now_or(now)))

    async def due(self, now: float, *, limit: int = 20) -> list[QueuedLetter]:
        """The oldest direct messages due by ``now`` (only those rows are read)."""
        rows = await self.database.fetchall(
            f"SELECT {_QUEUED} "
            "FROM direct_outbox d JOIN games g ON g.id = d.game_id WHERE d.due_at <= ? "
            "ORDER BY d.due_at, d.id LIMIT ?", (now, limit))
        return [QueuedLetter(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], bool(r[8])) for r in rows]

    async def next_due(self) -> float | None:
        """When the next direct message is due (None if none waits)."""
        rows = await self.database.fetchall("SELECT MIN(due_at) FROM direct_outbox")
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    async def sent(self, letter_id: int) -> None:
        """The direct message went out (or never will, or is no longer wanted): forget it."""
        async with self.database.transaction() as db:
            await db.execute("DELETE FROM direct_outbox WHERE id = ?", (letter_id,))

    async def refused(self, letter: QueuedLetter, told: str, untold: str, *, now: float | None = None) -> bool:
        """The person's direct messages are closed: in one transaction, forget ``letter`` and put a post
        in its channel's outbox instead — ``told`` (the fallback, telling them why) the first time,
        ``untold`` after. True when they were told now."""
        async with self.database.transaction() as db:
            gone = await db.one("SELECT 1 FROM direct_outbox WHERE id = ?", (letter.id,))
            if gone is None:  # another process took it
                return False
            row = await db.one("SELECT told_closed FROM notify_settings WHERE user_id = ?", (letter.user_id,))
            first = row is None or not row[0]
            await db.execute("DELETE FROM direct_outbox WHERE id = ?", (letter.id,))
            if row is not None:
                await db.execute("UPDATE notify_settings SET told_closed = 1 WHERE user_id = ?", (letter.user_id,))
            await db.execute(
                "INSERT INTO outbox (game_id, guild_id, channel_id, body, created_at) VALUES (?, ?, ?, ?, ?)",
                (letter.game_id, letter.guild_id, letter.channel_id, told if first else untold, now_or(now)))
            return first

    async def waiting(self, user_id: int | None = None) -> list[QueuedLetter]:
        """Every direct message waiting (to ``user_id``), due or not, oldest first (for tests and checks)."""
        where, params = ("WHERE d.user_id = ? ", (user_id,)) if user_id is not None else ("", ())
        rows = await self.database.fetchall(
            f"SELECT {_QUEUED} "
            f"FROM direct_outbox d JOIN games g ON g.id = d.game_id {where}ORDER BY d.due_at, d.id", params)
        return [QueuedLetter(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], bool(r[8])) for r in rows]
