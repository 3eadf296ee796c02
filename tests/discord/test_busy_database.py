"""A game whose database another process holds: the player reads "busy, try again in a moment" within
Discord's 3 seconds (the wait for the lock is bounded), nothing is changed, no apology, no traceback;
once the lock is let go, the same command works."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from bot.service import Caller, Post, Tiempo
from bot.storage import GameRecord, Storage
from bot.words import PLAIN, render
from rules import Action, EndTurn, GameState, legal_actions
from tests.support.discord_play import answer, make_bot, open_table, state_of, user_of
from tests.support.discord_sim import DiscordSim

BUSY = "The game is busy (its database is in use elsewhere), so nothing was changed. Try again in a moment."

pytestmark = pytest.mark.slow  # each waits out the 2 s a game's lock is waited for


async def _until(condition: Callable[[], bool | Awaitable[bool]], timeout: float = 10.0) -> None:
    """Wait until ``condition()`` holds (or, if it is a coroutine, its result), looking every 50 ms;
    TimeoutError after ``timeout`` seconds."""
    async def poll() -> None:
        while True:
            held = condition()
            if not isinstance(held, bool):
                held = await held
            if held:
                return
            await asyncio.sleep(0.05)

    await asyncio.wait_for(poll(), timeout)


async def _moved(storage: Storage, game: GameRecord) -> bool:
    return (await storage.get_game(game.id)).action_count > game.action_count


@contextmanager
def held_elsewhere(db: Path) -> Iterator[None]:
    """Another process's write transaction on the database (a backup, an admin's sqlite3 shell)."""
    other = sqlite3.connect(db, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        yield
        other.execute("ROLLBACK")
    finally:
        other.close()


async def test_a_command_on_a_game_held_elsewhere_answers_busy_in_time(sim: DiscordSim, tmp_path: Path,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "t.sqlite3"
    bot = await sim.connect(make_bot(sim, db))
    users = await open_table(sim, bot, "bob")
    _, state = await state_of(bot, sim)
    player = user_of(users, state, state.active)
    with caplog.at_level(logging.INFO), held_elsewhere(db):
        began = time.monotonic()
        iid = sim.inject(sim.slash("tiempo", "end", user=player))
        reply = await sim.reply(iid, timeout=10)
        waited = time.monotonic() - began
        record = sim.interactions[iid]
        assert record.answered_after is not None and record.answered_after < 3.0  # acknowledged in time
        reply = await sim.wait_for(lambda: (m := sim.message(reply.id)) and not m.loading and m, timeout=10)
        assert reply.ephemeral and reply.content == BUSY, reply.content
        assert waited < 3.0, waited
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    _, same = await state_of(bot, sim)
    assert same == state  # nothing was played
    done = await answer(sim, sim.slash("tiempo", "end", user=player))
    assert "Your hand" in done.content or "turn" in done.content
    _, after = await state_of(bot, sim)
    assert after.turn != state.turn  # the same command, once the lock is let go


async def test_a_lobby_button_on_a_game_held_elsewhere_answers_busy_within_3_seconds(sim: DiscordSim,
                                                                                      tmp_path: Path) -> None:
    """The Join button is answered without a defer: the bounded wait keeps it within Discord's 3 s."""
    db = tmp_path / "t.sqlite3"
    await sim.connect(make_bot(sim, db))
    lobby = await answer(sim, sim.slash("tiempo", "new", {}))
    bob = sim.add_user("bob")
    with held_elsewhere(db):
        iid = sim.inject(sim.click(lobby.custom_id("Join"), lobby, user=bob))
        busy = await sim.reply(iid, timeout=10)
        record = sim.interactions[iid]
        assert record.answered_after is not None and record.answered_after < 3.0
        assert busy.ephemeral and busy.content == BUSY
    joined = await answer(sim, sim.click(lobby.custom_id("Join"), lobby, user=bob))
    assert "bob" in joined.content


class Posts:
    """The channel's posts, as text."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        self.texts.append(render(post.text, PLAIN))


async def test_an_ai_seat_plays_once_the_database_is_free_again(tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    """An AI seat whose move meets a busy database tries again, rather than stopping its game."""
    db = tmp_path / "t.sqlite3"
    storage = await Storage.open(str(db))
    thinking = threading.Event()

    def ai(state: GameState, seat: int, level: str, *, seed: int = 0, budget_s: float = 0) -> Action:
        thinking.wait(10)
        return next(a for a in legal_actions(state) if isinstance(a, EndTurn))

    posts = Posts()
    service = Tiempo(storage, posts, choose_ai=ai, render=False, seed_source=lambda: 5)
    alice = Caller(1, 1, 100, "alice")
    try:
        await service.new(alice)
        await service.add_bot(alice, "random")
        await service.start_game(alice)
        game = await storage.active_game_in_channel(1)
        assert game is not None
        if service.state_of(game).waiting_on == 0:
            await service.play(alice, "end", {"discard": None})
        before = await storage.get_game(game.id)
        with caplog.at_level(logging.INFO), held_elsewhere(db):
            thinking.set()  # the AI moves while the database is held…
            await _until(lambda: any("database is busy" in r.getMessage() for r in caplog.records))
        await asyncio.wait_for(service.idle(), 20)  # …and again once it is free
        after = await storage.get_game(game.id)
        assert after.action_count > before.action_count
        assert not any("ran into a problem" in t for t in posts.texts)
        assert any("database is busy" in r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    finally:
        thinking.set()
        await service.close()
        await storage.close()


async def test_the_turn_limit_check_waits_for_a_busy_database_without_a_traceback(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "t.sqlite3"
    storage = await Storage.open(str(db))
    now = [1_800_000_000.0]
    service = Tiempo(storage, Posts(), render=False, seed_source=lambda: 5, clock=lambda: now[0])
    people = [Caller(1, 1, 100, "alice"), Caller(1, 1, 101, "bob")]
    try:
        await service.new(people[0], turn_minutes=1)
        await service.join(people[1])
        await service.start_game(people[0])
        game = await storage.active_game_in_channel(1)
        assert game is not None
        now[0] += 120  # the first turn's time ran out
        with caplog.at_level(logging.INFO), held_elsewhere(db):
            timers = asyncio.create_task(service.run_timers(every=0.2))
            await _until(lambda: any("put off" in r.getMessage() for r in caplog.records
                                     if r.levelno == logging.WARNING))
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
        await _until(lambda: _moved(storage, game))  # the next check ends the turn
        timers.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await timers
    finally:
        await service.close()
        await storage.close()
