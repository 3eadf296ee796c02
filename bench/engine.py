"""Engine benchmark: median time of apply, of listing legal actions, of cloning a state and of
finding a board's domains afresh on busy mid-game positions, random 4-player games played per
second, and the strong and master levels' play-outs per second (what the AI's search can see in its
budget; the master level's per second of CPU time).
Prints the figures and writes bench/results/engine.json.

    python bench/engine.py [--games 20] [--positions 200] [--baseline REV] [--repeat 2]

With ``--baseline REV`` the same measures are also taken on the code of git revision ``REV`` (its
``rules`` and ``bot.ai``, exported with ``git archive`` into a temporary directory and measured in
a subprocess), alternately with this checkout's, ``--repeat`` times each; the best of the runs of
each is reported, before and after side by side. The machine is shared: compare only figures from
one run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _code_dir() -> Path:
    """The checkout whose ``rules`` is measured: ``--code DIR`` (a baseline's export) or this one."""
    if "--code" in sys.argv:
        return Path(sys.argv[sys.argv.index("--code") + 1])
    return ROOT


sys.path.insert(0, str(_code_dir()))

from pace import master_playouts_per_second  # noqa: E402  (beside this file)

from rules import Action, EndTurn, GameState, Options, apply, domains, legal_actions, new_game  # noqa: E402


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


def playouts_per_second(n: int = 12) -> float:
    """Play-outs of the strong level (``bot.ai.levels.play_rounds``) per second, from a 3-player
    position in round 3 of a greedy game (0 where the code measured has no such function)."""
    try:
        from bot.ai import GreedyPlayer
        from bot.ai.common import project
        from bot.ai.levels import beam_plans, play_rounds
    except ImportError:
        return 0.0
    greedy = GreedyPlayer()
    s = new_game(["a", "b", "c"], seed=7)
    while s.round < 3 or s.pending is not None:
        s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))
    seat = s.active
    view = project(s, seat)
    plans = beam_plans(view.state, seat, width=5, depth=6, deadline=float("inf"), keep=3)
    t = time.perf_counter()
    play_rounds(view, seat, [p.actions for p in plans], 1, n, None)
    return round(n / (time.perf_counter() - t), 2)


