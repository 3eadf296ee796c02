"""The outbox: the channel posts an accepted action causes, stored in the action's own transaction and
deleted once sent (the posts sent within a few tens of milliseconds in one transaction). A crash
between the commit and the post leaves the post here, and the next start sends it
(``bot.service.courier``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .backend import Database, Tx
from .notify import Letter, queue_letters
from .records import GameRecord

#: the ids one statement deletes at most (SQLite allows 32,766 parameters, PostgreSQL 32,767)
FORGET_AT_ONCE = 500


@dataclass(frozen=True)
class Body:
    """A post as the outbox keeps it: the service's encoding of its words, buttons and the rest as
    text (``text``: bot.service.messages), and its pictures' bytes one after the other (``pictures``,
    binary: a ``BLOB``, a ``bytea``; the text says where each ends), None when it has none. A post
    stored as text alone (a ``str``) has no pictures, or carries them in its text (posts stored before
    schema step 10: base64 in the JSON)."""

    text: str
    pictures: bytes | None = None


@dataclass(frozen=True)
class QueuedPost:
    """A post waiting to be sent: ``body`` and ``pictures`` are the service's encoding of it
    (``Body``)."""

    id: int
    game_id: int
    guild_id: int
    channel_id: int
    body: str
    created_at: float
    pictures: bytes | None = None

    @property
    def nonce(self) -> str:
        """What Discord is told the post is, so that sending it twice posts it once."""
        return f"tiempo-{self.id}"


#: what a post to store is: its text alone, its text and pictures, or a direct message
Posted = str | Body | Letter


async def queue_posts(db: Tx, game: GameRecord, bodies: Sequence[Posted], at: float) -> None:
    """Store ``bodies`` as the game's next posts, in the open transaction ``db`` (a ``Letter``, a direct
    message to a person, in the direct outbox: ``bot.storage.notify``)."""
    await queue_letters(db, game, [b for b in bodies if isinstance(b, Letter)], at)
    for body in (b for b in bodies if not isinstance(b, Letter)):
        text, pictures = (body, None) if isinstance(body, str) else (body.text, body.pictures)
        await db.execute("INSERT INTO outbox (game_id, guild_id, channel_id, body, pictures, created_at) "
                         "VALUES (?, ?, ?, ?, ?, ?)", (game.id, game.guild_id, game.channel_id, text, pictures, at))


class PostQueue:
    """The posts waiting in the outbox, oldest first."""

    def __init__(self, database: Database) -> None:
        self.database = database

    async def pending(self, channel_id: int, *, limit: int = 20, after: int = 0) -> list[QueuedPost]:
        """The oldest posts waiting for channel ``channel_id`` (those stored after post ``after``)."""
        rows = await self.database.fetchall(
            "SELECT id, game_id, guild_id, channel_id, body, created_at, pictures FROM outbox WHERE channel_id = ? "
            "AND id > ? ORDER BY id LIMIT ?", (channel_id, after, limit))
        return [QueuedPost(r[0], r[1], r[2], r[3], r[4], r[5], None if r[6] is None else bytes(r[6])) for r in rows]

    async def channels(self) -> list[tuple[int, int]]:
        """``(guild, channel)`` of every channel with posts waiting."""
        rows = await self.database.fetchall("SELECT DISTINCT guild_id, channel_id FROM outbox")
        return [(int(r[0]), int(r[1])) for r in rows]

    async def add(self, game: GameRecord, bodies: Sequence[Posted], at: float) -> None:
        """Store ``bodies`` as the game's next posts, on their own (a notice that no action causes)."""
        async with self.database.transaction() as db:
            await queue_posts(db, game, bodies, at)

    async def sent(self, *post_ids: int) -> None:
        """The posts went out (or cannot ever): forget them, all in one transaction."""
        if not post_ids:
            return
        async with self.database.transaction() as db:
            for i in range(0, len(post_ids), FORGET_AT_ONCE):
                some = post_ids[i:i + FORGET_AT_ONCE]
                await db.execute(f"DELETE FROM outbox WHERE id IN ({', '.join('?' * len(some))})", some)
