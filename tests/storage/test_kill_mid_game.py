"""kill -9 in the middle of a game loses no accepted action, and the game goes on after a restart.

A child process runs the bot against the Discord stand-in and plays (tests/support/killable_table.py); it is
killed with SIGKILL at a random moment, possibly in the middle of a command. Every action it had begun
to announce must be in the database; a new process on the same database finishes the game."""

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


async def _child(db: Path | str, world: Path, **env: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.support.killable_table", str(db), str(world), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env})


@pytest.mark.slow
async def test_kill_9_mid_game_loses_no_accepted_action(tmp_path: Path) -> None:
    db, world = tmp_path / "t.sqlite3", tmp_path / "world.json"
    rng = random.Random(os.getpid())
    told: list[int] = []
    for attempt in range(2):
        proc = await _child(db, world)
        assert proc.stdout is not None
        wanted = rng.randint(4, 12)
        seen = 0
        while seen < wanted:
            line = (await asyncio.wait_for(proc.stdout.readline(), timeout=60)).decode()
            assert line, (await proc.stderr.read()).decode() if proc.stderr else "child stopped"
            if line.startswith("told "):
                told.append(int(line.split()[1]))
                seen += 1
        await asyncio.sleep(rng.random() * 0.05)  # land the kill anywhere in the next command
        proc.kill()
        rest, _ = await proc.communicate()
        told += [int(w.split()[1]) for w in rest.decode().splitlines() if w.startswith("told ")]
        assert proc.returncode == -9

        storage = await Storage.open(str(db))
        try:
            (game,) = await storage.list_games()
            assert game.action_count >= max(told), (attempt, game.action_count, max(told))
            await assert_replays(storage, game.id)
        finally:
            await storage.close()

    proc = await _child(db, world)  # a last restart plays the game to its end
    out, err = await asyncio.wait_for(proc.communicate(), timeout=300)
    assert proc.returncode == 0, err.decode()[-3000:]
    lines = out.decode().splitlines()
    assert "resumed" in lines and last_line(lines) == "finished"  # (posts left unsent may go out first)


@pytest.mark.slow
async def test_a_post_left_unsent_by_a_crash_after_the_commit_is_sent_after_the_restart(tmp_path: Path,
                                                                                         backend: Backend) -> None:
    """The bot dies right after action 5 and its announcement are committed, before anything is
    posted: the announcement waits in the outbox, and the restarted bot posts it first, once (on
    SQLite and on PostgreSQL)."""
    db, world = backend.target, tmp_path / "world.json"
    proc = await _child(db, world, TIEMPO_DIE_AFTER_COMMIT="5")
    out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    assert proc.returncode == -9 and "dying 5" in out.decode(), err.decode()[-3000:]
    assert "told 5" not in out.decode()  # the channel never heard of action 5
    storage = await Storage.open(str(db))
    try:
        (game,) = await storage.list_games()
        assert game.action_count == 5
        waiting = await storage.posts.pending(game.channel_id)
        assert waiting, "the announcement of action 5 is in the outbox"
    finally:
        await storage.close()

    again = await _child(db, world)
    out, err = await asyncio.wait_for(again.communicate(), timeout=300)
    assert again.returncode == 0, err.decode()[-3000:]
    lines = out.decode().splitlines()
    assert "resumed" in lines and last_line(lines) == "finished"
    sent = [line.split()[1] for line in lines if line.startswith("sent ")]  # (before "resumed": at start-up)
    assert sent[:len(waiting)] == [p.nonce for p in waiting]  # sent first, in order, once
    assert len(set(sent)) == len(sent)
    storage = await Storage.open(str(db))
    try:
        (game,) = await storage.list_games()
        assert await storage.posts.pending(game.channel_id) == []
        await assert_replays(storage, game.id)
    finally:
        await storage.close()
