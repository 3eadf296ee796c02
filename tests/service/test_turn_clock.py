"""The turn clock reads only the games that are due (their deadline, or their half time unwarned),
and its warning says the real time left; a command in an idle channel reads that channel's last game,
not the server's history."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.service import Caller, Post, Tiempo
from bot.service.clock import time_left
from bot.storage import SeatRecord, Status, Storage
from tests.support.backends import Backend
from tests.support.clocks import Clock

ANA, BEN = Caller(1, 1, 100, "Ana"), Caller(1, 1, 101, "Ben")
SEATS = (SeatRecord(101, "Ana", "Red"), SeatRecord(202, "Ben", "White"))


class Channel:
    """What the channel is told, in plain words."""

    def __init__(self) -> None:
        self.said: list[str] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        self.said.append(post.text.plain())


@pytest.mark.parametrize(("seconds", "words"), [(30, "30 s"), (4, "10 s"), (95, "100 s"), (119, "120 s"),
                                                (150, "2 min"), (30 * 60, "30 min"), (90 * 60, "90 min"),
                                                (125 * 60, "2 h 5 min"), (3 * 3600, "3 h")])
def test_the_time_left_is_said_as_exactly_as_it_matters(seconds: float, words: str) -> None:
    assert time_left(seconds) == words


async def test_a_one_minute_limit_warns_with_30_seconds_left(tmp_path: Path) -> None:
    clock, channel = Clock(), Channel()
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    service = Tiempo(storage, channel, render=False, seed_source=lambda: 3, clock=clock)
    try:
        await service.new(ANA, turn_minutes=1)
        await service.join(BEN)
        await service.start_game(ANA)
        clock.now += 29
        await service.tick()
        await service.herald.courier.flush(1, timeout=5)
        assert not any("half your turn" in s for s in channel.said)
        clock.now += 1
        await service.tick()
        await service.herald.courier.flush(1, timeout=5)
        assert next(s for s in channel.said if "half your turn" in s).endswith("about 30 s left in game #1.")
    finally:
        await service.close()
        await storage.close()


async def test_only_due_games_are_read_by_the_clock(backend: Backend) -> None:
    """Deadline at 1000 s, 10-minute limits (half time 300 s before): at 650 s nothing is due; at 700 s
    the unwarned game is (half time), not the warned one; at 1000 s both are; a game without a limit,
    one not being played, never."""
    store = await Storage.open(backend.target)
    try:
        games = []
        for channel in (2, 3, 4, 5):
            g = await store.create_game(guild_id=1, channel_id=channel, opener_id=101, seed=7, seats=SEATS,
                                        options={"turn_minutes": 10 if channel != 4 else 0})
            games.append(await store.start_game(g.id, json.dumps({"seq": 0}),
                                                turn_deadline=None if channel == 4 else 1000.0, now=1.0))
        unwarned, warned, unlimited, over = games
        await store.mark_half_warned(warned.id)
        await store.set_status(over.id, Status.FINISHED)
        assert await store.due_games(650.0) == []
        assert [g.id for g in await store.due_games(700.0)] == [unwarned.id]
        assert [g.id for g in await store.due_games(1000.0)] == [unwarned.id, warned.id]
        assert unlimited.id not in [g.id for g in await store.due_games(10**9)]
    finally:
        await store.close()


async def test_the_last_game_that_ended_in_a_channel_is_found_among_others(backend: Backend) -> None:
    store = await Storage.open(backend.target)
    try:
        ids = {}
        for channel in (2, 3, 2, 3):
            g = await store.create_game(guild_id=1, channel_id=channel, opener_id=101, seed=7, seats=SEATS)
            await store.start_game(g.id, json.dumps({"seq": 0}))
            await store.set_status(g.id, Status.FINISHED)
            ids.setdefault(channel, []).append(g.id)
        assert (await store.last_game_in_channel(2, Status.FINISHED)).id == ids[2][-1]  # type: ignore[union-attr]
        assert (await store.last_game_in_channel(3, Status.FINISHED)).id == ids[3][-1]  # type: ignore[union-attr]
        assert await store.last_game_in_channel(9, Status.FINISHED) is None
        assert await store.last_game_in_channel(2, Status.CANCELLED) is None
    finally:
        await store.close()
