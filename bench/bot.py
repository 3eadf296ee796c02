"""Bot benchmark: how long a player waits, with many games at once, and how much memory the bot needs.

The real bot (command tree, HTTP client, storage, renderer) runs against the Discord stand-in on
127.0.0.1 (tests/support/discord_sim.py). ``--games`` games of 3 players are played at once, each in its own
channel, in one of two ways (``--by``):

* ``typed``: ``/tiempo build`` (a Watchtower, Chapel or Hamlet on the board of the player's first
  pawn, when there is a place) and ``/tiempo end``;
* ``taps``, as a person plays on a phone: Play on the channel's post, then the turn panel's lists
  (the building, the area, the place: whatever the panel asks) and Confirm, for the same buildings;
  the end of the turn by its two taps (End your turn, Confirm); a decision by its button.

Every interaction's latency is the time from its arrival at the bot to the message that answers it
(the panel updated in place, the private reply); for an end of turn, to the board's cards posted in
the channel for the next player. Players wait ``--think`` seconds on average (uniformly 0.5-1.5 times
that) before each interaction, as people reading a board do.

Then ``--stored`` games are written to a database by one process, and the bot is started on it in a
fresh one and asked for the status of each, and that process's resident memory is read.

Prints the figures and writes bench/results/bot.json (bot-taps.json, bot-postgresql.json, ...).
``--database postgresql`` keeps the games in a throwaway PostgreSQL cluster (tests/support/pg_cluster.py:
initdb and pg_ctl in a temporary folder, a Unix socket only, stopped and removed at the end).

``--capacity`` finds, for each backend named by ``--database`` and way of playing named by ``--by``
(all by default), the most games at once one bot process serves at ``--think`` seconds an interaction
with a p95 of at most ``--p95-limit`` ms for the end of turn and for the other interactions (each tap,
or each typed build): trials of ``--first``, then ``--step`` more, ... until one fails, then a
bisection to ``--fine``; a number of games that fails is tried once more (unless it failed by far: a
p95 over twice the limit, an answer late, a table stuck), and fails when both trials do (one trial is
one sample of a shared machine). In a trial the bot runs in a process of
its own (bench/bot_serve.py) pinned to one core, with nothing else of the benchmark in it; the
Discord stand-in and the players run in another process pinned to another core, and send the bot its
gateway events over a Unix socket (REST is HTTP on 127.0.0.1). The PostgreSQL server is pinned to
the bot's core by default: "one core does all the bot's work, its database included". Before each
search, a serial trial (one game, one interaction at a time) gives the bot's CPU per interaction of
each kind. ``--baseline REV`` runs the typed searches (the ways named by ``--baseline-by``) against
the bot of revision REV too (a temporary ``git worktree``, imported through its own PYTHONPATH; the
players and the stand-in stay this checkout's; the libraries this checkout depends on and REV does not
cannot be imported in its bot's process: ``blocked_modules``), its trials interleaved with this checkout's: the
serial trials back to back, then the same number of games for each bot back to back while both climb,
then a trial of each in turn; so a change is judged by ratios measured in one run, of capacity and of
CPU per end of turn and per other answer. Prints the trials and writes bench/results/capacity.json
(``--out``).

The final series (both backends, both ways, the baseline typed on both) takes about 30 minutes on a
2-core machine (docs/hosting.md §7 gives the command).

``--rhythm steady`` (with ``--capacity``, ``--profile`` or one trial) opens the tables evenly over one
turn instead of within the first seconds (``--rhythm burst``, the default), plays a turn more, and takes
the p95s over the interactions begun while every table is playing (``play``): the capacity at a steady
rate, not at the bursts of set-ups and ends of turn that tables opened together make.

``--profile FILE`` plays one trial against a bot run under cProfile (its event loop's thread) and
prints where its time went.

    python bench/bot.py [--games 50] [--turns 6] [--think 3] [--by typed|taps] [--database sqlite|postgresql]
    python bench/bot.py --capacity [--database ...] [--by ...] [--baseline ffaed82] [--first 50 --step 50]
                        [--rhythm burst|steady]
    python bench/bot.py --profile bot.prof --by taps --games 30 --think 1
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import importlib.metadata
import itertools
import json
import logging
import os
import platform
import random
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


from bot.config import Config  # noqa: E402
from bot.discord import TiempoBot  # noqa: E402
from bot.service.steps import SEP, listing, path_to  # noqa: E402
from bot.storage import Storage  # noqa: E402
from rules import Age, Construct, GameState, Kind, from_json, placements  # noqa: E402
from tests.support.discord_sim import API_PREFIX, LOADING, DiscordSim, SimChannel, SimUser, _walk_components  # noqa: E402
from tests.support.pg_cluster import Cluster, server_programs  # noqa: E402

BACKENDS = ("sqlite", "postgresql")
MODES = ("typed", "taps")
#: the capacity search: first trial, step up, and the step the bisection stops at
FIRST, STEP, FINE = 100, 100, 25
METHOD = ("Trials of N 3-player games at once, played by typed commands (/tiempo build, /tiempo end) or by "
          "taps (Play, the panel's lists, Confirm; End, Confirm; a decision's button), players thinking "
          "0.5-1.5 x think s before each interaction; the bot alone in a process pinned to one core, the "
          "Discord stand-in and players in another process on another core (gateway events over a Unix "
          "socket, REST over HTTP on 127.0.0.1); N = first, first + step, ... until the p95 of the end of "
          "turn (interaction to board cards posted) or of the other interactions (a tap, a typed build) "
          "passes the limit, an answer is late or a table is stuck, then bisected to the fine step; a "
          "number that fails, unless by far (a p95 over twice the limit, an answer late, a table stuck), "
          "is tried once more and fails when both trials do. The baseline's bot "
          "(another revision) is measured in the same run with the same players, its trials interleaved "
          "with this checkout's: the same N back to back while both climb, then a trial of each in turn; in its "
          "process the modules of the libraries this checkout depends on and it does not cannot be imported "
          "(blocked_modules). "
          "The bot's CPU per end of turn and per other answer comes from a serial trial of each bot (one "
          "game, one interaction at a time), also back to back. Rhythm (each series' and trial's rhythm): "
          "burst, every table opens within the trial's first 2 x think s and the p95s are the whole trial's; "
          "steady, table i of N opens i x P / N s after the start (P: one turn, think x the interactions of a "
          "turn in the players' plan), each table plays a turn more, and the p95s are those of the "
          "interactions begun in the window while every table plays (from the last table's set-up done to "
          "the first table's finish; the whole trial's under whole_trial); late answers and stuck tables "
          "count over the whole trial in both. The stand-in's process sets what it holds aside from the "
          "garbage collector's full collections every second while a trial plays (stand_in_frozen): the "
          "stand-in keeps every request and message, and a full collection of that heap stopped every "
          "table at once for up to 0.7 s, a pause of the benchmark's Discord, not of the bot; the bot's "
          "process collects as it would in service.")
StateReader = Callable[[SimChannel], Awaitable[tuple[int, GameState]]]
#: in the serial trial's CPU by kind: the mean over each tap (or typed build), the ends of turn aside
OTHER_ANSWERS = "each other answer"
#: when a trial's tables open: all within its first seconds (``burst``), or evenly over one turn (``steady``)
RHYTHMS = ("burst", "steady")
#: the interactions of a turn in the players' plan, each after a think: typed, a build and the end; by taps,
#: Play, four picks of the panel and Confirm for a build, then End your turn and Confirm (counted in a
#: trial whose turns all built; a turn with no place to build has fewer, and a turn that builds thinks
#: once more before its end)
INTERACTIONS_PER_TURN = {"typed": 2, "taps": 8}


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


def reader_of(storage: Storage, state_of: Callable[[Any], GameState]) -> StateReader:
    """How the players read a channel's game when the bot runs in this process: through its storage
    and cache."""

    async def read(channel: SimChannel) -> tuple[int, GameState]:
        game = await storage.active_game_in_channel(channel.id)
        if game is None:
            games = [g for g in await storage.list_games() if g.channel_id == channel.id]
            game = max(games, key=lambda g: g.id)
        return game.id, state_of(game)

    return read


@contextlib.asynccontextmanager
async def database_reader(target: str) -> AsyncIterator[StateReader]:
    """How the players of a trial read a channel's game: connections of their own (a pool, on
    PostgreSQL), reading the newest game's snapshot with one query of their own (not through
    ``Storage``, which would bring a database of another revision to this checkout's schema under the
    bot that uses it)."""
    query = "SELECT id, snapshot FROM games WHERE channel_id = {} AND snapshot IS NOT NULL ORDER BY id DESC LIMIT 1"
    if target.startswith(("postgres://", "postgresql://")):
        import asyncpg

        # a pool: the tables read at once, and one connection runs one query at a time
        pool = await asyncpg.create_pool(target, min_size=1, max_size=4)

        async def read_pg(channel: SimChannel) -> tuple[int, GameState]:
            found = await pool.fetchrow(query.format("$1"), channel.id)
            return int(found["id"]), from_json(found["snapshot"])

        try:
            yield read_pg
        finally:
            await pool.close()
        return
    db = sqlite3.connect(f"file:{target}?mode=ro", uri=True, check_same_thread=False)

    async def read_sqlite(channel: SimChannel) -> tuple[int, GameState]:
        found = db.execute(query.format("?"), (channel.id,)).fetchone()  # (a few hundred µs: not worth a thread)
        return int(found[0]), from_json(found[1])

    try:
        yield read_sqlite
    finally:
        db.close()


class Table:
    """One game's channel and players, and how they play: the interactions they send, timed."""

    def __init__(self, sim: DiscordSim, read: StateReader, index: int, think: float, timed: dict[int, Timed],
                 kinds: dict[int, str]) -> None:
        self.sim, self.read, self.think = sim, read, think
        self.timed, self.kinds = timed, kinds
        self.rng = random.Random(index)
        self.channel = sim.add_channel(f"table-{index}")
        self.users = [sim.add_user(f"p{index}-{k}") for k in range(3)]
        self.by_name: dict[str, SimUser] = {u.name: u for u in self.users}
        sim.dispatch("CHANNEL_CREATE", {**self.channel.payload(), "type": 0, "position": index,
                                        "permission_overwrites": []})

    async def pause(self) -> None:
        """The player reads and decides: 0.5-1.5 x think seconds."""
        await asyncio.sleep(self.think * (0.5 + self.rng.random()))

    async def send(self, payload: dict[str, Any], kind: str, board: bool = False) -> int:
        """Send an interaction and wait for its answer (and the board's post); its kind and its time
        (``Timed``: when it began, how long it took) are kept under its id, which is returned."""
        after = newest_id(self.sim)
        iid = self.sim.inject(payload)
        self.kinds[iid] = kind
        seconds = await settle(self.sim, iid, self.channel, after, board)
        self.timed[iid] = Timed(self.sim.interactions[iid].sent_at, seconds)
        return iid

    async def open(self, at: float | None = None) -> None:
        """/tiempo new, two joins and a start (set-up: not counted), at the time ``at``
        (``time.monotonic()``'s clock; the steady rhythm), or else after 0-2 x think s (the burst)."""
        sim, channel, users = self.sim, self.channel, self.users
        burst = self.rng.random() * 2 * self.think  # (drawn either way: the table's later choices stay the same)
        await asyncio.sleep(burst if at is None else max(0.0, at - time.monotonic()))
        await self.send(sim.slash("tiempo", "new", {"seats": 3}, user=users[0], channel=channel), "setup")
        for u in users[1:]:
            await self.send(sim.slash("tiempo", "join", user=u, channel=channel), "setup")
        await self.send(sim.slash("tiempo", "start", user=users[0], channel=channel), "setup", board=True)

    def build_cells(self, state: GameState) -> tuple[Kind, Age, list[Any]]:
        """A building to try this turn, on the board of the active player's first pawn, and its places."""
        seat = state.active
        age = state.players[seat].pawns[0]
        kind = self.rng.choice([Kind.WATCHTOWER, Kind.CHAPEL, Kind.HAMLET])
        return kind, age, placements(state, seat, kind, age) if age is not Age.REASON else []

    async def typed(self, turns: int) -> None:
        """Turns played by typing: ``/tiempo build`` (sometimes), then ``/tiempo end``."""
        sim, channel = self.sim, self.channel
        for _ in range(turns):
            _, state = await self.read(channel)
            if state.finished or state.pending is not None:
                return
            user = self.by_name[state.players[state.active].name]
            kind, age, cells = self.build_cells(state)
            await self.pause()
            if cells:
                await self.send(sim.slash("tiempo", "build", {"kind": kind.value, "cell": str(self.rng.choice(cells)),
                                                              "age": age.title}, user=user, channel=channel), "command")
                if (await self.read(channel))[1].pending is not None:
                    return
                await self.pause()
            await self.send(sim.slash("tiempo", "end", user=user, channel=channel), "end", board=True)

    async def taps(self, turns: int) -> None:
        """Turns played by taps, as a person does: Play, then the panel's lists (the verb, the building,
        the area, the place) and Confirm; the end of the turn by its two taps (End, Confirm); a
        decision by its button on the channel's post."""
        ended = 0
        for _ in range(3 * turns):
            if ended >= turns:
                return
            game_id, state = await self.read(self.channel)
            if state.finished:
                return
            if state.pending is not None:
                await self.decide(game_id, state)
                continue
            user = self.by_name[state.players[state.active].name]
            panel = None
            target = None if state.acted else self.build_path(state)
            if target is not None:
                await self.pause()
                panel = await self.panel(game_id, user)
                await self.tap_to(panel, user, target, "confirm", board=False)
                game_id, state = await self.read(self.channel)
                if state.pending is not None:
                    continue
            await self.pause()
            if panel is None:
                panel = await self.panel(game_id, user)
            await self.tap_to(panel, user, self.end_path(state), "end", board=True)
            ended += 1

    def shortest(self, state: GameState, actions: list[Any], legal: list[Any]) -> tuple[str, ...]:
        """The shortest panel path among those of ``actions`` (at most four tried), ``legal`` being the
        listing the panel looks at for them (the players' process must stay light: it is the stand-in
        too, and its slowness would count as the bot's)."""
        paths = []
        for a in actions[:4]:
            with contextlib.suppress(ValueError):
                paths.append(path_to(state, state.active, a, legal=legal))
        if not paths:
            raise RuntimeError(f"the panel leads to none of {actions[:3]}")
        return min(paths, key=len)

    def end_path(self, state: GameState) -> tuple[str, ...]:
        """The panel's path to the end of the turn (keeping every card, when the hand allows)."""
        legal = listing(state, ("end",))
        return self.shortest(state, sorted(legal, key=lambda a: a.discard.total), legal)

    def build_path(self, state: GameState) -> tuple[str, ...] | None:
        """The panel's path to a building as the typed players build (the same kinds, board and
        choice of place), paid as the panel suggests; None when there is no place."""
        kind, age, cells = self.build_cells(state)
        if not cells:
            return None
        cell = self.rng.choice(cells)
        legal = listing(state, ("build", kind.name))  # what the bot's panel lists for this building
        return self.shortest(state, [a for a in legal if isinstance(a, Construct) and a.kind is kind
                                     and a.age is age and a.origin == cell], legal)

    async def panel(self, game_id: int, user: SimUser) -> int:
        """Play, on the newest post that has it: the panel's message id."""
        found = _component(self.sim, self.channel, f"tiempo:play:{game_id}")
        if found is None:
            raise RuntimeError(f"no Play button for game {game_id}")
        iid = await self.send(self.sim.click(found[1], found[0], user=user), "play")
        return self.sim.interactions[iid].answer_ids[-1]

    async def tap_to(self, panel: int, user: SimUser, target: tuple[str, ...], last: str, board: bool) -> None:
        """Pick through the panel until it previews ``target``, then Confirm (timed as ``last``)."""
        sim = self.sim
        for _ in range(len(target) + 3):
            ids = _ids(sim, panel)
            confirm = next((c for c in ids if c["custom_id"].startswith("tiempo:ok:")), None)
            if confirm is not None and confirm["custom_id"].rsplit(":", 1)[1] == SEP.join(target):
                await self.pause()
                await self.send(sim.click(confirm["custom_id"], panel, user=user), last, board=board)
                return
            menu = next(c for c in ids if c["custom_id"].startswith("tiempo:pick:"))
            at = menu["custom_id"].rsplit(":", 1)[1]
            done = tuple(at.split(SEP)) if at else ()
            key = next(v for v in (o["value"] for o in menu["options"])
                       if target[len(done):len(done) + len(v.split(SEP))] == tuple(v.split(SEP)))
            await self.pause()
            iid = await self.send(sim.click(menu["custom_id"], panel, user=user, values=[key]), "pick")
            if sim._messages[panel].attachments:  # a list of places, or a preview: drawn
                self.kinds[iid] = "pick with picture"
        raise RuntimeError(f"the panel did not lead to {target}")

    async def decide(self, game_id: int, state: GameState) -> None:
        """A pending decision, answered by one of the buttons on its post."""
        assert state.pending is not None
        user = self.by_name[state.players[state.pending.decision.player].name]
        prefix = f"tiempo:choose:{game_id}:"
        found = await self.sim.wait_for(lambda: _component(self.sim, self.channel, prefix, every=True),
                                        timeout=60, what="a decision's buttons")
        await self.pause()
        await self.send(self.sim.click(self.rng.choice(found[1]), found[0], user=user), "decision")


