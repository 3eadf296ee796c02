"""Bot benchmark: how long a player waits, with many games at once, and how much memory the bot needs.

The real bot (command tree, HTTP client, storage, renderer) runs against the Discord stand-in on
127.0.0.1 (tests/support/discord_sim.py). ``--games`` games of 3 players are played at once in one process,
each in its own channel; every command's latency is the time from the interaction arriving at the bot
to the last message it causes reaching Discord:

* a plain action (``/tiempo build``): its private reply and the public narration;
* an end of turn (``/tiempo end``): its private reply and the board picture posted for the next player.

Players wait ``--think`` seconds on average (uniformly 0.5–1.5 times that) between two commands, as
people reading a board do; ``--think 0`` sends each command the moment the last one was answered, which
measures throughput rather than what a player feels.

Then ``--stored`` games are written to a database by one process, and the bot is started on it in a
fresh one and asked for the status of each, and that process's resident memory is read.

Prints the figures and writes bench/results/bot.json. ``--database postgresql`` keeps the games in a
throwaway PostgreSQL cluster (tests/support/pg_cluster.py: initdb and pg_ctl in a temporary folder, a Unix
socket only, stopped and removed at the end) instead of a SQLite file.

``--capacity`` finds, for each backend named by ``--database`` (both by default), the most games at
once one bot process serves at ``--think`` seconds a command with an end-of-turn p95 of at most
``--p95-limit`` ms: trials of 100, 150, 200, ... games until one fails, then a bisection to a step of 25.
In a trial the bot runs in a process of its own pinned to one core (``os.sched_setaffinity``), with
nothing else of the benchmark in it; the Discord stand-in and the simulated players run in another
process pinned to another core, and send the bot its gateway events over a Unix socket (the REST side
is HTTP on 127.0.0.1, as always). The PostgreSQL server is pinned to the bot's core by default, so both
figures are "one core does all the bot's work, its database included". Prints a table of the trials
and writes bench/results/capacity.json.

    python bench/bot.py [--games 50] [--turns 6] [--think 3] [--stored 200] [--database sqlite|postgresql]
    python bench/bot.py --capacity [--database sqlite|postgresql] [--turns 8]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
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
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import discord.http  # noqa: E402

from bot.config import Config  # noqa: E402
from bot.discord import TiempoBot  # noqa: E402
from bot.storage import Storage  # noqa: E402
from rules import Age, GameState, Kind, from_json, placements  # noqa: E402
from tests.support.discord_sim import API_PREFIX, LOADING, DiscordSim, SimChannel, SimUser  # noqa: E402
from tests.support.pg_cluster import Cluster, server_programs  # noqa: E402

BACKENDS = ("sqlite", "postgresql")
#: the capacity search: first trial, step up, and the step the bisection stops at
FIRST, STEP, FINE = 100, 50, 25
METHOD = ("Trials of N 3-player games at once, players thinking 0.5-1.5 x think s between commands; the bot "
          "alone in a process pinned to one core, the Discord stand-in and players in another process on "
          "another core (gateway events over a Unix socket, REST over HTTP on 127.0.0.1); N = 100, 150, "
          "200, ... until the end-of-turn p95 (interaction to board picture posted) passes the limit or "
          "an answer is late, then bisected to a step of 25.")
StateReader = Callable[[SimChannel], Awaitable[GameState]]


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
    if not samples:
        return {"count": 0, "median_ms": float("nan"), "p95_ms": float("nan"), "max_ms": float("nan")}
    return {"count": len(samples), "median_ms": round(statistics.median(samples) * 1000, 1),
            "p95_ms": round(percentile(samples, 0.95) * 1000, 1), "max_ms": round(max(samples) * 1000, 1)}


def make_bot(token: str, guild_id: int, db: str) -> TiempoBot:
    config = Config(token=token, database=db, guilds=(guild_id,))
    return TiempoBot(config, timer_every=3600, seed_source=lambda: 7)


# -- databases ----------------------------------------------------------------------------------------


@contextlib.contextmanager
def pinned(cpus: set[int] | None) -> Iterator[None]:
    """Run the block (and the processes it starts, which inherit it) on ``cpus`` only."""
    if not cpus:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


@contextlib.contextmanager
def postgres(cpus: set[int] | None = None) -> Iterator[Cluster]:
    """A throwaway PostgreSQL cluster (the tests' own: tests/support/pg_cluster.py), its server on ``cpus``."""
    programs = server_programs()
    if programs is None:
        sys.exit("PostgreSQL's server programs (initdb, pg_ctl) are not installed: apt-get install postgresql")
    cluster = Cluster(programs, durable=True)  # fsync on: a commit costs what it costs on a real server
    try:
        with pinned(cpus):  # the postmaster and every backend it forks inherit the affinity
            cluster.start()
        yield cluster
    finally:
        cluster.stop()


async def new_database(cluster: Cluster) -> str:
    """The URL of a new, empty database on ``cluster``."""
    return cluster.url(await cluster.new_database("bench"))


# -- players ------------------------------------------------------------------------------------------


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


def reader_of(storage: Storage, state_of: Callable[[Any], GameState] | None = None) -> StateReader:
    """How the players read a channel's game: through ``storage`` (the bot's own, with its cache, when
    the bot runs in this process; else a connection of the players' own)."""
    decode = state_of or (lambda game: from_json(game.snapshot))

    async def read(channel: SimChannel) -> GameState:
        game = await storage.active_game_in_channel(channel.id)
        if game is None:
            games = [g for g in await storage.list_games() if g.channel_id == channel.id]
            game = max(games, key=lambda g: g.id)
        return decode(game)

    return read


async def one_game(sim: DiscordSim, state_of: StateReader, index: int, turns: int, think: float, plain: list[float],
                   ends: list[float], rng: random.Random) -> None:
    channel = sim.add_channel(f"table-{index}")
    users = [sim.add_user(f"p{index}-{k}") for k in range(3)]
    sim.dispatch("CHANNEL_CREATE", {**channel.payload(), "type": 0, "position": index, "permission_overwrites": []})
    await asyncio.sleep(rng.random() * 2 * think)  # tables open over the first turn, not in the same millisecond
    await sim.invoke(sim.slash("tiempo", "new", {"seats": 3}, user=users[0], channel=channel), timeout=60)
    for u in users[1:]:
        await sim.invoke(sim.slash("tiempo", "join", user=u, channel=channel), timeout=60)
    after = newest_id(sim)
    iid = sim.inject(sim.slash("tiempo", "start", user=users[0], channel=channel))
    await settle(sim, iid, channel, after, board=True)
    by_name: dict[str, SimUser] = {u.name: u for u in users}
    for _ in range(turns):
        state = await state_of(channel)
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
            if (await state_of(channel)).pending is not None:
                return
            await asyncio.sleep(think * (0.5 + rng.random()))
        after = newest_id(sim)
        iid = sim.inject(sim.slash("tiempo", "end", user=user, channel=channel))
        ends.append(await settle(sim, iid, channel, after, board=True))


async def play(sim: DiscordSim, state_of: StateReader, games: int, turns: int, think: float) -> dict[str, Any]:
    """``games`` games at once; their latencies."""
    plain: list[float] = []
    ends: list[float] = []
    started = time.perf_counter()
    await asyncio.gather(*(one_game(sim, state_of, i, turns, think, plain, ends, random.Random(i))
                           for i in range(games)))
    wall = time.perf_counter() - started
    return {"games_at_once": games, "turns_per_game": turns, "think_s": think, "plain_action": summary(plain),
            "end_of_turn_with_picture": summary(ends), "wall_s": round(wall, 1),
            "late_answers": sum(1 for r in sim.interactions.values() if r.refusals)}


async def latency(games: int, turns: int, think: float, target: str) -> dict[str, Any]:
    """The bot and the players in this one process (the everyday benchmark)."""
    logging.getLogger("discord").setLevel(logging.ERROR)
    async with DiscordSim.running(response_deadline=3.0) as sim:
        bot = await sim.connect(make_bot(sim.token, sim.guild.id, target))
        return await play(sim, reader_of(bot.service.storage, bot.service.state_of), games, turns, think)


async def write_stored(stored: int, db: str) -> None:
    """Write ``stored`` games a few turns in (three players, six ends of turn) into ``db``."""
    logging.getLogger("discord").setLevel(logging.ERROR)
    async with DiscordSim.running() as sim:
        bot = await sim.connect(make_bot(sim.token, sim.guild.id, db))
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


async def memory(stored: int) -> dict[str, Any]:
    """``stored`` games written by another process; then the bot is started on them in this one and
    asked for each one's status (which loads it), and this process's resident memory is read: the
    bot's, with the Discord stand-in's (a fresh one, which keeps every message it is sent)."""
    logging.getLogger("discord").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "bench.sqlite3")
        subprocess.run([sys.executable, __file__, "--write-stored", str(stored), "--target", db], check=True)
        rss_before = rss_mb()
        async with DiscordSim.running() as sim:
            bot = await sim.connect(make_bot(sim.token, sim.guild.id, db))
            from bot.service import Caller

            games = await bot.service.storage.list_games()
            for g in games:
                await bot.service.status(Caller(g.guild_id, g.channel_id, 1, "watcher"))
            return {"stored_games": len(games), "rss_mb_after_loading_all": round(rss_mb(), 1),
                    "rss_mb_before_start": round(rss_before, 1)}


