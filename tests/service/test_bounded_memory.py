"""What the service keeps per game or per channel in memory is bounded: a bot that runs for months
over thousands of games and channels does not grow. Senders and AI tasks are forgotten when they end;
the remembered live messages and the counts of changes keep the most recent only."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import bot.service.courier as courier_module
import bot.service.games as games_module
from bot.service import Caller, Post, Tiempo
from bot.service.courier import Courier
from bot.service.games import Games
from bot.service.messages import encode_post
from bot.storage import Storage
from bot.words import text


class Channels:
    """Channels whose messages the bot can edit: (channel, words) of each message."""

    def __init__(self) -> None:
        self.messages: list[tuple[int, str]] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> int:
        self.messages.append((channel_id, post.text.plain()))
        return len(self.messages) - 1

    async def edit(self, channel_id: int, message_id: int, post: Post) -> bool:
        self.messages[message_id] = (channel_id, post.text.plain())
        return True


async def test_a_channel_s_sender_is_forgotten_once_its_posts_are_out_and_few_live_messages_are_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(courier_module, "LIVE_KEPT", 2)
    channels = Channels()
    async with await Storage.open(str(tmp_path / "c.sqlite3")) as storage:
        courier = Courier(storage, channels, lambda guild: True)
        for channel_id in (1, 2, 3):
            game = await storage.create_game(guild_id=1, channel_id=channel_id, opener_id=1, seed=1)
            await storage.posts.add(game, [encode_post(Post(text(f"Ana builds in {channel_id}."), live="1-1"))], 0)
            courier.kick(channel_id)
            await asyncio.wait_for(courier.flush(channel_id, timeout=10), 11)
            await asyncio.sleep(0)  # the ended sender's callback
        assert [words for _, words in channels.messages] == ["Ana builds in 1.", "Ana builds in 2.", "Ana builds in 3."]
        assert not courier._tasks and not courier._sent  # nothing left of the senders
        assert list(courier._live) == [2, 3]  # the two channels posted to last
        await courier.close()


async def test_a_game_s_ai_task_is_forgotten_when_it_ends(tmp_path: Path) -> None:
    async with await Storage.open(str(tmp_path / "t.sqlite3")) as storage:
        service = Tiempo(storage, Channels(), render=False, seed_source=lambda: 3)
        ana = Caller(1, 1, 100, "Ana")
        await service.new(ana)
        await service.add_bot(ana, "random")
        await service.add_bot(ana, "random")
        await service.start_game(ana)
        game = await storage.active_game_in_channel(1)
        assert game is not None
        service.seats.drive(game.id)  # the AI seats play until it is Ana's turn
        await service.idle()
        await asyncio.sleep(0)  # the ended task's callback
        assert service.seats._tasks == {}
        await service.close()


async def test_the_counts_of_changes_keep_the_most_recent_games_and_stay_safe(monkeypatch: pytest.MonkeyPatch
                                                                                ) -> None:
    """A reader compares a game's mark before and after awaiting the database; when its game's count
    is forgotten meanwhile (to bound memory), the mark still differs, so nothing stale is cached."""
    monkeypatch.setattr(games_module, "CHANGES_KEPT", 3)
    games = Games(storage=None, clock=lambda: 0.0)  # type: ignore[arg-type]
    seen = games.changes(1)
    games._changed(1)
    assert games.changes(1) != seen
    seen = games.changes(1)
    for game_id in range(2, 10):  # game 1's count is forgotten among many others' changes
        games._changed(game_id)
    assert len(games._changes) == 3 and 1 not in games._changes
    assert games.changes(1) != seen
