"""Replay benchmark: how long a viewer waits for a step of a stored game, and what an export costs.

Whole games (3, 4 and 5 players, random legal play, dealt from keyed seeds as the bot deals) are stored
in a SQLite file. Then, for each game, in a service started fresh on that file (nothing in memory,
the renderer's caches emptied: as after a restart):

* a *session*: a viewer opens the replay at the deal, steps forward through every turn, jumps to each
  round, and steps back five times: every answer timed, from the call of ``Tiempo.replay`` to its
  reply with the pictures drawn (the first call replays the game through the engine);
* *cold* steps: ``--cold`` steps at random, each asked of a service started fresh (the worst case:
  every click comes after a restart);
* the export: the time to make the record, the animation and the page, and their sizes.

Prints p50/p95/max of each and writes bench/results/replay.json, with the machine's load (``uptime``)
while it ran: the machine is shared, and a figure means little without it.

    python bench/replay.py [--cold 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
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

import PIL  # noqa: E402

import render  # noqa: E402
from bot.service import Tiempo  # noqa: E402
from bot.storage import Storage  # noqa: E402
from rules import keyed_seed  # noqa: E402
from tests.support.replayed import Silent, people, play_game  # noqa: E402

GAMES = [(11, ["ana", "ben", "cy"]), (12, ["ana", "ben", "cy", "dee"]), (13, ["ana", "ben", "cy", "dee", "eve"])]


def figures(samples: list[float]) -> dict[str, float]:
    ms = sorted(s * 1000 for s in samples)
    return {"count": len(ms), "p50_ms": round(statistics.median(ms), 1),
            "p95_ms": round(ms[min(len(ms) - 1, int(0.95 * len(ms)))], 1), "max_ms": round(ms[-1], 1)}


async def fresh(path: str) -> tuple[Storage, Tiempo]:
    render._unchanged_card.cache_clear()  # as after a restart
    storage = await Storage.open(path)
    return storage, Tiempo(storage, Silent())


async def timed(service: Tiempo, game_id: int, step: int | None) -> float:
    t = time.perf_counter()
    await service.replay(people(["ana"])[0], game_id, step)
    return time.perf_counter() - t


async def run(cold_steps: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tiempo-replay-bench-") as tmp:
        path = str(Path(tmp) / "games.sqlite3")
        ids = []
        for channel, (seed, names) in enumerate(GAMES, start=1):
            ids.append(await play_game(path, seed, names, deal=keyed_seed(seed), channel=channel))
        session: list[float] = []
        firsts: list[float] = []
        cold: list[float] = []
        exports: list[dict[str, Any]] = []
        rng = random.Random(1)
        for game_id in ids:
            storage, service = await fresh(path)
            try:
                first = await timed(service, game_id, 0)
                firsts.append(first)
                view = (await service.replay(people(["ana"])[0], game_id, 0)).replay
                assert view is not None
                session.append(first)
                for step in range(1, view.last + 1):
                    session.append(await timed(service, game_id, step))
                for _, step in view.rounds:
                    session.append(await timed(service, game_id, step))
                for step in range(view.last - 1, view.last - 6, -1):
                    session.append(await timed(service, game_id, step))
                t = time.perf_counter()
                reply = await service.export(people(["ana"])[0], game_id)
                size = {f.filename.rsplit(".", 1)[1]: len(f.data) for f in reply.files if "." in f.filename}
                exports.append({"game": game_id, "players": len((await storage.get_game(game_id)).seats),
                                "turns": view.last, "seconds": round(time.perf_counter() - t, 2),
                                "record_bytes": sum(len(f.data) for f in reply.files if f.filename.endswith(".txt")),
                                "webp_bytes": size["webp"], "html_bytes": size["html"]})
            finally:
                await service.close()
                await storage.close()
            for _ in range(cold_steps // len(ids)):
                storage, service = await fresh(path)
                try:
                    cold.append(await timed(service, game_id, rng.randint(0, view.last)))
                finally:
                    await service.close()
                    await storage.close()
    return {"session_steps": figures(session), "first_step_after_restart": figures(firsts),
            "cold_steps": figures(cold), "exports": exports}


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=10).stdout.strip()
    except OSError:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--cold", type=int, default=21, help="steps asked each of a freshly started service")
    args = ap.parse_args()
    before = uptime()
    result = asyncio.run(run(args.cold))
    result.update({"uptime_before": before, "uptime_after": uptime(), "cpus": os.cpu_count(),
                   "python": platform.python_version(), "pillow": PIL.__version__, "machine": platform.machine()})
    for key in ("session_steps", "first_step_after_restart", "cold_steps"):
        f = result[key]
        print(f"{key:26} n={f['count']:4}  p50 {f['p50_ms']:7.1f} ms  p95 {f['p95_ms']:7.1f} ms  "
              f"max {f['max_ms']:7.1f} ms")
    for e in result["exports"]:
        print(f"export of a {e['players']}-player game ({e['turns']} turns): {e['seconds']} s, "
              f"animation {e['webp_bytes'] / 2**20:.2f} MB, page {e['html_bytes'] / 2**20:.2f} MB")
    print(f"uptime before: {result['uptime_before']}\nuptime after:  {result['uptime_after']}")
    out = ROOT / "bench" / "results" / "replay.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
