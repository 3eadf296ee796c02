"""``bench/ai.py --budget-of``: a level named there thinks its own budget a turn, the others the common one."""

from __future__ import annotations

from bench.ai import play
from bot.ai import Players
from rules import Action, GameState


class _Recording(Players):
    """The benchmark's players, noting the budget each level is asked to think within."""

    def __init__(self) -> None:
        super().__init__(workers=1)
        self.budgets: dict[str, set[float]] = {}

    def choose(self, state: GameState, seat: int, level: str, *, seed: int, budget_s: float = 2.0,
               iterations: int | None = None) -> Action:
        self.budgets.setdefault(level, set()).add(budget_s)
        return super().choose(state, seat, level, seed=seed, budget_s=budget_s, iterations=iterations)


def test_a_level_given_its_own_budget_thinks_within_it_and_the_others_within_the_common_one() -> None:
    players = _Recording()
    try:
        game = play(["greedy", "random"], 3, 2.0, None, True, 1, "cpu", {"greedy": 0.5}, players)
    finally:
        players.close()
    assert game.winners
    assert players.budgets == {"greedy": {0.5}, "random": {2.0}}


def test_without_budgets_every_level_thinks_within_the_common_one() -> None:
    players = _Recording()
    try:
        play(["greedy", "random"], 3, 1.5, None, False, 1, "cpu", None, players)
    finally:
        players.close()
    assert players.budgets == {"greedy": {1.5}, "random": {1.5}}
