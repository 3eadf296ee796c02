"""A child process for tests/test_kill.py: the real bot and the Discord stand-in in one process, playing
a 3-player game on the database DB until it ends or the process is killed.

    python -m tests.killable_table DB WORLD

WORLD is a JSON file with the ids of the guild, channel and users: written on the first run, read on the
next, so that a restarted bot meets the same people in the same channel. Before the bot announces an
action it prints ``told <seq>`` (flushed): the service calls the announcement only after the action is
committed, so every printed seq must be in the database, whenever the process is killed.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path
from typing import Any

from bot.service.herald import Herald
from tests.discord_sim import DiscordSim, SimChannel, SimGuild, SimUser
from tests.test_bot_e2e import make_bot, open_table, play_turn, state_of


def _restore(sim: DiscordSim, world: dict[str, Any]) -> list[SimUser]:
    """Make the simulator's guild, channel and users the ones of the first run."""
    sim.guilds.clear()
    sim.channels.clear()
    sim.users.clear()
    sim.guild = SimGuild(world["guild"], "Test Server")
    sim.guilds = {sim.guild.id: sim.guild}
    sim.channel = SimChannel(world["channel"], "general", world["guild"])
    sim.channels = {sim.channel.id: sim.channel}
    users = [SimUser(uid, name) for uid, name in world["users"]]
    sim.users = {u.id: u for u in users}
    sim.user = users[0]
    return users


async def main(db: str, world_path: str) -> None:
    original = Herald.announce

    async def announce(self: Herald, game: Any, state: Any, events: Any) -> None:
        print(f"told {game.action_count}", flush=True)
        await original(self, game, state, events)

    Herald.announce = announce  # type: ignore[method-assign]
    world_file = Path(world_path)
    async with DiscordSim.running() as sim:
        if world_file.exists():
            users = _restore(sim, json.loads(world_file.read_text()))
            bot = await sim.connect(make_bot(sim, Path(db)))
            print("resumed", flush=True)
        else:
            bot = await sim.connect(make_bot(sim, Path(db)))
            users = await open_table(sim, bot, "bob", "cy")
            world_file.write_text(json.dumps({"guild": sim.guild.id, "channel": sim.channel.id,
                                              "users": [[u.id, u.name] for u in users]}))
            print("started", flush=True)
        rng = random.Random()
        while True:
            _, state = await state_of(bot, sim)
            if state.finished:
                print("finished", flush=True)
                return
            await play_turn(sim, bot, users, rng)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
