"""The garbage collector while the bot serves (``steady_collector``): full collections a hundred
times rarer than Python's, what was made before the games frozen out of them, set once per process."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from bot.config import Config
from bot.discord import TiempoBot
from bot.discord.client import COLLECTOR_THRESHOLDS
from tests.support.discord_play import random_ai
from tests.support.discord_sim import DiscordSim

ROOT = Path(__file__).resolve().parents[2]


async def test_a_started_bot_has_set_the_collector(sim: DiscordSim, tmp_path: Path) -> None:
    config = Config(token="sim-token", database=str(tmp_path / "t.sqlite3"), guilds=(sim.guild.id,))
    await sim.connect(TiempoBot(config, timer_every=3600, choose_ai=random_ai, seed_source=lambda: 11,
                                ai_process=False))
    assert gc.get_threshold() == COLLECTOR_THRESHOLDS
    assert gc.get_freeze_count() > 0


def test_the_collector_is_set_once_per_process() -> None:
    script = (
        "import gc\n"
        "from bot.discord.client import COLLECTOR_THRESHOLDS, steady_collector\n"
        "assert gc.get_threshold() == (700, 10, 10) and gc.get_freeze_count() == 0\n"
        "steady_collector()\n"
        "frozen = gc.get_freeze_count()\n"
        "assert gc.get_threshold() == COLLECTOR_THRESHOLDS and frozen > 1000, frozen\n"
        "kept = [[i] for i in range(5000)]\n"  # made after: not frozen by a second call
        "steady_collector()\n"
        "assert gc.get_freeze_count() == frozen\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.stdout.strip() == "ok", done.stderr


def test_full_collections_are_a_hundred_times_rarer_than_python_s() -> None:
    # objects that live a while (a post in flight, a view) and die in a cycle only the collector frees
    script = (
        "import gc\n"
        "from bot.discord.client import steady_collector\n"
        "def churn():\n"
        "    kept = [None] * 50_000\n"
        "    before = gc.get_stats()[2]['collections']\n"
        "    for n in range(3_000_000):\n"
        "        x = [n]\n"
        "        x.append(x)\n"
        "        kept[n % 50_000] = x\n"
        "    return gc.get_stats()[2]['collections'] - before\n"
        "python_s = churn()\n"
        "steady_collector()\n"
        "print(python_s, churn())\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    python_s, ours = (int(x) for x in done.stdout.split())
    assert python_s >= 20, done.stderr
    assert ours <= python_s // 100
