"""JSON for states, actions and events, and the view of a state that one player may see.

``from_json(to_json(s)) == s`` for every reachable state (R24 aside: the JSON holds everything,
hands and deck order included, so it is for storage only). ``view_for`` is what may be shown.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Any, cast

from . import actions as act
from . import events as ev
from .maps import Cell, GameMap, parse_map
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
    Pending,
    Player,
)

JSON = dict[str, Any]

_ACTIONS: dict[str, type[Any]] = {
    cls.__name__: cls
    for cls in (act.Exchange, act.Swap, act.Travel, act.Construct, act.Upgrade, act.Demolish, act.Populate,
                act.Renovate, act.EndTurn, act.Choose)
}


# ---------------------------------------------------------------------------------------------
# Values


def _value(v: object) -> object:
    """A field value as JSON: cells and cards as their text, enums by value, buildings as dicts."""
    if isinstance(v, Cell):
        return str(v)
    if isinstance(v, Cards):
        return str(v)
    if isinstance(v, Age):
        return v.letter
    if isinstance(v, Enum):
        return v.value
    if isinstance(v, act.Payment):
        return {"cards": str(v.cards), "pawns": list(v.pawns)}
    if isinstance(v, Building):
        return building_to_dict(v)
    if isinstance(v, Decision):
        return decision_to_dict(v)
    if isinstance(v, tuple):
        return [_value(x) for x in v]
    return v


def building_to_dict(b: Building) -> JSON:
    return {
        "id": b.id, "kind": b.kind.value, "origin": str(b.origin), "owner": b.owner, "printed": b.printed,
        "ruin": b.ruin, "population": list(b.population), "marker": b.marker,
    }


def _building(d: JSON, state: GameState) -> Building:
    kind = Kind(d["kind"])
    origin = Cell.parse(d["origin"])
    cells = state.map.footprint(origin, kind.level)
    if cells is None:
        raise ValueError(f"a {kind.value} at {origin} does not fit on the map")
    return Building(int(d["id"]), kind, origin, cells, d["owner"], bool(d["printed"]), bool(d["ruin"]),
                    tuple(d["population"]), d["marker"])


def decision_to_dict(d: Decision) -> JSON:
    return {
        "kind": d.kind.value, "player": d.player, "age": d.age.letter, "options": [str(c) for c in d.options],
        "subject": str(d.subject) if d.subject else None, "result": d.result.value if d.result else None,
        "family": d.family.value if d.family else None,
    }


def _decision(d: JSON) -> Decision:
    return Decision(
        DecisionKind(d["kind"]), int(d["player"]), Age.parse(d["age"]), tuple(Cell.parse(c) for c in d["options"]),
        Cell.parse(d["subject"]) if d["subject"] else None, Kind(d["result"]) if d["result"] else None,
        Family(d["family"]) if d["family"] else None,
    )


def action_to_dict(a: act.Action) -> JSON:
    """An action as a JSON object with a ``type`` key (for action logs)."""
    out: JSON = {"type": type(a).__name__}
    for f in dataclasses.fields(a):
        out[f.name] = _value(getattr(a, f.name))
    return out


def action_from_dict(d: JSON) -> act.Action:
    """Inverse of ``action_to_dict``. Raises ``ValueError`` on malformed input."""
    try:
        cls = _ACTIONS[d["type"]]
        kwargs: dict[str, object] = {}
        for f in dataclasses.fields(cls):
            v = d[f.name]
            t = str(f.type)
            if t == "int":
                kwargs[f.name] = int(v)
            elif t == "Cell":
                kwargs[f.name] = Cell.parse(v)
            elif t == "Cards":
                kwargs[f.name] = Cards.parse(v)
            elif t == "Age":
                kwargs[f.name] = Age.parse(v)
            elif t == "Kind":
                kwargs[f.name] = Kind(v)
            elif t == "Payment":
                kwargs[f.name] = act.Payment(Cards.parse(v["cards"]), (int(v["pawns"][0]), int(v["pawns"][1])))
            else:
                raise ValueError(f"field {f.name} of unknown type {t}")
        return cast(act.Action, cls(**kwargs))
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"not an action: {d!r} ({exc})") from None


def event_to_dict(e: ev.Event) -> JSON:
    """An event as a JSON object with a ``type`` key; buildings as dicts."""
    out: JSON = {"type": type(e).__name__}
    for f in dataclasses.fields(e):
        out[f.name] = _value(getattr(e, f.name))
    return out


# ---------------------------------------------------------------------------------------------
# States


def state_to_dict(s: GameState) -> JSON:
    return {
        "format": FORMAT_VERSION,
        "map": s.map.to_text(),
        "map_name": s.map.name,
        "options": {"holdem": s.options.holdem, "ecus_public": s.options.ecus_public},
        "players": [
            {"name": p.name, "colour": p.colour.value, "ecus": p.ecus, "supply": p.supply, "hand": str(p.hand),
             "pawns": [a.letter for a in p.pawns], "played": list(p.played)}
            for p in s.players
        ],
        "boards": [[building_to_dict(b) for b in sorted(board.buildings.values(), key=lambda b: b.id)]
                   for board in s.boards],
        "stock": {k.value: n for k, n in s.stock.items()},
        "deck": "".join(f.value for f in s.deck),
        "discard": "".join(f.value for f in s.discard),
        "reserve": str(s.reserve),
        "rng": str(s.rng),
        "round": s.round, "first": s.first, "active": s.active,
        "exchanged": s.exchanged, "swapped": s.swapped, "acted": s.acted,
        "next_id": s.next_id, "finished": s.finished, "winners": list(s.winners), "turn": s.turn,
        "pending": None if s.pending is None else {
            "decision": decision_to_dict(s.pending.decision),
            "base": state_to_dict(s.pending.base),
            "action": action_to_dict(cast(act.Action, s.pending.action)),
            "answers": [str(c) for c in s.pending.answers],
            "reported": s.pending.reported,
        },
    }


@lru_cache(maxsize=32)
def saved_map(text: str, name: str) -> GameMap:
    """The map a saved game names and draws (``to_text``), read once: every state read from the same
    text shares one map, and with it the tables a map keeps (the cells around each footprint, its
    blocks). A map is immutable; reading one took most of the time of reading a whole position."""
    game_map = parse_map(text, source="saved game")
    return game_map if game_map.name == name else dataclasses.replace(game_map, name=name)


def state_from_dict(d: JSON) -> GameState:
    if not isinstance(d, dict) or d.get("format") != FORMAT_VERSION:
        found = d.get("format") if isinstance(d, dict) else None
        raise ValueError(f"game state format {found!r} is not supported (this version reads {FORMAT_VERSION})")
    try:
        game_map = saved_map(d["map"], d["map_name"])
        s = GameState(
            map=game_map,
            options=Options(bool(d["options"]["holdem"]), bool(d["options"]["ecus_public"])),
            players=[
                Player(p["name"], Colour(p["colour"]), int(p["ecus"]), int(p["supply"]), Cards.parse(p["hand"]),
                       [Age.parse(a) for a in p["pawns"]], [int(x) for x in p["played"]])
                for p in d["players"]
            ],
            boards=[Board(age, {}, [0] * (game_map.width * game_map.height)) for age in Age],
            stock={Kind(k): int(n) for k, n in d["stock"].items()},
            deck=[Family(c) for c in d["deck"]],
            discard=[Family(c) for c in d["discard"]],
            reserve=Cards.parse(d["reserve"]),
            rng=int(d["rng"]),
            round=int(d["round"]), first=int(d["first"]), active=int(d["active"]),
            exchanged=bool(d["exchanged"]), swapped=bool(d["swapped"]), acted=bool(d["acted"]),
            next_id=int(d["next_id"]), finished=bool(d["finished"]), winners=tuple(d["winners"]),
            turn=int(d["turn"]),
        )
        for age, items in zip(Age, d["boards"], strict=True):
            for item in items:
                s.boards[age].put(_building(item, s))
        if d["pending"] is not None:
            p = d["pending"]
            s.pending = Pending(_decision(p["decision"]), state_from_dict(p["base"]), action_from_dict(p["action"]),
                                tuple(Cell.parse(c) for c in p["answers"]), int(p["reported"]))
        return s
    except (KeyError, TypeError) as exc:
        raise ValueError(f"malformed game state: missing or wrong field {exc}") from None


def to_json(s: GameState) -> str:
    """The whole state as JSON text, with its format version."""
    return json.dumps(state_to_dict(s), separators=(",", ":"))


def from_json(text: str) -> GameState:
    """Read a state written by ``to_json``. Raises ``ValueError`` on another format or bad data."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a saved game: {exc}") from None
    return state_from_dict(data)