def measure(games: int, positions_wanted: int) -> dict[str, object]:
    """Every figure, on the code imported."""
    start = time.perf_counter()
    actions = sum(play(seed) for seed in range(games))
    elapsed = time.perf_counter() - start

    pool: list[GameState] = []
    for seed in range(1000, 1010):
        play(seed, keep=pool)
    r = random.Random(0)
    positions = r.sample(pool, min(positions_wanted, len(pool)))
    by_size = sorted(positions, key=lambda s: -len(legal_actions(s)))
    busy = by_size[: max(1, len(positions) // 4)]

    list_times, apply_times, counts, clone_times, domain_times = [], [], [], [], []
    for s in positions:
        t = time.perf_counter()
        acts = legal_actions(s)
        list_times.append(time.perf_counter() - t)
        counts.append(len(acts))
        a = pick(r, acts)
        t = time.perf_counter()
        apply(s, a)
        apply_times.append(time.perf_counter() - t)
        t = time.perf_counter()
        c = s.clone()
        clone_times.append(time.perf_counter() - t)
        for board in c.boards:
            board.cache = None  # found afresh
        t = time.perf_counter()
        for board in c.boards:
            domains(board, c.map)
        domain_times.append(time.perf_counter() - t)
    busy_times = []
    for s in busy:
        t = time.perf_counter()
        legal_actions(s)
        busy_times.append(time.perf_counter() - t)

    return {
        "random_4p_games_per_second": round(games / elapsed, 2),
        "actions_per_game": round(actions / games, 1),
        "positions": len(positions),
        "legal_actions_median_us": median_us(list_times),
        "legal_actions_busiest_quarter_median_us": median_us(busy_times),
        "legal_actions_busiest_quarter_min_count": len(legal_actions(busy[-1])),
        "legal_actions_max_us": round(max(list_times) * 1e6, 1),
        "legal_actions_count_median": statistics.median(counts),
        "apply_median_us": median_us(apply_times),
        "apply_max_us": round(max(apply_times) * 1e6, 1),
        "clone_median_us": median_us(clone_times),
        "domains_three_boards_median_us": median_us(domain_times),
        "strong_playouts_per_second_3p": playouts_per_second(),
        "master_playouts_per_cpu_second_3p": master_playouts_per_second(3),
        "master_playouts_per_cpu_second_4p": master_playouts_per_second(4),
        # a turn's search: as many play-outs from one position as a 2 s turn makes (the later ones of a
        # search reuse what the earlier ones judged, levels.Effects)
        "master_playouts_per_cpu_second_3p_turn": master_playouts_per_second(3, n=TURN_PLAYOUTS),
        "master_playouts_per_cpu_second_4p_turn": master_playouts_per_second(4, n=TURN_PLAYOUTS),
    }


#: play-outs of a turn's search (``master_playouts_per_cpu_second_*_turn``): about what 2 s of a core makes
TURN_PLAYOUTS = 48


#: figures where more is better (the others are times or counts)
HIGHER_IS_BETTER = ("random_4p_games_per_second", "strong_playouts_per_second_3p",
                    "master_playouts_per_cpu_second_3p", "master_playouts_per_cpu_second_4p",
                    "master_playouts_per_cpu_second_3p_turn", "master_playouts_per_cpu_second_4p_turn")
#: figures that are counts, the same before and after (not timed)
COUNTS = ("actions_per_game", "positions", "legal_actions_busiest_quarter_min_count", "legal_actions_count_median")


def best(runs: list[dict[str, object]]) -> dict[str, object]:
    """Each figure's best value over ``runs`` (the least disturbed by other work on the machine)."""
    out: dict[str, object] = {}
    for key in runs[0]:
        values = [run[key] for run in runs]
        if key in COUNTS:
            out[key] = values[0]
        elif key in HIGHER_IS_BETTER:
            out[key] = max(float(str(v)) for v in values)
        else:
            out[key] = min(float(str(v)) for v in values)
    return out


def export(rev: str, into: Path) -> None:
    """The tree of git revision ``rev`` of this repository, written under ``into``."""
    paths = ["rules", "bot/ai", "bot/__init__.py"]
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev, *paths], check=True,
                             capture_output=True).stdout
    tar_path = into / "tree.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into, filter="data")


def run_in(code: Path, games: int, positions: int) -> dict[str, object]:
    """``measure`` on the code under ``code``, in a subprocess."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, __file__, "--code", str(code), "--json", "--games", str(games),
                          "--positions", str(positions)], check=True, capture_output=True, text=True, env=env,
                         cwd=str(code)).stdout
    result: dict[str, object] = json.loads(out)
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--baseline", default=None, help="a git revision to measure too, e.g. main or HEAD~3")
    ap.add_argument("--repeat", type=int, default=2, help="runs of each checkout with --baseline (best kept)")
    ap.add_argument("--code", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.json:
        print(json.dumps(measure(args.games, args.positions)))
        return

    machine = f"{platform.machine()} {platform.python_implementation()} {platform.python_version()}"
    out = ROOT / "bench" / "results" / "engine.json"
    if args.baseline is None:
        result: dict[str, object] = {"machine": machine, **measure(args.games, args.positions)}
        out.write_text(json.dumps(result, indent=2) + "\n")
        for k, v in result.items():
            print(f"{k:42} {v}")
        print(f"written to {out.relative_to(ROOT)}")
        return

    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.baseline], check=True,
                         capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        export(args.baseline, base)
        befores, afters = [], []
        for _ in range(max(1, args.repeat)):
            befores.append(run_in(base, args.games, args.positions))
            afters.append(run_in(ROOT, args.games, args.positions))
    before, after = best(befores), best(afters)
    result = {"machine": machine, "load_average": [round(x, 2) for x in os.getloadavg()], "baseline": rev,
              "runs_each": max(1, args.repeat), "before": before, "after": after, **after}
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{'figure':42} {'before (' + rev + ')':>16} {'after':>12} {'ratio':>7}")
    for k in after:
        b, a = float(str(before.get(k, 0.0))), float(str(after[k]))
        ratio = "" if k in COUNTS or not b else f"{(a / b if k in HIGHER_IS_BETTER else b / a):.2f}x"
        print(f"{k:42} {b:16} {a:12} {ratio:>7}")
    print(f"written to {out.relative_to(ROOT)} (load average {result['load_average']})")


if __name__ == "__main__":
    main()
