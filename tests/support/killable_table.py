"""A child process for tests/storage/test_kill_mid_game.py: the real bot and the Discord stand-in in one
process, playing a 3-player game on the database DB until it ends or the process is killed.

    python -m tests.support.killable_table DB WORLD [SHARD_COUNT SHARD_ID]

DB is a SQLite file or a ``postgresql://`` URL. With SHARD_COUNT and SHARD_ID the bot runs that
shard, and the game is opened in a server of that shard: several such processes share one database.

WORLD is a JSON file with the ids of the guild, channel and users: written on the first run, read on the
next, so that a restarted bot meets the same people in the same channel. Before the bot announces an
action it prints ``told <seq>`` (flushed): the service calls the announcement only after the action is
committed, so every printed seq must be in the database, whenever the process is killed. With a
shard, the line is ``told <game> <seq>``. With ``TIEMPO_DIE_AFTER_COMMIT=<seq>`` the process kills
itself right after action <seq> and its posts are committed, before anything is posted; every post
sent with a nonce (the outbox's) prints ``sent <nonce>``. It runs on the event loop the bot runs on
(``bot.loop.run``: uvloop's where installed).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

from bot.discord import ChannelOutbox
from bot.loop import run
from bot.play import start
from bot.service.herald import Herald
from bot.storage import Storage
from rules import apply, parse_action, to_json
from tests.support.discord_play import make_bot, open_table, play_turn, state_of
from tests.support.discord_sim import DiscordSim, SimChannel, SimGuild, SimUser


async def assert_replays(storage: Storage, game_id: int) -> None:
    """Nothing half-written: the actions are numbered 1, 2, 3…, the database is sound, and the logged
    actions replay from the first position to the stored snapshot exactly."""
    game = await storage.get_game(game_id)
    actions = await storage.list_actions(game.id)
    assert [a.seq for a in actions] == list(range(1, game.action_count + 1))
    assert await storage.integrity_problems() == []
    state = start(game.seats, seed=game.seed, holdem=bool(game.options.get("holdem")))
    for a in actions:
        state, _ = apply(state, parse_action(a.action, state))
    assert to_json(state) == game.snapshot


def last_line(lines: list[str]) -> str:
    """The child's last line but for its posts' ``sent`` lines (a post the last command did not wait
    for may go out after it)."""
    return [line for line in lines if not line.startswith("sent ")][-1]


def _restore(sim: DiscordSim, world: dict[str, Any]) -> list[SimUser]:
    """Make the simulator's guild, channel and users the ones of the first run."""
    sim.guilds.clear()
    sim.channels.clear()
    sim.users.clear()
    sim.guild = SimGuild(world["guild"], "Test Server")
    sim.guilds = {sim.guild.id: sim.guild}
    sim.channel = SimChannel(world["channel"], "general", world["guild"])
    sim.channels = {sim.channel.id: sim.channel}
    users = [SimUser(uid, name, manager=i == 0) for i, (uid, name) in enumerate(world["users"])]  # (the owner first)
    sim.users = {u.id: u for u in users}
    sim.user = users[0]
    return users


def _shard_world(sim: DiscordSim, shard_count: int, shard_id: int) -> None:
    """Move the simulator's guild to an id Discord would give to shard ``shard_id``."""
    guild = (sim.snowflake() >> 22) * shard_count + shard_id  # (id >> 22) % shard_count == shard_id
    # Shard processes started in the same millisecond must not draw the same channel: the shard id goes
    # into the snowflake's worker bits (17-21), as Discord's own workers do.
    channel = sim.snowflake() & ~(0x1F << 17) | (shard_id << 17)
    _restore(sim, {"guild": guild << 22, "channel": channel, "users": [[sim.user.id, sim.user.name]]})


async def main(db: str, world_path: str, shard_count: int = 0, shard_id: int = 0) -> None:
    original = Herald.announce
    die_after = int(os.environ.get("TIEMPO_DIE_AFTER_COMMIT", "0"))

    async def announce(self: Herald, game: Any, state: Any, events: Any) -> None:
        if game.action_count == die_after:  # the action and its posts are stored; nothing is posted yet
            print(f"dying {game.action_count}", flush=True)
            os.kill(os.getpid(), signal.SIGKILL)
        print(f"told {game.id} {game.action_count}" if shard_count else f"told {game.action_count}", flush=True)
        await original(self, game, state, events)

    sent = ChannelOutbox.post

    async def post(self: ChannelOutbox, channel_id: int, message: Any, nonce: str | None = None) -> None:
        await sent(self, channel_id, message, nonce)
        if nonce is not None:
            print(f"sent {nonce}", flush=True)

    Herald.announce = announce  # type: ignore[method-assign]
    ChannelOutbox.post = post  # type: ignore[method-assign]
    world_file = Path(world_path)
    shards = {"shard_count": shard_count, "shard_id": shard_id} if shard_count else None
    async with DiscordSim.running() as sim:
        if world_file.exists():
            users = _restore(sim, json.loads(world_file.read_text()))
            bot = await sim.connect(make_bot(sim, db, shards))  # type: ignore[arg-type]
            print("resumed", flush=True)
        else:
            if shard_count:
                _shard_world(sim, shard_count, shard_id)
            bot = await sim.connect(make_bot(sim, db, shards))  # type: ignore[arg-type]
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
    run(main(sys.argv[1], sys.argv[2], *(int(a) for a in sys.argv[3:5])))  # on the bot's event loop (uvloop's)
