"""Community benchmark: how fast ``profile``, ``leaderboard`` and ``my_games`` answer with 10,000 stored
games (the issue asks for 50 ms at p95).

The database is built fast, as bench/copy_games.py builds its source: one three-player game is played
to its end and one into its second round (random legal moves), then their rows are repeated under new
ids, servers, channels and seats: ``--games`` games in all, 3% of them in play. Seats are drawn from
300 people on 5 servers, a few of whom play far more than the others (Zipf-like weights: the busiest
person has about a thousand finished games); a fifth of the games have an AI seat. Each finished game
gets its results (random places, Ecus and statistics) and the rated ones change the ratings through
the real model (``replay_ratings``). Each call is timed through ``Tiempo``'s method, words included,
with callers drawn with the same weights. The PostgreSQL figures use a copy (``copy-games``) into a
throwaway cluster (tests/support/pg_cluster.py), skipped with a line when its server programs are missing.

Prints p50/p95 (ms) per call and writes bench/results/community.json.

    python bench/community.py [--games 10000] [--calls 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import astuple
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.service import Caller, Tiempo, version_of  # noqa: E402
from bot.service.community import replay_ratings  # noqa: E402
from bot.storage import SeatRecord, Storage  # noqa: E402
from bot.storage.community import RESULT_COLUMNS, PlayerRecords, ResultRecord, result_of  # noqa: E402
from bot.storage.copy import copy_games  # noqa: E402
from bot.storage.schema import ACTION_COLUMNS, GAME_COLUMNS, seats_json  # noqa: E402
from rules import legal_actions  # noqa: E402
from tests.support.gameplay import choose  # noqa: E402
from tests.support.pg_cluster import Cluster, server_programs  # noqa: E402
from tests.support.service_play import Silent, seated_game  # noqa: E402

SERVERS = 5
PEOPLE = 300
IN_PLAY = 0.03
WITH_AI = 0.2
COLOURS = ("Red", "White", "Green")
NOW = time.time()


async def two_games(path: str) -> None:
    """Game 1: three players to the end; game 2: three players into round 2."""
    storage = await Storage.open(path)
    service = Tiempo(storage, Silent(), render=False, seed_source=lambda: 6)
    try:
        for channel, stop in ((1, None), (2, 40)):
            rng = random.Random(channel)
            people = [Caller(1, channel, 100 + i, name) for i, name in enumerate(["ana", "ben", "cy"])]
            game = await seated_game(service, storage, people) if channel == 1 else await _open(service, people)
            while not service.state_of(game := await storage.get_game(game.id)).finished:
                if stop is not None and game.action_count >= stop:
                    break
                state = service.state_of(game)
                action = choose(rng, state, legal_actions(state))
                await service.table.play_action(people[action.player], game.id, version_of(game),
                                                lambda s, p, a=action: a)
    finally:
        await service.close()
        await storage.close()


async def _open(service: Tiempo, people: list[Caller]) -> object:
    await service.new(people[0])
    for p in people[1:]:
        await service.join(p)
    await service.start_game(people[0])
    return await service.storage.active_game_in_channel(people[0].channel_id)


def person_of(i: int) -> tuple[int, int]:
    """Person ``i``'s (user id, home server): ids like Discord's, servers 1 to SERVERS."""
    return 10**17 + 7919 * i, 1 + i % SERVERS


WEIGHTS = [1 / (i + 1) ** 0.8 for i in range(PEOPLE)]


def build(path: str, games: int, rng: random.Random) -> dict[str, int]:
    """The database of ``games`` games (see the module's text); its sizes."""
    asyncio.run(two_games(path))
    db = sqlite3.connect(path)
    columns = [c.strip() for c in GAME_COLUMNS.split(",")]
    template = {r[0]: dict(zip(columns, r, strict=True)) for r in db.execute(f"SELECT {GAME_COLUMNS} FROM games")}
    actions = list(db.execute(f"SELECT {ACTION_COLUMNS} FROM actions ORDER BY game_id, seq"))
    for table in ("rating_changes", "ratings", "results", "actions", "games"):
        db.execute(f"DELETE FROM {table}")
    results: list[ResultRecord] = []
    for game_id in range(1, games + 1):
        playing = rng.random() < IN_PLAY
        source = template[2 if playing else 1]
        chosen: list[int] = []
        while len(chosen) < 3:
            i = rng.choices(range(PEOPLE), WEIGHTS)[0]
            if i not in chosen:
                chosen.append(i)
        guild = person_of(chosen[0])[1]
        ai = rng.random() < WITH_AI
        seats = [SeatRecord(*((1000, "Greedy AI") if ai and k == 2 else (person_of(i)[0], f"p{i}")), COLOURS[k],
                            "greedy" if ai and k == 2 else None) for k, i in enumerate(chosen)]
        at = NOW - (games - game_id) * 600.0
        row = {**source, "id": game_id, "guild_id": guild, "channel_id": guild * 10**6 + game_id,
               "opener_id": seats[0].user_id, "seats": seats_json(seats), "created_at": at - 3600, "updated_at": at,
               "turn_deadline": at + 86400 if playing and game_id % 2 else None}
        db.execute(f"INSERT INTO games ({GAME_COLUMNS}) VALUES ({', '.join('?' * len(columns))})",
                   [row[c] for c in columns])
        db.executemany(f"INSERT INTO actions ({ACTION_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
                       [(game_id, *a[1:]) for a in actions if a[0] == source["id"]])
        if playing:
            continue
        ecus = [rng.randint(0, 40) for _ in seats]
        for k, s in enumerate(seats):
            place = 1 + sum(e > ecus[k] for e in ecus)
            results.append(ResultRecord(
                game_id, k, guild, row["channel_id"], s.user_id, s.name, s.ai_level is not None, 3, place, ecus[k],
                place == 1, not ai, at, ripples=rng.randint(0, 8), paradoxes=rng.randint(0, 3),
                cards=rng.randint(8, 30), built_might=rng.randint(0, 8), built_faith=rng.randint(0, 8),
                built_reason=rng.randint(0, 4), income_might=rng.randint(0, 9), income_faith=rng.randint(0, 9),
                income_reason=rng.randint(0, 9)))
    db.executemany(f"INSERT INTO results ({RESULT_COLUMNS}) VALUES ({', '.join('?' * len(RESULT_COLUMNS.split(',')))})",
                   [tuple(int(v) if isinstance(v, bool) else v for v in astuple(r)) for r in results])
    db.commit()
    db.close()
    asyncio.run(_ratings(path))
    db = sqlite3.connect(path)
    sizes = {"games": db.execute("SELECT COUNT(*) FROM games").fetchone()[0],
             "in_play": db.execute("SELECT COUNT(*) FROM games WHERE status = 'playing'").fetchone()[0],
             "actions": db.execute("SELECT COUNT(*) FROM actions").fetchone()[0],
             "results": db.execute("SELECT COUNT(*) FROM results").fetchone()[0],
             "ratings": db.execute("SELECT COUNT(*) FROM ratings").fetchone()[0],
             "most_games_of_one_person": db.execute(
                 "SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM results WHERE ai = 0 GROUP BY user_id)").fetchone()[0],
             "file_mb": round(os.path.getsize(path) / 2**20, 1)}
    db.close()
    return sizes


async def _ratings(path: str) -> None:
    """The ratings the rated results give, through the real model."""
    async with await Storage.open(path) as storage:
        records = PlayerRecords(storage.database)
        rows = await storage.database.fetchall(f"SELECT {RESULT_COLUMNS} FROM results WHERE rated = 1 "
                                               "ORDER BY finished_at, game_id, seat")
        changes, ratings = replay_ratings(result_of(r) for r in rows)
        await records.replace_ratings(changes, list(ratings.values()))


async def measure(target: str, calls: int, seed: int) -> dict[str, dict[str, float]]:
    """p50 and p95 (ms) of each call on the database ``target``."""
    storage = await Storage.open(target)
    service = Tiempo(storage, Silent(), render=False)
    rng = random.Random(seed)
    pages = -(-(await PlayerRecords(storage.database).rated_players(1)) // 10)

    def someone(guild: int | None = None) -> Caller:
        user, home = person_of(rng.choices(range(PEOPLE), WEIGHTS)[0])
        return Caller(home if guild is None else guild, 1, user, "someone")

    kinds: dict[str, Callable[[], Awaitable[object]]] = {
        "profile": lambda: _answer(service.profile(someone())),
        "profile_everywhere": lambda: _answer(service.profile(someone(), everywhere=True)),
        "leaderboard": lambda: service.leaderboard(someone(1), rng.randint(1, pages)),
        "my_games": lambda: service.my_games(someone(0)),
    }
    out: dict[str, dict[str, float]] = {}
    try:
        for name, call in kinds.items():
            for _ in range(5):  # warm the caches a host has warm
                await call()
            times = []
            REFUSED["count"] = 0
            for _ in range(calls):
                began = time.perf_counter()
                await call()
                times.append((time.perf_counter() - began) * 1000)
            cuts = statistics.quantiles(times, n=100)
            out[name] = {"p50_ms": round(cuts[49], 2), "p95_ms": round(cuts[94], 2), "max_ms": round(max(times), 2),
                         "refused": REFUSED["count"]}
            print(f"  {name:20} p50 {out[name]['p50_ms']:7.2f} ms   p95 {out[name]['p95_ms']:7.2f} ms"
                  f"   ({REFUSED['count']} of {calls} refused: no game there)")
    finally:
        await service.close()
        await storage.close()
    return out


REFUSED = {"count": 0}


async def _answer(call: Awaitable[object]) -> object:
    """A profile of someone who has none on that server is a refusal: an answer all the same (counted)."""
    from bot.service import Refusal

    try:
        return await call
    except Refusal as refusal:
        REFUSED["count"] += 1
        return refusal


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=10_000)
    ap.add_argument("--calls", type=int, default=300)
    args = ap.parse_args()
    result: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "games.sqlite3")
        began = time.perf_counter()
        result["database"] = build(source, args.games, random.Random(1))
        print(f"database: {result['database']} (built in {time.perf_counter() - began:.0f} s)")
        print("SQLite:")
        result["sqlite"] = asyncio.run(measure(source, args.calls, 2))
        programs = server_programs()
        if programs is None:
            print("PostgreSQL: skipped (its server programs are not installed: apt-get install postgresql)")
        else:
            cluster = Cluster(programs, durable=True).start()
            try:
                url = cluster.url(asyncio.run(cluster.new_database("bench")))
                asyncio.run(copy_games(source, url))
                print("PostgreSQL:")
                result["postgresql"] = asyncio.run(measure(url, args.calls, 2))
            finally:
                cluster.stop()
    result.update(cpus=os.cpu_count(), python=platform.python_version(), machine=platform.machine(),
                  load_average=[round(x, 2) for x in os.getloadavg()])
    out = ROOT / "bench" / "results" / "community.json"
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
