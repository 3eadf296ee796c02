"""``rules.openings`` (what the hand message's "You can:" says) is what the legal-action listing holds,
kind by kind: the same types of action, the same kinds constructed on each board, the same buildings
upgraded, demolished, populated and renovated on each board in the listing's order, over every position
of random games (2-5 players, with and without Hold'em, on the tests' map and the default one), both
with the boards' kept free blocks (a position already listed) and without (a position read afresh)."""

from __future__ import annotations

import pytest

from rules import (
    Action,
    ActionType,
    Age,
    Cell,
    Construct,
    Demolish,
    GameState,
    Kind,
    Openings,
    Populate,
    Renovate,
    Upgrade,
    from_json,
    legal_actions,
    load_map,
    openings,
    to_json,
)
from tests.support.gameplay import random_game


def openings_listed(actions: list[Action]) -> Openings:
    """``Openings`` as read from a listing: each type; each kind built on each board; each building
    acted on, on each board, in the order the listing first names it."""
    types: set[ActionType] = set()
    builds: dict[Age, set[Kind]] = {}
    targets: dict[ActionType, dict[Age, list[Cell]]] = {}
    for a in actions:
        types.add(type(a))
        if isinstance(a, Construct):
            builds.setdefault(a.age, set()).add(a.kind)
            continue
        if isinstance(a, (Upgrade, Demolish)):
            age, cell = a.age, a.target
        elif isinstance(a, (Populate, Renovate)):
            age, cell = Age.REASON, a.target
        else:
            continue
        cells = targets.setdefault(type(a), {}).setdefault(age, [])
        if cell not in cells:
            cells.append(cell)
    return Openings(frozenset(types), {age: tuple(k for k in Kind if k in kinds) for age, kinds in builds.items()},
                    {t: {age: tuple(cells) for age, cells in by_age.items()} for t, by_age in targets.items()})


def assert_openings_listed(s: GameState) -> None:
    found = openings(s)
    assert found == openings_listed(legal_actions(s, outline=True))
    assert found == openings_listed(legal_actions(s))


def test_openings_of_a_new_game_are_the_listings() -> None:
    s = next(iter(random_game(0, 3, False))).before
    found = openings(s)
    assert Construct in found.types and found.builds
    assert_openings_listed(s)


@pytest.mark.slow
@pytest.mark.parametrize("map_name", ["test", "default"])
@pytest.mark.parametrize(("seed", "players", "holdem"), [(seed, 2 + seed % 4, seed % 3 == 1) for seed in range(8)])
def test_openings_are_the_listings_in_every_position_of_random_games(seed: int, players: int, holdem: bool,
                                                                      map_name: str) -> None:
    kinds_seen: set[ActionType] = set()
    for step in random_game(seed, players, holdem, load_map() if map_name == "default" else None):
        assert_openings_listed(step.before)  # (listed already: its boards keep their free blocks)
        fresh = from_json(to_json(step.after))  # (read afresh: nothing kept)
        assert_openings_listed(fresh)
        kinds_seen |= openings(fresh).types
    assert {Construct, Upgrade} <= kinds_seen
