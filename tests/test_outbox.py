"""The outbox: an action's channel posts are stored with it, sent after the commit outside the game's
lock (a slow channel delays its posts, not the game), and kept as they were (words, buttons, pictures)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.service import Caller, Picture, Post, Tiempo, version_of
from bot.service.messages import SendLater, decode_post, encode_post
from bot.storage import Storage
from bot.words import Button, Code, Command, Here, Mention, Strong, say, text
from rules import EndTurn, legal_actions


def test_a_post_is_stored_as_it_was_made() -> None:
    post = Post(text(Strong("Round 2."), " ", Mention(5, "Ana"), say(" {c} {b} {code} {here}.", c=Command(
        "build", "kind:Keep", or_button=True), b=Button("Rematch", "rematch", " below"), code=Code("MM 1+1"),
                    here=Here(capital=True))), png=b"\x89PNG one", filename="one.png",
                gallery=(Picture(b"\x89PNG two", "two.png", "Might: no change", False),),
                hand_game=3, choice_game=3, version="12-abcdef", choices=(("E4", "E4"), ("F4", "F4")),
                mentions=(5,), play_game=3)
    assert decode_post(encode_post(post)) == post


class SlowChannel:
    """A channel that Discord slows down: each post waits until the test lets it through."""

    def __init__(self) -> None:
        self.open = asyncio.Event()
        self.posted: list[tuple[str | None, str]] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        if nonce is not None:  # the outbox's posts (an action's announcement)
            await self.open.wait()
        self.posted.append((nonce, post.text.plain()))


async def test_a_slow_channel_delays_its_posts_not_the_game(tmp_path: Path) -> None:
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    channel = SlowChannel()
    service = Tiempo(storage, channel, render=False, seed_source=lambda: 3)
    service.herald.courier.patience = 0.1
    ana, ben = Caller(1, 1, 100, "Ana"), Caller(1, 1, 101, "Ben")
    try:
        await service.new(ana)
        await service.join(ben)
        await service.start_game(ana)
        for _ in range(3):  # three ends of turn, each answered though the channel holds every post
            game = await storage.active_game_in_channel(1)
            assert game is not None
            state = service.state_of(game)
            end = min((a for a in legal_actions(state) if isinstance(a, EndTurn)), key=lambda a: a.discard.total)
            who = ana if state.players[end.player].name == "Ana" else ben
            await asyncio.wait_for(service.table.play_action(who, game.id, version_of(game), lambda s, p, a=end: a),
                                   timeout=1.0)
        assert [n for n, _ in channel.posted if n is not None] == []  # nothing got through yet
        waiting = await storage.posts.pending(1)
        assert len(waiting) == 4  # the first board, then three ends of turn
        channel.open.set()
        await asyncio.wait_for(service.herald.courier.flush(1, timeout=5), timeout=6)
        sent = [(n, words) for n, words in channel.posted if n is not None]
        assert [n for n, _ in sent] == [p.nonce for p in waiting]  # in order, each once
        assert "begins" in sent[0][1] and all("ends the turn" in words for _, words in sent[1:])
        assert await storage.posts.pending(1) == []
    finally:
        await service.close()
        await storage.close()


async def test_a_time_out_is_told_before_the_turn_it_ends_and_outside_the_lock(tmp_path: Path) -> None:
    """The "Time is up" note goes in the outbox with the first action the time-out plays: a slow
    channel does not hold the game, and the note comes before the board it explains."""
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    channel = SlowChannel()
    now = [1_800_000_000.0]
    service = Tiempo(storage, channel, render=False, seed_source=lambda: 3, clock=lambda: now[0])
    service.herald.courier.patience = 0.1
    ana, ben = Caller(1, 1, 100, "Ana"), Caller(1, 1, 101, "Ben")
    try:
        await service.new(ana, turn_minutes=1)
        await service.join(ben)
        await service.start_game(ana)
        game = await storage.active_game_in_channel(1)
        assert game is not None
        now[0] += 120
        await asyncio.wait_for(service.turns.time_out(game.id), timeout=2.0)  # though the channel holds every post
        assert (await storage.get_game(game.id)).action_count > game.action_count
        channel.open.set()
        await asyncio.wait_for(service.herald.courier.flush(1, timeout=5), timeout=6)
        sent = [words for n, words in channel.posted if n is not None]
        assert "begins" in sent[0] and sent[1].startswith("Time is up for") and "ends the turn" in sent[2]
        assert len(sent) == 3 and await storage.posts.pending(1) == []
    finally:
        await service.close()
        await storage.close()


class FlakyChannel:
    """A channel whose first ``failures`` sends fail as Discord's outages do (the post may go later)."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.posted: list[tuple[str | None, str]] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        if nonce is not None and self.failures > 0:
            self.failures -= 1
            raise SendLater("Discord answered 503")
        self.posted.append((nonce, post.text.plain()))