def _ids(sim: DiscordSim, message_id: int) -> list[dict[str, Any]]:
    """The components of a stored message that have a custom id (read without copying it)."""
    return [c for c in _walk_components(sim._messages[message_id].payload.get("components") or [])
            if "custom_id" in c]


def _component(sim: DiscordSim, channel: SimChannel, prefix: str, every: bool = False) -> Any:
    """The newest public message of ``channel`` with a component whose custom id starts with ``prefix``:
    ``(message id, custom id)`` (with ``every``: all such ids), or None."""
    for message_id in reversed(sim._messages):
        stored = sim._messages[message_id]
        if int(stored.payload["channel_id"]) != channel.id or stored.deleted:
            continue
        found = [c["custom_id"] for c in _ids(sim, message_id) if c["custom_id"].startswith(prefix)]
        if found:
            return message_id, (found if every else found[0])
    return None


# -- the rhythm of a trial: when its tables open, and the window its figures are taken from --------------


class Timed(NamedTuple):
    """One interaction: when it began (``time.monotonic()``'s clock, or seconds from the trial's start)
    and the seconds until it was answered."""

    began: float
    seconds: float


def turn_seconds(by: str, think: float) -> float:
    """P, the length of one turn of play at ``think`` s an interaction, from the players' plan: as many
    thinks as a turn has interactions (``INTERACTIONS_PER_TURN``). The answers' own time is left out."""
    return INTERACTIONS_PER_TURN[by] * think


