"""Engine benchmark: median time of apply and of listing legal actions on busy mid-game positions,
and random 4-player games played per second. Prints the figures and writes bench/results/engine.json.

    python bench/engine.py [--games 20] [--positions 200]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rules import Action, EndTurn, GameState, Options, apply, legal_actions, new_game  # noqa: E402


def pick(r: random.Random, acts: list[Action]) -> Action:
    ends = [a for a in acts if isinstance(a, EndTurn)]
    others = [a for a in acts if not isinstance(a, EndTurn)]
    return r.choice(others) if others and (not ends or r.random() < 0.8) else r.choice(ends)


def play(seed: int, players: int = 4, keep: list[GameState] | None = None) -> int:
    """One random game on the default map; returns the number of actions. Mid-game positions
    (rounds 3–5, not waiting on a decision) are appended to ``keep``."""
    r = random.Random(seed)
    s = new_game([f"P{i}" for i in range(players)], seed=seed, options=Options(holdem=seed % 2 == 0))
    n = 0
    while not s.finished:
        if keep is not None and 3 <= s.round <= 5 and s.pending is None:
            keep.append(s)
        s, _ = apply(s, pick(r, legal_actions(s)))
        n += 1
    return n


def median_us(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1e6, 1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--positions", type=int, default=200)
    args = ap.parse_args()

    start = time.perf_counter()
    actions = sum(play(seed) for seed in range(args.games))
    elapsed = time.perf_counter() - start

    pool: list[GameState] = []
    for seed in range(1000, 1010):
        play(seed, keep=pool)
    r = random.Random(0)
    positions = r.sample(pool, min(args.positions, len(pool)))
    by_size = sorted(positions, key=lambda s: -len(legal_actions(s)))
    busy = by_size[: max(1, len(positions) // 4)]

    list_times, apply_times, counts = [], [], []
    for s in positions:
        t = time.perf_counter()
        acts = legal_actions(s)
        list_times.append(time.perf_counter() - t)
        counts.append(len(acts))
        a = pick(r, acts)
        t = time.perf_counter()
        apply(s, a)
        apply_times.append(time.perf_counter() - t)
    busy_times = []
    for s in busy:
        t = time.perf_counter()
        legal_actions(s)
        busy_times.append(time.perf_counter() - t)

    result = {
        "machine": f"{platform.machine()} {platform.python_implementation()} {platform.python_version()}",
        "random_4p_games_per_second": round(args.games / elapsed, 2),
        "actions_per_game": round(actions / args.games, 1),
        "positions": len(positions),
        "legal_actions_median_us": median_us(list_times),
        "legal_actions_busiest_quarter_median_us": median_us(busy_times),
        "legal_actions_busiest_quarter_min_count": len(legal_actions(busy[-1])),
        "legal_actions_max_us": round(max(list_times) * 1e6, 1),
        "legal_actions_count_median": statistics.median(counts),
        "apply_median_us": median_us(apply_times),
        "apply_max_us": round(max(apply_times) * 1e6, 1),
    }
    out = ROOT / "bench" / "results" / "engine.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    for k, v in result.items():
        print(f"{k:42} {v}")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
