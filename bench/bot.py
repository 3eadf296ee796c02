"""Bot benchmark: how long a player waits, with many games at once, and how much memory the bot needs.

The real bot (command tree, HTTP client, storage, renderer) runs against the Discord stand-in on
127.0.0.1 (tests/discord_sim.py). ``--games`` games of 3 players are played at once in one process,
each in its own channel; every command's latency is the time from the interaction arriving at the bot
to the last message it causes reaching Discord:

* a plain action (``/tiempo build``): its private reply and the public narration;
* an end of turn (``/tiempo end``): its private reply and the board picture posted for the next player.

Players wait ``--think`` seconds on average (uniformly 0.5–1.5 times that) between two commands, as
people reading a board do; ``--think 0`` sends each command the moment the last one was answered, which
measures throughput rather than what a player feels.

Then, in a fresh process, ``--stored`` games are written to a database and the bot is started on it and
asked for the status of each, and its resident memory is read.

Prints the figures and writes bench/results/bot.json.

    python bench/bot.py [--games 50] [--turns 6] [--think 3] [--stored 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.config import Config  # noqa: E402
from bot.discord_app import TiempoBot  # noqa: E402
from rules import Age, GameState, Kind, placements  # noqa: E402
from tests.discord_sim import LOADING, DiscordSim, SimChannel, SimUser  # noqa: E402


def rss_mb() -> float:
    """Resident memory of this process, in MB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(samples: list[float]) -> dict[str, float]:
    return {"count": len(samples), "median_ms": round(statistics.median(samples) * 1000, 1),
            "p95_ms": round(percentile(samples, 0.95) * 1000, 1), "max_ms": round(max(samples) * 1000, 1)}


def make_bot(sim: DiscordSim, db: str) -> TiempoBot:
    config = Config(token=sim.token, database=db, guilds=(sim.guild.id,))
    return TiempoBot(config, timer_every=3600, seed_source=lambda: 7)


def _posted_picture(sim: DiscordSim, channel: SimChannel, after: int) -> bool:
    """Whether a message with a picture reached ``channel`` after message id ``after`` (read from the
    simulator's store without copying it: the benchmark must not slow the bot it measures)."""
    for message_id in reversed(sim._messages):  # newest first; ids increase
        if message_id <= after:
            return False
        stored = sim._messages[message_id]
        if int(stored.payload["channel_id"]) == channel.id and stored.attachments:
            return True
    return False


async def settle(sim: DiscordSim, iid: int, channel: SimChannel, after: int, board: bool) -> float:
    """Wait until the interaction's reply is complete (and, for an end of turn, the board is posted);
    returns the seconds from the interaction's arrival to the last of those messages."""
    record = sim.interactions[iid]
    finished: list[float] = []

    def done() -> bool:
        if not record.answer_ids:
            return False
        reply = sim._messages[record.answer_ids[-1]]
        if int(reply.payload.get("flags") or 0) & LOADING:
            return False
        if board and not _posted_picture(sim, channel, after):
            return False
        finished.append(time.monotonic())
        return True

    await sim.wait_for(done, timeout=60, what="a reply")
    return finished[0] - record.sent_at


def newest_id(sim: DiscordSim) -> int:
    return next(reversed(sim._messages), 0)


async def state_of(bot: TiempoBot, channel: SimChannel) -> GameState:
    game = await bot.service.storage.active_game_in_channel(channel.id)
    if game is None:
        games = [g for g in await bot.service.storage.list_games() if g.channel_id == channel.id]
        game = max(games, key=lambda g: g.id)
    return bot.service.state_of(game)


async def one_game(sim: DiscordSim, bot: TiempoBot, index: int, turns: int, think: float, plain: list[float],
                   ends: list[float], rng: random.Random) -> None:
    channel = sim.add_channel(f"table-{index}")
    users = [sim.add_user(f"p{index}-{k}") for k in range(3)]
    sim.dispatch("CHANNEL_CREATE", {**channel.payload(), "type": 0, "position": index, "permission_overwrites": []})
    await asyncio.sleep(rng.random() * think)  # tables do not all open in the same millisecond
    await sim.invoke(sim.slash("tiempo", "new", {"seats": 3}, user=users[0], channel=channel), timeout=60)
    for u in users[1:]:
        await sim.invoke(sim.slash("tiempo", "join", user=u, channel=channel), timeout=60)
    after = newest_id(sim)
    iid = sim.inject(sim.slash("tiempo", "start", user=users[0], channel=channel))
    await settle(sim, iid, channel, after, board=True)
    by_name: dict[str, SimUser] = {u.name: u for u in users}
    for _ in range(turns):
        state = await state_of(bot, channel)
        if state.finished or state.pending is not None:
            return
        seat = state.active
        user = by_name[state.players[seat].name]
        age = state.players[seat].pawns[0]
        kind = rng.choice([Kind.WATCHTOWER, Kind.CHAPEL, Kind.HAMLET])
        cells = placements(state, seat, kind, age) if age is not Age.REASON else []
        await asyncio.sleep(think * (0.5 + rng.random()))  # the player reads the board and decides
        if cells:
            after = newest_id(sim)
            iid = sim.inject(sim.slash("tiempo", "build", {"kind": kind.value, "cell": str(rng.choice(cells)),
                                                           "age": age.title}, user=user, channel=channel))
            plain.append(await settle(sim, iid, channel, after, board=False))
            if (await state_of(bot, channel)).pending is not None:
                return
            await asyncio.sleep(think * (0.5 + rng.random()))
        after = newest_id(sim)
        iid = sim.inject(sim.slash("tiempo", "end", user=user, channel=channel))
        ends.append(await settle(sim, iid, channel, after, board=True))