def openings(games: int, turn_s: float) -> list[float]:
    """The steady rhythm's schedule: table i of ``games`` opens i x P / N s after the trial's start, so that
    the openings, and the set-ups and ends of turn that follow them, are spread evenly over one turn."""
    return [i * turn_s / games for i in range(games)]


def turns_played(turns: int, rhythm: str) -> int:
    """Turns each table plays: ``turns`` in a burst; one more at a steady rhythm, for the tables opened
    over the first turn to all be playing for a turn or more (the measuring window)."""
    return turns + 1 if rhythm == "steady" else turns


def measuring_window(ready: list[float], finished: list[float]) -> tuple[float, float]:
    """The time every table is playing: from the last table's set-up done (``ready``: each table's) to
    the first table's finish (``finished``: each table's, done or stuck). Empty (its end before its start)
    when a table finished before the last one was ready."""
    return max(ready), min(finished)


def began_within(timed: dict[int, Timed], window: tuple[float, float]) -> dict[int, Timed]:
    """The interactions that began inside ``window`` (bounds included)."""
    start, end = window
    return {iid: t for iid, t in timed.items() if start <= t.began <= end}


def by_kind(timed: dict[int, Timed], kinds: dict[int, str]) -> dict[str, list[float]]:
    """The seconds each interaction took, by its kind."""
    lat: dict[str, list[float]] = {}
    for iid, t in timed.items():
        lat.setdefault(kinds[iid], []).append(t.seconds)
    return lat


def figures(lat: dict[str, list[float]], by: str) -> dict[str, Any]:
    """A trial's p95s (the set-up left out): the end of turn's, the other answers' (each tap, or each typed
    build: ``tap`` or ``plain_action``), and each kind's."""
    others = [x for k, v in lat.items() if k not in ("end", "setup") for x in v]
    return {"plain_action" if by == "typed" else "tap": summary(others),
            "end_of_turn_with_picture": summary(lat.get("end", [])),
            "by_kind": {k: summary(v) for k, v in sorted(lat.items())}}


def share_within(arrivals: list[tuple[str, float]], timed: dict[int, Timed]) -> float | None:
    """The share of a core the bot used between the first and the last of the interactions ``timed``
    (those of the window): its CPU between their arrivals (``arrivals``: the bot's CPU time at each
    interaction's, bench/bot_serve.py) over the time between their beginnings; None if unknown."""
    cpu = {int(iid): at for iid, at in arrivals}
    known = sorted((t.began, cpu[iid]) for iid, t in timed.items() if iid in cpu)
    if len(known) < 2 or known[-1][0] <= known[0][0]:
        return None
    return round((known[-1][1] - known[0][1]) / (known[-1][0] - known[0][0]), 3)


