"""Run in other processes by tests/ai/test_players.py: a strong player's turn with its play-outs shared with a
helper process, in a pool's worker as the bot's AI worker once was; and stand-in AIs for the bot's
AI worker (``bot.ai.AIWorker``), which must be importable there."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

from bot.ai import GreedyPlayer, StrongPlayer
from rules import Action, GameState, apply, legal_actions, new_game

#: the players of this process, kept until it exits, as the bot's AI worker keeps its own
KEPT: list[StrongPlayer] = []


def strong_turn_with_a_helper() -> list[int]:
    greedy = GreedyPlayer()
    strong = StrongPlayer(workers=2)
    KEPT.append(strong)
    s = new_game(["a", "b", "c"], seed=3)
    for _ in range(6):
        s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))
    strong.choose(s, s.waiting_on, seed=1, iterations=12)
    assert strong.helpers is not None and strong.helpers.pids()
    return [p.pid for p in multiprocessing.active_children() if p.pid is not None]


def first_action(state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0) -> Action:
    """A stand-in AI: the first legal action."""
    return legal_actions(state)[0]


def broken(state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0) -> Action:
    """An AI with a bug."""
    raise ValueError(f"a bug in the {level} AI")


def die_once(state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0, marker: str = "") -> Action:
    """An AI whose first call kills the process it runs in, then plays ``first_action``."""
    if not os.path.exists(marker):
        Path(marker).write_text("died once")
        os._exit(1)
    return first_action(state, seat, level, seed=seed, budget_s=budget_s)
