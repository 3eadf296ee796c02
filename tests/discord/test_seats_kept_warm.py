"""Seats the AI keeps warm (docs/ai.md): two time-outs in a row hand a person's seat to the AI, which plays
it at the greedy level from the seat's own view until the person acts again; ``away`` and ``back`` do the
same on purpose. The channel says so each time, and nothing of the hand is shown to anyone."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.service import Caller, Post, Refusal, RefusalCode, Tiempo
from bot.service.clock import safe_action
from bot.storage import StandIn, Storage
from rules import Action, GameState
from tests.support.clocks import Clock
from tests.support.discord_play import Clock as DiscordClock
from tests.support.discord_play import answer, make_bot, open_table, public, state_of, user_of
from tests.support.discord_sim import DiscordSim, SimMessage

ANA, BEN = Caller(1, 1, 100, "Ana"), Caller(1, 1, 101, "Ben")


class Channel:
    """What the channel is told, in plain words."""

    def __init__(self) -> None:
        self.said: list[str] = []

    async def post(self, channel_id: int, post: Post, nonce: str | None = None) -> None:
        self.said.append(post.text.plain())

    def since(self, n: int) -> str:
        return "\n".join(self.said[n:])


@dataclass
class AI:
    """A stand-in for the AI players: the safe action, noting for which seat and at which level it
    decided; ``hold`` keeps it thinking until set."""

    asked: list[tuple[int, str]] = field(default_factory=list)
    hold: threading.Event | None = None
    thinking: threading.Event = field(default_factory=threading.Event)

    def __call__(self, state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0) -> Action:
        self.asked.append((seat, level))
        self.thinking.set()
        if self.hold is not None:
            self.hold.wait(10)
        action = safe_action(state)
        assert action is not None
        return action


@dataclass
class Table:
    service: Tiempo
    channel: Channel
    clock: Clock
    ai: AI

    async def game(self) -> tuple[int, GameState]:
        game = (await self.service.storage.list_games())[-1]
        return game.id, self.service.state_of(game)

    async def stand_in(self, seat: int) -> StandIn:
        return (await self.service.storage.list_games())[-1].stand_in(seat)

    async def waiting(self) -> Caller:
        _, state = await self.game()
        return (ANA, BEN)[state.waiting_on]

    async def settle(self) -> None:
        await self.service.idle()
        await self.service.herald.courier.flush(1, timeout=5)

    async def time_out(self) -> None:
        self.clock.now += 61
        await self.service.tick()
        await self.settle()

    async def end_turn(self, caller: Caller) -> None:
        await self.service.play(caller, "end", {"discard": None})
        await self.settle()


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    """Ana and Ben at a game with a one-minute turn limit, Ana first (seat 0)."""
    clock, channel, ai = Clock(), Channel(), AI()
    storage = await Storage.open(str(tmp_path / "t.sqlite3"))
    service = Tiempo(storage, channel, render=False, seed_source=lambda: 3, clock=clock, choose_ai=ai)
    try:
        await service.new(ANA, turn_minutes=1)
        await service.join(BEN)
        await service.start_game(ANA)
        t = Table(service, channel, clock, ai)
        await t.settle()
        if await t.waiting() != ANA:  # the deal's first player is Ben: his turn ends first
            await t.end_turn(BEN)
        yield t
    finally:
        if ai.hold is not None:
            ai.hold.set()
        await service.close()
        await storage.close()


def no_hand_in(said: str) -> bool:
    return "Your hand" not in said and "Pawn 1 on" not in said


async def test_two_time_outs_in_a_row_hand_the_seat_to_the_ai_and_a_tap_gives_it_back(table: Table) -> None:
    t = table
    await t.time_out()  # Ana's turn times out: one
    assert (await t.stand_in(0)) == StandIn(0, misses=1) and "Time is up for Ana" in t.channel.since(0)
    await t.end_turn(BEN)
    heard = len(t.channel.said)
    await t.time_out()  # and again: the AI takes her seat over
    assert await t.stand_in(0) == StandIn(0, misses=2, by="time", stood=True)
    assert "Ana's time ran out twice in a row, so the AI plays their seat" in t.channel.since(heard)
    assert t.ai.asked == []  # her turn ended by the clock; the AI plays from her next turn
    heard = len(t.channel.said)
    await t.end_turn(BEN)
    assert t.ai.asked == [(0, "greedy")]  # it played her turn, at the greedy level, for her seat
    said = t.channel.since(heard)
    assert "The AI plays for Ana, who is away" in said and await t.waiting() == BEN
    await t.end_turn(BEN)
    assert t.ai.asked == [(0, "greedy")] * 2  # each turn of hers, until she is back
    # her tap (a look at the board) gives the seat back: at once, since the game waits on Ben
    heard = len(t.channel.said)
    await t.service.board(ANA)
    await t.settle()
    assert await t.stand_in(0) == StandIn(0, stood=True) and "Ana is back" in t.channel.since(heard)
    await t.end_turn(BEN)
    assert t.ai.asked == [(0, "greedy")] * 2 and await t.waiting() == ANA  # her turn is hers
    assert no_hand_in(t.channel.since(0))


async def test_acting_between_time_outs_starts_the_count_again(table: Table) -> None:
    t = table
    await t.time_out()
    await t.end_turn(BEN)
    await t.service.hand(ANA)  # she acts: the time-out before no longer counts
    assert await t.stand_in(0) == StandIn(0)
    await t.time_out()
    assert await t.stand_in(0) == StandIn(0, misses=1) and t.ai.asked == []


async def test_a_seat_handed_to_the_ai_and_taken_back(table: Table) -> None:
    t = table
    reply = await t.service.away(ANA)  # in the middle of her own turn: the AI goes on with it
    await t.settle()
    assert "The AI plays your seat in game #1" in reply.text.plain()
    assert "Ana hands their seat to the AI for now" in t.channel.since(0)
    assert t.ai.asked == [(0, "greedy")] and await t.waiting() == BEN
    assert await t.stand_in(0) == StandIn(0, by="away", stood=True)
    with pytest.raises(Refusal) as again:
        await t.service.away(ANA)
    assert again.value.code is RefusalCode.STOOD_IN
    await t.service.hand(ANA)  # a look keeps a seat handed over on purpose with the AI
    assert (await t.stand_in(0)).is_standing
    heard = len(t.channel.said)
    reply = await t.service.back(ANA)
    await t.settle()
    assert reply.text.plain() == "Your seat in game #1 is yours again."
    assert "Ana is back" in t.channel.since(heard) and not (await t.stand_in(0)).is_standing
    with pytest.raises(Refusal) as twice:
        await t.service.back(ANA)
    assert twice.value.code is RefusalCode.STOOD_IN
    await t.end_turn(BEN)
    assert await t.waiting() == ANA and len(t.ai.asked) == 1
    assert no_hand_in(t.channel.since(0))


async def test_back_in_the_middle_of_the_ais_turn_gives_the_seat_back_when_it_is_done(table: Table) -> None:
    t = table
    await t.end_turn(ANA)
    await t.service.away(ANA)
    t.ai.hold = threading.Event()
    await t.service.play(BEN, "end", {"discard": None})  # the game comes to Ana's seat: the AI thinks
    assert await asyncio.to_thread(t.ai.thinking.wait, 10)
    reply = await t.service.back(ANA)
    assert "The AI finishes what it is playing for you now" in reply.text.plain()
    assert await t.stand_in(0) == StandIn(0, by="away", back=True, stood=True)
    with pytest.raises(Refusal) as busy:  # her own move meanwhile: the AI is playing it
        await t.service.play(ANA, "end", {"discard": None})
    assert busy.value.code is RefusalCode.STOOD_IN
    heard = len(t.channel.said)
    t.ai.hold.set()
    await t.settle()
    assert t.ai.asked == [(0, "greedy")] and await t.waiting() == BEN
    assert await t.stand_in(0) == StandIn(0, stood=True) and "Ana is back" in t.channel.since(heard)
    await t.end_turn(BEN)
    assert await t.waiting() == ANA and len(t.ai.asked) == 1  # her next turn is hers


async def test_the_final_ranking_says_the_ai_stood_in_and_the_game_is_rated(table: Table) -> None:
    t = table
    await t.service.away(ANA)
    await t.settle()
    for _ in range(200):  # Ben ends each of his turns at once; the AI plays Ana's
        _, state = await t.game()
        if state.finished:
            break
        await t.end_turn(BEN)
    _, state = await t.game()
    assert state.finished
    final = t.channel.said[-1]
    assert "is over" in final and "The AI stood in for Ana for part of the game; the game is rated as usual" in final
    assert "📈 Ratings:" in final and no_hand_in(t.channel.since(0))
    with pytest.raises(Refusal) as over:
        await t.service.away(BEN)
    assert over.value.code is RefusalCode.GAME_OVER


async def test_only_a_player_of_the_game_hands_a_seat_over(table: Table) -> None:
    with pytest.raises(Refusal) as outsider:
        await table.service.away(Caller(1, 1, 999, "Dora"))
    assert outsider.value.code is RefusalCode.NOT_SEATED


# -- under the Discord stand-in (tests/discord_sim.py) --------------------------------------------------


def safe_ai(state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0) -> Action:
    """An AI that ends its turn at once (or takes the first answer)."""
    action = safe_action(state)
    assert action is not None
    return action



def last_board(sim: DiscordSim) -> SimMessage:
    return next(m for m in reversed(public(sim)) if any(c.startswith("tiempo:hand:") for c in m.custom_ids()))


async def test_discord_two_time_outs_hand_the_seat_over_and_a_tap_gives_it_back(sim: DiscordSim,
                                                                                tmp_path: Path) -> None:
    clock = DiscordClock()
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3", clock=clock, choose_ai=safe_ai))
    users = await open_table(sim, bot, "bob", turn_minutes=1)
    _, state = await state_of(bot, sim)
    quiet = user_of(users, state, state.active)
    other = next(u for u in users if u is not quiet)
    clock.now += 61
    await bot.service.tick()
    await sim.wait_for_message(lambda m: "Time is up" in m.content)
    await answer(sim, sim.slash("tiempo", "end", user=other))
    clock.now += 61
    await bot.service.tick()
    handed = await sim.wait_for_message(lambda m: "ran out twice in a row" in m.content)
    assert f"<@{quiet.id}>" in handed.content and "AI plays their seat" in handed.content
    await answer(sim, sim.slash("tiempo", "end", user=other))
    await bot.service.idle()
    await sim.wait_for_message(lambda m: f"plays for {quiet.name}, who is away" in m.content)
    _, state = await state_of(bot, sim)
    assert user_of(users, state, state.waiting_on) is other  # the AI played the quiet seat's turn
    board = last_board(sim)
    tap = await answer(sim, sim.click(board.custom_id("My hand"), board, user=quiet))
    assert tap.ephemeral and "Your hand" in tap.content
    await sim.wait_for_message(lambda m: f"{quiet.name} is back" in m.content)
    await answer(sim, sim.slash("tiempo", "end", user=other))
    await bot.service.idle()
    _, state = await state_of(bot, sim)
    assert user_of(users, state, state.waiting_on) is quiet  # their turn is theirs again
    assert all("Your hand" not in m.content for m in public(sim))


async def test_discord_a_seat_handed_to_the_ai_with_away_and_taken_back_with_back(sim: DiscordSim,
                                                                                  tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3", choose_ai=safe_ai))
    users = await open_table(sim, bot, "bob")
    _, state = await state_of(bot, sim)
    mover = user_of(users, state, state.active)
    other = next(u for u in users if u is not mover)
    away = await answer(sim, sim.slash("tiempo", "me away", user=other))
    assert away.ephemeral and "plays your seat" in away.content
    await sim.wait_for_message(lambda m: f"{other.name} hands their seat to the AI" in m.content)
    await answer(sim, sim.slash("tiempo", "end", user=mover))
    await bot.service.idle()
    await sim.wait_for_message(lambda m: f"plays for {other.name}, who is away" in m.content)
    _, state = await state_of(bot, sim)
    assert user_of(users, state, state.waiting_on) is mover
    back = await answer(sim, sim.slash("tiempo", "me back", user=other))
    assert back.ephemeral and "yours again" in back.content
    await sim.wait_for_message(lambda m: f"{other.name} is back" in m.content)
    await answer(sim, sim.slash("tiempo", "end", user=mover))
    await bot.service.idle()
    _, state = await state_of(bot, sim)
    assert user_of(users, state, state.waiting_on) is other
    assert all("Your hand" not in m.content for m in public(sim))


async def test_the_one_play_path_lets_the_ai_play_a_persons_seat_only_while_it_stands_in(table: Table) -> None:
    t = table
    game_id, _ = await t.game()
    with pytest.raises(Refusal) as refused:  # the game waits on Ana, who plays her own seat
        async with t.service.moves.open(game_id, ai=True):
            pass
    assert refused.value.code is RefusalCode.STOOD_IN
    t.ai.hold = threading.Event()
    await t.service.away(ANA)
    assert await asyncio.to_thread(t.ai.thinking.wait, 10)
    async with t.service.moves.open(game_id, ai=True) as opened:  # now the AI may play it
        assert opened.seat == 0
    t.ai.hold.set()
    await t.settle()
    assert t.ai.asked == [(0, "greedy")] and await t.waiting() == BEN


def test_the_final_word_on_a_stand_in_speaks_of_the_rating_only_in_a_rated_game() -> None:
    """With an AI player seated the game is not rated (the final post says so): the word on the seat
    the AI stood in for does not say it is."""
    from bot.service.warm import final_note
    from bot.storage import GameRecord, SeatRecord, Status
    from bot.words import PLAIN, Text, render

    seats = (SeatRecord(1, "Ana", "Red"), SeatRecord(2, "Ben", "White"))
    game = GameRecord(1, 1, 1, 1, Status.FINISHED, {}, seats, 0, 0.0, 0.0, None, 0, None, False,
                      stand_ins=(StandIn(0, stood=True),))
    with_ai = dataclasses.replace(game, seats=(*seats, SeatRecord(0, "Magpie", "Green", ai_level="greedy")))
    rated, unrated = (final_note(g) for g in (game, with_ai))
    assert rated is not None and unrated is not None
    assert "rated as usual" in render(rated, PLAIN)
    assert render(unrated, PLAIN) == "🤖 The AI stood in for Ana for part of the game."
    both = dataclasses.replace(with_ai, stand_ins=(StandIn(0, stood=True), StandIn(1, stood=True)))
    assert render(final_note(both) or Text(), PLAIN) == "🤖 The AI stood in for Ana and Ben for part of the game."
