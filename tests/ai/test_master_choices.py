"""The master level's choices on a set of positions, as recorded on main before the review's noise fix
(tests/ai/data/master_choices.json): what the review or the hint adds to the search must not change
the plan the master level chooses, nor how its play-outs were spent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.ai import GreedyPlayer, MasterPlayer
from bot.ai.search import analyse
from rules import GameState, apply, new_game
from rules.serial import action_to_dict

RECORDED: list[dict[str, Any]] = json.loads((Path(__file__).parent / "data" / "master_choices.json").read_text())


def _turn_start(players: int, seed: int, steps: int) -> GameState:
    greedy = GreedyPlayer()
    s = new_game([f"p{i}" for i in range(players)], seed=seed)
    for _ in range(steps):
        s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))
    while s.pending is not None or s.acted:
        s, _ = apply(s, greedy.choose(s, s.waiting_on, seed=1))
    return s


@pytest.mark.parametrize("case", RECORDED, ids=lambda c: f"{c['players']}p-seed{c['seed']}-step{c['steps']}")
def test_the_master_level_chooses_as_it_did(case: dict[str, Any]) -> None:
    s = _turn_start(case["players"], case["seed"], case["steps"])
    found = analyse(s, s.active, seed=7, iterations=case["iterations"])
    assert [action_to_dict(a) for a in found.best.actions] == case["best"]
    assert [alt.visits for alt in found.alternatives] == case["visits"]
    assert round(found.value, 6) == case["value"]
    assert MasterPlayer().choose(s, s.active, seed=7, iterations=case["iterations"]) == found.best_action