#: how often the stand-in's process sets its heap aside from full collections during a trial (s)
FREEZE_EVERY = 1.0


@contextlib.asynccontextmanager
async def stand_in_frozen(every: float = FREEZE_EVERY) -> AsyncIterator[None]:
    """While a trial plays in this process (the Discord stand-in and the players, not the bot), every
    ``every`` s what it holds is set aside from the garbage collector (``gc.freeze``). The stand-in keeps
    every request and message it was sent (about half a million objects by the end of a 325-game trial
    by taps), so a full collection stopped this process for up to 0.7 s; every table waited at once
    and then sent its next interaction together, a pause of the benchmark's Discord that the bot was
    blamed for. Young garbage is still collected; what is frozen is mostly what the stand-in keeps
    anyway. Undone at the end."""
    gc.collect()
    gc.freeze()

    async def freezing() -> None:
        while True:
            await asyncio.sleep(every)
            gc.freeze()

    task = asyncio.create_task(freezing())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        gc.unfreeze()


async def play(sim: DiscordSim, read: StateReader, games: int, turns: int, think: float, by: str,
               rhythm: str = "burst") -> dict[str, Any]:
    """``games`` games at once, played ``by`` typing or by taps; their latencies, by kind. ``rhythm``:
    ``burst``, every table opens within the first 2 x think s and plays ``turns`` turns, the figures
    taken over the whole trial; ``steady``, the tables open evenly over one turn (``openings``) and play a
    turn more, the p95s taken over the interactions that began while every table was playing
    (``measuring_window``; the whole trial's under ``whole_trial``), the late answers and stuck tables
    over the whole trial either way."""
    timed: dict[int, Timed] = {}
    kinds: dict[int, str] = {}
    failures: list[str] = []
    ready: dict[int, float] = {}  # each table's set-up done, s from the start
    finished: dict[int, float] = {}  # each table's last turn played (or its failure)
    turn_s = turn_seconds(by, think)
    played = turns_played(turns, rhythm)
    started = time.monotonic()
    at = [started + s for s in openings(games, turn_s)] if rhythm == "steady" else [None] * games

    async def one(i: int) -> None:
        table = Table(sim, read, i, think, timed, kinds)
        try:
            await table.open(at[i])
            ready[i] = time.monotonic() - started
            await (table.taps(played) if by == "taps" else table.typed(played))
            finished[i] = time.monotonic() - started
        except Exception as error:  # a table that cannot go on is counted, the others play on
            failures.append(f"{type(error).__name__}: {error}"[:300])
            finished[i] = time.monotonic() - started

    await asyncio.gather(*(one(i) for i in range(games)))
    wall = time.monotonic() - started
    timed = {iid: Timed(t.began - started, t.seconds) for iid, t in timed.items()}
    whole = figures(by_kind(timed, kinds), by)
    result: dict[str, Any] = {"games_at_once": games, "by": by, "rhythm": rhythm, "turns_per_game": played,
                              "think_s": think}
    if rhythm == "steady":
        window = measuring_window(list(ready.values()) or [wall], list(finished.values()))
        lengths = [(finished[i] - ready[i]) / played for i in ready]
        inside = began_within(timed, window)
        result.update(figures(by_kind(inside, kinds), by))
        result["window"] = {"from_s": round(window[0], 1), "to_s": round(window[1], 1),
                            "length_s": round(max(0.0, window[1] - window[0]), 1), "turn_s": round(turn_s, 1),
                            "turns": round(max(0.0, window[1] - window[0]) / turn_s, 2) if turn_s else None,
                            "interactions": len(inside), "interactions_whole_trial": len(timed),
                            "opened_over_s": round(turn_s * (games - 1) / games, 1),
                            "turn_played_s": round(statistics.mean(lengths), 1) if lengths else None}
        result["whole_trial"] = whole
        result["_window"] = inside
    else:
        result.update(whole)
    result.update({"wall_s": round(wall, 1),
                   "late_answers": sum(1 for r in sim.interactions.values() if r.refusals),
                   "tables_failed": len(failures), "first_failure": failures[0] if failures else None,
                   "_kinds": kinds})
    return result


async def latency(games: int, turns: int, think: float, target: str, by: str, rhythm: str = "burst"
                  ) -> dict[str, Any]:
    """The bot and the players in this one process (the everyday benchmark)."""
    logging.getLogger("discord").setLevel(logging.ERROR)
    async with DiscordSim.running(response_deadline=3.0) as sim:
        bot = await sim.connect(make_bot(sim.token, sim.guild.id, target))
        result = await play(sim, reader_of(bot.service.storage, bot.service.state_of), games, turns, think, by,
                            rhythm)
        del result["_kinds"]
        result.pop("_window", None)
        return result


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


def requirement_names(pyproject: str) -> set[str]:
    """The distributions a ``pyproject.toml``'s ``[project] dependencies`` name, normalized (PEP 503),
    whatever their versions and markers."""
    deps = tomllib.loads(pyproject).get("project", {}).get("dependencies", [])
    return {name for d in deps if (name := requirement_name(d))}


def requirement_name(requirement: str) -> str | None:
    """The distribution a requirement (``uvloop>=0.19; sys_platform != 'win32'``) names, normalized."""
    m = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    return normalized(m.group(0)) if m else None


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_modules() -> dict[str, set[str]]:
    """Each installed distribution (normalized name) with the top-level modules it provides."""
    out: dict[str, set[str]] = {}
    for module, dists in importlib.metadata.packages_distributions().items():
        for dist in dists:
            out.setdefault(normalized(dist), set()).add(module)
    return out


def needed_by(names: set[str]) -> set[str]:
    """``names`` and every installed distribution they require, directly or not (extras left out)."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            for req in importlib.metadata.requires(name) or []:
                required = requirement_name(req)
                if required and not re.search(r"extra\s*==", req):
                    todo.append(required)
    return seen


def blocked_modules(ours: str, theirs: str, modules: dict[str, set[str]] | None = None,
                    needed: Callable[[set[str]], set[str]] = needed_by) -> list[str]:
    """The top-level modules a baseline's bot process may not import, from this checkout's
    ``pyproject.toml`` (``ours``) and the baseline's (``theirs``): those of the distributions we depend
    on and it does not (e.g. uvloop, orjson), so that it runs as it would with its own dependencies
    installed, not faster because of ours (discord.py, for one, uses orjson whenever it can import it).
    A module that a distribution the baseline does need provides (directly or through what that one
    requires) stays. ``modules``: each distribution's top-level modules (default: those installed)."""
    modules = installed_modules() if modules is None else modules
    theirs_names = requirement_names(theirs)
    kept = {m for name in needed(theirs_names) for m in modules.get(name, set())}
    extra = requirement_names(ours) - theirs_names
    return sorted({m for name in extra for m in modules.get(name, set())} - kept)


def blocked_for(code: str) -> list[str]:
    """``blocked_modules`` for the bot of the checkout ``code`` (none for this checkout)."""
    if Path(code).resolve() == ROOT:
        return []
    return blocked_modules((ROOT / "pyproject.toml").read_text(), (Path(code) / "pyproject.toml").read_text())