# ---------------------------------------------------------------------------------------------
# What one player may see (R24)


@dataclass(frozen=True)
class View:
    """A state as ``viewer`` may see it (``None``: a spectator). ``state`` has every other hand emptied,
    the deck emptied, the generator state zeroed and the discard pile sorted (its contents are public,
    ruling A38; its order is not), also inside a pending decision's saved state. ``unseen`` is the
    multiset of cards the viewer cannot see (the deck and the other hands)."""

    state: GameState
    viewer: int | None
    hand_sizes: tuple[int, ...]
    deck_size: int
    unseen: Cards


def _redact(s: GameState, viewer: int | None) -> GameState:
    r = s.clone()
    for i, p in enumerate(r.players):
        if i != viewer:
            p.hand = Cards()
    r.deck = []
    r.rng = 0
    r.discard = sorted(r.discard, key=lambda f: "MRC".index(f.value))
    if r.pending is not None:
        r.pending = dataclasses.replace(r.pending, base=_redact(r.pending.base, viewer))
    return r


def view_for(s: GameState, viewer: int | None) -> View:
    """What ``viewer`` may see of ``s`` (R24): his own hand, never another's or the deck order."""
    unseen = Cards()
    for f in s.deck:
        unseen = unseen + Cards.of(f)
    for i, p in enumerate(s.players):
        if i != viewer:
            unseen = unseen + p.hand
    return View(_redact(s, viewer), viewer, tuple(p.hand.total for p in s.players), len(s.deck), unseen)
