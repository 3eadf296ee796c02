"""AI benchmark: seeded 2- to 5-player games between the levels, seats rotated from game to game.
Prints win rates with their Wilson 95% intervals, average final Ecus per level and decision times
per turn (median, p95, max), and writes bench/results/ai.json.

    python bench/ai.py [--games 40] [--budget 2.0] [--budget-of LEVEL=SECONDS] [--clock cpu|wall]
                       [--iterations N] [--jobs 1] [--workers 2] [--matchups master,greedy,greedy ...]
                       [--merge FILE ...]

The issue's matchups for the top level (the default), one core per game (two games at a time on
two cores):

    nice -n 19 python bench/ai.py --games 200 --jobs 2 --workers 1 --clock cpu

or side by side, one matchup per process, merged afterwards (``--merge`` plays nothing):

    nice -n 19 python bench/ai.py --games 200 --workers 1 --matchups master,strong --out /tmp/2p.json &
    ...
    python bench/ai.py --merge /tmp/3p.json /tmp/4p.json /tmp/2p.json

Each matchup plays ``--games`` games; game ``g`` uses seed ``--seed + g`` and seats the levels
rotated by ``g``. A win shared by k players counts 1/k. Times are per *turn*: every call made for a
seat during its own turn is added up (decisions answered during another player's turn are listed
separately). Run it with ``nice -n 10`` on a shared machine.

**The clock** (``--clock``). With ``cpu`` (the default) every AI player reads its budget from the
CPU time of the thread that plays the game (``time.thread_time``): a 2 s budget is two seconds of
one core's work, what a dedicated core gives, however loaded the machine is — so the figures do not
depend on what else runs. Turn times are then reported in CPU seconds, with the wall-clock seconds
beside them (``turn_wall_*``). With ``wall`` the players read ``time.perf_counter``, as the bot
does, and both figures are wall seconds. A helper process (``--workers`` above 1) is given the
remaining budget as wall-clock seconds either way; for a machine-independent figure use
``--workers 1``. The clock is recorded in the run's header (``clock``).

**The machine's pace.** A CPU second buys different machines different numbers of play-outs (the same
code has made 17 master play-outs a CPU second on one and 53 on another), so a run first measures
what one buys here (``bench/pace.py``: master's play-outs per CPU second from two three-player
positions, a few seconds) and records it in its header (``master_playouts_per_cpu_second_3p``;
``--no-pace`` skips it). Win rates from two machines compare only beside it.

``--workers`` is how many processes a strong player's play-outs use at once (its helpers,
``bot.ai.Helpers``; default: one per core, at most two, as the bot does). ``--jobs`` is how many
games are played at once, each in its own process; a matchup with a strong player plays
``jobs // workers`` games at once (at least one), so that the processes never outnumber ``jobs``.
On a two-core machine the default ``--jobs 2`` plays the greedy/random matchups two at a time and
the strong ones one at a time, each strong turn on both cores: the configuration the bot runs with.

A level's win rate per seat is its wins (a shared win counts 1/k) over its seats in all games;
its interval is Wilson's score interval for that proportion over ``games × seats`` trials (exact in
spirit for a level with one seat, which is what the matchups above measure).

Games played one at a time share one set of players (``bot.ai.Players``), as the bot's AI worker
does from game to game: a strong player keeps its helpers and its measure of a play-out's length.
A game played in a process of its own gets new players. Every level given must be one of
``bot.ai.LEVELS``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pace import master_playouts_per_second  # noqa: E402
from bot.ai import Players, StrongPlayer, get_level  # noqa: E402
from bot.config import default_ai_processes  # noqa: E402
from rules import apply, legal_actions, new_game  # noqa: E402

#: the top level's matchups of issue 20 (targets: 0.60, 0.45 and 0.65 win rate for master)
DEFAULT_MATCHUPS = [
    "master,greedy,greedy",
    "master,greedy,greedy,greedy",
    "master,strong",
]


@dataclass
class Tally:
    """What one level did in one matchup."""

    games: int = 0
    wins: float = 0.0
    ecus: list[int] = field(default_factory=list)
    turn_times: list[float] = field(default_factory=list)
    turn_wall_times: list[float] = field(default_factory=list)
    decision_times: list[float] = field(default_factory=list)


#: the clocks a player's budget may be read from (``--clock``)
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.thread_time, "wall": time.perf_counter}


@dataclass
class Game:
    """One game's results: final Ecus, winners, and per seat its turn times (on the run's clock and
    on the wall clock) and its off-turn decision times (on the run's clock)."""

    ecus: list[int]
    winners: tuple[int, ...]
    turns: list[list[float]]
    turns_wall: list[list[float]]
    decisions: list[list[float]]


def play(levels: list[str], seed: int, budget: float, iterations: int | None, check: bool, workers: int,
         clock: str = "cpu", budgets: dict[str, float] | None = None, players: Players | None = None) -> Game:
    """One game. With no ``players``, new ones play it (their play-outs using ``workers``
    processes, their budgets read from ``CLOCKS[clock]``), closed at its end. A level named in
    ``budgets`` thinks that many seconds a turn instead of ``budget``."""
    if players is None:
        players = Players(workers=workers, clock=CLOCKS[clock])
        try:
            return play(levels, seed, budget, iterations, check, workers, clock, budgets, players)
        finally:
            players.close()
    budget_of = {lv: (budgets or {}).get(lv, budget) for lv in levels}
    timer = CLOCKS[clock]
    s = new_game([f"{lv}{i}" for i, lv in enumerate(levels)], seed=seed)
    n = len(levels)
    turn_times: list[list[float]] = [[] for _ in range(n)]
    turn_wall: list[list[float]] = [[] for _ in range(n)]
    decisions: list[list[float]] = [[] for _ in range(n)]
    current = [0.0] * n
    current_wall = [0.0] * n
    while not s.finished:
        who = s.waiting_on
        t, w = timer(), time.perf_counter()
        a = players.choose(s, who, levels[who], seed=seed * 1009 + s.turn, budget_s=budget_of[levels[who]],
                           iterations=iterations)
        dt, dw = timer() - t, time.perf_counter() - w
        if check:
            assert a in legal_actions(s), a
        active = s.active
        turn = s.turn
        s, _ = apply(s, a)
        if who == active:
            current[who] += dt
            current_wall[who] += dw
            if s.finished or s.turn != turn:
                turn_times[who].append(current[who])
                turn_wall[who].append(current_wall[who])
                current[who] = current_wall[who] = 0.0
        else:
            decisions[who].append(dt)
    return Game([p.ecus for p in s.players], s.winners, turn_times, turn_wall, decisions)


Job = tuple[list[str], int, float, int | None, bool, int, str, dict[str, float]]


def _play_args(args: Job) -> Game:
    return play(*args)


def _games(jobs: list[Job], processes: int, players: Players) -> Iterator[Game]:
    """The games' results in order: one at a time by ``players``, or ``processes`` at a time, each
    by new players in a process of its own (which may start helpers of its own, unlike a
    ``multiprocessing.Pool``'s)."""
    if processes <= 1:
        for job in jobs:
            yield play(*job, players=players)
        return
    with concurrent.futures.ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        yield from pool.map(_play_args, jobs)


def summary(tallies: dict[str, Tally], seats_per_level: dict[str, int]) -> dict[str, object]:
    """Each level's figures so far: win rates (per seat, with Wilson's 95% interval), Ecus, times."""
    per_level: dict[str, object] = {}
    for lv, t in tallies.items():
        seats = seats_per_level[lv]
        low, high = wilson(t.wins, t.games * seats)
        per_level[lv] = {
            "seats": seats,
            # share of games won by this level, and per seat of that level (fair share: 1/players)
            "win_rate": round(t.wins / t.games, 3),
            "win_rate_per_seat": round(t.wins / t.games / seats, 3),
            "win_rate_per_seat_95": [round(low, 3), round(high, 3)],
            "avg_final_ecus": round(statistics.fmean(t.ecus), 1),
            "turn_time_median_s": round(statistics.median(t.turn_times), 3) if t.turn_times else 0.0,
            "turn_time_p95_s": round(pct(t.turn_times, 0.95), 3),
            "turn_time_max_s": round(max(t.turn_times, default=0.0), 3),
            "turn_wall_median_s": round(statistics.median(t.turn_wall_times), 3) if t.turn_wall_times else 0.0,
            "turn_wall_p95_s": round(pct(t.turn_wall_times, 0.95), 3),
            "turn_wall_max_s": round(max(t.turn_wall_times, default=0.0), 3),
            "off_turn_decisions": len(t.decision_times),
        }
    return per_level


def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval (95% with ``z`` = 1.96) for a proportion of ``successes`` in
    ``trials``; a shared win counts as a fraction of a success."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * ((p * (1 - p) / trials + z * z / (4 * trials * trials)) ** 0.5) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def merge(files: list[Path], out: Path) -> None:
    """One results file from several runs made side by side (one matchup each): their matchups,
    and each run's settings, command and load under ``runs``."""
    runs: list[dict[str, object]] = []
    matchups: dict[str, object] = {}
    for f in files:
        report = json.loads(f.read_text())
        found = report.pop("matchups", {})
        assert isinstance(found, dict)
        matchups.update(found)
        runs.append({"file": f.name, **report})
    _write(out, {"runs": runs, "matchups": matchups})
    for spec, res in matchups.items():
        for lv, d in res["levels"].items():
            low, high = d["win_rate_per_seat_95"]
            print(f"{spec:32} {lv:8} {res['games']:5} {d['win_rate_per_seat']:8.3f} [{low:.3f}, {high:.3f}] "
                  f"turn median {d['turn_time_median_s']:.3f} s, max {d['turn_time_max_s']:.3f} s "
                  f"(wall {d.get('turn_wall_median_s', 0.0):.3f} s, {d.get('turn_wall_max_s', 0.0):.3f} s)")
    print(f"written to {out}")


def _write(out: Path, report: dict[str, object]) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")


def _load() -> list[float]:
    """The machine's load averages (1, 5, 15 minutes), or nothing where the system has none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--games", type=int, default=40, help="games per matchup")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budget", type=float, default=2.0, help="seconds per turn for the strong level")
    ap.add_argument("--budget-of", action="append", default=[], metavar="LEVEL=SECONDS",
                    help="seconds per turn for one level instead of --budget (repeatable), e.g. master=4")
    ap.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                    help="the players' budget clock: the game thread's CPU time (default) or the wall clock")
    ap.add_argument("--iterations", type=int, default=None, help="fixed play-outs instead of a time budget")
    ap.add_argument("--matchups", nargs="*", default=DEFAULT_MATCHUPS)
    ap.add_argument("--check", action="store_true", help="also check every action is in legal_actions")
    ap.add_argument("--no-pace", dest="pace", action="store_false",
                    help="do not measure what a CPU second buys here (the header's master_playouts_per_cpu_second_3p)")
    ap.add_argument("--jobs", type=int, default=1, help="games played at once, in that many processes")
    ap.add_argument("--workers", type=int, default=default_ai_processes(),
                    help="processes a strong player's play-outs use at once (default: cores, at most 2)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "ai.json"))
    ap.add_argument("--merge", nargs="+", default=None, metavar="FILE",
                    help="play nothing: merge the matchups of these results files (runs made side by side) into --out")
    args = ap.parse_args()
    if args.merge:
        merge([Path(f) for f in args.merge], Path(args.out))
        return
    budgets: dict[str, float] = {}
    for item in args.budget_of:
        level, _, secs = item.partition("=")
        try:
            get_level(level)
        except ValueError as err:
            ap.error(str(err))
        try:
            budgets[level] = float(secs)
        except ValueError:
            ap.error(f"--budget-of wants LEVEL=SECONDS, not {item!r}")
    for spec in args.matchups:
        for level in spec.split(","):
            try:
                get_level(level)
            except ValueError as err:
                ap.error(str(err))

    started = time.perf_counter()
    report: dict[str, object] = {
        "machine": f"{platform.machine()} {platform.python_implementation()} {platform.python_version()}",
        "games_per_matchup": args.games,
        "budget_s": args.budget,
        "budget_s_of": budgets,
        # the players' budget clock; turn_time_* are on it, turn_wall_* on the wall clock
        "clock": "thread CPU time (time.thread_time)" if args.clock == "cpu" else "wall (time.perf_counter)",
        "iterations": args.iterations,
        "workers": args.workers,
        "jobs": args.jobs,
        "load_average_at_start": _load(),
        # what a second of this machine's core buys the master level (bench/pace.py): budgets are CPU
        # seconds, so figures from two machines compare only beside it
        "master_playouts_per_cpu_second_3p": master_playouts_per_second(3) if args.pace else None,
        "command": " ".join(["python", "bench/ai.py", *sys.argv[1:]]),
        "matchups": {},
    }
    matchups: dict[str, object] = {}
    if args.pace:
        print(f"a CPU second here buys master {report['master_playouts_per_cpu_second_3p']} play-outs "
              "(three players, bench/pace.py)", flush=True)
    players = Players(workers=args.workers, clock=CLOCKS[args.clock])
    for spec in args.matchups:
        levels = spec.split(",")
        n = len(levels)
        tallies: dict[str, Tally] = {lv: Tally() for lv in levels}
        seats_per_level = {lv: levels.count(lv) for lv in levels}
        t0 = time.perf_counter()
        seatings = [levels[g % n:] + levels[: g % n] for g in range(args.games)]
        jobs: list[Job] = [(seated, args.seed + g, args.budget, args.iterations, args.check, args.workers, args.clock,
                            budgets)
                           for g, seated in enumerate(seatings)]
        helped = "strong" in levels and args.workers > 1  # only the strong level uses helper processes
        at_once = max(1, args.jobs // args.workers) if helped else args.jobs
        if at_once == 1 and helped:
            strong = players.player("strong")
            if isinstance(strong, StrongPlayer):
                strong.start_helpers()
        for g, game in enumerate(_games(jobs, at_once, players)):
            seated = seatings[g]
            ecus, winners = game.ecus, game.winners
            for i, lv in enumerate(seated):
                t = tallies[lv]
                t.ecus.append(ecus[i])
                t.turn_times.extend(game.turns[i])
                t.turn_wall_times.extend(game.turns_wall[i])
                t.decision_times.extend(game.decisions[i])
                if i in winners:
                    t.wins += 1 / len(winners)
            for lv in tallies:
                tallies[lv].games += 1
            line = " ".join(f"{lv}={e}" for lv, e in zip(seated, ecus, strict=True))
            lead = tallies[levels[0]]
            low, high = wilson(lead.wins, lead.games * seats_per_level[levels[0]])
            so_far = f"{levels[0]} {lead.wins / lead.games / seats_per_level[levels[0]]:.3f} [{low:.3f}, {high:.3f}]"
            print(f"  {spec} game {g + 1}/{args.games}: {line}  winners={[seated[w] for w in winners]}  "
                  f"so far: {so_far}", flush=True)
            # after every game, so that a run cut short keeps what it found
            matchups[spec] = {"players": n, "games": g + 1, "games_at_once": at_once, "unfinished": True,
                              "seconds": round(time.perf_counter() - t0, 1),
                              "levels": summary(tallies, seats_per_level)}
            report["matchups"] = matchups
            report["load_average_now"] = _load()
            _write(Path(args.out), report)
        res: dict[str, object] = {"players": n, "games": tallies[levels[0]].games, "games_at_once": at_once,
                                  "seconds": round(time.perf_counter() - t0, 1)}
        per_level = summary(tallies, seats_per_level)
        res["levels"] = per_level
        matchups[spec] = res
        print(f"{spec}: {json.dumps(per_level)}", flush=True)
        report["matchups"] = matchups
        _write(Path(args.out), report)
    players.close()
    report["matchups"] = matchups
    report["total_seconds"] = round(time.perf_counter() - started, 1)
    report["load_average_at_end"] = _load()
    out = Path(args.out)
    _write(out, report)
    print(f"\nturn times in {args.clock} seconds (wall seconds beside them)")
    print(f"{'matchup':32} {'level':8} {'games':>5} {'win/seat':>8} {'95% interval':>15} {'ecus':>6} "
          f"{'turn med':>9} {'turn p95':>9} {'turn max':>9} {'wall med':>9} {'wall max':>9}")
    for spec, res in matchups.items():
        assert isinstance(res, dict)
        for lv, d in res["levels"].items():
            low, high = d["win_rate_per_seat_95"]
            print(f"{spec:32} {lv:8} {res['games']:5} {d['win_rate_per_seat']:8.3f} {f'{low:.3f}–{high:.3f}':>15} "
                  f"{d['avg_final_ecus']:6.1f} {d['turn_time_median_s']:9.3f} {d['turn_time_p95_s']:9.3f} "
                  f"{d['turn_time_max_s']:9.3f} {d['turn_wall_median_s']:9.3f} {d['turn_wall_max_s']:9.3f}")
    print(f"total {report['total_seconds']} s; written to {out}")


if __name__ == "__main__":
    main()