def bot_path(setup: Setup, tmp: str) -> str:
    """The bot process's PYTHONPATH: a folder of modules that refuse to be imported (``setup.blocked``:
    each raises ModuleNotFoundError, as a module that is not installed does), then the checkout, then
    whatever else this process was given (not this checkout)."""
    parts = [setup.code]
    if setup.blocked:
        folder = os.path.join(tmp, "blocked")
        os.makedirs(folder, exist_ok=True)
        for module in setup.blocked:
            why = f"No module named {module!r} (blocked: not a dependency of this bot)"
            Path(folder, f"{module}.py").write_text(f"raise ModuleNotFoundError({why!r}, name={module!r})\n")
        parts.insert(0, folder)
    given = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
             if p and Path(p).resolve() not in (ROOT, Path(setup.code).resolve())]
    return os.pathsep.join(parts + given)


@dataclasses.dataclass
class Setup:
    """One trial: ``games`` games at once played ``by`` typing or taps, against the bot of the checkout
    ``code`` (this one by default) in a process of its own pinned to ``bot_cpu``, keeping its games in
    ``target``; the players' process is pinned to ``players_cpu``. ``server``: the PostgreSQL
    server's process id, to count its CPU. ``profile``: a file for the bot's cProfile. ``blocked``: the
    modules the bot's process may not import (``blocked_modules``: a baseline's). ``rhythm``: when the
    tables open (``play``)."""

    games: int
    turns: int
    think: float
    target: str
    by: str = "typed"
    code: str = str(ROOT)
    bot_cpu: int | None = None
    players_cpu: int | None = None
    server: int | None = None
    profile: str | None = None
    blocked: list[str] = dataclasses.field(default_factory=list)
    rhythm: str = "burst"


def cpu_by_kind(arrivals: list[tuple[str, float]], total: float, kinds: dict[int, str]) -> dict[str, float]:
    """The bot's CPU per interaction, by kind, in ms, when the games were played one interaction at a
    time: the CPU from an interaction's arrival to the next one's is its cost (the posts it causes
    included); and under ``each other answer``, the mean over all but the ends of turn and the set-up
    (each tap, or each typed build)."""
    spent: dict[str, list[float]] = {}
    marks = [*sorted(arrivals, key=lambda a: a[1]), ("", total)]
    for (iid, at), (_, then) in itertools.pairwise(marks):
        spent.setdefault(kinds.get(int(iid), "?"), []).append(then - at)
    out = {k: round(1000 * statistics.mean(v), 1) for k, v in sorted(spent.items())}
    others = [x for k, v in spent.items() if k not in ("end", "setup", "?") for x in v]
    if others:
        out[OTHER_ANSWERS] = round(1000 * statistics.mean(others), 1)
    return out


async def trial(setup: Setup) -> dict[str, Any]:
    """Play a trial against a bot in a process of its own; this process is the stand-in and the players."""
    logging.getLogger("discord").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        async with DiscordSim.running(response_deadline=3.0) as sim:
            relay = os.path.join(tmp, "relay.sock")
            command = [sys.executable, str(ROOT / "bench" / "bot_serve.py"), "--api", sim.url + API_PREFIX,
                       "--relay", relay, "--token", sim.token, "--guild", str(sim.guild.id), "--target", setup.target]
            command += ["--cpu", str(setup.bot_cpu)] if setup.bot_cpu is not None else []
            command += ["--profile", setup.profile] if setup.profile else []
            env = {**os.environ, "PYTHONPATH": bot_path(setup, tmp)}
            proc = await asyncio.create_subprocess_exec(*command, env=env, cwd=setup.code)
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
                if await asyncio.wait_for(reader.readline(), 60) != b"ready\n":
                    raise RuntimeError("the bot process did not get ready")
                cpu, busy, db = time.process_time(), core_busy(setup.bot_cpu), server_cpu(setup.server)
                async with database_reader(setup.target) as read, stand_in_frozen():
                    result = await play(sim, read, setup.games, setup.turns, setup.think, setup.by, setup.rhythm)
                result["players_cpu_s"] = round(time.process_time() - cpu, 1)
                result["bot_core_busy_s"] = round(core_busy(setup.bot_cpu) - busy, 1)
                result["postgres_server_cpu_s"] = round(server_cpu(setup.server) - db, 1) if setup.server else None
                result["load_average_1min_at_end"] = round(os.getloadavg()[0], 2)
                bot.send("__close__", None)
                used = json.loads(await asyncio.wait_for(reader.readline(), 60))
                kinds = result.pop("_kinds")
                arrivals = used.pop("arrivals")
                if "_window" in result:  # the share of its core the bot used while every table played
                    result["window"]["bot_cpu_share"] = share_within(arrivals, result.pop("_window"))
                if setup.games == 1:  # one interaction at a time: each one's CPU is known
                    result["bot_cpu_ms_by_kind"] = cpu_by_kind(arrivals, used["cpu_s"], kinds)
                result["bot"] = used
                writer.close()
                await asyncio.wait_for(proc.wait(), 60)
            finally:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
    return result


def run_trial(setup: Setup) -> dict[str, Any]:
    """One trial in a fresh process (the players'), which starts the bot's."""
    command = [sys.executable, __file__, "--trial", json.dumps(dataclasses.asdict(setup))]
    command += ["--cpu", str(setup.players_cpu)] if setup.players_cpu is not None else []
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"games_at_once": setup.games, "by": setup.by,
                "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
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


def quick(t: dict[str, Any]) -> dict[str, float]:
    """A trial's answers other than the end of turn: its taps, or its typed actions."""
    return t["tap"] if "tap" in t else t["plain_action"]


def passes(t: dict[str, Any], limit_ms: float) -> bool:
    """Within the limit: the end of turn's p95 and the other answers' (each tap, or each typed action),
    no answer late, no table stuck."""
    return ("error" not in t and t["end_of_turn_with_picture"]["p95_ms"] <= limit_ms
            and quick(t)["p95_ms"] <= limit_ms and t["late_answers"] == 0 and not t.get("tables_failed"))


def far_over(t: dict[str, Any], limit_ms: float) -> bool:
    """A failure no second trial would reverse: a p95 over twice the limit, an answer late or a table
    stuck (the number of games is not tried again)."""
    return ("error" in t or t["late_answers"] > 0 or bool(t.get("tables_failed"))
            or max(t["end_of_turn_with_picture"]["p95_ms"], quick(t)["p95_ms"]) > 2 * limit_ms)


def row(t: dict[str, Any], limit_ms: float) -> str:
    """One trial as a line of the table."""
    if "error" in t:
        return f"{t['games_at_once']:6d}   failed: {t['error']}"
    e, p, bot = t["end_of_turn_with_picture"], quick(t), t["bot"]
    wall = max(bot["wall_s"], 0.1)
    db = t.get("postgres_server_cpu_s")
    # everything else on the bot's core (the PostgreSQL server is counted apart, pinned there or not)
    other = max(0.0, t["bot_core_busy_s"] - bot["cpu_s"] - (db or 0))
    pg = "-" if db is None else f"{db / wall:.0%}"
    whole = t.get("whole_trial", t)  # (the bot's CPU is the whole trial's)
    answers = max(whole["end_of_turn_with_picture"]["count"] + quick(whole)["count"], 1)
    failed = f" ({t['tables_failed']} tables stuck: {t['first_failure']})" if t.get("tables_failed") else ""
    return (f"{t['games_at_once']:6d} {e['count']:5d} {p['count']:5d} {e['p95_ms']:8.1f} {p['p95_ms']:8.1f} "
            f"{t['late_answers']:5d} {bot['cpu_s'] / wall:6.0%} {pg:>5s} {other / wall:6.0%} "
            f"{1000 * bot['cpu_s'] / answers:7.1f} {t['players_cpu_s'] / max(t['wall_s'], 0.1):6.0%} "
            f"{t['load_average_1min_at_end']:5.1f}   "
            f"{'ok' if passes(t, limit_ms) else 'too slow'}{failed}{window_note(t)}")


