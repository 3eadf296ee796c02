"""End-to-end, under the Discord stand-in: one's games listed from a direct message with the bot (two
servers' games), a command of a table refused there with a sentence, and the profile and the
leaderboard after a finished game of people only. We read every message as Discord would show it."""

from __future__ import annotations

import random
from pathlib import Path

from bot.config import Config
from bot.discord import TiempoBot
from bot.service import Caller, version_of
from rules import legal_actions
from tests.support.discord_play import answer, make_bot, open_table, public, random_ai
from tests.support.discord_sim import DiscordSim, SimUser
from tests.support.gameplay import choose


async def play_to_the_end(bot: TiempoBot, sim: DiscordSim, game_id: int, users: list[SimUser], seed: int) -> None:
    """Random legal moves for the people seated, by the service's one play path, until the game ends."""
    rng = random.Random(seed)
    service = bot.service
    while True:
        await service.idle()
        game = await service.storage.get_game(game_id)
        state = service.state_of(game)
        if state.finished:
            return
        action = choose(rng, state, legal_actions(state))
        user = next(u for u in users if u.id == game.seats[action.player].user_id)
        caller = Caller(sim.guild.id, sim.channel.id, user.id, user.name)
        await service.moves.play_action(caller, game_id, version_of(game), lambda s, p, a=action: a)


async def test_games_from_a_direct_message_lists_the_games_of_two_servers(sim: DiscordSim, tmp_path: Path) -> None:
    other = sim.add_guild("Other Server")
    there = sim.add_channel("khronos", other)
    config = Config(token="sim-token", database=str(tmp_path / "t.sqlite3"))  # commands synced for everywhere
    bot = await sim.connect(TiempoBot(config, timer_every=3600, choose_ai=random_ai, seed_source=lambda: 11,
                                      ai_process=False))
    users = await open_table(sim, bot, "bob")
    alice, bob = users
    opened = await answer(sim, sim.slash("tiempo", "new", {"seats": 2}, channel=there))
    assert "game #2" in opened.content
    await answer(sim, sim.slash("tiempo", "join", user=bob, channel=there))
    started = await answer(sim, sim.slash("tiempo", "start", channel=there))
    assert started.ephemeral and "started" in started.content

    dm = sim.dm_channel(alice)
    listed = await answer(sim, sim.slash("tiempo", "me games", channel=dm))
    text = listed.content
    assert f"https://discord.com/channels/{sim.guild.id}/{sim.channel.id}" in text, text
    assert f"https://discord.com/channels/{other.id}/{there.id}" in text, text
    assert "#1" in text and "#2" in text and "round 1 of 7" in text, text

    refused = await answer(sim, sim.slash("tiempo", "new", channel=dm))
    assert refused.ephemeral and "is for a channel of a server Tiempo was added to" in refused.content
    assert "`/tiempo me games`" in refused.content and "`/tiempo me profile`" in refused.content
    assert not [g for g in await bot.service.storage.list_games() if g.channel_id == dm.id]  # no game in a DM

    ben_dm = await answer(sim, sim.slash("tiempo", "me games", user=bob, channel=sim.dm_channel(bob)))
    assert "#1" in ben_dm.content and "#2" in ben_dm.content


async def test_profile_and_leaderboard_after_a_finished_game_of_people(sim: DiscordSim, tmp_path: Path) -> None:
    bot = await sim.connect(make_bot(sim, tmp_path / "t.sqlite3"))
    users = await open_table(sim, bot, "bob", seats=2)
    alice, bob = users
    await play_to_the_end(bot, sim, 1, users, seed=5)
    final = next(m for m in reversed(public(sim)) if "Game #1 is over." in m.content)
    assert "📈 Ratings: alice" in final.content, final.content
    hand = await answer(sim, sim.slash("tiempo", "hand"))  # (named: a later game here may be a cancelled one)
    assert hand.content.startswith("**Game #1**\n") and "The game is over." in hand.content, hand.content

    mine = await answer(sim, sim.slash("tiempo", "me profile"))
    assert mine.content.startswith("**alice — this server**") and "1 game played" in mine.content, mine.content
    assert f"#1 in https://discord.com/channels/{sim.guild.id}/{sim.channel.id}" in mine.content
    theirs = await answer(sim, sim.slash("tiempo", "me profile", {"player": bob}))
    assert theirs.content.startswith("**bob — this server**"), theirs.content
    nobody = sim.add_user("carol")
    none = await answer(sim, sim.slash("tiempo", "me profile", {"player": nobody}))
    assert none.content == f"<@{nobody.id}> has not finished a game of Tiempo yet.", none.content

    board = await answer(sim, sim.slash("tiempo", "records leaderboard"))
    assert board.content.startswith("**Leaderboard — page 1 of 1**"), board.content
    assert f"<@{alice.id}>" in board.content and f"<@{bob.id}>" in board.content and "← you" in board.content
    beyond = await answer(sim, sim.slash("tiempo", "records leaderboard", {"page": 2}))
    assert "There is no page 2" in beyond.content and "`/tiempo records leaderboard page:1`" in beyond.content

