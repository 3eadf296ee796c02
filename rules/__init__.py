"""Khronos rules engine: pure, deterministic, standard library only.

Everything a caller may use is importable from ``rules`` itself (``__all__`` below); the event
types are the public namespace ``rules.events``. The other modules are private: nothing outside
this package imports them (``tests/app/test_layout.py`` checks). ::

    state = new_game(["Ana", "Ben", "Cy"], seed=7)            # R9–R10
    new_game(names, seed=keyed_seed(secrets.randbits(128)))    # a deal no search can find
    state, events = apply(state, action)                       # or raises RuleError
    legal_actions(state)                                       # every action apply accepts
    openings(state)                                            # what can be done, kind by kind, unlisted
    placements(state, player, Kind.KEEP, Age.MIGHT)            # quick, for autocompletion
    economy(state); economy_change(before, after, events)     # domains, control, income outlook
    default_payment(state, player, age, need, extra)           # the sensible cards and pawns
    to_json(state) / from_json(text)                           # lossless, versioned
    view_for(state, viewer)                                    # what one player may see
    format_position / parse_position / format_action / parse_action   # the text notation

A state waiting on a player's decision has ``state.pending``; ``Choose(player, cell)`` answers it.

Two errors reach a player: ``RuleError`` (the rules refuse an action; it names the rule) and
``NotationError`` (text that cannot be read; it shows good input). Both are ``ValueError``s. Any
other exception from this package is a bug.
"""

from __future__ import annotations

from . import events
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
from .domains import Domains, domains, domains_afresh, ordered_group, ordered_groups, violation
from .economy import (
    DomainEconomy,
    DomainShift,
    Economy,
    EconomyChange,
    Harm,
    HarmKind,
    Outlook,
    action_economy,
    economy,
    economy_change,
    outlook,
    same_board,
)
from .engine import (
    apply,
    apply_first,
    describe_decision,
    income,
    income_sources,
    new_game,
    pool,
    surcharge,
    surcharged_terrain,
    with_article,
)
from .errors import NotationError, RuleError
from .events import Event
from .legal import (
    ActionType,
    Openings,
    construct_sites,
    default_payment,
    legal_actions,
    openings,
    placements,
    sub_multisets,
)
from .maps import (
    CODE_OF_FEATURES,
    COLUMNS,
    TERRAIN_CODES,
    Cell,
    GameMap,
    MapError,
    Terrain,
    classify,
    load_map,
    parse_map,
    plain_map,
)
from .model import (
    CUBES_PER_PLAYER,
    DECK_COMPOSITION,
    FORMAT_VERSION,
    INCOME_ROUNDS,
    INITIAL_STOCK,
    POPULATION_CAP,
    ROUNDS,
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
from .notation import format_action, format_board, format_position, parse_action, parse_position
from .rng import is_keyed, keyed_seed
from .serial import View, action_from_dict, action_to_dict, event_to_dict, from_json, to_json, view_for

__all__ = [
    "CODE_OF_FEATURES",
    "COLUMNS",
    "CUBES_PER_PLAYER",
    "DECK_COMPOSITION",
    "FORMAT_VERSION",
    "INCOME_ROUNDS",
    "INITIAL_STOCK",
    "POPULATION_CAP",
    "ROUNDS",
    "TERRAIN_CODES",
    "Action",
    "ActionType",
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
    "DomainEconomy",
    "DomainShift",
    "Domains",
    "Economy",
    "EconomyChange",
    "EndTurn",
    "Event",
    "Exchange",
    "Family",
    "GameMap",
    "GameState",
    "Harm",
    "HarmKind",
    "Kind",
    "MapError",
    "NotationError",
    "Openings",
    "Options",
    "Outlook",
    "Payment",
    "Player",
    "Populate",
    "Renovate",
    "RuleError",
    "Swap",
    "Terrain",
    "Travel",
    "Upgrade",
    "View",
    "action_economy",
    "action_from_dict",
    "action_to_dict",
    "apply",
    "apply_first",
    "classify",
    "construct_sites",
    "default_payment",
    "describe_decision",
    "domains",
    "domains_afresh",
    "economy",
    "economy_change",
    "event_to_dict",
    "events",
    "format_action",
    "format_board",
    "format_position",
    "from_json",
    "income",
    "income_sources",
    "is_keyed",
    "keyed_seed",
    "legal_actions",
    "load_map",
    "new_game",
    "openings",
    "ordered_group",
    "ordered_groups",
    "outlook",
    "parse_action",
    "parse_map",
    "parse_position",
    "placements",
    "plain_map",
    "pool",
    "same_board",
    "sub_multisets",
    "surcharge",
    "surcharged_terrain",
    "to_json",
    "view_for",
    "violation",
    "with_article",
]