def window_note(t: dict[str, Any]) -> str:
    """For a trial at a steady rhythm: its measuring window (its p95s and counts are the window's), the
    bot's share of its core in it, and the whole trial's p95s, for information."""
    w = t.get("window")
    if w is None:
        return ""
    whole, share = t["whole_trial"], w.get("bot_cpu_share")
    short = " (shorter than a turn)" if w["length_s"] < w["turn_s"] else ""
    return (f"; window {w['from_s']:.0f}-{w['to_s']:.0f} s of {t['wall_s']:.0f} ({w['turns']} turns of "
            f"{w['turn_s']} s{short}), {w['interactions']} of {w['interactions_whole_trial']} interactions"
            + (f", bot {share:.0%} busy" if share is not None else "")
            + f"; whole trial p95 {whole['end_of_turn_with_picture']['p95_ms']:.0f}/{quick(whole)['p95_ms']:.0f} ms")


@dataclasses.dataclass
class Search:
    """What a capacity search tries: the first number of games, the step up (0: twice as many), the step
    the bisection stops at, the most it tries; turns a game (typed and by taps), think, the limit;
    whether a number of games that fails (not by far) is tried once more (one trial is one sample of a
    shared machine: a neighbour's burst can fail it); and the trials' rhythm (``play``)."""

    first: int = FIRST
    step: int = STEP
    fine: int = FINE
    most: int = 1000
    turns: int = 4
    tap_turns: int = 2
    think: float = 3.0
    limit_ms: float = 150.0
    repeat: bool = True
    rhythm: str = "burst"


@dataclasses.dataclass
class Climb:
    """One bot's search: its code and label, the most games that passed, the fewest that failed."""

    code: str
    label: str
    good: int = 0
    bad: int | None = None
    trials: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    serial: dict[str, Any] = dataclasses.field(default_factory=dict)


