"""A whole 3-player game played on (simulated) Discord with buttons and select menus only, after
`/tiempo new`, the Join button and `/tiempo start`; then the same game played with slash commands
ends in the same position."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.discord import TiempoBot
from bot.service.steps import path_to
from rules import (
    Action,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    GameState,
    Populate,
    Renovate,
    Swap,
    Travel,
    Upgrade,
    format_position,
    legal_actions,
)
from tests.support.discord_play import answer, make_bot, state_of, tap
from tests.support.discord_sim import DiscordSim, SimMessage, SimUser
from tests.support.gameplay import choose

#: seed 2 with the random player of tests/support/gameplay.py: 66 actions, with constructions, upgrades,
#: travel, a population and a decision among them
SEED = 2


async def seat_three(sim: DiscordSim, bot: TiempoBot) -> list[SimUser]:
    """alice opens, bob and cy press Join, alice starts."""
    users = [sim.user, sim.add_user("bob"), sim.add_user("cy")]
    lobby = await answer(sim, sim.slash("tiempo", "new"))
    for user in users[1:]:
        lobby = await answer(sim, sim.click(lobby.custom_id("Join"), lobby, user=user))
    await answer(sim, sim.slash("tiempo", "start"))
    return users


def latest_play_button(sim: DiscordSim, game_id: int) -> SimMessage:
    return next(m for m in reversed(sim.channel_messages()) if f"tiempo:play:{game_id}" in m.custom_ids())


def slash_of(state: GameState, a: Action) -> tuple[str, dict[str, object]]:
    """The slash command (and its options) a player types for ``a``."""
    def pay(p: object) -> str:
        cards, pawns = getattr(p, "cards"), getattr(p, "pawns")  # noqa: B009
        return f"{cards} {pawns[0]}+{pawns[1]}"

    if isinstance(a, Construct):
        return "build", {"kind": a.kind.value, "cell": str(a.origin), "age": a.age.title, "pay": pay(a.payment)}
    if isinstance(a, Upgrade):
        return "upgrade", {"cell": str(a.target), "to": a.kind.value, "at": str(a.origin), "age": a.age.title,
                           "pay": pay(a.payment)}
    if isinstance(a, Demolish):
        return "demolish", {"cell": str(a.target), "age": a.age.title, "pay": pay(a.payment)}
    if isinstance(a, (Populate, Renovate)):
        return ("populate" if isinstance(a, Populate) else "renovate"), {"cell": str(a.target), "pay": pay(a.payment)}
    if isinstance(a, Travel):
        return "travel", {"pawn": a.pawn + 1, "to": a.to.title}
    if isinstance(a, Exchange):
        return "exchange", {"cards": str(a.cards)}
    if isinstance(a, Swap):
        return "swap", {"take": str(a.take), "give": str(a.give)}
    if isinstance(a, EndTurn):
        return "end", ({"discard": str(a.discard)} if a.discard.total else {})
    if isinstance(a, Choose):
        return "choose", {"cell": str(a.cell)}
    raise AssertionError(a)


@pytest.mark.slow
async def test_a_whole_game_by_taps_and_the_same_game_by_slash_commands_end_alike(sim: DiscordSim,
                                                                                  tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "taps.sqlite3", seed_source=lambda: SEED, render=False))
    users = await seat_three(sim, bot)
    by_name = {u.name: u for u in users}
    rng = random.Random(SEED)
    played: list[Action] = []
    taps = 0
    while True:
        game_id, state = await state_of(bot, sim)
        if state.finished:
            break
        action = choose(rng, state, legal_actions(state))
        user = by_name[state.players[action.player].name]
        panel = await answer(sim, sim.click(f"tiempo:play:{game_id}", latest_play_button(sim, game_id), user=user))
        _, taken = await tap(sim, panel, user, path_to(state, action.player, action))
        taps += 1 + taken
        _, after = await state_of(bot, sim)
        assert after.turn != state.turn or after != state, f"{action} was not played"
        played.append(action)
    kinds = {type(a) for a in played}
    assert {Construct, Upgrade, Travel, Choose} <= kinds and kinds & {Populate, Renovate}
    assert "is over" in sim.channel_messages()[-1].content
    by_taps = state
    await bot.close()

    # the same actions, typed, in a second game with the same deal
    channel = sim.add_channel("typed")
    sim.channel = channel
    bot2 = await sim.connect(make_bot(sim, tmp_path / "typed.sqlite3", seed_source=lambda: SEED, render=False))
    lobby = await answer(sim, sim.slash("tiempo", "new"))
    for user in users[1:]:
        await answer(sim, sim.click(lobby.custom_id("Join"), lobby, user=user))
    await answer(sim, sim.slash("tiempo", "start"))
    for action in played:
        _, state = await state_of(bot2, sim)
        command, options = slash_of(state, action)
        user = by_name[state.players[action.player].name]
        reply = await answer(sim, sim.slash("tiempo", command, options, user=user))
        sure = next((c for c in reply.custom_ids() if c.startswith("tiempo:sure:")), None)
        if sure is not None:  # it harms the player's own game: confirmed by its button
            await answer(sim, sim.click(sure, reply, user=user))
    _, by_typing = await state_of(bot2, sim)
    assert format_position(by_typing) == format_position(by_taps)
    print(f"{len(played)} actions by {taps} taps")
