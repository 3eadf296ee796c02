"""kill -9 in the middle of a game loses no accepted action, and the game goes on after a restart.

A child process runs the bot against the Discord stand-in and plays (tests/killable_table.py); it is
killed with SIGKILL at a random moment, possibly in the middle of a command. Every action it had begun
to announce must be in the database; a new process on the same database finishes the game."""

from __future__ import annotations

import asyncio
import os
import random
import sys
from pathlib import Path

import pytest

from bot.play import Seat, start
from bot.storage import Storage
from rules import Colour, apply, parse_action, to_json

ROOT = Path(__file__).resolve().parent.parent


async def assert_replays(storage: Storage, game_id: int) -> None:
    """Nothing half-written: the actions are numbered 1, 2, 3…, the database is sound, and the logged
    actions replay from the first position to the stored snapshot exactly."""
    game = await storage.get_game(game_id)
    actions = await storage.list_actions(game.id)
    assert [a.seq for a in actions] == list(range(1, game.action_count + 1))
    assert await storage.integrity_problems() == []
    seats = [Seat(x.user_id, x.name, Colour(x.colour), x.ai_level) for x in game.seats]
    state = start(seats, seed=game.seed, holdem=bool(game.options.get("holdem")))
    for a in actions:
        state, _ = apply(state, parse_action(a.action, state))
    assert to_json(state) == game.snapshot


async def _child(db: Path, world: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.killable_table", str(db), str(world), cwd=ROOT,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)})


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
    assert lines[0] == "resumed" and lines[-1] == "finished"