def capacity(backend: str, by: str, codes: list[tuple[str, str]], search: Search, target: Callable[[str], str],
             server: int | None) -> list[dict[str, Any]]:
    """For each bot (``codes``: its checkout and label), the largest number of games at once (a multiple
    of ``search.fine``) whose answers are within the limit, played ``by`` typing or taps. The bots'
    trials are interleaved: first a serial trial of each (one game, one interaction at a time: the
    bot's CPU per kind of interaction), back to back; then the same number of games for each bot still
    climbing, back to back (first, first + step, ...), until it fails; then each one's bisection to the
    fine step, a trial of each in turn. A number that fails is tried once more (``search.repeat``), unless
    it failed by far (``far_over``): it fails when both trials do."""
    bot_cpu, players_cpu, placement = cores()
    turns = search.tap_turns if by == "taps" else search.turns
    climbs = [Climb(code, label) for code, label in codes]
    started = time.monotonic()

    def setup(climb: Climb, games: int, think: float, name: str) -> Setup:
        return Setup(games, turns, think, target(name), by, climb.code, bot_cpu, players_cpu, server,
                     blocked=blocked_for(climb.code), rhythm=search.rhythm)

    steady = (f"a steady rhythm: the tables open over one turn ({turn_seconds(by, search.think)} s) and play "
              f"{turns_played(turns, search.rhythm)} turns, the p95s taken while all of them play"
              if search.rhythm == "steady" else "in a burst: the tables open within 2 x think s")
    print(f"\n{backend}, {by}: {placement}; {turns} turns a game, think {search.think} s; p95 <= {search.limit_ms} "
          f"ms for the end of turn and for each {'tap' if by == 'taps' else 'action'}; {steady}; bots: "
          + ", ".join(c.label for c in climbs))
    for c in climbs:  # (one game: the same in either rhythm)
        serial = dataclasses.replace(setup(c, 1, 0.3, f"{by}-serial"), turns=2 * turns, rhythm="burst")
        c.serial = run_trial(serial)
        print(f"  {c.label}: serial (one interaction at a time), the bot's CPU per interaction, ms: "
              f"{c.serial.get('bot_cpu_ms_by_kind', c.serial.get('error'))}", flush=True)
    print(" games  ends  taps  end p95  tap p95  late    bot    pg  other  cpu/ans  plyrs  load   bot of")
    print("                       (ms)     (ms)       (share of the bot's core)   (ms)  (core 0)")

    def attempt(c: Climb, games: int) -> bool:
        for again in (False, True):
            t = run_trial(setup(c, games, search.think, f"{by}-{games}-{len(c.trials)}"))
            t["repeat"] = again
            c.trials.append(t)
            print(f"{row(t, search.limit_ms)}  {c.label}{' (again)' if again else ''}", flush=True)
            if passes(t, search.limit_ms) or not search.repeat or far_over(t, search.limit_ms):
                return passes(t, search.limit_ms)
        return False

    games = search.first
    climbing = list(climbs)
    while climbing and games <= search.most:
        for c in list(climbing):  # the same number of games for each, back to back
            if attempt(c, games):
                c.good = games
            else:
                c.bad = games
                climbing.remove(c)
        games = games + search.step if search.step else 2 * games

    def narrowing() -> list[Climb]:
        return [c for c in climbs if c.bad is not None and c.bad - c.good > search.fine]

    while narrowing():
        for c in narrowing():  # a trial of each in turn
            assert c.bad is not None
            middle = c.good + max(search.fine, (c.bad - c.good) // 2 // search.fine * search.fine)
            if attempt(c, middle):
                c.good = middle
            else:
                c.bad = middle
    out = []
    for c in climbs:
        print(f"{backend}, {by}, {c.label}: {c.good} games at once"
              + (f" (at {c.bad}: too slow)" if c.bad else " (or more)"))
        out.append({"backend": backend, "by": by, "bot_code": c.label, "placement": placement, "rhythm": search.rhythm,
                    "think_s": search.think, "turns_per_game": turns_played(turns, search.rhythm),
                    "p95_limit_ms": search.limit_ms,
                    "repeat_a_failing_number": search.repeat, "serial": c.serial,
                    "bot_cpu_ms": _cpu_summary(c.serial), "trials": c.trials, "games_at_once": c.good,
                    "first_too_many": c.bad, "search_s": round(time.monotonic() - started),
                    "blocked_modules": blocked_for(c.code)})
    return out


def _cpu_summary(serial: dict[str, Any]) -> dict[str, float | None]:
    """The bot's CPU per end of turn and per other answer (each tap, or each typed build), ms, from its
    serial trial."""
    by_kind = serial.get("bot_cpu_ms_by_kind") or {}
    return {"end_of_turn": by_kind.get("end"), "each_other_answer": by_kind.get(OTHER_ANSWERS)}


def machine() -> dict[str, Any]:
    model = ""
    with contextlib.suppress(OSError), open("/proc/cpuinfo") as f:
        model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    return {"cpus": os.cpu_count(), "cpu_model": model, "python": platform.python_version(),
            "load_average": [round(x, 2) for x in os.getloadavg()]}


@contextlib.contextmanager
def checkout(rev: str) -> Iterator[str]:
    """A temporary worktree of ``rev`` (removed at the end): the baseline's code."""
    path = tempfile.mkdtemp(prefix=f"tiempo-baseline-{rev[:10]}-")
    os.rmdir(path)
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", path, rev], check=True,
                   capture_output=True)
    try:
        yield path
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", path], check=False,
                       capture_output=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--turns", type=int, default=None, help="turns a game (6; 4 with --capacity or --serial)")
    ap.add_argument("--tap-turns", type=int, default=2, help="turns a game played by taps (--capacity, --profile)")
    ap.add_argument("--stored", type=int, default=200)
    ap.add_argument("--think", type=float, default=3.0,
                    help="mean seconds a player waits between two interactions (0: as fast as the bot answers)")
    ap.add_argument("--database", choices=BACKENDS, action="append",
                    help="where the bot keeps its games (default sqlite; with --capacity, both)")
    ap.add_argument("--by", choices=MODES, action="append",
                    help="how the players play: typed commands or taps (default typed; with --capacity, both)")
    ap.add_argument("--capacity", action="store_true",
                    help="find the most games at once one process serves within --p95-limit")
    ap.add_argument("--rhythm", choices=RHYTHMS, default="burst",
                    help="when the tables open: burst, all within 2 x think s, the figures over the whole trial "
                         "(default); steady, evenly over one turn, a turn more played, the p95s over the "
                         "interactions begun while every table plays")
    ap.add_argument("--serial", type=int, metavar="N",
                    help="only the serial trials (the bot's CPU per interaction), N rounds of this checkout's and "
                         "the baselines' in turn, SQLite (or --database postgresql): each bot's median per kind and "
                         "the ratios")
    ap.add_argument("--baseline", metavar="REV", action="append",
                    help="also run each search against the bot of revision REV (a temporary git worktree); with "
                         "--serial, may be given more than once")
    ap.add_argument("--baseline-by", choices=MODES, action="append",
                    help="the ways of playing the baseline is searched for too (default: typed)")
    ap.add_argument("--no-repeat", action="store_true",
                    help="a number of games that fails is not tried a second time (--capacity)")
    ap.add_argument("--out", help="the results' file in bench/results (--capacity; default capacity.json)")
    ap.add_argument("--p95-limit", type=float, default=150.0, help="p95 allowed, ms (--capacity)")
    ap.add_argument("--first", type=int, default=FIRST, help="games at once of the first trial (--capacity)")
    ap.add_argument("--step", type=int, default=STEP, help="step up between trials; 0: twice as many (--capacity)")
    ap.add_argument("--fine", type=int, default=FINE, help="the step the bisection stops at (--capacity)")
    ap.add_argument("--most", type=int, default=1000, help="stop the search here (--capacity)")
    ap.add_argument("--postgres-cpu", choices=("bot", "players", "anywhere"), default="bot",
                    help="the core the PostgreSQL server is pinned to (--capacity): the bot's (default), the "
                         "players', or none")
    ap.add_argument("--profile", metavar="FILE",
                    help="one trial of --games games (--by, --database) against a bot run under cProfile, "
                         "its stats written to FILE")
    ap.add_argument("--memory-only", action="store_true", help=argparse.SUPPRESS)
    for hidden in ("--trial", "--target"):
        ap.add_argument(hidden, help=argparse.SUPPRESS)
    for hidden in ("--cpu", "--write-stored"):
        ap.add_argument(hidden, type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.cpu is not None:  # first of all, so that every thread this process starts inherits it
        os.sched_setaffinity(0, {args.cpu})
    turns = args.turns if args.turns is not None else (4 if args.capacity or args.serial else 6)
    if args.memory_only:
        print(json.dumps(asyncio.run(memory(args.stored))))
        return
    if args.write_stored:
        asyncio.run(write_stored(args.write_stored, args.target))
        return
    if args.trial:
        print(json.dumps(asyncio.run(trial(Setup(**json.loads(args.trial))))))
        return
    if args.serial:
        serial_main(args, args.tap_turns if (args.by or ["typed"])[-1] == "taps" else turns)
        return
    if args.capacity:
        capacity_main(args, Search(args.first, args.step, args.fine, args.most, turns, args.tap_turns, args.think,
                                   args.p95_limit, not args.no_repeat, args.rhythm))
        return
    backend, by = (args.database or ["sqlite"])[-1], (args.by or ["typed"])[-1]
    if args.profile:
        profile_main(args, backend, by, turns)
        return
    with contextlib.ExitStack() as stack:
        if backend == "postgresql":
            target = asyncio.run(new_database(stack.enter_context(postgres())))
        else:
            target = os.path.join(stack.enter_context(tempfile.TemporaryDirectory()), "bench.sqlite3")
        result = asyncio.run(latency(args.games, turns, args.think, target, by, args.rhythm))
    result["database"] = backend
    out = subprocess.run([sys.executable, __file__, "--memory-only", "--stored", str(args.stored)],
                         capture_output=True, text=True, check=True)
    result["memory"] = json.loads(out.stdout.strip().splitlines()[-1])
    result["memory"]["database"] = "sqlite"
    result["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version()}
    for name, s in result["by_kind"].items():
        print(f"{name:26s} n={s['count']:4d}  median {s['median_ms']:7.1f} ms  p95 {s['p95_ms']:7.1f} ms  "
              f"max {s['max_ms']:7.1f} ms")
    print(f"{result['games_at_once']} games at once on {backend}, played {by}, players thinking {args.think} s on "
          f"average, {result['wall_s']} s; answers Discord refused as late: {result['late_answers']}")
    if "window" in result:
        w = result["window"]
        print(f"steady rhythm: the figures above are those of the {w['interactions']} interactions (of "
              f"{w['interactions_whole_trial']}) begun in the window {w['from_s']}-{w['to_s']} s, while every table "
              f"played ({w['turns']} turns of {w['turn_s']} s); whole trial: "
              + ", ".join(f"{k} p95 {v['p95_ms']} ms" for k, v in result["whole_trial"]["by_kind"].items()))
    m = result["memory"]
    print(f"memory with {m['stored_games']} stored games loaded (SQLite): {m['rss_mb_after_loading_all']} MB resident")
    name = "bot" + ("" if backend == "sqlite" else f"-{backend}") + ("" if by == "typed" else f"-{by}")
    path = ROOT / "bench" / "results" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {path.relative_to(ROOT)}")


def profile_main(args: argparse.Namespace, backend: str, by: str, turns: int) -> None:
    """--profile: one trial against a bot under cProfile; the functions that took the most time."""
    bot_cpu, players_cpu, _ = cores()
    with contextlib.ExitStack() as stack:
        server = None
        if backend == "postgresql":
            cluster = stack.enter_context(postgres({bot_cpu} if bot_cpu is not None else None))
            target = asyncio.run(new_database(cluster))
            server = int((cluster.data / "postmaster.pid").read_text().split()[0])
        else:
            target = os.path.join(stack.enter_context(tempfile.TemporaryDirectory()), "bench.sqlite3")
        t = run_trial(Setup(args.games, args.tap_turns if by == "taps" else turns, args.think, target, by,
                            str(ROOT), bot_cpu, players_cpu, server, os.path.abspath(args.profile),
                            rhythm=args.rhythm))
    print(row(t, args.p95_limit) if "error" not in t else t["error"])
    import pstats

    pstats.Stats(args.profile).sort_stats("tottime").print_stats(25)


def capacity_main(args: argparse.Namespace, search: Search) -> None:
    """--capacity: search each backend and way of playing asked for (and the baseline's, interleaved),
    print the trials, write capacity.json."""
    path = ROOT / "bench" / "results" / (args.out or "capacity.json")
    series: list[dict[str, Any]] = []
    began = time.monotonic()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))  # (the baseline's worktree is removed)
    bot_cpu, _, _ = cores()
    with contextlib.ExitStack() as stack:
        codes = [(str(ROOT), "this checkout"), *baselines(stack, args.baseline[:1] if args.baseline else [])]
        for backend in dict.fromkeys(args.database or BACKENDS):
            with contextlib.ExitStack() as inner:
                tmp = inner.enter_context(tempfile.TemporaryDirectory())
                server = None
                cluster: Cluster | None = None
                if backend == "postgresql":
                    core = {"bot": bot_cpu, "players": cores()[1]}.get(args.postgres_cpu)
                    cluster = inner.enter_context(postgres({core} if core is not None else None))
                    server = int((cluster.data / "postmaster.pid").read_text().split()[0])

                def target(name: str, cluster: Cluster | None = cluster, tmp: str = tmp) -> str:
                    if cluster is not None:
                        return asyncio.run(new_database(cluster))
                    return os.path.join(tmp, f"{name}-{time.monotonic_ns()}.sqlite3")
                for by in dict.fromkeys(args.by or MODES):
                    bots = codes if by in (args.baseline_by or ["typed"]) else codes[:1]
                    for result in capacity(backend, by, bots, search, target, server):
                        result.update(machine=machine(),
                                      measured_at=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
                        if backend == "postgresql":
                            result["postgres_server"] = (f"pinned with the {args.postgres_cpu}"
                                                         if args.postgres_cpu != "anywhere" else "not pinned")
                        series.append(result)
                    write_capacity(path, series)  # after each search: a stopped run keeps what it measured
    print(f"\nrhythm {args.rhythm}")
    print("backend     by     bot of             games at once   CPU ms: per end of turn, per other answer")
    for r in series:
        cpu = r["bot_cpu_ms"]
        print(f"{r['backend']:11s} {r['by']:6s} {r['bot_code']:18s} {r['games_at_once']:5d}   "
              f"{cpu['end_of_turn']}, {cpu['each_other_answer']}   (load {r['machine']['load_average'][0]}, "
              f"{r['measured_at']}, {r['search_s']} s)")
    print(f"the whole run: {round(time.monotonic() - began)} s")
    write_capacity(path, series)
    print(f"written to {path}")


def baselines(stack: contextlib.ExitStack, revs: list[str]) -> list[tuple[str, str]]:
    """A temporary worktree of each revision (removed when ``stack`` closes), with its label."""
    out = []
    for name in revs:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", name], check=True,
                             capture_output=True, text=True).stdout.strip()
        out.append((stack.enter_context(checkout(rev)), f"baseline {rev}"))
    return out


