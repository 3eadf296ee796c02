"""The master level's choices on a set of positions, as recorded on main before the review's noise fix
(tests/ai/data/master_choices.json; ``record`` writes them again after a deliberate change to the
master level's play; the last two, in rounds 3 and 6, where play-outs go on through an income, were
added with ``search.INCOME_REACH``): what the review or the hint adds to the search must not change the plan the
master level chooses, nor how its play-outs were spent."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bot.ai import GreedyPlayer, MasterPlayer
from bot.ai.search import Analysis, analyse
from bot.service.review import REVIEW_DEALS, TurnCost
from rules import Action, EndTurn, GameState, action_to_dict, apply
from tests.support.gameplay import greedy_turn_start

RECORDED: list[dict[str, Any]] = json.loads((Path(__file__).parent / "data" / "master_choices.json").read_text())




@cache
def searched(players: int, seed: int, steps: int, iterations: int) -> tuple[GameState, Analysis]:
    """A recorded position and the master level's analysis of it (seed 7, the recorded play-outs),
    worked out once for both tests."""
    s = greedy_turn_start(players, seed, steps)
    return s, analyse(s, s.active, seed=7, iterations=iterations)


def _searched(case: dict[str, Any]) -> tuple[GameState, Analysis]:
    return searched(case["players"], case["seed"], case["steps"], case["iterations"])


@pytest.mark.parametrize("case", RECORDED, ids=lambda c: f"{c['players']}p-seed{c['seed']}-step{c['steps']}")
def test_the_master_level_chooses_as_it_did(case: dict[str, Any]) -> None:
    s, found = _searched(case)
    assert [action_to_dict(a) for a in found.best.actions] == case["best"]
    assert [alt.visits for alt in found.alternatives] == case["visits"]
    assert round(found.value, 6) == case["value"]
    assert MasterPlayer().choose(s, s.active, seed=7, iterations=case["iterations"]) == found.best_action


def _greedy_turn(s: GameState) -> list[Action]:
    """The turn the greedy level plays from ``s`` (its own actions, without the end of the turn)."""
    seat, greedy, played, t = s.active, GreedyPlayer(), [], s
    while not t.finished and t.active == seat and t.waiting_on == seat:
        a = greedy.choose(t, seat, seed=1)
        if isinstance(a, EndTurn):
            break
        played.append(a)
        t, _ = apply(t, a)
    return played


@pytest.mark.parametrize("case", RECORDED[:4], ids=lambda c: f"{c['players']}p-seed{c['seed']}-step{c['steps']}")
def test_a_review_chooses_as_the_master_level_and_never_blames_its_choice(case: dict[str, Any]) -> None:
    """With the turn played added (``extra``) and confirmed on common deals, the search still chooses
    the recorded plan (what the hint says at the same play-outs); the master level's own plan, played,
    costs nothing; any turn's cost comes with its standard error on the common deals."""
    s, found = _searched(case)
    seat, n = s.active, case["iterations"]
    own = found.best.actions
    for played in (list(own), _greedy_turn(s)):
        review = analyse(s, seat, seed=7, iterations=n, extra=[played], deals=REVIEW_DEALS)
        assert [action_to_dict(a) for a in review.best.actions] == case["best"]
        alt = review.find(played)
        assert alt is not None and alt.visits >= REVIEW_DEALS and review.best.visits >= REVIEW_DEALS
        cost, error = review.cost(played), review.cost_error(played)
        assert cost is not None and error is not None and error >= 0.0
        if tuple(played) == own:
            assert cost == 0.0 and error == 0.0
            assert not TurnCost(0, s.round, seat, cost, tuple(played), own, error).clear
        else:
            common = list(zip(review.best.scores, alt.scores, strict=False))
            assert len(common) >= REVIEW_DEALS
            assert cost == pytest.approx(max(0.0, sum(b - x for b, x in common) / len(common)))


def record() -> None:
    """Record the choices again (``tests/ai/data/master_choices.json``), on the same positions, after a
    deliberate change to the master level's play: ``PYTHONPATH=. python -m tests.ai.test_master_choices``."""
    lines = []
    for case in RECORDED:
        s = greedy_turn_start(case["players"], case["seed"], case["steps"])
        found = analyse(s, s.active, seed=7, iterations=case["iterations"])
        fresh = {key: case[key] for key in ("players", "seed", "steps", "iterations")}
        fresh |= {"best": [action_to_dict(a) for a in found.best.actions],
                  "visits": [alt.visits for alt in found.alternatives], "value": round(found.value, 6)}
        lines.append(json.dumps(fresh))
    (Path(__file__).parent / "data" / "master_choices.json").write_text("[\n" + ",\n".join(lines) + "\n]\n")


if __name__ == "__main__":
    record()
