"""Two bot processes, each running its own Discord shard, share one database (SQLite, then PostgreSQL)
and play at once; one is killed with SIGKILL mid-game. The other plays on untouched, the killed one
resumes its own game after a restart, and neither ever acts in the other's game."""

from __future__ import annotations

import asyncio
import os
import random
import sys
from pathlib import Path

import pytest

from bot.storage import Storage
from tests.support.backends import Backend
from tests.support.killable_table import assert_replays, last_line

ROOT = Path(__file__).resolve().parents[2]


async def _shard(db: str, world: Path, shard: int) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.support.killable_table", db, str(world), "2", str(shard), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)})


def _told(lines: list[str]) -> list[tuple[int, int]]:
    return [(int(w[1]), int(w[2])) for line in lines if (w := line.split()) and w[0] == "told"]


async def _lines_until(proc: asyncio.subprocess.Process, count: int) -> list[str]:
    """Read ``count`` "told" lines (and what comes between) from a running shard process."""
    assert proc.stdout is not None
    lines: list[str] = []
    while len(_told(lines)) < count:
        line = (await asyncio.wait_for(proc.stdout.readline(), timeout=60)).decode()
        assert line, (await proc.stderr.read()).decode()[-3000:] if proc.stderr else "the process stopped"
        lines.append(line.strip())
    return lines


@pytest.mark.slow
async def test_two_shard_processes_on_one_database_with_a_kill_9(tmp_path: Path, backend: Backend) -> None:
    db = backend.target  # a SQLite file, or a database on the test's PostgreSQL cluster
    worlds = [tmp_path / "world0.json", tmp_path / "world1.json"]
    rng = random.Random(os.getpid())
    first, second = await _shard(db, worlds[0], 0), await _shard(db, worlds[1], 1)
    # both are started at once; shard 0 is killed anywhere in a command as soon as it has told its count, not
    # after shard 1 has told its own too: on a loaded machine shard 1 may start late, and shard 0 would
    # have played its whole game by then (and exited before the kill)
    second_early = asyncio.create_task(_lines_until(second, 4))
    try:
        early0 = await _lines_until(first, rng.randint(4, 10))
    except BaseException:  # (no shard left running, no task left pending)
        second_early.cancel()
        second.kill()
        raise
    await asyncio.sleep(rng.random() * 0.05)
    first.kill()
    rest, _ = await first.communicate()
    assert first.returncode == -9
    told0 = _told(early0 + rest.decode().splitlines())
    early1 = await second_early
    # shard 1 plays its game to the end meanwhile
    out1, err1 = await asyncio.wait_for(second.communicate(), timeout=300)
    assert second.returncode == 0, err1.decode()[-3000:]
    lines1 = early1 + out1.decode().splitlines()
    assert last_line(lines1) == "finished"
    told1 = _told(lines1)
    # shard 0 resumes its own game after a restart and finishes it
    again = await _shard(db, worlds[0], 0)
    out0, err0 = await asyncio.wait_for(again.communicate(), timeout=300)
    assert again.returncode == 0, err0.decode()[-3000:]
    lines0 = out0.decode().splitlines()
    assert "resumed" in lines0 and last_line(lines0) == "finished"
    told0 += _told(lines0)

    games0, games1 = {g for g, _ in told0}, {g for g, _ in told1}
    assert len(games0) == 1 and len(games1) == 1 and games0 != games1  # each process told only its own game
    storage = await Storage.open(db)
    try:
        games = await storage.list_games()
        assert sorted(g.id for g in games) == sorted(games0 | games1)
        for game in games:
            assert game.status.value == "finished"
            await assert_replays(storage, game.id)
            mine = told0 if game.id in games0 else told1
            assert {seq for g, seq in mine if g == game.id} <= set(range(1, game.action_count + 1))
        # the guilds are on different shards: each process drove only games of its own servers
        assert sorted((g.guild_id >> 22) % 2 for g in games) == [0, 1]
    finally:
        await storage.close()


def test_shard_worlds_drawn_in_the_same_millisecond_have_their_own_channel() -> None:
    """Two shard processes start at once: their channels must differ, or the second game is refused."""
    from unittest import mock

    from tests.support.discord_sim import DiscordSim
    from tests.support.killable_table import _shard_world

    with mock.patch("time.time", return_value=1_800_000_000.0):
        sims = [DiscordSim(), DiscordSim()]
        for shard, sim in enumerate(sims):
            _shard_world(sim, 2, shard)
    assert sims[0].channel.id != sims[1].channel.id
    assert [(s.guild.id >> 22) % 2 for s in sims] == [0, 1]