def serial_main(args: argparse.Namespace, turns: int) -> None:
    """--serial N: the serial trial (one game played one interaction at a time, as --capacity's: 2 x turns
    turns, think 0.3 s) of this checkout and of each --baseline, N rounds, the bots in turn and their
    order rotated each round, so that each round sees the same machine; the bot's CPU per interaction,
    median per kind, and each bot's over the first baseline's. SQLite, or with ``--database
    postgresql`` a throwaway cluster pinned to the bot's core (a new database each trial)."""
    by, backend = (args.by or ["typed"])[-1], (args.database or ["sqlite"])[-1]
    bot_cpu, players_cpu, placement = cores()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))  # (the baselines' worktrees are removed)
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        codes = [(str(ROOT), "this checkout"), *baselines(stack, args.baseline or [])]
        cluster = stack.enter_context(postgres({bot_cpu} if bot_cpu is not None else None)) \
            if backend == "postgresql" else None
        server = int((cluster.data / "postmaster.pid").read_text().split()[0]) if cluster else None
        got: dict[str, dict[str, list[float]]] = {label: {} for _, label in codes}
        print(f"serial trials, {by}, {backend}, {2 * turns} turns; {placement}; load {os.getloadavg()[0]:.2f}")
        for code, label in codes[1:]:
            print(f"  {label}: modules blocked in its process: {', '.join(blocked_for(code)) or 'none'}")
        for n in range(args.serial):
            for code, label in codes[n % len(codes):] + codes[:n % len(codes)]:
                target = (asyncio.run(new_database(cluster)) if cluster else
                          os.path.join(tmp, f"serial-{n}-{time.monotonic_ns()}.sqlite3"))
                t = run_trial(Setup(1, 2 * turns, 0.3, target, by, code, bot_cpu, players_cpu, server,
                                    blocked=blocked_for(code)))
                kinds = t.get("bot_cpu_ms_by_kind") or {}
                for kind, ms in kinds.items():
                    got[label].setdefault(kind, []).append(ms)
                print(f"  {n}: {label}: {kinds or t.get('error')} (load {os.getloadavg()[0]:.2f})", flush=True)
    first = codes[1][1] if len(codes) > 1 else None
    for _, label in codes:
        medians = {k: round(statistics.median(v), 2) for k, v in sorted(got[label].items()) if k != "setup"}
        ratios = ({k: round(m / statistics.median(got[first][k]), 2) for k, m in medians.items()
                   if got[first].get(k)} if first and label != first else {})
        print(f"{label}: median CPU ms {medians}" + (f"; over {first}: {ratios}" if ratios else ""))


def write_capacity(path: Path, series: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"method": METHOD, "series": series, "ratios": ratios(series)}, indent=2) + "\n")


def ratios(series: list[dict[str, Any]]) -> dict[str, Any]:
    """Capacity by taps over typed, and this checkout's over the baseline's, for each backend."""
    got = {(r["backend"], r["by"], r["bot_code"] == "this checkout"): r["games_at_once"] for r in series}
    out: dict[str, Any] = {}
    for backend in dict.fromkeys(r["backend"] for r in series):
        mine = {by: got.get((backend, by, True)) for by in MODES}
        base = {by: got.get((backend, by, False)) for by in MODES}
        cpu = {(r["by"], r["bot_code"] == "this checkout"): r.get("bot_cpu_ms") or {} for r in series
               if r["backend"] == backend}
        out[backend] = {
            "taps_over_typed": round(mine["taps"] / mine["typed"], 2) if mine["taps"] and mine["typed"] else None,
            **{f"{by}_over_baseline": round(mine[by] / base[by], 2) if mine[by] and base[by] else None
               for by in MODES},
            **{f"{by}_cpu_{what}_over_baseline": round(cpu[(by, True)][what] / cpu[(by, False)][what], 2)
               for by in MODES for what in ("end_of_turn", "each_other_answer")
               if cpu.get((by, True), {}).get(what) and cpu.get((by, False), {}).get(what)}}
    return out


if __name__ == "__main__":
    main()
