"""Posts that stop meaning anything lose their buttons (issue 19, point 7): a decision answered or
taken back, a lobby superseded or started, an AI's "is thinking…" once it has played."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from bot.discord import TiempoBot
from bot.service import Caller, Stale, version_of
from rules import Action, GameState, parse_action
from tests.support.decisions import DECISION_SEED, TO_THE_DECISION, play
from tests.support.discord_play import answer, make_bot, open_table, random_ai, state_of
from tests.support.discord_sim import DiscordSim, SimMessage, SimUser


async def to_the_decision(sim: DiscordSim, tmp_path: Path) -> tuple[TiempoBot, list[SimUser], int, SimMessage]:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3", seed_source=lambda: DECISION_SEED))
    users = await open_table(sim, bot, "bob")
    for line in TO_THE_DECISION:
        _, state = await state_of(bot, sim)
        await play(sim, bot, users, parse_action(line, state))
    game_id, state = await state_of(bot, sim)
    assert state.pending is not None
    asker = next(m for m in reversed(sim.channel_messages())
                 if any(c.startswith(f"tiempo:choose:{game_id}:") for c in m.custom_ids()))
    assert f"tiempo:play:{game_id}" in asker.custom_ids()
    return bot, users, game_id, asker


def caller(sim: DiscordSim, user: SimUser) -> Caller:
    return Caller(sim.guild.id, sim.channel.id, user.id, user.name)


async def settled(sim: DiscordSim, message: SimMessage) -> SimMessage:
    """The message once it has lost its buttons (but My hand and Board now)."""
    def done() -> SimMessage | None:
        now = sim.message(message.id)
        return now if not [c for c in now.custom_ids() if not c.startswith(("tiempo:hand:", "tiempo:board:"))] \
            else None
    result: SimMessage = await sim.wait_for(done, what="the message to lose its buttons")
    return result


async def test_an_answered_decision_post_has_no_active_button(sim: DiscordSim, tmp_path: Path) -> None:
    bot, users, game_id, asker = await to_the_decision(sim, tmp_path)
    alice = users[0]
    version = version_of(await bot.service.storage.get_game(game_id))
    chosen = await answer(sim, sim.click(f"tiempo:choose:{game_id}:{version}:L4", asker, user=alice))
    assert chosen.ephemeral
    after = await settled(sim, asker)
    assert after.content.splitlines()[-1] == "✅ alice (Red) answered: L4: alice's Chapel."
    assert "which of these Chapels" not in after.content
    assert after.filenames == asker.filenames  # the pictures stay
    assert after.custom_ids() == []
    # a button of it kept somewhere (a message sent before a restart is not remembered) answers as before
    with pytest.raises(Stale, match="already answered"):
        await bot.service.play(caller(sim, alice), "choose", {"cell": "O5"}, game_id, version)


async def test_a_decision_taken_back_loses_its_buttons(sim: DiscordSim, tmp_path: Path) -> None:
    bot, users, game_id, asker = await to_the_decision(sim, tmp_path)
    _, state = await state_of(bot, sim)
    mover = users[state.active]
    version = version_of(await bot.service.storage.get_game(game_id))
    assert state.pending is not None and state.pending.decision.player == state.active  # their own action asked
    # the panel's question view offers Undo, which takes the action and its question back
    panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", asker, user=mover))
    assert panel.ephemeral and "Which of these Chapels on Might is destroyed?" in panel.content
    undo = next(c for c in panel.custom_ids() if c.startswith("tiempo:undo:"))
    undone = await answer(sim, sim.click(undo, panel, user=mover))
    assert undone.id == panel.id and "**Undone.**" in undone.content and "What do you do?" in undone.content
    after = await settled(sim, asker)
    colour = state.players[state.active].colour.value
    assert after.content.splitlines()[-1] == f"↩️ Taken back by {mover.name} ({colour}): no answer is needed."
    assert after.custom_ids() == []
    with pytest.raises(Stale, match="That question was taken back"):
        await bot.service.play(caller(sim, users[0]), "choose", {"cell": "O5"}, game_id, version)


async def test_the_ai_s_thinking_post_says_a_long_turn_and_then_that_it_played(sim: DiscordSim,
                                                                                tmp_path: Path) -> None:
    release = threading.Event()
    thinking = threading.Event()

    def slow_ai(state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0) -> Action:
        thinking.set()
        release.wait(10)
        return random_ai(state, seat, level, seed=seed, budget_s=budget_s)

    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3", choose_ai=slow_ai))
    bot.service.seats.slow_after = 0.0  # a turn is "long" at once: no timing in the test
    await answer(sim, sim.slash("tiempo", "new", {"seats": 2}))
    await answer(sim, sim.slash("tiempo", "addbot", {"level": "random"}))
    await answer(sim, sim.slash("tiempo", "start"))
    _, state = await state_of(bot, sim)
    if state.players[state.active].name == "alice":
        await answer(sim, sim.slash("tiempo", "end"))
        _, state = await state_of(bot, sim)
    ai = state.players[state.active].name
    await sim.wait_for(thinking.is_set, what="the AI to start thinking")
    post = await sim.wait_for_message(  # (it may say it takes long already)
        lambda m: f"{ai} (AI) is thinking…" in m.content or f"{ai} (AI) is still thinking" in m.content)
    slow = f"{ai} (AI) is still thinking: a random player's turn can take a while…"
    await sim.wait_for(lambda: sim.message(post.id).content.endswith(slow), what="the post to say it takes long")
    release.set()
    played = f"{ai} (AI) has played: its turn is below."
    await sim.wait_for(lambda: sim.message(post.id).content.endswith(played), what="the post to say it played")
    now = sim.message(post.id)
    assert "is thinking" not in now.content and now.filenames == post.filenames
    turn = await sim.wait_for_message(lambda m: m.id > post.id and f"{ai} (" in m.content
                                      and "ends the turn" in m.content)
    assert not turn.ephemeral


async def test_a_lobby_superseded_or_started_loses_its_buttons(sim: DiscordSim, tmp_path: Path) -> None:
    await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    first = await answer(sim, sim.slash("tiempo", "new", {"seats": 3}))
    assert first.custom_ids() and not first.ephemeral
    second = await answer(sim, sim.slash("tiempo", "addbot", {"level": "random"}))
    assert second.id != first.id and second.custom_ids()
    old = await settled(sim, first)
    assert old.content == first.content  # its words stay: only the buttons go
    # a player joins by the newest lobby's button: it is updated in place and keeps its buttons
    bob = sim.add_user("bob")
    joined = await answer(sim, sim.click(second.custom_id("Join"), second, user=bob))
    assert joined.id == second.id and "bob" in joined.content and joined.custom_ids()
    started = await answer(sim, sim.slash("tiempo", "start"))
    assert started.ephemeral
    after = await settled(sim, second)
    assert after.content.splitlines()[-1] == "The game has started: its first board is below."
    assert "bob" in after.content


async def test_a_cancelled_lobby_loses_its_buttons(sim: DiscordSim, tmp_path: Path) -> None:
    await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    lobby = await answer(sim, sim.slash("tiempo", "new"))
    cancelled = await answer(sim, sim.slash("tiempo", "cancel"))
    assert not cancelled.ephemeral and "was cancelled" in cancelled.content
    after = await settled(sim, lobby)
    assert after.content.splitlines()[-1] == "This game was cancelled."
