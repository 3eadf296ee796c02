"""The bot with every game in PostgreSQL: ``TIEMPO_DATABASE=postgresql://…`` is honoured, a table is
opened and played against the Discord stand-in, a restart continues the game from the database, and no
SQLite file appears anywhere."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from bot.config import load_config
from bot.discord import TiempoBot
from tests.support.backends import PostgresBackend
from tests.support.discord_play import open_table, play_turn, random_ai, state_of
from tests.support.discord_sim import DiscordSim


async def test_tiempo_database_puts_every_game_in_postgresql(discord_sim: DiscordSim, pg_url: str, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    sim = discord_sim
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiempo.toml").write_text('database = "games.sqlite3"\n')  # the environment wins over it
    config = load_config(None, {"TIEMPO_DATABASE": pg_url, "DISCORD_TOKEN": "sim-token"})
    assert config.database == pg_url and config.source == "tiempo.toml"
    config = dataclasses.replace(config, guilds=(sim.guild.id,))

    def bot() -> TiempoBot:
        return TiempoBot(config, timer_every=3600, choose_ai=random_ai, seed_source=lambda: 11, ai_process=False)

    first = await sim.connect(bot())
    users = await open_table(sim, first, "bob", "cy")
    rng = random.Random(4)
    for _ in range(4):
        await play_turn(sim, first, users, rng)
    game_id, before = await state_of(first, sim)
    await first.close()

    database = PostgresBackend(pg_url)
    ((stored_id, status, count),) = await database.fetch("SELECT id, status, action_count FROM games")
    assert (stored_id, status) == (game_id, "playing") and count >= 4
    assert await database.fetch("SELECT count(*) FROM actions") == [(count,)]

    second = await sim.connect(bot())  # a restart reads the game back from PostgreSQL
    game_id2, after = await state_of(second, sim)
    assert (game_id2, after.players, after.turn) == (game_id, before.players, before.turn)
    await play_turn(sim, second, users, rng)
    await second.close()
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["tiempo.toml"]  # no SQLite file, nor its -wal
    assert sim.errors == [], [r.getMessage() for r in sim.errors]
