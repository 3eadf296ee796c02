"""What a second of this machine's CPU buys the master level: its search's play-outs per second of
this process's CPU time, from the start of a turn in round 4 of greedy games. ``bench/engine.py``
reports it before and after a change; ``bench/ai.py`` records it in a run's header, because an AI
budget is seconds of one core's CPU and what a second buys differs between machines (the same code
has made 17 play-outs a CPU second on one machine and 53 on another): strength figures from two
machines compare only beside it.
"""

from __future__ import annotations

import time

from rules import apply, new_game


def master_playouts_per_second(players: int, n: int = 12, seeds: tuple[int, ...] = (7, 8)) -> float:
    """Play-outs of the master level's search (``bot.ai.search.Search.play``: a plan, the other players'
    greedy turns, the evaluation) per second of this process's CPU time (the machine is shared: on the
    wall clock the figure measures the load as much as the code), from the start of a turn in round 4
    of greedy games of ``players`` players, ``n`` play-outs from each (0 where the code measured has no
    such search)."""
    try:
        from bot.ai import GreedyPlayer
        from bot.ai.common import project
        from bot.ai.search import Search, root_plans
    except ImportError:
        return 0.0
    greedy = GreedyPlayer()
    spent = 0.0
    for seed in seeds:
        s = new_game([f"p{i}" for i in range(players)], seed=seed)
        while s.round < 4 or s.pending is not None or s.acted:
            s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))
        seat = s.active
        view = project(s, seat)
        plans = root_plans(view, seat, deadline=float("inf"), clock=time.perf_counter)
        found = Search(view, seat, plans, seed)
        t = time.process_time()
        for _ in range(n):
            found.play(found.next_plan(), time.process_time)
        spent += time.process_time() - t
    return round(n * len(seeds) / spent, 2)
