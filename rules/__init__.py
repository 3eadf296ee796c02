"""Khronos rules engine: pure, deterministic, standard library only.

The whole interface::

    state = new_game(["Ana", "Ben", "Cy"], seed=7)            # R9–R10
    state, events = apply(state, action)                       # or raises RuleError
    legal_actions(state)                                       # every action apply accepts
    placements(state, player, Kind.KEEP, Age.MIGHT)            # quick, for autocompletion
    default_payment(state, player, age, need, extra)           # the sensible cards and pawns
    to_json(state) / from_json(text)                           # lossless, versioned
    view_for(state, viewer)                                    # what one player may see
    format_position / parse_position / format_action / parse_action   # the text notation

A state waiting on a player's decision has ``state.pending``; ``Choose(player, cell)`` answers it.
"""

from __future__ import annotations

from .actions import (
    Action,
    Choose,
    Construct,
    Demolish,
    EndTurn,
    Exchange,
    Payment,
    Populate,
    Renovate,
    Swap,
    Travel,
    Upgrade,
)
from .engine import apply, describe_decision, income, new_game, surcharge
from .errors import RuleError
from .events import Event
from .legal import default_payment, legal_actions, placements
from .maps import Cell, GameMap, MapError, Terrain, load_map, parse_map, plain_map
from .model import (
    FORMAT_VERSION,
    Age,
    Board,
    Building,
    Cards,
    Colour,
    Decision,
    DecisionKind,
    Family,
    GameState,
    Kind,
    Options,
    Player,
)

__all__ = [
    "FORMAT_VERSION",
    "Action",
    "Age",
    "Board",
    "Building",
    "Cards",
    "Cell",
    "Choose",
    "Colour",
    "Construct",
    "Decision",
    "DecisionKind",
    "Demolish",
    "EndTurn",
    "Event",
    "Exchange",
    "Family",
    "GameMap",
    "GameState",
    "Kind",
    "MapError",
    "Options",
    "Payment",
    "Player",
    "Populate",
    "Renovate",
    "RuleError",
    "Swap",
    "Terrain",
    "Travel",
    "Upgrade",
    "apply",
    "default_payment",
    "describe_decision",
    "income",
    "legal_actions",
    "load_map",
    "new_game",
    "parse_map",
    "placements",
    "plain_map",
    "surcharge",
]