async def test_a_post_discord_fails_to_take_is_sent_again_in_its_place(tmp_path: Path,
                                                                      caplog: pytest.LogCaptureFixture) -> None:
    """An outage of Discord's loses no post and reorders none: the channel's posts wait, and go out
    in order once it is over (a pause of 1 s, then 2 s, ...)."""
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    channel = FlakyChannel(failures=2)
    service = Tiempo(storage, channel, render=False, seed_source=lambda: 3)
    service.herald.courier.patience = 0.1
    ana, ben = Caller(1, 1, 100, "Ana"), Caller(1, 1, 101, "Ben")
    try:
        await service.new(ana)
        await service.join(ben)
        await service.start_game(ana)
        game = await storage.active_game_in_channel(1)
        assert game is not None
        state = service.state_of(game)
        end = min((a for a in legal_actions(state) if isinstance(a, EndTurn)), key=lambda a: a.discard.total)
        who = ana if state.players[end.player].name == "Ana" else ben
        await service.table.play_action(who, game.id, version_of(game), lambda s, p, a=end: a)
        waiting = [p.nonce for p in await storage.posts.pending(1)]
        assert len(waiting) == 2  # the first board and the end of the turn, both held by the outage
        await asyncio.wait_for(service.herald.courier.flush(1, timeout=10), timeout=11)
        assert [n for n, _ in channel.posted if n is not None] == waiting  # each once, in order
        assert await storage.posts.pending(1) == []
        assert sum("wait (Discord answered 503)" in r.getMessage() for r in caplog.records) == 2
    finally:
        await service.close()
        await storage.close()


async def test_an_outbox_that_cannot_read_the_database_tries_again(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A database error while the channel's posts are read stops nothing for good: they go out after a pause."""
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    channel = FlakyChannel(failures=0)
    service = Tiempo(storage, channel, render=False, seed_source=lambda: 3)
    service.herald.courier.patience = 0.1
    pending = storage.posts.pending
    failures = [RuntimeError("disk I/O error")]

    async def flaky_pending(*args: Any, **kwargs: Any) -> Any:
        if failures:
            raise failures.pop()
        return await pending(*args, **kwargs)

    try:
        await service.new(Caller(1, 1, 100, "Ana"))
        await service.join(Caller(1, 1, 101, "Ben"))
        monkeypatch.setattr(storage.posts, "pending", flaky_pending)
        await service.start_game(Caller(1, 1, 100, "Ana"))
        await asyncio.wait_for(service.herald.courier.flush(1, timeout=5), timeout=6)
        assert ["begins" in words for n, words in channel.posted if n is not None] == [True]
    finally:
        await service.close()
        await storage.close()


class BrokenPostChannel(FlakyChannel):
    """A channel where one post can never be sent (discord.py refuses it before sending: too many files)."""

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        if "ends the turn" in post.text.plain():
            raise ValueError("files parameter must be a list of up to 10 elements")
        await super().post(channel_id, post, nonce)


async def test_a_post_that_can_never_be_sent_is_dropped_and_the_others_go(tmp_path: Path,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    channel = BrokenPostChannel(failures=0)
    service = Tiempo(storage, channel, render=False, seed_source=lambda: 3)
    ana, ben = Caller(1, 1, 100, "Ana"), Caller(1, 1, 101, "Ben")
    try:
        await service.new(ana)
        await service.join(ben)
        await service.start_game(ana)
        for _ in range(2):
            game = await storage.active_game_in_channel(1)
            assert game is not None
            state = service.state_of(game)
            end = min((a for a in legal_actions(state) if isinstance(a, EndTurn)), key=lambda a: a.discard.total)
            who = ana if state.players[end.player].name == "Ana" else ben
            await service.table.play_action(who, game.id, version_of(game), lambda s, p, a=end: a)
        await asyncio.wait_for(service.herald.courier.flush(1, timeout=5), timeout=6)
        assert [("begins" in words) for n, words in channel.posted if n is not None] == [True]
        assert await storage.posts.pending(1) == []  # the two broken ones dropped, logged
        assert sum("cannot be sent; it is dropped" in r.getMessage() for r in caplog.records) == 2
        service.herald.courier.kick(1)  # Courier.close() is next: after it, a kick starts nothing
        await service.herald.courier.close()
        service.herald.courier.kick(1)
        assert all(t.done() for t in service.herald.courier._tasks.values())
    finally:
        await service.close()
        await storage.close()
