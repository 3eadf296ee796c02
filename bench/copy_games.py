"""copy-games benchmark: how long ``tiempo-bot copy-games`` takes, and how much memory it needs, to move
a host's games from a SQLite file to another SQLite file and to PostgreSQL.

The source holds ``--games`` games, each a whole game's log: one game is played to its end (random
legal moves, three players), then its rows are repeated under new ids and channels. Each copy runs in
a process of its own, whose peak resident memory is read at the end (``ru_maxrss``). The PostgreSQL
destination is a throwaway cluster (tests/support/pg_cluster.py: a Unix socket in a temporary folder, fsync on),
skipped with a line when PostgreSQL's server programs are not installed.

Prints the figures and writes bench/results/copy_games.json.

    python bench/copy_games.py [--games 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.service import Caller, Tiempo, version_of  # noqa: E402
from bot.storage import Storage  # noqa: E402
from bot.storage.copy import copy_games  # noqa: E402
from bot.storage.schema import ACTION_COLUMNS, GAME_COLUMNS  # noqa: E402
from rules import legal_actions  # noqa: E402
from tests.support.gameplay import choose  # noqa: E402
from tests.support.pg_cluster import Cluster, server_programs  # noqa: E402
from tests.support.service_play import Silent, seated_game  # noqa: E402


async def one_game(path: str) -> None:
    """Play one 3-player game to its end into the database ``path``."""
    storage = await Storage.open(path)
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: 6)
    rng = random.Random(6)
    people = [Caller(1, 1, 100 + i, name) for i, name in enumerate(["ana", "ben", "cy"])]
    try:
        game = await seated_game(service, storage, people)
        while not service.state_of(game := await storage.get_game(game.id)).finished:
            state = service.state_of(game)
            action = choose(rng, state, legal_actions(state))
            await service.moves.play_action(people[action.player], game.id, version_of(game),
                                            lambda s, p, a=action: a)
    finally:
        await service.close()
        await storage.close()


def source_of(path: str, games: int) -> dict[str, int]:
    """A source database of ``games`` games, each the log of one whole game; its sizes."""
    asyncio.run(one_game(path))
    db = sqlite3.connect(path)
    columns = [c.strip() for c in GAME_COLUMNS.split(",")]
    shifted = ", ".join(f"{c} + ?" if c in ("id", "channel_id") else c for c in columns)
    actions = ", ".join("game_id + ?" if c.strip() == "game_id" else c for c in ACTION_COLUMNS.split(","))
    for k in range(1, games):
        db.execute(f"INSERT INTO games ({GAME_COLUMNS}) SELECT {shifted} FROM games WHERE id = 1", (k, k))
        db.execute(f"INSERT INTO actions ({ACTION_COLUMNS}) SELECT {actions} FROM actions WHERE game_id = 1", (k,))
    db.commit()
    (n, snapshot_bytes), = db.execute("SELECT COUNT(*), SUM(LENGTH(snapshot)) FROM games")
    (actions_n,), = db.execute("SELECT COUNT(*) FROM actions")
    db.close()
    return {"games": n, "actions": actions_n, "snapshot_bytes_per_game": snapshot_bytes // n,
            "file_mb": round(os.path.getsize(path) / 2**20, 1)}


def copy_once(source: str, dest: str) -> dict[str, float]:
    """Copy in a fresh process: its wall time and peak resident memory."""
    out = subprocess.run([sys.executable, __file__, "--copy-only", source, dest], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--copy-only", nargs=2, metavar=("SOURCE", "DEST"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.copy_only:
        t = time.perf_counter()
        asyncio.run(copy_games(*args.copy_only))
        print(json.dumps({"seconds": round(time.perf_counter() - t, 1),
                          "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}))
        return

    result: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "source.sqlite3")
        result["source"] = source_of(source, args.games)
        print(f"source: {result['source']}")
        result["to_sqlite"] = copy_once(source, os.path.join(tmp, "copy.sqlite3"))
        print(f"into a SQLite file: {result['to_sqlite']}")
        programs = server_programs()
        if programs is None:
            print("into PostgreSQL: skipped (its server programs are not installed: apt-get install postgresql)")
        else:
            cluster = Cluster(programs, durable=True).start()
            try:
                url = cluster.url(asyncio.run(cluster.new_database("bench")))
                result["to_postgresql"] = copy_once(source, url)
                print(f"into PostgreSQL: {result['to_postgresql']}")
            finally:
                cluster.stop()
    result.update(cpus=os.cpu_count(), python=platform.python_version(), machine=platform.machine())
    out = ROOT / "bench" / "results" / "copy_games.json"
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