async def latency(games: int, turns: int, think: float) -> dict[str, Any]:
    logging.getLogger("discord").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        async with DiscordSim.running(response_deadline=3.0) as sim:
            bot = await sim.connect(make_bot(sim, os.path.join(tmp, "bench.sqlite3")))
            plain: list[float] = []
            ends: list[float] = []
            started = time.perf_counter()
            await asyncio.gather(*(one_game(sim, bot, i, turns, think, plain, ends, random.Random(i))
                                   for i in range(games)))
            wall = time.perf_counter() - started
            return {"games_at_once": games, "turns_per_game": turns, "think_s": think, "plain_action": summary(plain),
                    "end_of_turn_with_picture": summary(ends), "wall_s": round(wall, 1),
                    "late_answers": sum(1 for r in sim.interactions.values() if r.refusals)}


async def memory(stored: int) -> dict[str, Any]:
    """Write ``stored`` games a few turns in, then start the bot on them and touch each one."""
    logging.getLogger("discord").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "bench.sqlite3")
        async with DiscordSim.running() as sim:
            bot = await sim.connect(make_bot(sim, db))
            service = bot.service
            service.render = False  # writing the games is set-up, not what is measured
            from bot.service import Caller

            for i in range(stored):
                cid = sim.snowflake()
                callers = [Caller(sim.guild.id, cid, 10_000 + 3 * i + k, f"p{i}-{k}") for k in range(3)]
                await service.new(callers[0], seats=3)
                for c in callers[1:]:
                    await service.join(c)
                await service.start_game(callers[0])
                for _ in range(6):
                    game = await service.storage.active_game_in_channel(cid)
                    assert game is not None
                    state = service.state_of(game)
                    caller = next(c for c in callers if c.name == state.players[state.active].name)
                    await service.play(caller, "end", {})
            await bot.close()
        rss_before = rss_mb()
        async with DiscordSim.running() as sim:
            bot = await sim.connect(make_bot(sim, db))
            from bot.service import Caller

            games = await bot.service.storage.list_games()
            for g in games:
                await bot.service.status(Caller(g.guild_id, g.channel_id, 1, "watcher"))
            return {"stored_games": len(games), "rss_mb_after_loading_all": round(rss_mb(), 1),
                    "rss_mb_before_start": round(rss_before, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--turns", type=int, default=6)
    ap.add_argument("--stored", type=int, default=200)
    ap.add_argument("--think", type=float, default=3.0,
                    help="mean seconds a player waits between two commands (0: as fast as the bot answers)")
    ap.add_argument("--memory-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.memory_only:
        print(json.dumps(asyncio.run(memory(args.stored))))
        return

    result = asyncio.run(latency(args.games, args.turns, args.think))
    out = subprocess.run([sys.executable, __file__, "--memory-only", "--stored", str(args.stored)],
                         capture_output=True, text=True, check=True)
    result["memory"] = json.loads(out.stdout.strip().splitlines()[-1])
    result["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version()}
    for name in ("plain_action", "end_of_turn_with_picture"):
        s = result[name]
        print(f"{name:26s} n={s['count']:4d}  median {s['median_ms']:7.1f} ms  p95 {s['p95_ms']:7.1f} ms  "
              f"max {s['max_ms']:7.1f} ms")
    print(f"{result['games_at_once']} games at once, players thinking {args.think} s on average, {result['wall_s']} s; "
          "answers Discord refused as late: "
          f"{result['late_answers']}")
    m = result["memory"]
    print(f"memory with {m['stored_games']} stored games loaded: {m['rss_mb_after_loading_all']} MB resident")
    path = ROOT / "bench" / "results" / "bot.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