# -- the bot in a process of its own ------------------------------------------------------------------


def scheduled() -> tuple[float, float]:
    """Seconds this process's threads have run, and waited for a core while ready to run (Linux's
    per-thread schedstat): the wait is the time other work on the bot's core took from it."""
    ran = waited = 0
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with contextlib.suppress(OSError, ValueError), open(f"/proc/self/task/{task}/schedstat") as f:
                on_cpu, queued, _ = f.read().split()
                ran, waited = ran + int(on_cpu), waited + int(queued)
    return ran / 1e9, waited / 1e9


def core_busy(cpu: int | None) -> float:
    """Seconds core ``cpu`` has been busy (anything but idle and I/O wait) since boot; 0 if unknown."""
    if cpu is None:
        return 0.0
    with contextlib.suppress(OSError, ValueError), open("/proc/stat") as f:
        for line in f:
            name, *ticks = line.split()
            if name == f"cpu{cpu}":
                user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in ticks[:8])
                return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    return 0.0


def server_cpu(pid: int | None) -> float:
    """CPU seconds used so far by process ``pid`` and its children (the PostgreSQL server: the postmaster
    and the backends it forked); 0 if unknown."""
    if pid is None:
        return 0.0
    ticks = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError), open(f"/proc/{entry}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()  # after "pid (name)": state, ppid, ...
            if int(entry) == pid or int(fields[1]) == pid:
                ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


class _ErrorCount(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


async def serve(sim_url: str, relay: str, token: str, guild_id: int, target: str) -> None:
    """The bot, alone in this process: REST to the stand-in at ``sim_url``, gateway events read from the
    Unix socket ``relay`` (one JSON ``[event, payload]`` per line). Ends on ``__close__``, writing back
    the CPU seconds it used while the games were played."""
    errors = _ErrorCount()
    logging.getLogger().addHandler(errors)
    logging.getLogger("discord").setLevel(logging.ERROR)
    discord.http.Route.BASE = sim_url + API_PREFIX
    bot = make_bot(token, guild_id, target)
    await bot.login(token)  # runs setup_hook: storage opened, commands synced
    bot._connection.guild_ready_timeout = 0.05
    closed = asyncio.get_running_loop().create_future()

    async def relayed(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        cpu = wall = waited = 0.0
        while line := await reader.readline():
            event, payload = json.loads(line)
            if event == "__ready__":
                await bot.wait_until_ready()
                cpu, wall = time.process_time(), time.monotonic()  # every thread of this process
                waited = scheduled()[1]
                writer.write(b"ready\n")
            elif event == "__close__":
                usage = {"cpu_s": round(time.process_time() - cpu, 1), "wall_s": round(time.monotonic() - wall, 1),
                         "threads_waited_for_core_s": round(scheduled()[1] - waited, 1),
                         "errors_logged": errors.count, "rss_mb": round(rss_mb(), 1)}
                await bot.close()
                writer.write((json.dumps(usage) + "\n").encode())
                await writer.drain()
                break
            else:
                bot._connection.parsers[event](payload)
        writer.close()
        if not closed.done():
            closed.set_result(None)

    server = await asyncio.start_unix_server(relayed, relay, limit=1 << 24)
    async with server:
        await closed
    if not bot.is_closed():
        await bot.close()


class _Relay:
    """The bot of another process, as the stand-in's ``dispatch`` sees a client: its parsers send each
    gateway event down the relay socket."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self._connection = SimpleNamespace(parsers=self)

    def get(self, event: str) -> Callable[[Any], None]:
        return lambda payload: self.send(event, payload)

    def send(self, event: str, payload: Any) -> None:
        self.writer.write((json.dumps([event, payload]) + "\n").encode())


async def trial(games: int, turns: int, think: float, target: str, bot_cpu: int | None,
                server: int | None = None) -> dict[str, Any]:
    """``games`` games at once against a bot in a process of its own (pinned to ``bot_cpu``); this process
    is the stand-in and the players. ``server``: the PostgreSQL server's process id, to count its CPU."""
    logging.getLogger("discord").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        async with DiscordSim.running(response_deadline=3.0) as sim:
            relay = os.path.join(tmp, "relay.sock")
            command = [sys.executable, __file__, "--serve", sim.url, "--relay", relay, "--token", sim.token,
                       "--guild", str(sim.guild.id), "--target", target]
            command += ["--cpu", str(bot_cpu)] if bot_cpu is not None else []
            proc = await asyncio.create_subprocess_exec(*command)
            try:
                for _ in range(600):
                    if os.path.exists(relay) or proc.returncode is not None:
                        break
                    await asyncio.sleep(0.05)
                reader, writer = await asyncio.open_unix_connection(relay, limit=1 << 24)
                bot = _Relay(writer)
                sim.client = bot  # type: ignore[assignment]
                sim.dispatch("READY", {
                    "v": 10, "user": sim.bot_user.payload(), "session_id": "sim-session",
                    "resume_gateway_url": "ws://127.0.0.1:9", "shard": [0, 1],
                    "guilds": [{"id": str(g), "unavailable": True} for g in sim.guilds],
                    "application": {"id": str(sim.application_id), "flags": 0}})
                for guild in sim.guilds.values():
                    sim.dispatch("GUILD_CREATE", sim.guild_payload(guild))
                bot.send("__ready__", None)
                if await asyncio.wait_for(reader.readline(), 30) != b"ready\n":
                    raise RuntimeError("the bot process did not get ready")
                storage = await Storage.open(target)  # the players' own connection to read the games
                cpu, busy, db = time.process_time(), core_busy(bot_cpu), server_cpu(server)
                try:
                    result = await play(sim, reader_of(storage), games, turns, think)
                finally:
                    await storage.close()
                result["players_cpu_s"] = round(time.process_time() - cpu, 1)
                result["bot_core_busy_s"] = round(core_busy(bot_cpu) - busy, 1)
                result["postgres_server_cpu_s"] = round(server_cpu(server) - db, 1) if server else None
                result["load_average_1min_at_end"] = round(os.getloadavg()[0], 2)
                bot.send("__close__", None)
                result["bot"] = json.loads(await asyncio.wait_for(reader.readline(), 60))
                writer.close()
                await asyncio.wait_for(proc.wait(), 60)
            finally:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
    return result


def run_trial(games: int, turns: int, think: float, target: str, bot_cpu: int | None,
              players_cpu: int | None, server: int | None = None) -> dict[str, Any]:
    """One trial in a fresh process (the players'), which starts the bot's."""
    command = [sys.executable, __file__, "--trial", "--games", str(games), "--turns", str(turns), "--think",
               str(think), "--target", target]
    command += ["--cpu", str(players_cpu)] if players_cpu is not None else []
    command += ["--bot-cpu", str(bot_cpu)] if bot_cpu is not None else []
    command += ["--server-pid", str(server)] if server is not None else []
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"games_at_once": games, "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- capacity -----------------------------------------------------------------------------------------


def cores() -> tuple[int | None, int | None, str]:
    """The bot's core and the players' core, and a sentence saying how they were placed."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) >= 2:
        return allowed[-1], allowed[0], (f"bot process pinned to core {allowed[-1]}; Discord stand-in and players "
                                         f"in another process pinned to core {allowed[0]}")
    return allowed[0], allowed[0], ("only one core: the bot process and the stand-in's process share it, so the "
                                    "figure is lower than one core would give the bot alone")


def passes(t: dict[str, Any], limit_ms: float) -> bool:
    return "error" not in t and t["end_of_turn_with_picture"]["p95_ms"] <= limit_ms and t["late_answers"] == 0


def row(t: dict[str, Any], limit_ms: float) -> str:
    """One trial as a line of the table."""
    if "error" in t:
        return f"{t['games_at_once']:6d}   failed: {t['error']}"
    e, p, bot = t["end_of_turn_with_picture"], t["plain_action"], t["bot"]
    wall = max(bot["wall_s"], 0.1)
    db = t.get("postgres_server_cpu_s")
    # everything else on the bot's core (the PostgreSQL server is counted apart, pinned there or not)
    other = max(0.0, t["bot_core_busy_s"] - bot["cpu_s"] - (db or 0))
    pg = "-" if db is None else f"{db / wall:.0%}"
    return (f"{t['games_at_once']:6d} {e['count']:6d} {e['median_ms']:8.1f} {e['p95_ms']:8.1f} {p['p95_ms']:8.1f} "
            f"{t['late_answers']:5d} {bot['cpu_s'] / wall:6.0%} {pg:>5s} {other / wall:6.0%} "
            f"{1000 * bot['cpu_s'] / max(e['count'], 1):7.1f} {t['players_cpu_s'] / max(t['wall_s'], 0.1):6.0%} "
            f"{t['load_average_1min_at_end']:5.1f}   {'ok' if passes(t, limit_ms) else 'too slow'}")


def capacity(backend: str, turns: int, think: float, limit_ms: float, postgres_on: str, first: int = FIRST,
             most: int = 1000) -> dict[str, Any]:
    """The largest number of games at once (a multiple of FINE) whose end-of-turn p95 is within the limit."""
    bot_cpu, players_cpu, placement = cores()
    trials: list[dict[str, Any]] = []
    print(f"\n{backend}: {placement}; players think {think} s, {turns} turns a game, end-of-turn p95 <= {limit_ms} ms")
    print(" games   ends   median      p95  act p95  late    bot    pg  other  cpu/end  plyrs  load")
    print("                   (end of turn, ms)       (share of the bot's core) (ms)")
    with contextlib.ExitStack() as stack:
        cluster = None
        if backend == "postgresql":
            where = {"bot": {bot_cpu}, "players": {players_cpu}}.get(postgres_on)
            cluster = stack.enter_context(postgres(where if where != {None} else None))
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        server = int((cluster.data / "postmaster.pid").read_text().split()[0]) if cluster is not None else None

        def attempt(games: int) -> bool:
            target = (asyncio.run(new_database(cluster)) if cluster is not None
                      else os.path.join(tmp, f"capacity-{games}.sqlite3"))
            t = run_trial(games, turns, think, target, bot_cpu, players_cpu, server)
            trials.append(t)
            print(row(t, limit_ms), flush=True)
            return passes(t, limit_ms)

        good, bad = 0, None
        games = first
        while games <= most:
            if not attempt(games):
                bad = games
                break
            good, games = games, games + STEP
        if bad is None and good < first:
            bad = first
        while bad is not None and bad - good > FINE:
            middle = good + max(FINE, (bad - good) // 2 // FINE * FINE)
            if attempt(middle):
                good = middle
            else:
                bad = middle
        # one trial is one sample of a noisy machine: the figure must pass a second time
        while good > 0 and not attempt(good):
            bad, good = good, good - FINE
    if bad is None:
        print(f"{backend}: still within the limit at {good} games (--most); the capacity is at least that")
    else:
        print(f"{backend}: {good} games at once (at {bad} the end-of-turn p95 passed {limit_ms} ms)")
    return {"backend": backend, "placement": placement,
            "postgres_server": (f"pinned with the {postgres_on}" if postgres_on != "anywhere" else "not pinned")
            if backend == "postgresql" else None,
            "think_s": think, "turns_per_game": turns, "p95_limit_ms": limit_ms, "trials": trials,
            "games_at_once": good, "first_too_many": bad}


def machine() -> dict[str, Any]:
    model = ""
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    load = os.getloadavg()
    return {"cpus": os.cpu_count(), "cpu_model": model, "python": platform.python_version(),
            "load_average_at_start": [round(x, 2) for x in load]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--turns", type=int, default=None, help="turns a game (6; 8 with --capacity)")
    ap.add_argument("--stored", type=int, default=200)
    ap.add_argument("--think", type=float, default=3.0,
                    help="mean seconds a player waits between two commands (0: as fast as the bot answers)")
    ap.add_argument("--database", choices=BACKENDS, action="append",
                    help="where the bot keeps its games (default sqlite; with --capacity, both)")
    ap.add_argument("--capacity", action="store_true",
                    help="find the most games at once one process serves within --p95-limit")
    ap.add_argument("--p95-limit", type=float, default=150.0, help="end-of-turn p95 allowed, ms (--capacity)")
    ap.add_argument("--first", type=int, default=FIRST, help="games at once of the first trial (--capacity)")
    ap.add_argument("--most", type=int, default=1000, help="stop the search here (--capacity)")
    ap.add_argument("--postgres-cpu", choices=("bot", "players", "anywhere"), default="bot",
                    help="the core the PostgreSQL server is pinned to (--capacity): the bot's (default), the "
                         "players', or none")
    for hidden in ("--memory-only", "--trial"):
        ap.add_argument(hidden, action="store_true", help=argparse.SUPPRESS)
    for hidden in ("--serve", "--relay", "--token", "--target"):
        ap.add_argument(hidden, help=argparse.SUPPRESS)
    for hidden in ("--guild", "--cpu", "--bot-cpu", "--server-pid", "--write-stored"):
        ap.add_argument(hidden, type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.cpu is not None:  # first of all, so that every thread this process starts inherits it
        os.sched_setaffinity(0, {args.cpu})
    turns = args.turns if args.turns is not None else (8 if args.capacity else 6)
    if args.memory_only:
        print(json.dumps(asyncio.run(memory(args.stored))))
        return
    if args.write_stored:
        asyncio.run(write_stored(args.write_stored, args.target))
        return
    if args.serve:
        asyncio.run(serve(args.serve, args.relay, args.token, args.guild, args.target))
        return
    if args.trial:
        print(json.dumps(asyncio.run(trial(args.games, turns, args.think, args.target, args.bot_cpu,
                                           args.server_pid))))
        return
    if args.capacity:
        capacity_main(args, turns)
        return

    backend = (args.database or ["sqlite"])[-1]
    with contextlib.ExitStack() as stack:
        if backend == "postgresql":
            target = asyncio.run(new_database(stack.enter_context(postgres())))
        else:
            target = os.path.join(stack.enter_context(tempfile.TemporaryDirectory()), "bench.sqlite3")
        result = asyncio.run(latency(args.games, turns, args.think, target))
    result["database"] = backend
    out = subprocess.run([sys.executable, __file__, "--memory-only", "--stored", str(args.stored)],
                         capture_output=True, text=True, check=True)
    result["memory"] = json.loads(out.stdout.strip().splitlines()[-1])
    result["memory"]["database"] = "sqlite"
    result["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version()}
    for name in ("plain_action", "end_of_turn_with_picture"):
        s = result[name]
        print(f"{name:26s} n={s['count']:4d}  median {s['median_ms']:7.1f} ms  p95 {s['p95_ms']:7.1f} ms  "
              f"max {s['max_ms']:7.1f} ms")
    print(f"{result['games_at_once']} games at once on {backend}, players thinking {args.think} s on average, "
          f"{result['wall_s']} s; answers Discord refused as late: {result['late_answers']}")
    m = result["memory"]
    print(f"memory with {m['stored_games']} stored games loaded (SQLite): {m['rss_mb_after_loading_all']} MB resident")
    path = ROOT / "bench" / "results" / ("bot.json" if backend == "sqlite" else f"bot-{backend}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {path.relative_to(ROOT)}")


def capacity_main(args: argparse.Namespace, turns: int) -> None:
    """--capacity: search each backend asked for, print the trials, merge them into capacity.json."""
    path = ROOT / "bench" / "results" / "capacity.json"
    saved: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    results = saved.get("results", {})
    for backend in dict.fromkeys(args.database or BACKENDS):
        started = time.monotonic()
        result = capacity(backend, turns, args.think, args.p95_limit, args.postgres_cpu, args.first, args.most)
        result["machine"] = machine()
        result["measured_at"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        result["search_s"] = round(time.monotonic() - started)
        results[backend] = result
    print("\nbackend     games at once (end-of-turn p95 <= limit, one core for the bot)")
    for backend, r in results.items():
        print(f"{backend:11s} {r['games_at_once']:5d}   ({r['measured_at']}, {r['placement']})")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"method": METHOD, "results": results}, indent=2) + "\n")
    print(f"written to {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
