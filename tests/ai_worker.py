"""Run in a pool's worker process by tests/test_ai.py: a strong player's turn with its play-outs
shared with a helper process, as in the bot's AI worker; returns the helpers' process ids."""

from __future__ import annotations

import multiprocessing

from bot.ai import choose_action, helpers
from rules import apply, new_game


def strong_turn_with_a_helper() -> list[int]:
    s = new_game(["a", "b", "c"], seed=3)
    for _ in range(6):
        s, _ = apply(s, choose_action(s, s.waiting_on, "greedy", seed=1))
    choose_action(s, s.waiting_on, "strong", seed=1, iterations=12, workers=2)
    assert helpers._pool is not None
    return [p.pid for p in multiprocessing.active_children() if p.pid is not None]
